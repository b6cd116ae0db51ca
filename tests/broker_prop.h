/*
 * broker_prop.h - the property harness of the broker suites: run ticks of
 * pl_broker_plan() on a layout, settling between them, and check every
 * action against a mirror of the layout kept here (not the library's
 * tallies): potentials, zones, caps, limits, moving shards. Also the lower
 * bound on the moves a layout needs (a min-cost flow). Header-only (static
 * inline), used by the properties of check_broker_balance.c.
 */
#ifndef PL_BROKER_PROP_H
#define PL_BROKER_PROP_H

#include "broker_util.h"

/* The mirror: leaders per (stream, member), totals, replica sets, flags. */
typedef struct mirror {
	const tl *t;
	uint32_t nm, ns, nk;
	uint32_t *cnt;  /* [s * nm + m] */
	uint32_t *tot;  /* [m] */
	uint32_t *rep;  /* [k * PL_MAX_REPLICAS + j] */
	uint32_t *nrep; /* [k] */
	uint32_t *lead; /* [k] */
	uint32_t *moving;  /* [k]: moved since the last settle */
	uint32_t *moved;   /* [k]: leader moves over the whole run */
	uint32_t *touched; /* [k]: moves of any kind (leader or replica) over the run */
	uint32_t *copied;  /* [k]: moves that copy it (STAGE_FIRST) over the run */
	uint32_t *zone;    /* [m]: zone id (equal bytes share one) */
	uint64_t W;        /* eligible weight */
	uint8_t *relayed;  /* [s], [ns] for the cluster: the scope's last move was a relay */
	uint8_t rrelayed;  /* the replica cluster scope's last move was a relay */
	uint8_t *chain;    /* [s], [ns]: hand-offs in a row that kept the scope's distance */
	/* A paired carry (PL_ACTION_PAIRED): its shard's stream, source and
	 * destination, and their leader counts before it; the hand-off that
	 * follows must bring them back. */
	int pair_on;
	uint32_t pair_s, pair_a, pair_d, pair_ca, pair_cd, pair_ta, pair_td;
	uint32_t relays, hops;
} mirror;

static inline int mr_elig(const mirror *x, uint32_t m)
{
	return bu_eligible(x->t, m);
}

static inline uint32_t mr_w(const mirror *x, uint32_t m)
{
	return x->t->m[m].weight ? x->t->m[m].weight : 1;
}

static inline void mr_init(mirror *x, const tl *t)
{
	memset(x, 0, sizeof *x);
	x->t = t;
	x->nm = t->nm;
	x->ns = t->ns;
	x->nk = t->nk;
	x->cnt = calloc((size_t)x->ns * x->nm + 1, sizeof *x->cnt);
	x->tot = calloc(x->nm + 1, sizeof *x->tot);
	x->rep = calloc((size_t)x->nk * PL_MAX_REPLICAS + 1, sizeof *x->rep);
	x->nrep = calloc(x->nk + 1, sizeof *x->nrep);
	x->lead = calloc(x->nk + 1, sizeof *x->lead);
	x->moving = calloc(x->nk + 1, sizeof *x->moving);
	x->moved = calloc(x->nk + 1, sizeof *x->moved);
	x->touched = calloc(x->nk + 1, sizeof *x->touched);
	x->copied = calloc(x->nk + 1, sizeof *x->copied);
	x->zone = calloc(x->nm + 1, sizeof *x->zone);
	x->relayed = calloc(x->ns + 1, sizeof *x->relayed);
	x->chain = calloc(x->ns + 1, sizeof *x->chain);
	for (uint32_t m = 0; m < x->nm; m++) {
		x->zone[m] = m;
		if (t->m[m].zone.len)
			for (uint32_t o = 0; o < m; o++)
				if (t->m[o].zone.len == t->m[m].zone.len &&
				    !memcmp(t->m[o].zone.ptr, t->m[m].zone.ptr, t->m[m].zone.len)) {
					x->zone[m] = x->zone[o];
					break;
				}
		if (mr_elig(x, m))
			x->W += mr_w(x, m);
	}
	for (uint32_t k = 0; k < x->nk; k++) {
		const pl_shard *s = &t->k[k];
		x->nrep[k] = s->replica_count;
		memcpy(x->rep + (size_t)k * PL_MAX_REPLICAS, s->replicas, s->replica_count * sizeof(uint32_t));
		uint32_t l = s->leader;
		if (s->moving_to != PL_NONE) {
			uint32_t *r = x->rep + (size_t)k * PL_MAX_REPLICAS, held = 0;
			for (uint32_t j = 0; j < x->nrep[k]; j++)
				held |= r[j] == s->moving_to;
			if (!held)
				for (uint32_t j = 0; j < x->nrep[k]; j++)
					if (r[j] == l)
						r[j] = s->moving_to;
			l = s->moving_to;
			x->moving[k] = 1;
		}
		x->lead[k] = l;
		if (l != PL_NONE) {
			x->tot[l]++;
			if (s->stream != PL_NONE)
				x->cnt[s->stream * x->nm + l]++;
		}
	}
}

static inline void mr_free(mirror *x)
{
	free(x->cnt);
	free(x->tot);
	free(x->rep);
	free(x->nrep);
	free(x->lead);
	free(x->moving);
	free(x->moved);
	free(x->touched);
	free(x->copied);
	free(x->zone);
	free(x->relayed);
	free(x->chain);
}

