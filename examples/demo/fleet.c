/*
 * fleet.c - the seed's fleet: 64 shards ("00" .. "3f") on members
 * streams-1 ... under the legacy FNV-1a ring, whose skew left one member
 * with half the shards. Every member decides for itself each tick
 * (pl_fleet_decide() on its own copy of the tick's view), moves at most once
 * per 5-second cooldown, and the fleet evens out: 4 members, then 4 more
 * join. One progress line per tick, each move in one sentence, and a chart
 * per member at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

#define SHARDS 64u
#define MAX_MEMBERS 8u

typedef struct fleet {
	char ids[MAX_MEMBERS][16];
	char keys[SHARDS][4];
	pl_member m[MAX_MEMBERS];
	pl_shard k[SHARDS];
	pl_override o[SHARDS];
	uint32_t nm, no;
	uint64_t last[MAX_MEMBERS];
	uint64_t now;
	uint32_t moves;
	void *mem, *copy;
} fleet;

static pl_snapshot snap_of(fleet *f)
{
	pl_snapshot s = {.version = PL_SNAPSHOT_VERSION, .members = f->m, .shards = f->k, .overrides = f->o,
			.n_members = f->nm, .n_shards = SHARDS, .n_overrides = f->no};
	return s;
}

static void counts(pl_view *v, uint32_t nm, uint32_t *owned)
{
	uint32_t own[SHARDS];
	memset(owned, 0, nm * sizeof *owned);
	if (pl_fleet_owners(v, own, SHARDS, NULL) == (int)SHARDS)
		for (uint32_t i = 0; i < SHARDS; i++)
			owned[own[i]]++;
}

static void progress(fleet *f, pl_view *v, const char *note)
{
	uint32_t owned[MAX_MEMBERS];
	counts(v, f->nm, owned);
	printf("  t=%3llus ", (unsigned long long)f->now);
	for (uint32_t i = 0; i < f->nm; i++)
		printf("%3u", owned[i]);
	if (*note)
		printf("  %s", note);
	putchar('\n');
}

/* One tick: every member decides on its own copy; the union is applied and
 * becomes the next document. Returns the actions taken, or -1. */
static int tick(fleet *f, const pl_fleet_config *base, int quiet)
{
	pl_snapshot s = snap_of(f);
	pl_view *v = demo_view(&s, PL_SCORER_LEGACY_FNV1A, &f->mem);
	size_t size = pl_view_size(&s);
	free(f->copy);
	f->copy = malloc(size);
	if (f->copy == NULL)
		return -1;
	uint32_t owned[MAX_MEMBERS];
	counts(v, f->nm, owned); /* fills the ring homes once, for every copy */
	pl_action all[64];
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nm; i++) {
		pl_view *c;
		if (pl_view_copy(&c, f->copy, size, v) != 0)
			return -1;
		pl_fleet_config cfg = *base;
		cfg.self = i;
		cfg.now = f->now;
		cfg.last_move = f->last[i];
		int got = pl_fleet_decide(c, &cfg, all + n, 64 - n, NULL, NULL);
		if (got < 0) {
			printf("  %s: %s\n", f->ids[i], pl_strerror(got));
			return -1;
		}
		if (got > 0)
			f->last[i] = f->now;
		n += (uint32_t)got;
	}
	for (uint32_t j = 0; j < n; j++) {
		if (pl_view_apply(v, &all[j]) != 0)
			return -1;
		if (!quiet)
			demo_explain(&s, &all[j], ++f->moves);
	}
	if (!quiet && n)
		progress(f, v, ""); /* ticks with no move (cooldowns run) are not shown */
	/* The next tick's document: the view's overrides. */
	f->no = 0;
	for (uint32_t k = 0; k < SHARDS; k++) {
		pl_shard_state st;
		pl_view_shard_state(v, k, &st);
		if (st.override_member != PL_NONE)
			f->o[f->no++] = (pl_override){st.override_since, k, st.override_member, st.override_origin};
	}
	f->now++;
	return (int)n;
}

static int run(fleet *f, const pl_fleet_config *cfg, const char *what)
{
	uint32_t still = 0, ticks = 0, start = f->moves;
	printf("%s\n  tick      owned by streams-1 ...\n", what);
	pl_snapshot s = snap_of(f);
	progress(f, demo_view(&s, PL_SCORER_LEGACY_FNV1A, &f->mem), "(start)");
	while (still < cfg->cooldown + 2 && ticks < 1000) {
		int n = tick(f, cfg, 0);
		if (n < 0)
			return 1;
		still = n ? 0 : still + 1;
		ticks++;
	}
	printf("  quiet after %u moves in %u ticks\n\n", f->moves - start, ticks - still);
	return 0;
}

static void chart(fleet *f)
{
	pl_snapshot s = snap_of(f);
	pl_view *v = demo_view(&s, PL_SCORER_LEGACY_FNV1A, &f->mem);
	uint32_t owned[MAX_MEMBERS], share = (SHARDS + f->nm - 1) / f->nm;
	counts(v, f->nm, owned);
	printf("Owned per member (share %u marked |):\n", share);
	for (uint32_t i = 0; i < f->nm; i++)
		demo_bar(f->ids[i], owned[i], share, 32);
	int len = pl_fleet_doc_format(v, NULL, 0);
	char *doc = malloc((size_t)len + 1);
	if (doc && pl_fleet_doc_format(v, doc, (size_t)len + 1) == len) {
		printf("\nThe override document the fleet keeps (first lines of %u):\n", f->no);
		char *p = doc;
		for (int line = 0; line < 5 && *p; line++) {
			char *e = strchr(p, '\n');
			printf("  %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
			p = e ? e + 1 : p + strlen(p);
		}
	}
	free(doc);
}

int demo_fleet(void)
{
	fleet *f = calloc(1, sizeof *f);
	if (f == NULL)
		return 1;
	for (uint32_t i = 0; i < MAX_MEMBERS; i++) {
		int n = snprintf(f->ids[i], sizeof f->ids[i], "streams-%u", i + 1);
		f->m[i].id = (pl_bytes){f->ids[i], (uint64_t)n};
		f->last[i] = PL_FLEET_NEVER;
	}
	for (uint32_t k = 0; k < SHARDS; k++) {
		snprintf(f->keys[k], sizeof f->keys[k], "%02x", k);
		f->k[k].key = (pl_bytes){f->keys[k], 2};
		f->k[k].stream = f->k[k].leader = f->k[k].moving_to = PL_NONE;
	}
	demo_title("Fleet count balance: the seed's fleet on the legacy ring");
	printf("Each member owns its ring homes unless an override says otherwise. A member\n"
	       "over the share (ceil(64 / members)) moves one shard per 5 s cooldown to a\n"
	       "member below it; all compute the same places, so no target overfills.\n"
	       "(streams-1 ... are the seed's names for the fleet's members, instances of\n"
	       "its streams service, not streams; the legacy ring scores those names.)\n\n");
	pl_fleet_config cfg = PL_FLEET_CONFIG_INIT;
	cfg.cooldown = 5;
	f->nm = 4;
	f->now = 0;
	int rc = run(f, &cfg, "4 members (the ring gives 17 / 8 / 7 / 32):");
	if (rc == 0) {
		f->nm = 8;
		rc = run(f, &cfg, "4 more join (their ring homes come to them at once):");
	}
	if (rc == 0)
		chart(f);
	free(f->mem);
	free(f->copy);
	free(f);
	return rc;
}
