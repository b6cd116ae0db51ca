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
 * each key's bytes are read about once; later levels would read them out of
 * order, which is what costs on a million keys.
 *
 * Packed first level. On the first level the 16 bytes of each key's sort key
 * rarely all vary: decimal ids use ten values of a byte, and some bytes
 * never change. Each varying byte position is replaced by the rank of its
 * value among the values present there, and the ranks are combined in mixed
 * radix (a position's rank times the product of the counts of the less
 * significant ones), which keeps the order exactly. When the product fits
 * in 32 bits, keys are sorted as 64-bit words (packed key, index) by radix
 * passes over the packed key's bytes only: a third of the bytes moved per
 * pass, and often half the passes. The key bytes are read twice (once to
 * count, once to pack) instead of being carried. Equal packed keys are equal
 * sort keys, finished as on any level.
 *
 * Every pass is stable, so equal keys keep their index order and the first
 * duplicate (the smallest index repeating an earlier key) is the same
 * whatever path the sort took. It terminates because each level consumes 15
 * bytes and keys are at most PL_MAX_ID_LEN long.
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

/* A byte-sort entry: 15 bytes of the key from the current level's offset,
 * big-endian, then one byte with the bytes remaining (capped at 16). */
typedef struct kent {
	uint64_t hi, lo;
	uint32_t i, tag;
} kent;

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

static void level_key(kent *e, pl_bytes b, uint64_t off)
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
static void radix_kent(kent *a, kent *tmp, uint32_t n)
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
	kent *src = a, *dst = tmp;
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
		kent *t = src;
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

typedef struct dups {
	uint32_t index, other;
} dups;

/* A run of equal keys a[0..n), in index order: its second element repeats
 * its first. Keep the smallest such index. */
static void note_dup(dups *d, const kent *a)
{
	if (a[1].i < d->index) {
		d->index = a[1].i;
		d->other = a[0].i;
	}
}

static void sort_level(const pl__byteseq *q, kent *a, kent *tmp, uint32_t n, uint64_t off, dups *d)
{
	if (n <= 16) {
		for (uint32_t i = 1; i < n; i++) {
			kent e = a[i];
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
				note_dup(d, a + i - 1);
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
				sort_level(q, a + i, tmp + i, j - i, off + 15, d);
			else
				note_dup(d, a + i); /* no bytes left: equal keys */
		}
		i = j;
	}
}

/*
 * The packed first level (see the top of the file) of a[0..n), n > 16, whose
 * entries hold their index and tag, at offset off. Returns 0 when it does not
 * apply (the packed key would pass 32 bits, or a run of equal keys is too
 * long for the scratch left), having changed nothing but the level keys;
 * else writes out[] (and out_tag) and the duplicates.
 */
