#!/bin/sh
# ceph_upmap.sh - replicas copied by Ceph's upmap balancer and by the
# placement tool's broker policy, on clusters Ceph itself generates.
#
# For each shape, a cluster of OSDs in hosts of 4 (10 in racks60-512; a CRUSH
# rule that puts the replicas of a PG on different hosts), one pool of size 3:
#
#  1. crushtool compiles the CRUSH map (ceph_upmap.py crush) and osdmaptool
#     makes the osdmap (--createsimple with --with-default-pool: pg_num is
#     max_osd << pg_bits, so max_osd is a power of two at least the OSDs, and
#     the OSDs past the CRUSH map exist, up and in, but hold nothing: every
#     mapping is checked to stay inside the CRUSH map);
#  2. the PGs' up sets (osdmaptool --test-map-pgs-dump) are the starting
#     layout, written as a placement(5) file (ceph_upmap.py snapshot): a
#     member per OSD with zone=its host and weight=its CRUSH weight (16.16
#     fixed point divided by the gcd of all), a stream per pool, a shard per
#     PG with replicas = its up set and leader = its primary (up[0]);
#  3. Ceph: osdmaptool --upmap --upmap-deviation 1 --upmap-active --save,
#     which runs the balancer round after round (--upmap-max changes a
#     round, the mgr's upmap_max_optimizations, 10 by default) until it
#     proposes nothing.  The commands of every round are replayed in order
#     on the raw CRUSH mapping, and each OSD that enters a PG's up set is one
#     replica copied (a pg-upmap-items pair from->to is one copy; a later
#     round that changes a PG's items again copies again).  The replay must
#     give the map osdmaptool saved.  Ceph's balancer picks at random
#     (std::random_device, no seed), so it runs TRIALS times (default 5)
#     and the table shows the median run, and the range of its copies;
#  4. placement: `placement --json plan` of the same starting layout under
#     set policy=broker rf=3 max-moves=256; copies are move-replica actions
#     (each stages a copy) plus move-leader actions with stage_first (the
#     new leader held no replica); hand-offs are move-leader actions without
#     (the leadership goes to a follower, no data moves).  The actions are
#     replayed on the snapshot, and the result must match the tool's own
#     "after" counts.
#
# The "racks" shapes put the hosts in rack buckets (consecutive hosts share a
# rack: host h is in rack h * racks / hosts), under a rule that still only
# asks for different hosts (chooseleaf firstn 0 type host), so a PG starts on
# the racks CRUSH happened to pick (1 to 3).  The snapshot's zones are then
# paths, zone=rack/host (placement(5), the broker's levels), and placement
# runs a second time on the same snapshot with zone=host only
# (snapshot_hosts.txt, plan_hosts.json).  The notes count the PGs that span
# fewer (more) racks at the end than at the start: Ceph (the replay of its
# upmap items; the median of each count over the runs, as runs often tie on
# copies, and the range of "fewer"), placement with paths, placement with
# hosts only; the PGs that span all the racks they can (3) at the start and
# at each end; and the copies of placement with hosts only.  With paths the broker also
# repairs the racks (zone-repair moves to a third rack), and those copies are
# in its "pl copies".
#
# The "newhost" shape maps the PGs on all hosts but the last, then adds the
# last host, empty.  For Ceph, adding it to the CRUSH map remaps PGs onto it
# at once (those copies are counted, then the balancer runs on that map);
# placement starts from the layout before the host came, with its OSDs as
# empty members, and must move the data onto them itself.
#
# NOT LIKE FOR LIKE: Ceph's upmap balancer evens PGs per OSD (replicas) only;
# it never looks at primaries (leaders) and has a single measure per pool.
# The placement broker policy also evens leaders, per stream and in total,
# and replicas per stream as well as in total, and moves leaderships to do
# it (hand-offs cost no copy; a leader move onto a member without a replica
# does).  Both columns "lead" show the spread of primaries per OSD at the
# end; only placement tries to make it small.
#
# The columns (tab-separated, one line per shape): shape, OSDs, PGs;
# "start r/l": the starting spread of replicas and of primaries; "min": a
# lower bound on the copies of any plan that leaves every OSD within the
# floor and ceiling of its share of replicas (the larger of the replicas
# over the ceilings and those missing under the floors); Ceph's copies (the
# median run), their range over the runs, its final replica spread (sd) and
# primary spread; placement's copies, hand-offs, final replica spread (sd)
# and leader spread; placement copies / Ceph copies; notes (for newhost, the
# Ceph copies split into the CRUSH remap and the balancer; a net count of
# copies when a replica was copied twice; for racks, see above).
# Spreads are of count - weighted share (share = total * weight / sum of
# weights): max - min, and the standard deviation; for equal weights that
# is max - min of the counts.  Each shape's files (the snapshot, plan.json,
# plan.txt with every action's reason, osdmaps, upmap commands, result.json)
# are kept under WORK.
#
# Usage: tests/compare/ceph_upmap.sh [SHAPE ...]
#   SHAPE is a name from the list below (default: all of them).
# Environment:
#   PLACEMENT   the tool (default: build/placement, built with make if missing)
#   WORK        where each shape's files are kept (default: a new temporary
#               directory, kept and named at the end)
#   TRIALS      Ceph runs per shape (default 5)
#   UPMAP_MAX   --upmap-max, changes per balancer round (default 10)
#   MAX_MOVES   placement's max-moves (default 256)
#
# Needs osdmaptool and crushtool (Debian: apt-get install -y ceph-base) and
# /usr/bin/python3.  Not part of make check or CI.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
helper="$here/ceph_upmap.py"
TRIALS=${TRIALS:-5}
UPMAP_MAX=${UPMAP_MAX:-10}
MAX_MOVES=${MAX_MOVES:-256}

