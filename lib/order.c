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
 * which is what costs on a million keys.
 *
 * Packed first level. The first level is done in one read of the keys: the
 * shared prefix is bounded from a sample of 33 keys and checked against each
 * key as its level key is taken (when one lacks it, the prefix is found
 * exactly and the keys read again), and each of the 16 bytes of the level
 * key is tracked for its least and greatest value. Those bytes rarely all
 * vary, and decimal ids use ten values of a byte: each varying byte is
 * replaced by its value less the least (or, when the ranges are too wide,
 * by the rank of its value among those present, a second read of the level
 * keys), and the bytes are combined in mixed radix (a byte's value times the
 * product of the ranges of the less significant ones), which keeps the order
 * exactly. When that packed key and the index fit one 64-bit word (the key
 * in at most 40 bits), the words are sorted by LSD radix passes of at most
 * 10 bits over the packed key only: two passes for a million decimal ids.
 * Equal packed keys are equal level keys, finished as on any level.
 *
 * From a sample. For 4,096 keys or more, the plan (which bytes vary, and the
 * values each may take: the classes of the values a sample of 64 keys shows,
 * such as the ten digits) is made first, and each key is packed in the one
 * read of it, checked to fit the plan: the level keys are not stored. The
 * first key that does not fit (a byte the sample saw constant that varies, a
 * value of another class) sends the sort to the windows above.
 *
 * Every pass is stable, so equal keys keep their index order and the first
 * duplicate (the smallest index repeating an earlier key) is the same
 * whatever path the sort took. It terminates because each level consumes 15
 * bytes and keys are at most PL_MAX_ID_LEN long.
 */
#include "internal.h"

#if defined(__SSE2__) && !defined(PL_NO_SSE2) /* PL_NO_SSE2: the portable path, to test it */
#include <emmintrin.h>
#define PL__SSE2 1
#else
#define PL__SSE2 0
#endif

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

/* The first level's window of a key at off: level_key()'s 16 bytes in memory
 * order (bytes [off, off + 15) zero-padded, then the bytes remaining capped
 * at 16), copied with fixed-size moves (no call for a short key). */
static void window(unsigned char *w, pl_bytes b, uint64_t off)
{
	uint64_t rem = b.len > off ? b.len - off : 0;
	if (rem >= 16) {
		memcpy(w, b.ptr + off, 16);
		w[15] = 16;
		return;
	}
	memset(w, 0, 16);
	const char *p = rem ? b.ptr + off : NULL;
	size_t m = (size_t)(rem < 15 ? rem : 15);
	if (m >= 8) {
		memcpy(w, p, 8); /* two overlapping moves cover 8..15 bytes */
		memcpy(w + m - 8, p + m - 8, 8);
	} else if (m >= 4) {
		memcpy(w, p, 4);
		memcpy(w + m - 4, p + m - 4, 4);
	} else {
		for (size_t j = 0; j < m; j++)
			w[j] = (unsigned char)p[j];
	}
	w[15] = (unsigned char)rem;
}

/* Does key b start with the off bytes of k0? Up to 8 bytes as one word
 * compared under a mask of their bytes, when b has 8. */
static int has_prefix(pl_bytes b, pl_bytes k0, uint64_t off)
{
	if (off == 0)
		return 1;
	if (b.len < off)
		return 0;
	if (off <= 8 && b.len >= 8 && k0.len >= 8) {
		static const unsigned char ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
		uint64_t x, y, m;
		memcpy(&x, b.ptr, 8);
		memcpy(&y, k0.ptr, 8);
		memcpy(&m, ones + 8 - off, 8);
		return ((x ^ y) & m) == 0;
	}
	return memcmp(b.ptr, k0.ptr, (size_t)off) == 0;
}

/* The prefix all n keys share: a bound from a sample of them first (the
 * shared prefix of all is at most theirs), then checked against each. */
