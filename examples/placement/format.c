/*
 * format.c - output: the growing buffer every command writes into, ids as
 * the snapshot format writes them, JSON strings, and a whole snapshot as
 * text (placement(5)) or JSON.
 *
 * The text writer is the parser's inverse: what it writes reads back to the
 * same snapshot content (the round trip the tests check), in canonical order
 * (members, streams and shards by id bytes, overrides by shard, events by
 * tick), so two files with the same content format to the same bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* ---- the buffer ------------------------------------------------------------ */

/* The file being read and the number of its line being read, for pt_oom(). */
static const char *oom_file;
static const uint64_t *oom_line;

void pt_oom_at(const char *file, const uint64_t *line)
{
	oom_file = file;
	oom_line = line;
}

_Noreturn void pt_oom(void)
{
	if (oom_file && oom_line && *oom_line)
		fprintf(stderr, "placement: %s:%llu: out of memory reading this line\n", oom_file,
			(unsigned long long)*oom_line);
	else
		fputs("placement: out of memory\n", stderr);
	exit(1);
}

void *pt_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		pt_oom();
	return p;
}

void *pt_grow(void *p, size_t *cap, size_t elem, size_t need)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			pt_oom();
		n *= 2;
	}
	void *q = realloc(p, n * elem);
	if (q == NULL)
		pt_oom();
	*cap = n;
	return q;
}

static void reserve(pt_buf *b, size_t more)
{
	if (b->len + more + 1 > b->cap)
		b->p = pt_grow(b->p, &b->cap, 1, b->len + more + 1);
}

