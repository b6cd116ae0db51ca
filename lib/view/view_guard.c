/*
 * view_guard.c - the overlap rule of view.h: before a call writes anything,
 * each of its outputs (the diag among them) is compared with its inputs (a
 * view: its memory, [view, view + pl__view_bytes()), where every array of
 * a view lives, and its snapshot's arrays; a snapshot: its struct and
 * arrays; a configuration, a key, a text, a request, an action, the
 * options, a hint) and with its other outputs. One function,
 * pl__check_args(), serves every public call: a call lists its arguments.
 */
#include "view/view_build.h"

int pl__overlaps_view(const pl_view *v, const void *p, size_t n)
{
	return pl__overlap(p, n, v, pl__view_bytes(v)) || pl__overlaps_snapshot(&v->snap, p, n);
}

/* Does [p, p + n) share a byte with the view (when not NULL), the snapshot
 * (when not NULL), an input of a[0..n_args), or an output of a[0..self)
 * (a[self] being the range itself; n_args when it is none of them)? */
static int overlaps_any(const pl_view *v, const pl_snapshot *s, const pl__arg *a, uint32_t n_args, uint32_t self,
			const void *p, size_t n)
{
	if ((v != NULL && pl__overlaps_view(v, p, n)) || (s != NULL && pl__overlaps_snapshot(s, p, n)))
		return 1;
	for (uint32_t j = 0; j < n_args; j++)
		if (j != self && (!a[j].out || j < self) && pl__overlap(p, n, a[j].p, a[j].n))
			return 1;
	return 0;
}

int pl__check_args(const pl_view *v, const pl_snapshot *s, const pl__arg *a, uint32_t n, pl_diag *diag)
{
	if (!pl__view_ok(v))
		v = NULL;
	/* The diag first, against every input and output: pointed into one, it
	 * is not written (it could only say so by writing there). */
	if (diag != NULL && overlaps_any(v, s, a, n, n, diag, sizeof *diag))
		return PL_E_OVERLAP;
	for (uint32_t i = 0; i < n; i++)
		if (a[i].out && overlaps_any(v, s, a, n, i, a[i].p, a[i].n))
			return pl__fail(diag, PL_E_OVERLAP, PL_ELEM_ARGUMENT, a[i].pos, PL_NONE);
	return 0;
}
