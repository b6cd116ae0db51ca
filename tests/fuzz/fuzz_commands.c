/*
 * fuzz_commands.c - libFuzzer harness for placement(1)'s commands over a
 * parsed file: the input is written to a file, then check, stats (text, JSON
 * and SVG), owner, format, plan and simulate run on it as the tool runs them
 * (examples/placement/commands.c, plan.c, simulate.c), with options drawn
 * from the input's first bytes (--json, --policy, --member, --max, --ticks,
 * --event). A crash, a sanitizer report, or a command that fails without a
 * message (abort()) is a bug; so is a file that check accepts and format
 * cannot write back, or whose formatted text check refuses.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static char path[64], path2[64], svg[64], after[64];

static void remove_files(void)
{
	remove(path);
	remove(path2);
	remove(svg);
	remove(after);
}

static void must_say(int rc, const pt_err *e)
{
	/* a plan that ends blocked is an answer, not a failure */
	if (rc != 0 && rc != PT_EXIT_BLOCKED && e->msg[0] == '\0')
		abort(); /* every failure says why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (path[0] == '\0') {
		const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(path, sizeof path, "%s/pl-fuzz-%d.txt", dir, (int)getpid());
		snprintf(path2, sizeof path2, "%s/pl-fuzz-%d.fmt", dir, (int)getpid());
		snprintf(svg, sizeof svg, "%s/pl-fuzz-%d.svg", dir, (int)getpid());
		snprintf(after, sizeof after, "%s/pl-fuzz-%d.out", dir, (int)getpid());
		atexit(remove_files);
	}
	if (len < 4)
		return 0;
	uint8_t flags = data[0], sel = data[1], max = data[2], ticks = data[3];
	data += 4;
	len -= 4;
	FILE *fp = fopen(path, "wb");
	if (fp == NULL || fwrite(data, 1, len, fp) != len || fclose(fp) != 0)
		abort();
	static const char *policies[] = {NULL, "broker", "fleet", "region"};
	static const char *members[] = {NULL, "b0", "m1", "streams-1"};
	static const char *events[] = {"at 1 join x9 zone=q", "at 2 drain b0", "at 1 fail m1", "at 3 lag b1"};
	pt_opts o;
	memset(&o, 0, sizeof o);
	o.json = flags & 1;
	o.quiet = (flags >> 1) & 1;
	o.policy = policies[sel & 3];
	o.member = members[(sel >> 2) & 3];
	o.max = max % 64;
	o.max_given = 1;
	o.ticks = 1 + ticks % 16;
	o.ticks_given = 1;
	o.events = &events[(sel >> 4) & 3];
	o.nevents = (flags >> 2) & 1;
	pt_buf out = {0};
	pt_err e;
	memset(&e, 0, sizeof e);
	int ok = pt_cmd_check(path, &o, &out, &e) == 0;
	must_say(!ok, &e);
	if (ok) {
		int rc;
		pt_buf fmt = {0};
		memset(&e, 0, sizeof e);
		if (pt_cmd_format(path, &o, &fmt, &e) != 0)
			abort(); /* a file check accepts is written back */
		if (!o.json) {
			fp = fopen(path2, "wb");
			if (fp == NULL || fwrite(fmt.p, 1, fmt.len, fp) != fmt.len || fclose(fp) != 0)
				abort();
			memset(&e, 0, sizeof e);
			if (pt_cmd_check(path2, &o, &out, &e) != 0)
				abort(); /* and what it writes, check accepts */
		}
		pt_buf_free(&fmt);
		memset(&e, 0, sizeof e);
		o.svg = (flags & 8) ? svg : NULL;
		must_say(pt_cmd_stats(path, &o, &out, &e), &e);
		o.svg = NULL;
		memset(&e, 0, sizeof e);
		must_say(pt_cmd_owner(path, (flags & 16) ? "00" : "k/x", &o, &out, &e), &e);
		memset(&e, 0, sizeof e);
		o.out = (flags & 32) ? after : NULL;
		rc = pt_cmd_plan(path, &o, &out, &e);
		must_say(rc, &e);
		memset(&e, 0, sizeof e);
		rc = pt_cmd_simulate(path, &o, &out, &e);
		must_say(rc, &e);
		o.out = NULL;
	}
	pt_buf_free(&out);
	return 0;
}
