/*
 * keyfeed.c - the first level fed one key at a time (pl__keyfeed in
 * core.h): the plan a sample of the keys gives, the checks by words
 * for keys of the first key's length (keyfeed.h holds the per-key step),
 * and the window path for any other key. order_first.c sorts with it.
 */
#include "core/keyfeed.h"
#include "core/keyplan.h"

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

/* The checks by words of keys of k0's length (keyfeed.h), once the plan
 * and its ranks (room) are set; w0 is k0's window. The level reads the
 * key's bytes [0, e): the prefix, then the window's bytes in the key. Up to
 * 32 of them, in two or four loads of 8 that stay in the key. */
static void start_words(pl__keyfeed *f, const unsigned char *w0)
{
	uint64_t len = f->k0.len, e = len < f->off + 15 ? len : f->off + 15;
	if (e < 8 || e > 32)
		return;
	int nw = e <= 16 ? 2 : 4;
	unsigned char ref[4][8], mask[4][8];
	memset(mask, 0, sizeof mask);
	for (int x = 0; x < nw; x++) {
		uint64_t at = 8 * (uint64_t)x < e - 8 ? 8 * (uint64_t)x : e - 8;
		f->fpos[x] = (uint32_t)at;
		memcpy(ref[x], f->k0.ptr + at, 8);
	}
	/* The bytes that must be k0's: the prefix, the window's constant ones. */
	uint32_t constant = ~UINT32_C(0);
	for (int j = 0; j < f->nv; j++)
		constant &= ~(UINT32_C(1) << f->vt[j]);
	for (uint64_t at = 0; at < e; at++) {
		if (at >= f->off && !((constant >> (at - f->off)) & 1))
			continue;
		for (int x = 0; x < nw; x++)
			if (at >= f->fpos[x] && at < f->fpos[x] + 8)
				mask[x][at - f->fpos[x]] = 0xff;
	}
	for (int x = 0; x < nw; x++) {
		memcpy(&f->fref[x], ref[x], 8);
		memcpy(&f->fmask[x], mask[x], 8);
	}
	/* The varying bytes in the key are read there; the rest are k0's. */
	f->fnv = 0;
	f->fbase = 0;
	for (int j = 0; j < f->nv; j++) {
		uint64_t at = f->off + (uint64_t)f->vt[j];
		if (at < e) {
			f->fp[f->fnv] = (uint32_t)at;
			f->ftab[f->fnv++] = 256u * (uint32_t)j;
		} else {
			f->fbase += f->room[256 * j + w0[f->vt[j]]];
		}
	}
	f->fwords = nw;
	f->flen = len;
}

