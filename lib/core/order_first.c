/*
 * order_first.c - the canonical key order's entry points and its first level,
 * packed (order.c holds the byte levels after it, keyfeed.c the feed of
 * the keys one at a time, keyplan.h what the two share).
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
 * Equal packed keys are equal level keys, finished as on any level. When
 * the packed keys lie in a range of at most two a key (ids that take every
 * value of their digits, or most: a stream and partition grid), a table of
 * the range replaces the passes: each key's index to its slot, the slots
 * read in order. A slot met twice sends the keys to the passes.
 *
 * From a sample. For 4,096 keys or more, the plan (which bytes vary, and the
 * values each may take: the classes of the values a sample of 64 keys shows,
 * such as the ten digits) is made first, and each key is packed in the one
 * read of it, checked to fit the plan: the level keys are not stored. The
 * first key that does not fit (a byte the sample saw constant that varies, a
 * value of another class) sends the sort to the windows above.
 *
 * Truncated. When the values present of the varying bytes multiply past
 * the 40 bits (UUIDs, hashes in hex, names of many lengths), the packed key
 * keeps the leading varying bytes whose product fits (truncate_plan()): it
 * orders the keys by their first `cut` window bytes, and the keys equal on
 * those form runs, which are finished from their next window, taken for all
 * of them in one read of the keys in index order (finish_truncated()). A
 * random id's first ten hex digits tell a million apart, so its runs are
 * few.
 *
 * When a run of equal packed keys is longer than the room left, the sort
 * goes to the byte levels (order.c), whose first level keys are the windows
 * already taken: the keys are not read again.
 *
 * Nothing is allocated: the caller's scratch holds every array, and the
 * plans are on the stack.
 */
#include "core/keyfeed.h"
#include "core/keyplan.h"

#if defined(__SSE2__) && !defined(PL_NO_SSE2) /* PL_NO_SSE2: the portable path, to test it */
#include <emmintrin.h>
#define PL__SSE2 1
#else
#define PL__SSE2 0
#endif

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
		pl__seq_prefetch(q, i + 16, n);
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

/* When the values present of the varying bytes pass the limit (their
 * counts' product), keep only the leading ones whose product stays within
 * it: the packed key then orders the keys by their first `cut` window bytes
 * (the return), and keys equal on those are sorted again as a run. Random
 * ids (UUIDs, hashes in hex) differ within their first ten hex digits, so
 * runs are rare. 16 when every varying byte fits. */
static int truncate_plan(const plan *p, uint32_t *vary, uint64_t limit)
{
	uint64_t prod = 1;
	for (int t = 0; t < 16; t++) {
		if (!((*vary >> t) & 1))
			continue;
		uint32_t c = 0;
		for (int b = 0; b < 256; b++)
			c += p->rank[t][b] != 0;
		if (prod > limit / c) {
			*vary &= (UINT32_C(1) << t) - 1;
			return t;
		}
		prod *= c;
	}
	return 16;
}

/* Do the n keys of a run hold at least `end` bytes each? Then, equal in
 * their windows' first bytes up to end, they agree on those bytes of the key
 * itself (a shorter key's window is padded with zeros). */
static int run_agrees(const pl__byteseq *q, const pl__kent *run, uint32_t n, uint64_t end)
{
	for (uint32_t x = 0; x < n; x++)
		if (pl__seq_at(q, run[x].i).len < end)
			return 0;
	return 1;
}

/* The runs of equal packed keys that a truncated plan left (keys equal in
 * their first `cut` window bytes), sorted without reading a key out of
 * order: each run's keys are marked in their windows' last byte (0xff when
 * every key of the run holds the cut bytes, so that they agree on them and
 * the run goes on from off + cut; 0xfe when one ends before, and the run
 * starts again at off; out[] at the run's first place keeps which, until
 * the run is sorted), then one pass over the keys in index order takes
 * the window of each marked key at its run's offset, and each run, as level
 * keys from those windows, is sorted in `room` (the passes' spare buffer:
 * 8 bytes a key, so a run of up to a third of the keys). */
