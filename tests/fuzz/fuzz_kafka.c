/*
 * fuzz_kafka.c - libFuzzer harness for placement(1)'s import of
 * kafka-topics.sh --describe output and of rpk's (examples/placement/kafka.c
 * and rpk.c; the first byte's low bit picks rpk): any bytes are imported; an import that fails must say why and name a line of the
 * input; one that succeeds must be a snapshot file that parses and that the
 * library validates, and it must carry every partition it read. A crash, a
 * sanitizer report or a broken import (checked with abort()) is a bug.
 *
 *   make fuzz FUZZ_TIME=60     build with clang -fsanitize=fuzzer and run
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	pt_opts o;
	memset(&o, 0, sizeof o);
	pt_buf out = {0};
	pt_err e;
	e.msg[0] = '\0';
	e.line = 0;
	int rpk = len > 0 && (data[0] & 1);
	if (rpk && len > 1 && (data[1] & 1))
		o.topic = "t"; /* rpk topic describe -p names no topic: --topic does */
	int rc = pt_kafka_import((const char *)data, len, "fuzz", rpk, &o, &out, &e);
	if (rc != 0) {
		if (e.msg[0] == '\0')
			abort(); /* every error says what is wrong */
		uint64_t lines = 1;
		for (size_t i = 0; i < len; i++)
			lines += data[i] == '\n';
		if (e.line > lines)
			abort(); /* and names a line of the input */
		pt_buf_free(&out);
		return 0;
	}
	/* the snapshot it wrote reads back, valid */
	pt_doc d;
	pt_doc_init(&d, "imported");
	char *text = malloc(out.len + 1);
	if (text == NULL)
		abort();
	memcpy(text, out.p, out.len + 1);
	size_t shard_lines = 0;
	for (const char *p = out.p; (p = strstr(p, "\nshard ")) != NULL; p++)
		shard_lines++;
	if (pt_parse(&d, text, out.len, &e) != 0)
		abort();
	pl_snapshot snap = pt_doc_snapshot(&d);
	pl_view *v = NULL;
	void *mem = NULL;
	if (pt_view(&d, &snap, &v, &mem, &e) != 0)
		abort();
	if (d.nk != shard_lines)
		abort(); /* a shard for every partition written */
	free(mem);
	pt_doc_free(&d);
	pt_buf_free(&out);
	return 0;
}