void pl__keyfeed_start(pl__keyfeed *f, const pl__byteseq *q, uint32_t n, void *scratch, size_t direct_room)
{
	enum { S = 64 };
	memset(f, 0, sizeof *f);
	f->flen = UINT64_MAX;
	f->q = *q;
	f->scratch = scratch;
	if (n < 4096) /* room below for the tables; fewer keys are read twice */
		return;
	layout l = layout_of(scratch, n);
	uint64_t limit;
	f->ibits = index_bits(n, &limit);
	f->off = sample_prefix(q, n);
	f->k0 = pl__seq_at(q, 0);
	f->n = n;
	unsigned char sw[S][16];
	for (uint32_t j = 0; j < S; j++)
		window(sw[j], pl__seq_at(q, (uint32_t)(((uint64_t)n - 1) * j / (S - 1))), f->off);
	uint32_t vary = 0;
	for (int t = 0; t < 16; t++)
		for (uint32_t j = 1; j < S; j++)
			vary |= (uint32_t)(sw[j][t] != sw[0][t]) << t;
	plan p;
	unsigned char cm[16];
	for (int t = 0; t < 16; t++) {
		cm[t] = (vary >> t) & 1 ? 0 : 0xff;
		if (!((vary >> t) & 1))
			continue;
		memset(p.rank[t], 0, sizeof p.rank[t]);
		for (uint32_t j = 0; j < S; j++)
			mark_class(p.rank[t], t, sw[j][t]);
	}
	if (!plan_ranks(&p, vary, limit))
		return;
	digits(p.prod, &f->np, &f->width);
	f->prod = p.prod;
	f->nc = dense_range(p.prod, n) ? 0 : f->np;
	/* Direct: the table (prod <= 2n slots of 4 bytes), the tags, then the
	 * ranks, in the room given; else the words, the ranks in the copy's
	 * room, the tags and the counts (layout_of()). */
	size_t at_ranks = ((size_t)12 * n + 7) & ~(size_t)7;
	f->direct = dense_range(p.prod, n) && at_ranks + (size_t)2048 * (size_t)p.nv <= direct_room;
	uint64_t *room = f->direct ? (uint64_t *)(void *)((char *)scratch + at_ranks) : l.wtmp;
	/* Each varying byte's ranks times its multiplier, in the copy's room
	 * (n >= 4096 words: 256 for each of at most 16 bytes), a value outside
	 * the plan as 2^56: a sum of 16 terms stays below 2^61, and a key of
	 * values of the plan below 2^44. */
	f->nv = p.nv;
	for (int j = 0; j < p.nv; j++) {
		f->vt[j] = p.vt[j];
		for (int b = 0; b < 256; b++) {
			uint32_t r = p.rank[p.vt[j]][b];
			room[256 * j + b] = r & PLAN_BAD ? PL__FEED_BAD : r * p.mult[j];
		}
	}
	if (!f->direct)
		memset(l.counts, 0, (size_t)f->np * sizeof l.counts[0]);
	memcpy(&f->cv[0], sw[0], 8);
	memcpy(&f->cv[1], sw[0] + 8, 8);
	memcpy(&f->cm[0], cm, 8);
	memcpy(&f->cm[1], cm + 8, 8);
	if (f->direct) {
		f->slot = scratch;
		f->tags = (uint32_t *)(void *)((char *)scratch + (size_t)8 * n);
		memset(f->slot, 0xff, (size_t)p.prod * sizeof *f->slot); /* PL_NONE */
	} else {
		f->w = l.w;
		f->tags = l.tags;
		f->counts = l.counts;
	}
	f->room = room;
	f->live = 1;
	start_words(f, sw[0]);
}

void pl__keyfeed_collide(pl__keyfeed *f)
{
	uint32_t i = f->next;
	pl__byteseq q = f->q;
	pl__keyfeed_start(f, &q, f->n, f->scratch, 0);
	for (uint32_t x = 0; x < i && f->live; x++) {
		uint32_t t = 0;
		if (q.tag_offset != PL__NO_TAG)
			memcpy(&t, q.base + (size_t)x * q.stride + q.tag_offset, sizeof t);
		pl__keyfeed_add(f, pl__seq_at(&q, x), t);
	}
}

void pl__keyfeed_add(pl__keyfeed *f, pl_bytes b, uint32_t tag)
{
	pl__keyfeed_next(f, b, tag);
}

uint64_t pl__keyfeed_other(pl__keyfeed *f, pl_bytes b)
{
	unsigned char x[16];
	uint64_t x0, x1, key = 0;
	if (!has_prefix(b, f->k0, f->off)) {
		f->live = f->direct = 0;
		return 0;
	}
	window(x, b, f->off);
	memcpy(&x0, x, 8);
	memcpy(&x1, x + 8, 8);
	const uint64_t *room = f->room;
	const int *vt = f->vt;
	int nv = f->nv, j = 0;
	for (; j + 1 < nv; j += 2) /* two sums at a time: independent loads */
		key += room[256 * j + x[vt[j]]] + room[256 * (j + 1) + x[vt[j + 1]]];
	if (j < nv)
		key += room[256 * j + x[vt[j]]];
	if ((((x0 ^ f->cv[0]) & f->cm[0]) | ((x1 ^ f->cv[1]) & f->cm[1])) != 0 || key >= PL__FEED_BAD)
		f->live = f->direct = 0;
	return key;
}
