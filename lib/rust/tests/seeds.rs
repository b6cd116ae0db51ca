//! The seeds' cases through the binding: a stream led 1/1/10 ends 4/4/4;
//! the legacy ring's homes and a fleet of independent deciders; a
//! one-member cluster's regions and its growth; the forwarding table.

mod common;

use common::*;
use placement::*;
use std::collections::{HashMap, HashSet};

// ---- broker: the seed's benchmark layout ------------------------------------

fn benchmark() -> Snapshot {
    let mut shards = Vec::new();
    shards.extend(stream("perf-quorum", &[1, 1, 10], 3));
    shards.extend(stream("orders", &[5, 5, 2], 3));
    shards.extend(stream("events", &[5, 5, 2], 3));
    shards.extend(stream("metrics", &[4, 4, 4], 3));
    shards.extend(stream("cache", &[6, 6, 1], 3));
    Snapshot::new(brokers(3), shards).unwrap()
}

#[test]
fn stream_led_1_1_10_ends_4_4_4() {
    let snap = benchmark();
    let mut view = snap.view().unwrap();
    let all = ["b0", "b1", "b2"];
    let totals: Vec<u32> = all.iter().map(|m| view.member_tally(m).unwrap().leaders).collect();
    assert_eq!(totals, [21, 21, 19]);
    let q: Vec<u32> = all
        .iter()
        .map(|m| view.stream_tally("perf-quorum", m).unwrap().leaders)
        .collect();
    assert_eq!(q, [1, 1, 10]);

    let plan = view.broker_dry_run(&BrokerConfig::default()).unwrap();
    assert_eq!(plan.status, Status::Balanced);
    assert_eq!(plan.status.to_string(), "balanced");
    assert_eq!(plan.ticks as usize, plan.actions.len(), "one move a tick");
    assert!(plan.actions.len() >= 8);
    for m in &all {
        assert_eq!(view.stream_tally("perf-quorum", m).unwrap().leaders, 4);
    }
    for s in snap.stream_ids() {
        assert!(spread(&view, Some(s), &all) <= 1, "stream {}", s);
    }
    assert!(spread(&view, None, &all) <= 1, "totals");
    // The first move is the seed's: perf-quorum's b2 hands one to b0 or b1.
    let a = &plan.actions[0];
    assert_eq!((a.kind.name(), a.reason.name()), ("move-leader", "stream-skew"));
    assert_eq!(a.stream.as_deref(), Some("perf-quorum"));
    assert_eq!(a.from_member(), Some("b2"));
    assert_eq!((a.from_count, a.floor, a.ceiling), (10, 4, 4));
    assert!(a.to_string().starts_with("move leader of perf-quorum/"), "{}", a);
    // No shard moves twice.
    let mut seen = HashSet::new();
    for a in &plan.actions {
        assert!(seen.insert(a.shard.clone()), "{} moved twice", a.shard);
    }
}

#[test]
fn cluster_totals_only_stay_lopsided() {
    let snap = benchmark();
    let mut view = snap.view().unwrap();
    let cfg = BrokerConfig::default().stream_balance(false);
    let plan = view.broker_dry_run(&cfg).unwrap();
    assert_eq!(plan.status, Status::Balanced);
    assert_eq!(view.stream_tally("perf-quorum", "b2").unwrap().leaders, 10);
}

// ---- fleet: the legacy ring and independent deciders -------------------------

fn legacy_fleet() -> (Vec<Member>, Vec<Shard>) {
    let members = (1..=4).map(|i| Member::new(format!("streams-{}", i))).collect();
    let shards = (0..64).map(|k| Shard::new(format!("{:02x}", k))).collect();
    (members, shards)
}

fn legacy() -> ViewOptions {
    ViewOptions::default().scorer(Scorer::LEGACY_FNV1A)
}

#[test]
fn known_answer_vectors() {
    let text = std::fs::read_to_string(root().join("tests/vectors.txt")).unwrap();
    let unhex = |s: &str| u64::from_str_radix(s, 16).unwrap();
    let key = |s: &str| if s == "-" { String::new() } else { s.to_owned() };
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split(' ').collect();
        match w[0] {
            "hash" => assert_eq!(hash(key(w[1]).as_bytes()), unhex(w[2]), "{}", line),
            "score" => {
                let s = score(hash(key(w[1]).as_bytes()), hash(w[2].as_bytes()));
                assert_eq!(s, unhex(w[3]), "{}", line)
            }
            "legacy" => assert_eq!(
                score_legacy(key(w[1]).as_bytes(), w[2].as_bytes()),
                unhex(w[3]),
                "{}",
                line
            ),
            "weight" => assert_eq!(
                score_weighted(unhex(w[1]), w[2].parse().unwrap()),
                w[3].parse::<i64>().unwrap(),
                "{}",
                line
            ),
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked > 50, "{} vectors", checked);
}

