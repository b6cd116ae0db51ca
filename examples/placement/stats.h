/*
 * stats.h - placement(1): the tallies stats prints, computed once from a
 * view (stats.c, written out by stats_out.c), the shards at risk
 * (health.c), the bytes per member (stats_bytes.c), and what the pictures
 * take from them (svg.c): the spread before and after, a member's measure
 * over the ticks of a simulation, the bounds a member is held to.
 */
#ifndef PT_STATS_H
#define PT_STATS_H

#include "tool.h"

/* ---- stats (stats.c) --------------------------------------------------------- */

/* The tallies stats prints, computed once from a view (in canonical orders). */
typedef struct pt_member_row {
	uint32_t member;          /* index */
	uint32_t leaders, replicas, owned;
	uint32_t floor, ceiling;  /* over all shards, for this member */
	uint32_t r_floor, r_ceiling; /* replicas: live replicas over eligible members */
	uint32_t flags;           /* the member's PL_MEMBER_* when counted */
} pt_member_row;

typedef struct pt_stream_row {
	uint32_t stream;          /* index */
	uint32_t shards;
	uint32_t first, count;    /* rows in cells[] */
	uint32_t min_leaders, max_leaders; /* over eligible members */
	uint32_t over, under;     /* eligible members past the ceiling / below the floor (0 when kept) */
	uint32_t kept;            /* broker: the stream is kept (PL_STREAM_KEEP), never balanced */
	uint32_t led_eligible;    /* shards led by eligible members: what the broker's stream pass balances */
} pt_stream_row;

typedef struct pt_cell_row {
	uint32_t member;
	uint32_t leaders, replicas;
	uint32_t floor, ceiling;
} pt_cell_row;

/* How many under-spread shards stats names (the first by key). */
#define PT_UNDER_SPREAD_SHOWN 5

/* Shards at risk (health.c): offline (replicas, no live leader) and
 * under-replicated (a live leader, a replica out of sync or down), counted,
 * the first PT_HEALTH_SHOWN of each by key. */
#define PT_HEALTH_SHOWN 8
typedef struct pt_health {
	uint32_t offline, under;
	uint32_t off_first[PT_HEALTH_SHOWN], under_first[PT_HEALTH_SHOWN];
	uint32_t rf, short_rf; /* broker plan: shards holding fewer replicas than rf */
	uint32_t short_first[PT_HEALTH_SHOWN];
} pt_health;
void pt_health_compute(pt_health *h, const pl_view *v);
/* lead, then "1 offline (no live leader): t/0; ...", a line; nothing when
 * no shard is at risk. */
void pt_health_text(pt_buf *b, const pt_health *h, const pl_view *v, const char *lead);
/* "offline": {"count": N, "first": [...]}, "under_replicated": {...} */
void pt_health_json(pt_buf *b, const pt_health *h, const pl_view *v);
/* Shards new in d (no replica) that a plan placed with fewer replicas
 * than rf (the broker places min(rf, eligible members)): counted into h, and written as a line
 * ("short of rf 3: 1 shard with fewer replicas (2 eligible members): s/0")
 * or as "short_of_rf": {"rf", "count", "first"}. */
void pt_health_short_rf(pt_health *h, const pl_view *v, uint32_t rf, const pt_doc *d);
void pt_health_short_text(pt_buf *b, const pt_health *h, const pl_view *v, uint32_t eligible);
void pt_health_short_json(pt_buf *b, const pt_health *h, const pl_view *v);

/* Bytes per member (stats_bytes.c), where the layout gives sizes; rows in
 * the members' canonical order, as pt_stats's. Percentages in tenths
 * (625 = 62.5%), UINT64_MAX unknown. */
typedef struct pt_bytes_row {
	uint64_t bytes;    /* the known sizes of the replicas it holds */
	uint64_t capacity; /* or PL_BYTES_UNKNOWN */
	uint64_t used;     /* bytes of capacity, in tenths of a percent */
	uint64_t share;    /* eligible: its part of the bytes on live members */
	uint64_t of_share; /* bytes of share, in tenths of a percent */
	uint32_t unknown;  /* replicas it holds of unknown size */
} pt_bytes_row;
typedef struct pt_bytes_stats {
	int sized;           /* the snapshot gives sizes or capacities */
	int by_capacity;     /* shares in proportion to capacity (else weight) */
	pt_bytes_row *row;
	uint64_t total;      /* known bytes on live members */
	uint64_t unknown;    /* replicas of unknown size on live members */
	uint64_t capacity;   /* known capacity of live members */
	uint32_t shards_known;
	uint32_t eligible;
	uint32_t max, min, used_max, used_min, used_n; /* rows, over eligible members */
} pt_bytes_stats;

