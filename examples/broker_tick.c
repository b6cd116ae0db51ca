/*
 * broker_tick.c - a broker control plane's tick loop.
 *
 * The controller keeps its own model of the cluster (brokers with their
 * rack, partitions with their replica list and leader) and, every tick:
 *  1. fills a pl_snapshot from the model: arrays it owns, ids pointing into
 *     the model's own strings (the same bytes at the same address every tick);
 *  2. builds the tick's view with last tick's view as a hint
 *     (pl_view_options.reuse): what still holds is checked and reused. The
 *     hint must stay valid while it is used: its snapshot alive and
 *     unchanged. So snapshot arrays and view memory are double-buffered: tick
 *     t writes buffer t % 2 while the hint, tick t - 1's view, still reads
 *     buffer (t - 1) % 2;
 *  3. asks pl_broker_plan() for at most MAX_MOVES moves;
 *  4. carries out each action on its model (here each copy is done before the
 *     next tick; a controller whose copies take longer lists them in the next
 *     snapshot as in flight, moving_to or a pl_copy, as region_tick.c does);
 *  5. once a tick is quiet (balanced, nothing emitted), marks b6 draining,
 *     and goes on until a tick is quiet again and b6 holds nothing.
 * Checks: b6 ends holding and leading nothing, the last status is balanced,
 * every broker leads within its bounds, and a view of the final model built
 * without a hint plans the same (nothing) as one with it. (Every tick also
 * compares the plan with a fresh view's: a self-check, not a controller's.)
 *
 * Build: cc broker_tick.c $(pkg-config --cflags --libs libplacement)
 * Run:   ./a.out [-v]    (-v prints every action, not only each tick's first)
 */
#include <placement.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_BROKERS 7
#define N_TOPICS 3
#define N_PARTS 48
#define MAX_MOVES 6
#define MAX_TICKS 40
#define OUT_CAP 64   /* placing and failover are not moves: room past max_moves */
#define DRAINED 6u   /* b6, alone in rack d: the broker being decommissioned */

/* The controller's own model: brokers, and partitions naming them by index. */
static struct broker {
	char id[8], rack[8];
	int draining;
} brokers[N_BROKERS];
static struct partition {
	char key[32];
	uint32_t topic, leader, nrep, rep[PL_MAX_REPLICAS];
} parts[N_PARTS];
static const char *const topic_names[N_TOPICS] = {"orders", "clicks", "audit"};
static const uint32_t topic_parts[N_TOPICS] = {24, 16, 8};

/* One tick's snapshot arrays and the view built on them. */
struct tick_buf {
	pl_member members[N_BROKERS];
	pl_stream streams[N_TOPICS];
	pl_shard shards[N_PARTS];
	pl_snapshot snap;
	void *mem;
	size_t cap;
	pl_view *view;
};

static pl_bytes str(const char *s)
{
	return (pl_bytes){s, strlen(s)};
}

/* An uneven start: orders led from rack a, b0 holding 32 replicas, b1 16. */
static void init_cluster(void)
{
	static const uint32_t third[4] = {4, 6, 6, 5};
	uint32_t n = 0;
	for (uint32_t i = 0; i < N_BROKERS; i++) {
		snprintf(brokers[i].id, sizeof brokers[i].id, "b%u", i);
		brokers[i].rack[0] = "aabbccd"[i];
	}
	for (uint32_t t = 0; t < N_TOPICS; t++)
		for (uint32_t k = 0; k < topic_parts[t]; k++, n++) {
			struct partition *p = &parts[n];
			snprintf(p->key, sizeof p->key, "%s/%02u", topic_names[t], k);
			p->topic = t;
			p->nrep = 3;
			p->rep[0] = n % 3 ? 0 : 1;
			p->rep[1] = n % 2 ? 2 : 3;
			p->rep[2] = third[n % 4];
			p->leader = t == 0 ? p->rep[0] : p->rep[n % 3];
		}
}

