# libplacement - build, test, install.
#
#   make            the static and shared libraries, and the placement tool (build/)
#   make check      every Check suite, the example loops and the tool's golden tests (installs its own dependencies)
#   make demo       the simulator on its built-in scenarios, then placement simulate on examples
#   make install    PREFIX/prefix, DESTDIR, LIBDIR, INCLUDEDIR, PKGCONFIGDIR, MANDIR, BINDIR
#   make uninstall  the same variables
#   make sanitize   the suites under -fsanitize=address,undefined (SAN_ITERS, SAN_JOBS below)
#   make valgrind   the suites and the tool under valgrind memcheck
#   make determinism  byte-identical plans from gcc -O0/-O2, clang -O2, -march=native
#   make install-test  stage an install, build every example with pkg-config only, run them
#   make lint-man   mandoc -Tlint over man/
#   make bench      the benchmark program (not part of check); BENCH=NAME runs one section
#   make check-rust the Rust crate (lib/rust): cargo test, cargo doc, the examples
#   make deps       libxxhash-dev, check, pkg-config and mandoc from Debian's packages when missing
#                   (and cargo and golang-go, for the bindings, when none is found)
#   BINDINGS=0      check, deps and bench leave the language bindings out
#   TEST_JOBS=2     check runs the suites, and the tool's tests, two at a time
#   make check-python  the Python package's tests (tests/python; part of check unless BINDINGS=0)
#   make check-go   the Go package (lib/go): go vet, go test (part of check unless BINDINGS=0)
#   make check-python-install  pip install ./lib/python (then its wheel) into a fresh venv, offline (part of check)
#
#   SIMD=scalar|avx2|avx512 caps the scorer's vector path (default: the best the
#   CPU runs, chosen when a view is built); every path gives the same bits.

VERSION_MAJOR := $(shell sed -n 's/^\#define PL_VERSION_MAJOR \([0-9]*\).*/\1/p' include/placement/version.h)
VERSION_MINOR := $(shell sed -n 's/^\#define PL_VERSION_MINOR \([0-9]*\).*/\1/p' include/placement/version.h)
VERSION_PATCH := $(shell sed -n 's/^\#define PL_VERSION_PATCH \([0-9]*\).*/\1/p' include/placement/version.h)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

prefix ?= /usr/local
PREFIX ?= $(prefix)
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
BINDIR ?= $(PREFIX)/bin
DESTDIR ?=

