/* quickstart.c - where do these shards live? Build a view of a snapshot and
 * ask each shard's ring home. Build: cc quickstart.c $(pkg-config --cflags --libs libplacement) */
#include <placement.h>
#include <stdio.h>
#include <stdlib.h>

#define ID(s) {s, sizeof s - 1}

int main(void)
{
	pl_member members[] = {{.id = ID("b0"), .zone = ID("a")}, {.id = ID("b1"), .zone = ID("b")},
			       {.id = ID("b2"), .zone = ID("c")}};
	pl_shard shards[] = {{.key = ID("orders/00")}, {.key = ID("orders/01")}, {.key = ID("orders/02")},
			     {.key = ID("orders/03")}, {.key = ID("orders/04")}, {.key = ID("orders/05")}};
	for (size_t i = 0; i < 6; i++)
		shards[i].stream = shards[i].leader = shards[i].moving_to = PL_NONE;
	pl_snapshot snap = PL_SNAPSHOT_INIT; /* its version first, then the fields */
	snap.members = members;
	snap.n_members = 3;
	snap.shards = shards;
	snap.n_shards = 6;

	size_t size = pl_view_size(&snap);
	void *mem = malloc(size);
	pl_view *view;
	pl_diag diag;
	int rc = pl_view_init(&view, mem, size, &snap, NULL, &diag);
	if (rc < 0) {
		fprintf(stderr, "bad snapshot: %s at element %u\n", pl_strerror(rc), diag.index);
		return 1;
	}
	for (uint32_t k = 0; k < snap.n_shards; k++) {
		int home = pl_view_home(view, k);
		printf("%.*s -> %.*s\n", (int)shards[k].key.len, shards[k].key.ptr, (int)members[home].id.len,
		       members[home].id.ptr);
	}
	free(mem);
	return 0;
}
