//! The webhook benchmark's receiver: registers itself for `move.played` on
//! a running service (started with `--admin-key KEY --webhook-allow-private`),
//! answers every delivery 204, and once `--expect` distinct events have
//! arrived (or nothing came for `--idle` seconds) prints one JSON line: the
//! events, duplicates, and the delivery lag (arrival minus the event's
//! timestamp) p50 / p99 / max in milliseconds. Used by scripts/bench-webhooks.
//!
//!   cargo run --release -p tabula-tools --example webhook-sink -- --url URL --admin-key KEY --expect N

#![allow(
    clippy::unwrap_used,
    reason = "a benchmark tool: a failure is its message"
)]

use std::time::{Duration, UNIX_EPOCH};

use clap::Parser;

#[path = "../../../tests/common/receiver.rs"]
mod receiver;

#[derive(Parser)]
struct Args {
    /// The service.
    #[arg(long)]
    url: String,
    #[arg(long)]
    admin_key: String,
    /// Stop once this many distinct events arrived; 0: wait for a line on
    /// standard input giving the number.
    #[arg(long, default_value_t = 0)]
    expect: usize,
    /// Give up after this many seconds without a new delivery.
    #[arg(long, default_value_t = 30)]
    idle: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let sink = receiver::Receiver::start().await;
    let res = reqwest::Client::new()
        .post(format!("{}/v1/webhooks", args.url))
        .bearer_auth(&args.admin_key)
        .json(&serde_json::json!({"url": sink.url, "events": ["move.played"]}))
        .send()
        .await?;
    anyhow::ensure!(res.status() == 201, "registration: {}", res.text().await?);
    eprintln!("webhook-sink: registered {}", sink.url);
    let expect = if args.expect > 0 {
        args.expect
    } else {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        line.trim().parse()?
    };
    let mut last = (0, std::time::Instant::now());
    loop {
        let n = sink.got.lock().unwrap().len();
        if n != last.0 {
            last = (n, std::time::Instant::now());
        }
        let distinct: std::collections::HashSet<String> = sink
            .got()
            .iter()
            .map(|g| g.header("webhook-id").to_owned())
            .collect();
        if distinct.len() >= expect || last.1.elapsed() > Duration::from_secs(args.idle) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let got = sink.got();
    let mut seen = std::collections::HashSet::new();
    let mut lags: Vec<f64> = Vec::new();
    for g in &got {
        if !seen.insert(g.header("webhook-id").to_owned()) {
            continue;
        }
        let body = g.json();
        let at = chrono::DateTime::parse_from_rfc3339(body["timestamp"].as_str().unwrap())?;
        let arrived = g.at.duration_since(UNIX_EPOCH)?.as_secs_f64();
        let happened = at.timestamp_micros() as f64 / 1e6;
        lags.push((arrived - happened) * 1000.0);
    }
    lags.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        lags.get(((lags.len() as f64 * p).ceil() as usize).saturating_sub(1))
            .copied()
            .unwrap_or(f64::NAN)
    };
    println!(
        "{}",
        serde_json::json!({
            "expected": expect,
            "events": seen.len(),
            "deliveries": got.len(),
            "duplicates": got.len() - seen.len(),
            "lag_ms_p50": pct(0.5),
            "lag_ms_p99": pct(0.99),
            "lag_ms_max": lags.last().copied().unwrap_or(f64::NAN),
        })
    );
    Ok(())
}
