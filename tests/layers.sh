#!/bin/sh
# layers.sh - calls in lib/ go one way (lib/README.md), run by `make check`.
#
#   tests/layers.sh [BUILD [LIB]]    objects in BUILD/obj/FOLDER/, sources in LIB/FOLDER/
#
# The folders are layers: core (1) < view (2) < broker, fleet, region,
# route, explain (3). A file may call into (need a symbol an object
# defines) and include from its own folder or a lower layer only; the
# folders of one layer never call each other. Across folders, a file
# includes only the lower folder's interface headers (core: core.h and
# keyfeed.h; view: view_int.h), so a policy sees what the view offers it
# and nothing of the view's insides. Every include names its folder
# ("view/view_int.h"), so the direction shows where it is written.
# Inside a folder, the calls between files form no circle (tsort), and the
# broker's files keep their own order: entry points > passes > scope >
# shared helpers (lib/broker/broker_int.h). The Python package's modules
# import each other in no circle either.
#
# Calls made by a header's inline functions count where they are compiled:
# in the object of the file that includes the header.
set -u
build=${1:-build}
lib=${2:-lib}
obj=$build/obj
fail=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

bad() {
	echo "layers: $*"
	fail=1
}

# A folder's layer, or 0 for a folder lib/README.md does not place.
layer() {
	case "$1" in
	core) echo 1 ;;
	view) echo 2 ;;
	broker | fleet | region | route | explain) echo 3 ;;
	*) echo 0 ;;
	esac
}

# The headers a folder offers the folders above it.
interface() {
	case "$1" in
	core/core.h | core/keyfeed.h | view/view_int.h) return 0 ;;
	*) return 1 ;;
	esac
}

# The order inside a folder where its header states one (a higher number
# may not call a lower one): 0 where there is none.
sublayer() {
	case "$1" in
	broker/broker) echo 1 ;;
	broker/broker_place | broker/broker_drain | broker/broker_balance | broker/broker_handoff | broker/broker_replica | broker/broker_bytes) echo 2 ;;
	broker/broker_scope | broker/broker_offer | broker/broker_search | broker/broker_tier | broker/broker_flow) echo 3 ;;
	broker/broker_common) echo 4 ;;
	broker/*) echo 9 ;;
	*) echo 0 ;;
	esac
}

folders=""
for d in "$lib"/*/; do
	f=$(basename "$d")
	case "$f" in rust | python | go) continue ;; esac # the bindings
	folders="$folders $f"
	[ "$(layer "$f")" = 0 ] && bad "lib/$f/ is in no layer (add it to lib/README.md and to tests/layers.sh)"
done

# ---- includes -----------------------------------------------------------------
for f in $folders; do
	for src in "$lib/$f"/*.c "$lib/$f"/*.h; do
		[ -f "$src" ] || continue
		name=$f/$(basename "$src")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src" > "$tmp/inc"
		while read -r inc; do
			case "$inc" in
			placement.h | placement/*) continue ;; # the public headers
			*/*) ;;
			*)
				bad "$name includes \"$inc\": name the header's folder (\"core/$inc\", \"view/$inc\", ...)"
				continue
				;;
			esac
			g=${inc%%/*}
			[ "$g" = "$f" ] && continue
			lf=$(layer "$f")
			lg=$(layer "$g")
			if [ "$lg" -ge "$lf" ]; then
				bad "$name includes $inc: $g/ is not below $f/"
			elif ! interface "$inc"; then
				bad "$name includes $inc: not an interface of $g/ (its insides)"
			fi
		done < "$tmp/inc"
	done
done

# ---- calls ----------------------------------------------------------------------
# Every global symbol an object defines, with the object; then every symbol
# an object needs that another one defines: an edge "user definer".
objs=""
for f in $folders; do
	for src in "$lib/$f"/*.c; do
		[ -f "$src" ] || continue
		o=$obj/$f/$(basename "$src" .c).o
		if [ ! -f "$o" ]; then
			bad "no object $o for $src (build the library first)"
			continue
		fi
		objs="$objs $f/$(basename "$src" .c)"
	done
done
: > "$tmp/defs"
for n in $objs; do
	nm -g --defined-only "$obj/$n.o" | awk -v n="$n" 'NF == 3 {print $3, n}' >> "$tmp/defs"
done
: > "$tmp/edges"
for n in $objs; do
	nm -u "$obj/$n.o" | awk '{print $NF}' | sort -u > "$tmp/undef"
	awk -v n="$n" 'NR == FNR {u[$1] = 1; next} ($1 in u) && $2 != n {print n, $2, $1}' "$tmp/undef" "$tmp/defs" \
		>> "$tmp/edges"
done
while read -r user definer sym; do
	f=${user%%/*}
	g=${definer%%/*}
	if [ "$f" != "$g" ]; then
		[ "$(layer "$g")" -lt "$(layer "$f")" ] ||
			bad "$user.c calls $sym in $definer.c: $g/ is not below $f/"
	else
		a=$(sublayer "$user")
		b=$(sublayer "$definer")
		[ "$b" -lt "$a" ] && bad "$user.c calls $sym in $definer.c, above it in $f/'s order"
	fi
done < "$tmp/edges"
# No circle anywhere: tsort names one when there is.
awk '{print $1, $2}' "$tmp/edges" | sort -u > "$tmp/pairs"
if ! tsort "$tmp/pairs" > /dev/null 2> "$tmp/loop"; then
	bad "the calls between these files go round in a circle:"
	sed -n 's/^tsort: //p' "$tmp/loop" | grep -v 'input contains a loop' | sed 's/^/    /'
	grep -v '^tsort: ' "$tmp/loop" | sed 's/^/    /'
fi

# ---- the Python package ------------------------------------------------------------
py=$lib/python/placement
if [ -d "$py" ]; then
	: > "$tmp/pyedges"
	for m in "$py"/*.py; do
		n=$(basename "$m" .py)
		# from ._x import ..., from . import _x, _y (anywhere, a deferred import too)
		sed -n -e 's/^[[:space:]]*from \.\([A-Za-z_][A-Za-z0-9_]*\) import.*/\1/p' \
			-e 's/^[[:space:]]*from \. import \(.*\)/\1/p' "$m" | tr ',' '\n' | awk '{print $1}' |
			while read -r d; do
				[ -n "$d" ] && [ -f "$py/$d.py" ] && [ "$d" != "$n" ] && echo "$n $d"
			done >> "$tmp/pyedges"
	done
	sort -u "$tmp/pyedges" > "$tmp/pypairs"
	if ! tsort "$tmp/pypairs" > /dev/null 2> "$tmp/pyloop"; then
		bad "the Python package's modules import each other in a circle:"
		sed -n 's/^tsort: //p' "$tmp/pyloop" | grep -v 'input contains a loop' | sed 's/^/    /'
	fi
fi

[ $fail -eq 0 ] && echo "layers: calls go one way: core < view < broker, fleet, region, route, explain; no circle in lib/ or the Python package"
exit $fail