void pt_put(pt_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	if ((size_t)n < sizeof tmp) {
		memcpy(b->p + b->len, tmp, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void pt_putn(pt_buf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void pt_putc(pt_buf *b, char c)
{
	reserve(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void pt_buf_free(pt_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

/* ---- ids --------------------------------------------------------------------- */

static int plain(unsigned char c)
{
	return c >= '!' && c <= '~' && c != '%' && c != '#' && c != ',' && c != '=';
}

static void put_escaped(pt_buf *b, pl_bytes id, size_t max)
{
	const unsigned char *s = (const unsigned char *)id.ptr;
	static const char hex[] = "0123456789ABCDEF";
	size_t n = (size_t)id.len;
	reserve(b, (n < max ? n : max) * 3 + 3);
	for (size_t i = 0; i < n; i++) {
		if (i == max) {
			pt_putn(b, "...", 3);
			return;
		}
		if (plain(s[i])) {
			b->p[b->len++] = (char)s[i];
		} else {
			b->p[b->len++] = '%';
			b->p[b->len++] = hex[s[i] >> 4];
			b->p[b->len++] = hex[s[i] & 15];
		}
	}
	b->p[b->len] = '\0';
}

void pt_put_id(pt_buf *b, pl_bytes id)
{
	put_escaped(b, id, SIZE_MAX);
}

void pt_put_name(pt_buf *b, pl_bytes id)
{
	put_escaped(b, id, 80);
}

/* ---- JSON ---------------------------------------------------------------------- */

/* The length of a valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

void pt_put_json_str(pt_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	pt_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c == '"' || c == '\\') {
			pt_putc(b, '\\');
			pt_putc(b, (char)c);
			i++;
		} else if (c == '\n') {
			pt_putn(b, "\\n", 2);
			i++;
		} else if (c == '\t') {
			pt_putn(b, "\\t", 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			pt_put(b, "\\u%04x", c);
			i++;
		} else {
			size_t l = utf8_len(s + i, n - i);
			if (l == 0) {
				pt_put(b, "\\u%04x", c); /* not UTF-8: the byte as a code point */
				i++;
			} else {
				pt_putn(b, (const char *)s + i, l);
				i += l;
			}
		}
	}
	pt_putc(b, '"');
}

void pt_put_json_bytes(pt_buf *b, pl_bytes id)
{
	pt_put_json_str(b, id.ptr ? id.ptr : "", id.ptr ? (size_t)id.len : 0);
}

/* ---- canonical orders ------------------------------------------------------------ */

uint32_t *pt_order(const pl_view *v, uint32_t kind, uint32_t n)
{
	uint32_t *o = pt_alloc((size_t)n * sizeof *o);
	for (uint32_t r = 0; r < n; r++)
		o[r] = (uint32_t)pl_view_at(v, kind, r);
	return o;
}

uint32_t *pt_ranks(const pl_view *v, uint32_t kind, uint32_t n)
{
	uint32_t *rk = pt_alloc((size_t)n * sizeof *rk);
	for (uint32_t r = 0; r < n; r++)
		rk[pl_view_at(v, kind, r)] = r;
	return rk;
}

void pt_put_member_state(pt_buf *b, uint32_t flags, char sep)
{
	static const struct {
		uint32_t f;
		const char *w;
	} words[] = {{PL_MEMBER_DOWN, "down"},
		     {PL_MEMBER_DRAINING, "draining"},
		     {PL_MEMBER_LAGGING, "lagging"},
		     {PL_MEMBER_UNMEASURED, "unmeasured"}};
	int any = 0;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (flags & words[i].f) {
			if (any)
				pt_putc(b, sep);
			pt_put(b, "%s", words[i].w);
			any = 1;
		}
	if (!any)
		pt_putc(b, '-');
}

void pt_put_json_state(pt_buf *b, uint32_t flags)
{
	static const char *const w[] = {"down", "draining", "lagging"};
	int any = 0;
	pt_putc(b, '[');
	for (int i = 0; i < 3; i++)
		if (flags & (1u << i)) {
			pt_put(b, "%s\"%s\"", any ? ", " : "", w[i]);
			any = 1;
		}
	pt_putc(b, ']');
}

void pt_put_counts(pt_buf *b, const pl_view_counts *c)
{
	pt_put(b, "%u member%s (%u live, %u eligible), %u stream%s, %u shard%s (%u leaderless, %u moving), %u override%s",
	       c->members, c->members == 1 ? "" : "s", c->live, c->eligible, c->streams, c->streams == 1 ? "" : "s",
	       c->shards, c->shards == 1 ? "" : "s", c->leaderless, c->moving, c->overrides, c->overrides == 1 ? "" : "s");
	if (c->copies)
		pt_put(b, ", %u cop%s in flight", c->copies, c->copies == 1 ? "y" : "ies");
}

/* ---- a snapshot as text ------------------------------------------------------------- */

void pt_put_setting_value(pt_buf *b, const pt_doc *d, uint32_t i)
{
	const pt_set *s = &d->set[i];
	switch (pt_settings[i].type) {
	case PT_T_BOOL:
		pt_put(b, "%s", s->value ? "on" : "off");
		break;
	case PT_T_POLICY:
		pt_put(b, "%s", pt_policy_name((uint32_t)s->value));
		break;
	case PT_T_SCORER:
		pt_put(b, "%s", s->value == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3");
		break;
	case PT_T_MEMBER:
		pt_put_id(b, s->text);
		break;
	case PT_T_SIZE:
		pt_put_size(b, s->value);
		break;
	default:
		pt_put(b, "%llu", (unsigned long long)s->value);
		break;
	}
}

static void member_attrs_text(pt_buf *b, const pl_member *m, uint64_t last_move, uint64_t capacity)
{
	if (m->zone.len) {
		pt_put(b, " zone=");
		pt_put_id(b, m->zone);
	}
	if (m->weight)
		pt_put(b, " weight=%u", m->weight);
	if (m->max_shards)
		pt_put(b, " cap=%u", m->max_shards);
	if (capacity != PL_BYTES_UNKNOWN) {
		pt_put(b, " capacity=");
		pt_put_size(b, capacity);
	}
	if (m->joined_at)
		pt_put(b, " joined=%llu", (unsigned long long)m->joined_at);
	if (m->load && !(m->flags & PL_MEMBER_UNMEASURED))
		pt_put(b, " load=%llu", (unsigned long long)m->load);
	if (m->map_version)
		pt_put(b, " map=%llu", (unsigned long long)m->map_version);
	if (last_move != PT_NEVER)
		pt_put(b, " last-move=%llu", (unsigned long long)last_move);
	if (m->flags) {
		pt_putc(b, ' ');
		pt_put_member_state(b, m->flags, ' ');
	}
}

static int override_cmp_rank(const uint32_t *rank, const pl_override *o, uint32_t a, uint32_t b)
{
	uint32_t x = rank[o[a].shard], y = rank[o[b].shard];
	return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b;
}

/* Overrides in shard order: a small merge sort (indices), no qsort context. */
static void sort_overrides(uint32_t *idx, uint32_t *tmp, uint32_t n, const uint32_t *rank, const pl_override *o)
{
	if (n < 2)
		return;
	uint32_t h = n / 2;
	sort_overrides(idx, tmp, h, rank, o);
	sort_overrides(idx + h, tmp, n - h, rank, o);
	uint32_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = override_cmp_rank(rank, o, idx[i], idx[j]) <= 0 ? idx[i++] : idx[j++];
	while (i < h)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, (size_t)n * sizeof *idx);
}

uint32_t *pt_override_order(const pl_view *v, const pl_snapshot *s)
{
	uint32_t *rank = pt_ranks(v, PL_ELEM_SHARD, s->n_shards);
	uint32_t *idx = pt_alloc((size_t)s->n_overrides * sizeof *idx);
	uint32_t *tmp = pt_alloc((size_t)s->n_overrides * sizeof *tmp);
	for (uint32_t i = 0; i < s->n_overrides; i++)
		idx[i] = i;
	sort_overrides(idx, tmp, s->n_overrides, rank, s->overrides);
	free(tmp);
	free(rank);
	return idx;
}

/* The copies in flight in the shards' order (at most one a shard): for the
 * shard of rank r, its copy's index, or PL_NONE. */
uint32_t *pt_copy_of_rank(const pl_view *v, const pl_snapshot *s)
{
	uint32_t *rank = pt_ranks(v, PL_ELEM_SHARD, s->n_shards);
	uint32_t *at = pt_alloc(((size_t)s->n_shards + 1) * sizeof *at);
	for (uint32_t r = 0; r < s->n_shards; r++)
		at[r] = PL_NONE;
	for (uint32_t c = 0; c < s->n_copies; c++)
		at[rank[s->copies[c].shard]] = c;
	free(rank);
	return at;
}

void pt_format_text(pt_buf *b, const pt_doc *d, const pl_snapshot *s, const uint64_t *last_move, const pl_view *v,
		    int with_events)
{
	pt_put(b, "# placement(5) snapshot: %u member%s, %u stream%s, %u shard%s, %u override%s", s->n_members,
	       s->n_members == 1 ? "" : "s", s->n_streams, s->n_streams == 1 ? "" : "s", s->n_shards,
	       s->n_shards == 1 ? "" : "s", s->n_overrides, s->n_overrides == 1 ? "" : "s");
	if (s->n_copies)
		pt_put(b, ", %u cop%s in flight", s->n_copies, s->n_copies == 1 ? "y" : "ies");
	pt_putc(b, '\n');
	for (uint32_t i = 0; i < PT_SET_COUNT; i++)
		if (d->set[i].given) {
			pt_put(b, "set %s=", pt_settings[i].name);
			pt_put_setting_value(b, d, i);
			pt_putc(b, '\n');
		}
	for (uint32_t r = 0; r < s->n_members; r++) {
		uint32_t i = (uint32_t)pl_view_at(v, PL_ELEM_MEMBER, r);
		pt_put(b, "member ");
		pt_put_id(b, s->members[i].id);
		member_attrs_text(b, &s->members[i], last_move ? last_move[i] : PT_NEVER,
				  s->member_capacity ? s->member_capacity[i] : PL_BYTES_UNKNOWN);
		pt_putc(b, '\n');
	}
	for (uint32_t r = 0; r < s->n_streams; r++) {
		uint32_t i = (uint32_t)pl_view_at(v, PL_ELEM_STREAM, r);
		pt_put(b, "stream ");
		pt_put_id(b, s->streams[i].id);
		if (s->stream_tolerance && s->stream_tolerance[i] != PL_TOLERANCE_DEFAULT)
			pt_put(b, " tolerance=%u", s->stream_tolerance[i]);
		if (s->stream_zone_rule && s->stream_zone_rule[i] == PL_ZONES_MAJORITY)
			pt_put(b, " zones=majority");
		if (s->stream_flags && (s->stream_flags[i] & PL_STREAM_KEEP))
			pt_put(b, " keep");
		pt_putc(b, '\n');
	}
	for (uint32_t r = 0; r < s->n_shards; r++) {
		uint32_t ki = (uint32_t)pl_view_at(v, PL_ELEM_SHARD, r);
		const pl_shard *k = &s->shards[ki];
		pt_put(b, "shard ");
		pt_put_id(b, k->key);
		if (k->stream != PL_NONE) {
			pt_put(b, " stream=");
			pt_put_id(b, s->streams[k->stream].id);
		}
		if (k->replica_count) {
			pt_put(b, " replicas=");
			for (uint32_t j = 0; j < k->replica_count; j++) {
				if (j)
					pt_putc(b, ',');
				pt_put_id(b, s->members[k->replicas[j]].id);
			}
		}
		if (k->leader != PL_NONE) {
			pt_put(b, " leader=");
			pt_put_id(b, s->members[k->leader].id);
		}
		if (k->moving_to != PL_NONE) {
			pt_put(b, " moving-to=");
			pt_put_id(b, s->members[k->moving_to].id);
		}
		if (k->epoch)
			pt_put(b, " epoch=%llu", (unsigned long long)k->epoch);
		if (k->load)
			pt_put(b, " load=%llu", (unsigned long long)k->load);
		if (s->shard_bytes && s->shard_bytes[ki] != PL_BYTES_UNKNOWN) {
			pt_put(b, " size=");
			pt_put_size(b, s->shard_bytes[ki]);
		}
		if (k->flags & PL_SHARD_NOT_IDEMPOTENT)
			pt_put(b, " not-idempotent");
		if (k->flags & PL_SHARD_TRANSFER_DEBT)
			pt_put(b, " transfer-debt");
		for (uint32_t j = 0, n = 0; j < k->replica_count; j++)
			if (k->flags & PL_SHARD_OUT_OF_SYNC(j)) {
				pt_put(b, n++ ? "," : " out-of-sync=");
				pt_put_id(b, s->members[k->replicas[j]].id);
			}
		pt_putc(b, '\n');
	}
	uint32_t *oo = pt_override_order(v, s);
	for (uint32_t r = 0; r < s->n_overrides; r++) {
		const pl_override *o = &s->overrides[oo[r]];
		pt_put(b, "override ");
		pt_put_id(b, s->shards[o->shard].key);
		pt_put(b, " member=");
		pt_put_id(b, s->members[o->member].id);
		pt_put(b, " origin=%s", o->origin == PL_ORIGIN_COUNT ? "count" : "lag");
		if (o->since)
			pt_put(b, " since=%llu", (unsigned long long)o->since);
		pt_putc(b, '\n');
	}
	free(oo);
	uint32_t *co = s->n_copies ? pt_copy_of_rank(v, s) : NULL;
	for (uint32_t r = 0; co && r < s->n_shards; r++) {
		if (co[r] == PL_NONE)
			continue;
		const pl_copy *cp = &s->copies[co[r]];
		pt_put(b, "copy ");
		pt_put_id(b, s->shards[cp->shard].key);
		pt_put(b, " to=");
		pt_put_id(b, s->members[cp->to].id);
		if (cp->from != PL_NONE) {
			pt_put(b, " from=");
			pt_put_id(b, s->members[cp->from].id);
		}
		pt_putc(b, '\n');
	}
	free(co);
	for (uint32_t i = 0; with_events && i < d->nev; i++) {
		const pt_event *ev = &d->events[i];
		pt_put(b, "at %llu %s ", (unsigned long long)ev->tick, pt_event_name(ev->kind));
		pt_put_id(b, ev->name);
		if (ev->kind == PT_EV_JOIN) {
			pl_member m = ev->joiner;
			if (!ev->joined_given)
				m.joined_at = 0;
			member_attrs_text(b, &m, ev->last_move, ev->capacity);
			if (ev->joined_given && m.joined_at == 0)
				pt_put(b, " joined=0");
		}
		pt_putc(b, '\n');
	}
}