static inline uint32_t mr_count(const mirror *x, uint32_t s, uint32_t m)
{
	return s == PL_NONE ? x->tot[m] : x->cnt[s * x->nm + m];
}

/* Leaders of a scope on eligible members. */
static inline uint32_t mr_L(const mirror *x, uint32_t s)
{
	uint32_t L = 0;
	for (uint32_t m = 0; m < x->nm; m++)
		if (mr_elig(x, m))
			L += mr_count(x, s, m);
	return L;
}

static inline void mr_bounds(const mirror *x, uint32_t L, uint32_t m, uint32_t *fl, uint32_t *ce)
{
	uint64_t num = (uint64_t)L * mr_w(x, m);
	*fl = (uint32_t)(num / x->W);
	*ce = (uint32_t)((num + x->W - 1) / x->W);
}

/* Distance of a scope to its bounds, and its sum of squares (eligible). */
static inline uint64_t mr_dist(const mirror *x, uint32_t s)
{
	uint32_t L = mr_L(x, s);
	uint64_t d = 0;
	for (uint32_t m = 0; m < x->nm; m++) {
		if (!mr_elig(x, m))
			continue;
		uint32_t c = mr_count(x, s, m), fl, ce;
		mr_bounds(x, L, m, &fl, &ce);
		d += c > ce ? c - ce : c < fl ? fl - c : 0;
	}
	return d;
}

static inline uint64_t mr_squares(const mirror *x, uint32_t s)
{
	uint64_t q = 0;
	for (uint32_t m = 0; m < x->nm; m++)
		if (mr_elig(x, m))
			q += (uint64_t)mr_count(x, s, m) * mr_count(x, s, m);
	return q;
}

/* Sum over eligible members of count^2 / weight. */
static inline double mr_wsq(const mirror *x, uint32_t s)
{
	double q = 0;
	for (uint32_t m = 0; m < x->nm; m++)
		if (mr_elig(x, m))
			q += (double)mr_count(x, s, m) * mr_count(x, s, m) / mr_w(x, m);
	return q;
}

/* A move of scope s (PL_NONE: the cluster) lowers its potential (distance,
 * then sum of count^2 / weight), or is a relay: the distance as it was (and
 * with equal weights the squares), the scope's previous move not a relay,
 * and its next move lowering the distance. */
/* The longest chain of hand-offs the policy looks for (PL__BK_CHAIN). */
#define MR_CHAIN 8u

/* Does a leader move of scope s (stream, or PL_NONE) lower its potential
 * (distance d, then weighted squares q)? Or is it a relay's first hop (as it
 * was, and not after another relay), or a hop of a chain of hand-offs (held:
 * no copy; the distance as it was, at most MR_CHAIN - 1 such hops in a row:
 * each shortens the chain the next hop continues)? */
static inline int mr_lowers(mirror *x, uint32_t s, uint64_t d0, uint64_t d1, double q0, double q1, int weighted,
			    int held)
{
	uint32_t i = s == PL_NONE ? x->ns : s;
	if (d1 < d0)
		x->chain[i] = 0;
	else if (held && d1 == d0 && x->chain[i] + 1u < MR_CHAIN) {
		x->chain[i]++;
		x->hops++;
		return 2;
	}
	int after_relay = x->relayed[i];
	int lower = after_relay ? d1 < d0 : d1 < d0 || (d1 == d0 && q1 < q0 - 1e-9);
	int relay = !lower && !after_relay && d1 == d0 && (weighted || q1 < q0 + 1e-9);
	x->relayed[i] = (uint8_t)relay;
	x->relays += relay;
	return lower || relay;
}

static inline uint32_t mr_zones(const mirror *x, uint32_t k)
{
	const uint32_t *r = x->rep + (size_t)k * PL_MAX_REPLICAS;
	uint32_t n = 0;
	for (uint32_t j = 0; j < x->nrep[k]; j++) {
		uint32_t dup = 0;
		for (uint32_t i = 0; i < j; i++)
			dup |= x->zone[r[i]] == x->zone[r[j]];
		n += !dup;
	}
	return n;
}

static inline uint32_t mr_replicas(const mirror *x, uint32_t m)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < x->nk; k++)
		for (uint32_t j = 0; j < x->nrep[k]; j++)
			n += x->rep[(size_t)k * PL_MAX_REPLICAS + j] == m;
	return n;
}

static inline int mr_holds(const mirror *x, uint32_t k, uint32_t m)
{
	for (uint32_t j = 0; j < x->nrep[k]; j++)
		if (x->rep[(size_t)k * PL_MAX_REPLICAS + j] == m)
			return 1;
	return 0;
}

static inline void mr_set_leader(mirror *x, uint32_t k, uint32_t to)
{
	uint32_t s = x->t->k[k].stream, l = x->lead[k];
	if (l != PL_NONE) {
		x->tot[l]--;
		if (s != PL_NONE)
			x->cnt[s * x->nm + l]--;
	}
	x->lead[k] = to;
	x->tot[to]++;
	if (s != PL_NONE)
		x->cnt[s * x->nm + to]++;
}

/* Replicas of stream s (PL_NONE: all) that member m holds. */
static inline uint32_t mr_rcount(const mirror *x, uint32_t s, uint32_t m)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < x->nk; k++)
		if (s == PL_NONE || x->t->k[k].stream == s)
			for (uint32_t j = 0; j < x->nrep[k]; j++)
				n += x->rep[(size_t)k * PL_MAX_REPLICAS + j] == m;
	return n;
}

