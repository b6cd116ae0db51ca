/*
 * kafka_files.c - the files `import` reads beside Kafka's listing: the
 * racks (--racks, "BROKER RACK" a line) and the partitions' sizes
 * (--log-dirs, what `kafka-log-dirs.sh --describe` prints).
 *
 * The log dirs. kafka-log-dirs.sh prints two lines of its own ("Querying
 * brokers for log directories information", "Received log directory
 * information from brokers 1,2,3"), then one line of JSON:
 * {"version":1,"brokers":[{"broker":1,"logDirs":[{"logDir":"/var/kafka",
 * "error":null,"partitions":[{"partition":"t-0","size":1234,
 * "offsetLag":0,"isFuture":false},...]}]}]}. The file is read whole (the
 * JSON of a large cluster is one line far past a snapshot's line limit)
 * and the JSON walked once: every object with a "partition" string and a
 * "size" number is a replica of that partition, on one broker; an
 * "isFuture": true one is a copy being moved between a broker's log dirs
 * (not yet the replica) and is skipped. A partition's size is the largest
 * over its replicas (a follower behind its leader holds less). The JSON is
 * checked as it is read: anything else is an error that names its line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t broker_at(const kafka *k, uint32_t id)
{
	size_t lo = 0, hi = k->nb;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k->brokers[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nb && k->brokers[lo] == id ? (int64_t)lo : -1;
}

void pt_kafka_unique_brokers(kafka *k)
{
	if (k->nb)
		qsort(k->brokers, k->nb, sizeof *k->brokers, cmp_u32);
	size_t n = 0;
	for (size_t i = 0; i < k->nb; i++)
		if (n == 0 || k->brokers[n - 1] != k->brokers[i])
			k->brokers[n++] = k->brokers[i];
	k->nb = n;
}

/* The racks file: "BROKER RACK" a line, '#' comments; a broker only there is
 * a member that holds nothing yet (a new broker). Its lines are read first,
 * each checked as it is read; then each broker's rack is set (and a broker
 * given twice refused) once every broker is known. */
typedef struct krack {
	uint32_t id;
	kword rack;
	uint64_t line;
} krack;

int pt_kafka_racks(kafka *k, const char *path, pt_err *e)
{
	pt_reader r;
	if (pt_reader_open(&r, path, e)) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "--racks %s: %.600s", path, e->msg);
		memcpy(e->msg, msg, sizeof msg);
		return -1;
	}
	krack *rk = NULL;
	size_t nr = 0, r_cap = 0;
	int rc;
	pt_oom_at(path, &r.line);
	for (;;) {
		char *p;
		size_t len;
		rc = pt_reader_line(&r, &p, &len, e);
		if (rc < 0) {
			char msg[sizeof e->msg];
			snprintf(msg, sizeof msg, "--racks %s:%llu: %.600s", path, (unsigned long long)e->line, e->msg);
			memcpy(e->msg, msg, sizeof msg);
			e->line = 0;
		}
		if (rc <= 0)
			break;
		const char *hash = memchr(p, '#', len);
		kword w[3];
		size_t n = pt_kafka_split(p, hash ? hash : p + len, 0, w, 3);
		if (n == 0)
			continue;
		uint64_t id;
		if (n != 2 || pt_kafka_uint(w[0], INT32_MAX, &id)) {
			rc = pt_fail(e, 0, "--racks %s:%llu: write BROKER RACK (a broker id and its rack)", path,
				     (unsigned long long)r.line);
			break;
		}
		pt_kafka_add_broker(k, (uint32_t)id);
		rk = pt_grow(rk, &r_cap, sizeof *rk, nr + 1);
		rk[nr++] = (krack){(uint32_t)id, pt_kafka_keep(k, w[1]), r.line};
	}
	pt_oom_at(NULL, NULL);
	pt_reader_close(&r);
	if (rc == 0) {
		pt_kafka_unique_brokers(k);
		k->racks = calloc(k->nb ? k->nb : 1, sizeof *k->racks);
		if (k->racks == NULL)
			pt_oom();
		for (size_t i = 0; i < nr && rc == 0; i++) {
			int64_t b = broker_at(k, rk[i].id);
			if (k->racks[b].p)
				rc = pt_fail(e, 0, "--racks %s:%llu: broker %llu is given twice", path,
					     (unsigned long long)rk[i].line, (unsigned long long)rk[i].id);
			else
				k->racks[b] = rk[i].rack;
		}
	}
	free(rk);
	return rc;
}

/* ---- --log-dirs ------------------------------------------------------------- */

