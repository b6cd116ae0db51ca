#!/bin/sh
# run.sh - the tests of placement(1), run by `make check`:
#
#  1. golden outputs: each line of tests/placement/cases names an expected
#     output file and the arguments that must print it (text and JSON);
#  2. parser errors: every errors/*.txt must fail `check` with exit 1, print
#     nothing on stdout, print exactly errors/NAME.err on stderr, name the
#     line its "# expect: line N" comment gives, and fail `plan` the same way
#     (never a partial plan); with --json the error object names that line;
#  3. round trip: every snapshot in the cases, written by `format` (text),
#     reads back to the same snapshot (format is idempotent), the same stats
#     and the same plan;
#  3b2. any order: every snapshot with its member, stream, shard and
#     override lines reversed prints the same stats and plan;
#  3c. Kafka: import kafka-topics.sh --describe output, plan it, apply the
#     reassignment and election files as Kafka would (kafka_apply.py), and
#     get what plan --out writes;
#  3d. pictures: every SVG is well-formed XML and carries, row by row, the
#     numbers of the same command's JSON (svg_check.py);
#  4. limits and garbage: a line, a member count and a file past their
#     limits are refused by name (a line's limit without its end, LF or
#     CR LF); a few hundred mangled and random inputs never crash the tool
#     (exit status 0 or 1, no sanitizer report);
#  4b. bounded memory: under ulimit -v far below the files' size, a valid
#     file of 64 MiB of blank lines passes, and a bad line followed by
#     150 MB (or a sparse 4 GiB file) is refused by its line at once;
#  5. usage errors exit 2; --help and --version exit 0; the exit status of
#     every outcome (0 done, 1 bad input, 2 usage, 3 a plan that ends blocked).
#
# Usage: tests/placement/run.sh PLACEMENT [--update]
#   --update rewrites the expected files from the tool's output (review the
#   diff before committing it).
#   PL_TEST_JOBS=2 in the environment runs the garbage of section 4 beside
#   the other sections (two at a time: the same checks, sooner on 2 cores);
#   unset or 1, everything runs in order.
# Prints a summary line in Check's style and exits 1 on any failure.
set -u
[ $# -ge 1 ] || { echo "usage: $0 PLACEMENT [--update]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=0
[ "${2:-}" = "--update" ] && update=1
cd "$(dirname "$0")" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pl-tool.XXXXXX") || exit 2
garbage_pids=""
trap '[ -z "$garbage_pids" ] || kill $garbage_pids 2> /dev/null; rm -rf "$tmp"' EXIT INT TERM
# A sanitizer report must not pass for "bad input" (exit 1).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=86"
export LC_ALL=C

checks=0
failures=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }

# PL_TEST_JOBS=2 or more (make check TEST_JOBS=2, as make sanitize runs it):
# the garbage of section 4, over half the tool's runs and about half the
# time under a sanitizer, runs in the background beside the other sections,
# and the foreground takes what is left of it when it gets there (each seed
# runs once, in whichever runner takes it first); the background's failures
# are printed and its checks counted at the end. 1, the default: everything
# in order, as one runner.
jobs=${PL_TEST_JOBS:-1}
case "$jobs" in '' | *[!0-9]*) echo "PL_TEST_JOBS: '$jobs' is not a number" >&2; exit 2 ;; esac
[ "$jobs" -ge 1 ] || jobs=1

