/*
 * parse_settings.c - the settings of a snapshot file (`set NAME=VALUE`) and the
 * policies they name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* the ranges below name these limits */
_Static_assert(PL_MAX_REPLICAS == 8, "the range of rf= names PL_MAX_REPLICAS");
_Static_assert(PL_MAX_TOLERANCE == 67108864, "the range of tolerance= names PL_MAX_TOLERANCE");
#ifdef PL_BROKER_MAX_MOVES
_Static_assert(PL_BROKER_MAX_MOVES == 256, "the range of max-moves= names PL_BROKER_MAX_MOVES");
#endif

const pt_setting_info pt_settings[PT_SET_COUNT] = {
	[PT_SET_POLICY] = {"policy", PT_T_POLICY, 0, "broker, fleet or region: the policy plan and simulate run", NULL},
	[PT_SET_SCORER] = {"scorer", PT_T_SCORER, 0, "xxh3 (default) or legacy (FNV-1a over \"<key> <member>\")", NULL},
	[PT_SET_NOW] = {"now", PT_T_NUM, UINT64_MAX, "the caller's clock at the first tick (fleet)", NULL},
	[PT_SET_TICK] = {"tick", PT_T_NUM, UINT64_MAX, "clock units one tick advances", NULL},
	[PT_SET_TICKS] = {"ticks", PT_T_NUM, PT_MAX_TICKS, "ticks simulate runs", NULL},
	[PT_SET_SELF] = {"self", PT_T_MEMBER, 0, "fleet: the member that decides (default: every member)", NULL},
	[PT_SET_RF] = {"rf", PT_T_NUM, UINT32_MAX, "replication factor (broker, region)", "1 to 8 (PL_MAX_REPLICAS)"},
	[PT_SET_MAX_MOVES] = {"max-moves", PT_T_NUM, UINT32_MAX, "broker: concurrent moves", "1 to 256 (PL_BROKER_MAX_MOVES)"},
	[PT_SET_MAX_MOVES_IN] = {"max-moves-in", PT_T_NUM, UINT32_MAX, "broker: moves into one member, 0 = any", NULL},
	[PT_SET_MAX_MOVES_OUT] = {"max-moves-out", PT_T_NUM, UINT32_MAX, "broker: moves out of one member, 0 = any", NULL},
	[PT_SET_PAUSED] = {"paused", PT_T_BOOL, 1, "broker: start no move", NULL},
	[PT_SET_STREAM_BALANCE] = {"stream-balance", PT_T_BOOL, 1, "broker: per-stream tiers and pass", NULL},
	[PT_SET_REPLICA_BALANCE] = {"replica-balance", PT_T_BOOL, 1, "broker: replicas per stream and in total too", NULL},
	[PT_SET_HANDOFF_ONLY] = {"handoff-only", PT_T_BOOL, 1, "broker: leaders by hand-offs to followers, no copy", NULL},
	[PT_SET_COOLDOWN] = {"cooldown", PT_T_NUM, UINT64_MAX, "fleet: time between two moves of a member", NULL},
	[PT_SET_MOVES_PER_DECISION] = {"moves-per-decision", PT_T_NUM, UINT32_MAX, "fleet: moves per decision",
				       "1 or more"},
	[PT_SET_SPREAD] = {"spread", PT_T_BOOL, 1, "fleet: close the spread below the floor", NULL},
	[PT_SET_RETURN_HOME_AGE] = {"return-home-age", PT_T_NUM, UINT64_MAX, "fleet: age of a lag override before it goes home", NULL},
	[PT_SET_COUNT_BALANCE] = {"count-balance", PT_T_BOOL, 1, "fleet: count balance", NULL},
	[PT_SET_ADD_PEER_PROPOSALS] = {"add-peer-proposals", PT_T_BOOL, 1, "region: add peers", NULL},
	[PT_SET_LOAD_BALANCE] = {"load-balance", PT_T_BOOL, 1, "region: primaries toward less load", NULL},
	[PT_SET_LOAD_THRESHOLD] = {"load-threshold", PT_T_NUM, UINT32_MAX, "region: percent of load difference",
				   "1 to 99 (percent)"},
	[PT_SET_MAX_ACTIONS] = {"max-actions", PT_T_NUM, UINT32_MAX, "region: actions per call", "1 or more"},
	[PT_SET_BYTES_BALANCE] = {"bytes-balance", PT_T_BOOL, 1, "broker: even each member's bytes (sizes given)", NULL},
	[PT_SET_BYTES_FIRST] = {"bytes-first", PT_T_BOOL, 1, "broker: the bytes band before the counts", NULL},
	[PT_SET_FULL_RATIO] = {"full-ratio", PT_T_NUM, UINT32_MAX, "broker: percent of capacity no copy fills past, 0 = none",
			       "0 to 100 (percent)"},
	[PT_SET_BYTES_TOLERANCE] = {"bytes-tolerance", PT_T_NUM, UINT32_MAX,
				    "broker: percent a member's bytes may stray from its share",
				    "0 to 1000 (percent, PL_BROKER_MAX_TOLERANCE)"},
	[PT_SET_MAX_BYTES_IN_FLIGHT] = {"max-bytes-in-flight", PT_T_SIZE, UINT64_MAX,
					"broker: bytes of copies in flight, 0 = any", NULL},
	[PT_SET_MAX_BYTES_IN] = {"max-bytes-in", PT_T_SIZE, UINT64_MAX, "broker: bytes copied into one member, 0 = any",
				 NULL},
	[PT_SET_MAX_BYTES_OUT] = {"max-bytes-out", PT_T_SIZE, UINT64_MAX,
				  "broker: bytes copied out of one member, 0 = any", NULL},
	[PT_SET_TOLERANCE] = {"tolerance", PT_T_NUM, UINT32_MAX,
			      "broker: shards a member's totals may stray past their bounds",
			      "0 to 67108864 (PL_MAX_TOLERANCE)"},
	[PT_SET_STREAM_TOLERANCE] = {"stream-tolerance", PT_T_NUM, UINT32_MAX,
				     "broker: the same for each stream's counts (a stream's tolerance= overrides it)",
				     "0 to 67108864 (PL_MAX_TOLERANCE)"},
};

