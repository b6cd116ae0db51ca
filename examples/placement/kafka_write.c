/*
 * kafka_write.c - what a plan writes back to Kafka: `plan
 * --kafka-reassignment`, `--kafka-election` and `--kafka-unclean-election`
 * write the files kafka-reassign-partitions.sh and kafka-leader-election.sh
 * take. Reading Kafka's output is kafka.c.
 *
 * For every shard whose leader or replica list differs between the file and
 * the end of the plan: the partition's new replica list with the intended
 * leader first (reassignment), and, where the leader changed, the partition
 * (a preferred-leader election, which makes the first replica lead). A
 * partition the file gives no leader goes to the unclean election's file
 * instead, the operator's call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kafka.h"

/* A member id as a broker id. */
static int broker_id(const pl_snapshot *s, uint32_t m, uint64_t *id, pt_err *e)
{
	kword w = {s->members[m].id.ptr, (size_t)s->members[m].id.len};
	if (pt_kafka_uint(w, INT32_MAX, id))
		return pt_fail(e, 0, "member '%.*s' is not a Kafka broker id (a number): no Kafka file for this layout",
			       (int)(w.n > 80 ? 80 : w.n), w.p);
	return 0;
}

/* A shard key TOPIC/N as the topic and the partition. */
static int topic_partition(const pl_snapshot *s, uint32_t k, kword *topic, uint64_t *part, pt_err *e)
{
	kword key = {s->shards[k].key.ptr, (size_t)s->shards[k].key.len};
	size_t i = key.n;
	while (i > 0 && key.p[i - 1] != '/')
		i--;
	kword n = {key.p + i, key.n - i};
	if (i < 2 || pt_kafka_uint(n, INT32_MAX, part))
		return pt_fail(e, 0, "shard '%.*s' is not named TOPIC/PARTITION: no Kafka file for this layout",
			       (int)(key.n > 80 ? 80 : key.n), key.p);
	*topic = (kword){key.p, i - 1};
	return 0;
}

int pt_kafka_check(const pt_doc *d, pt_err *e)
{
	pl_snapshot s = pt_doc_snapshot(d);
	uint64_t x;
	kword t;
	for (uint32_t m = 0; m < s.n_members; m++)
		if (broker_id(&s, m, &x, e))
			return -1;
	for (uint32_t k = 0; k < s.n_shards; k++)
		if (topic_partition(&s, k, &t, &x, e))
			return -1;
	return 0;
}

static void put_topic_partition(pt_buf *b, kword topic, uint64_t part)
{
	pt_put(b, "{\"topic\": ");
	pt_put_json_str(b, topic.p, topic.n);
	pt_put(b, ", \"partition\": %llu", (unsigned long long)part);
}

/* Why a partition of the file is left out of the reassignment and the
 * preferred election, or NULL: no leader, a leader or a replica down, a
 * replica out of sync, a leader move or a copy in flight. */
static const char *at_risk(const pt_doc *d, uint32_t k)
{
	const pl_shard *x = &d->shards[k];
	if (x->replica_count == 0)
		return NULL;
	if (x->leader == PL_NONE || (d->members[x->leader].flags & PL_MEMBER_DOWN))
		return "offline";
	if (x->flags & PL_SHARD_OUT_OF_SYNC_ALL)
		return "under-replicated";
	for (uint32_t j = 0; j < x->replica_count; j++)
		if (d->members[x->replicas[j]].flags & PL_MEMBER_DOWN)
			return "under-replicated";
	if (x->moving_to != PL_NONE)
		return "in-flight";
	for (uint32_t c = 0; c < d->nc; c++)
		if (d->copies[c].shard == k)
			return "in-flight";
	return NULL;
}

