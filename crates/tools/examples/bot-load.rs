//! Bots against bots through the API: `--bots` bot players in pairs, each
//! pair playing `--games` challenges one after the other, every bot over its
//! own streams (the player's stream to hear of challenges and games, each
//! game's stream to hear of its turn; no polling), each move a random legal
//! one sent with `If-Match` and an `Idempotency-Key`. Reports accepted moves
//! per second; run the load generator's hotseat games on the same service
//! beside it for the ratio (`docs/benchmarks.md`).
//!
//! ```sh
//! TABULA_PLAYER_RATE=0 target/release/tabula --max-streams-per-client 0 &
//! cargo run --release -p tabula-tools --example bot-load -- --url http://127.0.0.1:8080 --bots 64 --games 10
//! ```
//!
//! `--webhook`: webhook bots instead, all answered at once by one local
//! server (a random legal move); each pair's challenger challenges the
//! other, both are asked for their moves by the service, and the pair waits
//! for each game's end (reading it every 50 ms) before the next. The
//! service must allow private addresses (`--webhook-allow-private`).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use clap::Parser;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};

#[path = "common/sse.rs"]
mod sse;
use sse::Events;

#[path = "../../../tests/common/receiver.rs"]
mod receiver;

#[derive(Clone, Debug, Parser)]
#[command(about = "Bot players playing each other through the API, over their streams")]
struct Args {
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Bot players (pairs of them play each other).
    #[arg(long, default_value_t = 64)]
    bots: usize,
    /// Games each pair plays, one after the other.
    #[arg(long, default_value_t = 10)]
    games: u64,
    #[arg(long, default_value = "connect_four")]
    kind: String,
    /// Webhook bots, answered by a local server, instead of bots on streams.
    #[arg(long)]
    webhook: bool,
}

struct Shared {
    http: reqwest::Client,
    url: String,
    kind: String,
    moves: AtomicU64,
    finished: AtomicU64,
    refused: AtomicU64,
}

impl Shared {
    async fn call(
        &self,
        key: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, String)],
    ) -> Result<(u16, Value)> {
        sse::call(&self.http, &self.url, key, method, path, body, headers).await
    }
}

struct Bot {
    key: String,
    /// The challenger's opponent's id, and how many games it still asks for.
    challenges: Option<(String, u64)>,
}

async fn play(shared: &Shared, key: &str, game: &str, seat: &str) -> Result<()> {
    let mut events = Events::new(format!("/v1/games/{game}/events"));
    let mut answered = -1;
    while let Some((event, data)) = events.next(&shared.http, &shared.url, key).await {
        let g = if event == "state" {
            data
        } else {
            data["game"].clone()
        };
        if matches!(g["status"].as_str(), Some("won" | "draw")) {
            return Ok(());
        }
        let version = g["version"].as_i64().unwrap_or(0);
        if g["turn"].as_str() != Some(seat) || version <= answered {
            continue;
        }
        answered = version;
        let Some(moves) = g["legal_moves"].as_array() else {
            continue;
        };
        let chosen = moves
            .choose(&mut rand::rng())
            .cloned()
            .unwrap_or(Value::Null);
        let headers = [
            ("If-Match", format!("\"{version}\"")),
            ("Idempotency-Key", format!("{game}-{version}")),
        ];
        let (status, body) = shared
            .call(
                key,
                reqwest::Method::POST,
                &format!("/v1/games/{game}/moves"),
                Some(chosen),
                &headers,
            )
            .await?;
        if status == 201 {
            shared.moves.fetch_add(1, Ordering::Relaxed);
        } else {
            shared.refused.fetch_add(1, Ordering::Relaxed);
            eprintln!("{game}: {status} {body}");
        }
    }
    bail!("{game}: gone")
}

async fn challenge(shared: &Shared, key: &str, to: &str) -> Result<()> {
    let body = json!({"to": to, "kind": shared.kind, "clock": {"initial_ms": 600_000}});
    let (status, answer) = shared
        .call(
            key,
            reqwest::Method::POST,
            "/v1/challenges",
            Some(body),
            &[],
        )
        .await?;
    if status != 201 {
        bail!("challenge: {status} {answer}");
    }
    Ok(())
}

