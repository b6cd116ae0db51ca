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
 * a 128-bit sort key, and sorts by it with LSD radix passes that skip the
 * digits every key shares. Keys equal on a level with bytes left (the low
 * byte is 16) are sorted again from 15 bytes further on; keys equal with no
 * bytes left are equal keys, reported as duplicates. Runs of 16 or fewer
 * are finished by insertion sort. Most key sets are ordered by one level, so
 * each key's bytes are read once; later levels would read them out of order,
 * which is what costs on a million keys. The first level of more than 16
 * keys is packed into integers where it can be (order_first.c).
 *
 * Every pass is stable, so equal keys keep their index order and the first
 * duplicate (the smallest index repeating an earlier key) is the same
 * whatever path the sort took. It terminates because each level consumes 15
 * bytes and keys are at most PL_MAX_ID_LEN long.
 */
#include "order_impl.h"

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

/* Stable LSD radix sort of kents by (hi, lo), skipping digits all share. */
static void radix_kent(pl__kent *a, pl__kent *tmp, uint32_t n)
{
	uint32_t count[16][256];
	memset(count, 0, sizeof count);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t lo = a[i].lo, hi = a[i].hi;
		for (int d = 0; d < 8; d++) {
			count[d][(lo >> (8 * d)) & 0xff]++;
			count[d + 8][(hi >> (8 * d)) & 0xff]++;
		}
	}
	pl__kent *src = a, *dst = tmp;
	for (int d = 0; d < 16; d++) {
		uint32_t *c = count[d];
		int sh = 8 * (d & 7);
		uint64_t first = d < 8 ? src[0].lo : src[0].hi;
		if (c[(first >> sh) & 0xff] == n)
			continue;
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++) {
			uint32_t t = c[b];
			c[b] = sum;
			sum += t;
		}
		if (d < 8)
			for (uint32_t i = 0; i < n; i++)
				dst[c[(src[i].lo >> sh) & 0xff]++] = src[i];
		else
			for (uint32_t i = 0; i < n; i++)
				dst[c[(src[i].hi >> sh) & 0xff]++] = src[i];
		pl__kent *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
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

void pl__sort_level(const pl__byteseq *q, pl__kent *a, pl__kent *tmp, uint32_t n, uint64_t off, pl__dups *d)
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
	radix_kent(a, tmp, n);
	uint32_t i = 0;
	while (i < n) {
		uint32_t j = i + 1;
		while (j < n && a[j].hi == a[i].hi && a[j].lo == a[i].lo)
			j++;
		if (j - i > 1) {
			if ((a[i].lo & 0xff) == 16)
				pl__sort_level(q, a + i, tmp + i, j - i, off + 15, d);
			else
				pl__note_dup(d, a + i); /* no bytes left: equal keys */
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