static void finish_truncated(const pl__byteseq *q, const layout *l, const uint64_t *src, pl__kent *room, uint32_t n,
			     int ibits, uint64_t off, uint32_t cut, uint32_t *out, uint32_t *out_tag, pl__dups *d)
{
	uint64_t imask = (UINT64_C(1) << ibits) - 1;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && src[j] >> ibits == src[i] >> ibits; j++)
			;
		if (j - i == 1)
			continue;
		unsigned char mark = 0xff;
		for (uint32_t x = i; x < j; x++)
			if (l->win[src[x] & imask][15] < cut) /* the bytes it holds past off, capped at 16 */
				mark = 0xfe;
		for (uint32_t x = i; x < j; x++)
			l->win[src[x] & imask][15] = mark;
		out[i] = mark == 0xff; /* kept for the sort of the run, which writes out[i..j) */
	}
	for (uint32_t p = 0; p < n; p++) {
		if (l->win[p][15] < 0xfe)
			continue;
		pl__seq_prefetch(q, p + 16, n);
		window(l->win[p], pl__seq_at(q, p), l->win[p][15] == 0xff ? off + cut : off);
	}
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && src[j] >> ibits == src[i] >> ibits; j++)
			;
		if (j - i == 1)
			continue;
		uint64_t at = out[i] ? off + cut : off;
		for (uint32_t x = i; x < j; x++) {
			uint32_t p = (uint32_t)(src[x] & imask);
			pl__kent e = {0, 0, p, l->tags[p]};
			pl__kent_window(&e, l->win[p]);
			room[x - i] = e;
		}
		pl__sort_keyed(q, room, j - i, at, d);
		for (uint32_t x = i; x < j; x++) {
			out[x] = room[x - i].i;
			if (out_tag)
				out_tag[x] = room[x - i].tag;
		}
	}
}

/* The keys in order from a table of their packed range: slot k the index
 * of the key whose packed key is k, or PL_NONE. */
static void read_slots(const uint32_t *slot, const uint32_t *tags, uint64_t prod, uint32_t *out, uint32_t *out_tag)
{
	uint32_t r = 0;
	for (uint64_t k = 0; k < prod; k++) {
		uint32_t i = slot[k];
		if (i == PL_NONE)
			continue;
		out[r] = i;
		if (out_tag)
			out_tag[r] = tags[i];
		r++;
	}
}

/* Packed keys of a range of at most two a key (prod <= 2n, as decimal ids
 * numbered from 0 give): key k's index goes to slot k of a table of the
 * range (in the copy's room, 8 bytes a key), and a read of the table in
 * order gives the keys sorted: no radix pass. Returns 0 at the first key
 * whose slot is taken (a run of equal packed keys, or a duplicate), having
 * written nothing the passes read (the copy is their output), else writes
 * out[] (and out_tag): the keys are distinct, so there is no duplicate. A
 * direct feed fills the table itself (keyfeed.c). */
static int dense(const layout *l, uint32_t n, int ibits, uint64_t prod, uint32_t *out, uint32_t *out_tag)
{
	uint32_t *slot = (uint32_t *)(void *)l->wtmp;
	const uint64_t *w = l->w;
	memset(slot, 0xff, (size_t)prod * sizeof *slot); /* PL_NONE */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = w[i] >> ibits; /* word i holds index i */
		if (slot[k] != PL_NONE)
			return 0;
		slot[k] = i;
	}
	read_slots(slot, l->tags, prod, out, out_tag);
	return 1;
}

