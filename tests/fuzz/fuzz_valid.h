/*
 * fuzz_valid.h - a decoder of valid-by-construction snapshots for the policy
 * harnesses: ids unique, indices in range, replicas distinct, leaders among
 * them, moves onto other members, one override per shard at most. Up to 64
 * members (in up to 8 zones), 16 streams and 2,000 shards (one input in
 * four; the others up to 12, 4 and 120, to run fast), so the policies'
 * deeper paths (cluster-pass ranking, stream paging, relays, caps, lag
 * moves) are reached.
 *
 * How the bytes are used. The first bytes choose the shape: the counts, the
 * skew of the leaders, the replication factor, the share of down, draining,
 * lagging, capped, weighted and new members, of moves in flight and of
 * overrides. The rest seed a splitmix64 stream that fills the elements, so
 * a short input still makes a large snapshot, while each byte of the shape
 * still steers a whole class of them. Copies in flight (one input in
 * four has some, on up to FV_COPIES shards) are drawn last, so they change
 * nothing drawn before them. One input in 32 gets one deliberate fault (a
 * duplicate id, an index out of range, a leader that is no replica, a copy
 * onto a member that holds the shard...) so the rejections stay reached
 * too.

 */
#ifndef PL_FUZZ_VALID_H
#define PL_FUZZ_VALID_H

#include "fuzz_input.h"

#define FV_MEMBERS 64
#define FV_STREAMS 16
#define FV_SHARDS 2000
#define FV_COPIES 64

typedef struct fv_snapshot {
	pl_member m[FV_MEMBERS];
	pl_stream st[FV_STREAMS];
	pl_shard k[FV_SHARDS];
	pl_override o[FV_SHARDS];
	pl_copy c[FV_COPIES];
	char mid[FV_MEMBERS][8], zid[8][4], sid[FV_STREAMS][8], kid[FV_SHARDS][12];
	uint64_t rng;
	uint32_t faulty; /* the fault injected, 0 for none */
} fv_snapshot;

