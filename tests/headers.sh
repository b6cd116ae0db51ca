#!/bin/sh
# headers.sh - every public header compiles on its own, as C11 under the
# strict warning set and as C++, and the umbrella header as both too.
# Usage: tests/headers.sh [CC] [CXX]
cc=${1:-cc}
cxx=${2:-c++}
fail=0
n=0
for h in include/placement.h include/placement/*.h; do
	rel=${h#include/}
	printf '#include <%s>\nint pl_headers_test_unit;\n' "$rel" > /tmp/pl_hdr_$$.c
	if ! $cc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude -fsyntax-only /tmp/pl_hdr_$$.c; then
		echo "FAIL: $rel does not compile alone as C11"; fail=1
	fi
	if command -v "$cxx" >/dev/null 2>&1; then
		if ! $cxx -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -fsyntax-only /tmp/pl_hdr_$$.c; then
			echo "FAIL: $rel does not compile alone as C++"; fail=1
		fi
	fi
	n=$((n + 1))
done
rm -f /tmp/pl_hdr_$$.c
[ $fail = 0 ] && echo "headers: $n compile alone as C11 and C++"
exit $fail