/* A replica scope's potential: distance to its bounds, sum of count^2/weight. */
static inline void mr_rpot(const mirror *x, uint32_t s, uint64_t *dist, double *wsq)
{
	uint32_t c[64], R = 0;
	for (uint32_t m = 0; m < x->nm && m < 64; m++) {
		c[m] = mr_elig(x, m) ? mr_rcount(x, s, m) : 0;
		R += c[m];
	}
	*dist = 0;
	*wsq = 0;
	for (uint32_t m = 0; m < x->nm && m < 64; m++) {
		if (!mr_elig(x, m))
			continue;
		uint32_t fl, ce;
		mr_bounds(x, R, m, &fl, &ce);
		*dist += c[m] > ce ? c[m] - ce : c[m] < fl ? fl - c[m] : 0;
		*wsq += (double)c[m] * c[m] / mr_w(x, m);
	}
}

/* (d1, q1) below (d0, q0)? no higher? */
static inline int mr_pot_lt(uint64_t d1, double q1, uint64_t d0, double q0)
{
	return d1 < d0 || (d1 == d0 && q1 < q0 - 1e-9);
}

static inline int mr_pot_le(uint64_t d1, double q1, uint64_t d0, double q0)
{
	return d1 < d0 || (d1 == d0 && q1 < q0 + 1e-9);
}

/* What one run saw. */
typedef struct run {
	uint64_t seed;
	uint32_t moves;       /* rebalance moves (stream and cluster) */
	uint32_t drains;
	uint32_t ticks;
	uint32_t twice;       /* shards whose leader moved more than once */
	uint32_t twice_any;   /* shards moved more than once, leader or replica */
	uint32_t twice_copy;  /* shards copied more than once (STAGE_FIRST moves) */
	uint32_t status;      /* of the last tick */
	uint32_t relays;      /* cluster moves that were relays */
	uint32_t rmoves;      /* replica moves (balance, drain, zone repair) */
	uint32_t repairs;     /* of those, zone repairs */
	uint32_t copies;      /* moves that copy a replica (STAGE_FIRST), of every kind */
	uint32_t leads;       /* moves that change a leadership, of every kind but failover */
	uint32_t lcopies;     /* leader moves that copy (MOVE_LEADER, STAGE_FIRST) */
	int converged;
} run;

/* Apply a MOVE_REPLICA to the mirror, checking what the rules promise:
 * zones never lowered (a repair raises them by one), caps, the leaders'
 * potentials never raised, the replica scope's potential lowered. */