#[test]
fn legacy_ring_homes_are_the_seeds() {
    let (members, shards) = legacy_fleet();
    let snap = Snapshot::new(members, shards).unwrap();
    let view = snap.view_with(&legacy()).unwrap();
    assert_eq!(view.counts().scorer, Scorer::LEGACY_FNV1A);
    let mut count: HashMap<&str, u32> = HashMap::new();
    for key in snap.shard_keys() {
        let home = view.home(key).unwrap();
        *count.entry(home).or_default() += 1;
        // The home is the highest FNV-1a score (ties on the smaller id).
        let best = snap
            .member_ids()
            .iter()
            .max_by(|a, b| {
                let (sa, sb) = (
                    score_legacy(key.as_bytes(), a.as_bytes()),
                    score_legacy(key.as_bytes(), b.as_bytes()),
                );
                sa.cmp(&sb).then(b.cmp(a))
            })
            .unwrap();
        assert_eq!(home, best, "key {}", key);
        assert_eq!(view.fleet_owner(key).unwrap(), home);
    }
    // The seed fleet's skew, as its notes measured from the hash.
    let got: Vec<u32> = (1..=4).map(|i| count[format!("streams-{}", i).as_str()]).collect();
    assert_eq!(got, [17, 8, 7, 32]);
}

/// A fleet run tick by tick: every member decides on its own copy of the
/// tick's view; the actions are applied to the tick's view, whose
/// overrides make the next snapshot.
struct Fleet {
    members: Vec<Member>,
    shards: Vec<Shard>,
    overrides: Vec<Override>,
    cfg: FleetConfig,
    now: u64,
    last: HashMap<String, u64>,
    moves: u32,
    lag_moves: u32,
    returns: u32,
    ticks: u32,
}

impl Fleet {
    fn new(members: Vec<Member>, shards: Vec<Shard>, cfg: FleetConfig) -> Fleet {
        Fleet {
            members,
            shards,
            overrides: Vec::new(),
            cfg,
            now: 1000,
            last: HashMap::new(),
            moves: 0,
            lag_moves: 0,
            returns: 0,
            ticks: 0,
        }
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot::builder(self.members.clone(), self.shards.clone())
            .overrides(self.overrides.clone())
            .build()
            .unwrap()
    }

    fn owned(&self) -> Vec<u32> {
        let snap = self.snapshot();
        let mut view = snap.view_with(&legacy()).unwrap();
        let owners = view.fleet_owners().unwrap();
        snap.member_ids()
            .iter()
            .map(|m| owners.iter().filter(|o| **o == m.as_str()).count() as u32)
            .collect()
    }

    /// One tick; how many actions the fleet emitted.
    fn tick(&mut self) -> usize {
        let snap = self.snapshot();
        let mut view = snap.view_with(&legacy()).unwrap();
        let owned = {
            let owners = view.fleet_owners().unwrap();
            let mut c: HashMap<String, u32> = HashMap::new();
            for o in owners {
                *c.entry(o).or_default() += 1;
            }
            c
        };
        let mut actions = Vec::new();
        for m in snap.member_ids() {
            let mut copy = view.try_clone().unwrap();
            let cfg = self
                .cfg
                .now(self.now)
                .last_move(self.last.get(m).copied());
            let plan = copy.fleet_decide(m, &cfg).unwrap();
            assert_ne!(plan.status, Status::Full);
            if plan
                .actions
                .iter()
                .any(|a| a.reason != Reason::VoidOverride && a.reason != Reason::RedundantOverride)
            {
                self.last.insert(m.clone(), self.now);
            }
            actions.extend(plan.actions);
        }
        let mut hit = HashSet::new();
        let mut got: HashMap<String, u32> = HashMap::new();
        for a in &actions {
            assert!(hit.insert(a.shard.clone()), "tick {}: {} acted on twice", self.ticks, a.shard);
            view.apply(a).unwrap();
            match a.reason {
                Reason::Count | Reason::Spread => {
                    self.moves += 1;
                    *got.entry(a.to_member().unwrap().to_owned()).or_default() += 1;
                }
                Reason::ReturnHome => self.returns += 1,
                Reason::Lag => self.lag_moves += 1,
                _ => {}
            }
        }
        for (m, n) in &got {
            let share = view.member_tally(m).unwrap().ceiling;
            let had = owned.get(m.as_str()).copied().unwrap_or(0);
            assert!(had + n <= share, "{} pushed past its share: {} + {} > {}", m, had, n, share);
        }
        // The next document: the view's overrides, through the text format.
        let doc = view.format_overrides().unwrap();
        let read = view.read_overrides(&doc).unwrap();
        assert_eq!(read.skipped, 0);
        self.overrides = read.overrides;
        self.now += 1;
        self.ticks += 1;
        actions.len()
    }