static void fill_snapshot(struct tick_buf *tb)
{
	for (uint32_t i = 0; i < N_BROKERS; i++)
		tb->members[i] = (pl_member){.id = str(brokers[i].id), .zone = str(brokers[i].rack),
					    .flags = brokers[i].draining ? PL_MEMBER_DRAINING : 0};
	for (uint32_t t = 0; t < N_TOPICS; t++)
		tb->streams[t] = (pl_stream){.id = str(topic_names[t])};
	for (uint32_t k = 0; k < N_PARTS; k++) {
		const struct partition *p = &parts[k];
		tb->shards[k] = (pl_shard){.key = str(p->key), .stream = p->topic, .leader = p->leader,
					   .moving_to = PL_NONE, .replica_count = p->nrep};
		memcpy(tb->shards[k].replicas, p->rep, p->nrep * sizeof p->rep[0]);
	}
	tb->snap = (pl_snapshot){.version = PL_SNAPSHOT_VERSION, .members = tb->members, .n_members = N_BROKERS,
				 .streams = tb->streams, .n_streams = N_TOPICS, .shards = tb->shards,
				 .n_shards = N_PARTS};
}

/* Build tb's view of tb's snapshot; hint is the previous tick's view or NULL. */
static int build_view(struct tick_buf *tb, const pl_view *hint)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	pl_diag d;
	opt.reuse = hint;
	size_t size = pl_view_size_opt(&tb->snap, &opt);
	if (size > tb->cap) {
		free(tb->mem);
		if ((tb->mem = malloc(size)) == NULL)
			return fprintf(stderr, "out of memory\n"), -1;
		tb->cap = size;
	}
	int rc = pl_view_init(&tb->view, tb->mem, tb->cap, &tb->snap, &opt, &d);
	if (rc < 0)
		fprintf(stderr, "view: %s (kind %u, index %u)\n", pl_strerror(rc), d.kind, d.index);
	return rc;
}

/* Self-check: a view built without a hint, in its own memory, plans the same. */
static int fresh_agrees(const pl_snapshot *snap, const pl_broker_config *cfg, const pl_action *out, int n,
			const pl_plan_info *info)
{
	static pl_action check[OUT_CAP];
	pl_plan_info info2;
	size_t size = pl_view_size(snap);
	void *mem = malloc(size);
	pl_view *v;
	int n2 = mem ? pl_view_init(&v, mem, size, snap, NULL, NULL) : PL_E_INVAL;
	if (n2 == 0)
		n2 = pl_broker_plan(v, cfg, check, OUT_CAP, &info2, NULL);
	free(mem);
	return n2 == n && info2.status == info->status && memcmp(out, check, (size_t)n * sizeof out[0]) == 0;
}

/* The slot of member m in p's replica list, or -1. */
static int slot(const struct partition *p, uint32_t m)
{
	for (uint32_t i = 0; i < p->nrep; i++)
		if (p->rep[i] == m)
			return (int)i;
	return -1;
}

/* Carry out one action on the model: what pl_view_apply(3) does to a view. */
static int carry_out(const pl_action *a)
{
	struct partition *p = &parts[a->shard];
	int from = slot(p, a->from), to = slot(p, a->to);
	switch (a->kind) {
	case PL_ACTION_SET_LEADER: /* placing or failover: `to` already holds a replica */
		if (to < 0)
			return -1;
		break;
	case PL_ACTION_MOVE_LEADER: /* STAGE_FIRST: `to` holds none; it copies the old leader's, which goes */
		if (p->leader != a->from || (to < 0) != !!(a->flags & PL_ACTION_STAGE_FIRST))
			return -1;
		if (to < 0)
			p->rep[from] = a->to;
		break;
	case PL_ACTION_ADD_REPLICA: /* a new partition's replicas, or a failover with no live follower */
		if (to >= 0 || p->nrep == PL_MAX_REPLICAS)
			return -1;
		p->rep[p->nrep++] = a->to;
		return 0;
	case PL_ACTION_MOVE_REPLICA: /* always a copy; CARRIES_LEADER: `from` led, so `to` leads after */
		if (to >= 0 || from < 0 || (p->leader == a->from) != !!(a->flags & PL_ACTION_CARRIES_LEADER))
			return -1;
		p->rep[from] = a->to;
		if (p->leader != a->from)
			return 0;
		break;
	default: /* SET_OVERRIDE, DROP_OVERRIDE are the fleet's, never the broker's */
		return -1;
	}
	p->leader = a->to;
	return 0;
}

static void tally(uint32_t m, uint32_t *leads, uint32_t *reps)
{
	*leads = *reps = 0;
	for (uint32_t k = 0; k < N_PARTS; k++) {
		*leads += parts[k].leader == m;
		*reps += slot(&parts[k], m) >= 0;
	}
}

