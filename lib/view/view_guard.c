/*
 * view_guard.c - outputs that must share no byte with a view: its memory
 * ([view, view + pl__view_bytes()), every array of a view lives there) and
 * its snapshot's arrays (core/guard.c), checked before any call writes
 * anything; and the memory a new view is built in, against the view pointer
 * it returns, the snapshot and the options.
 */
#include "view/view_build.h"

int pl__overlaps_view(const pl_view *v, const void *p, size_t n)
{
	return pl__overlap(p, n, v, pl__view_bytes(v)) || pl__overlaps_snapshot(&v->snap, p, n);
}

int pl__check_out(const pl_view *v, const void *p, size_t n, const void *q, size_t m, uint32_t arg, pl_diag *diag)
{
	if ((v != NULL && pl__overlaps_view(v, p, n)) || pl__overlap(p, n, q, m))
		return pl__fail(diag, PL_E_OVERLAP, PL_ELEM_ARGUMENT, arg, PL_NONE);
	return 0;
}

int pl__check_view_mem(const void *mem, size_t need, pl_view *const *out, const pl_snapshot *snap,
		       const pl_view_options *opt, pl_diag *diag)
{
	if (pl__overlap(out, sizeof *out, mem, need))
		return pl__fail(diag, PL_E_OVERLAP, PL_ELEM_ARGUMENT, 1, PL_NONE);
	if ((snap != NULL && pl__overlaps_snapshot(snap, mem, need)) || pl__overlap(mem, need, opt, sizeof *opt))
		return pl__fail(diag, PL_E_OVERLAP, PL_ELEM_ARGUMENT, 2, PL_NONE);
	return 0;
}
