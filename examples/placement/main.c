/*
 * main.c - placement(1): check, inspect, plan and simulate a layout from a
 * snapshot file (placement(5)).
 *
 *   placement [--json] check FILE
 *   placement [--json] stats [--policy P] [--svg OUT] FILE
 *   placement [--json] owner FILE KEY
 *   placement [--json] plan [--policy P] [--member ID] [--max N] [--out FILE] [--svg OUT] FILE
 *   placement [--json] plan [--add-member 'ID zone=Z'] [--drain ID] [--down ID]... FILE
 *   placement [--json] simulate [--policy P] [--member ID] [--ticks N] [--event EV]...
 *                      [--svg OUT] [--out FILE] [--quiet] FILE
 *   placement [--json] format FILE
 *   placement import kafka FILE [--racks FILE] [--log-dirs FILE]
 *
 * Exit status: 0 success (for plan: the end state is balanced, or --max cut
 * it); 1 bad input (a message naming the file's line) or a failed write; 2 a
 * usage error; 3 a plan that ends blocked or stalled (the blockers named). A command writes its whole output into a
 * buffer first and prints it only when it succeeded, so an error never
 * leaves a partial plan on standard output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static const char usage_text[] =
	"usage: placement [--json] [--timing] COMMAND [OPTIONS] FILE\n"
	"\n"
	"commands:\n"
	"  check FILE          validate a snapshot file; exit 0 (valid) or 1\n"
	"  stats FILE          leaders, replicas (and owned) per member, in total and per stream,\n"
	"                      with floor, ceiling and share, as a table and a bar chart\n"
	"      --svg OUT       also picture it before and after the policy's plan, as SVG (runs the plan)\n"
	"      --policy P      whose measure to chart: broker (leaders), fleet (owned), region (replicas)\n"
	"  owner FILE KEY      who owns a key and why: every member's score, the ring home, the override\n"
	"  plan FILE           the dry run: every action the policy would emit until none is left,\n"
	"                      each with its reason, and the spread before and after\n"
	"      --policy P      broker, fleet or region (default: the file's `set policy`, else broker)\n"
	"      --member ID     fleet: only this member decides (default: every member)\n"
	"      --max N         stop after N actions\n"
	"      --out FILE      write the layout after the plan as a snapshot file\n"
	"      --svg OUT       the spread before and after as an SVG picture\n"
	"      --summary       only the totals and the spread before and after, per stream\n"
	"      --kafka-reassignment OUT.json  the moves for kafka-reassign-partitions.sh --execute\n"
	"      --kafka-election OUT.json      the leaders for kafka-leader-election.sh --election-type preferred\n"
	"      --kafka-unclean-election OUT.json  the leaders of partitions that had none, for --election-type unclean\n"
	"      --kafka-rollback OUT.json      the partitions of the reassignment as they are, to undo it\n"
	"      --add-member 'ID zone=Z'  what if: the plan with this member joined, beside the plan as it is\n"
	"      --drain ID, --down ID     what if: the same with a member draining, or down (each may repeat)\n"
	"  simulate FILE       ticks of the policy, applying each tick's actions, with scripted events\n"
	"      --ticks N       ticks to run (default: the file's `set ticks`, else until quiet)\n"
	"      --event EV      an event as in the file, without `at`: '5 join b9 zone=c'\n"
	"      --policy P, --member ID, --svg OUT, --out FILE as above; --quiet: no line per tick\n"
	"  format FILE         the snapshot rewritten in canonical form (round trip)\n"
	"  import kafka FILE   kafka-topics.sh --describe output as a snapshot file\n"
	"  import rpk FILE     rpk topic describe -p or rpk cluster partitions list output, the same way\n"
	"      --racks FILE    lines BROKER RACK: each broker's zone (and brokers that hold nothing)\n"
	"      --log-dirs FILE kafka-log-dirs.sh --describe output: each partition's size=\n"
	"      --topic NAME    import rpk: the topic of rpk topic describe -p, which does not name it\n"
	"\n"
	"options: --json (JSON output with the same content), --timing (times on stderr),\n"
	"         --set NAME=VALUE (a setting of placement(5) over the file's; not for import),\n"
	"         --help, --version. FILE may be - for standard input.\n"
	"exit status: 0 done (plan: ends balanced), 1 bad input, 2 usage, 3 plan ends blocked or stalled.\n"
	"See placement(1) and the file format in placement(5).\n";

/* A usage error: its message on standard error; with --json (anywhere
 * before a "--"), also one error object on standard output. Exits 2. */
