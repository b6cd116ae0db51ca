/*
 * placement.h - libplacement, the umbrella header.
 *
 * libplacement decides where shards live: which member of a fleet or cluster
 * owns, leads or replicates each shard, and which move to make next when the
 * layout is uneven. Data flows one way:
 *
 *     snapshot (snapshot.h) -> view (view.h) -> policy -> actions (plan.h)
 *
 * It never allocates in a call, reads no clock, socket or file, keeps no
 * global state and decides with integers only. See libplacement(3).
 */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include "placement/version.h"
#include "placement/error.h"
#include "placement/hash.h"
#include "placement/snapshot.h"
#include "placement/plan.h"
#include "placement/view.h"
#include "placement/broker.h"
#include "placement/fleet.h"
#include "placement/route.h"
#include "placement/region.h"

#endif /* PLACEMENT_H */
