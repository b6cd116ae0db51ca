/*
 * kafka.c - `import kafka`: what `kafka-topics.sh --describe` prints, read
 * and written as a snapshot file (placement(5)). What a plan writes back to
 * Kafka (the reassignment and election files) is in kafka_write.c; `import
 * rpk` (Redpanda's rpk) reads its lines in rpk.c and shares the rest here
 * (import.h): the partitions kept, the racks, the snapshot written.
 *
 * How it reads. The input is read a line at a time (read.c, the same reader
 * and line limit as a snapshot file), and the first bad line is reported
 * before another is read; what is kept of a line (a topic's name, a rack) is
 * copied into an arena. Each line is split into words at spaces and tabs. A word
 * "Key:value" is a field; a word "Key:" is a field whose value is the next
 * word, unless that word is itself a key (an empty field, as "Configs:" or
 * "Offline:" often are). That reads both of Kafka's styles: the older
 * "Topic:t\tPartitionCount:3\tReplicationFactor:3\tConfigs:" with
 * "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3", and the
 * newer "Topic: t\tTopicId: ...\tPartitionCount: 3 ..." whose partition lines
 * may add Offline:, Elr: and LastKnownElr:. A line with a Partition field is a
 * partition; one with PartitionCount is a topic's header (optional: every
 * partition line names its topic); Configs and what follows it are skipped;
 * blank lines and lines starting with '#' are ignored; any other line is an
 * error that names it.
 *
 * What it writes. Topics become streams, partitions shards TOPIC/N, broker
 * ids members (with a zone from --racks, lines "BROKER RACK"); a partition's
 * replicas keep Kafka's order (the preferred leader first). What Kafka says
 * a replica out of the ISR is out-of-sync= (it takes no leadership; Kafka's
 * leader is always in its ISR, so the leader is never marked); what the
 * snapshot cannot say (a replica offline, no leader) is a comment on the
 * shard's line: nothing is guessed from it. With --log-dirs (the output
 * of kafka-log-dirs.sh --describe, read in kafka_files.c) a partition's
 * size is its size=.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

/* A copy of w's bytes, kept as long as k. */
kword pt_kafka_keep(kafka *k, kword w)
{
	pl_bytes b = pt_arena_put(&k->names, w.p, w.n);
	return (kword){b.ptr, w.n};
}

static int is_key(kword w)
{
	size_t i = 0;
	while (i < w.n && ((w.p[i] >= 'A' && w.p[i] <= 'Z') || (w.p[i] >= 'a' && w.p[i] <= 'z')))
		i++;
	return i > 0 && i < w.n && w.p[i] == ':';
}

int pt_kafka_key_is(kword k, const char *s)
{
	return k.n == strlen(s) && memcmp(k.p, s, k.n) == 0;
}

/* The words of a line, at spaces and tabs; with lists, a list "[1 2 3]"
 * (rpk's) is one word. */
size_t pt_kafka_split(const char *p, const char *end, int lists, kword *w, size_t cap)
{
	size_t n = 0;
	while (p < end && n < cap) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		const char *s = p;
		if (lists && p < end && *p == '[') {
			const char *c = memchr(p, ']', (size_t)(end - p));
			p = c ? c + 1 : end;
		}
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (p > s)
			w[n++] = (kword){s, (size_t)(p - s)};
	}
	return n;
}

