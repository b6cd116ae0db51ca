#!/bin/sh
# layers_test.sh - tests/layers.sh must fail on each kind of wrong call it
# is handed, and pass the same tree without it. Each case is a small tree
# of C files (and Python modules) in the library's folders, built here.
#
# Usage: tests/layers_test.sh [CC]
set -u
cc=${1:-cc}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

# put FILE TEXT: a source of the case's tree.
put() {
	mkdir -p "$(dirname "$tmp/t/lib/$1")"
	printf '%s\n' "$2" > "$tmp/t/lib/$1"
}

# The tree every case starts from: calls that go one way.
base() {
	rm -rf "$tmp/t"
	put core/core.h 'int pl__c(void);'
	put core/c.c '#include "core/core.h"
int pl__c(void) { return 1; }'
	put view/view_int.h '#include "core/core.h"
int pl__v(void);'
	put view/view_build.h '#include "view/view_int.h"
int pl__vb(void);'
	put view/v.c '#include "view/view_build.h"
int pl__v(void) { return pl__c() + pl__vb(); }'
	put view/vb.c '#include "view/view_build.h"
int pl__vb(void) { return pl__c(); }'
	put fleet/f.c '#include "view/view_int.h"
int pl__f(void);
int pl__f(void) { return pl__v(); }'
	put broker/broker.c '#include "view/view_int.h"
int pl__b(void); int pl__bk_common(void);
int pl__b(void) { return pl__v() + pl__bk_common(); }'
	put broker/broker_common.c 'int pl__bk_common(void);
int pl__bk_common(void) { return 2; }'
	put python/placement/_a.py 'from . import _b'
	put python/placement/_b.py 'import ctypes'
}

# run NAME WANT [GREP]: build the tree, run layers.sh; WANT pass or fail,
# and on fail its output must name GREP.
run() {
	n=$((n + 1))
	for src in "$tmp"/t/lib/*/*.c; do
		f=$(basename "$(dirname "$src")")
		mkdir -p "$tmp/t/build/obj/$f"
		"$cc" -std=c11 -Wall -Werror -c -I"$tmp/t/lib" -o "$tmp/t/build/obj/$f/$(basename "$src" .c).o" "$src" ||
			{ echo "layers_test: $1: the case does not build"; fail=1; return; }
	done
	out=$(sh "$here/layers.sh" "$tmp/t/build" "$tmp/t/lib" 2>&1)
	rc=$?
	if [ "$2" = pass ] && [ $rc -ne 0 ]; then
		echo "layers_test: FAIL: $1: refused a tree with calls one way:"
		echo "$out"
		fail=1
	elif [ "$2" = fail ] && [ $rc -eq 0 ]; then
		echo "layers_test: FAIL: $1: passed"
		fail=1
	elif [ "$2" = fail ] && ! echo "$out" | grep -q "$3"; then
		echo "layers_test: FAIL: $1: refused, but without naming \"$3\":"
		echo "$out"
		fail=1
	fi
}

base
run "one way" pass

base
put core/c2.c '#include "core/core.h"
int pl__c2(void); int pl__c3(void);
int pl__c2(void) { return pl__c3(); }'
put core/c3.c '#include "core/core.h"
int pl__c2(void); int pl__c3(void);
int pl__c3(void) { return pl__c2() + 1; }'
run "a circle of two files in one folder" fail "circle"

base
put view/w1.c 'int pl__w1(void); int pl__w2(void);
int pl__w1(void) { return pl__w2(); }'
put view/w2.c 'int pl__w2(void); int pl__w3(void);
int pl__w2(void) { return pl__w3(); }'
put view/w3.c 'int pl__w1(void); int pl__w3(void);
int pl__w3(void) { return pl__w1() + 1; }'
run "a circle of three files" fail "circle"

base
put core/c.c '#include "core/core.h"
int pl__v(void);
int pl__c(void) { return pl__v() + 1; }'
run "core calls the view" fail "core/c.c calls pl__v in view/v.c"

base
put fleet/f.c '#include "view/view_int.h"
int pl__f(void); int pl__b(void);
int pl__f(void) { return pl__b(); }'
run "a policy calls another policy" fail "fleet/f.c calls pl__b in broker/broker.c"

base
put core/c.c '#include "core/core.h"
#include "view/view_int.h"
int pl__c(void) { return 1; }'
run "core includes a view header" fail "view/ is not below core/"

base
put fleet/f.c '#include "view/view_build.h"
int pl__f(void);
int pl__f(void) { return pl__vb(); }'
run "a policy includes the view's insides" fail "not an interface of view/"

base
put view/vb.c '#include "view_build.h"
int pl__vb(void) { return pl__c(); }'
run "an include without its folder" fail "name the header's folder"

base
put broker/broker_common.c 'int pl__bk_common(void); int pl__b(void);
int pl__bk_common(void) { return pl__b() ? 2 : 3; }'
run "the broker's helpers call its entry point" fail "above it in broker/'s order"

base
put newlayer/x.c 'int pl__x(void);
int pl__x(void) { return 0; }'
run "a folder in no layer" fail "is in no layer"

base
put python/placement/_b.py 'from ._a import something'
run "a Python circle" fail "import each other in a circle"

base
put python/placement/_b.py 'def late():
    from . import _a
    return _a'
run "a Python circle through a deferred import" fail "import each other in a circle"

[ $fail -eq 0 ] && echo "layers_test: tests/layers.sh passed the tree with calls one way and refused each of $((n - 1)) wrong ones"
exit $fail
