/*
 * tool.h - placement(1): what the tool's sources share.
 *
 * The tool reads a snapshot text file (placement(5)) into a pt_doc: the
 * library's snapshot arrays, the file line of every element (so any error,
 * the library's validation included, names a line), the policy settings and
 * the scripted events. Commands build a view of it with the public API and
 * write their whole output into a pt_buf, which main.c prints only when the
 * command succeeded: an error never leaves a partial plan on stdout.
 *
 * The library allocates nothing; the tool does, freely: the arrays and the
 * output grow with malloc/realloc as far as the documented limits. The input
 * is read a line at a time through a fixed buffer (pt_reader), and what the
 * parse keeps (the elements, and their ids' bytes in a pt_arena) grows with
 * what the file holds, not with its size or its count of lines.
 * Names: pt_ for the tool, pl_ for the library.
 *
 * This header holds the core the sources share: the limits, the output
 * buffer, errors, settings, events, the reader, the document, sizes, the
 * text and JSON output, and the commands with their options. stats.h
 * declares the tallies of stats and what the pictures draw from them;
 * run.h, running a policy (plan and simulate, one adapter per policy).
 */
#ifndef PT_TOOL_H
#define PT_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include <placement.h>

/* ---- documented limits (placement(5), LIMITS) ---------------------------- */
#define PT_MAX_FILE (UINT64_C(64) << 30) /* bytes in a snapshot file: 64 GiB */
#define PT_MAX_LINE (UINT32_C(1) << 16)  /* bytes in one line: 64 KiB */
#define PT_MAX_EVENTS (UINT32_C(1) << 20) /* scripted events */
#define PT_MAX_TICKS UINT64_C(1000000)    /* ticks of a simulation, and an event's tick */
#define PT_MAX_ACTIONS (UINT32_C(1) << 28) /* actions in one plan */

/* ---- output buffer -------------------------------------------------------- */

typedef struct pt_buf {
	char *p;
	size_t len, cap;
} pt_buf;

#if defined(__GNUC__)
#define PT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PT_PRINTF(a, b)
#endif

void pt_put(pt_buf *b, const char *fmt, ...) PT_PRINTF(2, 3);
void pt_putn(pt_buf *b, const char *s, size_t n);
void pt_putc(pt_buf *b, char c);
void pt_buf_free(pt_buf *b);
/* Out of memory: a message and exit 1 (the tool never goes on half-built).
 * While a file is read (pt_oom_at() set), the message names the file and the
 * line being read. */
_Noreturn void pt_oom(void);
void pt_oom_at(const char *file, const uint64_t *line); /* NULL, NULL: no file */
void *pt_alloc(size_t n);                  /* malloc or pt_oom() */
void *pt_grow(void *p, size_t *cap, size_t elem, size_t need); /* room for need */

/* ---- errors ---------------------------------------------------------------- */

/* An error: the line it is about (0 = the file as a whole, or an argument)
 * and a message naming the rule broken. */
typedef struct pt_err {
	uint64_t line;
	char msg[768];
	int arg; /* 1: about a command-line argument the message names, not the file */
} pt_err;

int pt_fail(pt_err *e, uint64_t line, const char *fmt, ...) PT_PRINTF(3, 4);
/* n bytes at p for a message, in buf (cap bytes): printable
 * ASCII as it is, any other byte as %XX, cut at 60 bytes with "...";
 * returns buf. */
const char *pt_show_bytes(const char *p, size_t n, char *buf, size_t cap);
/* An argument for a message: its first 60 bytes, a control or non-ASCII
 * byte as %XX, "..." when cut (cap: 80 is enough). */
const char *pt_show_arg(const char *s, char *buf, size_t cap);

/* ---- settings (`set NAME=VALUE`) ------------------------------------------ */

