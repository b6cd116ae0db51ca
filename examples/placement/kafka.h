/*
 * kafka.h - what kafka.c and rpk.c (reading kafka-topics.sh --describe and
 * rpk's output; what only they share is import.h) and kafka_write.c (the
 * reassignment and election files of a plan) share:
 * a word of Kafka's text, and a broker id or partition number read from one.
 */
#ifndef PT_KAFKA_H
#define PT_KAFKA_H

#include "tool.h"

typedef struct kword {
	const char *p;
	size_t n;
} kword;

/* A decimal number of at most max, all of w (no sign, no space): 0, or -1
 * when w is empty, has another character or is over max. */
int pt_kafka_uint(kword w, uint64_t max, uint64_t *out);

#endif