typedef struct jscan {
	const char *p, *start, *end;
	kafka *k;
	const char *path;
	pt_err *e;
	uint64_t objects; /* partition objects read, isFuture ones too */
} jscan;

#define JSON_DEPTH 64

static int jfail(jscan *j, const char *what)
{
	uint64_t line = 1;
	for (const char *q = j->start; q < j->p && q < j->end; q++)
		line += *q == '\n';
	return pt_fail(j->e, 0, "--log-dirs %s:%llu: %s (not the JSON of kafka-log-dirs.sh --describe)", j->path,
		       (unsigned long long)line, what);
}

static void jspace(jscan *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* A string: *out its bytes between the quotes (escapes left as written);
 * *plain whether it has none. */
static int jstring(jscan *j, kword *out, int *plain)
{
	if (j->p >= j->end || *j->p != '"')
		return jfail(j, "a string expected");
	const char *s = ++j->p;
	*plain = 1;
	while (j->p < j->end && *j->p != '"') {
		if ((unsigned char)*j->p < 0x20)
			return jfail(j, "a control character in a string");
		if (*j->p == '\\') {
			*plain = 0;
			j->p++;
		}
		j->p++;
	}
	if (j->p >= j->end)
		return jfail(j, "a string without its end");
	*out = (kword){s, (size_t)(j->p - s)};
	j->p++;
	return 0;
}

/* A number; *is_u64 when it is a decimal integer that fits (then *v). */
static int jnumber(jscan *j, uint64_t *v, int *is_u64)
{
	const char *s = j->p;
	if (j->p < j->end && *j->p == '-')
		j->p++;
	while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' || *j->p == 'E' ||
				 *j->p == '+' || *j->p == '-'))
		j->p++;
	if (j->p == s)
		return jfail(j, "a value expected");
	*is_u64 = pt_kafka_uint((kword){s, (size_t)(j->p - s)}, UINT64_MAX - 1, v) == 0;
	return 0;
}

static int jword(jscan *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return jfail(j, "a value expected");
	j->p += n;
	return 0;
}

/* A replica's size, from an object with "partition": "TOPIC-N" and "size". */
static int add_size(jscan *j, kword part, uint64_t size)
{
	const char *dash = NULL;
	for (size_t i = part.n; i > 0 && !dash; i--)
		if (part.p[i - 1] == '-')
			dash = part.p + i - 1;
	uint64_t n;
	if (dash == NULL || dash == part.p ||
	    pt_kafka_uint((kword){dash + 1, (size_t)(part.p + part.n - dash - 1)}, INT32_MAX, &n))
		return jfail(j, "a partition not written TOPIC-N");
	kafka *k = j->k;
	k->sizes = pt_grow(k->sizes, &k->sz_cap, sizeof *k->sizes, k->nsz + 1);
	k->sizes[k->nsz++] = (ksize){pt_kafka_keep(k, (kword){part.p, (size_t)(dash - part.p)}), (uint32_t)n, size};
	return 0;
}

static int jvalue(jscan *j, int depth);

static int jobject(jscan *j, int depth)
{
	kword part = {NULL, 0};
	uint64_t size = 0;
	int has_part = 0, has_size = 0, future = 0, first = 1;
	j->p++; /* '{' */
	for (;;) {
		jspace(j);
		if (j->p < j->end && *j->p == '}' && first) {
			j->p++;
			break;
		}
		kword key;
		int plain;
		if (jstring(j, &key, &plain))
			return -1;
		jspace(j);
		if (j->p >= j->end || *j->p != ':')
			return jfail(j, "':' expected after a key");
		j->p++;
		jspace(j);
		if (pt_kafka_key_is(key, "partition") && j->p < j->end && *j->p == '"') {
			if (jstring(j, &part, &plain))
				return -1;
			if (!plain)
				return jfail(j, "an escape in a partition's name");
			has_part = 1;
		} else if (pt_kafka_key_is(key, "size") && j->p < j->end && *j->p != '{' && *j->p != '[' &&
			   *j->p != '"') {
			int ok;
			if (jnumber(j, &size, &ok))
				return -1;
			if (!ok)
				return jfail(j, "a size that is not a number of bytes");
			has_size = 1;
		} else if (pt_kafka_key_is(key, "isFuture") && j->p < j->end && *j->p == 't') {
			if (jword(j, "true"))
				return -1;
			future = 1;
		} else if (jvalue(j, depth + 1)) {
			return -1;
		}
		first = 0;
		jspace(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			break;
		}
		return jfail(j, "',' or '}' expected in an object");
	}
	if (has_part && has_size) {
		j->objects++;
		if (!future)
			return add_size(j, part, size);
	} else if (has_part) {
		return jfail(j, "a partition without its size");
	}
	return 0;
}