static uint64_t sample_prefix(const pl__byteseq *q, uint32_t n)
{
	pl_bytes k0 = pl__seq_at(q, 0);
	uint64_t lcp = k0.len;
	for (uint32_t j = 1; j <= 32 && lcp > 0; j++) {
		pl_bytes b = pl__seq_at(q, (uint32_t)(((uint64_t)n - 1) * j / 32));
		uint64_t m = b.len < lcp ? b.len : lcp, x = 0;
		while (x < m && b.ptr[x] == k0.ptr[x])
			x++;
		lcp = x;
	}
	return lcp;
}

/* The prefix all n keys share, exactly. */
static uint64_t common_prefix(const pl__byteseq *q, uint32_t n)
{
	pl_bytes k0 = pl__seq_at(q, 0);
	uint64_t lcp = k0.len;
	for (uint32_t i = 1; i < n && lcp > 0; i++) {
		pl_bytes b = pl__seq_at(q, i);
		if (has_prefix(b, k0, lcp))
			continue; /* the usual case, once the prefix is found */
		uint64_t m = b.len < lcp ? b.len : lcp, x = 0;
		while (x < m && b.ptr[x] == k0.ptr[x])
			x++;
		lcp = x;
	}
	return lcp;
}

/* Each key's window at off and its tag, with the least and greatest value
 * of each window byte (the least is stored inverted, so both are maxima).
 * With `check`, 0 as soon as a key does not start with k0's off bytes. */
static int fill_windows(const pl__byteseq *q, uint32_t n, uint64_t off, int check, unsigned char (*win)[16],
			uint32_t *tags, unsigned char lo[16], unsigned char hi[16])
{
	pl_bytes k0 = pl__seq_at(q, 0);
	int tagged = q->tag_offset != PL__NO_TAG;
#if PL__SSE2
	__m128i mn = _mm_set1_epi8(-1), mx = _mm_setzero_si128();
#else
	uint64_t and0 = ~UINT64_C(0), and1 = ~UINT64_C(0), or0 = 0, or1 = 0;
#endif
	for (uint32_t i = 0; i < n; i++) {
		pl_bytes b = pl__seq_at(q, i);
		if (tagged)
			memcpy(&tags[i], q->base + (size_t)i * q->stride + q->tag_offset, sizeof tags[i]);
		if (check && !has_prefix(b, k0, off))
			return 0;
		window(win[i], b, off);
#if PL__SSE2
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)win[i]);
		mn = _mm_min_epu8(mn, x);
		mx = _mm_max_epu8(mx, x);
#else
		/* Bytewise, the and of the values is at most each, the or at
		 * least each: a range holding them all. */
		uint64_t x0, x1;
		memcpy(&x0, win[i], 8);
		memcpy(&x1, win[i] + 8, 8);
		and0 &= x0;
		and1 &= x1;
		or0 |= x0;
		or1 |= x1;
#endif
	}
#if PL__SSE2
	_mm_storeu_si128((__m128i *)(void *)lo, mn);
	_mm_storeu_si128((__m128i *)(void *)hi, mx);
#else
	memcpy(lo, &and0, 8);
	memcpy(lo + 8, &and1, 8);
	memcpy(hi, &or0, 8);
	memcpy(hi + 8, &or1, 8);
#endif
	return 1;
}

/* How level keys are packed: for each varying byte (from the least
 * significant, byte 15), its place, its multiplier, and each value's rank
 * (PLAN_BAD for a value the plan does not hold). */
#define PLAN_BAD 0x8000u
typedef struct plan {
	int nv, vt[16];
	uint64_t mult[16], prod;
	uint16_t rank[16][256];
} plan;

/* Turn the values marked non-zero in rank[t] of each byte t in `vary` into
 * ranks, and their counts into multipliers: 0 when their product passes
 * limit. */
