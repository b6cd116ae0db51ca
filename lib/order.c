/*
 * order.c - canonical orders: sorting ids and keys as bytes, without allocating.
 *
 * How it works. Results must not depend on the order of the snapshot's
 * arrays, so members, streams and shards are put in one canonical order:
 * their id bytes ascending (memcmp order, a shorter id before its
 * extensions). Sorting a million keys with a comparison sort costs more than
 * the rest of a tick, so keys are radix-sorted: each level takes 7 bytes of
 * the key, big-endian, plus one byte saying how many bytes remain (capped at
 * 8), as one 64-bit sort key. Keys equal on that level and with bytes left
 * (the low byte is 8) are sorted again from 7 bytes further on; keys equal
 * with no bytes left are equal keys. A level sorts runs of 32 or fewer by
 * insertion on the same keys, and a run of more than 64 skips the bytes all
 * its keys share (guessed from its first and last keys, checked while the
 * level keys are built), so a common "stream-" prefix costs no level. Every pass
 * is stable, so equal keys keep their index order and the first duplicate is
 * the same whatever sort path was taken.
 *
 * It terminates because each level consumes 7 bytes and keys are at most
 * PL_MAX_ID_LEN long.
 */
#include "internal.h"

int pl__bytes_cmp(const char *a, uint64_t alen, const char *b, uint64_t blen)
{
	uint64_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, (size_t)n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return (alen > blen) - (alen < blen);
}

void pl__radix_sort(pl__ent *a, pl__ent *tmp, uint32_t n)
{
	uint32_t count[8][256];
	if (n < 2)
		return;
	memset(count, 0, sizeof count);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = a[i].k;
		for (int d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xff]++;
	}
	pl__ent *src = a, *dst = tmp;
	for (int d = 0; d < 8; d++) {
		uint32_t *c = count[d];
		/* A digit every key shares orders nothing: skip the pass. */
		if (c[(src[0].k >> (8 * d)) & 0xff] == n)
			continue;
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++) {
			uint32_t t = c[b];
			c[b] = sum;
			sum += t;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[c[(src[i].k >> (8 * d)) & 0xff]++] = src[i];
		pl__ent *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
}

/* The level key of a byte range from `off`: 7 bytes big-endian, then the
 * remaining length capped at 8. */
static uint64_t level_key(pl_bytes b, uint64_t off)
{
	uint64_t k = 0;
	uint64_t rem = b.len > off ? b.len - off : 0;
	const unsigned char *p = rem ? (const unsigned char *)b.ptr + off : NULL;
	for (int j = 0; j < 7; j++)
		k = (k << 8) | (rem > (uint64_t)j ? p[j] : 0u);
	return (k << 8) | (rem < 8 ? rem : 8);
}

/* Bytes from `off` that the run's first and last keys share: a guess at
 * the prefix every key of the run shares, checked while the level keys are
 * built. */
static uint64_t guess_prefix(const pl__byteseq *q, const pl__ent *a, uint32_t n, uint64_t off)
{
	pl_bytes f = pl__seq_at(q, a[0].i), l = pl__seq_at(q, a[n - 1].i);
	uint64_t m = f.len < l.len ? f.len : l.len, j = off;
	while (j < m && f.ptr[j] == l.ptr[j])
		j++;
	return j - off;
}

/* Level keys from off + skip; 0 when some key does not share the skipped
 * bytes with the first (the caller then builds them from off). */
static int level_keys(const pl__byteseq *q, pl__ent *a, uint32_t n, uint64_t off, uint64_t skip)
{
	if (n == 0)
		return 1;
	pl_bytes f = pl__seq_at(q, a[0].i);
	for (uint32_t i = 0; i < n; i++) {
		pl_bytes b = pl__seq_at(q, a[i].i);
		if (skip && (b.len < off + skip || memcmp(b.ptr + off, f.ptr + off, (size_t)skip) != 0))
			return 0;
		a[i].k = level_key(b, off + skip);
	}
	return 1;
}

static void sort_level(const pl__byteseq *q, pl__ent *a, pl__ent *tmp, uint32_t n, uint64_t off)
{
	/* A big run whose keys share a prefix ("orders/", "stream-") skips it
	 * rather than spend a level on it. */
	uint64_t skip = n > 64 ? guess_prefix(q, a, n, off) : 0;
	if (!level_keys(q, a, n, off, skip)) {
		skip = 0;
		level_keys(q, a, n, off, 0);
	}
	off += skip;
	if (n <= 32) {
		/* Insertion sort on the level keys: stable, like the radix sort. */
		for (uint32_t i = 1; i < n; i++) {
			pl__ent e = a[i];
			uint32_t j = i;
			while (j > 0 && a[j - 1].k > e.k) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = e;
		}
	} else {
		pl__radix_sort(a, tmp, n);
	}
	uint32_t i = 0;
	while (i < n) {
		uint32_t j = i + 1;
		while (j < n && a[j].k == a[i].k)
			j++;
		if (j - i > 1 && (a[i].k & 0xff) == 8)
			sort_level(q, a + i, tmp + i, j - i, off + 7);
		i = j;
	}
}

void pl__sort_bytes(const pl__byteseq *q, uint32_t n, uint32_t *out, pl__ent *scratch)
{
	pl__ent *a = scratch, *tmp = scratch + n;
	for (uint32_t i = 0; i < n; i++) {
		a[i].i = i;
		a[i].pad = 0;
	}
	sort_level(q, a, tmp, n, 0);
	for (uint32_t i = 0; i < n; i++)
		out[i] = a[i].i;
}

uint32_t pl__first_dup(const pl__byteseq *q, const uint32_t *sorted, uint32_t n, uint32_t *other)
{
	uint32_t best = PL_NONE, best_other = PL_NONE;
	for (uint32_t j = 1; j < n; j++) {
		pl_bytes a = pl__seq_at(q, sorted[j - 1]), b = pl__seq_at(q, sorted[j]);
		if (pl__bytes_cmp(a.ptr, a.len, b.ptr, b.len) == 0 && sorted[j] < best) {
			best = sorted[j];
			best_other = sorted[j - 1];
		}
	}
	*other = best_other;
	return best;
}

static void sift_down(uint32_t *a, uint32_t root, uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		uint32_t t = a[root];
		a[root] = a[c];
		a[c] = t;
		root = c;
	}
}

void pl__sort_u32(uint32_t *a, uint32_t n)
{
	if (n < 2)
		return;
	if (n <= 16) {
		for (uint32_t i = 1; i < n; i++) {
			uint32_t e = a[i], j = i;
			while (j > 0 && a[j - 1] > e) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = e;
		}
		return;
	}
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (uint32_t end = n - 1; end > 0; end--) {
		uint32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end);
	}
}