typedef struct pt_stats {
	pl_view_counts c;
	uint32_t policy;          /* whose measure the chart shows */
	pt_member_row *m;         /* nm rows, canonical order */
	uint32_t nm;
	uint32_t owned_valid;     /* owned counted (fleet) */
	uint64_t live_replicas;   /* replicas on live members */
	pt_stream_row *s;         /* ns rows, canonical order */
	uint32_t ns;
	pt_cell_row *cells;       /* per stream: eligible members and any holding some of it */
	size_t ncells;
	uint32_t streams_uneven;  /* streams with a member outside [floor, ceiling] */
	uint32_t under_spread;    /* shards spanning fewer zones than they could */
	uint32_t under_first[PT_UNDER_SPREAD_SHOWN]; /* the first of them by key */
	pt_health health;         /* shards offline and under-replicated */
	/* The imbalance (placement(1), pl_view_imbalance(3)): over every
	 * member, the distance of the policy's measure to [floor, ceiling] in
	 * total and (broker) in each stream; 0 when balanced. */
	uint32_t measure;           /* PL_IMBALANCE_* */
	uint64_t imbalance;
	uint64_t imbalance_streams; /* of it, the streams' part */
	pt_bytes_stats by;          /* bytes per member (stats_bytes.c) */
} pt_stats;

/* floor(a * b / c) without overflow (UINT64_MAX when it does not fit; 0 for c 0). */
uint64_t pt_mul_div(uint64_t a, uint64_t b, uint64_t c);
/* st->by from the view (after st's member rows); nothing when no sizes. */
void pt_bytes_compute(pt_stats *st, const pl_view *v);
void pt_bytes_free(pt_stats *st);
/* The table ("bytes per member: ..."), w the members' column; nothing
 * when no sizes. */
void pt_bytes_text(pt_buf *b, const pt_stats *st, const pl_view *v, size_t w);
/* "; bytes max 50G (b0, 125% of its share), min ..." for pt_stats_line(). */
void pt_bytes_line(pt_buf *b, const pt_stats *st, const pl_view *v);
/* "bytes": {...} or null; a cluster row's bytes fields (row r). */
void pt_bytes_json(pt_buf *b, const pt_stats *st, const pl_view *v);
void pt_bytes_member_json(pt_buf *b, const pt_stats *st, const pl_view *v, uint32_t r);

/* The library's imbalance measure for a policy: the broker's counts
 * replicas too unless d sets replica-balance off or handoff-only on. */
uint32_t pt_imbalance_measure(uint32_t policy, const pt_doc *d);
/* d: the settings (NULL: the defaults). */
void pt_stats_compute(pt_stats *st, const pl_view *v, uint32_t policy, const pt_doc *d);
void pt_stats_free(pt_stats *st);
void pt_stats_text(pt_buf *b, const pt_stats *st, const pl_view *v, int per_stream);
void pt_stats_json(pt_buf *b, const pt_stats *st, const pl_view *v);
/* A member's measure over the ticks of a simulation (v[tick * nm + member],
 * PT_SERIES_NONE before it joined), and the events to mark. */
#define PT_SERIES_NONE UINT32_MAX
struct pt_tick;
typedef struct pt_series {
	uint32_t *v;
	uint32_t *o;        /* the other count the same way (replicas; region: leaders) */
	const char *o_name; /* "replicas" or "leaders" */
	uint32_t ticks, nm;
	uint32_t *ev_tick;
	char **ev_text;
	uint32_t nev;
} pt_series;
/* Two states side by side (plan, simulate), with the series when given; the
 * names come from v's snapshot, which holds every member of both. */
void pt_svg_before_after(pt_buf *b, const pt_stats *before, const pt_stats *after, const pl_view *v,
			 const char *title, const char *before_label, const char *after_label, const pt_series *se,
			 const struct pt_tick *why);
/* Not down and not draining: held to the bounds and may receive. */
int pt_eligible(const pl_member *m);
/* The floor and ceiling of count over members of total weight total_w for
 * one of weight weight (0 and 0 when not elig). */
void pt_bounds(uint64_t count, uint32_t weight, uint64_t total_w, int elig, uint32_t *fl, uint32_t *ce);
/* Whether a member is held to the bounds of the chart's measure (the region
 * policy's fair share counts a draining member). */
int pt_held(const pt_stats *st, const pl_member *m);
/* The chart's measure: "leaders", "owned" or "replicas". */
const char *pt_measure_name(uint32_t policy);
/* A member's value on the totals chart, and the bounds it is held to. */
void pt_total_measure(const pt_stats *st, const pl_snapshot *s, const pt_member_row *r, uint32_t *val, uint32_t *fl,
		      uint32_t *ce);
/* A stream's leaders (owned) per eligible member: "10/1/1", or "min 1, max 10". */
void pt_stream_words(pt_buf *b, const pt_stats *st, const pl_view *v, const pt_stream_row *sr);
/* One line: the chart's measure per member ("leaders 10/1/1 (ceiling 4)"). */
void pt_stats_line(pt_buf *b, const pt_stats *st, const pl_view *v);

#endif /* PT_STATS_H */