enum pt_setting {
	PT_SET_POLICY,   /* broker | fleet | region */
	PT_SET_SCORER,   /* xxh3 | legacy */
	PT_SET_NOW,      /* the caller's clock at tick 1 */
	PT_SET_TICK,     /* clock units per simulated tick */
	PT_SET_TICKS,    /* ticks simulate runs */
	PT_SET_SELF,     /* fleet: the deciding member (default: every member) */
	PT_SET_RF,       /* broker and region: replication factor */
	PT_SET_MAX_MOVES,
	PT_SET_MAX_MOVES_IN,
	PT_SET_MAX_MOVES_OUT,
	PT_SET_PAUSED,
	PT_SET_STREAM_BALANCE,
	PT_SET_REPLICA_BALANCE,
	PT_SET_HANDOFF_ONLY,
	PT_SET_COOLDOWN,
	PT_SET_MOVES_PER_DECISION,
	PT_SET_SPREAD,
	PT_SET_RETURN_HOME_AGE,
	PT_SET_COUNT_BALANCE,
	PT_SET_ADD_PEER_PROPOSALS,
	PT_SET_LOAD_BALANCE,
	PT_SET_LOAD_THRESHOLD,
	PT_SET_MAX_ACTIONS,
	PT_SET_BYTES_BALANCE,
	PT_SET_BYTES_FIRST,
	PT_SET_FULL_RATIO,
	PT_SET_BYTES_TOLERANCE,
	PT_SET_MAX_BYTES_IN_FLIGHT,
	PT_SET_MAX_BYTES_IN,
	PT_SET_MAX_BYTES_OUT,
	PT_SET_TOLERANCE,
	PT_SET_STREAM_TOLERANCE,
	PT_SET_COUNT
};

/* PT_T_SIZE: a size in bytes (placement(5), SIZES), at most max. */
enum pt_setting_type { PT_T_NUM, PT_T_BOOL, PT_T_POLICY, PT_T_SCORER, PT_T_MEMBER, PT_T_SIZE };

typedef struct pt_setting_info {
	const char *name;
	uint32_t type;
	uint64_t max;     /* PT_T_NUM: the largest value the field holds */
	const char *what; /* a few words for --help and messages */
	const char *range; /* what the policies allow, when narrower than the type: "1 to 99" */
} pt_setting_info;

extern const pt_setting_info pt_settings[PT_SET_COUNT];

enum pt_policy { PT_POLICY_NONE, PT_POLICY_BROKER, PT_POLICY_FLEET, PT_POLICY_REGION };
const char *pt_policy_name(uint32_t p);

typedef struct pt_set {
	int given;
	uint64_t value; /* numbers, booleans (0/1), policy and scorer ids, member index */
	uint64_t line;
	pl_bytes text;  /* PT_T_MEMBER: the id as written (in the doc's arena) */
} pt_set;

/* ---- events (`at TICK EVENT MEMBER ...`) ----------------------------------- */

enum pt_event_kind { PT_EV_JOIN = 1, PT_EV_DRAIN, PT_EV_DOWN, PT_EV_LAG, PT_EV_UP };
const char *pt_event_name(uint32_t kind);

typedef struct pt_event {
	uint64_t tick;
	uint64_t line;
	uint32_t kind;
	uint32_t member;    /* resolved: a member index, or PT_JOINER + join event index */
	uint32_t seq;       /* order given: file lines first, then --event arguments */
	pl_bytes name;
	pl_member joiner;   /* PT_EV_JOIN: the member that joins */
	uint64_t last_move; /* PT_EV_JOIN: its last-move= */
	int joined_given;   /* PT_EV_JOIN: joined= was written (else: the clock at its tick) */
	uint64_t capacity;  /* PT_EV_JOIN: its capacity=, or PL_BYTES_UNKNOWN */
} pt_event;

#define PT_JOINER UINT32_C(0x80000000)

/* ---- reading input a line at a time (read.c) -------------------------------- */

/* Bytes kept from the input: blocks that never move (so a pl_bytes into one
 * stays valid), growing from 4 KiB to at most 1 MiB each. */
typedef struct pt_block pt_block;
typedef struct pt_arena {
	pt_block *head;
	size_t bytes; /* allocated, for --timing */
} pt_arena;

/* A copy of n bytes (n may be 0: then {NULL, 0}) that lives as long as a. */
pl_bytes pt_arena_put(pt_arena *a, const char *p, size_t n);
void pt_arena_free(pt_arena *a);

/* The read buffer: 4 line limits. A line is handed out whole from it, and a
 * line whose end is not within it is past the limit by far. */
#define PT_READ_BUF ((size_t)PT_MAX_LINE * 4)

/* A file, standard input or bytes in memory, read a line at a time through
 * one buffer of PT_READ_BUF bytes: the memory it takes does not depend on
 * the input's size. A line is handed out without its end (LF, or CR LF; a
 * CR at the very end of the input is dropped too), and one of more than
 * PT_MAX_LINE bytes without it is an error that names it. */