for t in osdmaptool crushtool; do
	command -v $t >/dev/null 2>&1 || {
		echo "ceph_upmap.sh: $t not found (apt-get install -y ceph-base)" >&2
		exit 1
	}
done
if [ -z "${PLACEMENT:-}" ]; then
	PLACEMENT=$top/build/placement
	[ -x "$PLACEMENT" ] || make -C "$top" build/placement >/dev/null
fi
WORK=${WORK:-$(mktemp -d /tmp/ceph_upmap.XXXXXX)}
mkdir -p "$WORK"

# name osds pgs weights newhost per-host racks
SHAPES='eq12-256 12 256 equal 0 4 0
eq12-1024 12 1024 equal 0 4 0
eq12-4096 12 4096 equal 0 4 0
eq48-256 48 256 equal 0 4 0
eq48-1024 48 1024 equal 0 4 0
eq48-4096 48 4096 equal 0 4 0
eq200-256 200 256 equal 0 4 0
eq200-1024 200 1024 equal 0 4 0
eq200-4096 200 4096 equal 0 4 0
mixed48-1024 48 1024 mixed 0 4 0
mixed200-4096 200 4096 mixed 0 4 0
newhost48-1024 48 1024 equal 1 4 0
newhost200-4096 200 4096 equal 1 4 0
racks60-512 60 512 equal 0 10 3
racks48-1024 48 1024 equal 0 4 4'

# log2 of a power of two, or nothing
log2() {
	n=$1 b=0
	while [ "$n" -gt 1 ]; do
		[ $((n % 2)) -eq 0 ] || return 1
		n=$((n / 2)) b=$((b + 1))
	done
	echo $b
}

