/*
 * state.h - one shard's state in a view (its replicas packed three to a
 * word, its leader's place, its override, its flags) and one per-stream
 * leader cell, with their accessors: what view_int.h's view is made of.
 * Included by view_int.h only.
 */
#ifndef PLACEMENT_STATE_H
#define PLACEMENT_STATE_H

#include <stdint.h>
#include <string.h>

#include "core/core.h"

/* Per-shard state the policies change: 16 bytes and the replica slots, 20
 * bits a member (PL_MAX_MEMBERS is 2^20), three to a word: 24 bytes for up
 * to 3 replicas, 32 for 6, 40 for PL_MAX_REPLICAS (pl__st(); the slots the
 * view's room needs, PL_MAX_REPLICAS by default). 8-byte aligned, no
 * padding. Read and write the replicas and the override member through
 * pl__rep()/pl__set_rep() and pl__ov()/pl__set_ov(). */
typedef struct pl__shard_state {
	uint32_t since_lo, since_hi; /* the override's since (pl__since()), when there is one */
	unsigned int ep : 24;  /* replica and leader actions applied since the view was built:
				* the epoch is the snapshot's plus this (pl__epoch()); at
				* PL__EP_MAX the shard takes no more of them */
	unsigned int lead : 4; /* the effective leader's place in the replicas (pl__leader()),
				* or PL__NO_LEAD: the leader is always among the replicas */
	unsigned int nrep : 4; /* replicas, at most PL_MAX_REPLICAS */
	unsigned int ovm : 21; /* fleet override member, or PL__OV_NONE (pl__ov()) */
	unsigned int ov_origin : 1;
	unsigned int moving : 1;  /* a move is in flight */
	unsigned int touched : 1; /* an action was applied to it in this view */
	unsigned int spare : 8;
	uint64_t slots[]; /* replica j in bits 20 (j % 3).. of slots[j / 3]; those
			   * past nrep are never read */
} pl__shard_state;

#define PL__EP_MAX 0xffffffu
#define PL__NO_LEAD 0xfu
#define PL__OV_NONE 0x1fffffu
#define PL__MEMBER_BITS 20
#define PL__MEMBER_MASK ((UINT64_C(1) << PL__MEMBER_BITS) - 1)

_Static_assert(PL_MAX_MEMBERS <= (UINT32_C(1) << PL__MEMBER_BITS), "a replica slot holds any member index");
_Static_assert(PL_MAX_REPLICAS < PL__NO_LEAD && PL_MAX_REPLICAS <= 15, "lead and nrep fit 4 bits");
_Static_assert(PL_ORIGIN_COUNT <= 1, "an override's origin fits 1 bit");

/* Slot words of a state with room replicas. */
#define PL__SLOT_WORDS(room) (((size_t)(room) + 2) / 3)
/* Bytes of one shard's state with room replica slots. */
#define PL__STATE_SIZE(room) (sizeof(pl__shard_state) + PL__SLOT_WORDS(room) * sizeof(uint64_t))

/* Replica j (< nrep) of the state. */
static inline uint32_t pl__rep(const pl__shard_state *st, uint32_t j)
{
	return (uint32_t)((st->slots[j / 3] >> (PL__MEMBER_BITS * (j % 3))) & PL__MEMBER_MASK);
}

/* Make member m replica j. */
static inline void pl__set_rep(pl__shard_state *st, uint32_t j, uint32_t m)
{
	PL_ASSERT(m < PL_MAX_MEMBERS);
	int sh = PL__MEMBER_BITS * (int)(j % 3);
	uint64_t *w = &st->slots[j / 3];
	*w = (*w & ~(PL__MEMBER_MASK << sh)) | (uint64_t)m << sh;
}

/* The fleet override's member, or PL_NONE. */
static inline uint32_t pl__ov(const pl__shard_state *st)
{
	return st->ovm == PL__OV_NONE ? PL_NONE : st->ovm;
}

static inline void pl__set_ov(pl__shard_state *st, uint32_t m)
{
	PL_ASSERT(m == PL_NONE || m < PL_MAX_MEMBERS);
	st->ovm = m == PL_NONE ? PL__OV_NONE : m;
}

static inline uint64_t pl__since(const pl__shard_state *st)
{
	return (uint64_t)st->since_hi << 32 | st->since_lo;
}

static inline void pl__set_since(pl__shard_state *st, uint64_t t)
{
	st->since_lo = (uint32_t)t;
	st->since_hi = (uint32_t)(t >> 32);
}

/* One (stream, member) leader count in 6 bytes: a 48-bit word with the
 * member index in its low 20 bits (below PL_MAX_MEMBERS) and the leaders in
 * the 28 above (at most PL_MAX_SHARDS), kept as three 16-bit halves, the
 * low one first. Only 2-byte aligned, read and written through the
 * accessors below, so the same bits on every platform. Cell i of an array c
 * is c + i. */
typedef struct pl__cell {
	uint16_t w[3];
} pl__cell;

#define PL__CELL_MEMBER_BITS 20
#define PL__CELL_MEMBER_MASK ((UINT32_C(1) << PL__CELL_MEMBER_BITS) - 1)
#define PL__CELL_LEADERS_MAX ((UINT32_C(1) << (48 - PL__CELL_MEMBER_BITS)) - 1)
_Static_assert(sizeof(pl__cell) == 6, "a leader cell is 6 bytes");
_Static_assert(PL_MAX_MEMBERS - 1 <= PL__CELL_MEMBER_MASK, "a cell holds every member index");
_Static_assert(PL_MAX_SHARDS <= PL__CELL_LEADERS_MAX, "a cell holds every leader count");

