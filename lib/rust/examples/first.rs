use placement::{BrokerConfig, Member, Shard, Snapshot};

fn main() -> Result<(), placement::Error> {
    let members = vec![Member::new("b0"), Member::new("b1"), Member::new("b2")];
    let lead = |i: usize| if i == 0 { "b0" } else if i == 1 { "b1" } else { "b2" };
    let shards: Vec<Shard> = (0..12)
        .map(|i| Shard::new(format!("perf/{:02}", i)).stream("perf").replicas(&["b0", "b1", "b2"]).leader(lead(i)))
        .collect();
    let snap = Snapshot::new(members, shards)?;
    let plan = placement::broker_dry_run(&snap, &BrokerConfig::default())?;
    for a in &plan.actions {
        println!("{} {} {:?} -> {:?} | {}", a.kind, a.shard, a.from_member(), a.to_member(), a);
    }
    println!("{}", plan.status); // balanced
    Ok(())
}