# Garbage (section 4): valid files mangled (lines dropped, duplicated, bytes
# changed), and random bytes, seed by seed. Exit 0 or 1, and nothing a
# sanitizer says. garbage_seed SEED writes in $tmp/garbage.SEED; garbage
# runs every seed no runner has taken yet, taking each by making that
# directory (mkdir either makes it or fails, so two runners never take the
# same seed).
garbage_files=0
for f in golden/*.txt ../../examples/placement/scenarios/*.txt; do
	[ -f "$f" ] && garbage_files=$((garbage_files + 1))
done
garbage_seed() {
	seed=$1
	g=$tmp/garbage.$seed
	# n counts the files mangled so far, seed 1 first: the awk seeds of one
	# run in order from seed 1
	n=$(((seed - 1) * garbage_files))
	for f in golden/*.txt ../../examples/placement/scenarios/*.txt; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		awk -v seed=$((seed * 7919 + n)) 'BEGIN { srand(seed); junk = "=,#% \t%zz%4=x\001\377\"" }
		{
			r = rand()
			if (r < 0.05) next
			if (r < 0.10) { print; print; next }
			if (r < 0.25 && length($0) > 0) {
				p = int(rand() * length($0)) + 1
				q = int(rand() * length(junk)) + 1
				$0 = substr($0, 1, p - 1) substr(junk, q, 1) substr($0, p + 1)
			}
			print
		}' "$f" > "$g/mangled.txt"
		for cmd in check stats plan format "owner - 00"; do
			set -- $cmd
			c1=$1
			shift
			if [ "$c1" = owner ]; then
				"$bin" owner "$g/mangled.txt" 00 > /dev/null 2> "$g/stderr"
			else
				"$bin" "$c1" "$g/mangled.txt" > /dev/null 2> "$g/stderr"
			fi
			rc=$?
			# 0 or 1, and 3 for a plan that ends blocked
			if { [ $rc -gt 1 ] && { [ "$c1" != plan ] || [ $rc -ne 3 ]; }; } ||
				grep -q -e Sanitizer -e "runtime error" "$g/stderr"; then
				cp "$g/mangled.txt" "$tmp/../pl-tool-crash-$seed.txt" 2> /dev/null
				bad "$c1 on a mangled $f (seed $seed): exit $rc: $(head -5 "$g/stderr")"
			else
				ok
			fi
		done
	done
	awk -v seed="$seed" 'BEGIN { srand(seed); n = int(rand() * 3000)
		for (i = 0; i < n; i++) { r = rand(); printf "%c", r < 0.1 ? 10 : r < 0.2 ? 32 : int(rand() * 255) + 1 } }' \
		> "$g/random.txt"
	"$bin" check "$g/random.txt" > /dev/null 2> "$g/stderr"
	rc=$?
	if [ $rc -gt 1 ] || grep -q -e Sanitizer -e "runtime error" "$g/stderr"; then
		bad "check on random bytes (seed $seed): exit $rc"
	else
		ok
	fi
	# Kafka's and rpk's outputs mangled, read by both imports
	for f in kafka/*.describe kafka/*.rpk; do
		awk -v seed=$((seed * 104729)) 'BEGIN { srand(seed); junk = ":[] ,\t-x\001\377" }
		{
			r = rand()
			if (r < 0.05) next
			if (r < 0.10) { print; print; next }
			if (r < 0.35 && length($0) > 0) {
				p = int(rand() * length($0)) + 1
				q = int(rand() * length(junk)) + 1
				$0 = substr($0, 1, p - 1) substr(junk, q, 1) substr($0, p + 1)
			}
			print
		}' "$f" > "$g/mangled.describe"
		for format in kafka rpk; do
			if [ $format = rpk ]; then
				"$bin" import rpk --topic t "$g/mangled.describe" > /dev/null 2> "$g/stderr"
			else
				"$bin" import kafka "$g/mangled.describe" > /dev/null 2> "$g/stderr"
			fi
			rc=$?
			if [ $rc -gt 1 ] || grep -q -e Sanitizer -e "runtime error" "$g/stderr"; then
				cp "$g/mangled.describe" "$tmp/../pl-tool-crash-$seed.describe" 2> /dev/null
				bad "import $format of a mangled $f (seed $seed): exit $rc: $(head -5 "$g/stderr")"
			else
				ok
			fi
		done
	done
}
garbage() {
	for s in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		mkdir "$tmp/garbage.$s" 2> /dev/null || continue
		garbage_seed "$s"
	done
}

# the background runners: PL_TEST_JOBS less one (the foreground)
r=1
while [ "$r" -lt "$jobs" ]; do
	(
		trap - EXIT INT TERM
		checks=0 failures=0
		garbage
		echo "$checks $failures" > "$tmp/garbage-runner.$r.counts"
	) > "$tmp/garbage-runner.$r.out" 2>&1 &
	garbage_pids="$garbage_pids $!"
	r=$((r + 1))
done

# ---- 1. golden outputs --------------------------------------------------------
# A case: EXPECTED ARGS... (read as a shell would, so '...' quotes a word);
# @OUT@ in ARGS is a file the tool writes, compared with EXPECTED instead of
# stdout.
snapshots=""
while read -r expected args; do
	case "$expected" in '' | '#'*) continue ;; esac
	# EXPECTED:N: the command must exit N (a blocked plan exits 3)
	want_rc=0
	case "$expected" in *:[0-9]) want_rc=${expected##*:} expected=${expected%:*} ;; esac
	out="$tmp/stdout"
	# shellcheck disable=SC2086
	set -- $args
	file_arg=""
	for a in "$@"; do
		case "$a" in *.txt) file_arg=$a ;; esac
	done
	case " $snapshots " in *" $file_arg "*) ;; *) snapshots="$snapshots $file_arg" ;; esac
	argv=$(echo "$args" | sed "s|@OUT@|$tmp/written|g")
	# the arguments may hold quoted words: '3 lag m2'
	eval "\"\$bin\" $argv" > "$out" 2> "$tmp/stderr"
	rc=$?
	case "$args" in *@OUT@*) got="$tmp/written" ;; *) got="$out" ;; esac
	if [ $rc -ne "$want_rc" ]; then
		bad "placement $args: exit $rc, want $want_rc: $(head -3 "$tmp/stderr")"
	elif [ $update = 1 ]; then
		cp "$got" "$expected"
		ok
	elif [ ! -f "$expected" ]; then
		bad "$expected is missing (run with --update)"
	elif cmp -s "$got" "$expected"; then
		ok
	else
		bad "placement $args differs from $expected:"
		diff -u "$expected" "$got" | head -30
	fi
done < cases

# Every JSON output parses (where python3 is there to read it).
if command -v python3 > /dev/null 2>&1; then
	for f in golden/*.json; do
		if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" 2> /dev/null; then ok; else bad "$f is not JSON"; fi
	done
fi

# ---- 2. parser errors ---------------------------------------------------------------
for f in errors/*.txt; do
	want=$(sed -n 's/^# expect: line \([0-9][0-9]*\)$/\1/p' "$f")
	[ -n "$want" ] || { bad "$f has no '# expect: line N' comment"; continue; }
	"$bin" check "$f" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	err=${f%.txt}.err
	if [ $rc -ne 1 ]; then
		bad "check $f: exit $rc, want 1: $(head -3 "$tmp/stderr")"
	elif [ -s "$tmp/stdout" ]; then
		bad "check $f: printed on stdout"
	elif ! grep -q "^placement: $f:$want: " "$tmp/stderr"; then
		bad "check $f: the message does not name line $want: $(cat "$tmp/stderr")"
	elif [ $update = 1 ]; then
		cp "$tmp/stderr" "$err"
		ok
	elif ! cmp -s "$tmp/stderr" "$err"; then
		bad "check $f: message differs from $err:"
		diff -u "$err" "$tmp/stderr" | head -10
	else
		ok
	fi
	"$bin" plan "$f" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ $rc -ne 1 ] || [ -s "$tmp/stdout" ] || ! grep -q "^placement: $f:$want: " "$tmp/stderr"; then
		bad "plan $f: exit $rc (want 1), or a partial plan, or not line $want"
	else
		ok
	fi
	"$bin" --json check "$f" > "$tmp/stdout" 2> /dev/null
	if grep -q "\"line\": $want, \"message\": " "$tmp/stdout" &&
		{ ! command -v python3 > /dev/null 2>&1 ||
			python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/stdout" 2> /dev/null; }; then
		ok
	else
		bad "--json check $f: no error object for line $want, or not JSON"
	fi
done

# ---- 3. round trip -------------------------------------------------------------------
for f in $snapshots; do
	[ -f "$f" ] || continue
	name=$(echo "$f" | tr '/.' '__')
	if ! "$bin" format "$f" > "$tmp/$name.1" 2> "$tmp/stderr"; then
		bad "format $f: $(cat "$tmp/stderr")"
		continue
	fi
	"$bin" format "$tmp/$name.1" > "$tmp/$name.2" 2>&1
	if cmp -s "$tmp/$name.1" "$tmp/$name.2"; then ok; else bad "format $f is not idempotent"; fi
	for cmd in "stats" "--json stats" "--json format" "plan" "--json plan"; do
		# shellcheck disable=SC2086
		"$bin" $cmd "$f" > "$tmp/a" 2> "$tmp/ea"
		ra=$?
		# shellcheck disable=SC2086
		"$bin" $cmd "$tmp/$name.1" > "$tmp/b" 2> "$tmp/eb"
		rb=$?
		if [ $ra -ne $rb ]; then
			bad "round trip of $f: $cmd exits $ra, then $rb"
		elif [ $ra -ne 0 ] || cmp -s "$tmp/a" "$tmp/b"; then
			ok
		else
			bad "round trip of $f: $cmd differs after format"
			diff -u "$tmp/a" "$tmp/b" | head -10
		fi
	done
done

# ---- 3b. to the end ---------------------------------------------------------------
# The layout a whole plan leads to (plan --out), and the one a simulation
# that stopped on its own ends in (simulate --out), plan to nothing more.
# (a what-if, --add-member, --drain or --down, is two plans: it writes none)
grep -E '^[^#][^ ]* +(plan|simulate) ' cases | grep -v -e '--max' -e '--ticks' -e '--member' -e '--json' -e '@OUT@' \
	-e '--add-member' -e '--drain' -e '--down' |
while read -r expected cmd rest; do
	f=${rest##* }
	eval "\"\$bin\" $cmd --out \"\$tmp/end.txt\" $rest" > /dev/null 2> "$tmp/stderr"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		echo "FAIL: $cmd --out on $f: $(head -3 "$tmp/stderr")"
		echo x >> "$tmp/end-failures"
		continue
	fi
	pol=$(echo "$rest" | sed -n 's/.*--policy \([a-z]*\).*/--policy \1/p')
	# shellcheck disable=SC2086
	"$bin" plan $pol "$tmp/end.txt" > "$tmp/end.plan" 2> "$tmp/stderr"
	if ! grep -q "^0 actions in 0 ticks" "$tmp/end.plan"; then
		echo "FAIL: the layout after $cmd of $f still plans actions:"
		head -8 "$tmp/end.plan"
		echo x >> "$tmp/end-failures"
	fi
	echo x >> "$tmp/end-checks"