static inline uint64_t fv_next(fv_snapshot *f)
{
	uint64_t z = (f->rng += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Below n (n > 0). */
static inline uint32_t fv_below(fv_snapshot *f, uint32_t n)
{
	return (uint32_t)(fv_next(f) % n);
}

/* One chance in `in`, out of 16 steps of a shape byte (0: never). */
static inline int fv_chance(fv_snapshot *f, uint32_t sixteenths)
{
	return fv_below(f, 16) < sixteenths;
}

static inline pl_snapshot fv_read(in *s, fv_snapshot *f)
{
	/* three inputs in four are small (fast to run, so most of the search),
	 * the fourth up to the full size */
	int big = take(s, 4) == 3;
	uint32_t nm = 1 + take(s, big ? FV_MEMBERS : 12), ns = take(s, (big ? FV_STREAMS : 4) + 1);
	uint32_t nk = take(s, (big ? FV_SHARDS : 120) + 1);
	uint32_t zones = 1 + take(s, 8), rf = 1 + take(s, PL_MAX_REPLICAS);
	uint32_t p_down = take(s, 4), p_drain = take(s, 4), p_lag = take(s, 4), p_cap = take(s, 4);
	uint32_t p_weight = take(s, 6), p_new = take(s, 8), p_lead = take(s, 17), p_move = take(s, 4);
	uint32_t p_over = take(s, 10), hot = 1 + take(s, nm), p_nostream = take(s, 4);
	f->faulty = take(s, 32) == 31 ? 1 + take(s, 11) : 0; /* not 0: a short input reads 0s */
	f->rng = 0;
	while (s->n)
		f->rng = f->rng * 131 + take(s, 256) + 1;
	if (rf > nm)
		rf = nm;
	if (nm == 0)
		nm = 1;
	for (uint32_t z = 0; z < 8; z++)
		snprintf(f->zid[z], sizeof f->zid[z], "z%u", z);
	for (uint32_t i = 0; i < nm; i++) {
		pl_member *m = &f->m[i];
		memset(m, 0, sizeof *m);
		/* ids not in index order, so canonical order matters */
		int n = snprintf(f->mid[i], sizeof f->mid[i], "m%02u", (i * 37u) % 64u);
		m->id = (pl_bytes){f->mid[i], (uint64_t)n};
		uint32_t z = fv_below(f, zones + 1);
		if (z < zones)
			m->zone = (pl_bytes){f->zid[z], 2};
		m->flags = (fv_chance(f, p_down) ? PL_MEMBER_DOWN : 0) | (fv_chance(f, p_drain) ? PL_MEMBER_DRAINING : 0) |
			   (fv_chance(f, p_lag) ? PL_MEMBER_LAGGING : 0) | (fv_chance(f, 1) ? PL_MEMBER_UNMEASURED : 0);
		m->weight = fv_chance(f, p_weight) ? 1 + fv_below(f, 4) : 0;
		m->max_shards = fv_chance(f, p_cap) ? fv_below(f, 2 * (nk / nm + 2)) : 0;
		m->joined_at = fv_below(f, 1000);
		m->load = fv_below(f, 1u << 20);
		m->map_version = fv_below(f, 6);
	}
	for (uint32_t i = 0; i < ns; i++) {
		int n = snprintf(f->sid[i], sizeof f->sid[i], "s%02u", (i * 7u) % 16u);
		f->st[i].id = (pl_bytes){f->sid[i], (uint64_t)n};
	}
	uint32_t no = 0;
	for (uint32_t i = 0; i < nk; i++) {
		pl_shard *k = &f->k[i];
		memset(k, 0, sizeof *k);
		int n = snprintf(f->kid[i], sizeof f->kid[i], "k/%04u", (i * 997u) % 2003u);
		k->key = (pl_bytes){f->kid[i], (uint64_t)n};
		k->stream = ns && !fv_chance(f, p_nostream) ? fv_below(f, ns) : PL_NONE;
		k->leader = k->moving_to = PL_NONE;
		k->epoch = fv_below(f, 6);
		k->load = fv_below(f, 1u << 16);
		k->flags = fv_chance(f, 1) ? (uint32_t)fv_below(f, PL_SHARD_FLAGS_ALL + 1) : 0;
		if (fv_below(f, 8) < p_new)
			continue; /* a new shard: no replicas, no leader */
		/* replicas: the first one often on one of the `hot` first members */
		uint32_t want = 1 + fv_below(f, rf);
		while (k->replica_count < want) {
			uint32_t r = k->replica_count == 0 && fv_chance(f, 10) ? fv_below(f, hot) : fv_below(f, nm);
			int dup = 0;
			for (uint32_t j = 0; j < k->replica_count; j++)
				dup |= k->replicas[j] == r;
			if (!dup)
				k->replicas[k->replica_count++] = r;
		}
		if (fv_below(f, 16) < p_lead)
			k->leader = k->replicas[0];
		if (k->leader != PL_NONE && nm > 1 && fv_chance(f, p_move)) {
			uint32_t t = fv_below(f, nm);
			k->moving_to = t == k->leader ? (t + 1) % nm : t;
		}
		if (fv_below(f, 16) < p_over) {
			pl_override *o = &f->o[no++];
			o->shard = i;
			o->member = fv_below(f, nm);
			o->origin = fv_below(f, 2);
			o->since = fv_below(f, 1000);
		}
	}
	/* Copies in flight: on shards with replicas and no leader move, onto a
	 * member that holds none of it, replacing one of its replicas or
	 * (when there is room) adding a peer. */
	uint32_t nc = 0;
	if (nk && nm > 1 && fv_below(f, 4) == 0) {
		uint32_t want = 1 + fv_below(f, FV_COPIES);
		for (uint32_t i = fv_below(f, nk); i < nk && nc < want; i += 1 + fv_below(f, 8)) {
			const pl_shard *k = &f->k[i];
			if (k->replica_count == 0 || k->replica_count == nm || k->moving_to != PL_NONE)
				continue;
			uint32_t to = fv_below(f, nm);
			for (int held = 1; held;) {
				held = 0;
				for (uint32_t j = 0; j < k->replica_count; j++)
					held |= k->replicas[j] == to;
				if (held)
					to = (to + 1) % nm;
			}
			int add = k->replica_count < PL_MAX_REPLICAS && fv_chance(f, 6);
			f->c[nc++] = (pl_copy){i, to, add ? PL_NONE : k->replicas[fv_below(f, k->replica_count)], 0};
		}
	}
	pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = f->m, .streams = f->st, .shards = f->k,
			.overrides = f->o, .copies = nc ? f->c : NULL, .n_members = nm, .n_streams = ns,
			.n_shards = nk, .n_overrides = no, .n_copies = nc};
	/* The deliberate fault, if any. */
	switch (f->faulty) {
	case 1:
		if (nm > 1)
			f->m[1].id = f->m[0].id;
		break;
	case 2:
		if (nk)
			f->k[fv_below(f, nk)].stream = ns;
		break;
	case 3:
		if (nk && f->k[0].replica_count)
			f->k[0].replicas[0] = nm;
		break;
	case 4:
		if (nk && f->k[0].replica_count) {
			f->k[0].leader = nm - 1 == f->k[0].replicas[0] ? PL_NONE : nm - 1;
			f->k[0].moving_to = PL_NONE;
		}
		break;
	case 5:
		if (no)
			f->o[no - 1].member = nm;
		break;
	case 6:
		if (no > 1)
			f->o[1].shard = f->o[0].shard;
		break;
	case 7:
		f->m[0].flags |= 0x100;
		break;
	case 8:
		if (nk > 1)
			f->k[1].key = f->k[0].key;
		break;
	case 9:
		f->m[0].weight = PL_MAX_WEIGHT + 1;
		break;
	case 10:
		if (ns > 1)
			f->st[1].id = f->st[0].id;
		break;
	case 11:
		if (nc)
			f->c[0].to = f->k[f->c[0].shard].replicas[0];
		break;
	default:
		break;
	}
	return snap;
}

#endif
