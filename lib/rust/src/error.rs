//! [`Error`]: a C error code with its name and the element it names.

use crate::sys;
use crate::sys::safe;
use std::fmt;

/// Which part of the input an [`Error`] is about (`PL_ELEM_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElementKind {
    /// Nothing in particular (`PL_ELEM_NONE`).
    None,
    /// One of the snapshot's arrays (`PL_ELEM_SNAPSHOT`; index 0..4 =
    /// members, streams, shards, overrides, copies).
    Snapshot,
    /// A member (`PL_ELEM_MEMBER`).
    Member,
    /// A stream (`PL_ELEM_STREAM`).
    Stream,
    /// A shard (`PL_ELEM_SHARD`).
    Shard,
    /// An override (`PL_ELEM_OVERRIDE`).
    Override,
    /// A field of a config (`PL_ELEM_CONFIG`; index = its place, 0 = version;
    /// [`Error::field`] its name).
    Config,
    /// A function argument (`PL_ELEM_ARGUMENT`; index from 1).
    Argument,
    /// A copy in flight (`PL_ELEM_COPY`; index into the snapshot's copies,
    /// [`Error::id`] its shard's key).
    Copy,
    /// A `PL_ELEM_*` value this crate does not know yet.
    Other(u32),
}

impl ElementKind {
    pub(crate) fn from_c(kind: u32) -> ElementKind {
        match kind {
            sys::PL_ELEM_NONE => ElementKind::None,
            sys::PL_ELEM_SNAPSHOT => ElementKind::Snapshot,
            sys::PL_ELEM_MEMBER => ElementKind::Member,
            sys::PL_ELEM_STREAM => ElementKind::Stream,
            sys::PL_ELEM_SHARD => ElementKind::Shard,
            sys::PL_ELEM_OVERRIDE => ElementKind::Override,
            sys::PL_ELEM_CONFIG => ElementKind::Config,
            sys::PL_ELEM_ARGUMENT => ElementKind::Argument,
            sys::PL_ELEM_COPY => ElementKind::Copy,
            other => ElementKind::Other(other),
        }
    }

    fn word(self) -> &'static str {
        match self {
            ElementKind::None => "",
            ElementKind::Snapshot => "snapshot array",
            ElementKind::Member => "member",
            ElementKind::Stream => "stream",
            ElementKind::Shard => "shard",
            ElementKind::Override => "override",
            ElementKind::Config => "config field",
            ElementKind::Argument => "argument",
            ElementKind::Copy => "copy",
            ElementKind::Other(_) => "element",
        }
    }
}

/// An error of the library: the C code, its name as `pl_error_name()` gives
/// it ("E_DUP_MEMBER"), and the element it names: kind, index and id.
///
/// ```
/// use placement::{Member, Shard, Snapshot};
/// let err = Snapshot::new(vec![Member::new("b0"), Member::new("b0")], vec![]).unwrap_err();
/// assert_eq!(err.name(), "E_DUP_MEMBER");
/// assert_eq!(err.id(), Some("b0"));
/// assert_eq!(err.index(), Some(1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: i32,
    kind: ElementKind,
    index: Option<u32>,
    other: Option<u32>,
    id: Option<String>,
    reference: Option<String>,
    field: Option<&'static str>,
}

/// The fields of each config struct, by their index in a `PL_ELEM_CONFIG`
/// diag (0 = version): the C field names, which are the crate's.
pub(crate) const BROKER_FIELDS: &[&str] = &[
    "version", "max_moves", "max_moves_in", "max_moves_out", "paused",
    "replication_factor", "stream_balance", "replica_balance", "handoff_only",
    "bytes_balance", "bytes_first", "full_ratio", "bytes_tolerance", "reserved",
    "max_bytes_in_flight", "max_bytes_in", "max_bytes_out", "tolerance", "stream_tolerance",
];
pub(crate) const FLEET_FIELDS: &[&str] = &[
    "version", "self", "now", "last_move", "cooldown", "moves_per_decision", "spread",
    "return_home_age", "count_balance", "reserved",
];
pub(crate) const REGION_FIELDS: &[&str] = &[
    "version", "replication_factor", "add_peer_proposals", "load_balance", "load_threshold",
    "max_actions",
];
pub(crate) const ROUTE_FIELDS: &[&str] = &[
    "version", "data_plane", "answer", "owner_known", "forwarded", "body", "outcome", "reserved",
];
pub(crate) const VIEW_OPTION_FIELDS: &[&str] = &["version", "scorer", "reuse", "max_replicas", "reserved"];

