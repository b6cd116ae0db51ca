package placement

// #include <placement.h>
import "C"

import "strconv"

// Code is one of the library's negative PL_E_* error codes.
type Code int32

// String is the code's name without the PL_ prefix, from pl_error_name():
// "E_DUP_MEMBER"; "E_UNKNOWN" for a value that is not a code.
func (c Code) String() string { return C.GoString(C.pl_error_name(C.int(c))) }

// Message is the library's one-line English message for the code
// (pl_strerror()).
func (c Code) Message() string { return C.GoString(C.pl_strerror(C.int(c))) }

// Error makes a Code an error value, so that errors.Is(err, ErrDupMember)
// holds for an *Error of that code.
func (c Code) Error() string { return c.String() + ": " + c.Message() }

// Kind is an action's kind (PL_ACTION_*).
type Kind uint32

// String is the library's name for the kind (pl_action_kind_name()):
// "move-leader"; "unknown" for a value it does not know.
func (k Kind) String() string { return C.GoString(C.pl_action_kind_name(C.uint32_t(k))) }

// Reason says why an action was emitted (PL_REASON_*).
type Reason uint32

// String is the library's name for the reason (pl_reason_name()):
// "stream-skew"; "unknown" for a value it does not know.
func (r Reason) String() string { return C.GoString(C.pl_reason_name(C.uint32_t(r))) }

// Status says why a policy call stopped emitting (PL_STATUS_*).
type Status uint32

// String is the library's name for the status (pl_status_name()):
// "balanced"; "unknown" for a value it does not know.
func (s Status) String() string { return C.GoString(C.pl_status_name(C.uint32_t(s))) }

// Scope says where an action's counts were taken (PL_SCOPE_*). The library
// has no name function for scopes: String gives the constant's name.
type Scope uint32

// The scopes of plan.h.
const (
	ScopeNone           Scope = C.PL_SCOPE_NONE            // no counts
	ScopeStream         Scope = C.PL_SCOPE_STREAM          // leaders of the action's stream
	ScopeCluster        Scope = C.PL_SCOPE_CLUSTER         // leaders in total
	ScopeOwned          Scope = C.PL_SCOPE_OWNED           // shards owned (fleet)
	ScopeReplicas       Scope = C.PL_SCOPE_REPLICAS        // replicas held
	ScopePrimaries      Scope = C.PL_SCOPE_PRIMARIES       // primaries (leaders) held
	ScopePeers          Scope = C.PL_SCOPE_PEERS           // peers of the shard (ToCount = peers before, Total = target RF)
	ScopeStreamReplicas Scope = C.PL_SCOPE_STREAM_REPLICAS // replicas of the action's stream
	ScopeZones          Scope = C.PL_SCOPE_ZONES           // zones the shard spans: FromCount before, ToCount after, Total it could span
	ScopeBytes          Scope = C.PL_SCOPE_BYTES           // bytes held: FromBytes, ToBytes and BytesLimit say what decided it
)

var scopeNames = [...]string{"none", "stream", "cluster", "owned", "replicas", "primaries", "peers",
	"stream-replicas", "zones", "bytes"}

// String is the scope in the words of plan.h ("stream-replicas"), or
// "scope(N)" for a value this package does not know.
func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "scope(" + strconv.FormatUint(uint64(s), 10) + ")"
}

// ElementKind says which part of the input an Error is about (PL_ELEM_*).
type ElementKind uint32

// The element kinds of snapshot.h.
const (
	ElemNone     ElementKind = C.PL_ELEM_NONE     // nothing in particular
	ElemSnapshot ElementKind = C.PL_ELEM_SNAPSHOT // one of the snapshot's arrays: index 0..4 = members, streams, shards, overrides, copies
	ElemMember   ElementKind = C.PL_ELEM_MEMBER   // a member
	ElemStream   ElementKind = C.PL_ELEM_STREAM   // a stream
	ElemShard    ElementKind = C.PL_ELEM_SHARD    // a shard
	ElemOverride ElementKind = C.PL_ELEM_OVERRIDE // an override; its Error.ID is the shard's key
	ElemConfig   ElementKind = C.PL_ELEM_CONFIG   // a field of a config: index = its place, 0 = version
	ElemArgument ElementKind = C.PL_ELEM_ARGUMENT // a function argument: index from 1
	ElemCopy     ElementKind = C.PL_ELEM_COPY     // a copy in flight; its Error.ID is the shard's key
)

var elemWords = [...]string{"", "snapshot array", "member", "stream", "shard", "override", "config field",
	"argument", "copy"}

// String is the kind in words ("member", "config field"); "" for ElemNone.
func (k ElementKind) String() string {
	if int(k) < len(elemWords) {
		return elemWords[k]
	}
	return "element"
}

// Origin says which pass wrote a fleet override (PL_ORIGIN_*).
type Origin uint32

// The origins of snapshot.h.
const (
	OriginLag   Origin = C.PL_ORIGIN_LAG   // placed off its home for lag (the zero value)
	OriginCount Origin = C.PL_ORIGIN_COUNT // placed off its home by count balance
)

// String is "lag" or "count".
func (o Origin) String() string {
	switch o {
	case OriginLag:
		return "lag"
	case OriginCount:
		return "count"
	}
	return "origin(" + strconv.FormatUint(uint64(o), 10) + ")"
}

// Scorer is a scorer id (PL_SCORER_*). Ids never change meaning; a new
// scorer is a new id.
type Scorer uint32

// The scorers of hash.h.
const (
	ScorerXXH3        Scorer = C.PL_SCORER_XXH3         // XXH3-64 hashes of id and key, mixed by pl_score() (the default)
	ScorerLegacyFNV1A Scorer = C.PL_SCORER_LEGACY_FNV1A // FNV-1a 64 over "<key> <member id>", for fleets already on it
)

// Bytes (snapshot.h): MaxBytes is the most a member's capacity may be
// (2^62); the known sizes of all shards together may be at most MaxBytes /
// 8 (PL_MAX_REPLICAS). BytesUnknown is the C value of a size or capacity
// not known (UINT64_MAX); the package's types say it with a Known flag.
const (
	MaxBytes     uint64 = C.PL_MAX_BYTES
	BytesUnknown uint64 = C.PL_BYTES_UNKNOWN
)

// Version is the version of the headers the package was built against
// (PL_VERSION_STRING); LibraryVersion is the linked library's.
const Version = C.PL_VERSION_STRING

// LibraryVersion is the linked library's version, pl_version():
// "MAJOR.MINOR.PATCH".
func LibraryVersion() string { return C.GoString(C.pl_version()) }
