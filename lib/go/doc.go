// Package placement is the Go binding of libplacement, the C library that
// decides where shards live: which member of a cluster leads or replicates
// each shard, and which move to make next when the layout is uneven.
//
// You describe members, streams and shards by id in a Layout; NewSnapshot
// maps them to the library's arrays (in C memory) and validates them; a
// View holds what one tick derives from a snapshot; the broker policy
// (View.BrokerPlan, View.BrokerDryRun), the fleet policy
// (View.FleetDecide) and the region policy (View.RegionPlan) return a Plan of Actions, in ids, each with the
// library's sentence that says why. RouteDecide and View.RouteLookup
// route a fleet's requests.
//
// The package adds no rule of its own: the defaults are the C *_init()
// calls (DefaultBrokerConfig, DefaultViewOptions), kinds, reasons, statuses
// and error codes are the library's constants with its names (Kind,
// Reason, Status, Code), and an error is an *Error carrying the C code and
// the element it names, by index and id. One exception is a layout where
// every member is down or draining: the library's ErrNoEligible becomes a
// plan with Status StatusStalled and NoEligible set, as placement(1)
// reports it, since it is no bad input.
//
// A control plane calls the library once a tick on a snapshot of its own
// model; Views builds each tick's view in one of two buffers with the
// previous tick's view as the library's hint, so what still holds is
// reused (see the Views example).
//
// Memory: snapshots and views live in C memory, which Go's garbage
// collector frees (finalizers) but does not count; a loop should Close
// what it builds. A view keeps its snapshot alive until the view is closed.
//
// Building: cgo needs the library's headers and the library. From the
// repository's root, `make check-go` passes them (CGO_CFLAGS with
// include/, CGO_LDFLAGS with build/libplacement.a); by hand, once `make`
// has built the library:
//
//	cd lib/go
//	CGO_CFLAGS=-I$PWD/../../include CGO_LDFLAGS=$PWD/../../build/libplacement.a go test
//
// or, with the library installed (make install),
// CGO_LDFLAGS="$(pkg-config --libs libplacement)".
package placement