static int usage_error(int json, const char *fmt, ...) PT_PRINTF(2, 3);
static int usage_error(int json, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "placement: %s\nTry 'placement --help'.\n", msg);
	if (json) {
		pt_buf j = {0};
		pt_put(&j, "{\"error\": {\"file\": null, \"line\": 0, \"message\": ");
		pt_put_json_str(&j, msg, strlen(msg));
		pt_put(&j, ", \"usage\": true}}\n");
		fwrite(j.p, 1, j.len, stdout);
		pt_buf_free(&j);
	}
	return 2;
}

static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	if (*s == '\0')
		return -1;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

enum { C_CHECK = 1, C_STATS, C_OWNER, C_PLAN, C_SIMULATE, C_FORMAT, C_IMPORT };

/* Which command takes which option. */
static int allowed(int cmd, const char *opt)
{
	if (strcmp(opt, "--svg") == 0)
		return cmd == C_STATS || cmd == C_PLAN || cmd == C_SIMULATE;
	if (strcmp(opt, "--policy") == 0)
		return cmd == C_STATS || cmd == C_PLAN || cmd == C_SIMULATE || cmd == C_CHECK;
	if (strcmp(opt, "--member") == 0 || strcmp(opt, "--out") == 0)
		return cmd == C_PLAN || cmd == C_SIMULATE;
	if (strcmp(opt, "--kafka-reassignment") == 0 || strcmp(opt, "--kafka-election") == 0 ||
	    strcmp(opt, "--kafka-unclean-election") == 0 || strcmp(opt, "--kafka-rollback") == 0)
		return cmd == C_PLAN;
	if (strcmp(opt, "--racks") == 0 || strcmp(opt, "--topic") == 0 || strcmp(opt, "--log-dirs") == 0)
		return cmd == C_IMPORT;
	if (strcmp(opt, "--set") == 0)
		return cmd != C_IMPORT;
	if (strcmp(opt, "--max") == 0 || strcmp(opt, "--summary") == 0 || strcmp(opt, "--add-member") == 0 ||
	    strcmp(opt, "--drain") == 0 || strcmp(opt, "--down") == 0)
		return cmd == C_PLAN;
	if (strcmp(opt, "--ticks") == 0 || strcmp(opt, "--event") == 0 || strcmp(opt, "--quiet") == 0)
		return cmd == C_SIMULATE;
	return 1;
}