static int jvalue(jscan *j, int depth)
{
	if (depth > JSON_DEPTH)
		return jfail(j, "nested too deep");
	jspace(j);
	if (j->p >= j->end)
		return jfail(j, "a value expected");
	char c = *j->p;
	if (c == '{')
		return jobject(j, depth);
	if (c == '[') {
		j->p++;
		jspace(j);
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return 0;
		}
		for (;;) {
			if (jvalue(j, depth + 1))
				return -1;
			jspace(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == ']') {
				j->p++;
				return 0;
			}
			return jfail(j, "',' or ']' expected in an array");
		}
	}
	if (c == '"') {
		kword w;
		int plain;
		return jstring(j, &w, &plain);
	}
	if (c == 't')
		return jword(j, "true");
	if (c == 'f')
		return jword(j, "false");
	if (c == 'n')
		return jword(j, "null");
	uint64_t v;
	int ok;
	return jnumber(j, &v, &ok);
}

static int cmp_size(const void *a, const void *b)
{
	const ksize *x = a, *y = b;
	size_t n = x->topic.n < y->topic.n ? x->topic.n : y->topic.n;
	int c = memcmp(x->topic.p, y->topic.p, n);
	if (c)
		return c;
	if (x->topic.n != y->topic.n)
		return x->topic.n < y->topic.n ? -1 : 1;
	return x->partition < y->partition ? -1 : x->partition > y->partition;
}

/* The whole file, from malloc (NUL after it): the reader's checks (no
 * directory, not past PT_MAX_FILE), then every byte. */
static char *read_all(const char *path, size_t *len, pt_err *e)
{
	pt_reader r;
	if (pt_reader_open(&r, path, e)) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "--log-dirs %s: %.600s", path, e->msg);
		memcpy(e->msg, msg, sizeof msg);
		return NULL;
	}
	size_t cap = (size_t)1 << 16, n = 0;
	char *buf = pt_alloc(cap + 1);
	for (;;) {
		if (n == cap)
			buf = pt_grow(buf, &cap, 1, cap * 2);
		ssize_t got;
		do
			got = read(r.fd, buf + n, cap - n);
		while (got < 0 && errno == EINTR);
		if (got < 0 || (uint64_t)n + (uint64_t)got > PT_MAX_FILE) {
			pt_reader_close(&r);
			free(buf);
			pt_fail(e, 0, "--log-dirs %s: %s", path, got < 0 ? "a read failed" : "past the limit of 64 GiB");
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	pt_reader_close(&r);
	buf = pt_grow(buf, &cap, 1, n + 1);
	buf[n] = 0;
	*len = n;
	return buf;
}

int pt_kafka_log_dirs(kafka *k, const char *path, pt_err *e)
{
	size_t len;
	char *text = read_all(path, &len, e);
	if (text == NULL)
		return -1;
	/* the JSON: the first line that opens with '{' (after the tool's two) */
	const char *p = text, *end = text + len;
	while (p < end && *p != '{') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	jscan j = {p, text, end, k, path, e, 0};
	int rc;
	if (p == end)
		rc = pt_fail(e, 0, "--log-dirs %s: no JSON line: not the output of kafka-log-dirs.sh --describe", path);
	else
		rc = jvalue(&j, 0);
	if (rc == 0) {
		jspace(&j);
		if (j.p < end)
			rc = jfail(&j, "more after the JSON");
	}
	if (rc == 0 && j.objects == 0)
		rc = pt_fail(e, 0, "--log-dirs %s: no partition with a size: not the output of kafka-log-dirs.sh --describe",
			     path);
	if (rc == 0 && k->nsz) {
		/* one entry a partition: the largest of its replicas */
		qsort(k->sizes, k->nsz, sizeof *k->sizes, cmp_size);
		size_t n = 0;
		for (size_t i = 0; i < k->nsz; i++) {
			if (n && cmp_size(&k->sizes[n - 1], &k->sizes[i]) == 0) {
				if (k->sizes[i].size > k->sizes[n - 1].size)
					k->sizes[n - 1].size = k->sizes[i].size;
			} else {
				k->sizes[n++] = k->sizes[i];
			}
		}
		k->nsz = n;
	}
	free(text);
	return rc;
}

uint64_t pt_kafka_size_of(const kafka *k, kword topic, uint32_t partition)
{
	ksize key = {topic, partition, 0};
	const ksize *f = k->nsz ? bsearch(&key, k->sizes, k->nsz, sizeof *k->sizes, cmp_size) : NULL;
	return f ? f->size : PL_BYTES_UNKNOWN;
}