static int plan_ranks(plan *p, uint32_t vary, uint64_t limit)
{
	p->nv = 0;
	p->prod = 1;
	for (int t = 15; t >= 0; t--) {
		if (!((vary >> t) & 1))
			continue;
		uint32_t c = 0;
		for (int b = 0; b < 256; b++)
			p->rank[t][b] = p->rank[t][b] ? (uint16_t)c++ : (uint16_t)PLAN_BAD;
		p->vt[p->nv] = t;
		p->mult[p->nv++] = p->prod;
		p->prod = p->prod > limit / c ? limit + 1 : p->prod * c;
	}
	return p->prod <= limit;
}

/* A window's packed key; a value the plan does not hold sets PLAN_BAD in
 * *bad. */
static uint64_t pack(const plan *p, const unsigned char *w, uint32_t *bad)
{
	uint64_t key = 0;
	uint32_t f = 0;
	for (int j = 0; j < p->nv; j++) {
		uint32_t r = p->rank[p->vt[j]][w[p->vt[j]]];
		f |= r;
		key += r * p->mult[j];
	}
	*bad |= f & PLAN_BAD;
	return key;
}

/* Radix digits over a packed key below prod: *np of *width bits, at most 10
 * bits each (four digits for the 40 bits a key may have). */
static void digits(uint64_t prod, int *np, int *width)
{
	int kbits = 0;
	while (kbits < 64 && (prod - 1) >> kbits)
		kbits++;
	*np = (kbits + 9) / 10;
	*width = *np ? (kbits + *np - 1) / *np : 0;
}

/* Mark the values of byte t that a sample's value v stands for: its class
 * (the decimal digits, a-f, g-z, A-F, G-Z, or the bytes remaining 0..16 of
 * byte 15), else itself. */
static void mark_class(uint16_t *rank, int t, uint32_t v)
{
	uint32_t lo = v, hi = v;
	if (t == 15)
		lo = 0, hi = 16;
	else if (v >= '0' && v <= '9')
		lo = '0', hi = '9';
	else if (v >= 'a' && v <= 'z')
		lo = v <= 'f' ? 'a' : 'g', hi = v <= 'f' ? 'f' : 'z';
	else if (v >= 'A' && v <= 'Z')
		lo = v <= 'F' ? 'A' : 'G', hi = v <= 'F' ? 'F' : 'Z';
	for (uint32_t b = lo; b <= hi; b++)
		rank[b] = 1;
}

/* Keys from a sample only: windows of 64 keys at off, the bytes that vary
 * among them ranked by the classes of their values, those that do not in
 * cv under the mask cm. Each key is then packed in the one read of it,
 * checked to start with the prefix, agree on the constant bytes and hold
 * only values of the classes; 0 at the first that does not (the keys are
 * then read as windows), else the words w[], the radix digits (*np of
 * *width bits) and their counts. */
