/*
 * order.c - canonical orders: sorting ids and keys as bytes, without allocating.
 *
 * How it works. Results must not depend on the order of the snapshot's
 * arrays, so members, streams and shards are put in one canonical order:
 * their id bytes ascending (memcmp order, a shorter id before its
 * extensions). Sorting a million keys with a comparison sort costs more than
 * the rest of a tick, so keys are radix-sorted. The prefix all keys share is
 * skipped first. Each level then takes the next 15 bytes of the key,
 * big-endian, plus one byte saying how many bytes remain (capped at 16), as
 * a 128-bit sort key, and sorts by it in place with an MSD radix sort, a byte
 * a digit (American flag sort: count a digit, move each key to its bucket by
 * cycles of swaps, sort each bucket from the next digit), going straight to
 * the first digit on which a bucket's keys differ. Buckets of 16 or fewer
 * are finished by insertion sort. Keys equal on a level with bytes left (the
 * low byte is 16) are sorted again from 15 bytes further on; keys equal with
 * no bytes left are equal keys, reported as duplicates. Most key sets are
 * ordered by one level, so each key's bytes are read once; later levels
 * would read them out of order, which is what costs on a million keys. The
 * first level of more than 16 keys is packed into integers where it can be
 * (order_first.c).
 *
 * Room. In place, a level needs only the keys' entries (24 bytes a key):
 * PL__SORT_SCRATCH(n) is 36 bytes a key for the packed first level. The
 * stack: the radix sort of a level nests at most 16 deep (a digit each) and
 * its frames keep no table of their buckets (they are found again by a
 * search), so a level takes 2 KiB of counts and 16 frames of about 100
 * bytes: under 4 KiB. The levels after it nest one frame of about 150 bytes
 * each (at most 69 levels, for keys of PL_MAX_ID_LEN bytes).
 *
 * Stable. Swapping keys into their buckets does not keep the order of equal
 * ones, but only equal keys need it (distinct keys' order is total): the
 * insertion sorts break ties by index, a run of equal keys with bytes left
 * is sorted again on the next level, which orders its ties itself, and a run
 * of equal keys with none left is put in index order (a heap sort, in place,
 * no recursion). So equal keys keep their index order and the first
 * duplicate (the smallest index repeating an earlier key) is the same
 * whatever path the sort took. It terminates because each level consumes 15
 * bytes and keys are at most PL_MAX_ID_LEN long.
 */
#include "core/order_impl.h"

int pl__bytes_cmp(const char *a, uint64_t alen, const char *b, uint64_t blen)
{
	uint64_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, (size_t)n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return (alen > blen) - (alen < blen);
}

/* 8 bytes as a big-endian integer. */
static uint64_t load_be64(const unsigned char *p)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;
	memcpy(&x, p, sizeof x);
	return __builtin_bswap64(x);
#else
	uint64_t x = 0;
	for (int j = 0; j < 8; j++)
		x = (x << 8) | p[j];
	return x;
#endif
}

static void level_key(pl__kent *e, pl_bytes b, uint64_t off)
{
	uint64_t rem = b.len > off ? b.len - off : 0;
	unsigned char buf[16] = {0};
	if (rem >= 16)
		memcpy(buf, b.ptr + off, 16); /* a fixed size: no call */
	else if (rem)
		memcpy(buf, b.ptr + off, (size_t)(rem < 15 ? rem : 15));
	buf[15] = (unsigned char)(rem < 16 ? rem : 16);
	e->hi = load_be64(buf);
	e->lo = load_be64(buf + 8);
}

/* Digit d of a kent's level key, d = 0 the most significant byte of hi,
 * d = 15 the least of lo (the bytes remaining). */
static inline uint32_t digit(const pl__kent *e, int d)
{
	return (uint32_t)((d < 8 ? e->hi >> (56 - 8 * d) : e->lo >> (120 - 8 * d)) & 0xff);
}

/* Level key order, then index order: a run of equal level keys ends up in
 * index order. */
static inline int kent_before(const pl__kent *x, const pl__kent *y)
{
	if (x->hi != y->hi)
		return x->hi < y->hi;
	if (x->lo != y->lo)
		return x->lo < y->lo;
	return x->i < y->i;
}

