/*
 * region_tick.c - a region control plane's tick loop: replica sets that
 * grow onto joining members, copies staged first and committed later.
 *
 * The model keeps members (zone, when they joined, the shard map version
 * they have installed) and regions (peer set, primary, epoch). Every tick:
 *  1. fills a snapshot from the model, listing the copies staged last tick
 *     as copies in flight (pl_copy): the view counts them finished and
 *     leaves their regions alone;
 *  2. calls pl_region_plan();
 *  3. commits the copies that were in flight (they had a tick to finish): the
 *     peer joins the region's set, replacing `from` (and taking the primary
 *     when `from` held it) for a move, and the epoch goes up by one, checked
 *     first against the epoch the copy was staged at (the compare-and-set
 *     region.h speaks of);
 *  4. carries out the new actions: ADD_REPLICA and MOVE_REPLICA carry
 *     PL_ACTION_STAGE_FIRST, so they are staged (a copy in flight for the
 *     next tick); SET_LEADER and MOVE_LEADER move no data and are committed
 *     now, each bumping the epoch;
 *  5. every member installs the newest shard map (map_version), so a member
 *     that just joined is behind for a tick (not ready: the plan stalls).
 * The story: regions under their RF grow until balanced; then m3 joins and
 * takes its share of peers, primaries following the newest peer.
 * Checks: each tick's view (copies in flight counted finished) holds the
 * peers and primaries the previous tick's view held after its plan, so the
 * model carried the actions out as the library counts them; the last tick
 * is quiet and balanced with nothing in flight, every region holds exactly
 * the effective RF of peers, and m3 holds at least its fair share
 * F = floor(peers / members).
 *
 * Build: cc region_tick.c $(pkg-config --cflags --libs libplacement)
 */
#include <placement.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_MAX 4     /* m3 joins later */
#define N_REGIONS 12
#define MAX_TICKS 40
#define CAP 32

struct member {
	char id[4], zone[4];
	uint64_t joined_at, map_version;
};
struct region {
	char key[16];
	uint64_t epoch;
	uint32_t primary, npeers, peers[PL_MAX_REPLICAS];
};
struct staged { /* a copy in flight */
	uint32_t region, to, from;
	uint64_t epoch; /* the region's epoch when it was staged */
};

static struct member mem_[N_MAX];
static struct region reg[N_REGIONS];
static struct staged flight[N_REGIONS], next_flight[N_REGIONS];
static uint32_t n_members = 3, n_flight, n_next;

static int is_peer(const struct region *r, uint32_t m)
{
	for (uint32_t i = 0; i < r->npeers; i++)
		if (r->peers[i] == m)
			return 1;
	return 0;
}

/* The view of tick t + 1 (copies in flight counted finished) holds what tick t's
 * view held after its plan: the same primary and peers, whatever their order. */
static int same_layout(const pl_shard_state *a, const pl_shard_state *b)
{
	uint32_t hit = 0;
	for (uint32_t i = 0; i < a->replica_count; i++)
		for (uint32_t j = 0; j < b->replica_count; j++)
			hit += a->replicas[i] == b->replicas[j];
	return a->leader == b->leader && a->replica_count == b->replica_count && hit == a->replica_count;
}

/* 3. a staged copy finished: commit it, if the region is still where it was */
static int commit(const struct staged *c)
{
	struct region *r = &reg[c->region];
	if (r->epoch != c->epoch || is_peer(r, c->to))
		return -1;
	if (c->from == PL_NONE)
		r->peers[r->npeers++] = c->to;
	else
		for (uint32_t i = 0; i < r->npeers; i++)
			if (r->peers[i] == c->from)
				r->peers[i] = c->to;
	if (c->from != PL_NONE && r->primary == c->from)
		r->primary = c->to;
	r->epoch++;
	return 0;
}