static int sort_packed(const pl__byteseq *q, kent *a, kent *tmp, uint32_t n, uint64_t off, uint32_t *out,
		       uint32_t *out_tag, dups *d)
{
	uint32_t rank[16][256];
	memset(rank, 0, sizeof rank);
	/* The digits that vary (where some key differs from the first), then
	 * the values present at those only. */
	uint64_t vlo = 0, vhi = 0;
	for (uint32_t i = 0; i < n; i++) {
		level_key(&a[i], pl__seq_at(q, a[i].i), off);
		vlo |= a[i].lo ^ a[0].lo;
		vhi |= a[i].hi ^ a[0].hi;
	}
	for (int g = 0; g < 8; g++) {
		rank[g][(a[0].lo >> (8 * g)) & 0xff] = 1;
		rank[g + 8][(a[0].hi >> (8 * g)) & 0xff] = 1;
	}
	int md[16], nm = 0;
	for (int g = 0; g < 16; g++)
		if (((g < 8 ? vlo : vhi) >> (8 * (g & 7))) & 0xff)
			md[nm++] = g;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t word[2] = {a[i].lo, a[i].hi};
		for (int j = 0; j < nm; j++)
			rank[md[j]][(word[md[j] >= 8] >> (8 * (md[j] & 7))) & 0xff] = 1;
	}
	/* Per varying digit, from the least significant: its values' ranks
	 * and its multiplier. */
	int vd[16], nv = 0;
	uint32_t mult[16];
	uint64_t prod = 1;
	for (int g = 0; g < 16; g++) {
		uint32_t c = 0;
		for (int b = 0; b < 256; b++)
			if (rank[g][b])
				rank[g][b] = c++;
		if (c < 2)
			continue;
		if (prod * c > UINT64_C(0xffffffff))
			return 0;
		vd[nv] = g;
		mult[nv++] = (uint32_t)prod;
		prod *= c;
	}
	/* (packed key, place) words, in the first two thirds of tmp. */
	uint64_t *w = (uint64_t *)tmp, *wtmp = w + n;
	/* Each varying digit as (word, shift, its ranks pre-multiplied). */
	for (int j = 0; j < nv; j++)
		for (int b = 0; b < 256; b++)
			rank[vd[j]][b] *= mult[j];
	int vs[16], vw[16];
	for (int j = 0; j < nv; j++) {
		vs[j] = 8 * (vd[j] & 7);
		vw[j] = vd[j] >= 8;
	}
	/* The tags, packed in the last third of tmp (read at random below: 4
	 * bytes a key rather than an entry), the room for runs after them. */
	uint32_t *tags = (uint32_t *)(void *)(wtmp + n);
	size_t tag_room = ((size_t)n * sizeof *tags + 7) & ~(size_t)7;
	kent *run = (kent *)(void *)((char *)tags + tag_room);
	size_t run_room = (size_t)n * sizeof(kent) - 2 * (size_t)n * sizeof *w - tag_room;
	/* The packed keys, and the counts of each of their bytes for the
	 * passes below, in one loop. */
	uint32_t counts[4][256];
	memset(counts, 0, sizeof counts);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t word[2] = {a[i].lo, a[i].hi};
		uint32_t key = 0;
		for (int j = 0; j < nv; j++)
			key += rank[vd[j]][(word[vw[j]] >> vs[j]) & 0xff];
		w[i] = (uint64_t)key << 32 | i;
		tags[i] = a[i].tag;
		counts[0][key & 0xff]++;
		counts[1][(key >> 8) & 0xff]++;
		counts[2][(key >> 16) & 0xff]++;
		counts[3][key >> 24]++;
	}
	/* Stable LSD passes over the packed key's bytes (bits 32 and up). */
	uint64_t *src = w, *dst = wtmp;
	for (int sh = 32; sh < 64 && (prod - 1) >> (sh - 32); sh += 8) {
		uint32_t *count = counts[(sh - 32) / 8];
		uint32_t sum = 0;
		for (int b = 0; b < 256; b++) {
			uint32_t t = count[b];
			count[b] = sum;
			sum += t;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[count[(src[i] >> sh) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	/* Keys alone in their packed key are placed at once (an entry's index
	 * is its place: a[p].i == p). Runs of equal keys with bytes left are
	 * sorted from 15 bytes on in the run room: check the longest fits
	 * first (out[] is written again on the fallback). */
	uint32_t longest = 1;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && src[j] >> 32 == src[i] >> 32; j++)
			;
		if (j - i == 1) {
			uint32_t p = (uint32_t)src[i];
			PL_ASSERT(a[p].i == p);
			out[i] = p;
			if (out_tag)
				out_tag[i] = tags[p];
		}
		longest = j - i > longest ? j - i : longest;
	}
	if (longest == 1)
		return 1;
	if (2 * (size_t)longest * sizeof *run > run_room)
		return 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && src[j] >> 32 == src[i] >> 32; j++)
			;
		if (j - i == 1)
			continue;
		for (uint32_t x = i; x < j; x++)
			run[x - i] = a[(uint32_t)src[x]];
		if ((run[0].lo & 0xff) == 16)
			sort_level(q, run, run + (j - i), j - i, off + 15, d);
		else
			note_dup(d, run); /* no bytes left: equal keys, in index order */
		for (uint32_t x = i; x < j; x++) {
			out[x] = run[x - i].i;
			if (out_tag)
				out_tag[x] = run[x - i].tag;
		}
	}
	return 1;
}

uint32_t pl__sort_bytes(const pl__byteseq *q, uint32_t n, uint32_t *out, uint32_t *out_tag, void *scratch,
			uint32_t *dup_other)
{
	kent *a = scratch, *tmp = a + n;
	dups d = {PL_NONE, PL_NONE};
	/* Skip the prefix every key shares: it orders nothing. */
	/* In the same pass, each entry's index and tag. */
	uint64_t lcp = 0;
	pl_bytes k0 = {NULL, 0};
	if (n > 0) {
		k0 = pl__seq_at(q, 0);
		lcp = k0.len;
	}
	for (uint32_t i = 0; i < n; i++) {
		a[i].i = i;
		a[i].tag = 0;
		if (q->tag_offset != PL__NO_TAG)
			memcpy(&a[i].tag, q->base + (size_t)i * q->stride + q->tag_offset, sizeof a[i].tag);
		if (i == 0 || lcp == 0)
			continue;
		pl_bytes b = pl__seq_at(q, i);
		uint64_t m = b.len < lcp ? b.len : lcp, j = 0;
		if (m > 0 && memcmp(b.ptr, k0.ptr, (size_t)m) == 0) {
			lcp = m; /* the usual case, once the prefix is found */
			continue;
		}
		while (j < m && b.ptr[j] == k0.ptr[j])
			j++;
		lcp = j;
	}
	if (!(n > 16 && sort_packed(q, a, tmp, n, lcp, out, out_tag, &d))) {
		sort_level(q, a, tmp, n, lcp, &d);
		for (uint32_t i = 0; i < n; i++)
			out[i] = a[i].i;
		if (out_tag)
			for (uint32_t i = 0; i < n; i++)
				out_tag[i] = a[i].tag;
	}
	if (dup_other)
		*dup_other = d.other;
	return d.index;
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