/// One bot: its player's stream, for ever.
async fn run(shared: Arc<Shared>, mut bot: Bot) -> Result<()> {
    let mut events = Events::new("/v1/players/me/events".to_owned());
    let mut started = HashSet::new();
    while let Some((event, data)) = events.next(&shared.http, &shared.url, &bot.key).await {
        match event.as_str() {
            "challenge" if data["challenge"]["status"] == "pending" && bot.challenges.is_none() => {
                let path = format!(
                    "/v1/challenges/{}/accept",
                    data["challenge"]["id"].as_str().unwrap_or_default()
                );
                let (status, answer) = shared
                    .call(&bot.key, reqwest::Method::POST, &path, None, &[])
                    .await?;
                if status != 201 {
                    bail!("accept: {status} {answer}");
                }
            }
            "game_start" => {
                let game = data["game"].as_str().unwrap_or_default().to_owned();
                if started.insert(game.clone()) {
                    let (shared, key, seat) = (
                        shared.clone(),
                        bot.key.clone(),
                        data["seat"].as_str().unwrap_or_default().to_owned(),
                    );
                    tokio::spawn(async move {
                        if let Err(e) = play(&shared, &key, &game, &seat).await {
                            eprintln!("{e:#}");
                        }
                    });
                }
            }
            "game_finish" => {
                if let Some((to, left)) = bot.challenges.as_mut() {
                    shared.finished.fetch_add(1, Ordering::Relaxed);
                    if *left > 0 {
                        *left -= 1;
                        challenge(&shared, &bot.key, to).await?;
                    }
                }
            }
            _ => {}
        }
    }
    bail!("the player's stream is gone")
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let shared = Arc::new(Shared {
        http: reqwest::Client::new(),
        url: args.url.trim_end_matches('/').to_owned(),
        kind: args.kind.clone(),
        moves: AtomicU64::new(0),
        finished: AtomicU64::new(0),
        refused: AtomicU64::new(0),
    });
    let mut players = Vec::new();
    for n in 0..args.bots {
        let body = json!({"name": format!("Load bot {n}"), "bot": true});
        let (status, made) = shared
            .call("", reqwest::Method::POST, "/v1/players", Some(body), &[])
            .await?;
        if status != 201 {
            bail!(
                "creating bot {n}: {status} {made} (start the service with TABULA_PLAYER_RATE=0)"
            );
        }
        players.push((
            made["player"]["id"].as_str().unwrap_or_default().to_owned(),
            made["key"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    let pairs = args.bots / 2;
    if args.webhook {
        return webhook_load(&shared, &args, &players).await;
    }
    for (n, (_, key)) in players.iter().enumerate() {
        let challenges =
            (n % 2 == 0).then(|| (players[n + 1].0.clone(), args.games.saturating_sub(1)));
        let bot = Bot {
            key: key.clone(),
            challenges,
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            if let Err(e) = run(shared, bot).await {
                eprintln!("{e:#}");
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // the streams open
    let start = Instant::now();
    for pair in 0..pairs {
        challenge(&shared, &players[2 * pair].1, &players[2 * pair + 1].0).await?;
    }
    let games = u64::try_from(pairs)? * args.games;
    while shared.finished.load(Ordering::Relaxed) < games {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if start.elapsed() > Duration::from_mins(10) {
            bail!(
                "{} of {games} games finished in 600 s",
                shared.finished.load(Ordering::Relaxed)
            );
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let moves = shared.moves.load(Ordering::Relaxed);
    println!(
        "{} bots, {games} {} games, {moves} moves in {seconds:.2} s: {:.0} moves/s, {} moves refused",
        args.bots,
        args.kind,
        moves as f64 / seconds,
        shared.refused.load(Ordering::Relaxed)
    );
    Ok(())
}

/// The `--webhook` run: every bot's `move_url` is one local server that
/// answers a random legal move; each pair plays its games one after the
/// other, the service asking both sides for their moves.
async fn webhook_load(
    shared: &Arc<Shared>,
    args: &Args,
    players: &[(String, String)],
) -> Result<()> {
    let server = receiver::Receiver::start().await;
    server.respond(|body| {
        let legal = body["position"]["legal_moves"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mv = legal
            .choose(&mut rand::rng())
            .cloned()
            .unwrap_or(Value::Null);
        (200, json!({"move": mv}).to_string())
    });
    for (_, key) in players {
        let (status, answer) = shared
            .call(
                key,
                reqwest::Method::PATCH,
                "/v1/players/me",
                Some(json!({"move_url": server.url})),
                &[],
            )
            .await?;
        if status != 200 {
            bail!(
                "setting the move URL: {status} {answer} (start the service with --webhook-allow-private)"
            );
        }
    }
    let start = Instant::now();
    let mut pairs = tokio::task::JoinSet::new();
    for pair in players.chunks_exact(2) {
        let (shared, games) = (shared.clone(), args.games);
        let (from, to) = (pair[0].1.clone(), pair[1].0.clone());
        pairs.spawn(async move {
            for _ in 0..games {
                let body = json!({"to": to, "kind": shared.kind, "clock": {"initial_ms": 600_000}});
                let (status, c) = shared
                    .call(
                        &from,
                        reqwest::Method::POST,
                        "/v1/challenges",
                        Some(body),
                        &[],
                    )
                    .await?;
                let Some(game) = c["game"].as_str().filter(|_| status == 201) else {
                    bail!("challenge: {status} {c}");
                };
                loop {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let (_, g) = shared
                        .call(
                            "",
                            reqwest::Method::GET,
                            &format!("/v1/games/{game}"),
                            None,
                            &[],
                        )
                        .await?;
                    if g["status"] != "in_progress" {
                        if g["end_reason"] != "line" && g["end_reason"] != "full_board" {
                            shared.refused.fetch_add(1, Ordering::Relaxed);
                        }
                        shared
                            .moves
                            .fetch_add(g["ply"].as_u64().unwrap_or(0), Ordering::Relaxed);
                        break;
                    }
                }
            }
            anyhow::Ok(())
        });
    }
    while let Some(done) = pairs.join_next().await {
        done??;
    }
    let seconds = start.elapsed().as_secs_f64();
    let moves = shared.moves.load(Ordering::Relaxed);
    println!(
        "{} webhook bots, {} {} games, {moves} moves in {seconds:.2} s: {:.0} moves/s, {} requests, {} games not ended on the board",
        args.bots,
        players.len() / 2 * usize::try_from(args.games)?,
        args.kind,
        moves as f64 / seconds,
        server.got().len(),
        shared.refused.load(Ordering::Relaxed)
    );
    Ok(())
}
