//! Routing one request: who owns a key's shard now, and the one-hop
//! forwarding decision (`placement/route.h`).

use crate::error::{Error, ROUTE_FIELDS};
use crate::sys;
use crate::sys::safe;
use crate::view::View;

/// What the handler answered (`PL_ROUTE_ANSWER_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Anything but a 409 naming the owner (a 404 names none).
    Served,
    /// 409 not-owner naming the owner.
    NotOwner,
}

/// How much of the request body the handler read (`PL_ROUTE_BODY_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Body {
    /// None of it (or the request has none).
    Unread,
    /// All of it, within the 64 KiB limit.
    Whole,
    /// More than the 64 KiB limit.
    PastLimit,
    /// Part of it.
    Partial,
}

/// On the second call, how the forward went (`PL_ROUTE_OUTCOME_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// First call: nothing was forwarded.
    None,
    /// The owner answered.
    Answered,
    /// Refused before the request was sent.
    Refused,
    /// Failed after the request was sent.
    Failed,
}

/// The state of one request; `Default` is `pl_route_request_init()` (a
/// data-plane request the handler served).
///
/// ```
/// use placement::{route_decide, Answer, RouteRequest, VerdictKind};
/// let req = RouteRequest::default().answer(Answer::NotOwner).owner_known(true);
/// let v = route_decide(&req)?;
/// assert_eq!(v.verdict, VerdictKind::Forward);
/// assert_eq!(v.rule, "forward");
/// # Ok::<(), placement::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteRequest {
    /// A data-plane route.
    pub data_plane: bool,
    /// What the handler answered.
    pub answer: Answer,
    /// The trusted peer table holds the owner's address.
    pub owner_known: bool,
    /// The request is already marked forwarded.
    pub forwarded: bool,
    /// How much of the body the handler read.
    pub body: Body,
    /// The forward's outcome (second call).
    pub outcome: Outcome,
    version: u32,
}

impl Default for RouteRequest {
    fn default() -> RouteRequest {
        let r = safe::route_request_init();
        RouteRequest {
            data_plane: r.data_plane != 0,
            answer: if r.answer == sys::PL_ROUTE_ANSWER_NOT_OWNER {
                Answer::NotOwner
            } else {
                Answer::Served
            },
            owner_known: r.owner_known != 0,
            forwarded: r.forwarded != 0,
            body: match r.body {
                sys::PL_ROUTE_BODY_WHOLE => Body::Whole,
                sys::PL_ROUTE_BODY_PAST_LIMIT => Body::PastLimit,
                sys::PL_ROUTE_BODY_PARTIAL => Body::Partial,
                _ => Body::Unread,
            },
            outcome: match r.outcome {
                sys::PL_ROUTE_OUTCOME_ANSWERED => Outcome::Answered,
                sys::PL_ROUTE_OUTCOME_REFUSED => Outcome::Refused,
                sys::PL_ROUTE_OUTCOME_FAILED => Outcome::Failed,
                _ => Outcome::None,
            },
            version: r.version,
        }
    }
}

impl RouteRequest {
    /// Sets `data_plane`.
    pub fn data_plane(mut self, on: bool) -> RouteRequest {
        self.data_plane = on;
        self
    }
    /// Sets `answer`.
    pub fn answer(mut self, a: Answer) -> RouteRequest {
        self.answer = a;
        self
    }
    /// Sets `owner_known`.
    pub fn owner_known(mut self, on: bool) -> RouteRequest {
        self.owner_known = on;
        self
    }
    /// Sets `forwarded`.
    pub fn forwarded(mut self, on: bool) -> RouteRequest {
        self.forwarded = on;
        self
    }
    /// Sets `body`.
    pub fn body(mut self, b: Body) -> RouteRequest {
        self.body = b;
        self
    }
    /// Sets `outcome`.
    pub fn outcome(mut self, o: Outcome) -> RouteRequest {
        self.outcome = o;
        self
    }
    /// The C struct.
    pub fn to_raw(&self) -> sys::pl_route_request {
        sys::pl_route_request {
            version: self.version,
            data_plane: self.data_plane as u32,
            answer: match self.answer {
                Answer::Served => sys::PL_ROUTE_ANSWER_SERVED,
                Answer::NotOwner => sys::PL_ROUTE_ANSWER_NOT_OWNER,
            },
            owner_known: self.owner_known as u32,
            forwarded: self.forwarded as u32,
            body: match self.body {
                Body::Unread => sys::PL_ROUTE_BODY_UNREAD,
                Body::Whole => sys::PL_ROUTE_BODY_WHOLE,
                Body::PastLimit => sys::PL_ROUTE_BODY_PAST_LIMIT,
                Body::Partial => sys::PL_ROUTE_BODY_PARTIAL,
            },
            outcome: match self.outcome {
                Outcome::None => sys::PL_ROUTE_OUTCOME_NONE,
                Outcome::Answered => sys::PL_ROUTE_OUTCOME_ANSWERED,
                Outcome::Refused => sys::PL_ROUTE_OUTCOME_REFUSED,
                Outcome::Failed => sys::PL_ROUTE_OUTCOME_FAILED,
            },
            reserved: 0,
        }
    }
}

