/*
 * parse.h - what the files of the snapshot parser share (placement(5)):
 * words and cursors over a line, references resolved at the end of the
 * file, and the statement parsers. A line is parsed in place, in the
 * reader's buffer, and gone once the next is read: what is kept of it is
 * copied (pt_keep() into the document, pt_add_ref() into the parser).
 * parse.c drives a file line by line;
 * parse_words.c splits and decodes words; parse_elements.c declares
 * members, streams, shards and overrides; parse_settings.c reads `set`;
 * parse_events.c reads `at` and --event; parse_doc.c holds the document
 * and its hash tables of ids.
 */
#ifndef PT_PARSE_H
#define PT_PARSE_H

#include "tool.h"

typedef struct word {
	char *p;
	size_t n;
} word;

typedef struct cursor {
	char *p, *end;
	uint64_t line;
} cursor;

enum ref_field {
	REF_STREAM,
	REF_LEADER,
	REF_MOVING,
	REF_REPLICA, /* + j */
	REF_OV_SHARD = REF_REPLICA + PL_MAX_REPLICAS,
	REF_OV_MEMBER,
	REF_SELF,
	REF_CP_SHARD,
	REF_CP_TO,
	REF_CP_FROM
};

typedef struct ref {
	uint64_t line;
	pl_bytes name;
	uint32_t elem;  /* shard or override index */
	uint32_t field; /* enum ref_field */
} ref;

typedef struct parser {
	pt_doc *d;
	ref *refs;
	size_t nref, ref_cap;
	pt_arena names; /* the bytes of the references' names, until the end */
} parser;

/* The i-th id of a kind. */
typedef pl_bytes (*id_at_fn)(const pt_doc *d, uint32_t i);

#define ATTR(bit) (1u << (bit))

/* parse_doc.c (the document and its id tables) */
pl_bytes pt_keep(pt_doc *d, word w); /* a copy of w's bytes, kept with d */
uint64_t pt_id_hash(const char *p, size_t n);
int pt_same_id(pl_bytes a, const char *p, size_t n);
uint64_t *pt_table_alloc(size_t n);
int64_t pt_table_find(const pt_doc *d, const pt_table *t, id_at_fn at, const char *p, size_t n, uint64_t h);
void pt_table_insert(pt_table *t, uint32_t idx, uint64_t h);
void pt_table_put_slot(pt_table *t, uint64_t slot);
pl_bytes pt_member_id(const pt_doc *d, uint32_t i);
pl_bytes pt_stream_id(const pt_doc *d, uint32_t i);
pl_bytes pt_shard_key(const pt_doc *d, uint32_t i);

/* parse_words.c (words) */
int pt_decode_word(word *w, uint64_t line, const char *what, pt_err *e);
int pt_id_word(word *w, uint64_t line, const char *kind, pt_err *e);
int pt_next_word(cursor *c, word *w);
int pt_number(word w, uint64_t max, uint64_t line, const char *name, uint64_t *out, pt_err *e);
const char *pt_show(word w, char *buf, size_t cap);
int pt_split_attr(word w, word *name, word *val, int *has_value, uint64_t line, pt_err *e);
int pt_word_is(word w, const char *s);

/* parse_elements.c (members, streams, shards, overrides) */
int pt_limit_fail(pt_err *e, uint64_t line, const char *what, uint64_t lim, const char *macro);
int pt_member_attrs_parse(pt_doc *d, cursor *c, pl_member *m, uint64_t *last_move, int *joined_given,
			  uint64_t *capacity, pt_err *e);
int pt_need_value(int has, word name, uint64_t line, pt_err *e);
int pt_st_member(parser *ps, cursor *c, pt_err *e);
int pt_st_override(parser *ps, cursor *c, pt_err *e);
int pt_st_copy(parser *ps, cursor *c, pt_err *e);
int pt_st_shard(parser *ps, cursor *c, pt_err *e);
int pt_st_stream(parser *ps, cursor *c, pt_err *e);

/* parse_settings.c (settings) */
int pt_st_set(parser *ps, cursor *c, pt_err *e);

/* parse_events.c (events) */
int pt_check_events(pt_doc *d, pt_err *e);
int pt_st_at(parser *ps, cursor *c, pt_err *e);

/* parse.c (references) */
void pt_add_ref(parser *ps, uint64_t line, word w, uint32_t elem, uint32_t field);
uint32_t pt_member_ref(parser *ps, uint64_t line, word w, uint32_t elem, uint32_t field);

/* The attributes a member line takes, for messages. */
extern const char pt_member_attrs[];

#endif /* PT_PARSE_H */
