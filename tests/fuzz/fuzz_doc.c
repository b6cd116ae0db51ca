/*
 * fuzz_doc.c - libFuzzer harness for the fleet's override document: any bytes
 * read as a document against a valid-by-construction view (fuzz_valid.h),
 * and the view's own overrides written and read back. A crash, a sanitizer
 * report or a broken promise (abort()) is a bug:
 *  - pl_fleet_doc_read() refuses with a named line and writes nothing, or
 *    returns overrides that name shards and members of the snapshot, and the
 *    same ones with any larger output; two naming one shard are returned as
 *    read, and a view of them is refused with PL_E_DUP_OVERRIDE;
 *  - pl_fleet_doc_format() returns the whole length whatever the buffer, and
 *    what it writes reads back to the overrides the view holds, and formats
 *    to the same bytes again.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_valid.h"
#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static fv_snapshot f;
static pl_override o1[FV_SHARDS], o2[FV_SHARDS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	in s = {data, len};
	/* half the inputs: the view's own document with a few bytes changed
	 * (so most lines parse and the checks behind the syntax are reached);
	 * the other half: raw bytes */
	int edited = take(&s, 2);
	uint32_t edits[8][2];
	for (int i = 0; i < 8; i++) {
		edits[i][0] = take(&s, 0);
		edits[i][1] = take(&s, 256);
	}
	size_t text_len = edited ? 0 : take(&s, 0) % 1024;
	if (text_len > s.n)
		text_len = s.n;
	const char *text = (const char *)s.p;
	s.p += text_len;
	s.n -= text_len;
	uint32_t cap = take(&s, 3) ? FV_SHARDS : take(&s, 8);
	pl_snapshot snap = fv_read(&s, &f);
	size_t size = pl_view_size(&snap);
	void *mem = malloc(size);
	char *buf = NULL, *buf2 = NULL;
	pl_view *v = NULL;
	int init = pl_view_init(&v, mem, size, &snap, NULL, NULL);
	count_valid("fuzz_doc", init == 0);
	if (init != 0)
		goto done;
	static char own[1 << 16];
	if (edited) {
		int w = pl_fleet_doc_format(v, own, sizeof own);
		if (w < 0 || (size_t)w >= sizeof own)
			goto done;
		for (int i = 0; i < 8 && w > 0; i++)
			if (edits[i][1] < 200)
				own[edits[i][0] % (uint32_t)w] = (char)(edits[i][1] < 100 ? " \n#%lagcount9"[edits[i][1] % 14]
											  : (char)edits[i][1]);
		text = own;
		text_len = (size_t)w;
	}
	/* any text */
	pl_diag d = {0, 0, 0, 0};
	uint32_t skipped = 0x5a5a5a5a;
	memset(o1, 0x5a, sizeof o1);
	int n = pl_fleet_doc_read(v, text, text_len, o1, cap, &skipped, &d);
	if (n < 0) {
		if (d.code != n || skipped != 0x5a5a5a5a || o1[0].shard != 0x5a5a5a5a)
			abort();
	} else {
		if ((uint32_t)n > cap)
			abort();
		int dup = -1, dup_other = -1;
		for (int i = 0; i < n; i++) {
			if (o1[i].shard >= snap.n_shards || o1[i].member >= snap.n_members || o1[i].origin > PL_ORIGIN_COUNT)
				abort();
			for (int j = 0; j < i && dup < 0; j++)
				if (o1[j].shard == o1[i].shard) {
					dup = i;
					dup_other = j;
				}
		}
		if (pl_fleet_doc_read(v, text, text_len, o2, FV_SHARDS, NULL, NULL) != n ||
		    memcmp(o1, o2, (size_t)n * sizeof *o1) != 0)
			abort();
		/* two lines naming one shard are read as written, and a view of
		 * them is refused, naming the two (pl_fleet_doc_read(3)) */
		pl_snapshot sd = snap;
		sd.overrides = o1;
		sd.n_overrides = (uint32_t)n;
		size_t dsize = pl_view_size(&sd);
		void *dmem = malloc(dsize);
		pl_view *dv;
		pl_diag dd = {0, 0, 0, 0};
		int drc = pl_view_init(&dv, dmem, dsize, &sd, NULL, &dd);
		free(dmem);
		if (dup < 0 ? drc != 0
			    : drc != PL_E_DUP_OVERRIDE || dd.kind != PL_ELEM_OVERRIDE ||
				      (dd.index != (uint32_t)dup && dd.index != (uint32_t)dup_other) ||
				      (dd.other != (uint32_t)dup && dd.other != (uint32_t)dup_other))
			abort();
	}
	/* the view's own document, and its round trip */
	int whole = pl_fleet_doc_format(v, NULL, 0);
	if (whole < 0)
		abort();
	size_t small = take(&s, 0) % ((size_t)whole + 2);
	buf = malloc((size_t)whole + 1);
	buf2 = malloc((size_t)whole + 1);
	if (pl_fleet_doc_format(v, buf, small) != whole || (small && memchr(buf, '\0', small) == NULL))
		abort();
	if (pl_fleet_doc_format(v, buf, (size_t)whole + 1) != whole || buf[whole] != '\0')
		abort();
	n = pl_fleet_doc_read(v, buf, (size_t)whole, o1, FV_SHARDS, &skipped, NULL);
	pl_view_counts vc;
	pl_view_stats(v, &vc);
	if (n < 0 || (uint32_t)n != vc.overrides)
		abort(); /* what it writes reads back, every override */
	for (int i = 0; i < n; i++) {
		pl_shard_state st;
		pl_view_shard_state(v, o1[i].shard, &st);
		if (st.override_member != o1[i].member || st.override_origin != o1[i].origin ||
		    st.override_since != o1[i].since)
			abort();
	}
	/* a view of the snapshot with those overrides formats the same bytes */
	pl_snapshot s2 = snap;
	s2.overrides = o1;
	s2.n_overrides = (uint32_t)n;
	void *mem2 = malloc(pl_view_size(&s2));
	pl_view *v2;
	if (pl_view_init(&v2, mem2, pl_view_size(&s2), &s2, NULL, NULL) != 0)
		abort();
	if (pl_fleet_doc_format(v2, buf2, (size_t)whole + 1) != whole || memcmp(buf, buf2, (size_t)whole) != 0)
		abort();
	free(mem2);
done:
	free(buf);
	free(buf2);
	free(mem);
	return 0;
}