static inline void mr_apply_replica(mirror *x, const pl_action *a, const pl_broker_config *cfg, uint64_t seed)
{
	uint32_t k = a->shard, s = x->t->k[k].stream;
	unsigned long long sd = (unsigned long long)seed;
	ck_assert_msg(mr_holds(x, k, a->from) && !mr_holds(x, k, a->to), "seed %llu: move-replica of %u", sd, k);
	ck_assert_msg(!x->moving[k], "seed %llu: shard %u moved while moving", sd, k);
	ck_assert_msg(mr_elig(x, a->to), "seed %llu: replica to an ineligible member", sd);
	ck_assert_msg(a->flags & PL_ACTION_STAGE_FIRST, "seed %llu: a replica move copies", sd);
	int carries = x->lead[k] == a->from;
	ck_assert_msg(carries == !!(a->flags & PL_ACTION_CARRIES_LEADER), "seed %llu: carries-leader flag", sd);
	ck_assert_msg(!carries || a->reason == PL_REASON_REPLICA_STREAM_SKEW ||
			      a->reason == PL_REASON_REPLICA_CLUSTER_SKEW,
		      "seed %llu: a drain or repair moved a leader's replica", sd);
	if (a->reason == PL_REASON_REPLICA_DRAIN)
		ck_assert_msg(!(x->t->m[a->from].flags & PL_MEMBER_DOWN) && !mr_elig(x, a->from),
			      "seed %llu: replica drain from a member not draining", sd);
	else
		ck_assert_msg(mr_elig(x, a->from) ||
				      (a->reason == PL_REASON_ZONE_REPAIR && (x->t->m[a->from].flags & PL_MEMBER_DOWN)),
			      "seed %llu: replica move from an ineligible member (only a zone repair moves a down "
			      "member's replica)",
			      sd);
	uint32_t zones = mr_zones(x, k);
	uint64_t ld0 = 0, ld1 = 0, lc0 = mr_dist(x, PL_NONE), rd0, rd1, sd0 = 0, sd1 = 0;
	double lq0 = 0, lq1 = 0, lcq0 = mr_wsq(x, PL_NONE), rq0, rq1, sq0 = 0, sq1 = 0;
	if (s != PL_NONE) {
		ld0 = mr_dist(x, s);
		lq0 = mr_wsq(x, s);
		mr_rpot(x, s, &sd0, &sq0);
	}
	mr_rpot(x, PL_NONE, &rd0, &rq0);
	uint32_t *r = x->rep + (size_t)k * PL_MAX_REPLICAS;
	for (uint32_t j = 0; j < x->nrep[k]; j++)
		if (r[j] == a->from)
			r[j] = a->to;
	if (carries)
		mr_set_leader(x, k, a->to);
	x->moving[k] = 1;
	if (carries)
		x->moved[k]++;
	uint32_t cap = x->t->m[a->to].max_shards;
	ck_assert_msg(cap == 0 || mr_replicas(x, a->to) <= cap, "seed %llu: %u past its cap %u", sd, a->to, cap);
	ck_assert_msg(mr_zones(x, k) >= zones + (a->reason == PL_REASON_ZONE_REPAIR), "seed %llu: shard %u zones %u -> %u",
		      sd, k, zones, mr_zones(x, k));
	if (carries && (a->flags & PL_ACTION_PAIRED)) {
		/* Its hand-off, the next action, restores the leaders. */
		ck_assert_msg(!x->pair_on, "seed %llu: two paired carries in a row", sd);
		x->pair_on = 1;
		x->pair_s = s;
		x->pair_a = a->from;
		x->pair_d = a->to;
		x->pair_ca = s != PL_NONE ? mr_count(x, s, a->from) + 1 : 0;
		x->pair_cd = s != PL_NONE ? mr_count(x, s, a->to) - 1 : 0;
		x->pair_ta = x->tot[a->from] + 1;
		x->pair_td = x->tot[a->to] - 1;
	} else if (carries) {
		if (s != PL_NONE && cfg->stream_balance) {
			ld1 = mr_dist(x, s);
			lq1 = mr_wsq(x, s);
			ck_assert_msg(mr_pot_le(ld1, lq1, ld0, lq0), "seed %llu: a replica move raised stream %u's leaders",
				      sd, s);
		}
		ck_assert_msg(mr_pot_le(mr_dist(x, PL_NONE), mr_wsq(x, PL_NONE), lc0, lcq0),
			      "seed %llu: a replica move raised the leaders' totals", sd);
	}
	if (s != PL_NONE)
		mr_rpot(x, s, &sd1, &sq1);
	mr_rpot(x, PL_NONE, &rd1, &rq1);
	if (a->reason == PL_REASON_REPLICA_STREAM_SKEW)
		ck_assert_msg(s != PL_NONE && mr_pot_lt(sd1, sq1, sd0, sq0),
			      "seed %llu: stream %u replicas distance %llu -> %llu", sd, s, (unsigned long long)sd0,
			      (unsigned long long)sd1);
	if (a->reason == PL_REASON_REPLICA_CLUSTER_SKEW) {
		/* Lower, or a relay: as it was, and not after another relay. */
		int lower = mr_pot_lt(rd1, rq1, rd0, rq0), relay = !lower && !x->rrelayed && rd1 == rd0 &&
								      rq1 < rq0 + 1e-9;
		x->rrelayed = (uint8_t)relay;
		x->relays += relay;
		ck_assert_msg(lower || relay, "seed %llu: replicas distance %llu -> %llu", sd, (unsigned long long)rd0,
			      (unsigned long long)rd1);
		if (s != PL_NONE && cfg->stream_balance)
			ck_assert_msg(mr_pot_le(sd1, sq1, sd0, sq0), "seed %llu: a cluster move raised stream %u's replicas",
				      sd, s);
	}
}

