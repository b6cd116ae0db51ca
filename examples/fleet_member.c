/*
 * fleet_member.c - a fleet member's tick loop.
 *
 * A fleet has no leader process: every member runs the same code on the
 * same snapshot and decides only for itself. The record of which shards
 * live off their ring home is a text document (the override document,
 * fleet.h) kept in a shared store. This program runs the members of one
 * fleet side by side; every tick:
 *  1. reads the document from the store: pl_fleet_doc_read() against a view
 *     of the members and shards, giving the overrides;
 *  2. builds the tick's view with those overrides (that first view as the
 *     hint: same arrays, so its orders are reused), and fills its ring homes
 *     once (pl_fleet_owners());
 *  3. each member decides for itself, pl_fleet_decide() with cfg.self, on its
 *     own pl_view_copy() of that view, and records its last move;
 *  4. each member's actions are written to the store (here: applied to one
 *     merged copy, pl_view_apply()), and the document is written back with
 *     pl_fleet_doc_format().
 * The story: 40 shards on m0..m3 settle from their uneven ring homes; then m1
 * lags for two ticks (lag overrides) and recovers (they return home); then
 * m4 joins. Each phase runs until every member reports balanced.
 * Checks: no member that received a count or spread move in a tick owns
 * more than its share after it (the members decided independently, so this
 * is the fleet's promise that they never push a target past its share; a lag
 * move may, by design: it goes to the least loaded member); in the end every
 * member owns within [floor, share]. Each member's status is read on its own
 * copy, which holds only its own moves: all report balanced on a quiet tick.
 *
 * Build: cc fleet_member.c $(pkg-config --cflags --libs libplacement)
 */
#include <placement.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_MAX 5      /* m4 joins later */
#define N_SHARDS 40
#define MAX_TICKS 60
#define LAGGER 1u    /* m1 */
#define ACT_CAP (N_SHARDS + 8)

static char member_ids[N_MAX][4], shard_keys[N_SHARDS][8];
static pl_member members[N_MAX];
static pl_shard shards[N_SHARDS];
static pl_override overrides[N_SHARDS];

static pl_view *new_view(const pl_snapshot *s, const pl_view *hint, void **mem)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	pl_view *v = NULL;
	pl_diag d;
	opt.reuse = hint;
	size_t size = pl_view_size_opt(s, &opt);
	int rc = (*mem = malloc(size)) ? pl_view_init(&v, *mem, size, s, &opt, &d) : PL_E_INVAL;
	if (rc < 0)
		fprintf(stderr, "view: %s (kind %u, index %u)\n", pl_strerror(rc), d.kind, d.index);
	return rc < 0 ? NULL : v;
}

static pl_view *copy_view(const pl_view *src, void **mem)
{
	size_t size = pl_view_size(pl_view_snapshot(src)); /* default options, as new_view's */
	pl_view *v = NULL;
	if ((*mem = malloc(size)) == NULL || pl_view_copy(&v, *mem, size, src) < 0)
		return NULL;
	return v;
}

/* Owned shards per member; on a fresh view this fills its ring homes. */
static int count_owned(pl_view *v, uint32_t n, uint32_t *owned)
{
	uint32_t owner[N_SHARDS];
	if (pl_fleet_owners(v, owner, N_SHARDS, NULL) != N_SHARDS)
		return -1;
	memset(owned, 0, n * sizeof owned[0]);
	for (uint32_t k = 0; k < N_SHARDS; k++)
		owned[owner[k]]++;
	return 0;
}

