/*
 * fuzz_parse.c - libFuzzer harness for placement(1)'s snapshot file parser
 * (examples/placement/parse*.c): any bytes are parsed; a file that parses
 * is validated by the library (pl_view_init(), errors mapped back to lines),
 * and a valid one is written back by the tool's own text writer, parsed
 * again, and must format to the same bytes (the round trip), in text and in
 * JSON. Then each policy in the build runs a few ticks of plan on it (a
 * small layout only), and the layout that leads to, written back, must read
 * as a valid snapshot again. The reader the parser reads lines from
 * (read.c) must hand out the same lines and the same error whatever the
 * sizes of its reads: a small buffer read a few bytes at a time, against the
 * same buffer filled whole. A crash, a sanitizer report, an error without a
 * message, or a round trip that changes the snapshot (checked with abort())
 * is a bug.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* Parse bytes into a fresh document and view; 0 when valid. */
static int load(pt_doc *d, const char *bytes, size_t len, pl_snapshot *snap, pl_view **v, void **mem)
{
	pt_err e;
	char *text = malloc(len + 1);
	if (text == NULL)
		abort();
	memcpy(text, bytes, len);
	text[len] = '\0';
	pt_doc_init(d, "fuzz");
	e.msg[0] = '\0';
	int rc = pt_parse(d, text, len, &e);
	if (rc == 0) {
		*snap = pt_doc_snapshot(d);
		rc = pt_view(d, snap, v, mem, &e);
	}
	if (rc != 0 && e.msg[0] == '\0')
		abort(); /* every error says what is wrong */
	if (rc != 0 && e.line > d->lines + 1 && e.line != 0)
		abort(); /* and names a line of the file */
	return rc;
}

/* The same lines from a buffer of cap bytes read k bytes at a time as from
 * one filled whole; none holds a LF, and there are as many as the input has
 * ends of line (and one more for bytes after the last). */
static void same_lines(const uint8_t *data, size_t len)
{
	if (len < 2)
		return;
	size_t cap = 16 + data[0] % 112, k = 1 + data[len - 1] % 13;
	pt_reader a, b;
	pt_reader_mem(&a, (const char *)data, len);
	pt_reader_mem(&b, (const char *)data, len);
	if (a.cap > cap)
		a.cap = b.cap = cap;
	a.max_read = k;
	uint64_t want = 0;
	for (size_t i = 0; i < len; i++)
		want += data[i] == '\n';
	want += data[len - 1] != '\n';
	for (;;) {
		pt_err ea, eb;
		char *pa, *pb;
		size_t na = 0, nb = 0;
		int ra = pt_reader_line(&a, &pa, &na, &ea), rb = pt_reader_line(&b, &pb, &nb, &eb);
		if (ra != rb || a.line != b.line)
			abort();
		if (ra < 0 && (ea.line != eb.line || strcmp(ea.msg, eb.msg) != 0 || ea.line != a.line))
			abort();
		if (ra <= 0) {
			if (ra == 0 && a.line != want)
				abort(); /* read to the end: a line per end of line */
			break;
		}
		if (na != nb || memcmp(pa, pb, na) != 0 || memchr(pa, '\n', na) != NULL || pa[na] != '\0')
			abort();
	}
	pt_reader_close(&a);
	pt_reader_close(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	same_lines(data, len);
	pt_doc d1, d2;
	pl_snapshot s1, s2;
	pl_view *v1 = NULL, *v2 = NULL;
	void *m1 = NULL, *m2 = NULL;
	pt_buf t1 = {0}, t2 = {0}, j1 = {0}, j2 = {0};
	if (load(&d1, (const char *)data, len, &s1, &v1, &m1) != 0) {
		pt_doc_free(&d1);
		return 0;
	}
	pt_format_text(&t1, &d1, &s1, d1.m_last_move, v1, 1);
	pt_format_json(&j1, &d1, &s1, d1.m_last_move, v1, 1);
	if (load(&d2, t1.p, t1.len, &s2, &v2, &m2) != 0)
		abort(); /* what the writer writes must read back */
	pt_format_text(&t2, &d2, &s2, d2.m_last_move, v2, 1);
	pt_format_json(&j2, &d2, &s2, d2.m_last_move, v2, 1);
	if (t1.len != t2.len || memcmp(t1.p, t2.p, t1.len) != 0)
		abort(); /* the round trip keeps the snapshot */
	if (j1.len != j2.len || memcmp(j1.p, j2.p, j1.len) != 0)
		abort();
	/* a few ticks of each policy, and the layout they lead to */
	for (uint32_t p = PT_POLICY_BROKER; p <= PT_POLICY_REGION && d1.nk <= 256 && d1.nm <= 64; p++) {
		pt_run r;
		pt_err e;
		memset(&r, 0, sizeof r);
		if (pt_policy_ops_of(p) == NULL || pt_run_init(&r, &d1, p, NULL, &e) != 0) {
			pt_run_free(&r);
			continue;
		}
		int bad = 0;
		for (r.tickno = 1; r.tickno <= 4 && !bad; r.tickno++) {
			pt_tick t;
			memset(&t, 0, sizeof t);
			bad = r.ops->tick(&r, 64, &t, &e) != 0;
			pl_view_settle(r.v);
			r.now += r.tick_len;
		}
		if (!bad) {
			pt_buf t3 = {0};
			pt_doc d3;
			pl_snapshot s3;
			pl_view *v3 = NULL;
			void *m3 = NULL;
			if (pt_run_sync(&r, &e) != 0)
				abort(); /* the states of a view are a valid snapshot */
			pt_format_text(&t3, &d1, &r.snap, r.last_move, r.v, 1);
			if (load(&d3, t3.p, t3.len, &s3, &v3, &m3) != 0)
				abort(); /* and what the writer makes of them reads back */
			free(m3);
			pt_doc_free(&d3);
			pt_buf_free(&t3);
		}
		pt_run_free(&r);
	}
	pt_stats st;
	pt_stats_compute(&st, v1, PT_POLICY_FLEET, &d1);
	pt_buf out = {0};
	pt_stats_text(&out, &st, v1, 1);
	pt_stats_json(&out, &st, v1);
	pt_svg_before_after(&out, &st, &st, v1, "fuzz", "before", "after", NULL, NULL);
	pt_stats_free(&st);
	pt_buf_free(&out);
	pt_buf_free(&t1);
	pt_buf_free(&t2);
	pt_buf_free(&j1);
	pt_buf_free(&j2);
	free(m1);
	free(m2);
	pt_doc_free(&d1);
	pt_doc_free(&d2);
	return 0;
}