/* Apply one action to the mirror, checking what the rules promise. */
static inline void mr_apply(mirror *x, const pl_action *a, const pl_broker_config *cfg, uint64_t seed)
{
	uint32_t k = a->shard, s = x->t->k[k].stream;
	ck_assert_msg(a->stream == s, "seed %llu: action's stream", (unsigned long long)seed);
	switch (a->kind) {
	case PL_ACTION_ADD_REPLICA:
		ck_assert_msg(!mr_holds(x, k, a->to), "seed %llu: replica added twice", (unsigned long long)seed);
		x->rep[(size_t)k * PL_MAX_REPLICAS + x->nrep[k]++] = a->to;
		x->moving[k] = 1;
		return;
	case PL_ACTION_SET_LEADER:
		ck_assert_msg(a->from == x->lead[k] && mr_holds(x, k, a->to), "seed %llu: set-leader", (unsigned long long)seed);
		ck_assert_msg(a->reason == PL_REASON_NEW || a->reason == PL_REASON_FAILOVER, "seed %llu",
			      (unsigned long long)seed);
		mr_set_leader(x, k, a->to);
		return;
	case PL_ACTION_MOVE_LEADER:
		break;
	case PL_ACTION_MOVE_REPLICA:
		mr_apply_replica(x, a, cfg, seed);
		return;
	default:
		ck_abort_msg("seed %llu: unexpected action kind %u", (unsigned long long)seed, a->kind);
	}
	ck_assert_msg(a->from == x->lead[k], "seed %llu: move from a non-leader", (unsigned long long)seed);
	ck_assert_msg(!x->moving[k] || a->reason == PL_REASON_FAILOVER, "seed %llu: shard %u moved while moving",
		      (unsigned long long)seed, k);
	ck_assert_msg(mr_elig(x, a->to), "seed %llu: move to an ineligible member", (unsigned long long)seed);
	int held = mr_holds(x, k, a->to);
	ck_assert_msg(held == !(a->flags & PL_ACTION_STAGE_FIRST), "seed %llu: stage-first flag",
		      (unsigned long long)seed);
	uint32_t zones_before = mr_zones(x, k);
	uint64_t d_before = 0, q_before = 0, dt_before = mr_dist(x, PL_NONE), qt_before = mr_squares(x, PL_NONE);
	double w_before = 0, wt_before = mr_wsq(x, PL_NONE);
	if (s != PL_NONE) {
		d_before = mr_dist(x, s);
		q_before = mr_squares(x, s);
		w_before = mr_wsq(x, s);
	}
	if (!held) {
		uint32_t *r = x->rep + (size_t)k * PL_MAX_REPLICAS;
		for (uint32_t j = 0; j < x->nrep[k]; j++)
			if (r[j] == a->from)
				r[j] = a->to;
	}
	mr_set_leader(x, k, a->to);
	x->moving[k] = 1;
	x->moved[k]++;
	uint32_t cap = x->t->m[a->to].max_shards;
	if (a->reason == PL_REASON_FAILOVER) {
		/* A failover passes a cap only when every eligible member is at
		 * its cap (the widened set has no room). */
		if (!held && cap && mr_replicas(x, a->to) > cap)
			for (uint32_t m = 0; m < x->nm; m++)
				ck_assert_msg(!mr_elig(x, m) || mr_holds(x, k, m) || !x->t->m[m].max_shards ||
						      mr_replicas(x, m) >= x->t->m[m].max_shards,
					      "seed %llu: failover of %u past the cap of %u while %u has room",
					      (unsigned long long)seed, k, a->to, m);
		return;
	}
	/* Every move of a live leader keeps caps and zones. */
	ck_assert_msg(held || cap == 0 || mr_replicas(x, a->to) <= cap, "seed %llu: %u past its cap %u",
		      (unsigned long long)seed, a->to, cap);
	if (a->reason != PL_REASON_DRAIN)
		ck_assert_msg(mr_zones(x, k) >= zones_before, "seed %llu: shard %u lost a zone",
			      (unsigned long long)seed, k);
	int weighted = 0;
	for (uint32_t m = 0; m < x->nm; m++)
		weighted |= mr_elig(x, m) && mr_w(x, m) != mr_w(x, 0);
	if (a->reason == PL_REASON_STREAM_SKEW) {
		ck_assert_msg(cfg->stream_balance, "seed %llu", (unsigned long long)seed);
		uint64_t d = mr_dist(x, s), q = mr_squares(x, s);
		int how = mr_lowers(x, s, d_before, d, w_before, mr_wsq(x, s), weighted, held);
		ck_assert_msg(how, "seed %llu: stream %u distance %llu -> %llu, squares %llu -> %llu",
			      (unsigned long long)seed, s, (unsigned long long)d_before, (unsigned long long)d,
			      (unsigned long long)q_before, (unsigned long long)q);
		if (!weighted && how != 2)
			ck_assert_msg(q < q_before || x->relayed[s], "seed %llu: stream %u squares %llu -> %llu",
				      (unsigned long long)seed, s, (unsigned long long)q_before, (unsigned long long)q);
	} else if (a->reason == PL_REASON_CLUSTER_SKEW) {
		uint64_t dt = mr_dist(x, PL_NONE), qt = mr_squares(x, PL_NONE);
		int how = mr_lowers(x, PL_NONE, dt_before, dt, wt_before, mr_wsq(x, PL_NONE), weighted, held);
		ck_assert_msg(how, "seed %llu: cluster distance %llu -> %llu, squares %llu -> %llu",
			      (unsigned long long)seed, (unsigned long long)dt_before, (unsigned long long)dt,
			      (unsigned long long)qt_before, (unsigned long long)qt);
		if (!weighted && how != 2)
			ck_assert_msg(qt < qt_before || x->relayed[x->ns], "seed %llu: cluster squares %llu -> %llu",
				      (unsigned long long)seed, (unsigned long long)qt_before, (unsigned long long)qt);
		/* A cluster move never raises a stream's distance or squares. */
		if (cfg->stream_balance && s != PL_NONE) {
			ck_assert_msg(mr_dist(x, s) <= d_before, "seed %llu: cluster move raised stream %u distance",
				      (unsigned long long)seed, s);
			if (!weighted)
				ck_assert_msg(mr_squares(x, s) <= q_before,
					      "seed %llu: cluster move raised stream %u squares",
					      (unsigned long long)seed, s);
			ck_assert_msg(mr_wsq(x, s) <= w_before + 1e-9,
				      "seed %llu: cluster move raised stream %u's sum of count^2/weight",
				      (unsigned long long)seed, s);
		}
	} else if ((a->reason == PL_REASON_REPLICA_STREAM_SKEW || a->reason == PL_REASON_REPLICA_CLUSTER_SKEW) &&
		   (a->flags & PL_ACTION_PAIRED)) {
		/* The hand-off paired with the carry before it: back to the
		 * leader counts before that carry, on both members. */
		ck_assert_msg(held && x->pair_on && a->from == x->pair_d && a->to == x->pair_a && s == x->pair_s,
			      "seed %llu: a paired hand-off without its carry", (unsigned long long)seed);
		ck_assert_msg((s == PL_NONE || (mr_count(x, s, a->to) == x->pair_ca && mr_count(x, s, a->from) == x->pair_cd)) &&
				      x->tot[a->to] == x->pair_ta && x->tot[a->from] == x->pair_td,
			      "seed %llu: a paired step changed the leaders' counts", (unsigned long long)seed);
		x->pair_on = 0;
	} else if (a->reason == PL_REASON_REPLICA_STREAM_SKEW || a->reason == PL_REASON_REPLICA_CLUSTER_SKEW) {
		/* The leadership goes to a follower first, so that the old
		 * leader's replica can move: no copy, no leader potential up. */
		ck_assert_msg(held, "seed %llu: a replica pass's leader move copies", (unsigned long long)seed);
		if (s != PL_NONE && cfg->stream_balance)
			ck_assert_msg(mr_pot_le(mr_dist(x, s), mr_wsq(x, s), d_before, w_before),
				      "seed %llu: a hand-off raised stream %u's leaders", (unsigned long long)seed, s);
		ck_assert_msg(mr_pot_le(mr_dist(x, PL_NONE), mr_wsq(x, PL_NONE), dt_before, wt_before),
			      "seed %llu: a hand-off raised the leaders' totals", (unsigned long long)seed);
	} else {
		ck_assert_msg(a->reason == PL_REASON_DRAIN, "seed %llu: reason %u", (unsigned long long)seed, a->reason);
	}
}

