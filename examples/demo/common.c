/* common.c - printing helpers shared by the demo's scenarios. */
#include <stdio.h>
#include <stdlib.h>

#include "demo.h"

void demo_title(const char *title)
{
	printf("\n== %s\n\n", title);
}

void demo_bar(const char *label, uint32_t value, uint32_t mark, uint32_t max)
{
	const uint32_t width = 48;
	uint32_t n = max ? (uint32_t)((uint64_t)value * width / max) : 0;
	uint32_t at = max && mark ? (uint32_t)((uint64_t)mark * width / max) : 0;
	uint32_t end = n > at ? n : at + (mark ? 1 : 0);
	printf("  %-12s %5u |", label, value);
	for (uint32_t i = 0; i < end; i++) {
		if (mark && i == at)
			putchar(i < n ? '#' : '|');
		else
			putchar(i < n ? '=' : ' ');
	}
	printf("%s\n", value > mark && mark ? "  over" : "");
}

pl_view *demo_view(const pl_snapshot *snap, uint32_t scorer, void **mem)
{
	pl_view_options opt = PL_VIEW_OPTIONS_INIT;
	pl_diag d;
	pl_view *v;
	size_t size = pl_view_size(snap);
	opt.scorer = scorer;
	free(*mem);
	*mem = malloc(size);
	if (*mem == NULL) {
		fprintf(stderr, "demo: out of memory\n");
		exit(1);
	}
	int rc = pl_view_init(&v, *mem, size, snap, &opt, &d);
	if (rc) {
		fprintf(stderr, "demo: pl_view_init: %s (element kind %u, index %u)\n", pl_strerror(rc), d.kind,
			d.index);
		exit(1);
	}
	return v;
}

void demo_explain(const pl_snapshot *snap, const pl_action *a, uint32_t step)
{
	char buf[512];
	if (pl_action_explain(snap, a, buf, sizeof buf) < 0)
		snprintf(buf, sizeof buf, "(cannot explain this action)");
	printf("  %3u. %s\n", step, buf);
}