done
[ -f "$tmp/end-checks" ] && checks=$((checks + $(wc -l < "$tmp/end-checks")))
[ -f "$tmp/end-failures" ] && failures=$((failures + $(wc -l < "$tmp/end-failures")))

# ---- 3b2. any order ----------------------------------------------------------------
# The same snapshot with its member, stream, shard, override and copy lines in the
# reverse order (settings, events and comments where they were) prints the
# same stats and the same plan: nothing the tool says depends on the order
# of the file's lines.
for f in $snapshots; do
	[ -f "$f" ] || continue
	awk '/^[ \t]*(member|stream|shard|override|copy)[ \t]/ { body[n++] = $0; next } { print }
	     END { while (n > 0) print body[--n] }' "$f" > "$tmp/reversed.txt"
	for cmd in "stats" "plan" "--json plan"; do
		# shellcheck disable=SC2086
		"$bin" $cmd "$f" > "$tmp/a" 2> /dev/null
		ra=$?
		# shellcheck disable=SC2086
		"$bin" $cmd "$tmp/reversed.txt" > "$tmp/b" 2> /dev/null
		rb=$?
		if [ $ra -eq $rb ] && cmp -s "$tmp/a" "$tmp/b"; then
			ok
		else
			bad "$cmd of $f with its lines reversed differs (exit $ra, then $rb)"
			diff -u "$tmp/a" "$tmp/b" | head -10
		fi
	done
done