/* The member of cell i of c. Each field is read as two adjacent halves
 * joined, then masked or shifted: a form compilers turn into one load. */
static inline uint32_t pl__cell_member(const pl__cell *c, uint32_t i)
{
	return ((uint32_t)c[i].w[0] | (uint32_t)c[i].w[1] << 16) & PL__CELL_MEMBER_MASK;
}

/* The leaders of cell i of c. */
static inline uint32_t pl__cell_leaders(const pl__cell *c, uint32_t i)
{
	return ((uint32_t)c[i].w[1] | (uint32_t)c[i].w[2] << 16) >> (PL__CELL_MEMBER_BITS - 16);
}

/* Cell i of c counts `leaders` for member m. */
static inline void pl__cell_set(pl__cell *c, uint32_t i, uint32_t m, uint32_t leaders)
{
	PL_ASSERT(m <= PL__CELL_MEMBER_MASK && leaders <= PL__CELL_LEADERS_MAX);
	c[i].w[0] = (uint16_t)m;
	c[i].w[1] = (uint16_t)((m >> 16 & 0xfu) | (leaders & 0xfffu) << 4);
	c[i].w[2] = (uint16_t)(leaders >> 12);
}

/* The replicas of st into out[0..nrep), returns nrep. out[nrep..3) may be
 * written too (with what the unused slots hold): the first word is
 * unpacked whole, without a branch. */
static inline uint32_t pl__reps(const pl__shard_state *st, uint32_t out[PL_MAX_REPLICAS])
{
	_Static_assert(PL_MAX_REPLICAS == 8, "three slot words at most");
	uint32_t n = st->nrep;
	uint64_t x = st->slots[0];
	out[0] = (uint32_t)(x & PL__MEMBER_MASK);
	out[1] = (uint32_t)((x >> PL__MEMBER_BITS) & PL__MEMBER_MASK);
	out[2] = (uint32_t)(x >> (2 * PL__MEMBER_BITS)); /* the top 4 bits are 0 */
	if (n > 3) {
		x = st->slots[1];
		out[3] = (uint32_t)(x & PL__MEMBER_MASK);
		out[4] = (uint32_t)((x >> PL__MEMBER_BITS) & PL__MEMBER_MASK);
		out[5] = (uint32_t)(x >> (2 * PL__MEMBER_BITS));
		if (n > 6) {
			x = st->slots[2];
			out[6] = (uint32_t)(x & PL__MEMBER_MASK);
			out[7] = (uint32_t)((x >> PL__MEMBER_BITS) & PL__MEMBER_MASK);
		}
	}
	return n;
}

/* Where the replica list st names m, or -1. */
static inline int pl__rep_index(const pl__shard_state *st, uint32_t m)
{
	uint32_t rep[PL_MAX_REPLICAS], n = pl__reps(st, rep);
	for (uint32_t j = 0; j < n; j++)
		if (rep[j] == m)
			return (int)j;
	return -1;
}

/* The effective leader, or PL_NONE. */
static inline uint32_t pl__leader(const pl__shard_state *st)
{
	return st->lead == PL__NO_LEAD ? PL_NONE : pl__rep(st, st->lead);
}

/* Make m, a replica, the leader. */
static inline void pl__set_lead(pl__shard_state *st, uint32_t m)
{
	int j = pl__rep_index(st, m);
	PL_ASSERT(j >= 0); /* a leader is always among the replicas */
	st->lead = (unsigned int)j & PL__NO_LEAD; /* -1 would read as none */
}

/* Does the replica list st name m? */
static inline int pl__holds(const pl__shard_state *st, uint32_t m)
{
	return pl__rep_index(st, m) >= 0;
}

/* Shard k's state as the snapshot says it, its leader move counted finished
 * (moving_to leads, and holds the old leader's replica if it held none); no
 * override. room >= k->replica_count (the view's room). */
static inline void pl__state_from_shard(pl__shard_state *st, const pl_shard *k, uint32_t room)
{
	memset(st, 0, sizeof *st); /* then the fields: loads within the stores */
	uint32_t n = k->replica_count, mv = k->moving_to, lj = PL__NO_LEAD, take = PL__NO_LEAD;
	const uint32_t *r = k->replicas;
	uint32_t want = mv != PL_NONE ? mv : k->leader; /* PL_NONE matches no replica */
	for (uint32_t j = 0; j < n; j++)
		if (r[j] == want) {
			lj = j;
			break;
		}
	if (mv != PL_NONE) {
		st->moving = 1;
		for (uint32_t j = 0; j < n && lj == PL__NO_LEAD; j++)
			if (r[j] == k->leader)
				lj = take = j; /* the mover takes the old leader's place */
	}
	st->ovm = PL__OV_NONE;
	st->nrep = n;
	st->lead = lj;
	/* Packed three to a word, every slot of the room (those past n are
	 * never read, so the snapshot's unused entries may be anything). */
#define PL__PACK3(a, b, c) \
	(((a) & PL__MEMBER_MASK) | ((b) & PL__MEMBER_MASK) << PL__MEMBER_BITS | ((c) & PL__MEMBER_MASK) << (2 * PL__MEMBER_BITS))
	st->slots[0] = PL__PACK3((uint64_t)r[0], r[1], r[2]);
	if (room > 3)
		st->slots[1] = PL__PACK3((uint64_t)r[3], r[4], r[5]);
	if (room > 6)
		st->slots[2] = PL__PACK3((uint64_t)r[6], r[7], 0);
#undef PL__PACK3
	_Static_assert(PL_MAX_REPLICAS == 8, "three slot words at most");
	if (take != PL__NO_LEAD)
		pl__set_rep(st, take, mv);
}

#endif /* PLACEMENT_STATE_H */
