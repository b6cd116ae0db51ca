/*
 * format_json.c - a snapshot as JSON (format --json): the same content as
 * the text format.c writes, in the same canonical order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* ---- a snapshot as JSON ---------------------------------------------------------------- */

/* capacity: PT_NEVER when the layout gives no sizes (no field), else the
 * member's capacity or PL_BYTES_UNKNOWN (null). */
static void json_member_fields(pt_buf *b, const pl_member *m, uint64_t last_move, uint64_t capacity, int sizes)
{
	pt_put(b, "\"id\": ");
	pt_put_json_bytes(b, m->id);
	pt_put(b, ", \"zone\": ");
	pt_put_json_bytes(b, m->zone);
	pt_put(b, ", \"weight\": %u, \"cap\": %u, \"joined\": %llu, ", m->weight ? m->weight : 1, m->max_shards,
	       (unsigned long long)m->joined_at);
	if (m->flags & PL_MEMBER_UNMEASURED)
		pt_put(b, "\"load\": null");
	else
		pt_put(b, "\"load\": %llu", (unsigned long long)m->load);
	pt_put(b, ", \"map\": %llu, \"state\": ", (unsigned long long)m->map_version);
	pt_put_json_state(b, m->flags);
	if (last_move != PT_NEVER)
		pt_put(b, ", \"last_move\": %llu", (unsigned long long)last_move);
	else
		pt_put(b, ", \"last_move\": null");
	if (sizes && capacity != PL_BYTES_UNKNOWN)
		pt_put(b, ", \"capacity\": %llu", (unsigned long long)capacity);
	else if (sizes)
		pt_put(b, ", \"capacity\": null");
}