static int run(int argc, char **argv, pt_opts *op)
{
	pt_opts o = *op;
	const char *pos[3] = {NULL, NULL, NULL};
	int npos = 0, cmd = 0, dashdash = 0;
	const char *cmd_name = NULL;

	/* --json is known before any other argument is read, so that a usage
	 * error anywhere on the line is reported as JSON too */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			o.json = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!dashdash && a[0] == '-' && a[1] == '-' && a[2] != '\0') {
			char name[32];
			const char *val = NULL;
			const char *eq = strchr(a, '=');
			size_t nl = eq ? (size_t)(eq - a) : strlen(a);
			if (nl >= sizeof name)
				return usage_error(o.json, "unknown option '%s'", a);
			memcpy(name, a, nl);
			name[nl] = '\0';
			if (strcmp(name, "--help") == 0) {
				fputs(usage_text, stdout);
				return 0;
			}
			if (strcmp(name, "--version") == 0) {
				printf("placement %s (libplacement %s; policies:", PL_VERSION_STRING, pl_version());
				for (uint32_t p = PT_POLICY_BROKER; p <= PT_POLICY_REGION; p++)
					if (pt_policy_ops_of(p))
						printf(" %s", pt_policy_name(p));
				printf(")\n");
				return 0;
			}
			if (strcmp(name, "--json") == 0) {
				o.json = 1;
				continue;
			}
			if (strcmp(name, "--timing") == 0) {
				o.timing = 1;
				continue;
			}
			if (strcmp(name, "--summary") == 0) {
				o.summary = 1;
				if (cmd && !allowed(cmd, name))
					return usage_error(o.json, "--summary is not an option of %s", cmd_name);
				continue;
			}
			if (strcmp(name, "--quiet") == 0) {
				o.quiet = 1;
				if (cmd && !allowed(cmd, name))
					return usage_error(o.json, "--quiet is not an option of %s", cmd_name);
				continue;
			}
			static const char *const valued[] = {"--svg",   "--out",   "--policy",
							     "--member", "--max",  "--ticks",
							     "--event", "--racks", "--kafka-reassignment",
							     "--kafka-election", "--kafka-unclean-election",
							     "--kafka-rollback", "--set", "--topic",
							     "--add-member", "--drain", "--down", "--log-dirs"};
			size_t k = 0;
			while (k < sizeof valued / sizeof valued[0] && strcmp(name, valued[k]) != 0)
				k++;
			if (k == sizeof valued / sizeof valued[0]) {
				/* a setting written as an option: say how to give it */
				for (uint32_t q = 0; q < PT_SET_COUNT; q++)
					if (strcmp(name + 2, pt_settings[q].name) == 0)
						return usage_error(o.json, "unknown option '%s': the setting %s is given as --set %s=VALUE",
								   name, pt_settings[q].name, pt_settings[q].name);
				return usage_error(o.json, "unknown option '%s'", a);
			}
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return usage_error(o.json, "%s needs a value", name);
			if (cmd && !allowed(cmd, name))
				return usage_error(o.json, "this option is not one of the command's: %s", name);
			if (strcmp(name, "--svg") == 0)
				o.svg = val;
			else if (strcmp(name, "--out") == 0)
				o.out = val;
			else if (strcmp(name, "--policy") == 0)
				o.policy = val;
			else if (strcmp(name, "--member") == 0)
				o.member = val;
			else if (strcmp(name, "--racks") == 0)
				o.racks = val;
			else if (strcmp(name, "--log-dirs") == 0)
				o.log_dirs = val;
			else if (strcmp(name, "--kafka-reassignment") == 0)
				o.kafka_reassignment = val;
			else if (strcmp(name, "--kafka-election") == 0)
				o.kafka_election = val;
			else if (strcmp(name, "--kafka-unclean-election") == 0)
				o.kafka_unclean = val;
			else if (strcmp(name, "--kafka-rollback") == 0)
				o.kafka_rollback = val;
			else if (strcmp(name, "--topic") == 0)
				o.topic = val;
			else if (strcmp(name, "--set") == 0)
				o.sets[o.nsets++] = val;
			else if (strcmp(name, "--add-member") == 0 || strcmp(name, "--drain") == 0 ||
				 strcmp(name, "--down") == 0)
				op->changes_buf[o.nchanges++] = (pt_change){name[2] == 'a' ? 1 : name[3] == 'r' ? 2 : 3, val};
			else if (strcmp(name, "--max") == 0) {
				if (parse_count(val, PT_MAX_ACTIONS, &o.max) || o.max == 0)
					return usage_error(o.json, "--max %s: write a number of actions from 1", val);
				o.max_given = 1;
			} else if (strcmp(name, "--ticks") == 0) {
				if (parse_count(val, PT_MAX_TICKS, &o.ticks) || o.ticks == 0)
					return usage_error(o.json, "--ticks %s: write a number from 1 to 1000000", val);
				o.ticks_given = 1;
			} else {
				o.events[o.nevents++] = val;
			}
			continue;
		}
		if (!dashdash && strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && a[0] == '-' && a[1] != '\0')
			return usage_error(o.json, "unknown option '%s'", a);
		if (cmd == 0) {
			static const char *const names[] = {"check", "stats", "owner", "plan", "simulate", "format", "import"};
			for (int c = 0; c < 7; c++)
				if (strcmp(a, names[c]) == 0)
					cmd = c + 1;
			if (cmd == 0)
				return usage_error(o.json, "unknown command '%s' (check, stats, owner, plan, simulate, format, import)",
						   a);
			cmd_name = a;
			continue;
		}
		if (npos == 2)
			return usage_error(o.json, "too many arguments: '%s'", a);
		pos[npos++] = a;
	}
	if (cmd == 0) {
		if (o.json)
			return usage_error(1, "no command (check, stats, owner, plan, simulate, format, import)");
		fputs(usage_text, stderr);
		return 2;
	}
	/* options given before the command */
	static const char *const checks[] = {"--svg",   "--policy", "--member", "--out",
					     "--max",   "--ticks",  "--event",  "--racks",
					     "--kafka-reassignment", "--kafka-election", "--kafka-unclean-election",
					     "--kafka-rollback", "--set", "--topic", "--log-dirs"};
	const int given[] = {o.svg != NULL,   o.policy != NULL, o.member != NULL, o.out != NULL,
			     o.max_given,     o.ticks_given,    o.nevents > 0,    o.racks != NULL,
			     o.kafka_reassignment != NULL, o.kafka_election != NULL, o.kafka_unclean != NULL,
			     o.kafka_rollback != NULL, o.nsets > 0, o.topic != NULL, o.log_dirs != NULL};
	for (int k = 0; k < (int)(sizeof checks / sizeof checks[0]); k++)
		if (given[k] && !allowed(cmd, checks[k]))
			return usage_error(o.json, "this option is not one of the command's: %s", checks[k]);
	if (o.nchanges && !allowed(cmd, "--drain"))
		return usage_error(o.json, "--add-member, --drain and --down are options of plan, not of %s", cmd_name);
	/* a what-if prints two plans' totals: no file of one plan's */
	for (int k = 0; o.nchanges && k < 12; k++) /* --svg, --out, the Kafka files */
		if (given[k] && (k == 0 || k == 3 || k >= 8))
			return usage_error(o.json, "%s is not an option of a what-if (--add-member, --drain, --down)", checks[k]);
	if (o.nchanges && o.summary)
		return usage_error(o.json, "--summary is not an option of a what-if (--add-member, --drain, --down)");
	o.changes = op->changes_buf;
	if (o.quiet && !allowed(cmd, "--quiet"))
		return usage_error(o.json, "--quiet is not an option of %s", cmd_name);
	if (o.summary && !allowed(cmd, "--summary"))
		return usage_error(o.json, "--summary is not an option of %s", cmd_name);
	int want = cmd == C_OWNER || cmd == C_IMPORT ? 2 : 1;
	if (npos != want)
		return usage_error(o.json, "%s needs %s", cmd_name,
				   cmd == C_OWNER ? "FILE and KEY" : cmd == C_IMPORT ? "a FORMAT and a FILE (import kafka FILE, import rpk FILE)"
										      : "one FILE");

	pt_buf out = {0};
	pt_err e;
	memset(&e, 0, sizeof e);
	int rc;
	switch (cmd) {
	case C_CHECK: rc = pt_cmd_check(pos[0], &o, &out, &e); break;
	case C_STATS: rc = pt_cmd_stats(pos[0], &o, &out, &e); break;
	case C_OWNER: rc = pt_cmd_owner(pos[0], pos[1], &o, &out, &e); break;
	case C_PLAN: rc = o.nchanges ? pt_cmd_whatif(pos[0], &o, &out, &e) : pt_cmd_plan(pos[0], &o, &out, &e); break;
	case C_SIMULATE: rc = pt_cmd_simulate(pos[0], &o, &out, &e); break;
	case C_IMPORT: rc = pt_cmd_import(pos[0], pos[1], &o, &out, &e); break;
	default: rc = pt_cmd_format(pos[0], &o, &out, &e); break;
	}
	const char *named = cmd == C_IMPORT ? pos[1] : pos[0];
	const char *file = strcmp(named, "-") == 0 ? "<stdin>" : named;
	if (rc < 0) {
		if (e.arg)
			fprintf(stderr, "placement: %s\n", e.msg);
		else if (e.line)
			fprintf(stderr, "placement: %s:%llu: %s\n", file, (unsigned long long)e.line, e.msg);
		else
			fprintf(stderr, "placement: %s: %s\n", file, e.msg);
		if (o.json) {
			pt_buf j = {0};
			pt_put(&j, "{\"error\": {\"file\": ");
			if (e.arg)
				pt_put(&j, "null");
			else
				pt_put_json_str(&j, file, strlen(file));
			pt_put(&j, ", \"line\": %llu, \"message\": ", (unsigned long long)e.line);
			pt_put_json_str(&j, e.msg, strlen(e.msg));
			pt_put(&j, "}}\n");
			fwrite(j.p, 1, j.len, stdout);
			pt_buf_free(&j);
		}
		pt_buf_free(&out);
		return 1;
	}
	int bad = out.len && fwrite(out.p, 1, out.len, stdout) != out.len;
	bad |= fflush(stdout) != 0;
	pt_buf_free(&out);
	if (bad) {
		perror("placement: standard output");
		return 1;
	}
	return rc; /* 0, or PT_EXIT_BLOCKED: a plan that ends blocked or stalled */
}

int main(int argc, char **argv)
{
	pt_opts o;
	memset(&o, 0, sizeof o);
	o.events = calloc((size_t)argc + 1, sizeof *o.events);
	o.sets = calloc((size_t)argc + 1, sizeof *o.sets);
	o.changes_buf = calloc((size_t)argc + 1, sizeof *o.changes_buf);
	if (o.events == NULL || o.sets == NULL || o.changes_buf == NULL)
		pt_oom();
	int rc = run(argc, argv, &o);
	free(o.events);
	free(o.sets);
	free(o.changes_buf);
	return rc;
}
