/*
 * rpk.c - `import rpk`: what Redpanda's `rpk topic describe -p` (or the
 * whole `rpk topic describe`) and `rpk cluster partitions list` print, read
 * as kafka.c reads kafka-topics.sh --describe: a line at a time, each
 * partition checked and kept by the same code (import.h), and the snapshot
 * written by kafka.c. rpk prints tables: a header line names the columns
 * (PARTITION, REPLICAS or REPLICA-CORE, and TOPIC, LEADER or LEADER-ID,
 * OFFLINE-REPLICAS when given), each row under it is a partition, and a list
 * is one word "[1 2 3]". rpk prints no ISR: a replica offline is taken as
 * out of sync, the others as in sync.
 */
#include <string.h>

#include "import.h"

/* "[1 2 3]" (rpk topic describe) or "[1-0 2-1]" (rpk cluster partitions
 * list: NODE-CORE) appended to ints, as kafka.c's id_list() does. */
static int rpk_list(kafka *k, kword w, uint64_t line, const char *field, uint32_t *first, uint32_t *n, pt_err *e)
{
	*first = (uint32_t)k->ni;
	*n = 0;
	if (w.n < 2 || w.p[0] != '[' || w.p[w.n - 1] != ']')
		return pt_fail(e, line, "%s: '%.*s' is not a list of broker ids ([1 2 3])", field, (int)(w.n > 40 ? 40 : w.n),
			       w.p);
	const char *p = w.p + 1, *end = w.p + w.n - 1;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		const char *s = p;
		while (p < end && *p != ' ' && *p != ',')
			p++;
		if (p == s)
			break;
		kword x = {s, (size_t)(p - s)};
		const char *dash = memchr(s, '-', x.n);
		uint64_t v, core;
		if (dash && pt_kafka_uint((kword){dash + 1, (size_t)(p - dash - 1)}, UINT32_MAX, &core) == 0)
			x.n = (size_t)(dash - s); /* NODE-CORE: the node */
		if (pt_kafka_uint(x, INT32_MAX, &v))
			return pt_fail(e, line, "%s: '%.*s' is not a broker id (a number from 0)", field, (int)(x.n > 40 ? 40 : x.n),
				       x.p);
		k->ints = pt_grow(k->ints, &k->i_cap, sizeof *k->ints, k->ni + 1);
		k->ints[k->ni++] = (uint32_t)v;
		pt_kafka_add_broker(k, (uint32_t)v);
		(*n)++;
	}
	return 0;
}

static int col_is(kword w, const char *s)
{
	return pt_kafka_key_is(w, s);
}

/* One line of `rpk topic describe -p` (or the whole describe: its NAME line
 * names the topic) or `rpk cluster partitions list`: a header line
 * names the columns, each row under it is a partition; any other line
 * is skipped (1), with a note. */
int pt_rpk_line(kafka *k, const char *p, const char *end, uint64_t line, const pt_opts *o, pt_err *e)
{
	kword w[KWORDS];
	size_t n = pt_kafka_split(p, end, 1, w, KWORDS);
	if (n == 0 || w[0].p[0] == '#')
		return 0;
	if (n == 2 && col_is(w[0], "NAME")) { /* rpk topic describe's SUMMARY */
		k->rpk_topic = pt_kafka_keep(k, w[1]);
		return 0;
	}
	int part = -1, reps = -1;
	for (size_t i = 0; i < n; i++) {
		part = col_is(w[i], "PARTITION") ? (int)i : part;
		reps = col_is(w[i], "REPLICAS") || col_is(w[i], "REPLICA-CORE") ? (int)i : reps;
	}
	if (part >= 0 && reps >= 0) { /* a header */
		k->c_topic = k->c_leader = k->c_off = -1;
		k->c_part = part;
		k->c_reps = reps;
		k->ncols = (int)n;
		for (size_t i = 0; i < n; i++) {
			if (col_is(w[i], "TOPIC"))
				k->c_topic = (int)i;
			else if (col_is(w[i], "LEADER") || col_is(w[i], "LEADER-ID"))
				k->c_leader = (int)i;
			else if (col_is(w[i], "OFFLINE-REPLICAS"))
				k->c_off = (int)i;
		}
		return 0;
	}
	uint64_t pn;
	if (k->ncols == 0 || (size_t)k->c_part >= n || pt_kafka_uint(w[k->c_part], INT32_MAX, &pn))
		return 1; /* a line of another section, or not rpk's */
	if ((int)n != k->ncols)
		return pt_fail(e, line, "%zu columns, and the header above has %d (a list is written [1 2 3])", n, k->ncols);
	kword topic = k->c_topic >= 0 ? w[k->c_topic] : k->rpk_topic;
	if (k->c_topic < 0 && o->topic)
		topic = (kword){o->topic, strlen(o->topic)};
	if (topic.n == 0)
		return pt_fail(e, line, "no topic for partition %llu: rpk topic describe -p does not name it (give --topic NAME)",
			       (unsigned long long)pn);
	if (topic.n + 12 > PL_MAX_ID_LEN)
		return pt_fail(e, line, "the topic's name is %zu bytes: TOPIC/PARTITION must fit %u bytes (PL_MAX_ID_LEN)",
			       topic.n, PL_MAX_ID_LEN);
	kpart x;
	memset(&x, 0, sizeof x);
	x.topic = pt_kafka_topic_of(k, topic, line);
	x.partition = (uint32_t)pn;
	x.line = line;
	x.leader = -1;
	if (rpk_list(k, w[k->c_reps], line, "REPLICAS", &x.first, &x.nrep, e))
		return -1;
	if (k->c_off >= 0 && rpk_list(k, w[k->c_off], line, "OFFLINE-REPLICAS", &x.ofirst, &x.noff, e))
		return -1;
	/* Redpanda prints no ISR: a replica offline is out of sync, the others are taken as in sync */
	x.has_isr = 1;
	x.ifirst = (uint32_t)k->ni;
	for (uint32_t j = 0; j < x.nrep; j++) {
		uint32_t id = k->ints[x.first + j];
		if (!pt_kafka_among(k, x.ofirst, x.noff, id)) {
			k->ints = pt_grow(k->ints, &k->i_cap, sizeof *k->ints, k->ni + 1);
			k->ints[k->ni++] = id;
			x.nisr++;
		}
	}
	kword leader = k->c_leader >= 0 ? w[k->c_leader] : (kword){NULL, 0};
	return pt_kafka_add_partition(k, &x, topic, leader, line, e);
}