/// What to do with a request (`PL_ROUTE_SERVE` ... `PL_ROUTE_FAILED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VerdictKind {
    /// Answer with the handler's answer as it is.
    Serve,
    /// Forward once to the owner, marked forwarded.
    Forward,
    /// Answer with the owner's answer, adding the owner as forwarded-to.
    Relay,
    /// Answer 409 naming the owner to replay to.
    Replay,
    /// Answer 503 forward_failed with Retry-After.
    Failed,
    /// A verdict this crate does not know yet.
    Other(u32),
}

/// How a forward sends the body (`PL_ROUTE_SEND_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SendBody {
    /// Not a forward.
    None,
    /// Stream the unread body to the owner.
    Stream,
    /// Send the frames the handler read.
    Frames,
    /// A value this crate does not know yet.
    Other(u32),
}

/// The decision for one request (`pl_route_verdict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// What to do.
    pub verdict: VerdictKind,
    /// The row of the table that decided, from `pl_route_rule_name()`
    /// ("already-forwarded", ...).
    pub rule: &'static str,
    /// The HTTP status to answer: 409, 503, or 0 (the handler's or owner's).
    pub status: u32,
    /// Seconds of Retry-After with a 503, else 0.
    pub retry_after: u32,
    /// With a forward: mark the request forwarded.
    pub mark: bool,
    /// How a forward sends the body.
    pub send_body: SendBody,
}

/// The one-hop forwarding decision for one request (`pl_route_decide()`).
/// An outcome for a request the table would not forward is
/// `E_ROUTE_OUTCOME` (config field 6).
pub fn route_decide(req: &RouteRequest) -> Result<Verdict, Error> {
    let mut d = sys::pl_diag::default();
    let v = safe::route_decide(&req.to_raw(), &mut d).map_err(|rc| Error::from_diag(rc, &d).in_config(ROUTE_FIELDS))?;
    Ok(Verdict {
        verdict: match v.verdict {
            sys::PL_ROUTE_SERVE => VerdictKind::Serve,
            sys::PL_ROUTE_FORWARD => VerdictKind::Forward,
            sys::PL_ROUTE_RELAY => VerdictKind::Relay,
            sys::PL_ROUTE_REPLAY => VerdictKind::Replay,
            sys::PL_ROUTE_FAILED => VerdictKind::Failed,
            other => VerdictKind::Other(other),
        },
        rule: safe::route_rule_name(v.rule),
        status: v.status,
        retry_after: v.retry_after,
        mark: v.mark != 0,
        send_body: match v.send_body {
            sys::PL_ROUTE_SEND_NONE => SendBody::None,
            sys::PL_ROUTE_SEND_STREAM => SendBody::Stream,
            sys::PL_ROUTE_SEND_FRAMES => SendBody::Frames,
            other => SendBody::Other(other),
        },
    })
}

/// Who owns a key's shard now (`pl_route_owner`); its ids borrow the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteOwner<'s> {
    /// The owner: the peer to forward to.
    pub owner: &'s str,
    /// The key's ring home.
    pub home: &'s str,
    /// The shard's key, or `None` for a key the snapshot lacks.
    pub shard: Option<&'s str>,
    /// The owner is the asking member.
    pub is_self: bool,
}

impl View {
    /// Who owns the shard with this key now, and whether `self_member` is it
    /// (`pl_route_lookup()`); `None` for a router that is not a member. A key
    /// the snapshot lacks is owned by its ring home.
    pub fn route_lookup(
        &self,
        key: &str,
        self_member: Option<&str>,
    ) -> Result<RouteOwner<'_>, Error> {
        let me = match self_member {
            Some(m) => self.member_index(m)?,
            None => sys::PL_NONE,
        };
        let mut d = sys::pl_diag::default();
        let o = self
            .raw
            .route_lookup(key.as_bytes(), me, &mut d)
            .map_err(|rc| Error::from_diag(rc, &d).with_id(Some(key.to_owned())))?;
        let snap = self.snapshot();
        Ok(RouteOwner {
            owner: self.member_id(o.owner)?,
            home: self.member_id(o.home)?,
            shard: if o.shard == sys::PL_NONE {
                None
            } else {
                snap.shard_key(o.shard)
            },
            is_self: o.is_self != 0,
        })
    }
}