static int pack_from_sample(const pl__byteseq *q, uint32_t n, uint64_t off, plan *p, uint64_t limit, int ibits,
			    uint64_t *w, uint64_t *room, uint32_t *tags, int *np, int *width, uint32_t (*counts)[1024])
{
	enum { S = 64 };
	unsigned char sw[S][16];
	for (uint32_t j = 0; j < S; j++)
		window(sw[j], pl__seq_at(q, (uint32_t)(((uint64_t)n - 1) * j / (S - 1))), off);
	uint32_t vary = 0;
	for (int t = 0; t < 16; t++)
		for (uint32_t j = 1; j < S; j++)
			vary |= (uint32_t)(sw[j][t] != sw[0][t]) << t;
	unsigned char cm[16];
	for (int t = 0; t < 16; t++) {
		cm[t] = (vary >> t) & 1 ? 0 : 0xff;
		if (!((vary >> t) & 1))
			continue;
		memset(p->rank[t], 0, sizeof p->rank[t]);
		for (uint32_t j = 0; j < S; j++)
			mark_class(p->rank[t], t, sw[j][t]);
	}
	if (!plan_ranks(p, vary, limit))
		return 0;
	digits(p->prod, np, width);
	/* Each varying byte's ranks times its multiplier, in `room` (n >= 4096
	 * words: 256 for each of at most 16 bytes), a value outside the plan
	 * as 2^56: a sum of 16 terms stays below 2^61, and a key holding only
	 * values of the plan below 2^44. */
	const uint64_t badv = UINT64_C(1) << 56;
	int nv = p->nv, vt[16];
	for (int j = 0; j < nv; j++) {
		vt[j] = p->vt[j];
		for (int b = 0; b < 256; b++) {
			uint32_t r = p->rank[vt[j]][b];
			room[256 * j + b] = r & PLAN_BAD ? badv : r * p->mult[j];
		}
	}
	int nd = *np, wd = *width;
	memset(counts, 0, (size_t)nd * sizeof counts[0]);
	uint64_t cv0, cv1, cm0, cm1;
	memcpy(&cv0, sw[0], 8);
	memcpy(&cv1, sw[0] + 8, 8);
	memcpy(&cm0, cm, 8);
	memcpy(&cm1, cm + 8, 8);
	pl_bytes k0 = pl__seq_at(q, 0);
	int tagged = q->tag_offset != PL__NO_TAG;
	uint32_t mask = (UINT32_C(1) << wd) - 1;
	for (uint32_t i = 0; i < n; i++) {
		pl_bytes b = pl__seq_at(q, i);
		if (tagged)
			memcpy(&tags[i], q->base + (size_t)i * q->stride + q->tag_offset, sizeof tags[i]);
		if (!has_prefix(b, k0, off))
			return 0;
		unsigned char x[16];
		uint64_t x0, x1;
		window(x, b, off);
		memcpy(&x0, x, 8);
		memcpy(&x1, x + 8, 8);
		uint64_t key = 0;
		for (int j = 0; j < nv; j++)
			key += room[256 * j + x[vt[j]]];
		if ((((x0 ^ cv0) & cm0) | ((x1 ^ cv1) & cm1)) != 0 || key >= badv)
			return 0;
		w[i] = key << ibits | i;
		for (int d = 0; d < nd; d++)
			counts[d][(key >> (d * wd)) & mask]++;
	}
	return 1;
}

/*
 * The packed first level (see the top of the file) of keys 0..n-1, n > 16.
 * Returns 0 when it does not apply (the packed key and the index would pass
 * 64 bits, or a run of equal keys is too long for the scratch left), having
 * written nothing the caller reads; else writes out[] (and out_tag) and the
 * duplicates.
 */
