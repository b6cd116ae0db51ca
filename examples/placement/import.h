/*
 * import.h - what the two readers of `import` share: kafka.c (the lines of
 * kafka-topics.sh --describe, and what both end with: the racks, the
 * snapshot written) and rpk.c (the lines of Redpanda's rpk topic describe -p
 * and rpk cluster partitions list). A line is split into words (kword) that
 * point into the reader's buffer; what is kept of it is copied into the
 * import's arena (pt_kafka_keep()).
 */
#ifndef PT_IMPORT_H
#define PT_IMPORT_H

#include "kafka.h"

typedef struct kpart {
	uint32_t topic;
	uint32_t partition;
	int64_t leader; /* -1: none */
	uint32_t first, nrep;  /* replicas: ints[first ..] */
	uint32_t ifirst, nisr; /* Isr */
	uint32_t ofirst, noff; /* Offline */
	uint32_t afirst, nadd; /* Adding Replicas (a reassignment in flight) */
	uint32_t rfirst, nrem; /* Removing Replicas */
	uint32_t efirst, nelr; /* Elr (eligible leader replicas, Kafka 4) */
	int has_isr;
	uint64_t line;
} kpart;

typedef struct ktopic {
	kword name;
	uint32_t rf;
	uint64_t line;
} ktopic;

/* A partition's size from --log-dirs: the largest over its replicas. */
typedef struct ksize {
	kword topic;
	uint32_t partition;
	uint64_t size;
} ksize;

typedef struct kafka {
	ktopic *t;
	size_t nt, t_cap;
	kpart *p;
	size_t np, p_cap;
	uint32_t *ints; /* broker ids of every list */
	size_t ni, i_cap;
	uint32_t *brokers; /* every broker seen, sorted, unique at the end */
	size_t nb, b_cap;
	kword *racks; /* parallel to brokers */
	pt_arena names; /* the bytes of the topics' names and the racks */
	/* rpk: the columns of the last header line (-1: absent), and the topic
	 * a NAME line or --topic named */
	int rpk;
	int c_topic, c_part, c_leader, c_reps, c_off, ncols;
	kword rpk_topic;
	uint64_t skipped, skip_first[3];
	ksize *sizes; /* --log-dirs: by topic and partition, one each */
	size_t nsz, sz_cap;
} kafka;

#define KWORDS 64 /* words of a line looked at */

/* kafka.c */
kword pt_kafka_keep(kafka *k, kword w); /* a copy of w's bytes, kept as long as k */
int pt_kafka_key_is(kword k, const char *s); /* whether k is s, all of it */
size_t pt_kafka_split(const char *p, const char *end, int lists, kword *w, size_t cap); /* a line's words */
void pt_kafka_add_broker(kafka *k, uint32_t id);
/* The topic named (the one seen last first), added when new. */
uint32_t pt_kafka_topic_of(kafka *k, kword name, uint64_t line);
/* Whether id is among n ids at ints[first]. */
int pt_kafka_among(const kafka *k, uint32_t first, uint32_t n, uint32_t id);
/* A partition read (Kafka's or rpk's line): its leader checked, then kept. */
int pt_kafka_add_partition(kafka *k, kpart *xp, kword topic, kword leader, uint64_t line, pt_err *e);

/* kafka_files.c: --racks (every broker's rack, k->racks, the brokers made
 * unique first) and --log-dirs (k->sizes); 0, or -1 with e naming the file
 * and its line. */
void pt_kafka_unique_brokers(kafka *k);
int pt_kafka_racks(kafka *k, const char *path, pt_err *e);
int pt_kafka_log_dirs(kafka *k, const char *path, pt_err *e);
/* A partition's size from --log-dirs, or PL_BYTES_UNKNOWN. */
uint64_t pt_kafka_size_of(const kafka *k, kword topic, uint32_t partition);

/* rpk.c: one line of rpk's output; 1: not a line of it (skipped, noted). */
int pt_rpk_line(kafka *k, const char *p, const char *end, uint64_t line, const pt_opts *o, pt_err *e);

#endif /* PT_IMPORT_H */