int main(void)
{
	uint64_t last_move[N_MAX];
	uint32_t n = 4, lag_ticks = 0, phase = 0, owned[N_MAX] = {0}, lo[N_MAX], hi[N_MAX];
	char *doc = malloc(32);
	size_t doc_len;
	int tick;

	for (uint32_t i = 0; i < N_MAX; i++) {
		snprintf(member_ids[i], sizeof member_ids[i], "m%u", i);
		members[i] = (pl_member){.id = {member_ids[i], strlen(member_ids[i])}};
		last_move[i] = PL_FLEET_NEVER;
	}
	for (uint32_t k = 0; k < N_SHARDS; k++) {
		snprintf(shard_keys[k], sizeof shard_keys[k], "s/%02u", k);
		shards[k] = (pl_shard){.key = {shard_keys[k], strlen(shard_keys[k])}, .load = (k * 37) % 100,
				       .stream = PL_NONE, .leader = PL_NONE, .moving_to = PL_NONE};
	}
	if (doc == NULL)
		return 1;
	doc_len = (size_t)snprintf(doc, 32, "placement-overrides 1\n"); /* the store starts empty */
	printf("40 shards on m0..m3; each tick: shards owned per member after it, moves, overrides\n");

	for (tick = 1; tick <= MAX_TICKS; tick++) {
		pl_snapshot s = {.version = PL_SNAPSHOT_VERSION, .members = members, .n_members = n,
				 .shards = shards, .n_shards = N_SHARDS};
		pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
		pl_action act[ACT_CAP];
		pl_plan_info info;
		pl_view_counts st;
		pl_diag d;
		void *mem0, *mem, *store_mem;
		uint32_t skipped, balanced = 0, moves = 0, by_count[N_MAX] = {0};
		char line[512] = "";

		cfg.now = (uint64_t)tick * 10; /* seconds */
		cfg.return_home_age = 20;
		members[LAGGER].flags = lag_ticks > 0 ? PL_MEMBER_LAGGING : 0;
		for (uint32_t m = 0; m < n; m++)
			members[m].load = owned[m] * 10u; /* its load: what it owned last tick */

		/* 1. the document, read against a view of this tick's members and shards */
		pl_view *v0 = new_view(&s, NULL, &mem0);
		int n_ov = v0 ? pl_fleet_doc_read(v0, doc, doc_len, overrides, N_SHARDS, &skipped, &d) : PL_E_INVAL;
		if (n_ov < 0)
			return fprintf(stderr, "doc line %u: %s\n", d.other, pl_strerror(n_ov)), 1;
		/* 2. the tick's view with them (v0 as the hint), ring homes filled once */
		s.overrides = overrides;
		s.n_overrides = (uint32_t)n_ov;
		pl_view *v = new_view(&s, v0, &mem), *store;
		if (v == NULL || count_owned(v, n, owned) < 0 || (store = copy_view(v, &store_mem)) == NULL)
			return fprintf(stderr, "FAIL: tick %d: view\n", tick), 1;
		/* 3. every member decides for itself, on its own copy */
		for (uint32_t m = 0; m < n; m++) {
			void *my_mem;
			pl_view *mine = copy_view(v, &my_mem);
			cfg.self = m;
			cfg.last_move = last_move[m];
			int k = mine ? pl_fleet_decide(mine, &cfg, act, ACT_CAP, &info, &d) : PL_E_INVAL;
			if (k < 0)
				return fprintf(stderr, "FAIL: %s decides: %s\n", member_ids[m], pl_strerror(k)), 1;
			balanced += info.status == PL_STATUS_BALANCED;
			/* 4. and writes its actions to the store */
			for (int i = 0; i < k; i++) {
				if (pl_view_apply(store, &act[i]) < 0)
					return fprintf(stderr, "FAIL: %s's action does not fit the store\n", member_ids[m]), 1;
				if (act[i].reason == PL_REASON_VOID_OVERRIDE || act[i].reason == PL_REASON_REDUNDANT_OVERRIDE)
					continue; /* clean-up: not a move */
				last_move[m] = cfg.now;
				by_count[act[i].to] |= act[i].reason == PL_REASON_COUNT || act[i].reason == PL_REASON_SPREAD;
				if (moves++ == 0)
					pl_action_explain(&s, &act[i], line, sizeof line);
			}
			free(my_mem);
		}
		if (count_owned(store, n, owned) < 0 || pl_view_stats(store, &st) < 0)
			return 1;
		printf("tick %2d%s:", tick, lag_ticks ? " m1 lags" : "        ");
		for (uint32_t m = 0; m < n; m++) {
			pl_tally t; /* its floor and ceiling: the fleet's floor and share for it */
			pl_view_member_tally(v, m, &t);
			lo[m] = t.floor;
			hi[m] = t.ceiling;
			printf(" %s %2u", member_ids[m], owned[m]);
			if (by_count[m] && owned[m] > hi[m])
				return fprintf(stderr, "\nFAIL: %s was pushed past its share %u\n", member_ids[m], hi[m]), 1;
		}
		printf(" | %u move%s %u overrides, %u/%u balanced\n", moves, moves == 1 ? "," : "s,", st.overrides,
		       balanced, n);
		if (moves)
			printf("    %s%s\n", line, moves > 1 ? " ..." : "");
		/* write the document back to the store */
		int len = pl_fleet_doc_format(store, NULL, 0);
		char *next = len >= 0 ? malloc((size_t)len + 1) : NULL;
		if (next == NULL || pl_fleet_doc_format(store, next, (size_t)len + 1) != len)
			return 1;
		free(doc);
		doc = next;
		doc_len = (size_t)len;
		free(mem0);
		free(mem);
		free(store_mem);

		if (lag_ticks > 0 && --lag_ticks == 0)
			printf("-- m1 recovers\n");
		if (balanced == n && lag_ticks == 0) {
			if (phase == 2)
				break;
			if (phase++ == 0) {
				lag_ticks = 2;
				printf("-- balanced; m1 starts lagging\n");
			} else {
				n = 5;
				printf("-- balanced; m4 joins\n");
			}
		}
	}
	if (tick > MAX_TICKS)
		return fprintf(stderr, "FAIL: not balanced after %d ticks\n", MAX_TICKS), 1;
	for (uint32_t m = 0; m < n; m++)
		if (owned[m] < lo[m] || owned[m] > hi[m])
			return fprintf(stderr, "FAIL: %s owns %u, bounds [%u, %u]\n", member_ids[m], owned[m], lo[m], hi[m]), 1;
	printf("ok: every member owns within [floor, share]; the store's document:\n%s", doc);
	free(doc);
	return 0;
}