/*
 * The packed first level (see the top of the file) of keys 0..n-1, n > 16,
 * from the words a feed made when it holds them all (else by the windows,
 * or first by a feed of its own when fed is NULL). Returns 0 when it does
 * not apply (the packed key and the index would pass 64 bits, or a run of
 * equal keys is too long for the scratch left), having written nothing the
 * caller reads, and *win_off the prefix every key shares when the windows
 * of the keys at it are left in the scratch (else NO_WINDOWS); else writes
 * out[] (and out_tag) and the duplicates.
 */
#define NO_WINDOWS UINT64_MAX
static int sort_first(const pl__byteseq *q, uint32_t n, uint32_t *out, uint32_t *out_tag, void *scratch,
		      const pl__keyfeed *fed, pl__dups *d, uint64_t *win_off)
{
	*win_off = NO_WINDOWS;
	layout l = layout_of(scratch, n);
	uint64_t limit;
	int ibits = index_bits(n, &limit);
	uint32_t lcounts[4][1024], (*counts)[1024] = l.counts;
	int np, width, counted = 1, cut = 16; /* cut: the first window byte a truncated plan leaves out */
	uint64_t off, prod;
	pl__keyfeed own;
	if (fed == NULL) { /* a sample's plan, when it holds for every key */
		pl__keyfeed_start(&own, q, n, scratch, PL__SORT_SCRATCH(n));
		for (uint32_t i = 0; i < n && own.live; i++) {
			uint32_t tag = 0;
			if (q->tag_offset != PL__NO_TAG)
				memcpy(&tag, q->base + (size_t)i * q->stride + q->tag_offset, sizeof tag);
			pl__keyfeed_add(&own, pl__seq_at(q, i), tag);
		}
		fed = &own;
	}
	if (fed->direct && fed->next == n) { /* the table is filled (direct: live): distinct keys */
		read_slots(fed->slot, fed->tags, fed->prod, out, out_tag);
		return 1;
	}
	if (fed->live && fed->next == n) {
		np = fed->np;
		width = fed->width;
		off = fed->off;
		prod = fed->prod;
		counted = fed->nc == np;
	} else {
		plan pl;
		unsigned char lo[16], hi[16];
		off = sample_prefix(q, n);
		if (!fill_windows(q, n, off, 1, l.win, l.tags, lo, hi)) {
			off = common_prefix(q, n);
			fill_windows(q, n, off, 0, l.win, l.tags, lo, hi);
		}
		/* Every key has the sample's prefix, which is at least the one
		 * they all share: the windows are at that one, exactly. */
		*win_off = off;
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
						pl.rank[t][l.win[i][t]] = 1;
			cut = truncate_plan(&pl, &vary, limit); /* UUIDs: the leading bytes */
			if (!plan_ranks(&pl, vary, limit))
				return 0;
		}
		digits(pl.prod, &np, &width);
		prod = pl.prod;
		counts = lcounts; /* the windows hold the counts' room */
		memset(counts, 0, (size_t)np * sizeof counts[0]);
		uint32_t mask = (UINT32_C(1) << width) - 1, bad = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t key = pack(&pl, l.win[i], &bad);
			l.w[i] = key << ibits | i;
			for (int x = 0; x < np; x++)
				counts[x][(key >> (x * width)) & mask]++;
		}
		PL_ASSERT(bad == 0);
	}
	if (dense_range(prod, n) && dense(&l, n, ibits, prod, out, out_tag))
		return 1;
	uint32_t mask = (UINT32_C(1) << width) - 1;
	if (!counted) /* a dense range the feed did not count: a key met twice */
		for (uint32_t i = 0; i < n; i++)
			for (int x = 0; x < np; x++)
				counts[x][(l.w[i] >> (ibits + x * width)) & mask]++;
	/* Stable LSD passes: equal keys stay in index order. */
	uint64_t *src = l.w, *dst = l.wtmp;
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
	uint64_t imask = (UINT64_C(1) << ibits) - 1, prev = src[0] >> ibits;
	uint32_t longest = 1, start = 0;
	for (uint32_t i = 1; i <= n; i++) { /* each key against the one before */
		if (i < n && src[i] >> ibits == prev)
			continue;
		if (i - start == 1) {
			uint32_t p = (uint32_t)(src[start] & imask);
			out[start] = p;
			if (out_tag)
				out_tag[start] = l.tags[p];
		}
		longest = i - start > longest ? i - start : longest;
		start = i;
		prev = i < n ? src[i] >> ibits : 0;
	}
	if (longest == 1)
		return 1;
	if (cut < 16 && (size_t)longest * sizeof(pl__kent) <= (size_t)n * sizeof *dst) {
		finish_truncated(q, &l, src, (pl__kent *)(void *)dst, n, ibits, off, (uint32_t)cut, out, out_tag, d);
		*win_off = NO_WINDOWS; /* the windows now hold the runs' next ones */
		return 1;
	}
	if ((size_t)longest * sizeof *l.run > l.run_room)
		return 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && src[j] >> ibits == src[i] >> ibits; j++)
			;
		if (j - i == 1)
			continue;
		pl__kent *run = l.run;
		for (uint32_t x = i; x < j; x++) {
			uint32_t p = (uint32_t)(src[x] & imask);
			run[x - i].i = p;
			run[x - i].tag = l.tags[p];
		}
		pl_bytes b = pl__seq_at(q, run[0].i);
		if (cut < 16)
			pl__sort_level(q, run, j - i, run_agrees(q, run, j - i, off + cut) ? off + cut : off, d);
		else if (b.len > off && b.len - off >= 16) /* a window's bytes remaining: 16 */
			pl__sort_level(q, run, j - i, off + 15, d);
		else
			pl__note_dup(d, run); /* no bytes left: equal keys, in index order */
		for (uint32_t x = i; x < j; x++) {
			out[x] = run[x - i].i;
			if (out_tag)
				out_tag[x] = run[x - i].tag;
		}
	}
	return 1;
}

