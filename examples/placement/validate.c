/*
 * validate.c - the library's validation of the snapshot a file holds, mapped
 * back to the file's lines (the file is read by read.c, a line at a time).
 *
 * Once the parser has built the snapshot, pl_view_init() validates it with the
 * library's own rules; its pl_diag names an element by kind and index, and
 * the document's per-element line numbers turn that into "file:line", with
 * a message that says which rule the element breaks and the library's error
 * name in brackets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* ---- the library's validation, mapped back to lines ----------------------- */

static uint64_t elem_line(const pt_doc *d, uint32_t kind, uint32_t i)
{
	switch (kind) {
	case PL_ELEM_MEMBER: return i < d->nm ? d->m_line[i] : 0;
	case PL_ELEM_STREAM: return i < d->ns ? d->s_line[i] : 0;
	case PL_ELEM_SHARD: return i < d->nk ? d->k_line[i] : 0;
	case PL_ELEM_OVERRIDE: return i < d->no ? d->o_line[i] : 0;
	case PL_ELEM_COPY: return i < d->nc ? d->c_line[i] : 0;
	default: return 0;
	}
}

/* An id for a message: printable ASCII, cut at 60 bytes. */
static const char *bytes_show(pl_bytes b, char *buf, size_t cap)
{
	return pt_show_bytes(b.ptr, b.ptr ? (size_t)b.len : 0, buf, cap);
}