# ---- 3c. Kafka's round trip -----------------------------------------------------------
# Import what kafka-topics.sh --describe printed, plan it, do to the imported
# layout what Kafka would do with the reassignment and election files, and
# get plan --out: the same leader and replicas for every shard.
# The same for what rpk prints (kafka/*.rpk, import rpk). A partition at
# risk or in flight in the import is in no reassignment or preferred
# election, and the rollback file undoes the reassignment.
for f in kafka/*.describe kafka/*.rpk; do
	name=$(basename "${f%.*}")
	racks=kafka/racks-${name#describe-}.list
	format=kafka
	case "$f" in *.rpk) format=rpk ;; esac
	set -- import $format "$f"
	[ "$name" = rpk-describe-p ] && set -- "$@" --topic clicks
	[ -f "$racks" ] && set -- "$@" --racks "$racks"
	if ! "$bin" "$@" > "$tmp/imported.txt" 2> "$tmp/stderr"; then
		bad "import $format $f: $(cat "$tmp/stderr")"
		continue
	fi
	"$bin" plan --out "$tmp/after.txt" --kafka-reassignment "$tmp/r.json" --kafka-election "$tmp/e.json" \
		--kafka-unclean-election "$tmp/u.json" --kafka-rollback "$tmp/b.json" "$tmp/imported.txt" > /dev/null 2> "$tmp/stderr"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		bad "plan of the import of $f: exit $rc: $(cat "$tmp/stderr")"
	elif ! command -v python3 > /dev/null 2>&1; then
		echo "note: no python3 here; the Kafka round trip of $f is not checked"
	elif python3 kafka_apply.py "$tmp/imported.txt" "$tmp/r.json" "$tmp/e.json" "$tmp/after.txt" "$tmp/u.json" "$tmp/b.json" > "$tmp/diff" 2>&1; then
		ok
	else
		bad "Kafka round trip of $f: the reassignment and election files do not give plan --out:"
		head -10 "$tmp/diff"
	fi
done

# What import kafka refuses, by line; what a Kafka file of a plan needs.
printf 'Topic: t\tPartition: 0\tLeader: 9\tReplicas: 1,2\tIsr: 1,2\n' > "$tmp/k1.describe"
printf 'Topic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\n\nTopic: t\tPartition: x\tReplicas: 1\n' > "$tmp/k2.describe"
printf 'Topic:t\tPartitionCount:1\tReplicationFactor:1\tConfigs:\nTopic: t\tPartition: 0\tReplicas: 1\tnot kafka\n' > "$tmp/k3.describe"
printf 'Topic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tAdding Replicas: 3\n' > "$tmp/k7.describe"
printf 'Topic: t\tPartition: 0\tLeader: 3\tReplicas: 1,2,3\tAdding Replicas: 3\tRemoving Replicas: 1\n' > "$tmp/k8.describe"
printf 'PARTITION  LEADER  EPOCH  REPLICAS\n0          1       1      [1 2 3]\n' > "$tmp/r1.describe"
printf 'TOPIC PARTITION  LEADER  EPOCH  REPLICAS\nt 0          1       1      [1 x]\n' > "$tmp/r2.describe"
printf 'TOPIC PARTITION  LEADER  EPOCH  REPLICAS\nt 0          1       1      [1 2] 7\n' > "$tmp/r3.describe"
printf 'Topic: t\tPartition: 0\tLeader: 1\tReplicas: 1,a\n' > "$tmp/k4.describe"
printf 'Topic: t\tPartition: 0\tReplicas: 1\nTopic: t\tPartition: 0\tReplicas: 2\n' > "$tmp/k5.describe"
printf 'Topic: t\tPartition: 0\tLeader: 3\tReplicas: 3,1,3\n' > "$tmp/k6.describe"
for c in "k1:1:Leader: 9 is not among the partition's Replicas" "k2:3:Partition: 'x' is not a partition number" \
	"k3:2:'not' is not a field of kafka-topics.sh --describe" "k4:1:Replicas: 'a' is not a broker id" \
	"k5:2:partition 0 of t is described twice (first at line 1)" "k6:1:Replicas: broker 3 is listed twice" \
	"k7:1:Adding Replicas: broker 3 is not among the partition's Replicas" \
	"k8:1:Leader: 3 is among the Adding Replicas, which hold no copy yet" \
	"r1:2:no topic for partition 0: rpk topic describe -p does not name it (give --topic NAME)" \
	"r2:2:REPLICAS: 'x' is not a broker id" "r3:2:6 columns, and the header above has 5"; do
	f=${c%%:*} rest=${c#*:} line=${rest%%:*} msg=${rest#*:}
	format=kafka
	case "$f" in r*) format=rpk ;; esac
	"$bin" import $format "$tmp/$f.describe" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$tmp/stdout" ] && grep -qF "$tmp/$f.describe:$line: $msg" "$tmp/stderr"; then
		ok
	else
		bad "import $format $f: exit $rc, want 1 and line $line: $msg: $(cat "$tmp/stderr")"
	fi
done
# A partition with no leader (views/0, its ISR empty): no preferred election
# for it, and a note that says why; --kafka-unclean-election writes it apart.
"$bin" plan --kafka-election "$tmp/e.json" golden/kafka-new.txt > /dev/null 2> "$tmp/stderr"
if ! grep -q '"views", "partition": 0' "$tmp/e.json" && grep -q '"clicks", "partition": 1' "$tmp/e.json" &&
	grep -q "^placement: note: 1 partition with no leader in the file (views/0) has no election in .*--kafka-unclean-election" "$tmp/stderr"; then
	ok
else
	bad "plan --kafka-election elects views/0, which has no leader and an empty ISR, or says nothing: $(cat "$tmp/stderr")"
fi
"$bin" plan --kafka-election "$tmp/e.json" --kafka-unclean-election "$tmp/u.json" golden/kafka-new.txt > /dev/null 2> "$tmp/stderr"
if ! grep -q "no election in" "$tmp/stderr" && ! grep -q '"views"' "$tmp/e.json" && grep -q '"views", "partition": 0' "$tmp/u.json"; then
	ok
else
	bad "plan --kafka-unclean-election: views/0 is not in it alone: $(cat "$tmp/stderr")"
fi
# A line that is not the describe's (a log4j WARN) is skipped with a note
# naming it; the ISR's partitions left out of the files are named too.
"$bin" import kafka kafka/midreassign.describe > /dev/null 2> "$tmp/stderr"
if grep -q "^placement: note: kafka/midreassign.describe: 1 line skipped, not of kafka-topics.sh --describe's output (line 1)$" "$tmp/stderr"; then
	ok
else
	bad "import kafka of a WARN line: no note naming line 1: $(cat "$tmp/stderr")"
fi
"$bin" plan --kafka-reassignment "$tmp/r.json" --kafka-election "$tmp/e.json" golden/kafka-new.txt > /dev/null 2> "$tmp/stderr"
if grep -q "^placement: note: 1 partition at risk or in flight in the file (clicks/2 under-replicated) is left out" "$tmp/stderr" &&
	grep -q "move replica of clicks/2" golden/kafka-new.plan 2> /dev/null &&
	! grep -q '"clicks", "partition": 2' "$tmp/r.json" "$tmp/e.json"; then
	ok
else
	bad "plan of the ISR's import: the files name an out-of-sync partition, or no note says it: $(cat "$tmp/stderr")"
fi
"$bin" plan --kafka-reassignment "$tmp/r.json" golden/felix.txt > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/stdout" ] && grep -q "member 'b0' is not a Kafka broker id" "$tmp/stderr"; then
	ok
else
	bad "plan --kafka-reassignment of a layout with no broker ids: exit $rc: $(cat "$tmp/stderr")"
fi

# ---- 3d. pictures -------------------------------------------------------------------
# Every picture is well-formed XML and carries the numbers of the same
# command's JSON, for every member in every panel and state (svg_check.py);
# a stats picture's after state, and how the plan ended, are plan's JSON.
if command -v python3 > /dev/null 2>&1; then
	for f in golden/*.svg; do
		if python3 -c 'import xml.dom.minidom, sys; xml.dom.minidom.parse(sys.argv[1])' "$f" 2> /dev/null; then
			ok
		else
			bad "$f is not well-formed XML"
		fi
	done
	for f in golden/broker-drain.txt golden/broker-caps.txt golden/mixed.txt golden/region-stalls.txt \
		golden/felix.txt ../../examples/placement/scenarios/*.txt; do
		for cmd in stats plan "simulate --quiet"; do
			# shellcheck disable=SC2086
			"$bin" $cmd --svg "$tmp/pic.svg" "$f" > /dev/null 2> "$tmp/stderr"
			rc=$?
			# shellcheck disable=SC2086
			"$bin" --json $cmd "$f" > "$tmp/pic.json" 2>> "$tmp/stderr"
			# stats draws where the plan of the same file ends: plan's JSON
			set -- "$tmp/pic.svg" "$tmp/pic.json"
			if [ "$cmd" = stats ]; then
				"$bin" --json plan "$f" > "$tmp/pic-plan.json" 2>> "$tmp/stderr"
				set -- "$@" "$tmp/pic-plan.json"
			fi
			if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
				bad "$cmd --svg $f: exit $rc: $(head -3 "$tmp/stderr")"
			elif python3 svg_check.py "$@" > "$tmp/diff" 2>&1; then
				ok
			else
				bad "$cmd --svg $f: the picture does not carry the JSON's numbers:"
				head -10 "$tmp/diff"
			fi
		done
	done
	# a simulation with events: both charts, their axes and the events'
	# labels off the lines; a broker left alone in its zone marked held
	for ev in "--event '1 drain 2' --event '1 join 7 zone=r3' --event '3 down 4' --event '5 up 4'" \
		"--event '2 drain 3' --event '2 drain 4' --event '2 join 9 zone=r2' --event '3 lag 5'"; do
		eval "\"\$bin\" simulate --quiet --svg \"\$tmp/pic.svg\" $ev golden/broker-whatif.txt" > /dev/null 2> "$tmp/stderr"
		eval "\"\$bin\" --json simulate $ev golden/broker-whatif.txt" > "$tmp/pic.json" 2>> "$tmp/stderr"
		case "$ev" in *"drain 2"*) want='data-held="zone">held: the only member of zone r1, it holds every shard' ;;
		*) want='data-chart="other"' ;; esac
		if python3 svg_check.py "$tmp/pic.svg" "$tmp/pic.json" > "$tmp/diff" 2>&1 && grep -qF "$want" "$tmp/pic.svg"; then
			ok
		else
			bad "simulate --svg $ev: $(head -5 "$tmp/diff")"
		fi
	done
else
	echo "note: no python3 here; the pictures are not checked"
fi

# ---- 3e. what-if ----------------------------------------------------------------------
# A what-if's plan "as it is" is plan's own, its plan "with the change"
# starts from the changes made, its counts add up, and every spread's
# imbalance is the one placement(1) defines, recomputed from the counts
# and bounds (whatif_check.py); so is every stats JSON's imbalance.
if command -v python3 > /dev/null 2>&1; then
	f=golden/broker-whatif.txt
	for w in "--drain 2" "--add-member '7 zone=r3' --add-member '8 zone=r3'" "--down 2 --drain 1" \
		"--add-member '7 zone=r3 weight=2' --drain 7" "--max 3 --drain 5"; do
		eval "\"\$bin\" --json plan $w \"\$f\"" > "$tmp/w.json" 2> "$tmp/stderr"
		rc=$?
		case "$w" in *--max*) "$bin" --json plan --max 3 "$f" > "$tmp/p.json" 2>> "$tmp/stderr" ;;
		*) "$bin" --json plan "$f" > "$tmp/p.json" 2>> "$tmp/stderr" ;; esac
		if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
			bad "what-if $w: exit $rc: $(head -3 "$tmp/stderr")"
		elif python3 whatif_check.py "$tmp/w.json" "$tmp/p.json" > "$tmp/diff" 2>&1; then
			ok
		else
			bad "what-if $w: its JSON does not hold:"
			head -10 "$tmp/diff"
		fi
	done
	for f in golden/*.txt ../../examples/placement/scenarios/*.txt; do
		"$bin" --json stats "$f" > "$tmp/s.json" 2> /dev/null || continue
		if python3 whatif_check.py --stats "$tmp/s.json" > "$tmp/diff" 2>&1; then
			ok
		else
			bad "stats $f: the imbalance is not placement(1)'s: $(head -3 "$tmp/diff")"
		fi
	done
fi
# progress (PLACEMENT_PROGRESS=2: every update on a line): a plan's shows
# what is left of its total, falling to 0 at the end; a simulation's the
# tick of its total; stdout is the same as without it
PLACEMENT_PROGRESS=2 "$bin" plan golden/broker-whatif.txt > "$tmp/out" 2> "$tmp/stderr"
"$bin" plan golden/broker-whatif.txt > "$tmp/out0" 2> /dev/null
if grep -q "planned tick 1, 1 action; imbalance 26 of 30 at the start, 13% done, about" \
	"$tmp/stderr" && grep -q "planned tick 6, 6 actions; imbalance 0 of 30 at the start, 100% done$" \
	"$tmp/stderr" && cmp -s "$tmp/out" "$tmp/out0"; then ok; else bad "plan's progress: $(tail -3 "$tmp/stderr")"; fi
PLACEMENT_PROGRESS=2 "$bin" simulate --quiet --ticks 3 golden/broker-whatif.txt > /dev/null 2> "$tmp/stderr"
if grep -q "simulated tick 2 of 3, 2 actions so far; imbalance 18, about" "$tmp/stderr" &&
	grep -q "simulated tick 3 of 3, 3 actions so far; imbalance 16$" "$tmp/stderr"; then ok; else bad "simulate's progress: $(tail -3 "$tmp/stderr")"; fi
PLACEMENT_PROGRESS=2 "$bin" plan --max 4 golden/broker-whatif.txt > /dev/null 2> "$tmp/stderr"
if grep -q "planned tick 2, 2 of at most 4 actions; imbalance 18, about" "$tmp/stderr"; then ok; else bad "plan --max's progress: $(tail -3 "$tmp/stderr")"; fi

# each bad change is refused by name (exit 1), and a what-if takes no file
# of one plan's (exit 2)
whatif_err() { # WANT TEXT ARGS...
	want=$1 text=$2
	shift 2
	"$bin" "$@" > "$tmp/out" 2> "$tmp/stderr"
	rc=$?
	if [ $rc -ne "$want" ] || ! grep -qF -- "$text" "$tmp/stderr" || [ -s "$tmp/out" ]; then
		bad "placement $*: exit $rc (want $want), stderr $(head -2 "$tmp/stderr") (want '$text')"
	else
		ok
	fi
}
whatif_err 1 "--drain 9: at 1 drain: unknown member '9'" plan --drain 9 golden/broker-whatif.txt
whatif_err 1 "--add-member 1: at 1 join: member '1' is already declared (line 5)" plan --add-member 1 golden/broker-whatif.txt
whatif_err 1 "--add-member 7 zone=r1: at 1 join: member '7' already joins" plan --add-member '7 zone=r3' --add-member '7 zone=r1' golden/broker-whatif.txt
whatif_err 1 "--down 7: at 1 down: unknown member '7'" plan --down 7 --add-member '7 zone=r3' golden/broker-whatif.txt
whatif_err 1 "--add-member 7 bogus=1: unknown member attribute 'bogus'" plan --add-member '7 bogus=1' golden/broker-whatif.txt
whatif_err 2 "--svg is not an option of a what-if" plan --drain 2 --svg "$tmp/x.svg" golden/broker-whatif.txt
whatif_err 2 "--out is not an option of a what-if" plan --out "$tmp/x.txt" --drain 2 golden/broker-whatif.txt
whatif_err 2 "--summary is not an option of a what-if" plan --summary --drain 2 golden/broker-whatif.txt
whatif_err 2 "this option is not one of the command's: --drain" stats --drain 2 golden/broker-whatif.txt
whatif_err 2 "--add-member, --drain and --down are options of plan, not of simulate" --drain 2 simulate golden/broker-whatif.txt

# ---- 4. limits and garbage --------------------------------------------------------
expect_fail() { # FILE LINE WORDS: exit 1 and a message naming the line (0 = none) with WORDS
	"$bin" check "$1" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ $rc -ne 1 ]; then
		bad "check $1: exit $rc, want 1"
	elif [ "$2" != 0 ] && ! grep -q "^placement: $1:$2: .*$3" "$tmp/stderr"; then
		bad "check $1: want line $2 and '$3': $(cat "$tmp/stderr")"
	elif [ "$2" = 0 ] && ! grep -q "$3" "$tmp/stderr"; then
		bad "check $1: want '$3': $(cat "$tmp/stderr")"
	else
		ok
	fi
}
{ echo "member b0"; awk 'BEGIN { s = "member "; for (i = 0; i < 70000; i++) s = s "x"; print s }'; } > "$tmp/long-line.txt"
expect_fail "$tmp/long-line.txt" 2 "past the limit of 65536 bytes for a line"
# An endless line is refused once it passes the limit, not read to the end.
if [ -r /dev/zero ] && command -v timeout > /dev/null 2>&1; then
	timeout 20 "$bin" check /dev/zero > /dev/null 2> "$tmp/stderr"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^placement: /dev/zero:1: the line is more than 65536 bytes" "$tmp/stderr"; then
		ok
	else
		bad "check /dev/zero: exit $rc, want 1 and the line limit: $(head -c 300 "$tmp/stderr")"
	fi
fi
# The limit is on a line without its end: 65536 bytes pass, 65537 are refused
# by their length, whether the line ends in LF, in CR LF or (the last one) in
# nothing; and the same in what import kafka reads.
for n in 65536 65537; do
	for end in lf crlf none; do
		awk -v n=$n -v end=$end 'BEGIN { e = end == "crlf" ? "\r\n" : "\n"
			pad = "x"; while (length(pad) < n - 11) pad = pad pad; pad = substr(pad, 1, n - 11)
			printf "member a%s", e; printf "member b0 #%s%s", pad, end == "none" ? "" : e
			if (end != "none") printf "member c%s", e }' > "$tmp/line-$end.txt"
		f="$tmp/line-$end.txt"
		if [ $n = 65537 ]; then
			expect_fail "$f" 2 "the line is 65537 bytes, past the limit of 65536 bytes for a line"
			continue
		fi
		members=3
		[ $end = none ] && members=2
		if "$bin" check "$f" > "$tmp/stdout" 2> "$tmp/stderr" && grep -q ": ok: $members members" "$tmp/stdout"; then
			ok
		else
			bad "check a line of 65536 bytes ending in $end: $(head -c 300 "$tmp/stderr")"
		fi
	done
	awk -v n=$n 'BEGIN { s = "Topic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2"
		pad = " "; while (length(pad) < n - length(s)) pad = pad pad
		printf "%s%s\r\n", s, substr(pad, 1, n - length(s)) }' > "$tmp/long.describe"
	"$bin" import kafka "$tmp/long.describe" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ $n = 65536 ] && [ $rc = 0 ] && grep -q "^shard t/0 " "$tmp/stdout"; then
		ok
	elif [ $n = 65537 ] && [ $rc = 1 ] &&
		grep -q "^placement: $tmp/long.describe:1: the line is 65537 bytes, past the limit of 65536 bytes" "$tmp/stderr"; then
		ok
	else
		bad "import kafka, a line of $n bytes ending in CR LF: exit $rc: $(head -c 300 "$tmp/stderr")"
	fi
done
rm -f "$tmp"/line-*.txt "$tmp/long.describe"
awk 'BEGIN { for (i = 0; i <= 1048576; i++) printf "member m%d\n", i }' > "$tmp/members.txt"
expect_fail "$tmp/members.txt" 1048577 "past the limit of 1048576 members (PL_MAX_MEMBERS)"
rm -f "$tmp/members.txt"
# A sparse file past 64 GiB: refused by its size, before a byte is read.
if truncate -s 68719476737 "$tmp/huge.txt" 2> /dev/null; then
	expect_fail "$tmp/huge.txt" 0 "68719476737 bytes, past the limit of 68719476736 bytes (64 GiB)"
	rm -f "$tmp/huge.txt"
else
	echo "note: no sparse file here; the file-size limit is not exercised"
fi
expect_fail /nonexistent/snapshot.txt 0 "cannot open"
expect_fail . 0 "is a directory"

# ---- 4b. bounded memory -------------------------------------------------------------
# What the tool keeps follows what the file declares, not its size nor its
# count of lines, and a bad line is reported before the rest is read
# (placement(1)). Under a limit of 300 MB of address space: (a) a valid file
# of one member, one shard and 64 MiB of blank lines passes; (b) a member
# declared twice on line 2, then 150 MB of blank lines, is refused by line 2,
# from a file and from a pipe; (c) a sparse 4 GiB file of NUL bytes is refused
# by its line 1, at once. A sanitized binary (ASan reserves terabytes of
# address space) cannot run under ulimit -v: there the same files are checked
# with no limit.
limit=300000 # KiB
limited=1
if grep -q -a -e __asan_init -e __msan_init -e __tsan_init -e __hwasan_init "$bin" 2> /dev/null; then
	limited=0
	echo "note: $(basename "$bin") is built with a sanitizer: the bounded-memory tests run without ulimit -v"
elif ! (ulimit -v $limit) 2> /dev/null; then
	limited=0
	echo "note: ulimit -v $limit is refused here: the bounded-memory tests run without it"
fi
to=""
command -v timeout > /dev/null 2>&1 && to="timeout 60"
check_bounded() { # FILE (- reads standard input): check it, under the limit
	if [ $limited = 1 ]; then
		(ulimit -v $limit && exec $to "$bin" check "$1") > "$tmp/stdout" 2> "$tmp/stderr"
	else
		$to "$bin" check "$1" > "$tmp/stdout" 2> "$tmp/stderr"
	fi
}
blank_lines() { # BYTES: that many LF bytes
	head -c "$1" /dev/zero | tr '\0' '\n'
}
{ printf 'member b0\nshard k replicas=b0 leader=b0\n'; blank_lines 67108864; } > "$tmp/big.txt"
check_bounded "$tmp/big.txt"
rc=$?
if [ $rc -eq 0 ] && grep -q "^$tmp/big.txt: ok: 1 member .* 1 shard " "$tmp/stdout"; then
	ok
else
	bad "check of 64 MiB of blank lines under ulimit -v $limit: exit $rc: $(head -c 300 "$tmp/stderr")"
fi
{ printf 'member b0\nmember b0\n'; blank_lines 150000000; } > "$tmp/big.txt"
rm -f "$tmp/stdout"
check_bounded "$tmp/big.txt"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/stdout" ] &&
	[ "$(cat "$tmp/stderr")" = "placement: $tmp/big.txt:2: member 'b0' is declared twice (first at line 1)" ]; then
	ok
else
	bad "check of a bad line 2 then 150 MB under ulimit -v $limit: exit $rc: $(head -c 300 "$tmp/stderr")"
fi
rm -f "$tmp/big.txt"
{ printf 'member b0\nmember b0\n'; blank_lines 150000000; } 2> /dev/null | check_bounded -
rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$tmp/stderr")" = "placement: <stdin>:2: member 'b0' is declared twice (first at line 1)" ]; then
	ok
else
	bad "check - of a bad line 2 then 150 MB under ulimit -v $limit: exit $rc: $(head -c 300 "$tmp/stderr")"
fi
if truncate -s 4G "$tmp/sparse.txt" 2> /dev/null; then
	check_bounded "$tmp/sparse.txt"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^placement: $tmp/sparse.txt:1: " "$tmp/stderr"; then
		ok
	else
		bad "check of a sparse 4 GiB file under ulimit -v $limit: exit $rc: $(head -c 300 "$tmp/stderr")"
	fi
	rm -f "$tmp/sparse.txt"
else
	echo "note: no sparse file here; the 4 GiB file is not checked"
fi

# Garbage: valid files mangled (lines dropped, duplicated, bytes changed), and
# random bytes (garbage(), above): the seeds the background has not taken.
garbage

# ---- 5. usage ----------------------------------------------------------------------------
usage() { # WANT ARGS...
	want=$1
	shift
	"$bin" "$@" > /dev/null 2>&1
	rc=$?
	if [ $rc -eq "$want" ]; then ok; else bad "placement $*: exit $rc, want $want"; fi
}
usage 0 --help
usage 0 --version
usage 2
usage 2 frobnicate golden/felix.txt
usage 2 check
usage 2 check golden/felix.txt golden/felix.txt
usage 2 owner golden/felix.txt
usage 2 check --max 3 golden/felix.txt
usage 2 --svg x.svg check golden/felix.txt
usage 2 --svg x.svg owner golden/felix.txt k
usage 2 plan --max 0 golden/felix.txt
usage 2 plan --max=x golden/felix.txt
usage 2 simulate --ticks 0 golden/felix.txt
usage 2 stats --bogus golden/felix.txt
usage 2 stats -x golden/felix.txt
usage 1 stats --policy nobody golden/felix.txt
usage 0 check -- golden/felix.txt
# the exit status, case by case (placement(1), EXIT STATUS)
usage 0 plan golden/felix.txt                  # ends balanced
usage 0 plan --max 1 golden/broker-caps.txt    # cut where asked
usage 3 plan golden/broker-caps.txt            # ends blocked (caps)
usage 3 plan golden/region-stalls.txt          # ends stalled
usage 3 --json plan golden/broker-caps.txt
usage 0 simulate golden/broker-caps.txt        # simulate reports, it does not judge
usage 0 stats golden/broker-caps.txt
usage 1 plan errors/number-bad.txt             # bad input
usage 2 plan                                   # usage
usage 2 stats --summary golden/felix.txt
usage 2 import kafka
usage 2 import
usage 2 stats --racks x golden/felix.txt
usage 2 check --kafka-election x golden/felix.txt
usage 2 stats --kafka-unclean-election x golden/felix.txt
usage 1 import orc kafka/describe-old.describe
usage 2 plan --max-moves 3 golden/felix.txt        # a setting: --set max-moves=3
usage 2 import kafka --set rf=3 kafka/isr.describe
usage 2 stats --topic t golden/felix.txt
usage 2 plan --kafka-rollback golden/felix.txt
usage 1 plan --set bogus=1 golden/felix.txt
usage 1 import kafka --topic t kafka/isr.describe
# --set is read by the file's `set` parser: the same message for the same
# mistake, naming the argument instead of a line; and it wins over the file
for x in "bogus=1" "max-moves=x" "paused=maybe" "policy=ring" "max-moves" "self=nobody"; do
	{ echo "set $x"; cat golden/felix.txt; } > "$tmp/set.txt"
	"$bin" check "$tmp/set.txt" > /dev/null 2> "$tmp/file.err"
	"$bin" check --set "$x" golden/felix.txt > "$tmp/stdout" 2> "$tmp/arg.err"
	rc=$?
	want=$(sed "s|^placement: $tmp/set.txt:1: ||" "$tmp/file.err")
	if [ $rc -eq 1 ] && [ ! -s "$tmp/stdout" ] && [ -n "$want" ] &&
		[ "$(cat "$tmp/arg.err")" = "placement: golden/felix.txt: --set '$x': $want" ]; then
		ok
	else
		bad "--set '$x': not the file's message ($want): $(cat "$tmp/arg.err")"
	fi
done
"$bin" plan --set max-moves=1 --set max-moves=3 golden/broker-caps.txt 2> /dev/null | head -1 > "$tmp/stdout"
if grep -q "(max-moves 3," "$tmp/stdout"; then ok; else bad "--set twice: the last does not win: $(cat "$tmp/stdout")"; fi
# with --json (before or after the error), a usage error is also one JSON
# object on stdout, {"error": {... "usage": true}}, and still exits 2
for args in "--json" "--json frobnicate golden/felix.txt" "frobnicate --json golden/felix.txt" \
	"--json plan --max 0 golden/felix.txt" "plan golden/felix.txt --bogus --json" "--json owner golden/felix.txt" \
	"--json check golden/felix.txt golden/felix.txt" "--json --svg x.svg check golden/felix.txt" "--json plan --max"; do
	# shellcheck disable=SC2086
	"$bin" $args > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^{"error": {"file": null, "line": 0, "message": ".*", "usage": true}}$' "$tmp/stdout" &&
		[ "$(wc -l < "$tmp/stdout")" -eq 1 ] && grep -q "^placement: " "$tmp/stderr" &&
		{ ! command -v python3 > /dev/null 2>&1 ||
			python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/stdout" 2> /dev/null; }; then
		ok
	else
		bad "placement $args: exit $rc (want 2) and one JSON usage error object: $(head -c 300 "$tmp/stdout")"
	fi
done
# owner: a bad KEY is named, not the file (exit 1); a long one is cut
long=$(awk 'BEGIN { for (i = 0; i < 1100; i++) printf "x" }')
for c in "a%zz|^placement: KEY: bad %XX escape in argument 'a%zz'" "|^placement: KEY '' is 0 bytes: a key is 1 to 1024 bytes\$" \
	"$long|^placement: KEY 'x\{60\}\.\.\.' is 1100 bytes: a key is 1 to 1024 bytes\$"; do
	key=${c%%|*} want=${c#*|}
	"$bin" owner golden/felix.txt "$key" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	"$bin" --json owner golden/felix.txt "$key" > "$tmp/json" 2> /dev/null
	if [ $rc -eq 1 ] && [ ! -s "$tmp/stdout" ] && grep -q "$want" "$tmp/stderr" && ! grep -q felix "$tmp/stderr" &&
		grep -q '^{"error": {"file": null, "line": 0, "message": "KEY' "$tmp/json"; then
		ok
	else
		bad "owner with KEY '$(echo "$key" | cut -c1-20)': exit $rc, want 1 and a message naming the key: $(head -c 300 "$tmp/stderr") $(head -c 200 "$tmp/json")"
	fi
done
"$bin" plan --member "$long" ../../examples/placement/scenarios/1-fleet-legacy.txt > /dev/null 2> "$tmp/stderr"
if [ "$(wc -c < "$tmp/stderr")" -lt 300 ] && grep -q -- "--member x*\.\.\.: no such member" "$tmp/stderr"; then
	ok
else
	bad "plan --member with a long id: the message is not cut: $(head -c 200 "$tmp/stderr")"
fi
# an output that cannot be written is named, not the file read (exit 1)
for opt in --out --svg --kafka-election; do
	f=golden/felix.txt
	[ $opt = --kafka-election ] && f=golden/kafka-new.txt
	"$bin" plan $opt /nonexistent/dir/x "$f" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^placement: cannot write /nonexistent/dir/x: " "$tmp/stderr"; then
		ok
	else
		bad "plan $opt into a missing directory: exit $rc, want 1 and the output named: $(head -c 200 "$tmp/stderr")"
	fi
done
"$bin" check -- --json > "$tmp/stdout" 2> /dev/null
if [ $? -eq 1 ] && [ ! -s "$tmp/stdout" ]; then ok; else bad "check -- --json reads a file named --json"; fi
# progress on standard error (forced: stderr is not a terminal here), never on stdout
PLACEMENT_PROGRESS=1 "$bin" plan golden/felix.txt > "$tmp/stdout" 2> "$tmp/stderr"
if grep -q "placement: planned tick [0-9]*, [0-9]* actions*; imbalance [0-9]* of [0-9]* at the start" "$tmp/stderr" &&
	cmp -s "$tmp/stdout" golden/felix.plan; then ok; else bad "plan progress: $(head -c 200 "$tmp/stderr")"; fi
"$bin" plan golden/felix.txt 2> "$tmp/stderr" > /dev/null
if [ -s "$tmp/stderr" ]; then bad "plan writes progress to a stderr that is not a terminal"; else ok; fi
"$bin" plan golden/broker-caps.txt > "$tmp/stdout" 2>&1
if grep -q "^  blocked-caps: stream s: b0=4 over its ceiling 2" "$tmp/stdout"; then ok; else bad "a blocked plan names its stream and members"; fi
# stats runs no plan; stats --svg runs the plan to draw where it ends (and
# still exits 0 when it ends blocked: stats reports), its output unchanged
"$bin" --timing stats golden/broker-caps.txt > "$tmp/stdout" 2> "$tmp/stderr"
if [ $? -eq 0 ] && ! grep -q "^timing: plan" "$tmp/stderr" && cmp -s "$tmp/stdout" golden/broker-caps.stats; then
	ok
else
	bad "plain stats runs a plan, or its output changed: $(head -c 300 "$tmp/stderr")"
fi
"$bin" --timing stats --svg "$tmp/caps.svg" golden/broker-caps.txt > "$tmp/stdout" 2> "$tmp/stderr"
if [ $? -eq 0 ] && grep -q "^timing: plan .*, 2 actions in [0-9]* ticks" "$tmp/stderr" &&
	cmp -s "$tmp/stdout" golden/broker-caps.stats &&
	grep -q 'data-status="blocked-caps" data-blocked="true"' "$tmp/caps.svg"; then
	ok
else
	bad "stats --svg of a plan that ends blocked: $(head -c 300 "$tmp/stderr")"
fi
"$bin" --json stats --svg "$tmp/caps.svg" golden/broker-caps.txt > "$tmp/stdout" 2> /dev/null
"$bin" --json stats golden/broker-caps.txt > "$tmp/plain.json" 2> /dev/null
if [ -s "$tmp/stdout" ] && cmp -s "$tmp/plain.json" "$tmp/stdout"; then
	ok
else
	bad "--json stats --svg prints other JSON than --json stats"
fi
"$bin" check - < golden/felix.txt > "$tmp/stdout" 2>&1
if grep -q "^<stdin>: ok" "$tmp/stdout"; then ok; else bad "check - (standard input): $(cat "$tmp/stdout")"; fi

# the garbage run in the background: each runner's failures, then its counts
r=1
for pid in $garbage_pids; do
	wait "$pid"
	cat "$tmp/garbage-runner.$r.out"
	if read -r gc gf < "$tmp/garbage-runner.$r.counts" 2> /dev/null; then
		checks=$((checks + gc))
		failures=$((failures + gf))
	else
		bad "garbage runner $r in the background stopped before its end"
	fi
	r=$((r + 1))
done
garbage_pids=""

pct=100
[ $checks -gt 0 ] && pct=$(( (checks - failures) * 100 / checks ))
echo "placement: $pct%: Checks: $checks, Failures: $failures, Errors: 0"
[ $failures -eq 0 ]