typedef struct pt_reader {
	int fd;          /* -1: reading from memory */
	const char *src; /* memory: the bytes, and how many are read */
	size_t src_len, src_pos;
	char *buf;       /* cap + 1 bytes; buf[len] is 0 */
	size_t cap;
	size_t pos, len; /* the bytes not handed out yet: buf[pos .. len) */
	size_t scanned;  /* of them, those known to hold no LF */
	uint64_t line;   /* the line being read (then handed out); the count at the end */
	uint64_t bytes;  /* bytes read so far */
	int eof;
	int skip_bom;    /* drop a UTF-8 byte order mark that opens the input */
	int timing;      /* add up the seconds spent in read() */
	double read_s;
	size_t max_read; /* at most this many bytes a read, 0 = as many as fit (for tests) */
} pt_reader;

/* Open path ("-" is standard input) for reading: a directory, or a regular
 * file past PT_MAX_FILE, is refused before a byte is read. 0, or -1 with e. */
int pt_reader_open(pt_reader *r, const char *path, pt_err *e);
/* Read len bytes at text (which must outlive the reader) the same way. */
void pt_reader_mem(pt_reader *r, const char *text, size_t len);
/* The next line: 1 with *p (writable, NUL after it) and *n; 0 at the end of
 * the input; -1 with e (its line: r->line). */
int pt_reader_line(pt_reader *r, char **p, size_t *n, pt_err *e);
void pt_reader_close(pt_reader *r);

/* ---- the document ---------------------------------------------------------- */

typedef struct pt_table {
	uint64_t *slot; /* (hash high 32 bits << 32) | (index + 1); 0 = empty */
	size_t mask;
	size_t used;
} pt_table;

typedef struct pt_doc {
	const char *path; /* as named in messages */
	pt_arena bytes;   /* the bytes of every id, key and zone kept */

	pl_member *members;
	uint64_t *m_line;
	uint64_t *m_last_move; /* fleet: the member's last move, PL_FLEET_NEVER-like ~0 */
	uint64_t *m_capacity;  /* each member's capacity=, or PL_BYTES_UNKNOWN */
	uint32_t nm;
	size_t m_cap;

	pl_stream *streams;
	uint64_t *s_line;
	uint32_t *s_tolerance; /* each stream's tolerance=, or PL_TOLERANCE_DEFAULT */
	uint32_t *s_zone_rule; /* each stream's zones= (PL_ZONES_*) */
	uint32_t *s_flags;     /* each stream's PL_STREAM_* (keep) */
	uint32_t ns;
	size_t s_cap;

	pl_shard *shards;
	uint64_t *k_line;
	uint64_t *k_bytes; /* each shard's size=, or PL_BYTES_UNKNOWN */
	uint32_t nk;
	size_t k_cap;

	pl_override *overrides;
	uint64_t *o_line;
	uint32_t no;
	size_t o_cap;

	pt_event *events;
	uint32_t nev;
	size_t ev_cap;

	pl_copy *copies; /* copies in flight (`copy KEY to=ID [from=ID]`) */
	uint64_t *c_line;
	uint32_t nc;
	size_t c_cap;

	pt_set set[PT_SET_COUNT];
	uint64_t lines;   /* lines read */
	int has_bytes;    /* some size= or capacity= was given (a join's too): the
			   * snapshot carries k_bytes and m_capacity */
	int has_rules;    /* some stream's tolerance= or zones= was given: the
			   * snapshot carries s_tolerance and s_zone_rule */
	int has_keep;     /* some stream is kept: the snapshot carries s_flags */

	pt_table tm, ts, tk; /* members, streams, shards by id */
} pt_doc;

#define PT_NEVER UINT64_C(0xFFFFFFFFFFFFFFFF)

void pt_doc_init(pt_doc *d, const char *path);
void pt_doc_free(pt_doc *d);
pl_snapshot pt_doc_snapshot(const pt_doc *d);

/* Parse what r reads into d, a line at a time: the first bad line is
 * reported as soon as it is read, and nothing after it is read. 0, or -1
 * with e filled (e->line the line). */
int pt_parse_reader(pt_doc *d, pt_reader *r, pt_err *e);

/* Parse text (len bytes, which this frees: the doc keeps copies of the ids)
 * into d, the same way. */
int pt_parse(pt_doc *d, char *text, size_t len, pt_err *e);

/* A --set argument ("NAME=VALUE ...") read by the file's `set` parser into
 * d, over the file's settings (the one named is replaced). 0, or -1 with e
 * (e->line 0). */
int pt_parse_setting(pt_doc *d, const char *arg, pt_err *e);

/* Parse one extra event line (a --event argument) into d. */
int pt_parse_event(pt_doc *d, const char *arg, pt_err *e);