    fn run(&mut self, quiet: u32, max: u32) {
        let mut still = 0;
        let mut n = 0;
        while still < quiet && n < max {
            still = if self.tick() == 0 { still + 1 } else { 0 };
            n += 1;
        }
        assert!(still >= quiet, "the fleet did not go quiet in {} ticks", max);
    }
}

#[test]
fn independent_deciders_even_out_the_legacy_ring() {
    for spread_on in [false, true] {
        let (members, shards) = legacy_fleet();
        let cfg = FleetConfig::default().cooldown(5).spread(spread_on);
        let mut f = Fleet::new(members, shards, cfg);
        assert_eq!(f.owned(), [17, 8, 7, 32]);
        f.run(7, 1000);
        assert_eq!(f.owned(), [16, 16, 16, 16], "spread {}", spread_on);
        assert_eq!(f.moves, 17);
        assert_eq!(f.lag_moves + f.returns, 0);
        // streams-4 moves once per cooldown: 16 moves take at least 75 ticks.
        assert!(f.ticks >= 75, "{} ticks", f.ticks);
    }
}

#[test]
fn count_pass_off_stays_over() {
    let (members, shards) = legacy_fleet();
    let mut f = Fleet::new(members, shards, FleetConfig::default().count_balance(false));
    for _ in 0..20 {
        f.tick();
    }
    assert_eq!(f.owned()[3], 32);
    assert_eq!(f.moves, 0);
}

// ---- regions: one member, then three ------------------------------------------

fn region_tick(members: &[Member], shards: Vec<Shard>, cfg: &RegionConfig) -> (Plan, Vec<Shard>) {
    let snap = Snapshot::new(members.to_vec(), shards).unwrap();
    let mut view = snap.view().unwrap();
    let plan = view.region_plan(cfg).unwrap();
    let next = shards_after(&snap, &view);
    (plan, next)
}

#[test]
fn one_member_owns_its_regions_then_growth_adds_peers() {
    for rf in [1u32, 3, 5] {
        let cfg = RegionConfig::default().replication_factor(rf);
        let solo = vec![Member::new("solo").zone("z1").joined_at(1)];
        let mut shards: Vec<Shard> = (0..6).map(|i| Shard::new(format!("new/{}", i))).collect();
        shards.extend((0..4).map(|i| Shard::new(format!("own/{}", i)).replicas(&["solo"]).leader("solo")));
        {
            let snap = Snapshot::new(solo.clone(), shards.clone()).unwrap();
            assert_eq!(snap.view().unwrap().region_effective_rf(&cfg).unwrap(), 1);
        }
        let (plan, shards) = region_tick(&solo, shards, &cfg);
        assert_eq!(plan.actions.len(), 6);
        for a in &plan.actions {
            assert_eq!((a.kind.name(), a.reason.name()), ("add-replica", "under-rf"));
            assert_eq!(a.to_member(), Some("solo"));
            assert_eq!(a.total, 1);
            assert!(a.stage_first);
        }
        assert_eq!(plan.blocked, 0);
        assert_eq!(plan.status, Status::Balanced);
        let (plan, shards) = region_tick(&solo, shards, &cfg);
        assert_eq!(plan.actions.len(), 6);
        for a in &plan.actions {
            assert_eq!((a.kind.name(), a.reason.name()), ("set-leader", "no-primary"));
            assert_eq!(a.from_member(), None);
            assert_eq!(a.to_member(), Some("solo"));
            assert!(!a.stage_first);
        }
        let (plan, shards) = region_tick(&solo, shards, &cfg);
        assert!(plan.actions.is_empty());
        for s in &shards {
            assert_eq!(s.replicas, ["solo"], "{}: peers = [self]", s.key);
            assert_eq!(s.leader.as_deref(), Some("solo"));
        }

        // Two members join: every region grows to min(rf, 3) peers.
        let three = vec![
            Member::new("solo").zone("z1").joined_at(1),
            Member::new("n2").zone("z2").joined_at(2),
            Member::new("n3").zone("z3").joined_at(3),
        ];
        let mut shards = shards;
        let mut adds = 0;
        for _ in 0..50 {
            let (plan, next) = region_tick(&three, shards, &cfg);
            shards = next;
            adds += plan.actions.iter().filter(|a| matches!(a.kind, ActionKind::AddReplica { .. })).count();
            if plan.actions.is_empty() {
                break;
            }
        }
        let want = rf.min(3) as usize;
        assert_eq!(adds, 10 * (want - 1), "rf {}", rf);
        for s in &shards {
            assert_eq!(s.replicas.len(), want, "{}", s.key);
        }
        // Every member holds at least its fair share, floor(10 * want / 3).
        for m in ["solo", "n2", "n3"] {
            let held = shards.iter().filter(|s| s.replicas.iter().any(|r| r == m)).count();
            assert!(held >= 10 * want / 3, "rf {}: {} holds {}", rf, m, held);
        }
        if want == 3 {
            // Primaries followed the newest peer (n3) while it led fewer
            // (5/0/5), then evened out within the peer sets: within one.
            let led = |m: &str| shards.iter().filter(|s| s.leader.as_deref() == Some(m)).count();
            assert_eq!((led("solo"), led("n2"), led("n3")), (3, 3, 4));
        }
    }
}