int pt_kafka_write(const pt_doc *d, const pl_view *v, const pt_opts *o, pt_err *e)
{
	const pl_snapshot *s = pl_view_snapshot(v);
	pt_buf re = {0}, el = {0}, un = {0}, left = {0}, held = {0}, rb = {0};
	size_t nre = 0, nel = 0, nun = 0, nleft = 0, nheld = 0;
	int rc = 0;
	pt_put(&re, "{\"version\": 1, \"partitions\": [");
	pt_put(&rb, "{\"version\": 1, \"partitions\": [");
	pt_put(&el, "{\"partitions\": [");
	pt_put(&un, "{\"partitions\": [");
	/* in the order of the shards' keys, so the files do not depend on the
	 * file's order */
	uint32_t *order = pt_order(v, PL_ELEM_SHARD, s->n_shards);
	for (uint32_t r = 0; rc == 0 && r < s->n_shards; r++) {
		uint32_t k = order[r];
		const pl_shard *was = &d->shards[k];
		pl_shard_state now;
		pl_view_shard_state(v, k, &now);
		/* the replica set, and the leader, as the file had them */
		uint32_t was_leader = was->moving_to != PL_NONE ? was->moving_to : was->leader;
		int set_same = now.replica_count == was->replica_count;
		for (uint32_t j = 0; set_same && j < now.replica_count; j++) {
			int in = 0;
			for (uint32_t q = 0; q < was->replica_count; q++)
				in |= was->replicas[q] == now.replicas[j];
			set_same = in;
		}
		int led = now.leader != PL_NONE && now.leader != was_leader;
		/* a new leader must be first, the replica Kafka prefers */
		int reorder = led && (was->replica_count == 0 || was->replicas[0] != now.leader);
		/* A partition the file gives no leader has no replica known to be
		 * in the ISR: a preferred election fails, and electing one is an
		 * unclean election (it may lose what the ISR had), which is the
		 * operator's call. The plan itself elects none from replicas out
		 * of sync (it reports the shard stalled), so every such partition
		 * goes to the unclean file, elected by the plan or not. */
		int unclean = was->leader == PL_NONE && was->moving_to == PL_NONE && was->replica_count > 0;
		if (set_same && !led && !unclean)
			continue;
		/* A partition at risk or in flight in the file is left out of the
		 * reassignment and the preferred election: Kafka completes a
		 * reassignment only once every target replica is in the ISR, and
		 * a preferred election makes its first replica lead, which may be
		 * one out of sync. */
		const char *risk = at_risk(d, k);
		if (risk && unclean)
			set_same = 1, reorder = 0; /* copied from nowhere: only the operator's unclean election */
		else if (risk) {
			kword topic = {NULL, 0};
			uint64_t part = 0;
			if ((rc = topic_partition(s, k, &topic, &part, e)) != 0)
				break;
			if (nheld++ < 8)
				pt_put(&held, "%s%.*s/%llu %s", nheld > 1 ? ", " : "", (int)(topic.n > 60 ? 60 : topic.n), topic.p,
				       (unsigned long long)part, risk);
			continue;
		}
		/* the new list: the leader, then the file's replicas that stay, in
		 * its order, then the new ones */
		uint32_t list[PL_MAX_REPLICAS], n = 0;
		if (now.leader != PL_NONE)
			list[n++] = now.leader;
		for (uint32_t q = 0; q < was->replica_count; q++)
			for (uint32_t j = 0; j < now.replica_count; j++)
				if (now.replicas[j] == was->replicas[q] && now.replicas[j] != now.leader)
					list[n++] = now.replicas[j];
		for (uint32_t j = 0; j < now.replica_count; j++) {
			int old = now.replicas[j] == now.leader;
			for (uint32_t q = 0; q < was->replica_count; q++)
				old |= was->replicas[q] == now.replicas[j];
			if (!old)
				list[n++] = now.replicas[j];
		}
		int same = set_same && !reorder;
		kword topic = {NULL, 0};
		uint64_t part = 0, id = 0;
		if ((rc = topic_partition(s, k, &topic, &part, e)) != 0)
			break;
		if (!same) {
			pt_put(&re, "%s\n  ", nre++ ? "," : "");
			put_topic_partition(&re, topic, part);
			pt_put(&re, ", \"replicas\": [");
			for (uint32_t j = 0; rc == 0 && j < n; j++) {
				if ((rc = broker_id(s, list[j], &id, e)) == 0)
					pt_put(&re, "%s%llu", j ? ", " : "", (unsigned long long)id);
			}
			pt_put(&re, "]}");
			/* the rollback: the partition as the file has it, in its
			 * order (Kafka's: the preferred leader first) */
			const uint32_t *back = was->replicas;
			uint32_t nb = was->replica_count;
			pt_put(&rb, "%s\n  ", nre > 1 ? "," : "");
			put_topic_partition(&rb, topic, part);
			pt_put(&rb, ", \"replicas\": [");
			for (uint32_t j = 0; rc == 0 && j < nb; j++)
				if ((rc = broker_id(s, back[j], &id, e)) == 0)
					pt_put(&rb, "%s%llu", j ? ", " : "", (unsigned long long)id);
			pt_put(&rb, "]}");
		}
		if (led && !unclean) {
			pt_put(&el, "%s\n  ", nel++ ? "," : "");
			put_topic_partition(&el, topic, part);
			pt_putc(&el, '}');
		} else if (unclean) {
			pt_put(&un, "%s\n  ", nun++ ? "," : "");
			put_topic_partition(&un, topic, part);
			pt_putc(&un, '}');
			if (nleft++ < 8)
				pt_put(&left, "%s%.*s/%llu", nleft > 1 ? ", " : "", (int)(topic.n > 60 ? 60 : topic.n), topic.p,
				       (unsigned long long)part);
		}
	}
	free(order);
	pt_put(&re, "%s]}\n", nre ? "\n" : "");
	pt_put(&el, "%s]}\n", nel ? "\n" : "");
	pt_put(&un, "%s]}\n", nun ? "\n" : "");
	pt_put(&rb, "%s]}\n", nre ? "\n" : "");
	if (rc == 0 && o->kafka_reassignment)
		rc = pt_write_file(o->kafka_reassignment, &re, e);
	if (rc == 0 && o->kafka_election)
		rc = pt_write_file(o->kafka_election, &el, e);
	if (rc == 0 && o->kafka_unclean)
		rc = pt_write_file(o->kafka_unclean, &un, e);
	if (rc == 0 && o->kafka_rollback)
		rc = pt_write_file(o->kafka_rollback, &rb, e);
	if (rc == 0 && nheld && (o->kafka_reassignment || o->kafka_election))
		fprintf(stderr,
			"placement: note: %zu partition%s at risk or in flight in the file (%s%s) %s left out of the "
			"reassignment and the election: the plan's moves of %s are not written\n",
			nheld, nheld == 1 ? "" : "s", held.p, nheld > 8 ? ", ..." : "", nheld == 1 ? "is" : "are",
			nheld == 1 ? "it" : "them");
	if (rc == 0 && nleft && o->kafka_election && !o->kafka_unclean)
		fprintf(stderr,
			"placement: note: %zu partition%s with no leader in the file (%s%s) %s no election in %s: no replica "
			"is known to be in the ISR, and electing one is unclean; --kafka-unclean-election FILE writes %s "
			"for kafka-leader-election.sh --election-type unclean\n",
			nleft, nleft == 1 ? "" : "s", left.p, nleft > 8 ? ", ..." : "", nleft == 1 ? "has" : "have",
			o->kafka_election, nleft == 1 ? "it" : "them");
	pt_buf_free(&re);
	pt_buf_free(&el);
	pt_buf_free(&un);
	pt_buf_free(&left);
	pt_buf_free(&held);
	pt_buf_free(&rb);
	return rc;
}