const char *pt_policy_name(uint32_t p)
{
	switch (p) {
	case PT_POLICY_BROKER: return "broker";
	case PT_POLICY_FLEET: return "fleet";
	case PT_POLICY_REGION: return "region";
	default: return "none";
	}
}

int pt_st_set(parser *ps, cursor *c, pt_err *e)
{
	pt_doc *d = ps->d;
	word w, name, val;
	int has, any = 0;
	char sb[80];
	while (pt_next_word(c, &w)) {
		any = 1;
		if (pt_split_attr(w, &name, &val, &has, c->line, e))
			return -1;
		uint32_t i = 0;
		while (i < PT_SET_COUNT && !pt_word_is(name, pt_settings[i].name))
			i++;
		if (i == PT_SET_COUNT)
			return pt_fail(e, c->line, "unknown setting '%s' (see placement(5), SETTINGS)",
				       pt_show(name, sb, sizeof sb));
		if (pt_need_value(has, name, c->line, e))
			return -1;
		pt_set *s = &d->set[i];
		if (s->given && s->line == 0) /* a --set argument's own words */
			return pt_fail(e, c->line, "setting %s is given twice in one --set", pt_settings[i].name);
		if (s->given)
			return pt_fail(e, c->line, "setting %s is given twice (first at line %llu)", pt_settings[i].name,
				       (unsigned long long)s->line);
		char nm[48];
		snprintf(nm, sizeof nm, "%s=", pt_settings[i].name);
		switch (pt_settings[i].type) {
		case PT_T_NUM:
			if (pt_number(val, pt_settings[i].max, c->line, nm, &s->value, e))
				return -1;
			if (i == PT_SET_TICKS && s->value == 0)
				return pt_fail(e, c->line,
					       "set ticks=0: simulate runs 1 to %u ticks (leave ticks= out to run until nothing "
					       "more is done)",
					       (unsigned)PT_MAX_TICKS);
			break;
		case PT_T_SIZE:
			if (pt_size_word(val.p, val.n, pt_settings[i].max, c->line, nm, &s->value, e))
				return -1;
			break;
		case PT_T_BOOL:
			if (pt_word_is(val, "on"))
				s->value = 1;
			else if (pt_word_is(val, "off"))
				s->value = 0;
			else
				return pt_fail(e, c->line, "bad value '%s' for %s: write on or off", pt_show(val, sb, sizeof sb), nm);
			break;
		case PT_T_POLICY:
			if (pt_word_is(val, "broker"))
				s->value = PT_POLICY_BROKER;
			else if (pt_word_is(val, "fleet"))
				s->value = PT_POLICY_FLEET;
			else if (pt_word_is(val, "region"))
				s->value = PT_POLICY_REGION;
			else
				return pt_fail(e, c->line, "unknown policy '%s' (expected broker, fleet or region)",
					       pt_show(val, sb, sizeof sb));
			break;
		case PT_T_SCORER:
			if (pt_word_is(val, "xxh3"))
				s->value = PL_SCORER_XXH3;
			else if (pt_word_is(val, "legacy"))
				s->value = PL_SCORER_LEGACY_FNV1A;
			else
				return pt_fail(e, c->line, "unknown scorer '%s' (expected xxh3 or legacy)",
					       pt_show(val, sb, sizeof sb));
			break;
		default: /* PT_T_MEMBER */
			if (pt_id_word(&val, c->line, "member", e))
				return -1;
			s->text = pt_keep(d, val);
			s->value = PL_NONE;
			pt_add_ref(ps, c->line, val, 0, REF_SELF);
			break;
		}
		s->given = 1;
		s->line = c->line;
	}
	if (!any)
		return pt_fail(e, c->line, "set: missing NAME=VALUE");
	return 0;
}