/* Tick until nothing is emitted, checking everything; the view is t's. */
static inline run mr_run(tl *t, const pl_broker_config *cfg, uint64_t seed, uint32_t max_ticks)
{
	run r;
	memset(&r, 0, sizeof r);
	r.seed = seed;
	pl_view *v = t->view;
	mirror x;
	mr_init(&x, t);
	uint32_t cap = 16 * t->nk + 64;
	pl_action *out = malloc(cap * sizeof *out);
	uint32_t *in = calloc(t->nm + 1, sizeof *in), *outc = calloc(t->nm + 1, sizeof *outc);
	ck_assert_ptr_nonnull(out);
	for (uint32_t tick = 0; tick < max_ticks; tick++) {
		pl_plan_info info;
		/* In flight at the start of the tick: the snapshot's moves (first
		 * tick only; later ticks start settled). */
		uint32_t flight = 0;
		memset(in, 0, t->nm * sizeof *in);
		memset(outc, 0, t->nm * sizeof *outc);
		if (tick == 0)
			for (uint32_t k = 0; k < t->nk; k++)
				if (t->k[k].moving_to != PL_NONE) {
					flight++;
					in[t->k[k].moving_to]++;
					outc[t->k[k].leader]++;
				}
		int n = pl_broker_plan(v, cfg, out, cap, &info, NULL);
		ck_assert_msg(n >= 0, "seed %llu: %s", (unsigned long long)seed, pl_error_name(n));
		ck_assert_msg(info.status != PL_STATUS_FULL, "seed %llu: full", (unsigned long long)seed);
		r.status = info.status;
		if (n == 0) {
			r.converged = 1;
			break;
		}
		r.ticks++;
		uint32_t moves = 0;
		for (int i = 0; i < n; i++) {
			const pl_action *a = &out[i];
			if (getenv("PL_TEST_VERBOSE")) {
				char line[512];
				pl_action_explain(tl_snap(t), a, line, sizeof line);
				printf("tick %u: %s (cluster distance %llu)\n", tick, line,
				       (unsigned long long)mr_dist(&x, PL_NONE));
			}
			mr_apply(&x, a, cfg, seed);
			if ((a->kind != PL_ACTION_MOVE_LEADER && a->kind != PL_ACTION_MOVE_REPLICA) ||
			    a->reason == PL_REASON_FAILOVER)
				continue;
			ck_assert_msg(!cfg->paused, "seed %llu: a move while paused", (unsigned long long)seed);
			x.touched[a->shard]++;
			x.copied[a->shard] += (a->flags & PL_ACTION_STAGE_FIRST) != 0;
			r.copies += (a->flags & PL_ACTION_STAGE_FIRST) != 0;
			r.lcopies += a->kind == PL_ACTION_MOVE_LEADER && (a->flags & PL_ACTION_STAGE_FIRST);
			r.leads += a->kind == PL_ACTION_MOVE_LEADER || (a->flags & PL_ACTION_CARRIES_LEADER);
			/* A paired hand-off is the second half of its carry's step. */
			moves += !(a->kind == PL_ACTION_MOVE_LEADER && (a->flags & PL_ACTION_PAIRED));
			in[a->to]++;
			outc[a->from]++;
			if (a->kind == PL_ACTION_MOVE_REPLICA || a->reason == PL_REASON_REPLICA_STREAM_SKEW ||
			    a->reason == PL_REASON_REPLICA_CLUSTER_SKEW) {
				r.rmoves++;
				r.repairs += a->reason == PL_REASON_ZONE_REPAIR;
			} else if (a->reason == PL_REASON_DRAIN)
				r.drains++;
			else
				r.moves++;
			if (cfg->max_moves_in)
				ck_assert_msg(in[a->to] <= cfg->max_moves_in, "seed %llu: moves into %u",
					      (unsigned long long)seed, a->to);
			if (cfg->max_moves_out)
				ck_assert_msg(outc[a->from] <= cfg->max_moves_out, "seed %llu: moves out of %u",
					      (unsigned long long)seed, a->from);
		}
		ck_assert_msg(moves == 0 || moves + flight <= cfg->max_moves, "seed %llu: %u moves, %u in flight, max %u",
			      (unsigned long long)seed, moves, flight, cfg->max_moves);
		pl_view_settle(v);
		memset(x.moving, 0, t->nk * sizeof *x.moving);
	}
	/* The view agrees with the mirror. */
	for (uint32_t m = 0; m < t->nm; m++) {
		ck_assert_msg(bu_total(v, m) == x.tot[m], "seed %llu: totals drifted", (unsigned long long)seed);
		for (uint32_t s = 0; s < t->ns; s++) {
			ck_assert_msg(bu_lead(v, s, m) == x.cnt[s * x.nm + m], "seed %llu: stream drifted",
				      (unsigned long long)seed);
			ck_assert_msg(tl_stream_tally(v, s, m).replicas == mr_rcount(&x, s, m),
				      "seed %llu: stream replicas drifted", (unsigned long long)seed);
		}
		ck_assert_msg(tl_member_tally(v, m).replicas == mr_replicas(&x, m), "seed %llu: replicas drifted",
			      (unsigned long long)seed);
	}
	for (uint32_t k = 0; k < t->nk; k++) {
		r.twice += x.moved[k] > 1;
		r.twice_any += x.touched[k] > 1;
		r.twice_copy += x.copied[k] > 1;
	}
	r.relays = x.relays;
	free(out);
	free(in);
	free(outc);
	mr_free(&x);
	return r;
}