# The Python package (lib/python/placement) and its tests. BINDINGS=0 leaves
# the bindings out of check and deps (an ASan-built library cannot be loaded
# into an interpreter that is not). PYTHONDIR: for PREFIX=/usr/local, the
# purelib path of Debian's own python3 (/usr/local/lib/python3.X/dist-packages,
# which its site.py puts on sys.path; Debian's python3 never reads
# site-packages there, and /usr/lib/python3/dist-packages belongs to dpkg);
# for another prefix, PREFIX/lib/python3.X/site-packages (then set PYTHONPATH).
BINDINGS ?= 1
PYTHON ?= /usr/bin/python3
py_purelib = $(shell $(PYTHON) -c 'import sys, sysconfig; p = sys.argv[1]; print(sysconfig.get_path("purelib") if p == "/usr/local" else sysconfig.get_path("purelib", "posix_prefix", {"base": p, "platbase": p}))' '$(1)' 2>/dev/null)
ifndef PYTHONDIR
PYTHONDIR := $(call py_purelib,$(PREFIX))
endif
PY_SRCS := $(sort $(wildcard lib/python/placement/*.py))

CC ?= cc
PKG_CONFIG ?= pkg-config
BUILD ?= build

WARN := -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wwrite-strings -Wundef -Wvla -Wformat=2 -Wcast-qual
OPT ?= -O2 -g
CFLAGS ?=
LDFLAGS ?=
XXH_CFLAGS = $(shell $(PKG_CONFIG) --cflags libxxhash 2>/dev/null)
SIMD ?=
SIMD_CFLAGS := $(if $(filter scalar,$(SIMD)),-DPL_SIMD_MAX=0,$(if $(filter avx2,$(SIMD)),-DPL_SIMD_MAX=1,$(if $(filter avx512,$(SIMD)),-DPL_SIMD_MAX=2)))
LIB_CFLAGS := -std=c11 $(WARN) $(OPT) -fPIC -fvisibility=hidden -Iinclude -Ilib $(XXH_CFLAGS) $(SIMD_CFLAGS) $(CFLAGS)

# lib/README.md: one folder a layer, calls going one way (tests/layers.sh).
LIB_DIRS := core view broker fleet region route explain
SRCS := $(sort $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c)))
HDRS := $(wildcard include/*.h include/placement/*.h $(foreach d,$(LIB_DIRS),lib/$(d)/*.h))
OBJS := $(SRCS:lib/%.c=$(BUILD)/obj/%.o)
STATIC := $(BUILD)/libplacement.a
SONAME := libplacement.so.$(VERSION_MAJOR)
SHARED := $(BUILD)/libplacement.so.$(VERSION)
PC := $(BUILD)/libplacement.pc

# Check suites, by the layer they test (lib/README.md): tests/core/, tests/view/,
# tests/broker/, ...; helpers shared by several suites sit in tests/.
TEST_DIRS := core view broker fleet region route explain
TEST_SRCS := $(sort $(foreach d,$(TEST_DIRS),$(wildcard tests/$(d)/check_*.c)))
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT := tests/testutil.c
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)
TEST_CFLAGS = -std=c11 $(WARN) -Wno-missing-prototypes $(OPT) -Iinclude -Ilib -Itests $(CHECK_CFLAGS) $(SIMD_CFLAGS) $(CFLAGS)

EXAMPLES := $(sort $(wildcard examples/*.c))
EXAMPLE_BINS := $(EXAMPLES:examples/%.c=$(BUILD)/examples/%)
DEMO_SRCS := $(sort $(wildcard examples/demo/*.c))
MAN3 := $(sort $(wildcard man/man3/*.3))
MAN7 := $(sort $(wildcard man/man7/*.7))
MAN1 := $(sort $(wildcard man/man1/*.1))
MAN5 := $(sort $(wildcard man/man5/*.5))
MAN_ALL := $(MAN1) $(MAN3) $(MAN5) $(MAN7)

# placement(1): the command-line tool, a program of several files built
# against the static library (so it runs wherever it is copied).
TOOL_SRCS := $(sort $(wildcard examples/placement/*.c))
TOOL_HDRS := $(wildcard examples/placement/*.h)
TOOL := $(BUILD)/placement
SCENARIOS := $(sort $(wildcard examples/placement/scenarios/*.txt))

.PHONY: all lib check demo bench install uninstall install-test sanitize lint-man deps clean FORCE vectors fuzz coverage valgrind determinism fuzz-long fuzz-merge fuzz-coverage
.PHONY: check-python check-python-install install-python uninstall-python

all: lib $(TOOL)
lib: $(STATIC) $(SHARED) $(PC)

$(BUILD)/obj/%.o: lib/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(STATIC): $(OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(OBJS)

$(SHARED): $(OBJS)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $(OBJS) $(LDFLAGS)
	ln -sf libplacement.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libplacement.so

# Made on every build, so a changed prefix is never stale.
$(PC): libplacement.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	     -e 's|@VERSION@|$(VERSION)|' $< > $@.tmp && mv $@.tmp $@
FORCE:

# ---- dependencies -----------------------------------------------------------
# xxhash and Check to build and test, mandoc for make lint-man.
DEB_PACKAGES := libxxhash-dev check pkg-config mandoc
PY_DEB_PACKAGES := python3 python3-pytest python3-hypothesis python3-venv python3-pip
deps:
	@if command -v $(PKG_CONFIG) >/dev/null 2>&1 && $(PKG_CONFIG) --exists libxxhash check && \
	    command -v mandoc >/dev/null 2>&1; then \
		exit 0; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "deps: installing $(DEB_PACKAGES)"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEB_PACKAGES) >/dev/null || \
		{ $$SUDO apt-get update -q >/dev/null && \
		  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEB_PACKAGES) >/dev/null; }; \
	else \
		echo "deps: no apt-get here; install xxhash (0.8 or later), Check, pkg-config and mandoc, then run make again" >&2; \
		exit 1; \
	fi
	@if [ "$(BINDINGS)" != 0 ] && ! $(PYTHON) -c 'import pytest, hypothesis, ensurepip, pip' >/dev/null 2>&1; then \
		if ! command -v apt-get >/dev/null 2>&1; then \
			echo "deps: no apt-get here; install pytest, hypothesis, venv and pip for $(PYTHON) (or make BINDINGS=0)" >&2; exit 1; \
		fi; \
		echo "deps: installing $(PY_DEB_PACKAGES)"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PY_DEB_PACKAGES) >/dev/null || \
		{ $$SUDO apt-get update -q >/dev/null && \
		  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PY_DEB_PACKAGES) >/dev/null; }; \
	fi
	@if [ "$(BINDINGS)" != 0 ] && ! $(CARGO_FIND) >/dev/null 2>&1; then \
		command -v apt-get >/dev/null 2>&1 || { echo "deps: no cargo found; install Rust's cargo (or set BINDINGS=0)" >&2; exit 1; }; \
		echo "deps: installing cargo"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q cargo >/dev/null || \
		{ $$SUDO apt-get update -q >/dev/null && \
		  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q cargo >/dev/null; }; \
	fi
	@if [ "$(BINDINGS)" != 0 ] && ! command -v $(GO) >/dev/null 2>&1; then \
		command -v apt-get >/dev/null 2>&1 || { echo "deps: no go found; install Go 1.19 or later (or set BINDINGS=0)" >&2; exit 1; }; \
		echo "deps: installing golang-go"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go >/dev/null || \
		{ $$SUDO apt-get update -q >/dev/null && \
		  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go >/dev/null; }; \
	fi

# ---- tests ------------------------------------------------------------------
$(BUILD)/tests/%: tests/%.c $(TEST_SUPPORT) $(wildcard tests/*.h) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TEST_SUPPORT) $(STATIC) $(CHECK_LIBS) $(LDFLAGS)

$(BUILD)/tests/gen_vectors: tests/gen_vectors.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(OPT) -Iinclude -o $@ $< $(STATIC) $(LDFLAGS)

# Every suite runs even when one fails; the target fails if any did.
# TEST_JOBS=2 runs the suites two at a time (each one's output kept in
# $(BUILD)/tests/.../NAME.log and printed in order once all have run) and
# tests/placement/run.sh's garbage inputs beside its other sections
# (PL_TEST_JOBS); 1, the default, runs everything in order.
TEST_JOBS ?= 1
check: deps
	@$(MAKE) --no-print-directory lib $(TEST_BINS) $(BUILD)/tests/gen_vectors $(TOOL) $(EXAMPLE_BINS)
	@fail=0; \
	if [ "$(TEST_JOBS)" -gt 1 ]; then \
		for t in $(TEST_BINS); do rm -f $$t.log $$t.rc; done; \
		printf '%s\n' $(TEST_BINS) | xargs -P $(TEST_JOBS) -I{} sh -c \
			'CK_FORK=yes PL_TEST_DIR=tests ./{} > {}.log 2>&1; echo $$? > {}.rc'; \
		for t in $(TEST_BINS); do \
			echo "== $$t"; cat $$t.log; \
			[ "$$(cat $$t.rc 2>/dev/null)" = 0 ] || { echo "$$t: exit $$(cat $$t.rc 2>/dev/null || echo '?')"; fail=1; }; \
		done; \
	else \
		for t in $(TEST_BINS); do \
			echo "== $$t"; \
			CK_FORK=yes PL_TEST_DIR=tests ./$$t || fail=1; \
		done; \
	fi; \
	echo "== public headers"; tests/headers.sh $(CC) || fail=1; \
	echo "== library symbols"; tests/symbols.sh $(BUILD) || fail=1; \
	echo "== one-way calls (lib/README.md)"; tests/layers.sh $(BUILD) || fail=1; \
	echo "== tests/layers.sh refuses each wrong call it is handed"; tests/layers_test.sh $(CC) || fail=1; \
	for e in $(EXAMPLE_BINS); do \
		echo "== $$e (an example loop: it checks what it shows)"; ./$$e > $$e.out || { cat $$e.out; fail=1; }; \
	done; \
	echo "== known-answer vectors: tests/vectors.txt"; \
	./$(BUILD)/tests/gen_vectors | cmp -s - tests/vectors.txt || { echo "FAIL: gen_vectors output differs from tests/vectors.txt"; fail=1; }; \
	echo "== placement(1): tests/placement"; PL_TEST_JOBS=$(TEST_JOBS) tests/placement/run.sh ./$(TOOL) || fail=1; \
	echo "== the shared layouts: tests/bindings (the tool; each binding's suite compares too)"; \
		PYTHON=$(PYTHON) tests/bindings/check.sh ./$(TOOL) || fail=1; \
	echo "== Kudu's location tests, ported: tests/compare/kudu.py"; $(PYTHON) tests/compare/kudu.py ./$(TOOL) || fail=1; \
	if [ "$(BINDINGS)" != 0 ]; then $(MAKE) --no-print-directory check-python || fail=1; fi; \
	if [ "$(BINDINGS)" != 0 ]; then $(MAKE) --no-print-directory check-python-install || fail=1; fi; \
	if [ "$(BINDINGS)" != 0 ]; then $(MAKE) --no-print-directory check-rust || fail=1; fi; \
	if [ "$(BINDINGS)" != 0 ]; then $(MAKE) --no-print-directory check-go || fail=1; fi; \
	exit $$fail

# The Python package against the library in $(BUILD), with Debian's python3
# (the one that sees python3-pytest and python3-hypothesis).
check-python: lib $(TOOL)
	@echo "== Python package: tests/python ($(PYTHON) -m pytest)"
	@PLACEMENT_LIB=$(abspath $(BUILD)/$(SONAME)) BUILD=$(BUILD) PYTHONDONTWRITEBYTECODE=1 \
		$(PYTHON) -m pytest -q -p no:cacheprovider tests/python

# The package installed as Python users install it: pip, into a fresh virtual
# environment of $(PYTHON), offline (Debian's python3-venv, and its
# python3-pip installing into the environment with --python: a venv of its
# own pip takes 5 s of CPU to set up, this one none),
# from the tree (lib/python/pyproject.toml; its backend needs nothing
# installed); then, in the same environment, the wheel built from the tree. The wheel carries the shared
# library just built; tests/python/install_check.py imports the package from
# outside the tree and checks the versions. Everything it writes is in
# $(PY_INSTALL), pip's temporary files included.
PY_INSTALL := $(abspath $(BUILD))/python-install
check-python-install: lib
	@echo "== Python package: pip install ./lib/python into a fresh venv ($(PY_INSTALL))"
	@rm -rf $(PY_INSTALL) && mkdir -p $(PY_INSTALL)/tmp
	@export TMPDIR=$(PY_INSTALL)/tmp PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
		PLACEMENT_LIB=$(abspath $(BUILD)/$(SONAME)) && set -e && \
	$(PYTHON) -m venv --without-pip $(PY_INSTALL)/venv && \
	$(PYTHON) -m pip --python $(PY_INSTALL)/venv/bin/python install -q --no-index --no-build-isolation $(CURDIR)/lib/python && \
	cd $(PY_INSTALL) && env -u PLACEMENT_LIB $(PY_INSTALL)/venv/bin/python $(CURDIR)/tests/python/install_check.py \
		$(CURDIR) $(PY_INSTALL)/scratch && \
	$(PYTHON) -m pip --python $(PY_INSTALL)/venv/bin/python wheel -q --no-index --no-build-isolation -w $(PY_INSTALL)/wheel $(CURDIR)/lib/python && \
	$(PYTHON) -c 'import sys, zipfile, glob; w, = glob.glob(sys.argv[1]); \
		assert "placement/$(SONAME)" in zipfile.ZipFile(w).namelist(), w' '$(PY_INSTALL)/wheel/placement-$(VERSION)-*.whl' && \
	$(PYTHON) -m pip --python $(PY_INSTALL)/venv/bin/python uninstall -q -y placement && \
	$(PYTHON) -m pip --python $(PY_INSTALL)/venv/bin/python install -q --no-index $(PY_INSTALL)/wheel/placement-$(VERSION)-*.whl && \
	cd $(PY_INSTALL) && env -u PLACEMENT_LIB $(PY_INSTALL)/venv/bin/python $(CURDIR)/tests/python/install_check.py \
		$(CURDIR) $(PY_INSTALL)/scratch-wheel
	@left=$$(cd lib/python && find . -name __pycache__ -o -name '*.egg-info' -o -name build -o -name dist); \
	if [ -n "$$left" ]; then echo "check-python-install: left in lib/python: $$left"; exit 1; fi

# ---- the Rust crate (lib/rust) -----------------------------------------------
# cargo from PATH, with $HOME/.cargo/bin first when it exists, else Debian's
# /usr/bin/cargo. The crate links the static library just built in $(BUILD);
# its target directory is inside $(BUILD), so make clean removes it.
.PHONY: check-rust
CARGO_PATH = $(if $(wildcard $(HOME)/.cargo/bin),$(HOME)/.cargo/bin:)$$PATH
CARGO_FIND = PATH="$(CARGO_PATH)" command -v cargo
CARGO_ENV = MAKEFLAGS= PATH="$(CARGO_PATH)" CARGO_TARGET_DIR=$(abspath $(BUILD))/rust \
	PLACEMENT_LIB_DIR=$(abspath $(BUILD)) PLACEMENT_STATIC=1 PLACEMENT_TOOL=$(abspath $(TOOL)) \
	RUSTFLAGS="-D warnings" RUSTDOCFLAGS="-D warnings"
check-rust:
	@$(MAKE) --no-print-directory lib $(TOOL)
	@echo "== lib/rust: cargo test, cargo doc, the example"
	@cargo=$$($(CARGO_FIND) || echo /usr/bin/cargo); cd lib/rust && \
	$(CARGO_ENV) $$cargo test --offline 2>&1 && \
	$(CARGO_ENV) $$cargo doc --offline --no-deps && \
	$(CARGO_ENV) $$cargo run --offline --quiet --example first && \
	$(CARGO_ENV) $$cargo run --offline --quiet --example broker_tick >/dev/null

# ---- the Go package (lib/go) -------------------------------------------------
# go from PATH (Debian's golang-go, 1.19 or later). The package has no
# dependencies, so nothing is downloaded (GOPROXY=off); its cache and GOPATH
# are inside $(BUILD), so nothing is written to $HOME and make clean removes
# them. cgo takes the headers from include/ and links the static library just
# built in $(BUILD), so the tests need no LD_LIBRARY_PATH.
.PHONY: check-go
GO ?= go
GO_ENV = MAKEFLAGS= GOENV=off GOPROXY=off GOFLAGS=-buildvcs=false GO111MODULE=on CGO_ENABLED=1 \
	GOCACHE=$(abspath $(BUILD))/go/cache GOPATH=$(abspath $(BUILD))/go/path \
	CGO_CFLAGS="-g -O2 -I$(abspath include)" CGO_LDFLAGS="$(abspath $(BUILD))/libplacement.a"
check-go:
	@$(MAKE) --no-print-directory lib
	@echo "== lib/go: go vet, go test (the examples, the shared layouts of tests/bindings)"
	@cd lib/go && $(GO_ENV) $(GO) vet ./... && $(GO_ENV) $(GO) test -count=1 ./...

# The crate on Debian's rustc 1.63, the oldest it supports (CI runs it when
# Debian's cargo is installed beside another).
.PHONY: check-rust-1.63
check-rust-1.63:
	@$(MAKE) --no-print-directory lib $(TOOL)
	@echo "== lib/rust on Debian's rustc: $$(/usr/bin/rustc --version)"
	@cd lib/rust && $(CARGO_ENV) CARGO_TARGET_DIR=$(abspath $(BUILD))/rust-1.63 RUSTC=/usr/bin/rustc \
		RUSTDOC=/usr/bin/rustdoc /usr/bin/cargo test --offline 2>&1

vectors: $(BUILD)/tests/gen_vectors
	./$(BUILD)/tests/gen_vectors > tests/vectors.txt

# make check again, built into build-san with ASan and UBSan: every suite,
# example and test of the tool. A sanitizer looks for memory errors and
# undefined behaviour on the paths a test takes, not for rare layouts, and
# runs several times slower; so here property tests run at most SAN_ITERS
# random layouts each (PL_TEST_ITERS_MAX: a property whose default is lower
# keeps it), and the suites and the tool's tests run SAN_JOBS at a time
# (TEST_JOBS). Both reach this pass alone: plain make check runs every
# property at its full count. SAN_ITERS stays under 100: the rates some
# properties assert over a full run (from 100 layouts on, a few from 300 or
# 400) are make check's, and a rate drawn from the first 100 layouts alone
# can miss its bound (check_broker_copyback: 4 plans of 100, the bound 3%).
SAN_ITERS ?= 50
SAN_JOBS ?= 2
sanitize: deps
	@PL_TEST_ITERS_MAX=$(SAN_ITERS) $(MAKE) --no-print-directory BUILD=build-san BINDINGS=0 TEST_JOBS=$(SAN_JOBS) \
		OPT="-O1 -g -DPL_DEBUG -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" BINDINGS=0 check

# Every suite under valgrind's memcheck, two at a time, in one process each
# (CK_FORK=no, so memcheck sees the test bodies), then the tool on every
# example scenario. Any report, a leak included, fails the target. Property
# tests run VALGRIND_ITERS layouts each (PL_TEST_ITERS): memcheck looks for
# paths that read what was never written, not for rare layouts, and runs
# about 30 times slower. Add --track-origins=yes to VALGRIND_FLAGS to find
# where an uninitialised value came from.
VALGRIND ?= valgrind
VALGRIND_FLAGS ?= -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite
VALGRIND_ITERS ?= 10
valgrind: deps
	@command -v $(VALGRIND) >/dev/null || { echo "valgrind: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
	@$(MAKE) --no-print-directory lib $(TEST_BINS) $(TOOL)
	@mkdir -p $(BUILD)/valgrind
	@printf '%s\n' $(TEST_BINS) | xargs -P 2 -I{} sh -c \
		'log=$(BUILD)/valgrind/$$(basename {}).log; \
		 CK_FORK=no PL_TEST_DIR=tests PL_TEST_ITERS=$(VALGRIND_ITERS) $(VALGRIND) $(VALGRIND_FLAGS) ./{} > $$log 2>&1 \
		 && echo "valgrind: {} clean" || { cat $$log; echo "valgrind: {} FAILED"; exit 255; }'
	@for f in $(SCENARIOS); do \
		for c in check stats plan; do \
			$(VALGRIND) $(VALGRIND_FLAGS) ./$(TOOL) $$c $$f > /dev/null || { echo "valgrind: placement $$c $$f FAILED"; exit 1; }; \
		done; \
	done; echo "valgrind: placement check, stats, plan on $(words $(SCENARIOS)) scenarios clean"

# The tool built by several compilers and optimisation levels plans the same
# bytes (tests/determinism/run.sh): gcc -O0, gcc -O2, clang -O2, gcc -O2 on the
# scalar and AVX2 scoring paths (CC:OPT:SIMD), and -O3
# -march=native with each compiler that accepts it on this CPU. Warnings that
# only an -O3 build raises do not stop it (build-det/*.warnings keeps them).
DET_BUILDS ?= gcc:-O0 gcc:-O2 clang:-O2 gcc:-O2:scalar gcc:-O2:avx2
determinism: deps
	@set -e; tools=""; builds="$(DET_BUILDS)"; \
	for cc in gcc clang; do \
		if echo 'int main(void){return 0;}' | $$cc -march=native -x c -o /dev/null - 2>/dev/null; then \
			builds="$$builds $$cc:-O3_-march=native"; fi; \
	done; \
	for b in $$builds; do \
		cc=$${b%%:*}; rest=$${b#*:}; simd=; case $$rest in *:*) simd=$${rest##*:}; rest=$${rest%:*};; esac; \
		opt=$$(echo "$$rest" | tr _ ' '); tag=$$cc$$(echo "$$opt" | tr -d ' =')$$simd; \
		command -v $$cc >/dev/null || { echo "determinism: no $$cc here, $$b skipped"; continue; }; \
		echo "determinism: building the tool with $$cc $$opt$${simd:+ SIMD=$$simd}"; mkdir -p build-det; \
		$(MAKE) --no-print-directory BUILD=build-det/$$tag CC=$$cc SIMD=$$simd OPT="$$opt -Wno-error" build-det/$$tag/placement \
			>/dev/null 2>build-det/$$tag.warnings || { cat build-det/$$tag.warnings; exit 1; }; \
		tools="$$tools build-det/$$tag/placement"; \
	done; \
	tests/determinism/run.sh build-det/out $$tools

# Line and branch coverage of lib/ by the suites; fails under COV_LINES
# percent of lines or COV_BRANCHES percent of branches (gcc's branches, as
# gcovr counts them).
# On a CPU without AVX-512 its paths cannot run: their lines, marked
# PL_AVX512_EXCL_* in lib/core/score_simd.c, are left out of the count.
COV_LINES ?= 99.2
COV_BRANCHES ?= 95.4
COV_EXCL = $(if $(shell grep -qw avx512dq /proc/cpuinfo 2>/dev/null && echo y),,--exclude-pattern-prefix '(?:GCOVR|PL_AVX512)')
coverage: deps
	@command -v gcovr >/dev/null || { echo "coverage: gcovr is needed (apt-get install gcovr)" >&2; exit 1; }
	rm -rf build-cov
	@$(MAKE) --no-print-directory BUILD=build-cov BINDINGS=0 OPT="-O0 -g --coverage" LDFLAGS="--coverage" check >/dev/null
	@[ -z "$(COV_EXCL)" ] || echo "coverage: no AVX-512 on this CPU: its paths are left out of the count"
	gcovr -r . --filter 'lib/' --object-directory build-cov/obj --print-summary $(COV_EXCL) \
		--fail-under-line $(COV_LINES) --fail-under-branch $(COV_BRANCHES) build-cov/obj

# ---- examples, demo, bench --------------------------------------------------
$(BUILD)/examples/%: examples/%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(OPT) -Iinclude -o $@ $< $(STATIC) $(LDFLAGS)

$(BUILD)/demo: $(DEMO_SRCS) $(wildcard examples/demo/*.h) $(STATIC)
	$(CC) -std=c11 $(WARN) $(OPT) -Iinclude -o $@ $(DEMO_SRCS) $(STATIC) $(LDFLAGS)

$(TOOL): $(TOOL_SRCS) $(TOOL_HDRS) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(OPT) -Iinclude -o $@ $(TOOL_SRCS) $(STATIC) $(LDFLAGS)

# The library's scenarios (examples/demo), then the tool's simulator on the
# example layouts shipped in examples/placement/scenarios/.
# The build's command lines go to a log, so the first screen is the first
# story; a failed build prints its log.
demo: deps
	@mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory $(BUILD)/demo $(TOOL) > $(BUILD)/demo-build.log 2>&1 || \
		{ cat $(BUILD)/demo-build.log; exit 1; }
	@./$(BUILD)/demo
	@for f in $(SCENARIOS); do \
		p=$$(sed -n 's/^set policy=\([a-z]*\).*/\1/p' $$f | head -1); \
		echo; echo "== placement simulate $$f"; echo; \
		sed -n '/^#/!q; s/^# \{0,1\}//p' $$f; echo; \
		if ./$(TOOL) --version | grep -q "policies:.* $$p"; then \
			./$(TOOL) simulate $$f || exit 1; \
		else \
			echo "(skipped: the $$p policy is not in this build of the library)"; \
		fi; \
	done
	@echo; echo "Try it on your own layout (the format is in placement(5), man/man5/placement.5):"; \
	echo "  $(TOOL) check my.txt          # validate; every error names its line"; \
	echo "  $(TOOL) stats my.txt          # spread per member and per stream (--svg out.svg)"; \
	echo "  $(TOOL) plan my.txt           # every move the policy would make, and why (--svg, --summary)"; \
	echo "  $(TOOL) import kafka describe.txt --racks racks.txt > my.txt   # from kafka-topics.sh --describe"; \
	echo "  $(TOOL) plan --kafka-reassignment move.json --kafka-election lead.json my.txt"; \
	echo "  $(TOOL) owner my.txt KEY      # who owns a key: scores, ring home, override"; \
	echo "  $(TOOL) simulate my.txt       # ticks with scripted joins, drains, failures"; \
	echo "Start from a copy of examples/placement/scenarios/*.txt."

BENCH_SRCS := $(sort $(wildcard tests/bench/*.c))
$(BUILD)/bench: $(BENCH_SRCS) tests/bench/bench.h $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -g -D_POSIX_C_SOURCE=200809L -Iinclude -Ilib $(XXH_CFLAGS) -o $@ $(BENCH_SRCS) $(STATIC) $(LDFLAGS)

bench: deps
	@$(MAKE) --no-print-directory $(BUILD)/bench $(TOOL)
	PLACEMENT_BIN=$(TOOL) ./$(BUILD)/bench $(BENCH)
	@if [ "$(BINDINGS)" != 0 ]; then \
		PLACEMENT_LIB=$(abspath $(BUILD)/$(SONAME)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/bench/python_bench.py; \
		echo; echo "== lib/rust: the safe API against the same C call through sys"; \
		cargo=$$($(CARGO_FIND) || echo /usr/bin/cargo); cd lib/rust && \
		$(CARGO_ENV) $$cargo run --offline --quiet --release --example bench; \
	fi

# ---- install ----------------------------------------------------------------
install: lib $(TOOL) install-python
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/placement $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(BINDIR)
	install -m 755 $(TOOL) $(DESTDIR)$(BINDIR)/placement
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libplacement.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libplacement.so
	install -m 644 include/placement.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 include/placement/*.h $(DESTDIR)$(INCLUDEDIR)/placement/
	install -m 644 $(PC) $(DESTDIR)$(PKGCONFIGDIR)/
	$(if $(MAN3),install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/)
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/)
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)

uninstall: uninstall-python
	rm -f $(DESTDIR)$(LIBDIR)/libplacement.a $(DESTDIR)$(LIBDIR)/libplacement.so \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libplacement.so.$(VERSION) \
		$(DESTDIR)$(PKGCONFIGDIR)/libplacement.pc $(DESTDIR)$(INCLUDEDIR)/placement.h
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/placement/,$(notdir $(wildcard include/placement/*.h)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/placement 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3))) $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(DESTDIR)$(BINDIR)/placement

# The Python package: nothing to build (ctypes, no compiled extension).
install-python:
	@if [ -z "$(PYTHONDIR)" ]; then echo "install: no $(PYTHON), the Python package is not installed (set PYTHONDIR)"; \
	else echo "install -m 644 lib/python/placement/*.py $(DESTDIR)$(PYTHONDIR)/placement/"; \
		install -d $(DESTDIR)$(PYTHONDIR)/placement && \
		install -m 644 $(PY_SRCS) $(DESTDIR)$(PYTHONDIR)/placement/; fi

uninstall-python:
	$(if $(PYTHONDIR),rm -f $(addprefix $(DESTDIR)$(PYTHONDIR)/placement/,$(notdir $(PY_SRCS))))
	$(if $(PYTHONDIR),rm -rf $(DESTDIR)$(PYTHONDIR)/placement/__pycache__)
	$(if $(PYTHONDIR),-rmdir $(DESTDIR)$(PYTHONDIR)/placement 2>/dev/null)

# Stage an install, then build and run every example with pkg-config alone.
STAGE := $(abspath $(BUILD)/stage)
install-test: deps
	rm -rf $(STAGE)
	@$(MAKE) --no-print-directory install DESTDIR=$(STAGE) PREFIX=/usr/local PYTHONDIR=$(call py_purelib,/usr/local)
	@# The library needs no xxhash symbol at link time (xxhash is inlined), so
	@# its .pc requires nothing: pkg-config sees only the staged .pc here.
	@undef=$$(nm -u $(STAGE)/usr/local/lib/libplacement.a | grep -i xxh; \
		nm -D --undefined-only $(STAGE)/usr/local/lib/libplacement.so | grep -i xxh); \
	if [ -n "$$undef" ]; then echo "install-test: the library needs xxhash symbols:"; echo "$$undef"; exit 1; fi; \
	if grep -q '^Requires' $(STAGE)/usr/local/lib/pkgconfig/libplacement.pc; then \
		echo "install-test: libplacement.pc has a Requires line"; exit 1; fi; \
	echo "install-test: no xxhash symbol needed at link time (nm), and the .pc requires nothing"
	@set -e; export PKG_CONFIG_LIBDIR=$(STAGE)/usr/local/lib/pkgconfig PKG_CONFIG_PATH= PKG_CONFIG_SYSROOT_DIR=$(STAGE); \
	flags="$$($(PKG_CONFIG) --cflags --libs libplacement)"; echo "pkg-config: $$flags"; \
	mkdir -p $(BUILD)/staged; \
	for e in $(EXAMPLES); do \
		b=$(BUILD)/staged/$$(basename $$e .c); \
		$(CC) -std=c11 $(WARN) -o $$b $$e $$flags; \
		echo "== $$b"; LD_LIBRARY_PATH=$(STAGE)/usr/local/lib ./$$b >/dev/null; \
	done; \
	$(CC) -std=c11 $(WARN) -o $(BUILD)/staged/demo $(DEMO_SRCS) $$flags; \
	echo "== $(BUILD)/staged/demo"; LD_LIBRARY_PATH=$(STAGE)/usr/local/lib ./$(BUILD)/staged/demo >/dev/null; \
	$(CC) -std=c11 $(WARN) -static -o $(BUILD)/staged/demo-static $(DEMO_SRCS) \
		$$($(PKG_CONFIG) --static --cflags --libs libplacement); \
	./$(BUILD)/staged/demo-static >/dev/null; \
	bin=$(STAGE)/usr/local/bin/placement; echo "== $$bin"; $$bin --version; \
	for p in man1/placement.1 man5/placement.5 man7/placement.7; do \
		test -f $(STAGE)/usr/local/share/man/$$p || { echo "install-test: $$p not installed"; exit 1; }; \
	done; \
	$(CC) -std=c11 $(WARN) -o $(BUILD)/staged/placement $(TOOL_SRCS) $$flags; \
	for f in $(SCENARIOS); do \
		$$bin check $$f >/dev/null; \
		LD_LIBRARY_PATH=$(STAGE)/usr/local/lib ./$(BUILD)/staged/placement stats $$f >/dev/null; \
	done; \
	echo "== $(BUILD)/staged/placement (the tool built with pkg-config alone)"
	@if [ "$(BINDINGS)" != 0 ]; then set -e; py=$(STAGE)$(call py_purelib,/usr/local); \
		echo "== $$py/placement (the Python package, the staged library found by its soname)"; \
		for f in $(notdir $(PY_SRCS)); do test -f $$py/placement/$$f || { echo "install-test: $$f not installed"; exit 1; }; done; \
		cd /tmp && PYTHONPATH=$$py LD_LIBRARY_PATH=$(STAGE)/usr/local/lib PLACEMENT_LIB= $(PYTHON) -c \
		'import placement, sys; assert placement.__version__ == "$(VERSION)", placement.__version__; \
		assert placement.library_path == "$(SONAME)", placement.library_path; \
		assert placement.__file__.startswith(sys.argv[1]), placement.__file__; \
		plan = placement.broker_dry_run(placement.Snapshot([placement.Member("b0"), placement.Member("b1")], \
			[placement.Shard("k/%d" % i, replicas=["b0", "b1"], leader="b0") for i in range(4)])); \
		assert plan.status == "balanced" and len(plan.actions) == 2, plan; print("python:", plan)' $$py; fi
	@# libplacement.pc follows the prefix of the build that made it: never stale.
	@$(MAKE) --no-print-directory $(PC) PREFIX=/opt/pl-test >/dev/null
	@grep -q '^prefix=/opt/pl-test$$' $(PC) || { echo "install-test: libplacement.pc kept an old prefix"; exit 1; }
	@$(MAKE) --no-print-directory $(PC) >/dev/null
	@# uninstall, with the same variables, leaves no file behind.
	@$(MAKE) --no-print-directory uninstall DESTDIR=$(STAGE) PREFIX=/usr/local PYTHONDIR=$(call py_purelib,/usr/local) >/dev/null
	@left=$$(find $(STAGE) -type f -o -type l); \
	if [ -n "$$left" ]; then echo "install-test: uninstall left:"; echo "$$left"; exit 1; fi
	@echo "install-test: ok"

# ---- fuzzing ----------------------------------------------------------------
FUZZ_CC ?= clang
FUZZ_TIME ?= 30
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_EXTRA :=
FUZZ_HDRS := $(wildcard tests/fuzz/*.h) tests/region_bound.h
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_HDRS) $(SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DPL_DEBUG \
		-Iinclude -Ilib $(XXH_CFLAGS) -o $@ $< $(SRCS) $(FUZZ_EXTRA)

# The snapshot file parser of placement(1), with the writer for its round
# trip and the policy runs of plan (every source of the tool but main.c).
FUZZ_PARSE_SRCS := $(filter-out examples/placement/main.c,$(TOOL_SRCS))
$(BUILD)/fuzz/fuzz_parse: FUZZ_EXTRA := $(FUZZ_PARSE_SRCS) -Iexamples/placement
$(BUILD)/fuzz/fuzz_parse: $(FUZZ_PARSE_SRCS) $(TOOL_HDRS)
# The tool's commands over a parsed file: the same sources.
$(BUILD)/fuzz/fuzz_commands: FUZZ_EXTRA := $(FUZZ_PARSE_SRCS) -Iexamples/placement
$(BUILD)/fuzz/fuzz_commands: $(FUZZ_PARSE_SRCS) $(TOOL_HDRS)

# The import of kafka-topics.sh --describe output, with the same sources.
$(BUILD)/fuzz/fuzz_kafka: FUZZ_EXTRA := $(FUZZ_PARSE_SRCS) -Iexamples/placement
$(BUILD)/fuzz/fuzz_kafka: $(FUZZ_PARSE_SRCS) $(TOOL_HDRS)

# The scorer's narrower paths, which a machine with AVX-512 never takes:
# the route harness scores in scalar code, the document harness with AVX2.
$(BUILD)/fuzz/fuzz_route: FUZZ_EXTRA := -DPL_SIMD_MAX=0
$(BUILD)/fuzz/fuzz_doc: FUZZ_EXTRA := -DPL_SIMD_MAX=1

# A smoke run of every harness: FUZZ_TIME seconds each, FUZZ_JOBS at a time,
# from the seed corpus committed in tests/fuzz/corpus/NAME/ and what earlier
# runs found (kept in build/fuzz/corpus-NAME/). Any crash, failed assertion
# or sanitizer report fails it; the crashing input is left in build/fuzz/.
# make fuzz-long: the same for FUZZ_LONG_TIME seconds each (10 minutes).
# make fuzz-merge: fold what the runs found back into the seed corpus.
# FUZZ_SEED fixes libFuzzer's seed (CI: 1, so a run follows the same
# mutations from the same corpus); empty, a new seed each run.
FUZZ_JOBS ?= 2
FUZZ_LONG_TIME ?= 600
FUZZ_SEED ?=
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@printf '%s\n' $(FUZZ_BINS) | xargs -P $(FUZZ_JOBS) -I{} sh -c \
		'n=$$(basename {}); c=$(BUILD)/fuzz/corpus-$$n; mkdir -p $$c tests/fuzz/corpus/$$n; \
		 ./{} -max_total_time=$(FUZZ_TIME) $(if $(FUZZ_SEED),-seed=$(FUZZ_SEED)) -max_len=4096 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/$$n- \
			$$c tests/fuzz/corpus/$$n > $$c.log 2>&1 || { tail -40 $$c.log; echo "fuzz: $$n FAILED"; exit 255; }; \
		 echo "fuzz: $$n ($(FUZZ_TIME) s): $$(grep -o "Done [0-9]* runs" $$c.log)"'

# Lines and branches of lib/ the harnesses reach together, replaying the seed
# corpus and what earlier runs found (clang source-based coverage).
LLVM_PROFDATA ?= llvm-profdata
LLVM_COV ?= llvm-cov
fuzz-coverage: deps
	@rm -rf $(BUILD)/fuzzcov; mkdir -p $(BUILD)/fuzzcov
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/fuzzcov \
		FUZZ_CC="$(FUZZ_CC) -fprofile-instr-generate -fcoverage-mapping" $(FUZZ_BINS:$(BUILD)/%=$(BUILD)/fuzzcov/%) >/dev/null
	@for f in $(FUZZ_BINS); do \
		n=$$(basename $$f); mkdir -p $(BUILD)/fuzz/corpus-$$n; \
		LLVM_PROFILE_FILE=$(BUILD)/fuzzcov/$$n.profraw ./$(BUILD)/fuzzcov/fuzz/$$n -runs=0 -max_len=4096 \
			tests/fuzz/corpus/$$n $(BUILD)/fuzz/corpus-$$n >/dev/null 2>&1 || { echo "fuzz-coverage: $$n failed"; exit 1; }; \
	done
	@$(LLVM_PROFDATA) merge -o $(BUILD)/fuzzcov/all.profdata $(BUILD)/fuzzcov/*.profraw
	@$(LLVM_COV) report -instr-profile=$(BUILD)/fuzzcov/all.profdata $(BUILD)/fuzzcov/fuzz/fuzz_snapshot \
		$(foreach f,$(FUZZ_BINS),-object $(f:$(BUILD)/%=$(BUILD)/fuzzcov/%)) $(SRCS) > $(BUILD)/fuzzcov/report.txt
	@cat $(BUILD)/fuzzcov/report.txt

fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=$(FUZZ_LONG_TIME)

fuzz-merge:
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do \
		n=$$(basename $$f); mkdir -p tests/fuzz/corpus/$$n $(BUILD)/fuzz/corpus-$$n; \
		./$$f -merge=1 -max_len=4096 tests/fuzz/corpus/$$n $(BUILD)/fuzz/corpus-$$n > $(BUILD)/fuzz/merge-$$n.log 2>&1; \
		echo "fuzz-merge: $$n: $$(ls tests/fuzz/corpus/$$n | wc -l) inputs"; \
	done

lint-man: deps
	@command -v mandoc >/dev/null || { echo "lint-man: mandoc is needed (apt-get install mandoc)" >&2; exit 1; }
	@out=$$(mandoc -Tlint -W warning $(MAN_ALL) 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; echo "lint-man: $(words $(MAN_ALL)) pages clean"

clean:
	rm -rf $(BUILD) build-san build-cov build-det