/* Build a view of the doc's snapshot with its scorer; a validation error is
 * mapped back to the line of the offending element. *mem receives memory
 * from malloc (free it). */
int pt_view(const pt_doc *d, const pl_snapshot *snap, pl_view **v, void **mem, pt_err *e);

/* Map a pl_diag of the doc's snapshot to a line and a message. */
int pt_diag_error(const pt_doc *d, const pl_snapshot *snap, int rc, const pl_diag *dg, pt_err *e);

/* Lookup of a member by id in the doc's table: index or -1. */
int64_t pt_find_member(const pt_doc *d, const char *id, size_t len);
/* Decode %XX escapes of a command-line argument into a new string. */
int pt_decode_arg(const char *arg, char **out, size_t *len, pt_err *e);
/* A setting's value, or its default. */
uint64_t pt_setting(const pt_doc *d, uint32_t which, uint64_t def);

/* ---- sizes in bytes (size.c) ------------------------------------------------ */

/* A size: decimal bytes with an optional K, M, G, T or P (powers of 1024).
 * 0 with *out; -1 not a size; 1 past UINT64_MAX. */
int pt_size_parse(const char *p, size_t n, uint64_t *out);
/* The same for attribute or setting `name` (with its '='), at most max:
 * 0, or -1 with e naming line. */
int pt_size_word(const char *p, size_t n, uint64_t max, uint64_t line, const char *name, uint64_t *out, pt_err *e);
/* A size as placement(5) writes it: the largest exact suffix (10G), else bytes. */
void pt_size_text(char *buf, size_t cap, uint64_t v);
void pt_put_size(pt_buf *b, uint64_t v);
/* A size for a reader: one decimal at most (1.5G, 512M, 900); "?" unknown. */
void pt_size_human(char *buf, size_t cap, uint64_t v);
void pt_put_size_human(pt_buf *b, uint64_t v);

/* ---- text and JSON output (format.c) --------------------------------------- */

/* An id as written in a snapshot file: bytes outside '!'..'~' and the bytes
 * % # , = written as %XX. */
void pt_put_id(pt_buf *b, pl_bytes id);
/* An id for a human message: as pt_put_id, cut at 80 bytes with "...". */
void pt_put_name(pt_buf *b, pl_bytes id);
/* A JSON string: valid UTF-8 kept, other bytes as \u00XX, quotes added. */
void pt_put_json_str(pt_buf *b, const char *s, size_t n);
void pt_put_json_bytes(pt_buf *b, pl_bytes id);
/* Writes the snapshot (after any change the caller made to snap) as a
 * snapshot file: settings, members, streams, shards, overrides, events, in
 * canonical order. */
void pt_format_text(pt_buf *b, const pt_doc *d, const pl_snapshot *snap, const uint64_t *last_move,
		    const pl_view *v, int with_events);
void pt_format_json(pt_buf *b, const pt_doc *d, const pl_snapshot *snap, const uint64_t *last_move,
		    const pl_view *v, int with_events); /* format_json.c */
/* A setting's value as the file writes it (format.c). */
void pt_put_setting_value(pt_buf *b, const pt_doc *d, uint32_t i);
/* Overrides in their shards' order (indices); the copies in flight by the
 * rank of their shard (PL_NONE for none). Both from malloc. */
uint32_t *pt_override_order(const pl_view *v, const pl_snapshot *s);
uint32_t *pt_copy_of_rank(const pl_view *v, const pl_snapshot *s);
/* The canonical order of a view: ranks[i] for element i of a kind. */
uint32_t *pt_ranks(const pl_view *v, uint32_t kind, uint32_t n);
/* Indices 0..n-1 in canonical order. */
uint32_t *pt_order(const pl_view *v, uint32_t kind, uint32_t n);
/* Member state as a JSON array of words: ["down", "lagging"]. */
void pt_put_json_state(pt_buf *b, uint32_t flags);
/* "3 members (3 live, 3 eligible), 1 stream, 12 shards (...), 0 overrides" */
void pt_put_counts(pt_buf *b, const pl_view_counts *c);
/* Member flags as words ("down,lagging"), "-" when none. */
void pt_put_member_state(pt_buf *b, uint32_t flags, char sep);

/* ---- commands (commands.c, plan.c) ---------------------------------------- */

