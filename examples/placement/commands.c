/*
 * commands.c - check, stats, owner and format: loading a file, and each
 * command's text and JSON output (written into a buffer that main.c prints
 * only when the command succeeded).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "stats.h"

double pt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double pt_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- progress ------------------------------------------------------------------ */

/* 0 off, 1 one line rewritten, 2 every update on a line of its own */
static int progress_on(const pt_opts *o)
{
	static int on = -1;
	if (o == NULL || o->timing)
		return 0;
	if (on < 0) {
		const char *env = getenv("PLACEMENT_PROGRESS");
		on = env && *env ? (strcmp(env, "2") == 0 ? 2 : strcmp(env, "0") != 0) : isatty(STDERR_FILENO);
	}
	return on;
}

static double progress_last;
static int progress_shown;

int pt_progress_due(const pt_opts *o)
{
	int on = progress_on(o);
	return on == 2 || (on && (!progress_shown || pt_now() - progress_last >= 0.25));
}

void pt_progress(const pt_opts *o, const char *fmt, ...)
{
	if (!pt_progress_due(o))
		return;
	progress_last = pt_now();
	progress_shown = 1;
	int lines = progress_on(o) == 2;
	va_list ap;
	va_start(ap, fmt);
	fputs(lines ? "placement: " : "\rplacement: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(lines ? "\n" : "\033[K", stderr);
	va_end(ap);
	fflush(stderr);
}

void pt_progress_left(char *buf, size_t n, double t0, uint64_t done, uint64_t total)
{
	buf[0] = '\0';
	if (done == 0 || done >= total)
		return;
	/* for the eye only: the rate so far, carried to the total */
	double left = (pt_now() - t0) * (double)(total - done) / (double)done;
	if (left < 60)
		snprintf(buf, n, ", about %.0f s left", left);
	else if (left < 360000)
		snprintf(buf, n, ", about %.0f min %02.0f s left", (double)(uint64_t)(left / 60),
			 left - 60 * (double)(uint64_t)(left / 60));
	else
		snprintf(buf, n, ", about %.0f h left", left / 3600);
}

void pt_progress_done(const pt_opts *o)
{
	if (progress_on(o) != 1 || !progress_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	progress_shown = 0;
}

int pt_write_file(const char *path, const pt_buf *b, pt_err *e)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
	e->arg = 1; /* the output named, not the file read */
	if (f == NULL)
		return pt_fail(e, 0, "cannot write %s: %s", path, strerror(errno));
	size_t n = b->len ? fwrite(b->p, 1, b->len, f) : 0;
	int bad = n != b->len;
	if (f != stdout)
		bad |= fclose(f) != 0;
	if (bad)
		return pt_fail(e, 0, "cannot write %s: %s", path, strerror(errno));
	e->arg = 0;
	return 0;
}

int pt_load(pt_doc *d, const char *path, const pt_opts *o, pt_err *e)
{
	double t0 = pt_now(), c0 = pt_cpu();
	pt_doc_init(d, strcmp(path, "-") == 0 ? "<stdin>" : path);
	pt_reader r;
	if (pt_reader_open(&r, path, e))
		return -1;
	r.timing = o && o->timing;
	pt_progress(o, "parsing");
	int rc = pt_parse_reader(d, &r, e);
	pt_reader_close(&r);
	if (rc)
		return -1;
	double t1 = pt_now(), c1 = pt_cpu();
	pt_progress(o, "parsed %u members, %u streams, %u shards", d->nm, d->ns, d->nk);
	for (int i = 0; o && i < o->nsets; i++)
		if (pt_parse_setting(d, o->sets[i], e)) {
			char msg[sizeof e->msg];
			int n = snprintf(msg, sizeof msg, "--set '%.100s': ", o->sets[i]);
			snprintf(msg + n, sizeof msg - (size_t)n, "%.600s", e->msg);
			memcpy(e->msg, msg, sizeof msg);
			e->line = 0;
			return -1;
		}
	for (int i = 0; o && i < o->nevents; i++)
		if (pt_parse_event(d, o->events[i], e)) {
			char msg[sizeof e->msg];
			int n = snprintf(msg, sizeof msg, "--event '%.100s': ", o->events[i]);
			snprintf(msg + n, sizeof msg - (size_t)n, "%.600s", e->msg);
			memcpy(e->msg, msg, sizeof msg);
			e->line = 0;
			return -1;
		}
	if (o && o->timing) {
		/* the file is read and parsed a line at a time: one figure for both,
		 * and the part of it spent waiting for read() */
		double mb = (double)r.bytes / 1e6;
		fprintf(stderr,
			"timing: %s: %.1f MB, %llu lines, %u members, %u shards (wall s, cpu s)\n"
			"timing: read and parse %.3f (%.3f), %.0f MB/s; in read() %.3f; ids kept in %.1f MB\n",
			d->path, mb, (unsigned long long)d->lines, d->nm, d->nk, t1 - t0, c1 - c0, mb / (t1 - t0 + 1e-9),
			r.read_s, (double)d->bytes.bytes / 1e6);
	}
	return 0;
}

/* Build the view of the document, with --timing. */
static int load_view(const pt_doc *d, const pt_opts *o, pl_snapshot *snap, pl_view **v, void **mem, pt_err *e)
{
	*snap = pt_doc_snapshot(d);
	double t0 = pt_now(), c0 = pt_cpu();
	if (pt_view(d, snap, v, mem, e))
		return -1;
	if (o && o->timing)
		fprintf(stderr, "timing: view (validation, orders, tallies) %.3f (%.3f)\n", pt_now() - t0, pt_cpu() - c0);
	return 0;
}

int pt_policy_of(const pt_doc *d, const pt_opts *o, uint32_t *policy, pt_err *e)
{
	if (o && o->policy) {
		if (strcmp(o->policy, "broker") == 0)
			*policy = PT_POLICY_BROKER;
		else if (strcmp(o->policy, "fleet") == 0)
			*policy = PT_POLICY_FLEET;
		else if (strcmp(o->policy, "region") == 0)
			*policy = PT_POLICY_REGION;
		else
			return pt_fail(e, 0, "--policy %s: unknown policy (expected broker, fleet or region)", o->policy);
		return 0;
	}
	*policy = d->set[PT_SET_POLICY].given ? (uint32_t)d->set[PT_SET_POLICY].value : PT_POLICY_BROKER;
	return 0;
}

/* ---- check ------------------------------------------------------------------------ */

int pt_policy_check(const pt_doc *d, pl_view *v, uint32_t policy, pt_err *e);

int pt_cmd_check(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pl_snapshot snap;
	pl_view *v = NULL;
	void *mem = NULL;
	uint32_t policy;
	int rc = pt_load(&d, path, o, e);
	if (rc == 0)
		rc = load_view(&d, o, &snap, &v, &mem, e);
	if (rc == 0)
		rc = pt_policy_of(&d, o, &policy, e);
	if (rc == 0)
		rc = pt_policy_check(&d, v, policy, e);
	if (rc == 0) {
		pl_view_counts c;
		pl_view_stats(v, &c);
		if (o->json) {
			pt_put(out, "{\"file\": ");
			pt_put_json_str(out, d.path, strlen(d.path));
			pt_put(out, ", \"valid\": true, \"lines\": %llu, \"members\": %u, \"live\": %u, \"eligible\": %u, "
				    "\"streams\": %u, \"shards\": %u, \"leaderless\": %u, \"moving\": %u, \"overrides\": %u, "
				    "\"events\": %u, \"scorer\": \"%s\", \"policy\": \"%s\"}\n",
			       (unsigned long long)d.lines, c.members, c.live, c.eligible, c.streams, c.shards, c.leaderless,
			       c.moving, c.overrides, d.nev, c.scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3",
			       pt_policy_name(policy));
		} else {
			pt_put(out, "%s: ok: ", d.path);
			pt_put_counts(out, &c);
			pt_put(out, ", %u event%s; scorer %s, policy %s\n", d.nev, d.nev == 1 ? "" : "s",
			       c.scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3", pt_policy_name(policy));
		}
	}
	free(mem);
	pt_doc_free(&d);
	return rc;
}

/* ---- stats ----------------------------------------------------------------------- */

/* stats --svg: the file's state and the one the policy's plan ends at, side
 * by side. The plan is run as plan runs it (the same run, the same planner,
 * the file's settings, no --max), its actions dropped tick by tick; plain
 * stats runs no plan. A plan that ends blocked still draws where it ends,
 * and says so; stats reports, so it still exits 0. */
static int stats_svg(const pt_doc *d, const pt_opts *o, uint32_t policy, pt_err *e)
{
	pt_run r;
	int rc = pt_run_init(&r, d, policy, NULL, e);
	if (rc == 0) {
		pt_stats before, after;
		pt_plan_end end;
		pt_stats_compute(&before, r.v, policy, d);
		rc = pt_plan_run(&r, o, 0, NULL, 0, &end, e);
		if (rc == 0) {
			pt_stats_compute(&after, r.v, policy, d);
			rc = pt_plan_svg(o->svg, "stats", d->path, &before, &after, r.v, &end, e);
			pt_stats_free(&after);
		}
		pt_stats_free(&before);
	}
	pt_run_free(&r);
	return rc;
}

int pt_cmd_stats(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pl_snapshot snap;
	pl_view *v = NULL;
	void *mem = NULL;
	uint32_t policy;
	int rc = pt_load(&d, path, o, e);
	if (rc == 0)
		rc = load_view(&d, o, &snap, &v, &mem, e);
	if (rc == 0)
		rc = pt_policy_of(&d, o, &policy, e);
	if (rc == 0) {
		pt_stats st;
		double t0 = pt_now();
		pt_stats_compute(&st, v, policy, &d);
		if (o->timing)
			fprintf(stderr, "timing: stats %.3f s\n", pt_now() - t0);
		if (o->svg)
			rc = stats_svg(&d, o, policy, e);
		if (rc == 0) {
			if (o->json)
				pt_stats_json(out, &st, v);
			else
				pt_stats_text(out, &st, v, 1);
		}
		pt_stats_free(&st);
	}
	free(mem);
	pt_doc_free(&d);
	return rc;
}

/* ---- owner ------------------------------------------------------------------------- */

typedef struct ranked {
	uint32_t member;
	uint32_t rank; /* canonical */
	uint64_t score;
	int64_t draw;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->draw != y->draw)
		return x->draw > y->draw ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int is_eligible(const pl_member *m)
{
	return !(m->flags & (PL_MEMBER_DOWN | PL_MEMBER_DRAINING));
}

int pt_cmd_owner(const char *path, const char *key_arg, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pl_snapshot s;
	pl_view *v = NULL;
	void *mem = NULL;
	char *key = NULL;
	size_t klen = 0;
	ranked *rk = NULL;
	int rc = pt_load(&d, path, o, e);
	if (rc == 0)
		rc = load_view(&d, o, &s, &v, &mem, e);
	if (rc == 0 && pt_decode_arg(key_arg, &key, &klen, e)) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "KEY: %.700s", e->msg);
		memcpy(e->msg, msg, sizeof msg);
		e->arg = 1;
		rc = -1;
	}
	if (rc == 0 && (klen == 0 || klen > PL_MAX_ID_LEN)) {
		char sb[80];
		rc = pt_fail(e, 0, "KEY '%s' is %zu bytes: a key is 1 to %u bytes",
			     pt_show_arg(key_arg, sb, sizeof sb), klen, PL_MAX_ID_LEN);
		e->arg = 1;
	}
	if (rc) {
		free(key);
		free(mem);
		pt_doc_free(&d);
		return rc;
	}
	pl_view_counts c;
	pl_view_stats(v, &c);
	uint32_t scorer = c.scorer;
	/* rank the eligible members as the library does: straw2 draws when
	 * their weights differ, then the raw score, then the smaller id */
	int weighted = 0;
	uint32_t w0 = 0, n = 0;
	rk = pt_alloc(((size_t)s.n_members + 1) * sizeof *rk);
	uint64_t kh = pl_hash(key, klen);
	for (uint32_t r = 0; r < s.n_members; r++) {
		uint32_t i = (uint32_t)pl_view_at(v, PL_ELEM_MEMBER, r);
		const pl_member *m = &s.members[i];
		if (!is_eligible(m))
			continue;
		uint32_t w = m->weight ? m->weight : 1;
		if (n == 0)
			w0 = w;
		else if (w != w0)
			weighted = 1;
		rk[n].member = i;
		rk[n].rank = r;
		rk[n].score = scorer == PL_SCORER_LEGACY_FNV1A ? pl_score_legacy(key, klen, m->id.ptr, (size_t)m->id.len)
							       : pl_score(kh, pl_hash(m->id.ptr, (size_t)m->id.len));
		n++;
	}
	for (uint32_t j = 0; j < n; j++)
		rk[j].draw = weighted ? pl_score_weighted(rk[j].score, s.members[rk[j].member].weight) : 0;
	qsort(rk, n, sizeof *rk, ranked_cmp);
	uint32_t top = PL_NONE;
	int got = pl_view_top(v, key, klen, &top, 1);
	if (got < 0 || (n > 0 && (got != 1 || top != rk[0].member)) || (n == 0 && got != 0)) {
		rc = pt_fail(e, 0, "internal: the ranking disagrees with pl_view_top() (%d)", got);
		goto done;
	}
	int shard = pl_view_find(v, PL_ELEM_SHARD, key, klen);
	pl_shard_state ss;
	memset(&ss, 0, sizeof ss);
	ss.override_member = PL_NONE;
	ss.leader = PL_NONE;
	if (shard >= 0)
		pl_view_shard_state(v, (uint32_t)shard, &ss);
	uint32_t home = n ? rk[0].member : PL_NONE;
	int ov_in_force = ss.override_member != PL_NONE && is_eligible(&s.members[ss.override_member]);
	uint32_t owner = ov_in_force ? ss.override_member : home;
	const pl_shard *k = shard >= 0 ? &s.shards[shard] : NULL;
	pl_bytes kb = {key, klen};

	if (o->json) {
		pt_put(out, "{\"key\": ");
		pt_put_json_bytes(out, kb);
		pt_put(out, ", \"shard\": %s", k ? "true" : "false");
		if (k) {
			pt_put(out, ", \"stream\": ");
			if (k->stream != PL_NONE)
				pt_put_json_bytes(out, s.streams[k->stream].id);
			else
				pt_put(out, "null");
			pt_put(out, ", \"leader\": ");
			if (ss.leader != PL_NONE)
				pt_put_json_bytes(out, s.members[ss.leader].id);
			else
				pt_put(out, "null");
			pt_put(out, ", \"replicas\": [");
			for (uint32_t j = 0; j < ss.replica_count; j++) {
				pt_put(out, "%s", j ? ", " : "");
				pt_put_json_bytes(out, s.members[ss.replicas[j]].id);
			}
			pt_put(out, "]");
		}
		pt_put(out, ", \"scorer\": \"%s\", \"weighted\": %s,\n \"ranking\": [",
		       scorer == PL_SCORER_LEGACY_FNV1A ? "legacy" : "xxh3", weighted ? "true" : "false");
		for (uint32_t j = 0; j < n; j++) {
			const pl_member *m = &s.members[rk[j].member];
			pt_put(out, "%s\n  {\"rank\": %u, \"member\": ", j ? "," : "", j + 1);
			pt_put_json_bytes(out, m->id);
			pt_put(out, ", \"weight\": %u, \"score\": \"0x%016llx\", \"draw\": ", m->weight ? m->weight : 1,
			       (unsigned long long)rk[j].score);
			if (weighted)
				pt_put(out, "\"%lld\"", (long long)rk[j].draw);
			else
				pt_put(out, "null");
			pt_put(out, "}");
		}
		pt_put(out, "],\n \"not_eligible\": [");
		int first = 1;
		for (uint32_t r = 0; r < s.n_members; r++) {
			const pl_member *m = &s.members[pl_view_at(v, PL_ELEM_MEMBER, r)];
			if (is_eligible(m))
				continue;
			pt_put(out, "%s{\"member\": ", first ? "" : ", ");
			pt_put_json_bytes(out, m->id);
			pt_put(out, ", \"state\": ");
			pt_put_json_state(out, m->flags);
			pt_put(out, "}");
			first = 0;
		}
		pt_put(out, "],\n \"home\": ");
		if (home != PL_NONE)
			pt_put_json_bytes(out, s.members[home].id);
		else
			pt_put(out, "null");
		pt_put(out, ", \"override\": ");
		if (ss.override_member != PL_NONE) {
			pt_put(out, "{\"member\": ");
			pt_put_json_bytes(out, s.members[ss.override_member].id);
			pt_put(out, ", \"origin\": \"%s\", \"since\": %llu, \"in_force\": %s}",
			       ss.override_origin == PL_ORIGIN_COUNT ? "count" : "lag",
			       (unsigned long long)ss.override_since, ov_in_force ? "true" : "false");
		} else {
			pt_put(out, "null");
		}
		pt_put(out, ", \"owner\": ");
		if (owner != PL_NONE)
			pt_put_json_bytes(out, s.members[owner].id);
		else
			pt_put(out, "null");
		pt_put(out, ", \"by\": \"%s\"}\n", owner == PL_NONE ? "none" : ov_in_force ? "override" : "home");
		goto done;
	}

	pt_put(out, "key ");
	pt_put_name(out, kb);
	if (k) {
		pt_put(out, ": a shard");
		if (k->stream != PL_NONE) {
			pt_put(out, " of stream ");
			pt_put_name(out, s.streams[k->stream].id);
		}
		pt_put(out, "; leader ");
		if (ss.leader != PL_NONE)
			pt_put_name(out, s.members[ss.leader].id);
		else
			pt_put(out, "none");
		pt_put(out, ", replicas ");
		for (uint32_t j = 0; j < ss.replica_count; j++) {
			if (j)
				pt_putc(out, ',');
			pt_put_name(out, s.members[ss.replicas[j]].id);
		}
		if (ss.replica_count == 0)
			pt_put(out, "none");
		pt_putc(out, '\n');
	} else {
		pt_put(out, ": not a shard of this snapshot (scored as any key)\n");
	}
	pt_put(out, "scorer %s; %u eligible members%s\n",
	       scorer == PL_SCORER_LEGACY_FNV1A ? "legacy (FNV-1a over \"<key> <member>\")"
						: "xxh3 (XXH3-64 of key and id, mixed per pair)",
	       n, weighted ? ", weighted: straw2 draws rank first" : ", equal weights: the highest score wins");
	pt_put(out, "\n%4s  %-16s %6s  %s\n", "rank", "member", "weight", weighted ? "score               draw" : "score");
	for (uint32_t j = 0; j < n; j++) {
		const pl_member *m = &s.members[rk[j].member];
		pt_put(out, "%4u  ", j + 1);
		size_t before = out->len;
		pt_put_name(out, m->id);
		for (size_t q = out->len - before; q < 16; q++)
			pt_putc(out, ' ');
		pt_put(out, " %6u  0x%016llx", m->weight ? m->weight : 1, (unsigned long long)rk[j].score);
		if (weighted)
			pt_put(out, "  %lld", (long long)rk[j].draw);
		if (j == 0)
			pt_put(out, "  ring home");
		if (rk[j].member == ss.override_member)
			pt_put(out, "  override");
		pt_putc(out, '\n');
	}
	for (uint32_t r = 0; r < s.n_members; r++) {
		const pl_member *m = &s.members[pl_view_at(v, PL_ELEM_MEMBER, r)];
		if (is_eligible(m))
			continue;
		pt_put(out, "%4s  ", "-");
		size_t before = out->len;
		pt_put_name(out, m->id);
		for (size_t q = out->len - before; q < 16; q++)
			pt_putc(out, ' ');
		pt_put(out, " not eligible (");
		pt_put_member_state(out, m->flags & ~PL_MEMBER_UNMEASURED, ',');
		pt_put(out, ")\n");
	}
	pt_putc(out, '\n');
	if (ss.override_member != PL_NONE) {
		pt_put(out, "override: ");
		pt_put_name(out, s.members[ss.override_member].id);
		pt_put(out, ", origin %s, since %llu: %s\n", ss.override_origin == PL_ORIGIN_COUNT ? "count" : "lag",
		       (unsigned long long)ss.override_since,
		       ov_in_force ? "in force" : "void (its member is down or draining)");
	} else if (k) {
		pt_put(out, "override: none\n");
	}
	pt_put(out, "owner: ");
	if (owner == PL_NONE) {
		pt_put(out, "none (no eligible member)\n");
	} else {
		pt_put_name(out, s.members[owner].id);
		if (ov_in_force) {
			pt_put(out, ", by its %s override (ring home ", ss.override_origin == PL_ORIGIN_COUNT ? "count" : "lag");
			if (home != PL_NONE)
				pt_put_name(out, s.members[home].id);
			else
				pt_put(out, "none");
			pt_put(out, ")\n");
		} else {
			pt_put(out, ", its ring home: the highest %s\n", weighted ? "draw" : "score");
		}
	}
done:
	free(rk);
	free(key);
	free(mem);
	pt_doc_free(&d);
	return rc;
}

/* ---- format ------------------------------------------------------------------------- */

int pt_cmd_format(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	pt_doc d;
	pl_snapshot snap;
	pl_view *v = NULL;
	void *mem = NULL;
	int rc = pt_load(&d, path, o, e);
	if (rc == 0)
		rc = load_view(&d, o, &snap, &v, &mem, e);
	if (rc == 0) {
		if (o->json)
			pt_format_json(out, &d, &snap, d.m_last_move, v, 1);
		else
			pt_format_text(out, &d, &snap, d.m_last_move, v, 1);
	}
	free(mem);
	pt_doc_free(&d);
	return rc;
}