int pt_diag_error(const pt_doc *d, const pl_snapshot *s, int rc, const pl_diag *dg, pt_err *e)
{
	char a[80], b[80];
	uint64_t line = elem_line(d, dg->kind, dg->index);
	uint64_t other = dg->other != PL_NONE ? elem_line(d, dg->kind, dg->other) : 0;
	const char *code = pl_error_name(rc);
	const pl_member *m = dg->kind == PL_ELEM_MEMBER && dg->index < s->n_members ? &s->members[dg->index] : NULL;
	const pl_shard *k = dg->kind == PL_ELEM_SHARD && dg->index < s->n_shards ? &s->shards[dg->index] : NULL;
	const pl_stream *st = dg->kind == PL_ELEM_STREAM && dg->index < s->n_streams ? &s->streams[dg->index] : NULL;
	const pl_override *o = dg->kind == PL_ELEM_OVERRIDE && dg->index < s->n_overrides ? &s->overrides[dg->index] : NULL;
	static const char *const arrays[4] = {"members", "streams", "shards", "overrides"};
	static const uint32_t limits[4] = {PL_MAX_MEMBERS, PL_MAX_STREAMS, PL_MAX_SHARDS, PL_MAX_SHARDS};

	switch (rc) {
	case PL_E_DUP_MEMBER:
		return pt_fail(e, line, "member '%s' is declared twice (first at line %llu) [PL_%s]",
			       bytes_show(m ? m->id : (pl_bytes){0, 0}, a, sizeof a), (unsigned long long)other, code);
	case PL_E_DUP_STREAM:
		return pt_fail(e, line, "stream '%s' is declared twice (first at line %llu) [PL_%s]",
			       bytes_show(st ? st->id : (pl_bytes){0, 0}, a, sizeof a), (unsigned long long)other, code);
	case PL_E_DUP_SHARD:
		return pt_fail(e, line, "shard '%s' is declared twice (first at line %llu) [PL_%s]",
			       bytes_show(k ? k->key : (pl_bytes){0, 0}, a, sizeof a), (unsigned long long)other, code);
	case PL_E_DUP_OVERRIDE:
		return pt_fail(e, line, "shard '%s' has a second override (first at line %llu): one override per shard [PL_%s]",
			       o && o->shard < s->n_shards ? bytes_show(s->shards[o->shard].key, a, sizeof a) : "?",
			       (unsigned long long)other, code);
	case PL_E_LIMIT:
		if (dg->kind == PL_ELEM_SNAPSHOT && dg->index < 4)
			return pt_fail(e, 0, "too many %s: past the limit of %u [PL_%s]", arrays[dg->index],
				       limits[dg->index], code);
		break;
	case PL_E_LENGTH:
		if (m && m->id.len <= PL_MAX_ID_LEN)
			return pt_fail(e, line, "member '%s': zone of %llu bytes is past the limit of %u bytes (PL_MAX_ID_LEN) [PL_%s]",
				       bytes_show(m->id, a, sizeof a), (unsigned long long)m->zone.len, PL_MAX_ID_LEN, code);
		{
			pl_bytes id = m ? m->id : k ? k->key : st ? st->id : (pl_bytes){0, 0};
			const char *what = m ? "member id" : k ? "shard key" : "stream id";
			return pt_fail(e, line, "%s '%s' of %llu bytes is past the limit of %u bytes (PL_MAX_ID_LEN) [PL_%s]",
				       what, bytes_show(id, a, sizeof a), (unsigned long long)id.len, PL_MAX_ID_LEN, code);
		}
	case PL_E_WEIGHT:
		if (m)
			return pt_fail(e, line, "member '%s': weight %u is past the limit of %u (PL_MAX_WEIGHT) [PL_%s]",
				       bytes_show(m->id, a, sizeof a), m->weight, PL_MAX_WEIGHT, code);
		break;
	case PL_E_LEADER_NOT_REPLICA:
		if (k && k->leader < s->n_members)
			return pt_fail(e, line, "shard '%s': leader '%s' is not among its replicas (list it in replicas=) [PL_%s]",
				       bytes_show(k->key, a, sizeof a), bytes_show(s->members[k->leader].id, b, sizeof b), code);
		break;
	case PL_E_DUP_REPLICA:
		if (k) {
			for (uint32_t r = 0; r < k->replica_count && r < PL_MAX_REPLICAS; r++)
				for (uint32_t q = 0; q < r; q++)
					if (k->replicas[q] == k->replicas[r] && k->replicas[r] < s->n_members)
						return pt_fail(e, line, "shard '%s': member '%s' is listed twice in replicas= [PL_%s]",
							       bytes_show(k->key, a, sizeof a),
							       bytes_show(s->members[k->replicas[r]].id, b, sizeof b), code);
		}
		break;
	case PL_E_REPLICAS:
		if (k)
			return pt_fail(e, line, "shard '%s' has %u replicas, past the limit of %u (PL_MAX_REPLICAS) [PL_%s]",
				       bytes_show(k->key, a, sizeof a), k->replica_count, PL_MAX_REPLICAS, code);
		break;
	case PL_E_MOVE_TARGET:
		if (k)
			return pt_fail(e, line, "shard '%s': moving-to= %s [PL_%s]", bytes_show(k->key, a, sizeof a),
				       k->leader == PL_NONE ? "needs a leader= (a move in flight is a leader's)"
							    : "names the leader itself: a move goes to another member",
				       code);
		break;
	case PL_E_BYTES:
		if (k)
			return pt_fail(e, line,
				       "shard '%s': the known sizes of the shards up to it add up past 512P "
				       "(PL_MAX_BYTES / PL_MAX_REPLICAS) [PL_%s]",
				       bytes_show(k->key, a, sizeof a), code);
		break;
	case PL_E_EMPTY_ID:
		return pt_fail(e, line, "empty id [PL_%s]", code);
	case PL_E_FLAGS:
		if (k && k->leader != PL_NONE)
			for (uint32_t r = 0; r < k->replica_count && r < PL_MAX_REPLICAS; r++)
				if (k->replicas[r] == k->leader && (k->flags & PL_SHARD_OUT_OF_SYNC(r)))
					return pt_fail(e, line,
						       "shard '%s': out-of-sync= names its leader '%s': a leader is in "
						       "sync [PL_%s]",
						       bytes_show(k->key, a, sizeof a),
						       bytes_show(s->members[k->leader].id, b, sizeof b), code);
		break;
	default:
		break;
	}
	const char *kinds[] = {"", "snapshot", "member", "stream", "shard", "override", "setting", "argument"};
	const char *kn = dg->kind < 8 ? kinds[dg->kind] : dg->kind == PL_ELEM_COPY ? "copy of shard" : "element";
	const pl_copy *cp = dg->kind == PL_ELEM_COPY && dg->index < s->n_copies ? &s->copies[dg->index] : NULL;
	pl_bytes id = m ? m->id : k ? k->key : st ? st->id : cp && cp->shard < s->n_shards ? s->shards[cp->shard].key
											 : (pl_bytes){0, 0};
	if (cp && other)
		return pt_fail(e, line, "%s '%s': %s (first at line %llu) [PL_%s]", kn, bytes_show(id, a, sizeof a),
			       pl_strerror(rc), (unsigned long long)other, code);
	if (id.len)
		return pt_fail(e, line, "%s '%s': %s [PL_%s]", kn, bytes_show(id, a, sizeof a), pl_strerror(rc), code);
	return pt_fail(e, line, "%s: %s [PL_%s]", kn, pl_strerror(rc), code);
}

int pt_view(const pt_doc *d, const pl_snapshot *snap, pl_view **v, void **mem, pt_err *e)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	if (d->set[PT_SET_SCORER].given)
		opt.scorer = (uint32_t)d->set[PT_SET_SCORER].value;
	size_t size = pl_view_size(snap);
	*mem = malloc(size ? size : 8);
	if (*mem == NULL)
		return pt_fail(e, 0, "out of memory for a view of %zu bytes", size);
	pl_diag dg;
	int rc = pl_view_init(v, *mem, size, snap, &opt, &dg);
	if (rc < 0) {
		free(*mem);
		*mem = NULL;
		return pt_diag_error(d, snap, rc, &dg, e);
	}
	return 0;
}

