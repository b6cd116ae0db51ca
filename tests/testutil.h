/*
 * testutil.h - building layouts for the Check suites.
 *
 * A tl holds growable arrays of members, streams, shards and overrides with
 * owned strings, and builds a pl_snapshot and a pl_view from them. Random
 * layouts take a seed; tl_seed() reads PL_TEST_SEED so a failing property
 * can be replayed exactly, and every property failure message prints it.
 */
#ifndef PL_TESTUTIL_H
#define PL_TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "placement.h"

typedef struct tl {
	pl_member *m;
	pl_stream *s;
	pl_shard *k;
	pl_override *o;
	uint32_t nm, ns, nk, no;
	uint32_t cm, cs, ck, co;
	char **str;
	uint32_t nstr, cstr;
	pl_snapshot snap;
	void *mem;
	pl_view *view;
	/* Set by tl_shuffled(): new index of each old element. */
	uint32_t *perm_m, *perm_s, *perm_k, *perm_o;
} tl;

tl *tl_new(void);
void tl_free(tl *t);

/* A string the layout owns. */
const char *tl_str(tl *t, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

uint32_t tl_member(tl *t, const char *id, const char *zone);
uint32_t tl_stream(tl *t, const char *id);
/* A shard with `nrep` replicas given after it; leader PL_NONE or one of them. */
uint32_t tl_shard(tl *t, const char *key, uint32_t stream, uint32_t leader, uint32_t nrep, ...);
uint32_t tl_override(tl *t, uint32_t shard, uint32_t member, uint32_t origin, uint64_t since);

const pl_snapshot *tl_snap(tl *t);
/* Build the view (any previous one is dropped); returns the rc of pl_view_init. */
int tl_view_rc(tl *t, uint32_t scorer, pl_diag *diag);
/* Build the view and fail the test if it cannot be built. */
pl_view *tl_view(tl *t, uint32_t scorer);

/* A second view beside t's: a fresh one of t's snapshot (the scorer of
 * tl_view(t, 0)), or a copy of v (pl_view_copy()), in memory of its own that
 * the caller frees (*mem). For replaying a call's actions on the view it
 * started from. */
pl_view *tl_view_fresh(tl *t, void **mem);
pl_view *tl_view_clone(tl *t, const pl_view *v, void **mem);
/* Apply n actions to v in order; the test fails if one does not apply. */
void tl_apply(pl_view *v, const pl_action *a, uint32_t n);

/* The sentence of an action (pl_action_explain() on t's snapshot), into a
 * buffer the next call reuses; the test fails if there is none. */
const char *tl_say(tl *t, const pl_action *a);

/* A copy with every array shuffled and indices remapped (perm_* say where). */
tl *tl_shuffled(const tl *src, uint64_t *rng);

/* splitmix64 */
uint64_t tl_rand(uint64_t *state);
uint32_t tl_below(uint64_t *state, uint32_t n);
/* PL_TEST_SEED from the environment, else `fallback`. */
uint64_t tl_seed(uint64_t fallback);
/* Property iterations: PL_TEST_ITERS from the environment (1 replays the
 * seed a failure printed), else `fallback`, lowered to PL_TEST_ITERS_MAX when
 * that is set and smaller (make sanitize: SAN_ITERS). A cap, not a count: a
 * property whose default is below it keeps its default. */
uint32_t tl_iters(uint32_t fallback);

/* Add members drawn with tl_below(rng, t->nm) to shard k's replicas,
 * skipping any it holds, until it has n (n <= t->nm). */
void tl_add_replicas(tl *t, uint32_t k, uint32_t n, uint64_t *rng);

/* A random layout: members (some zones), streams, shards with leaders and
 * replication factor rf (<= members), skewed or not. */
tl *tl_random(uint64_t *rng, uint32_t members, uint32_t streams, uint32_t shards, uint32_t rf, int zones);

/* A view's tallies of a member in total, and in one stream; the test fails
 * if the view refuses. */
pl_tally tl_member_tally(const pl_view *v, uint32_t m);
pl_tally tl_stream_tally(const pl_view *v, uint32_t s, uint32_t m);

/* An action with every other field zero. */
pl_action tl_action(uint32_t kind, uint32_t reason, uint32_t shard, uint32_t stream, uint32_t from, uint32_t to);

/* Run a suite with CK_NORMAL output: EXIT_SUCCESS when no test failed,
 * else EXIT_FAILURE. Every suite's main() returns it. */
int tl_run(Suite *s);

#endif