static int sort_first(const pl__byteseq *q, uint32_t n, uint32_t *out, uint32_t *out_tag, void *scratch,
		      dups *d)
{
	/* The scratch (6 words a key): the (packed key, index) words and their
	 * copy, the tags, the windows; the runs reuse the windows' room. */
	uint64_t *w = scratch, *wtmp = w + n;
	uint32_t *tags = (uint32_t *)(void *)(wtmp + n);
	unsigned char (*win)[16] = (unsigned char (*)[16])(void *)(wtmp + n + (n + 1) / 2);
	kent *run = (kent *)(void *)win;
	size_t run_room = (size_t)(6 * (uint64_t)n - 2 * (uint64_t)n - (n + 1) / 2) * sizeof *w;
	/* The index takes the low bits of a word, the packed key the rest, up
	 * to 40 bits. */
	int ibits = 1;
	while (ibits < 32 && ((uint64_t)n - 1) >> ibits)
		ibits++;
	uint64_t limit = UINT64_C(1) << (64 - ibits < 40 ? 64 - ibits : 40);
	plan pl;
	uint32_t counts[4][1024];
	int np, width;
	uint64_t off = sample_prefix(q, n);
	int packed = 0;
	if (n >= 4096) /* a sample's plan, when it holds for every key */
		packed = pack_from_sample(q, n, off, &pl, limit, ibits, w, wtmp, tags, &np, &width, counts);
	if (!packed) {
		unsigned char lo[16], hi[16];
		if (!fill_windows(q, n, off, 1, win, tags, lo, hi)) {
			off = common_prefix(q, n);
			fill_windows(q, n, off, 0, win, tags, lo, hi);
		}
		/* Each varying byte's values by their range; when the ranges'
		 * product passes the limit, by the values present. */
		uint32_t vary = 0;
		for (int t = 0; t < 16; t++) {
			if (hi[t] == lo[t])
				continue;
			vary |= UINT32_C(1) << t;
			memset(pl.rank[t], 0, sizeof pl.rank[t]);
			for (uint32_t b = lo[t]; b <= hi[t]; b++)
				pl.rank[t][b] = 1;
		}
		if (!plan_ranks(&pl, vary, limit)) {
			for (int t = 0; t < 16; t++)
				if ((vary >> t) & 1)
					memset(pl.rank[t], 0, sizeof pl.rank[t]);
			for (uint32_t i = 0; i < n; i++)
				for (int t = 0; t < 16; t++)
					if ((vary >> t) & 1)
						pl.rank[t][win[i][t]] = 1;
			if (!plan_ranks(&pl, vary, limit))
				return 0;
		}
		digits(pl.prod, &np, &width);
		memset(counts, 0, (size_t)np * sizeof counts[0]);
		uint32_t mask = (UINT32_C(1) << width) - 1, bad = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t key = pack(&pl, win[i], &bad);
			w[i] = key << ibits | i;
			for (int x = 0; x < np; x++)
				counts[x][(key >> (x * width)) & mask]++;
		}
		PL_ASSERT(bad == 0);
	}
	uint32_t mask = (UINT32_C(1) << width) - 1;
	/* Stable LSD passes: equal keys stay in index order. */
	uint64_t *src = w, *dst = wtmp;
	for (int x = 0; x < np; x++) {
		uint32_t *count = counts[x], sum = 0;
		int sh = ibits + x * width;
		for (uint32_t b = 0; b <= mask; b++) {
			uint32_t t = count[b];
			count[b] = sum;
			sum += t;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[count[(src[i] >> sh) & mask]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	/* Keys alone in their packed key are placed at once. Runs of equal
	 * keys with bytes left are sorted from 15 bytes on in the run room
	 * (the windows are not read again): check the longest fits first. */
	uint64_t imask = (UINT64_C(1) << ibits) - 1;
	uint32_t longest = 1;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && src[j] >> ibits == src[i] >> ibits; j++)
			;
		if (j - i == 1) {
			uint32_t p = (uint32_t)(src[i] & imask);
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
		for (j = i + 1; j < n && src[j] >> ibits == src[i] >> ibits; j++)
			;
		if (j - i == 1)
			continue;
		for (uint32_t x = i; x < j; x++) {
			uint32_t p = (uint32_t)(src[x] & imask);
			run[x - i].i = p;
			run[x - i].tag = tags[p];
		}
		pl_bytes b = pl__seq_at(q, run[0].i);
		if (b.len > off && b.len - off >= 16) /* a window's bytes remaining: 16 */
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
	dups d = {PL_NONE, PL_NONE};
	if (!(n > 16 && sort_first(q, n, out, out_tag, scratch, &d))) {
		/* Byte levels from the prefix every key shares (it orders
		 * nothing). */
		kent *a = scratch, *tmp = a + n;
		uint64_t lcp = n > 0 ? common_prefix(q, n) : 0;
		for (uint32_t i = 0; i < n; i++) {
			a[i].i = i;
			a[i].tag = 0;
			if (q->tag_offset != PL__NO_TAG)
				memcpy(&a[i].tag, q->base + (size_t)i * q->stride + q->tag_offset, sizeof a[i].tag);
		}
		d.index = d.other = PL_NONE;
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