static void insertion_kent(pl__kent *a, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		pl__kent e = a[i];
		uint32_t j = i;
		for (; j > 0 && kent_before(&e, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = e;
	}
}

/* Leading zero bits of x != 0. */
static inline int clz64(uint64_t x)
{
#if defined(__GNUC__)
	return __builtin_clzll(x);
#else
	int c = 0;
	for (; !(x >> 63); x <<= 1)
		c++;
	return c;
#endif
}

/* The first digit from d on where a[0..n) do not all agree, or 16 when
 * they are equal from d on; diff_hi, diff_lo: the bits where some key
 * differs from a[0]'s. */
static int first_varying(uint64_t diff_hi, uint64_t diff_lo, int d)
{
	uint64_t x = d < 8 ? diff_hi & (~UINT64_C(0) >> (8 * d)) : 0;
	if (x)
		return clz64(x) / 8;
	x = d < 8 ? diff_lo : diff_lo & (~UINT64_C(0) >> (8 * (d - 8)));
	return x ? 8 + clz64(x) / 8 : 16;
}

/* The end of the bucket that starts at a[s] in a[s..n), which is ordered by
 * digit d: an exponential then a binary search for the first other digit,
 * so a frame keeps no table of its buckets. */
static uint32_t bucket_end(const pl__kent *a, uint32_t s, uint32_t n, int d)
{
	uint32_t b = digit(&a[s], d), lo = s + 1, hi, step = 1;
	for (;;) { /* a[lo - 1] is in the bucket; a[hi] is not, or hi == n */
		hi = lo + step - 1;
		if (hi >= n) {
			hi = n;
			break;
		}
		if (digit(&a[hi], d) != b)
			break;
		lo = hi + 1;
		step *= 2;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (digit(&a[mid], d) == b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * In-place MSD radix sort (American flag sort) of a[0..n), n > 16, by level
 * key, from digit d (they agree on the digits before it). One pass counts
 * digit d and notes the bits where keys differ from the first: when every
 * key has the same digit d, the sort goes straight to the first digit that
 * varies (none: the keys are equal, left as they are). The keys are then
 * moved to their buckets by cycles of swaps, and each bucket of more than 16
 * is sorted from the next digit; smaller ones by insertion sort. Each call
 * consumes a digit, so it nests at most 16 deep; its frame holds no table
 * (bucket_end() finds the buckets again): count and next, 256 entries each,
 * are shared by every depth, since a frame is done with them before it
 * recurses.
 */
static void msd_kent(pl__kent *a, uint32_t n, int d, uint32_t *count, uint32_t *next)
{
	uint64_t diff_hi = 0, diff_lo = 0, hi0 = a[0].hi, lo0 = a[0].lo;
	memset(count, 0, 256 * sizeof *count);
	for (uint32_t i = 0; i < n; i++) {
		count[digit(&a[i], d)]++;
		diff_hi |= a[i].hi ^ hi0;
		diff_lo |= a[i].lo ^ lo0;
	}
	if (count[digit(&a[0], d)] == n) {
		d = first_varying(diff_hi, diff_lo, d);
		if (d == 16)
			return; /* equal level keys */
		memset(count, 0, 256 * sizeof *count);
		for (uint32_t i = 0; i < n; i++)
			count[digit(&a[i], d)]++;
	}
	/* next[b]: where bucket b's next key goes; count[b]: its end */
	uint32_t sum = 0;
	for (int b = 0; b < 256; b++) {
		next[b] = sum;
		sum += count[b];
		count[b] = sum;
	}
	for (uint32_t b = 0; b < 256; b++) {
		while (next[b] < count[b]) {
			pl__kent e = a[next[b]];
			uint32_t x = digit(&e, d);
			while (x != b) { /* e goes to bucket x; take what was there */
				pl__kent t = a[next[x]];
				a[next[x]++] = e;
				e = t;
				x = digit(&e, d);
			}
			a[next[b]++] = e;
		}
	}
	if (d == 15)
		return; /* the last digit: each bucket is equal level keys */
	for (uint32_t s = 0, e; s < n; s = e) {
		e = bucket_end(a, s, n, d);
		if (e - s > 16)
			msd_kent(a + s, e - s, d + 1, count, next);
		else
			insertion_kent(a + s, e - s);
	}
}

/* Sort a[0..n) by level key: the tables msd_kent() shares, 2 KiB of stack,
 * in a frame of their own (not inlined into the caller, whose frame stays
 * on the stack through the levels after it). The most the sort of a level
 * takes: these 2 KiB and 16 frames of msd_kent(), about 100 bytes each. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void sort_kents(pl__kent *a, uint32_t n)
{
	uint32_t count[256], next[256];
	msd_kent(a, n, 0, count, next);
}

/* A run of equal keys in index order, in place, without recursion: an
 * insertion sort when short or in order already, else a heap sort. */
static void sort_by_index(pl__kent *a, uint32_t n)
{
	uint32_t x = 1;
	while (x < n && a[x - 1].i < a[x].i)
		x++;
	if (x == n)
		return;
	if (n <= 16) {
		insertion_kent(a, n);
		return;
	}
	for (uint32_t end = n, top = n / 2;;) {
		if (top > 0) {
			top--; /* building the heap */
		} else {
			end--; /* the greatest to the end */
			pl__kent t = a[0];
			a[0] = a[end];
			a[end] = t;
			if (end == 1)
				return;
		}
		uint32_t r = top;
		for (;;) { /* sift a[r] down */
			uint32_t c = 2 * r + 1;
			if (c >= end)
				break;
			if (c + 1 < end && a[c + 1].i > a[c].i)
				c++;
			if (a[c].i < a[r].i)
				break;
			pl__kent t = a[r];
			a[r] = a[c];
			a[c] = t;
			r = c;
		}
	}
}

/* Compare two elements' bytes from off (they agree before it). */
static int bytes_from(const pl__byteseq *q, uint32_t x, uint32_t y, uint64_t off)
{
	pl_bytes a = pl__seq_at(q, x), b = pl__seq_at(q, y);
	const char *pa = a.len > off ? a.ptr + off : NULL, *pb = b.len > off ? b.ptr + off : NULL;
	return pl__bytes_cmp(pa, pa ? a.len - off : 0, pb, pb ? b.len - off : 0);
}

/* A run of equal keys a[0..n), in index order: its second element repeats
 * its first. Keep the smallest such index. */
void pl__note_dup(pl__dups *d, const pl__kent *a)
{
	if (a[1].i < d->index) {
		d->index = a[1].i;
		d->other = a[0].i;
	}
}

void pl__kent_window(pl__kent *e, const unsigned char *w)
{
	e->hi = load_be64(w);
	e->lo = load_be64(w + 8);
}

void pl__sort_level(const pl__byteseq *q, pl__kent *a, uint32_t n, uint64_t off, pl__dups *d)
{
	if (n <= 16) {
		for (uint32_t i = 1; i < n; i++) {
			pl__kent e = a[i];
			uint32_t j = i;
			while (j > 0) {
				int c = bytes_from(q, a[j - 1].i, e.i, off);
				if (c < 0 || (c == 0 && a[j - 1].i < e.i))
					break;
				a[j] = a[j - 1];
				j--;
			}
			a[j] = e;
		}
		for (uint32_t i = 1; i < n; i++)
			if (bytes_from(q, a[i - 1].i, a[i].i, off) == 0 &&
			    (i == 1 || bytes_from(q, a[i - 2].i, a[i].i, off) != 0))
				pl__note_dup(d, a + i - 1);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		level_key(&a[i], pl__seq_at(q, a[i].i), off);
	pl__sort_keyed(q, a, n, off, d);
}

void pl__sort_keyed(const pl__byteseq *q, pl__kent *a, uint32_t n, uint64_t off, pl__dups *d)
{
	if (n <= 16)
		insertion_kent(a, n);
	else
		sort_kents(a, n);
	uint32_t i = 0;
	while (i < n) {
		uint32_t j = i + 1;
		while (j < n && a[j].hi == a[i].hi && a[j].lo == a[i].lo)
			j++;
		if (j - i > 1) {
			if ((a[i].lo & 0xff) == 16) {
				pl__sort_level(q, a + i, j - i, off + 15, d);
			} else { /* no bytes left: equal keys */
				sort_by_index(a + i, j - i);
				pl__note_dup(d, a + i);
			}
		}
		i = j;
	}
}

void pl__radix_sort_u64(uint64_t *a, uint64_t *tmp, uint32_t n)
{
	uint32_t count[8][256];
	if (n < 2)
		return;
	memset(count, 0, sizeof count);
	for (uint32_t i = 0; i < n; i++)
		for (int d = 0; d < 8; d++)
			count[d][(a[i] >> (8 * d)) & 0xff]++;
	uint64_t *src = a, *dst = tmp;
	for (int d = 0; d < 8; d++) {
		uint32_t *c = count[d];
		if (c[(src[0] >> (8 * d)) & 0xff] == n)
			continue;
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++) {
			uint32_t t = c[b];
			c[b] = sum;
			sum += t;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[c[(src[i] >> (8 * d)) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
}