int main(int argc, char **argv)
{
	static struct tick_buf buf[2];
	static pl_action out[OUT_CAP];
	pl_broker_config cfg = PL_BROKER_CONFIG_INIT;
	pl_plan_info info = {0};
	const pl_view *hint = NULL;
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0, tick, n, total = 0;
	uint32_t leads, reps;
	char line[512];

	cfg.max_moves = MAX_MOVES;
	init_cluster();
	printf("7 brokers in racks a a b b c c d, 48 partitions of 3 topics, RF 3, max_moves %d\n"
	       "each tick: actions, status, then leaders/replicas per broker (* draining)\n", MAX_MOVES);
	for (tick = 1; tick <= MAX_TICKS; tick++) {
		struct tick_buf *tb = &buf[tick & 1];
		pl_diag d;
		fill_snapshot(tb);
		if (build_view(tb, hint) < 0)
			return 1;
		if ((n = pl_broker_plan(tb->view, &cfg, out, OUT_CAP, &info, &d)) < 0)
			return fprintf(stderr, "plan: %s\n", pl_strerror(n)), 1;
		if (!fresh_agrees(&tb->snap, &cfg, out, n, &info))
			return fprintf(stderr, "FAIL: tick %d: the reused view planned otherwise than a fresh one\n", tick), 1;
		printf("tick %2d: %d action%s %-10s", tick, n, n == 1 ? ", " : "s,", pl_status_name(info.status));
		for (int i = 0; i < n; i++)
			if (carry_out(&out[i]) < 0)
				return fprintf(stderr, "FAIL: tick %d: %s does not fit the model\n", tick,
					       pl_action_kind_name(out[i].kind)), 1;
		for (uint32_t m = 0; m < N_BROKERS; m++) {
			tally(m, &leads, &reps);
			printf(" %s%s %u/%u", brokers[m].id, brokers[m].draining ? "*" : "", leads, reps);
		}
		putchar('\n');
		for (int i = 0; i < n && (verbose || i < 1); i++) {
			pl_action_explain(&tb->snap, &out[i], line, sizeof line);
			printf("    %s%s\n", line, !verbose && n > 1 ? " ..." : "");
		}
		total += n;
		hint = tb->view; /* tick t + 1 writes the other buffer: this view and its snapshot stay intact */
		if (n == 0 && info.status == PL_STATUS_BALANCED) {
			tally(DRAINED, &leads, &reps);
			if (brokers[DRAINED].draining && leads + reps == 0)
				break;
			if (!brokers[DRAINED].draining)
				printf("-- balanced; decommissioning b6: marked draining\n");
			brokers[DRAINED].draining = 1;
		}
	}
	printf("%d actions in %d ticks\n", total, tick);

	tally(DRAINED, &leads, &reps); /* the loop ended, b6 is empty, the last status is balanced */
	if (tick > MAX_TICKS || leads != 0 || reps != 0 || info.status != PL_STATUS_BALANCED)
		return fprintf(stderr, "FAIL: b6 leads %u, holds %u; last status %s\n", leads, reps,
			       pl_status_name(info.status)), 1;

	/* The final model, viewed with the last view as a hint and without: same (empty) plan. */
	struct tick_buf *tb = &buf[(tick + 1) & 1];
	fill_snapshot(tb);
	if (build_view(tb, hint) < 0)
		return 1;
	n = pl_broker_plan(tb->view, &cfg, out, OUT_CAP, &info, NULL);
	if (n != 0 || info.status != PL_STATUS_BALANCED || !fresh_agrees(&tb->snap, &cfg, out, n, &info))
		return fprintf(stderr, "FAIL: final plan: %d actions, %s\n", n, pl_status_name(info.status)), 1;
	for (uint32_t m = 0; m < N_BROKERS; m++) {
		pl_tally t = {0};
		pl_view_member_tally(tb->view, m, &t); /* floor and ceiling: the cluster's bounds for m */
		if (m != DRAINED && (t.leaders < t.floor || t.leaders > t.ceiling))
			return fprintf(stderr, "FAIL: %s leads %u, bounds [%u, %u]\n", brokers[m].id, t.leaders,
				       t.floor, t.ceiling), 1;
	}
	printf("ok: b6 holds nothing; every broker leads within its bounds; a fresh view plans the same\n");
	free(buf[0].mem);
	free(buf[1].mem);
	return 0;
}