uint32_t pl__sort_fed(const pl__byteseq *q, uint32_t n, const pl__keyfeed *fed, uint32_t *out, uint32_t *out_tag,
		      void *scratch, uint32_t *dup_other)
{
	pl__dups d = {PL_NONE, PL_NONE};
	uint64_t win_off = NO_WINDOWS;
	if (!(n > 16 && sort_first(q, n, out, out_tag, scratch, fed, &d, &win_off))) {
		/* Byte levels from the prefix every key shares (it orders
		 * nothing), in place in the scratch: 24 bytes a key. When the
		 * first level left the keys' windows at that prefix, they are
		 * the level keys: no key is read again. Entry i ends before
		 * window i + 1 starts (24 (i + 1) <= 20 n + 16 (i + 1)), so
		 * each window is read before an entry covers it. */
		pl__kent *a = scratch;
		unsigned char (*win)[16] = win_off != NO_WINDOWS ? layout_of(scratch, n).win : NULL;
		uint64_t lcp = win_off != NO_WINDOWS ? win_off : n > 0 ? common_prefix(q, n) : 0;
		for (uint32_t i = 0; i < n; i++) {
			pl__kent e = {0, 0, i, 0};
			if (win_off != NO_WINDOWS) {
				unsigned char w[16];
				memcpy(w, win[i], sizeof w);
				pl__kent_window(&e, w);
			}
			if (q->tag_offset != PL__NO_TAG)
				memcpy(&e.tag, q->base + (size_t)i * q->stride + q->tag_offset, sizeof e.tag);
			a[i] = e;
		}
		d.index = d.other = PL_NONE;
		if (win_off != NO_WINDOWS)
			pl__sort_keyed(q, a, n, lcp, &d);
		else
			pl__sort_level(q, a, n, lcp, &d);
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

uint32_t pl__sort_bytes(const pl__byteseq *q, uint32_t n, uint32_t *out, uint32_t *out_tag, void *scratch,
			uint32_t *dup_other)
{
	return pl__sort_fed(q, n, NULL, out, out_tag, scratch, dup_other);
}