#[test]
fn check_add_peer_names_the_refusal() {
    let members = vec![Member::new("a"), Member::new("b").map_version(1), Member::new("c").lagging()];
    let shards = vec![
        Shard::new("r/0").replicas(&["a"]).leader("a").epoch(2),
        Shard::new("r/1").replicas(&["a"]).leader("a").transfer_debt(),
        Shard::new("r/2").replicas(&["a"]).leader("a").not_idempotent(),
    ];
    let snap = Snapshot::new(members, shards).unwrap();
    let view = snap.view().unwrap();
    let e = view.check_add_peer("r/0", "b", 1).unwrap_err();
    assert_eq!(e.name(), "E_EPOCH_STALE");
    assert_eq!(view.check_add_peer("r/0", "a", 2).unwrap_err().name(), "E_PEER_DUPLICATE");
    assert_eq!(view.check_add_peer("r/0", "b", 2).unwrap_err().name(), "E_NOT_READY");
    assert_eq!(view.check_add_peer("r/0", "c", 2).unwrap_err().name(), "E_MEMBER_UNAVAILABLE");
    assert_eq!(view.check_add_peer("r/1", "b", 0).unwrap_err().name(), "E_TRANSFER_DEBT");
    assert_eq!(view.check_add_peer("r/2", "b", 0).unwrap_err().name(), "E_NOT_IDEMPOTENT");
    let e = view.check_add_peer("r/9", "b", 0).unwrap_err();
    assert_eq!((e.name(), e.id()), ("E_NOT_FOUND", Some("r/9")));
    let ok = Snapshot::new(vec![Member::new("a"), Member::new("b").map_version(5)], vec![
        Shard::new("r/0").replicas(&["a"]).leader("a").epoch(2),
    ])
    .unwrap();
    ok.view().unwrap().check_add_peer("r/0", "b", 2).unwrap();
}

// ---- routing: the one-hop forwarding table -------------------------------------

fn req(answer: Answer, known: bool, fw: bool, body: Body, outcome: Outcome) -> RouteRequest {
    RouteRequest::default()
        .answer(answer)
        .owner_known(known)
        .forwarded(fw)
        .body(body)
        .outcome(outcome)
}