/* 4. carry out one new action: stage a copy, or commit a primary change */
static int carry_out(const pl_action *a)
{
	struct region *r = &reg[a->shard];
	switch (a->kind) {
	case PL_ACTION_ADD_REPLICA:  /* UNDER_RF */
	case PL_ACTION_MOVE_REPLICA: /* IDLE_MEMBER */
		if (!(a->flags & PL_ACTION_STAGE_FIRST) || is_peer(r, a->to) ||
		    (a->kind == PL_ACTION_MOVE_REPLICA) != (a->from != PL_NONE))
			return -1;
		next_flight[n_next++] = (struct staged){a->shard, a->to, a->kind == PL_ACTION_ADD_REPLICA ? PL_NONE : a->from,
							r->epoch};
		return 0;
	case PL_ACTION_SET_LEADER:  /* NO_PRIMARY: claim */
	case PL_ACTION_MOVE_LEADER: /* NEWEST_PEER, LOAD or PRIMARY_SKEW */
		if (!is_peer(r, a->to))
			return -1;
		r->primary = a->to;
		r->epoch++;
		return 0;
	default:
		return -1;
	}
}

int main(void)
{
	static pl_member members[N_MAX];
	static pl_shard shards[N_REGIONS];
	static pl_copy copies[N_REGIONS];
	pl_region_config cfg = PL_REGION_CONFIG_INIT;
	pl_action out[CAP];
	pl_region_stall stalls[4];
	pl_plan_info info = {0};
	pl_shard_state after[N_REGIONS], now;
	uint32_t held[N_MAX] = {0}, joined = 0;
	int tick, n = 0, rf = 0;
	char line[512];

	for (uint32_t i = 0; i < N_MAX; i++) {
		snprintf(mem_[i].id, sizeof mem_[i].id, "m%u", i);
		snprintf(mem_[i].zone, sizeof mem_[i].zone, "z%u", i);
		mem_[i].joined_at = i < 3 ? 100 + i : 0; /* m3's is set when it joins */
	}
	for (uint32_t k = 0; k < N_REGIONS; k++) { /* an uneven start: a few peers each, some none */
		struct region *r = &reg[k];
		snprintf(r->key, sizeof r->key, "region/%02u", k);
		r->npeers = k % 4 == 3 ? 0 : 1 + k % 3;
		for (uint32_t i = 0; i < r->npeers; i++)
			r->peers[i] = (k + i) % 3;
		r->primary = r->npeers ? r->peers[0] : PL_NONE;
	}
	printf("12 regions on m0..m2, RF %u; each tick: actions, status, peers held per member\n",
	       cfg.replication_factor);
	for (tick = 1; tick <= MAX_TICKS; tick++) {
		/* 1. the snapshot: the model, with last tick's staged copies in flight */
		for (uint32_t i = 0; i < n_members; i++)
			members[i] = (pl_member){.id = {mem_[i].id, strlen(mem_[i].id)}, .zone = {mem_[i].zone, 2},
						 .joined_at = mem_[i].joined_at, .map_version = mem_[i].map_version};
		for (uint32_t k = 0; k < N_REGIONS; k++) {
			shards[k] = (pl_shard){.key = {reg[k].key, strlen(reg[k].key)}, .epoch = reg[k].epoch,
					       .stream = PL_NONE, .leader = reg[k].primary, .moving_to = PL_NONE,
					       .replica_count = reg[k].npeers};
			memcpy(shards[k].replicas, reg[k].peers, sizeof reg[k].peers);
		}
		for (uint32_t c = 0; c < n_flight; c++)
			copies[c] = (pl_copy){flight[c].region, flight[c].to, flight[c].from, 0};
		pl_snapshot snap = {.version = PL_SNAPSHOT_VERSION, .members = members, .n_members = n_members,
				    .shards = shards, .n_shards = N_REGIONS, .copies = copies, .n_copies = n_flight};
		size_t size = pl_view_size(&snap);
		void *vmem = malloc(size);
		pl_view *v;
		pl_diag d;
		if (vmem == NULL || pl_view_init(&v, vmem, size, &snap, NULL, &d) < 0)
			return fprintf(stderr, "view: kind %u index %u\n", d.kind, d.index), 1;
		for (uint32_t k = 0; tick > 1 && k < N_REGIONS; k++)
			if (pl_view_shard_state(v, k, &now) < 0 || !same_layout(&now, &after[k]))
				return fprintf(stderr, "FAIL: tick %d: the model of %s is not what the plan left\n", tick,
					       reg[k].key), 1;
		/* 2. plan */
		if ((n = pl_region_plan(v, &cfg, out, CAP, &info, stalls, 4, &d)) < 0)
			return fprintf(stderr, "plan: %s\n", pl_strerror(n)), 1;
		rf = pl_region_effective_rf(v, &cfg, NULL);
		for (uint32_t k = 0; k < N_REGIONS; k++)
			pl_view_shard_state(v, k, &after[k]);
		/* 3. commit what was in flight; 4. stage or commit the new actions */
		uint32_t committed = n_flight;
		for (uint32_t c = 0; c < n_flight; c++)
			if (commit(&flight[c]) < 0)
				return fprintf(stderr, "FAIL: %s moved under a staged copy\n", reg[flight[c].region].key), 1;
		n_next = 0;
		for (int i = 0; i < n; i++)
			if (carry_out(&out[i]) < 0)
				return fprintf(stderr, "FAIL: tick %d: %s does not fit the model\n", tick,
					       pl_action_kind_name(out[i].kind)), 1;
		memcpy(flight, next_flight, n_next * sizeof next_flight[0]);
		n_flight = n_next;
		/* 5. every member installs the newest map */
		uint64_t newest = 0;
		for (uint32_t k = 0; k < N_REGIONS; k++)
			newest = reg[k].epoch > newest ? reg[k].epoch : newest;
		for (uint32_t i = 0; i < n_members; i++)
			mem_[i].map_version = newest;

		memset(held, 0, sizeof held);
		for (uint32_t k = 0; k < N_REGIONS; k++)
			for (uint32_t i = 0; i < reg[k].npeers; i++)
				held[reg[k].peers[i]]++;
		printf("tick %2d: %2d actions, %u committed, %u staged, %-10s peers", tick, n, committed, n_flight,
		       pl_status_name(info.status));
		for (uint32_t i = 0; i < n_members; i++)
			printf(" %s %2u", mem_[i].id, held[i]);
		putchar('\n');
		if (info.status == PL_STATUS_STALLED)
			printf("    %s stalled: %s (member %s)\n", reg[stalls[0].shard].key,
			       pl_region_stall_name(stalls[0].reason),
			       stalls[0].member == PL_NONE ? "-" : mem_[stalls[0].member].id);
		if (n > 0 && pl_action_explain(&snap, &out[0], line, sizeof line) >= 0)
			printf("    %s%s\n", line, n > 1 ? " ..." : "");
		free(vmem);
		/* quiet: nothing was in flight (a region with a copy in flight is skipped, not
		 * reported: the status can say balanced while it waits), nothing emitted */
		if (committed == 0 && n == 0 && info.status == PL_STATUS_BALANCED) {
			if (joined)
				break;
			joined = n_members++; /* m3 joins: newest, and its map is not installed yet */
			mem_[joined].joined_at = 200;
			printf("-- balanced; m3 joins\n");
		}
	}
	uint32_t total = 0, fair;
	for (uint32_t i = 0; i < n_members; i++)
		total += held[i];
	fair = total / n_members;
	if (tick > MAX_TICKS || held[joined] < fair)
		return fprintf(stderr, "FAIL: after %d ticks m3 holds %u peers, fair share %u\n", tick, held[joined], fair), 1;
	for (uint32_t k = 0; k < N_REGIONS; k++)
		if (reg[k].npeers != (uint32_t)rf || reg[k].primary == PL_NONE)
			return fprintf(stderr, "FAIL: %s has %u peers, effective RF %d\n", reg[k].key, reg[k].npeers, rf), 1;
	printf("ok: every region at the effective RF %d with a primary; m3 holds %u peers, fair share %u\n", rf,
	       held[joined], fair);
	return 0;
}
