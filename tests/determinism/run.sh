#!/bin/sh
# run.sh - the same plans, byte for byte, from every build of the tool.
#
# usage: tests/determinism/run.sh OUTDIR TOOL...
# Runs `placement --json plan` with each TOOL (the first is the reference) on
# every example scenario and on three generated layouts of 3,000 shards (one
# per policy), and fails on the first output that differs from the
# reference's. A compiler, an optimisation level or a CPU extension that
# changed a decision would show here.
set -eu
out=$1
shift
[ $# -ge 2 ] || { echo "determinism: need at least two builds of the tool" >&2; exit 2; }
here=$(dirname "$0")
mkdir -p "$out"
set -- "$@"
inputs=""
for f in examples/placement/scenarios/*.txt; do
	inputs="$inputs $f"
done
for p in broker fleet region; do
	"$here/layout.sh" $p 24 12 3000 2 > "$out/large-$p.txt"
	inputs="$inputs $out/large-$p.txt"
done
fail=0
for f in $inputs; do
	name=$(basename "$f" .txt)
	ref=""
	same=1
	for t in "$@"; do
		tag=$(basename "$(dirname "$t")")
		"$t" --json plan "$f" > "$out/$name.$tag.json"
		if [ -z "$ref" ]; then
			ref=$out/$name.$tag.json
		elif ! cmp -s "$ref" "$out/$name.$tag.json"; then
			echo "determinism: FAIL: $f: $tag differs from $(basename "$(dirname "$1")")"
			cmp "$ref" "$out/$name.$tag.json" || true
			same=0
			fail=1
		fi
	done
	[ $same = 0 ] || echo "determinism: $f: $# builds agree ($(wc -c < "$ref") bytes)"
done
exit $fail
