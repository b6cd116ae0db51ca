//! The example the READMEs show is examples/first.rs, word for word (check-rust
//! runs it), and it prints what they say.

mod common;

fn rust_block_after(text: &str, heading: &str) -> String {
    let at = text.find(heading).unwrap_or_else(|| panic!("no {:?}", heading));
    let rest = &text[at..];
    let start = rest.find("```rust\n").expect("a rust block") + "```rust\n".len();
    let end = rest[start..].find("```").unwrap();
    rest[start..start + end].to_owned()
}

#[test]
fn readmes_show_examples_first_rs() {
    let first = std::fs::read_to_string(common::root().join("lib/rust/examples/first.rs")).unwrap();
    let top = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    assert_eq!(rust_block_after(&top, "## Rust"), first, "README.md's Rust section");
    let crate_readme = std::fs::read_to_string(common::root().join("lib/rust/README.md")).unwrap();
    assert_eq!(rust_block_after(&crate_readme, "# placement"), first, "lib/rust/README.md");
}

#[test]
fn the_example_ends_balanced() {
    use placement::{ActionKind, BrokerConfig, Member, Shard, Snapshot};
    let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
    let lead = |i: usize| if i == 0 { "b0" } else if i == 1 { "b1" } else { "b2" };
    let shards: Vec<Shard> = (0..12)
        .map(|i| Shard::new(format!("perf/{:02}", i)).stream("perf").replicas(&["b0", "b1", "b2"]).leader(lead(i)))
        .collect();
    let snap = Snapshot::new(members, shards).unwrap();
    let plan = placement::broker_dry_run(&snap, &BrokerConfig::default()).unwrap();
    assert_eq!(plan.actions.len(), 6, "1/1/10 -> 4/4/4");
    assert!(plan.actions.iter().all(|a| matches!(&a.kind, ActionKind::MoveLeader { from, .. } if from == "b2")));
    assert_eq!(plan.status.to_string(), "balanced");
}
