//! Load generator: plays many whole games through HTTP at once and reports
//! accepted moves per second and latency percentiles, next to the machine's
//! raw SQLite rate (one-row transactions on a file, WAL, the same
//! `synchronous` setting as the service) measured in the same run, so the
//! result reads as a ratio that holds across machines.
//!
//! ```sh
//! cargo run --release --example load -- --games 200 --concurrency 64
//! cargo run --release --example load -- --url http://127.0.0.1:8080 --url http://127.0.0.1:8081
//! ```
//! Without `--url` it starts the service in-process on a temporary SQLite file.

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use sqlx::ConnectOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};

#[derive(Parser, Debug)]
#[command(about = "Plays many games through HTTP at once and reports moves/s and latency")]
struct Args {
    /// Games to play to their end.
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// Clients playing at once (each with its own connection).
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Kind of game.
    #[arg(long, default_value = "connect_four")]
    kind: String,
    /// Base URL(s) of running services; clients are spread over them.
    /// Without any, the service is started in-process on a temporary file.
    #[arg(long)]
    url: Vec<String>,
    /// Seconds to measure the raw SQLite rate (0: skip).
    #[arg(long, default_value_t = 3.0)]
    sqlite_secs: f64,
    /// Worker threads of the in-process service (0: one per core).
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// Seed of the move choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON line instead of the table.
    #[arg(long)]
    json: bool,
}

/// One-row write transactions per second on a fresh file with the service's
/// settings, through the same driver, one connection.
async fn raw_sqlite_rate(secs: f64) -> anyhow::Result<f64> {
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite://{}", dir.path().join("raw.db").display());
    let mut conn = SqliteConnectOptions::from_str(&url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .connect()
        .await?;
    sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        .execute(&mut conn)
        .await?;
    let started = Instant::now();
    let mut n: u64 = 0;
    let payload = vec![7u8; 64];
    while started.elapsed().as_secs_f64() < secs {
        sqlx::query("BEGIN IMMEDIATE").execute(&mut conn).await?;
        sqlx::query("INSERT INTO t (v) VALUES (?)")
            .bind(&payload)
            .execute(&mut conn)
            .await?;
        sqlx::query("COMMIT").execute(&mut conn).await?;
        n += 1;
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}

/// The part of a game the players need; the rest of the body is skipped.
#[derive(serde::Deserialize, Default)]
struct GameLite {
    status: String,
    legal_moves: Vec<Value>,
}

#[derive(serde::Deserialize)]
struct Answer {
    game: GameLite,
}

struct Outcome {
    latencies: Vec<Duration>,
    games: usize,
    errors: usize,
}

async fn player(
    client: reqwest::Client,
    bases: Arc<Vec<String>>,
    kind: String,
    next_game: Arc<AtomicUsize>,
    games: usize,
    seed: u64,
) -> Outcome {
    let mut out = Outcome {
        latencies: Vec::new(),
        games: 0,
        errors: 0,
    };
    loop {
        let n = next_game.fetch_add(1, Ordering::Relaxed);
        if n >= games {
            return out;
        }
        let base = &bases[n % bases.len()];
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ n as u64);
        let created = client
            .post(format!("{base}/v1/games"))
            .json(&json!({"kind": kind, "hotseat": true}))
            .send()
            .await;
        let Ok(created) = created else {
            out.errors += 1;
            continue;
        };
        let Ok(created) = created.json::<Value>().await else {
            out.errors += 1;
            continue;
        };
        let id = created["game"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let token = created["token"].as_str().unwrap_or_default().to_owned();
        let mut game: GameLite =
            serde_json::from_value(created["game"].clone()).unwrap_or_default();
        // Spread the games over the instances: moves go to the next one.
        let move_base = &bases[(n + 1) % bases.len()];
        while game.status == "in_progress" {
            let legal = &game.legal_moves;
            if legal.is_empty() {
                break;
            }
            let mv = &legal[rng.random_range(0..legal.len())];
            let started = Instant::now();
            let res = client
                .post(format!("{move_base}/v1/games/{id}/moves"))
                .bearer_auth(&token)
                .json(mv)
                .send()
                .await;
            match res {
                Ok(res) if res.status().as_u16() == 201 => {
                    let Ok(answer) = res.json::<Answer>().await else {
                        out.errors += 1;
                        break;
                    };
                    out.latencies.push(started.elapsed());
                    game = answer.game;
                }
                _ => {
                    out.errors += 1;
                    break;
                }
            }
        }
        out.games += 1;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[rank.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let raw = if args.sqlite_secs > 0.0 {
        Some(raw_sqlite_rate(args.sqlite_secs).await?)
    } else {
        None
    };

    let _dir;
    let mut server = None;
    let bases = if args.url.is_empty() {
        let dir = tempfile::tempdir()?;
        let mut settings = tabula::Settings::defaults();
        settings.addr = "127.0.0.1:0".into();
        settings.database_url = format!("sqlite://{}", dir.path().join("load.db").display());
        settings.workers = args.workers;
        settings.log = "warn".into();
        tabula::telemetry::init("warn", tabula::config::LogFormat::Text);
        let app = tabula::Application::build(&settings).await?;
        let base = format!("http://{}", app.local_addr());
        let handle = app.handle();
        tokio::spawn(app.run_until_stopped());
        server = Some(handle);
        _dir = dir;
        vec![base]
    } else {
        args.url.clone()
    };

    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency)
        .build()?;
    let bases = Arc::new(bases);
    let next_game = Arc::new(AtomicUsize::new(0));
    let concurrency = if args.games == 0 { 0 } else { args.concurrency };
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            tokio::spawn(player(
                client.clone(),
                bases.clone(),
                args.kind.clone(),
                next_game.clone(),
                args.games,
                args.seed,
            ))
        })
        .collect();
    let mut latencies = Vec::new();
    let (mut games, mut errors) = (0, 0);
    for t in tasks {
        let o = t.await?;
        latencies.extend(o.latencies);
        games += o.games;
        errors += o.errors;
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    let moves = latencies.len();
    let rate = moves as f64 / elapsed;
    let (p50, p95, p99) = (
        percentile(&latencies, 50.0),
        percentile(&latencies, 95.0),
        percentile(&latencies, 99.0),
    );
    let max = latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    if let Some(handle) = server {
        handle.stop(true).await;
    }
    if args.json {
        println!(
            "{}",
            json!({"games": games, "moves": moves, "errors": errors, "seconds": elapsed,
                   "moves_per_sec": rate, "p50_ms": p50, "p95_ms": p95, "p99_ms": p99, "max_ms": max,
                   "raw_sqlite_tx_per_sec": raw, "ratio": raw.map(|r| rate / r),
                   "instances": bases.len(), "concurrency": args.concurrency, "kind": args.kind})
        );
    } else {
        println!(
            "games played     {games} ({} kind, {} instance(s), {} clients)",
            args.kind,
            bases.len(),
            args.concurrency
        );
        println!("moves accepted   {moves} in {elapsed:.2} s, {errors} errors");
        println!("moves/s          {rate:.0}");
        println!("latency ms       p50 {p50:.2}  p95 {p95:.2}  p99 {p99:.2}  max {max:.2}");
        if let Some(raw) = raw {
            println!("raw SQLite tx/s  {raw:.0}  (one-row transactions, WAL, synchronous=NORMAL)");
            println!("ratio            {:.2} of the raw SQLite rate", rate / raw);
        }
    }
    Ok(())
}