typedef struct pt_opts {
	int json;
	int timing;
	const char *svg;      /* stats, plan, simulate: --svg OUT */
	const char *out;      /* plan, simulate: --out FILE (the layout after) */
	const char *policy;   /* --policy NAME */
	const char *member;   /* --member ID */
	uint64_t max;         /* --max N (0 = no bound) */
	int max_given;
	uint64_t ticks;       /* --ticks N */
	int ticks_given;
	const char **events;  /* --event TEXT ... */
	int nevents;
	const char **sets;    /* --set NAME=VALUE ... */
	int nsets;
	int quiet;            /* simulate: no per-tick lines */
	int summary;          /* plan: only the totals and the spread before and after */
	const char *kafka_reassignment; /* plan: --kafka-reassignment OUT.json */
	const char *kafka_election;     /* plan: --kafka-election OUT.json */
	const char *kafka_unclean;      /* plan: --kafka-unclean-election OUT.json */
	const char *kafka_rollback;     /* plan: --kafka-rollback OUT.json */
	const char *racks;    /* import kafka: --racks FILE */
	const char *log_dirs; /* import kafka: --log-dirs FILE (kafka-log-dirs.sh --describe) */
	const char *topic;    /* import rpk: --topic NAME (rpk topic describe -p names none) */
	const struct pt_change *changes; /* plan: --add-member, --drain, --down, in order */
	int nchanges;
	struct pt_change *changes_buf;   /* main's room for them */
} pt_opts;

/* A change of plan's what-if: kind 1 join (--add-member 'ID zone=Z ...'),
 * 2 drain, 3 down (--drain ID, --down ID). */
typedef struct pt_change {
	int kind;
	const char *arg;
} pt_change;

int pt_cmd_check(const char *path, const pt_opts *o, pt_buf *out, pt_err *e);
int pt_cmd_stats(const char *path, const pt_opts *o, pt_buf *out, pt_err *e);
int pt_cmd_owner(const char *path, const char *key, const pt_opts *o, pt_buf *out, pt_err *e);
int pt_cmd_format(const char *path, const pt_opts *o, pt_buf *out, pt_err *e);
int pt_cmd_plan(const char *path, const pt_opts *o, pt_buf *out, pt_err *e);
int pt_cmd_simulate(const char *path, const pt_opts *o, pt_buf *out, pt_err *e);
/* plan with --add-member, --drain or --down (whatif.c): the plan with the
 * changes beside the plan as it is. */
int pt_cmd_whatif(const char *path, const pt_opts *o, pt_buf *out, pt_err *e);

/* Progress on standard error, when it is a terminal (or PLACEMENT_PROGRESS
 * is set): one line, rewritten at most a few times a second. */
void pt_progress(const pt_opts *o, const char *fmt, ...) PT_PRINTF(2, 3);
/* The progress line is cleared. */
void pt_progress_done(const pt_opts *o);
/* Whether pt_progress() would write now (so a costly figure for it is
 * computed only then). PLACEMENT_PROGRESS=2: every update, a line each. */
int pt_progress_due(const pt_opts *o);
/* ", about 12 s left" at the rate since t0 (pt_now()) of done out of total,
 * or "" when it cannot tell. */
void pt_progress_left(char *buf, size_t n, double t0, uint64_t done, uint64_t total);

/* Kafka (kafka.c, rpk.c, kafka_write.c): import kafka-topics.sh --describe
 * output (or rpk's) as a snapshot file, and write the reassignment and
 * election files of a plan: every shard whose replicas or leader differ
 * between the document and the view. */
int pt_cmd_import(const char *format, const char *path, const pt_opts *o, pt_buf *out, pt_err *e);
/* The same from bytes in memory (path names them in the output's comment). */
int pt_kafka_import(const char *text, size_t len, const char *path, int rpk, const pt_opts *o, pt_buf *out,
		    pt_err *e);
int pt_kafka_write(const pt_doc *d, const pl_view *v, const pt_opts *o, pt_err *e);
/* Whether every member is a broker id and every shard TOPIC/N, so the plan
 * can be written back (checked before the plan starts). */
int pt_kafka_check(const pt_doc *d, pt_err *e);


/* Load and validate a file: read, parse, --event lines, view. */
int pt_load(pt_doc *d, const char *path, const pt_opts *o, pt_err *e);
/* Write a buffer to a file (for --svg and --out); 0 or -1 with e filled. */
int pt_write_file(const char *path, const pt_buf *b, pt_err *e);
/* The policy in force: --policy, else `set policy`, else broker. */
int pt_policy_of(const pt_doc *d, const pt_opts *o, uint32_t *policy, pt_err *e);

/* Timing for --timing: seconds since an arbitrary origin. */
double pt_now(void);
/* The process's CPU time, the same way. */
double pt_cpu(void);

#endif /* PT_TOOL_H */