run_shape() { # name osds pgs weights newhost per-host racks
	name=$1 osds=$2 pgs=$3 weights=$4 newhost=$5 perhost=$6 racks=$7
	d=$WORK/$name
	rm -rf "$d"
	mkdir -p "$d"
	printf '{"name": "%s", "osds": %s, "pgs": %s, "weights": "%s", "newhost": %s, "per_host": %s, "racks": %s}\n' \
		"$name" "$osds" "$pgs" "$weights" "$newhost" "$perhost" "$racks" >"$d/shape.json"

	# max_osd: a power of two, at least the OSDs; pg_num = max_osd << bits
	maxosd=1
	while [ $maxosd -lt "$osds" ]; do maxosd=$((maxosd * 2)); done
	bits=$(log2 $((pgs / maxosd))) && [ $((maxosd << bits)) -eq "$pgs" ] || {
		echo "ceph_upmap.sh: $name: $pgs PGs is not a power of two at least $maxosd" >&2
		return 1
	}

	$py "$helper" crush "$osds" --weights "$weights" --per-host "$perhost" --racks "$racks" >"$d/crush.txt"
	crushtool -c "$d/crush.txt" -o "$d/crush.bin"
	if [ "$newhost" = 1 ]; then
		$py "$helper" crush "$osds" --weights "$weights" --per-host "$perhost" --racks "$racks" \
			--hosts-only $((osds / perhost - 1)) >"$d/crush0.txt"
		crushtool -c "$d/crush0.txt" -o "$d/crush0.bin"
	else
		cp "$d/crush.bin" "$d/crush0.bin"
	fi
	osdmaptool --createsimple $maxosd --with-default-pool --pg-bits "$bits" --pgp-bits "$bits" \
		--osd_pool_default_size 3 --clobber "$d/osdmap0" >"$d/osdmaptool.log" 2>&1
	osdmaptool "$d/osdmap0" --import-crush "$d/crush0.bin" >>"$d/osdmaptool.log" 2>&1
	osdmaptool "$d/osdmap0" --mark-up-in --test-map-pgs-dump >"$d/map0.txt" 2>>"$d/osdmaptool.log"
	grep -q "^size 3	$pgs\$" "$d/map0.txt" || {
		echo "ceph_upmap.sh: $name: the pool is not $pgs PGs of size 3 (see $d/map0.txt)" >&2
		return 1
	}
	cp "$d/osdmap0" "$d/osdmap"
	if [ "$newhost" = 1 ]; then
		osdmaptool "$d/osdmap" --import-crush "$d/crush.bin" >>"$d/osdmaptool.log" 2>&1
	fi
	osdmaptool "$d/osdmap" --mark-up-in --test-map-pgs-dump >"$d/map_crush.txt" 2>>"$d/osdmaptool.log"

	t=1
	while [ $t -le "$TRIALS" ]; do
		cp "$d/osdmap" "$d/ceph$t.osdmap"
		osdmaptool "$d/ceph$t.osdmap" --mark-up-in --upmap "$d/ceph$t.upmap" --upmap-max "$UPMAP_MAX" \
			--upmap-deviation 1 --upmap-active --save >"$d/ceph$t.log" 2>&1
		osdmaptool "$d/ceph$t.osdmap" --mark-up-in --test-map-pgs-dump >"$d/ceph$t.final.txt" 2>>"$d/osdmaptool.log"
		t=$((t + 1))
	done

	$py "$helper" snapshot "$d/map0.txt" "$d/crush.txt" --max-moves "$MAX_MOVES" >"$d/snapshot.txt"
	rc=0
	"$PLACEMENT" --json plan "$d/snapshot.txt" >"$d/plan.json" || rc=$?
	case $rc in
	0 | 3) ;; # 3: the plan ends blocked; the report says so
	*)
		echo "ceph_upmap.sh: $name: placement plan exited $rc" >&2
		return 1
		;;
	esac
	"$PLACEMENT" plan "$d/snapshot.txt" >"$d/plan.txt" || true
	if [ "$racks" -gt 0 ]; then
		# the same layout with zone=host only: what the levels change
		$py "$helper" snapshot "$d/map0.txt" "$d/crush.txt" --max-moves "$MAX_MOVES" --hosts-only-zones \
			>"$d/snapshot_hosts.txt"
		rc=0
		"$PLACEMENT" --json plan "$d/snapshot_hosts.txt" >"$d/plan_hosts.json" || rc=$?
		case $rc in
		0 | 3) ;;
		*)
			echo "ceph_upmap.sh: $name: placement plan (zone=host) exited $rc" >&2
			return 1
			;;
		esac
	fi
	$py "$helper" report "$d"
}

want=${*:-}
$py "$helper" header
echo "$SHAPES" | while read -r name osds pgs weights newhost perhost racks; do
	if [ -n "$want" ]; then
		case " $want " in *" $name "*) ;; *) continue ;; esac
	fi
	run_shape "$name" "$osds" "$pgs" "$weights" "$newhost" "$perhost" "$racks"
done
echo "# files kept in $WORK (TRIALS=$TRIALS UPMAP_MAX=$UPMAP_MAX MAX_MOVES=$MAX_MOVES, $(osdmaptool --version 2>/dev/null | head -1))" >&2
