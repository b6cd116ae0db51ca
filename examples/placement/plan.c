/*
 * plan.c - the policies: plan (a dry run) and simulate (ticks with events).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

int pt_policy_check(const pt_doc *d, const pl_view *v, uint32_t policy, pt_err *e);

int pt_policy_check(const pt_doc *d, const pl_view *v, uint32_t policy, pt_err *e)
{
	(void)d;
	(void)v;
	(void)policy;
	(void)e;
	return 0;
}

static int not_yet(const char *what, const char *path, const pt_opts *o, pt_err *e)
{
	pt_doc d;
	pl_snapshot snap;
	pl_view *v = NULL;
	void *mem = NULL;
	int rc = pt_load(&d, path, o, e);
	if (rc == 0) {
		snap = pt_doc_snapshot(&d);
		rc = pt_view(&d, &snap, &v, &mem, e);
	}
	if (rc == 0)
		rc = pt_fail(e, 0, "%s: no policy is built in yet", what);
	free(mem);
	pt_doc_free(&d);
	return rc;
}

int pt_cmd_plan(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	(void)out;
	return not_yet("plan", path, o, e);
}

int pt_cmd_simulate(const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	(void)out;
	return not_yet("simulate", path, o, e);
}
