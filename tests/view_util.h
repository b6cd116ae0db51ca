/* view_util.h - the small layout the view suites share. */
#ifndef VIEW_UTIL_H
#define VIEW_UTIL_H

#include "testutil.h"

/* Three members, two streams; orders leads 1/1/2 with one move in flight. */
static inline tl *vu_layout(void)
{
	tl *t = tl_new();
	tl_member(t, "b2", "z1"); /* index 0, rank 2 */
	tl_member(t, "b0", "z1"); /* index 1, rank 0 */
	tl_member(t, "b1", "z2"); /* index 2, rank 1 */
	tl_stream(t, "orders");
	tl_stream(t, "cache");
	tl_shard(t, "orders/00", 0, 0, 2, 0u, 1u);
	tl_shard(t, "orders/01", 0, 0, 2, 0u, 2u);
	tl_shard(t, "orders/02", 0, 1, 2, 1u, 2u);
	tl_shard(t, "orders/03", 0, 2, 2, 2u, 0u);
	tl_shard(t, "cache/00", 1, 0, 1, 0u);
	tl_shard(t, "free", PL_NONE, PL_NONE, 0);
	return t;
}

#endif
