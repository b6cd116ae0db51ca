#!/bin/sh
# symbols.sh - what the library needs from outside itself, and what it shows.
#  - The only outside functions it may call are memory and string helpers and
#    vsnprintf (pl_action_explain), and assert() in PL_DEBUG builds: no allocator (malloc, calloc, realloc,
#    free, qsort that may allocate), no clock, no I/O, no libm. A policy call
#    cannot allocate if nothing in the library can.
#  - No floating-point arithmetic anywhere in the library's code (x86-64:
#    no scalar or packed float/double add, multiply, divide, compare or
#    conversion, no x87), so no decision can depend on it.
#  - No writable data (no .data or .bss symbol): no global state, so calls
#    on different views share nothing and are thread-safe.
#  - The shared library exports only pl_ functions: the pl__ internals stay
#    hidden.
# Usage: tests/symbols.sh BUILD_DIR
build=${1:-build}
allowed='^(memcmp|memcpy|memmove|memset|strcmp|strlen|vsnprintf|__assert_fail|_GLOBAL_OFFSET_TABLE_|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*)$'
fail=0
if nm -u "$build/libplacement.a" | grep -q '__gcov_'; then
	echo "symbols: a coverage build (its instrumentation allocates): not checked here"
	exit 0
fi
outside=$(nm -u "$build/libplacement.a" | awk 'NF == 2 {print $2}' | grep -v '^pl_' | sort -u)
bad=$(printf '%s\n' "$outside" | grep -Ev "$allowed" | grep -v '^$')
if [ -n "$bad" ]; then
	echo "FAIL: the library calls outside functions it must not:"; printf '  %s\n' $bad; fail=1
fi
if [ "$(uname -m)" = x86_64 ] && command -v objdump >/dev/null 2>&1; then
	fp=$(objdump -d "$build/libplacement.a" |
		grep -E '\s(add|sub|mul|div|sqrt|min|max)[sp][sd]\s|cvt[a-z]*2[sp][sd]|cvt[a-z]*[sp][sd]2|u?comis[sd]|\sf(ld|st|add|mul|div)' | head -3)
	if [ -n "$fp" ]; then
		echo "FAIL: floating-point instructions in the library:"; printf '%s\n' "$fp"; fail=1
	fi
fi
if ! nm -u "$build/libplacement.a" | grep -q '__asan_'; then
	data=$(nm "$build/libplacement.a" | awk 'NF == 3 && $2 ~ /^[BbDdCGgSs]$/ {print $3}' | head -5)
	if [ -n "$data" ]; then
		echo "FAIL: writable data (global state) in the library:"; printf '  %s\n' $data; fail=1
	fi
fi
so=$(ls "$build"/libplacement.so.*.*.* 2>/dev/null | head -1)
if [ -n "$so" ]; then
	leaked=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -E '^pl__' | head -5)
	if [ -n "$leaked" ]; then
		echo "FAIL: the shared library exports internals:"; printf '  %s\n' $leaked; fail=1
	fi
	n=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -c '^pl_')
fi
[ $fail = 0 ] && echo "symbols: no floating point, no writable data; outside calls limited to $(printf '%s ' $outside | tr -s ' '); ${n:-0} pl_ functions exported, no pl__"
exit $fail