/* Is every stream within its bounds, and the totals too (eligible members)? */
static inline int mr_balanced(const tl *t, const pl_view *v, int streams, int cluster, char *why, size_t n)
{
	mirror x;
	mr_init(&x, t);
	for (uint32_t m = 0; m < t->nm; m++) {
		x.tot[m] = bu_total(v, m);
		for (uint32_t s = 0; s < t->ns; s++)
			x.cnt[s * t->nm + m] = bu_lead(v, s, m);
	}
	int ok = 1;
	for (uint32_t s = 0; s < t->ns && streams && ok; s++)
		if (mr_dist(&x, s)) {
			snprintf(why, n, "stream %u outside its bounds", s);
			ok = 0;
		}
	if (ok && cluster && mr_dist(&x, PL_NONE)) {
		snprintf(why, n, "totals outside their bounds");
		ok = 0;
	}
	mr_free(&x);
	return ok;
}

/* Is there any move the rules allow that lowers a stream's distance (s a
 * stream), or the cluster's while every stream keeps its bounds on both
 * members (s = PL_NONE)? By brute force over every shard and member, zones
 * and caps honoured: what a "blocked" status claims does not exist. */
static inline int mr_move_exists(const tl *t, const pl_view *v, uint32_t s)
{
	mirror x;
	mr_init(&x, t);
	for (uint32_t m = 0; m < t->nm; m++) {
		x.tot[m] = bu_total(v, m);
		for (uint32_t i = 0; i < t->ns; i++)
			x.cnt[i * t->nm + m] = bu_lead(v, i, m);
	}
	for (uint32_t k = 0; k < t->nk; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		x.nrep[k] = st.replica_count;
		memcpy(x.rep + (size_t)k * PL_MAX_REPLICAS, st.replicas, sizeof st.replicas);
		x.lead[k] = st.leader;
	}
	int found = 0;
	uint32_t L = mr_L(&x, s);
	for (uint32_t k = 0; k < t->nk && !found; k++) {
		uint32_t a = x.lead[k], ks = t->k[k].stream;
		if (a == PL_NONE || !mr_elig(&x, a) || (s != PL_NONE && ks != s))
			continue;
		for (uint32_t d = 0; d < t->nm && !found; d++) {
			if (d == a || !mr_elig(&x, d))
				continue;
			uint32_t ca = mr_count(&x, s, a), cd = mr_count(&x, s, d), fa, ea, fd, ed;
			mr_bounds(&x, L, a, &fa, &ea);
			mr_bounds(&x, L, d, &fd, &ed);
			if (!((ca > ea && cd < ed) || (ca > fa && cd < fd)))
				continue;
			if (s == PL_NONE && ks != PL_NONE) {
				uint32_t Ls = mr_L(&x, ks), f1, e1, f2, e2;
				mr_bounds(&x, Ls, a, &f1, &e1);
				mr_bounds(&x, Ls, d, &f2, &e2);
				uint32_t c1 = x.cnt[ks * x.nm + a], c2 = x.cnt[ks * x.nm + d];
				if (c1 < f1 + 1 || c2 + 1 > e2)
					continue;
				/* Nor may the stream's sum of count^2/weight rise,
				 * unless its distance falls. */
				if (c1 <= e1 && c2 >= f2 &&
				    (2 * (uint64_t)c2 + 1) * mr_w(&x, a) > (2 * (uint64_t)c1 - 1) * mr_w(&x, d))
					continue;
			}
			if (!mr_holds(&x, k, d)) {
				uint32_t cap = t->m[d].max_shards, before = mr_zones(&x, k);
				if (cap && mr_replicas(&x, d) >= cap)
					continue;
				uint32_t *r = x.rep + (size_t)k * PL_MAX_REPLICAS;
				for (uint32_t j = 0; j < x.nrep[k]; j++)
					if (r[j] == a)
						r[j] = d;
				uint32_t after = mr_zones(&x, k);
				for (uint32_t j = 0; j < x.nrep[k]; j++)
					if (r[j] == d)
						r[j] = a;
				if (after < before)
					continue;
			}
			found = 1;
		}
	}
	mr_free(&x);
	return found;
}

/* ---- the lower bound: a min-cost flow ------------------------------------ */

typedef struct arc {
	uint32_t to, cap;
	int64_t cost;
} arc;

typedef struct flow {
	uint32_t n, na, ca;
	arc *a;            /* arcs in pairs: i and i ^ 1 */
	uint32_t *first, *next;
} flow;

