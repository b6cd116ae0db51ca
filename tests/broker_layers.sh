#!/bin/sh
# broker_layers.sh - the broker policy's call graph goes one way (lib/broker_int.h):
# entry points -> passes -> scope -> shared helpers. For each object, every
# pl__bk_ symbol it uses must be defined by an object of its own layer or a
# lower one. Usage: tests/broker_layers.sh BUILD
set -u
obj=${1:-build}/obj
layer() {
	case "$1" in
	broker) echo 1 ;;
	broker_place | broker_drain | broker_balance | broker_replica) echo 2 ;;
	broker_scope | broker_search | broker_tier | broker_flow) echo 3 ;;
	broker_common) echo 4 ;;
	*) echo 0 ;;
	esac
}
fail=0
defs=$(mktemp) || exit 2
trap 'rm -f "$defs"' EXIT
objs=""
for o in "$obj"/broker*.o; do
	[ -f "lib/$(basename "$o" .o).c" ] && objs="$objs $o" # not a stale object
done
for o in $objs; do
	n=$(basename "$o" .o)
	nm -g --defined-only "$o" | awk -v f="$n" '$3 ~ /^pl__bk_/ {print $3, f}' >> "$defs"
done
for o in $objs; do
	n=$(basename "$o" .o)
	l=$(layer "$n")
	[ "$l" = 0 ] && { echo "broker_layers: $n is in no layer (lib/broker_int.h)"; fail=1; continue; }
	for sym in $(nm -u "$o" | awk '$2 ~ /^pl__bk_/ {print $2}'); do
		d=$(awk -v s="$sym" '$1 == s {print $2}' "$defs")
		[ -z "$d" ] && continue
		if [ "$(layer "$d")" -lt "$l" ]; then
			echo "broker_layers: $n (layer $l) calls $sym of $d (layer $(layer "$d")): a call up the graph"
			fail=1
		fi
	done
done
[ $fail = 0 ] && echo "broker_layers: calls go one way: entry points -> passes -> scope -> shared helpers"
exit $fail