int pt_kafka_uint(kword w, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (w.n == 0)
		return -1;
	for (size_t i = 0; i < w.n; i++) {
		if (w.p[i] < '0' || w.p[i] > '9' || v > (max - (uint64_t)(w.p[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(w.p[i] - '0');
	}
	*out = v;
	return 0;
}

void pt_kafka_add_broker(kafka *k, uint32_t id)
{
	k->brokers = pt_grow(k->brokers, &k->b_cap, sizeof *k->brokers, k->nb + 1);
	k->brokers[k->nb++] = id;
}

/* "1,2,3" (or empty) appended to ints; its broker ids are noted. */
static int id_list(kafka *k, kword w, uint64_t line, const char *field, uint32_t *first, uint32_t *n, pt_err *e)
{
	*first = (uint32_t)k->ni;
	*n = 0;
	if (w.n == 0)
		return 0; /* an empty list (a field not given has no bytes) */
	const char *p = w.p, *end = w.p + w.n;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		kword x = {p, (size_t)((c ? c : end) - p)};
		uint64_t v;
		if (pt_kafka_uint(x, INT32_MAX, &v))
			return pt_fail(e, line, "%s: '%.*s' is not a broker id (a number from 0)", field, (int)(x.n > 40 ? 40 : x.n),
				       x.p);
		k->ints = pt_grow(k->ints, &k->i_cap, sizeof *k->ints, k->ni + 1);
		k->ints[k->ni++] = (uint32_t)v;
		pt_kafka_add_broker(k, (uint32_t)v);
		(*n)++;
		p = c ? c + 1 : end;
	}
	return 0;
}

static int64_t find_topic(const kafka *k, kword name)
{
	/* partition lines follow their header: look at the last topic first */
	for (size_t i = k->nt; i-- > 0;)
		if (k->t[i].name.n == name.n && memcmp(k->t[i].name.p, name.p, name.n) == 0)
			return (int64_t)i;
	return -1;
}

uint32_t pt_kafka_topic_of(kafka *k, kword name, uint64_t line)
{
	int64_t t = find_topic(k, name);
	if (t >= 0)
		return (uint32_t)t;
	k->t = pt_grow(k->t, &k->t_cap, sizeof *k->t, k->nt + 1);
	k->t[k->nt] = (ktopic){pt_kafka_keep(k, name), 0, line};
	return (uint32_t)k->nt++;
}

/* Whether w[i] w[i + 1] is "Adding Replicas:..." (1) or "Removing
 * Replicas:..." (2): Kafka's keys of two words. */
static int two_words(const kword *w, size_t i, size_t n)
{
	if (i + 1 >= n || w[i + 1].n < 9 || memcmp(w[i + 1].p, "Replicas:", 9) != 0)
		return 0;
	return pt_kafka_key_is(w[i], "Adding") ? 1 : pt_kafka_key_is(w[i], "Removing") ? 2 : 0;
}

static int parse_line(kafka *k, const char *p, const char *end, uint64_t line, pt_err *e)
{
	kword w[KWORDS];
	size_t n = pt_kafka_split(p, end, 0, w, KWORDS);
	if (n == 0 || w[0].p[0] == '#')
		return 0;
	if (!is_key(w[0]))
		return 1; /* not a line of the describe (a log line): skipped, with a note */
	kword topic = {NULL, 0}, part = {NULL, 0}, leader = {NULL, 0}, reps = {NULL, 0}, isr = {NULL, 0},
	      off = {NULL, 0}, count = {NULL, 0}, rf = {NULL, 0}, add = {NULL, 0}, rem = {NULL, 0}, elr = {NULL, 0};
	int has_part = 0, has_reps = 0, has_isr = 0, has_off = 0, has_count = 0;
	for (size_t i = 0; i < n; i++) {
		/* "Adding Replicas: 4" and "Removing Replicas: 2" (Kafka 2.4 on,
		 * a reassignment in flight): a key of two words */
		int two = two_words(w, i, n);
		i += two != 0;
		if (!is_key(w[i]))
			return pt_fail(e, line, "'%.*s' is not a field of kafka-topics.sh --describe (Key: value)",
				       (int)(w[i].n > 40 ? 40 : w[i].n), w[i].p);
		const char *colon = memchr(w[i].p, ':', w[i].n);
		kword key = {w[i].p, (size_t)(colon - w[i].p)}, val = {colon + 1, w[i].n - key.n - 1};
		if (val.n == 0 && i + 1 < n && !is_key(w[i + 1]) && !two_words(w, i + 1, n))
			val = w[++i];
		if (pt_kafka_key_is(key, "Configs"))
			break; /* the topic's configs end the header line */
		if (two == 1)
			add = val;
		else if (two == 2)
			rem = val;
		else if (pt_kafka_key_is(key, "Elr"))
			elr = val;
		else if (pt_kafka_key_is(key, "Topic"))
			topic = val;
		else if (pt_kafka_key_is(key, "Partition"))
			part = val, has_part = 1;
		else if (pt_kafka_key_is(key, "Leader"))
			leader = val;
		else if (pt_kafka_key_is(key, "Replicas"))
			reps = val, has_reps = 1;
		else if (pt_kafka_key_is(key, "Isr"))
			isr = val, has_isr = 1;
		else if (pt_kafka_key_is(key, "Offline"))
			off = val, has_off = 1;
		else if (pt_kafka_key_is(key, "PartitionCount"))
			count = val, has_count = 1;
		else if (pt_kafka_key_is(key, "ReplicationFactor"))
			rf = val;
		/* TopicId, LastKnownElr and fields to come: not needed */
	}
	if (topic.n == 0)
		return pt_fail(e, line, "no Topic: on the line (kafka-topics.sh --describe names it on every line)");
	if (!has_part && !has_count)
		return pt_fail(e, line, "neither a topic's header (PartitionCount:) nor a partition (Partition:)");
	/* a header's topic is a stream too, and its partitions TOPIC/N */
	if (topic.n + 12 > PL_MAX_ID_LEN)
		return pt_fail(e, line, "the topic's name is %zu bytes: TOPIC/PARTITION must fit %u bytes (PL_MAX_ID_LEN)",
			       topic.n, PL_MAX_ID_LEN);
	uint32_t t = pt_kafka_topic_of(k, topic, line);
	if (!has_part) {
		uint64_t v;
		if (rf.n && pt_kafka_uint(rf, PL_MAX_REPLICAS, &v) == 0)
			k->t[t].rf = (uint32_t)v;
		else if (rf.n)
			return pt_fail(e, line, "ReplicationFactor: '%.*s': write 1 to %u (PL_MAX_REPLICAS)",
				       (int)(rf.n > 20 ? 20 : rf.n), rf.p, PL_MAX_REPLICAS);
		(void)count;
		return 0;
	}
	uint64_t pn;
	if (pt_kafka_uint(part, INT32_MAX, &pn))
		return pt_fail(e, line, "Partition: '%.*s' is not a partition number", (int)(part.n > 20 ? 20 : part.n), part.p);
	if (!has_reps)
		return pt_fail(e, line, "partition %llu of %.*s has no Replicas:", (unsigned long long)pn,
			       (int)(topic.n > 80 ? 80 : topic.n), topic.p);
	kpart x;
	memset(&x, 0, sizeof x);
	x.topic = t;
	x.partition = (uint32_t)pn;
	x.line = line;
	x.leader = -1;
	if (id_list(k, reps, line, "Replicas", &x.first, &x.nrep, e))
		return -1;
	if (has_isr && id_list(k, isr, line, "Isr", &x.ifirst, &x.nisr, e))
		return -1;
	x.has_isr = has_isr;
	if (has_off && id_list(k, off, line, "Offline", &x.ofirst, &x.noff, e))
		return -1;
	if (id_list(k, elr, line, "Elr", &x.efirst, &x.nelr, e) || id_list(k, add, line, "Adding Replicas", &x.afirst, &x.nadd, e) ||
	    id_list(k, rem, line, "Removing Replicas", &x.rfirst, &x.nrem, e))
		return -1;
	return pt_kafka_add_partition(k, &x, topic, leader, line, e);
}

/* Whether id is among n ids at ints[first]. */
int pt_kafka_among(const kafka *k, uint32_t first, uint32_t n, uint32_t id)
{
	for (uint32_t j = 0; j < n; j++)
		if (k->ints[first + j] == id)
			return 1;
	return 0;
}

/* A partition read (Kafka's or rpk's line): its leader checked, then kept. */
int pt_kafka_add_partition(kafka *k, kpart *xp, kword topic, kword leader, uint64_t line, pt_err *e)
{
	kpart x = *xp;
	uint32_t t = x.topic;
	if (x.nrep == 0 || x.nrep > PL_MAX_REPLICAS)
		return pt_fail(e, line, "partition %u has %u replicas: a shard has 1 to %u (PL_MAX_REPLICAS)", x.partition,
			       x.nrep, PL_MAX_REPLICAS);
	for (uint32_t j = 0; j < x.nrep; j++)
		for (uint32_t q = 0; q < j; q++)
			if (k->ints[x.first + j] == k->ints[x.first + q])
				return pt_fail(e, line, "Replicas: broker %u is listed twice", k->ints[x.first + j]);
	for (uint32_t j = 0; j < x.nadd; j++) {
		uint32_t id = k->ints[x.afirst + j];
		if (!pt_kafka_among(k, x.first, x.nrep, id))
			return pt_fail(e, line, "Adding Replicas: broker %u is not among the partition's Replicas", id);
		if (pt_kafka_among(k, x.rfirst, x.nrem, id))
			return pt_fail(e, line, "broker %u is both added and removed", id);
		if (x.nadd == x.nrep)
			return pt_fail(e, line, "every replica is being added: none holds the partition");
	}
	for (uint32_t j = 0; j < x.nrem; j++)
		if (!pt_kafka_among(k, x.first, x.nrep, k->ints[x.rfirst + j]))
			return pt_fail(e, line, "Removing Replicas: broker %u is not among the partition's Replicas",
				       k->ints[x.rfirst + j]);
	uint64_t lv;
	if (leader.n && pt_kafka_uint(leader, INT32_MAX, &lv) == 0) {
		int found = 0;
		for (uint32_t j = 0; j < x.nrep; j++)
			found |= k->ints[x.first + j] == lv;
		if (!found)
			return pt_fail(e, line, "Leader: %llu is not among the partition's Replicas", (unsigned long long)lv);
		if (pt_kafka_among(k, x.afirst, x.nadd, (uint32_t)lv))
			return pt_fail(e, line, "Leader: %llu is among the Adding Replicas, which hold no copy yet",
				       (unsigned long long)lv);
		x.leader = (int64_t)lv;
	} else if (leader.n && !pt_kafka_key_is(leader, "none") && !pt_kafka_key_is(leader, "-1")) {
		return pt_fail(e, line, "Leader: '%.*s' is not a broker id (nor none, nor -1)",
			       (int)(leader.n > 20 ? 20 : leader.n), leader.p);
	}
	for (size_t i = 0; i < k->np; i++)
		if (k->p[i].topic == t && k->p[i].partition == x.partition)
			return pt_fail(e, line, "partition %u of %.*s is described twice (first at line %llu)", x.partition,
				       (int)(topic.n > 80 ? 80 : topic.n), topic.p, (unsigned long long)k->p[i].line);
	k->p = pt_grow(k->p, &k->p_cap, sizeof *k->p, k->np + 1);
	k->p[k->np++] = x;
	return 0;
}

static void put_ids(pt_buf *b, const uint32_t *ids, uint32_t n, char sep)
{
	for (uint32_t j = 0; j < n; j++)
		pt_put(b, "%s%u", j ? (sep == ',' ? "," : " ") : "", ids[j]);
}

static void put_kword_id(pt_buf *b, kword w)
{
	pt_put_id(b, (pl_bytes){w.p, (uint64_t)w.n});
}

static int kafka_import(pt_reader *r, const char *path, int rpk, const pt_opts *o, pt_buf *out, pt_err *e);

int pt_cmd_import(const char *format, const char *path, const pt_opts *o, pt_buf *out, pt_err *e)
{
	int rpk = strcmp(format, "rpk") == 0;
	if (strcmp(format, "kafka") != 0 && !rpk)
		return pt_fail(e, 0, "import %s: unknown format (the known are kafka and rpk)", format);
	if (o->topic && !rpk)
		return pt_fail(e, 0, "--topic is for import rpk (kafka-topics.sh names the topic on every line)");
	pt_reader r;
	if (pt_reader_open(&r, path, e))
		return -1;
	int rc = kafka_import(&r, strcmp(path, "-") == 0 ? "<stdin>" : path, rpk, o, out, e);
	pt_reader_close(&r);
	return rc;
}

int pt_kafka_import(const char *text, size_t len, const char *path, int rpk, const pt_opts *o, pt_buf *out,
		    pt_err *e)
{
	pt_reader r;
	pt_reader_mem(&r, text, len);
	int rc = kafka_import(&r, path, rpk, o, out, e);
	pt_reader_close(&r);
	return rc;
}

static int kafka_import(pt_reader *r, const char *path, int rpk, const pt_opts *o, pt_buf *out, pt_err *e)
{
	kafka k;
	memset(&k, 0, sizeof k);
	int rc = 0;
	pt_oom_at(path, &r->line);
	for (;;) {
		char *p;
		size_t len;
		rc = pt_reader_line(r, &p, &len, e);
		if (rc <= 0)
			break;
		rc = rpk ? pt_rpk_line(&k, p, p + len, r->line, o, e) : parse_line(&k, p, p + len, r->line, e);
		if (rc == 1) { /* not a line of the output: noted, skipped */
			if (k.skipped < 3)
				k.skip_first[k.skipped] = r->line;
			k.skipped++;
			rc = 0;
		}
		if (rc)
			break;
	}
	pt_oom_at(NULL, NULL);
	const char *tool = rpk ? "rpk topic describe -p or rpk cluster partitions list" : "kafka-topics.sh --describe";
	if (rc == 0 && k.np == 0)
		rc = pt_fail(e, 0, "no partition: not the output of %s%s", tool,
			     k.skipped ? " (every line was skipped)" : "");
	if (rc == 0 && k.skipped) {
		fprintf(stderr, "placement: note: %s: %llu line%s skipped, not of %s's output (line", path,
			(unsigned long long)k.skipped, k.skipped == 1 ? "" : "s", tool);
		for (uint64_t i = 0; i < k.skipped && i < 3; i++)
			fprintf(stderr, "%s %llu", i ? "," : "", (unsigned long long)k.skip_first[i]);
		fprintf(stderr, "%s)\n", k.skipped > 3 ? ", ..." : "");
	}
	if (rc == 0 && o->racks)
		rc = pt_kafka_racks(&k, o->racks, e);
	if (rc == 0 && o->log_dirs)
		rc = pt_kafka_log_dirs(&k, o->log_dirs, e);
	if (rc == 0 && !o->racks) {
		pt_kafka_unique_brokers(&k);
		k.racks = calloc(k.nb ? k.nb : 1, sizeof *k.racks);
		if (k.racks == NULL)
			pt_oom();
	}
	if (rc == 0) {
		uint32_t rf = 0;
		for (size_t i = 0; i < k.nt; i++)
			rf = k.t[i].rf > rf ? k.t[i].rf : rf;
		for (size_t i = 0; i < k.np; i++) /* a reassignment in flight: what it ends with */
			rf = k.p[i].nrep - k.p[i].nrem > rf ? k.p[i].nrep - k.p[i].nrem : rf;
		pt_put(out, "# imported by placement import %s from ", rpk ? "rpk" : "kafka");
		pt_put_name(out, (pl_bytes){path, (uint64_t)strlen(path)}); /* one line, whatever its bytes */
		pt_put(out, ": %zu topic%s, %zu partition%s, %zu broker%s\n", k.nt, k.nt == 1 ? "" : "s", k.np,
		       k.np == 1 ? "" : "s", k.nb, k.nb == 1 ? "" : "s");
		if (o->log_dirs) {
			size_t sized = 0;
			for (size_t i = 0; i < k.np; i++)
				sized += pt_kafka_size_of(&k, k.t[k.p[i].topic].name, k.p[i].partition) != PL_BYTES_UNKNOWN;
			pt_put(out, "# sizes from ");
			pt_put_name(out, (pl_bytes){o->log_dirs, (uint64_t)strlen(o->log_dirs)});
			pt_put(out, ": %zu of %zu partition%s\n", sized, k.np, k.np == 1 ? "" : "s");
		}
		pt_put(out, "set policy=broker rf=%u\n", rf);
		for (size_t i = 0; i < k.nb; i++) {
			pt_put(out, "member %u", k.brokers[i]);
			if (k.racks[i].p) {
				pt_put(out, " zone=");
				put_kword_id(out, k.racks[i]);
			}
			pt_putc(out, '\n');
		}
		for (size_t i = 0; i < k.nt; i++) {
			pt_put(out, "stream ");
			put_kword_id(out, k.t[i].name);
			pt_putc(out, '\n');
		}
		for (size_t i = 0; i < k.np; i++) {
			const kpart *x = &k.p[i];
			kword t = k.t[x->topic].name;
			pt_put(out, "shard ");
			put_kword_id(out, t);
			pt_put(out, "/%u stream=", x->partition);
			put_kword_id(out, t);
			/* the replicas that hold it: a reassignment's Adding Replicas
			 * do not yet; the first is a copy in flight (onto it, from
			 * the first Removing Replica), any other is a replica out of
			 * sync (it is out of the ISR) */
			uint32_t reps[PL_MAX_REPLICAS], nr = 0;
			for (uint32_t j = 0; j < x->nrep; j++) {
				uint32_t id = k.ints[x->first + j];
				if (!(x->nadd && id == k.ints[x->afirst]))
					reps[nr++] = id;
			}
			pt_put(out, " replicas=");
			put_ids(out, reps, nr, ',');
			if (x->leader >= 0)
				pt_put(out, " leader=%lld", (long long)x->leader);
			/* what Kafka says that the snapshot does not: noted, not guessed */
			pt_buf note = {0};
			if (x->leader < 0)
				pt_put(&note, "no leader");
			uint32_t out_of[PL_MAX_REPLICAS], nout = 0;
			for (uint32_t j = 0; j < nr && x->has_isr; j++) {
				uint32_t id = reps[j];
				int in = x->leader >= 0 && (long long)id == x->leader;
				for (uint32_t q = 0; q < x->nisr; q++)
					in |= k.ints[x->ifirst + q] == id;
				if (!in)
					out_of[nout++] = id;
			}
			if (nout) {
				pt_put(out, " out-of-sync=");
				put_ids(out, out_of, nout, ',');
			}
			uint64_t size = pt_kafka_size_of(&k, t, x->partition);
			if (size != PL_BYTES_UNKNOWN) {
				pt_put(out, " size=");
				pt_put_size(out, size);
			}
			if (x->noff) {
				pt_put(&note, "%soffline: ", note.len ? "; " : "");
				put_ids(&note, k.ints + x->ofirst, x->noff, ' ');
			}
			if (x->nelr) {
				pt_put(&note, "%selr: ", note.len ? "; " : "");
				put_ids(&note, k.ints + x->efirst, x->nelr, ' ');
			}
			if (x->nadd || x->nrem) {
				pt_put(&note, "%sreassignment in flight: adding ", note.len ? "; " : "");
				put_ids(&note, k.ints + x->afirst, x->nadd, ' ');
				pt_put(&note, "%sremoving ", x->nadd ? ", " : "none, ");
				put_ids(&note, k.ints + x->rfirst, x->nrem, ' ');
				if (!x->nrem)
					pt_put(&note, "none");
			}
			if (note.len)
				pt_put(out, "  # %s", note.p);
			pt_buf_free(&note);
			pt_putc(out, '\n');
			if (x->nadd) {
				pt_put(out, "copy ");
				put_kword_id(out, t);
				pt_put(out, "/%u to=%u", x->partition, k.ints[x->afirst]);
				if (x->nrem)
					pt_put(out, " from=%u", k.ints[x->rfirst]);
				pt_putc(out, '\n');
			}
		}
	}
	if (rc == 0 && o->json) {
		/* the snapshot the text describes, as format --json writes it */
		pt_doc d;
		pl_view *v = NULL;
		void *mem = NULL;
		pt_doc_init(&d, path);
		char *copy = pt_alloc(out->len + 1);
		memcpy(copy, out->p, out->len + 1);
		size_t n = out->len;
		out->len = 0;
		pl_snapshot snap = PL_SNAPSHOT_INIT;
		rc = pt_parse(&d, copy, n, e);
		if (rc == 0) {
			snap = pt_doc_snapshot(&d);
			rc = pt_view(&d, &snap, &v, &mem, e);
		}
		if (rc == 0)
			pt_format_json(out, &d, &snap, d.m_last_move, v, 1);
		free(mem);
		pt_doc_free(&d);
	}
	free(k.t);
	free(k.p);
	free(k.ints);
	free(k.brokers);
	free(k.racks);
	free(k.sizes);
	pt_arena_free(&k.names);
	return rc;
}
