#!/bin/sh
# headers.sh - every public header compiles on its own, as C11 under the
# strict warning set and as C++, and the umbrella header as both too;
# PL_SNAPSHOT_INIT compiles as both, and an initializer of the layout before
# pl_snapshot.version does not (with -Werror in C).
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
# PL_SNAPSHOT_INIT under the same flags, as C11 and C++; a positional
# initializer written for the layout before pl_snapshot.version (a pointer
# first) must not compile under them (snapshot.h's layout rule).
cat > /tmp/pl_hdr_$$.c <<'EOF2'
#include <placement.h>
int pl_headers_test_init(void);
int pl_headers_test_init(void)
{
	pl_snapshot s = PL_SNAPSHOT_INIT;
	return s.version == PL_SNAPSHOT_VERSION && s.members == NULL && s.n_copies == 0 ? 0 : 1;
}
EOF2
cat > /tmp/pl_hdr_old_$$.c <<'EOF2'
#include <placement.h>
int pl_headers_test_old(const pl_member *m);
int pl_headers_test_old(const pl_member *m)
{
	pl_snapshot s = {m, NULL, NULL, NULL, NULL, 1, 0, 0, 0, 0};
	return (int)s.n_members;
}
EOF2
# refused: does not compile, for the pointer put into the version (uint32_t)
refused() {
	! "$@" -Iinclude -fsyntax-only /tmp/pl_hdr_old_$$.c 2>/tmp/pl_hdr_old_$$.err &&
		grep -Eq 'uint32_t|unsigned int' /tmp/pl_hdr_old_$$.err
}
if ! $cc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude -fsyntax-only /tmp/pl_hdr_$$.c; then
	echo "FAIL: PL_SNAPSHOT_INIT does not compile as C11"; fail=1
fi
if ! refused $cc -std=c11 -Werror; then
	echo "FAIL: an old positional pl_snapshot initializer is not refused as C11 with -Werror"; fail=1
fi
if command -v "$cxx" >/dev/null 2>&1; then
	if ! $cxx -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -fsyntax-only /tmp/pl_hdr_$$.c; then
		echo "FAIL: PL_SNAPSHOT_INIT does not compile as C++"; fail=1
	fi
	if ! refused $cxx -x c++ -std=c++11; then
		echo "FAIL: an old positional pl_snapshot initializer is not refused as C++"; fail=1
	fi
fi
rm -f /tmp/pl_hdr_$$.c /tmp/pl_hdr_old_$$.c /tmp/pl_hdr_old_$$.err
[ $fail = 0 ] && echo "headers: $n compile alone as C11 and C++; PL_SNAPSHOT_INIT in both, an old initializer in neither"
exit $fail