static inline void fl_arc(flow *f, uint32_t u, uint32_t w, uint32_t cap, int64_t cost)
{
	if (cap == 0)
		return;
	if (f->na + 2 > f->ca) {
		f->ca = f->ca ? 2 * f->ca : 256;
		f->a = realloc(f->a, f->ca * sizeof *f->a);
		f->next = realloc(f->next, f->ca * sizeof *f->next);
	}
	f->a[f->na] = (arc){w, cap, cost};
	f->next[f->na] = f->first[u];
	f->first[u] = f->na++;
	f->a[f->na] = (arc){u, 0, -cost};
	f->next[f->na] = f->first[w];
	f->first[w] = f->na++;
}

/* The fewest leader moves that bring every stream within its bounds and
 * the totals within theirs, with no zones or caps: choose final counts f
 * minimising the sum of max(0, f - c). Successive shortest paths with
 * Bellman-Ford; lower bounds forced with a large negative cost. */
static inline uint64_t mr_lower_bound(const tl *t, const pl_view *v)
{
	mirror x;
	mr_init(&x, t);
	for (uint32_t m = 0; m < t->nm; m++) {
		x.tot[m] = bu_total(v, m);
		for (uint32_t s = 0; s < t->ns; s++)
			x.cnt[s * t->nm + m] = bu_lead(v, s, m);
	}
	uint32_t ns = t->ns, nm = t->nm, S = 0, T = 1 + ns + nm;
	flow f;
	memset(&f, 0, sizeof f);
	f.n = T + 1;
	f.first = malloc(f.n * sizeof *f.first);
	for (uint32_t i = 0; i < f.n; i++)
		f.first[i] = UINT32_MAX;
	uint32_t LT = 0;
	for (uint32_t s = 0; s < ns; s++)
		LT += mr_L(&x, s);
	const int64_t BIG = 1000000;
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t L = mr_L(&x, s);
		fl_arc(&f, S, 1 + s, L, 0);
		for (uint32_t m = 0; m < nm; m++) {
			if (!mr_elig(&x, m))
				continue;
			uint32_t c = x.cnt[s * nm + m], lo, hi;
			mr_bounds(&x, L, m, &lo, &hi);
			uint32_t u = 1 + s, w = 1 + ns + m;
			uint32_t a1 = c < lo ? c : lo;           /* [1..min(c,lo)]: -BIG */
			fl_arc(&f, u, w, a1, -BIG);
			if (c < lo)
				fl_arc(&f, u, w, lo - c, -BIG + 1); /* [c+1..lo] */
			uint32_t top = c < hi ? c : hi;          /* [lo+1..min(c,hi)]: 0 */
			if (top > lo)
				fl_arc(&f, u, w, top - lo, 0);
			uint32_t from = c > lo ? c : lo;         /* [max(c,lo)+1..hi]: 1 */
			if (hi > from)
				fl_arc(&f, u, w, hi - from, 1);
		}
	}
	uint32_t LS = 0;
	for (uint32_t m = 0; m < nm; m++) {
		if (!mr_elig(&x, m))
			continue;
		uint32_t lo, hi;
		mr_bounds(&x, LT, m, &lo, &hi);
		fl_arc(&f, 1 + ns + m, T, lo, -BIG);
		fl_arc(&f, 1 + ns + m, T, hi - lo, 0);
		LS += hi;
	}
	(void)LS;
	int64_t *dist = malloc(f.n * sizeof *dist);
	uint32_t *via = malloc(f.n * sizeof *via);
	uint32_t sent = 0;
	while (sent < LT) {
		for (uint32_t i = 0; i < f.n; i++) {
			dist[i] = INT64_MAX;
			via[i] = UINT32_MAX;
		}
		dist[S] = 0;
		for (uint32_t round = 0; round < f.n; round++) {
			int changed = 0;
			for (uint32_t u = 0; u < f.n; u++) {
				if (dist[u] == INT64_MAX)
					continue;
				for (uint32_t e = f.first[u]; e != UINT32_MAX; e = f.next[e])
					if (f.a[e].cap && dist[u] + f.a[e].cost < dist[f.a[e].to]) {
						dist[f.a[e].to] = dist[u] + f.a[e].cost;
						via[f.a[e].to] = e;
						changed = 1;
					}
			}
			if (!changed)
				break;
		}
		if (dist[T] == INT64_MAX)
			break;
		uint32_t push = LT - sent;
		for (uint32_t w = T; w != S; w = f.a[via[w] ^ 1].to)
			push = f.a[via[w]].cap < push ? f.a[via[w]].cap : push;
		for (uint32_t w = T; w != S; w = f.a[via[w] ^ 1].to) {
			f.a[via[w]].cap -= push;
			f.a[via[w] ^ 1].cap += push;
		}
		sent += push;
	}
	/* Moves: units sent on cost-1 and (-BIG + 1) arcs, read off the reverse
	 * arcs' capacities. */
	uint64_t moves = 0;
	for (uint32_t e = 0; e < f.na; e += 2) {
		uint32_t u = f.a[e + 1].to, w = f.a[e].to;
		if (u >= 1 && u <= ns && w > ns && w < T && (f.a[e].cost == 1 || f.a[e].cost == -BIG + 1))
			moves += f.a[e + 1].cap;
	}
	free(dist);
	free(via);
	free(f.a);
	free(f.next);
	free(f.first);
	mr_free(&x);
	return moves;
}

#endif