#[test]
fn forwarding_table_rows() {
    use Answer::*;
    use Body::*;
    let d = |r: RouteRequest| route_decide(&r).unwrap();
    let v = d(req(NotOwner, true, false, Unread, Outcome::None).data_plane(false));
    assert_eq!((v.verdict, v.rule, v.status, v.mark), (VerdictKind::Serve, "not-data-plane", 0, false));
    let v = d(req(Served, true, false, Unread, Outcome::None));
    assert_eq!((v.verdict, v.rule), (VerdictKind::Serve, "served"));
    let v = d(req(NotOwner, true, false, Unread, Outcome::None));
    assert_eq!((v.verdict, v.rule, v.mark, v.send_body, v.status), (VerdictKind::Forward, "forward", true, SendBody::Stream, 0));
    let v = d(req(NotOwner, true, false, Whole, Outcome::None));
    assert_eq!((v.verdict, v.mark, v.send_body), (VerdictKind::Forward, true, SendBody::Frames));
    let v = d(req(NotOwner, true, true, Unread, Outcome::None));
    assert_eq!((v.verdict, v.rule, v.status, v.mark), (VerdictKind::Replay, "already-forwarded", 409, false));
    let v = d(req(NotOwner, false, false, Unread, Outcome::None));
    assert_eq!((v.verdict, v.rule, v.status), (VerdictKind::Replay, "owner-unknown", 409));
    let v = d(req(NotOwner, true, false, PastLimit, Outcome::None));
    assert_eq!((v.verdict, v.rule, v.status), (VerdictKind::Replay, "body-past-limit", 409));
    let v = d(req(NotOwner, true, false, Partial, Outcome::None));
    assert_eq!((v.verdict, v.rule), (VerdictKind::Replay, "body-partial"));
    let v = d(req(NotOwner, true, false, Unread, Outcome::Refused));
    assert_eq!((v.verdict, v.rule, v.status), (VerdictKind::Replay, "refused", 409));
    let v = d(req(NotOwner, true, false, Whole, Outcome::Failed));
    assert_eq!((v.verdict, v.rule, v.status, v.retry_after, v.mark), (VerdictKind::Failed, "failed-after-send", 503, 1, false));
    let v = d(req(NotOwner, true, false, Unread, Outcome::Answered));
    assert_eq!((v.verdict, v.rule, v.status), (VerdictKind::Relay, "owner-answered", 0));
}

#[test]
fn forwarding_table_every_combination() {
    let answers = [Answer::Served, Answer::NotOwner];
    let bodies = [Body::Unread, Body::Whole, Body::PastLimit, Body::Partial];
    let outcomes = [Outcome::None, Outcome::Answered, Outcome::Refused, Outcome::Failed];
    let (mut combos, mut forwards) = (0, 0);
    for dp in [false, true] {
        for an in answers {
            for ok in [false, true] {
                for fw in [false, true] {
                    for b in bodies {
                        for oc in outcomes {
                            combos += 1;
                            let r = req(an, ok, fw, b, oc).data_plane(dp);
                            let forwardable = dp
                                && an == Answer::NotOwner
                                && ok
                                && !fw
                                && (b == Body::Unread || b == Body::Whole);
                            if oc != Outcome::None && !forwardable {
                                let e = route_decide(&r).unwrap_err();
                                assert_eq!(e.name(), "E_ROUTE_OUTCOME");
                                assert_eq!((e.kind(), e.index()), (ElementKind::Config, Some(6)));
                                continue;
                            }
                            let v = route_decide(&r).unwrap();
                            if fw {
                                assert_ne!(v.verdict, VerdictKind::Forward, "a marked request is never forwarded");
                            }
                            assert_eq!(v.verdict == VerdictKind::Forward, forwardable && oc == Outcome::None);
                            assert_eq!(v.mark, v.verdict == VerdictKind::Forward);
                            assert_eq!(v.verdict == VerdictKind::Failed, oc == Outcome::Failed);
                            assert_eq!(v.status == 409, v.verdict == VerdictKind::Replay);
                            if !dp || an != Answer::NotOwner {
                                assert_eq!(v.verdict, VerdictKind::Serve);
                            }
                            forwards += (v.verdict == VerdictKind::Forward) as u32;
                            assert_ne!(v.rule, "unknown");
                        }
                    }
                }
            }
        }
    }
    assert_eq!(combos, 256);
    assert_eq!(forwards, 2);
}

#[test]
fn route_lookup_follows_overrides() {
    let members: Vec<Member> = (0..5).map(|i| Member::new(format!("i-{}", i))).collect();
    let shards: Vec<Shard> = (0..50).map(|k| Shard::new(format!("st-{:02}", k))).collect();
    let snap = Snapshot::new(members.clone(), shards.clone()).unwrap();
    let home = snap.view().unwrap().home("st-07").unwrap().to_owned();
    let hi: usize = home[2..].parse().unwrap();
    let x = format!("i-{}", (hi + 2) % 5);
    let snap = Snapshot::builder(members, shards)
        .overrides(vec![Override::new("st-07", x.clone()).origin(Origin::Count).since(3)])
        .build()
        .unwrap();
    let view = snap.view().unwrap();
    let o = view.route_lookup("st-07", Some(&home)).unwrap();
    assert_eq!((o.owner, o.home, o.shard, o.is_self), (x.as_str(), home.as_str(), Some("st-07"), false));
    assert!(view.route_lookup("st-07", Some(&x)).unwrap().is_self);
    let o = view.route_lookup("not-a-shard", None).unwrap();
    assert_eq!(o.shard, None);
    assert_eq!(o.owner, o.home);
    assert_eq!(view.route_lookup("st-07", Some("nobody")).unwrap_err().name(), "E_NOT_FOUND");
}