void pt_format_json(pt_buf *b, const pt_doc *d, const pl_snapshot *s, const uint64_t *last_move, const pl_view *v,
		    int with_events)
{
	pt_put(b, "{\"format\": 1, \"settings\": {");
	int any = 0;
	for (uint32_t i = 0; i < PT_SET_COUNT; i++)
		if (d->set[i].given) {
			pt_put(b, "%s\"%s\": ", any ? ", " : "", pt_settings[i].name);
			any = 1;
			if (pt_settings[i].type == PT_T_NUM || pt_settings[i].type == PT_T_SIZE) {
				pt_put(b, "%llu", (unsigned long long)d->set[i].value);
			} else if (pt_settings[i].type == PT_T_BOOL) {
				pt_put(b, "%s", d->set[i].value ? "true" : "false");
			} else {
				pt_buf t = {0};
				pt_put_setting_value(&t, d, i);
				if (pt_settings[i].type == PT_T_MEMBER)
					pt_put_json_bytes(b, d->set[i].text);
				else
					pt_put_json_str(b, t.p, t.len);
				pt_buf_free(&t);
			}
		}
	pt_put(b, "},\n \"members\": [");
	for (uint32_t r = 0; r < s->n_members; r++) {
		uint32_t i = (uint32_t)pl_view_at(v, PL_ELEM_MEMBER, r);
		pt_put(b, "%s\n  {", r ? "," : "");
		json_member_fields(b, &s->members[i], last_move ? last_move[i] : PT_NEVER,
				   s->member_capacity ? s->member_capacity[i] : PL_BYTES_UNKNOWN, s->shard_bytes || s->member_capacity);
		pt_putc(b, '}');
	}
	pt_put(b, "],\n \"streams\": [");
	for (uint32_t r = 0; r < s->n_streams; r++) {
		pt_put(b, "%s", r ? ", " : "");
		pt_put_json_bytes(b, s->streams[pl_view_at(v, PL_ELEM_STREAM, r)].id);
	}
	pt_put(b, "],\n \"shards\": [");
	for (uint32_t r = 0; r < s->n_shards; r++) {
		uint32_t ki = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r);
		const pl_shard *k = &s->shards[ki];
		pt_put(b, "%s\n  {\"key\": ", r ? "," : "");
		pt_put_json_bytes(b, k->key);
		pt_put(b, ", \"stream\": ");
		if (k->stream != PL_NONE)
			pt_put_json_bytes(b, s->streams[k->stream].id);
		else
			pt_put(b, "null");
		pt_put(b, ", \"replicas\": [");
		for (uint32_t j = 0; j < k->replica_count; j++) {
			pt_put(b, "%s", j ? ", " : "");
			pt_put_json_bytes(b, s->members[k->replicas[j]].id);
		}
		pt_put(b, "], \"leader\": ");
		if (k->leader != PL_NONE)
			pt_put_json_bytes(b, s->members[k->leader].id);
		else
			pt_put(b, "null");
		pt_put(b, ", \"moving_to\": ");
		if (k->moving_to != PL_NONE)
			pt_put_json_bytes(b, s->members[k->moving_to].id);
		else
			pt_put(b, "null");
		pt_put(b, ", \"epoch\": %llu, \"load\": %llu, \"flags\": [%s%s%s]", (unsigned long long)k->epoch,
		       (unsigned long long)k->load, k->flags & PL_SHARD_NOT_IDEMPOTENT ? "\"not-idempotent\"" : "",
		       (k->flags & PL_SHARD_NOT_IDEMPOTENT) && (k->flags & PL_SHARD_TRANSFER_DEBT) ? ", " : "",
		       k->flags & PL_SHARD_TRANSFER_DEBT ? "\"transfer-debt\"" : "");
		if (k->flags & PL_SHARD_OUT_OF_SYNC_ALL) /* only when some replica is */
			for (uint32_t j = 0, n = 0; j < k->replica_count; j++)
				if (k->flags & PL_SHARD_OUT_OF_SYNC(j)) {
					pt_put(b, n++ ? ", " : ", \"out_of_sync\": [");
					pt_put_json_bytes(b, s->members[k->replicas[j]].id);
				}
		pt_put(b, "%s", k->flags & PL_SHARD_OUT_OF_SYNC_ALL ? "]" : "");
		if (s->shard_bytes && s->shard_bytes[ki] != PL_BYTES_UNKNOWN)
			pt_put(b, ", \"size\": %llu", (unsigned long long)s->shard_bytes[ki]);
		else if (s->shard_bytes || s->member_capacity)
			pt_put(b, ", \"size\": null");
		pt_putc(b, '}');
	}
	pt_put(b, "],\n \"overrides\": [");
	uint32_t *oo = pt_override_order(v, s);
	for (uint32_t r = 0; r < s->n_overrides; r++) {
		const pl_override *o = &s->overrides[oo[r]];
		pt_put(b, "%s\n  {\"shard\": ", r ? "," : "");
		pt_put_json_bytes(b, s->shards[o->shard].key);
		pt_put(b, ", \"member\": ");
		pt_put_json_bytes(b, s->members[o->member].id);
		pt_put(b, ", \"origin\": \"%s\", \"since\": %llu}", o->origin == PL_ORIGIN_COUNT ? "count" : "lag",
		       (unsigned long long)o->since);
	}
	free(oo);
	pt_put(b, "],\n \"copies\": [");
	uint32_t *co = s->n_copies ? pt_copy_of_rank(v, s) : NULL;
	for (uint32_t r = 0, n = 0; co && r < s->n_shards; r++) {
		if (co[r] == PL_NONE)
			continue;
		const pl_copy *cp = &s->copies[co[r]];
		pt_put(b, "%s\n  {\"shard\": ", n++ ? "," : "");
		pt_put_json_bytes(b, s->shards[cp->shard].key);
		pt_put(b, ", \"to\": ");
		pt_put_json_bytes(b, s->members[cp->to].id);
		pt_put(b, ", \"from\": ");
		if (cp->from != PL_NONE)
			pt_put_json_bytes(b, s->members[cp->from].id);
		else
			pt_put(b, "null");
		pt_putc(b, '}');
	}
	free(co);
	pt_put(b, "],\n \"events\": [");
	for (uint32_t i = 0; with_events && i < d->nev; i++) {
		const pt_event *ev = &d->events[i];
		pt_put(b, "%s\n  {\"tick\": %llu, \"event\": \"%s\", \"member\": ", i ? "," : "",
		       (unsigned long long)ev->tick, pt_event_name(ev->kind));
		pt_put_json_bytes(b, ev->name);
		if (ev->kind == PT_EV_JOIN) {
			pt_put(b, ", \"joiner\": {");
			json_member_fields(b, &ev->joiner, ev->last_move, ev->capacity, s->shard_bytes || s->member_capacity);
			pt_putc(b, '}');
		}
		pt_putc(b, '}');
	}
	pt_put(b, "]}\n");
}
