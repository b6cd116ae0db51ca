#!/bin/sh
# tests/bindings/check.sh TOOL - the tool's plan of every layout of the
# shared set equals its .plan file. The Python, Rust and Go suites compare
# their own dry runs with the same files, so the three bindings and the
# tool give the same plan on the same layout.
#   --update  rewrite the .plan files from the tool (review the diff)
set -eu
tool=$1
update=${2:-}
dir=$(dirname "$0")
py=${PYTHON:-python3}
fail=0
n=0
for f in "$dir"/*.txt; do
	want=${f%.txt}.plan
	got=$("$tool" plan --json "$f" | "$py" "$dir/plan_lines.py")
	n=$((n + 1))
	if [ "$update" = --update ]; then
		printf '%s\n' "$got" > "$want"
	elif ! printf '%s\n' "$got" | cmp -s - "$want"; then
		echo "FAIL: $f: the tool's plan differs from $want"
		printf '%s\n' "$got" | diff "$want" - | head -10
		fail=1
	fi
done
echo "shared layouts: $n files, the tool's plan $( [ $fail = 0 ] && echo equals || echo differs from ) every .plan"
exit $fail
