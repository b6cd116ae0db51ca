#!/bin/sh
# layers.sh - calls between a policy's sources go one way, run by `make check`:
# for each chain "a b c", the object of a later file never needs a pl__
# symbol that an earlier file of the chain defines.
#
# Usage: tests/layers.sh BUILD
set -u
obj=${1:-build}/obj
fail=0
check() {
	i=0
	for f in "$@"; do
		i=$((i + 1))
		j=0
		for g in "$@"; do
			j=$((j + 1))
			[ "$j" -lt "$i" ] || break
			# g is above f: f must not need anything g defines.
			for s in $(nm -u "$obj/$f.o" | awk '{print $2}' | grep '^pl__'); do
				if nm "$obj/$g.o" | awk '$2 == "T" {print $3}' | grep -qx "$s"; then
					echo "FAIL: $f.c calls $s in $g.c, above it"
					fail=1
				fi
			done
		done
	done
}
check fleet fleet_balance fleet_common
check region region_balance region_common
check order_first keyfeed order
[ $fail -eq 0 ] && echo "layers: calls go one way (fleet, region, order)"
exit $fail