impl Error {
    /// An error with a code and nothing else.
    pub(crate) fn code(code: i32) -> Error {
        Error {
            code,
            kind: ElementKind::None,
            index: None,
            other: None,
            id: None,
            reference: None,
            field: None,
        }
    }

    /// An error from a pl_diag the call filled (its code may be 0 when the
    /// call filled no diag; `rc` is then the code).
    pub(crate) fn from_diag(rc: i32, d: &sys::pl_diag) -> Error {
        let filled = d.code == rc;
        Error {
            code: rc,
            kind: if filled {
                ElementKind::from_c(d.kind)
            } else {
                ElementKind::None
            },
            index: if filled && d.kind != sys::PL_ELEM_NONE {
                Some(d.index)
            } else {
                None
            },
            other: if filled && d.other != sys::PL_NONE {
                Some(d.other)
            } else {
                None
            },
            id: None,
            reference: None,
            field: None,
        }
    }

    /// Names the config field a `PL_ELEM_CONFIG` error's index points at,
    /// from the fields of the config the call was given.
    pub(crate) fn in_config(mut self, fields: &'static [&'static str]) -> Error {
        if self.kind == ElementKind::Config {
            self.field = self.index.and_then(|i| fields.get(i as usize)).copied();
        }
        self
    }

    pub(crate) fn at(mut self, kind: ElementKind, index: Option<u32>) -> Error {
        self.kind = kind;
        self.index = index;
        self
    }

    pub(crate) fn with_id(mut self, id: Option<String>) -> Error {
        self.id = id;
        self
    }

    pub(crate) fn with_reference(mut self, r: impl Into<String>) -> Error {
        self.reference = Some(r.into());
        self
    }

    /// The negative `PL_E*` code.
    pub fn raw_code(&self) -> i32 {
        self.code
    }

    /// The code's name without the `PL_` prefix, from `pl_error_name()`.
    pub fn name(&self) -> &'static str {
        safe::error_name(self.code)
    }

    /// The library's one-line message for the code, from `pl_strerror()`.
    pub fn message(&self) -> &'static str {
        safe::strerror(self.code)
    }

    /// Which kind of element the error names.
    pub fn kind(&self) -> ElementKind {
        self.kind
    }

    /// The element's index in its array (as the crate passed the arrays to
    /// C: the order of the vectors given to [`crate::Snapshot`]), when the
    /// error names one.
    pub fn index(&self) -> Option<u32> {
        self.index
    }

    /// For a duplicate: the index of the earlier element it clashes with;
    /// for an override document error: the 1-based line number.
    pub fn other(&self) -> Option<u32> {
        self.other
    }

    /// The id (member or stream id, shard key) of the element named, when
    /// it has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// For a config error ([`ElementKind::Config`]): the name of the field
    /// refused, e.g. "max_moves" (its index is [`Error::index`], 0 being
    /// the struct's version).
    ///
    /// ```
    /// use placement::{BrokerConfig, Member, Snapshot};
    /// let snap = Snapshot::new(vec![Member::new("b0")], vec![])?;
    /// let err = placement::broker_plan(&snap, &BrokerConfig::default().max_moves(0)).unwrap_err();
    /// assert_eq!((err.name(), err.field()), ("E_CONFIG", Some("max_moves")));
    /// assert!(err.to_string().ends_with("(config 'max_moves')"), "{}", err);
    /// # Ok::<(), placement::Error>(())
    /// ```
    pub fn field(&self) -> Option<&'static str> {
        self.field
    }

    /// For an element that refers to an id the snapshot lacks (a replica
    /// naming an unknown member, say): that id.
    pub fn reference(&self) -> Option<&str> {
        self.reference.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name(), self.message())?;
        if let (ElementKind::Config, Some(field)) = (self.kind, self.field) {
            write!(f, " (config '{}')", field)?;
        } else if self.kind != ElementKind::None {
            write!(f, " ({}", self.kind.word())?;
            if let Some(i) = self.index {
                write!(f, " {}", i)?;
            }
            if let Some(id) = &self.id {
                write!(f, " {}", Shown(id))?;
            }
            if let Some(r) = &self.reference {
                write!(f, ", names unknown {}", Shown(r))?;
            }
            if let Some(o) = self.other {
                write!(f, ", clashes with {}", o)?;
            }
            write!(f, ")")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// An id in a message: quoted as `{:?}` writes it, cut after its first
/// `SHOWN` characters with its length in bytes (the error keeps it whole).
struct Shown<'a>(&'a str);

const SHOWN: usize = 48;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(SHOWN) {
            Some((cut, _)) => write!(f, "{:?}... ({} bytes)", &self.0[..cut], self.0.len()),
            None => write!(f, "{:?}", self.0),
        }
    }
}
