/*
 * health.c - the shards at risk that stats and plan list: offline (replicas
 * but no live leader: Kafka's offline partition) and under-replicated (a
 * live leader, but some replica out of sync, PL_SHARD_OUT_OF_SYNC, or on a
 * member that is down: Kafka's ISR smaller than its replicas).
 *
 * A shard's replicas are read from the view (so the state after a plan is
 * what the plan left) and their flags from the snapshot, by member: a
 * replica the plan added was copied, and is in sync.
 */
#include <string.h>

#include "stats.h"

/* Whether the replica on member m of shard k is out of sync in s. */
static int out_of_sync(const pl_shard *k, uint32_t m)
{
	for (uint32_t j = 0; j < k->replica_count; j++)
		if (k->replicas[j] == m)
			return (k->flags & PL_SHARD_OUT_OF_SYNC(j)) != 0;
	return 0;
}

void pt_health_compute(pt_health *h, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	memset(h, 0, sizeof *h);
	for (uint32_t r = 0; r < s->n_shards; r++) {
		uint32_t k = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r);
		pl_shard_state ss;
		pl_view_shard_state(v, k, &ss);
		if (ss.replica_count == 0)
			continue; /* new: nothing to lose yet */
		int live_leader = ss.leader != PL_NONE && !(s->members[ss.leader].flags & PL_MEMBER_DOWN);
		int short_ = 0;
		for (uint32_t j = 0; j < ss.replica_count; j++)
			short_ |= (s->members[ss.replicas[j]].flags & PL_MEMBER_DOWN) || out_of_sync(&s->shards[k], ss.replicas[j]);
		if (!live_leader) {
			if (h->offline < PT_HEALTH_SHOWN)
				h->off_first[h->offline] = k;
			h->offline++;
		} else if (short_) {
			if (h->under < PT_HEALTH_SHOWN)
				h->under_first[h->under] = k;
			h->under++;
		}
	}
}

static void names(pt_buf *b, const pl_snapshot *s, const uint32_t *first, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < PT_HEALTH_SHOWN; i++) {
		pt_put(b, i ? ", " : ": ");
		pt_put_name(b, s->shards[first[i]].key);
	}
	pt_put(b, "%s", n > PT_HEALTH_SHOWN ? ", ..." : "");
}

void pt_health_text(pt_buf *b, const pt_health *h, const pl_view *v, const char *lead)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	if (h->offline == 0 && h->under == 0)
		return;
	pt_put(b, "%s", lead);
	if (h->offline) {
		pt_put(b, " %u offline (no live leader)", h->offline);
		names(b, s, h->off_first, h->offline);
	}
	if (h->under) {
		pt_put(b, "%s %u under-replicated (a replica out of sync or down)", h->offline ? ";" : "", h->under);
		names(b, s, h->under_first, h->under);
	}
	pt_putc(b, '\n');
}

static void json_list(pt_buf *b, const pl_snapshot *s, const uint32_t *first, uint32_t n)
{
	pt_put(b, "{\"count\": %u, \"first\": [", n);
	for (uint32_t i = 0; i < n && i < PT_HEALTH_SHOWN; i++) {
		pt_put(b, i ? ", " : "");
		pt_put_json_bytes(b, s->shards[first[i]].key);
	}
	pt_put(b, "]}");
}

void pt_health_json(pt_buf *b, const pt_health *h, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	pt_put(b, "\"offline\": ");
	json_list(b, s, h->off_first, h->offline);
	pt_put(b, ", \"under_replicated\": ");
	json_list(b, s, h->under_first, h->under);
}

void pt_health_short_rf(pt_health *h, const pl_view *v, uint32_t rf, const pt_doc *d)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	h->rf = rf;
	h->short_rf = 0;
	for (uint32_t r = 0; r < s->n_shards; r++) {
		uint32_t k = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r);
		pl_shard_state ss;
		pl_view_shard_state(v, k, &ss);
		if (d->shards[k].replica_count == 0 && ss.replica_count > 0 && ss.replica_count < rf) {
			if (h->short_rf < PT_HEALTH_SHOWN)
				h->short_first[h->short_rf] = k;
			h->short_rf++;
		}
	}
}

void pt_health_short_text(pt_buf *b, const pt_health *h, const pl_view *v, uint32_t eligible)
{
	if (h->short_rf == 0)
		return;
	pt_put(b, "short of rf %u: %u shard%s with fewer replicas (%u eligible member%s)", h->rf, h->short_rf,
	       h->short_rf == 1 ? "" : "s", eligible, eligible == 1 ? "" : "s");
	names(b, pl_view_snapshot(v), h->short_first, h->short_rf);
	pt_putc(b, '\n');
}

void pt_health_short_json(pt_buf *b, const pt_health *h, const pl_view *v)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	pt_put(b, "\"short_of_rf\": {\"rf\": %u, \"count\": %u, \"first\": [", h->rf, h->short_rf);
	for (uint32_t i = 0; i < h->short_rf && i < PT_HEALTH_SHOWN; i++) {
		pt_put(b, i ? ", " : "");
		pt_put_json_bytes(b, s->shards[h->short_first[i]].key);
	}
	pt_put(b, "]}");
}
