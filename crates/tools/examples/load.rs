//! Load generator: plays many whole games through HTTP at once and reports
//! accepted moves per second and latency percentiles, next to the machine's
//! raw SQLite rate (one-row transactions on a file, WAL, the same
//! `synchronous` setting as the service) measured in the same run, so the
//! result reads as a ratio that holds across machines.
//!
//! ```sh
//! cargo run --release -p tabula-tools --example load -- --games 200 --concurrency 64
//! cargo run --release -p tabula-tools --example load -- --url http://127.0.0.1:8080 --url http://127.0.0.1:8081
//! ```
//! Without `--url` it starts the service in-process on a temporary SQLite file.

use std::cell::Cell;
use std::rc::Rc;
use std::str::FromStr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper::http::Uri;
use hyper_util::rt::TokioIo;

use clap::Parser;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use sqlx::ConnectOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use tabula::api::wire::MoveBody;
use tabula::rules::{AnyGame, GameKind, Player, Setup};

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
    /// The games' options, as JSON (e.g. `{"size": 25}` for Gomoku).
    #[arg(long, default_value = "{}")]
    options: String,
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
    /// Who plays: `hotseat` (one token plays both seats), or two players
    /// with keys in a game between two people, `unrated` or `rated`.
    #[arg(long, default_value = "hotseat", value_parser = ["hotseat", "unrated", "rated"])]
    players: String,
    /// Instead of games, this many `GET /healthz` requests from the same
    /// clients: the HTTP floor, what a request costs the service before it
    /// does any work (`scripts/bench-http` divides the service's CPU by it).
    #[arg(long, default_value_t = 0)]
    healthz: usize,
    /// With `--healthz N`: what those N requests ask instead, `position`
    /// (`GET /v1/rules/connect_four/positions` of a 20-move line) or
    /// `batch` (`POST` of 100 such lines at once), to set them beside the
    /// floor in one run.
    #[arg(long, default_value = "healthz", value_parser = ["healthz", "position", "batch"])]
    probe: String,
    /// Moves with `Prefer: return=minimal` (answered 204, no body): the
    /// players keep each game themselves with the rules crate, so only the
    /// kinds' default options.
    #[arg(long)]
    minimal: bool,
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

/// The part of a game the players need, as read from an answer; the rest
/// of the body is skipped, and the legal moves stay slices of its text (a
/// 25x25 Gomoku answer lists hundreds: built as JSON values, they cost the
/// load generator more than the service spent on the move).
#[derive(serde::Deserialize)]
struct GameLite<'a> {
    #[serde(default)]
    id: String,
    status: String,
    #[serde(borrow)]
    legal_moves: Vec<&'a RawValue>,
    #[serde(default)]
    turn: Option<String>,
}

#[derive(serde::Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    game: GameLite<'a>,
}

#[derive(serde::Deserialize)]
struct Created<'a> {
    #[serde(borrow)]
    game: GameLite<'a>,
    token: String,
}

/// A game as a player goes on with it: the next move already chosen.
struct Playing {
    id: String,
    in_progress: bool,
    turn: Option<String>,
    /// The move to send next (its JSON), while the game is in progress.
    next: Option<Vec<u8>>,
}

impl GameLite<'_> {
    /// The game, with a move chosen among the legal ones if it goes on.
    fn choose(self, rng: &mut ChaCha8Rng) -> Playing {
        let in_progress = self.status == "in_progress";
        let next = (in_progress && !self.legal_moves.is_empty()).then(|| {
            let i = rng.random_range(0..self.legal_moves.len());
            self.legal_moves[i].get().as_bytes().to_vec()
        });
        Playing {
            id: self.id,
            in_progress,
            turn: self.turn,
            next,
        }
    }
}

/// A player's keep-alive HTTP/1.1 connection to one instance.
///
/// Plain hyper connections on the players' one thread: the load generator
/// shares the machine with the service, so it should spend as little CPU
/// per request as it can (no pool, no URL parsing per request, no thread hops).
struct Conn {
    authority: String,
    sender: Option<SendRequest<Full<Bytes>>>,
}

impl Conn {
    fn new(base: &str) -> anyhow::Result<Conn> {
        let uri: Uri = base.parse()?;
        let authority = uri
            .authority()
            .ok_or_else(|| anyhow::anyhow!("no host in {base}"))?
            .to_string();
        Ok(Conn {
            authority,
            sender: None,
        })
    }

    /// POSTs `body` to `path`; answers the status and the body.
    async fn post(
        &mut self,
        path: &str,
        token: Option<&str>,
        body: Vec<u8>,
    ) -> anyhow::Result<(u16, Bytes)> {
        self.send(hyper::Method::POST, path, token, Some(body), false)
            .await
    }

    /// GETs `path`; answers the status and the body.
    async fn get(&mut self, path: &str) -> anyhow::Result<(u16, Bytes)> {
        self.send(hyper::Method::GET, path, None, None, false).await
    }

    /// Sends a request; `minimal`: with `Prefer: return=minimal`.
    async fn send(
        &mut self,
        method: hyper::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Vec<u8>>,
        minimal: bool,
    ) -> anyhow::Result<(u16, Bytes)> {
        let sender = match &mut self.sender {
            Some(s) if !s.is_closed() => s,
            _ => {
                let stream = tokio::net::TcpStream::connect(&self.authority).await?;
                stream.set_nodelay(true)?;
                let (sender, conn) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
                tokio::spawn(conn);
                self.sender.insert(sender)
            }
        };
        sender.ready().await?;
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, &self.authority);
        if body.is_some() {
            req = req.header(CONTENT_TYPE, "application/json");
        }
        if let Some(token) = token {
            req = req.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        if minimal {
            req = req.header("prefer", "return=minimal");
        }
        let body = Full::new(body.map(Bytes::from).unwrap_or_default());
        let res = sender.send_request(req.body(body)?).await;
        let res = match res {
            Ok(res) => res,
            Err(e) => {
                self.sender = None;
                return Err(e.into());
            }
        };
        let status = res.status().as_u16();
        let body = res.into_body().collect().await?.to_bytes();
        Ok((status, body))
    }
}

struct Outcome {
    latencies: Vec<Duration>,
    /// Of the moves that ended their game (also in `latencies`).
    endings: Vec<Duration>,
    games: usize,
    errors: usize,
}

#[derive(serde::Deserialize)]
struct NewPlayer {
    key: String,
}

/// Two players' keys, for games between two people.
async fn two_players(conn: &mut Conn) -> anyhow::Result<[String; 2]> {
    let mut keys = Vec::new();
    for name in ["Xena", "Otto"] {
        let (status, body) = conn
            .post(
                "/v1/players",
                None,
                serde_json::to_vec(&json!({"name": name}))?,
            )
            .await?;
        anyhow::ensure!(status == 201, "creating a player: {status}");
        keys.push(serde_json::from_slice::<NewPlayer>(&body)?.key);
    }
    Ok([keys[0].clone(), keys[1].clone()])
}

#[expect(
    clippy::too_many_arguments,
    reason = "one client's settings, each from its own flag"
)]
async fn player(
    bases: Rc<Vec<String>>,
    kind: String,
    next_game: Rc<Cell<usize>>,
    games: usize,
    seed: u64,
    players: String,
    options: Value,
    minimal: bool,
) -> anyhow::Result<Outcome> {
    let mut out = Outcome {
        latencies: Vec::new(),
        endings: Vec::new(),
        games: 0,
        errors: 0,
    };
    let mut conns = bases
        .iter()
        .map(|b| Conn::new(b))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // Under `--minimal` the players keep the games: of this kind.
    let minimal_kind = if minimal {
        Some(GameKind::from_str(&kind).map_err(|e| anyhow::anyhow!("{e}"))?)
    } else {
        None
    };
    let keys = if players == "hotseat" {
        None
    } else {
        Some(two_players(&mut conns[0]).await?)
    };
    let create = serde_json::to_vec(&if players == "hotseat" {
        json!({"kind": kind, "hotseat": true, "options": options})
    } else {
        json!({"kind": kind, "rated": players == "rated", "options": options})
    })?;
    loop {
        let n = next_game.get();
        if n >= games {
            return Ok(out);
        }
        next_game.set(n + 1);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ n as u64);
        let created = conns[n % bases.len()]
            .post(
                "/v1/games",
                keys.as_ref().map(|k| k[0].as_str()),
                create.clone(),
            )
            .await;
        let Some((mut game, token)) =
            created
                .ok()
                .filter(|(status, _)| *status == 201)
                .and_then(|(_, body)| {
                    let created: Created = serde_json::from_slice(&body).ok()?;
                    Some((created.game.choose(&mut rng), created.token))
                })
        else {
            out.errors += 1;
            continue;
        };
        if let Some([_, o]) = &keys {
            let joined = conns[n % bases.len()]
                .post(
                    &format!("/v1/games/{}/join", game.id),
                    Some(o),
                    b"{}".to_vec(),
                )
                .await;
            let answer = joined
                .ok()
                .filter(|(status, _)| *status == 200)
                .and_then(|(_, body)| {
                    let answer: Answer = serde_json::from_slice(&body).ok()?;
                    Some(answer.game.choose(&mut rng))
                });
            let Some(joined) = answer else {
                out.errors += 1;
                continue;
            };
            game = joined;
        }
        let path = format!("/v1/games/{}/moves", game.id);
        // Spread the games over the instances: moves go to the next one.
        let conn = &mut conns[(n + 1) % bases.len()];
        if let Some(kind) = minimal_kind {
            let token = |turn: Player| match (&keys, turn) {
                (Some([_, o]), Player::O) => o.as_str(),
                (Some([x, _]), Player::X) => x.as_str(),
                (None, _) => token.as_str(),
            };
            if !play_minimal(conn, &path, kind, &mut rng, token, &mut out).await? {
                out.errors += 1;
            }
            out.games += 1;
            continue;
        }
        while game.in_progress {
            let Some(mv) = game.next.take() else {
                break;
            };
            // Between two people each plays with their own key.
            let token = match (&keys, game.turn.as_deref()) {
                (Some([_, o]), Some("O")) => o.as_str(),
                (Some([x, _]), _) => x.as_str(),
                (None, _) => token.as_str(),
            };
            let started = Instant::now();
            let answer = conn
                .post(&path, Some(token), mv)
                .await
                .ok()
                .filter(|(status, _)| *status == 201)
                .and_then(|(_, body)| {
                    let answer: Answer = serde_json::from_slice(&body).ok()?;
                    Some(answer.game.choose(&mut rng))
                });
            let Some(answer) = answer else {
                out.errors += 1;
                break;
            };
            out.latencies.push(started.elapsed());
            if !answer.in_progress {
                out.endings.push(started.elapsed());
            }
            game = answer;
        }
        out.games += 1;
    }
}

/// Plays one game to its end under `Prefer: return=minimal`, keeping it with
/// the rules crate; `false` if a move was not answered 204.
async fn play_minimal<'t>(
    conn: &mut Conn,
    path: &str,
    kind: GameKind,
    rng: &mut ChaCha8Rng,
    token: impl Fn(Player) -> &'t str,
    out: &mut Outcome,
) -> anyhow::Result<bool> {
    let mut game = AnyGame::new(Setup::default_for(kind));
    while !game.is_over() {
        let legal = game.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        let body = MoveBody::from(mv.input());
        let started = Instant::now();
        let answered = conn
            .send(
                hyper::Method::POST,
                path,
                Some(token(game.to_move())),
                Some(serde_json::to_vec(&body)?),
                true,
            )
            .await;
        if !matches!(answered, Ok((204, _))) {
            return Ok(false);
        }
        out.latencies.push(started.elapsed());
        game.try_play(mv)
            .map_err(|e| anyhow::anyhow!("the service took a move the rules refuse: {e:?}"))?;
        if game.is_over() {
            out.endings.push(started.elapsed());
        }
    }
    Ok(true)
}

/// The `n`th Connect Four line of (at most) 20 random legal moves.
fn probe_line(n: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
    let mut game = AnyGame::new(Setup::ConnectFour);
    let mut moves = Vec::new();
    while moves.len() < 20 && !game.is_over() {
        let legal = game.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        if game.try_play(mv).is_err() {
            break;
        }
        moves.push(mv);
    }
    tabula::rules::notation::format_line(Setup::ConnectFour, &moves)
}

/// One client's share of `--healthz`: requests of `what` (see `--probe`)
/// until `total` were sent.
async fn probe(
    base: String,
    what: String,
    sent: Rc<Cell<usize>>,
    total: usize,
) -> anyhow::Result<Outcome> {
    let mut out = Outcome {
        latencies: Vec::new(),
        endings: Vec::new(),
        games: 0,
        errors: 0,
    };
    let mut conn = Conn::new(&base)?;
    while sent.get() < total {
        sent.set(sent.get() + 1);
        let started = Instant::now();
        let n = sent.get();
        let answered = match what.as_str() {
            "position" => {
                conn.get(&format!(
                    "/v1/rules/connect_four/positions?moves={}",
                    probe_line(n)
                ))
                .await
            }
            "batch" => {
                let lines: Vec<String> = (0..100).map(|i| probe_line(n * 100 + i)).collect();
                let body = serde_json::to_vec(&json!({ "lines": lines }))?;
                conn.post("/v1/rules/connect_four/positions", None, body)
                    .await
            }
            _ => conn.get("/healthz").await,
        };
        match answered {
            Ok((200, _)) => out.latencies.push(started.elapsed()),
            _ => out.errors += 1,
        }
    }
    Ok(out)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[rank.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // The players share one thread; an in-process service gets a runtime
    // (and threads) of its own.
    let players = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let raw = if args.sqlite_secs > 0.0 {
        Some(players.block_on(raw_sqlite_rate(args.sqlite_secs))?)
    } else {
        None
    };

    let _dir;
    let service = tokio::runtime::Runtime::new()?;
    let mut server = None;
    let bases = if args.url.is_empty() {
        let dir = tempfile::tempdir()?;
        let mut settings = tabula::Settings::defaults();
        settings.addr = "127.0.0.1:0".into();
        settings.database_url = format!("sqlite://{}", dir.path().join("load.db").display());
        settings.workers = args.workers;
        settings.log = "warn".into();
        tabula::telemetry::init("warn", tabula::config::LogFormat::Text);
        let (base, handle) = service.block_on(async {
            let app = tabula::Application::build(&settings).await?;
            let base = format!("http://{}", app.local_addr());
            let handle = app.handle();
            tokio::spawn(app.run_until_stopped());
            anyhow::Ok((base, handle))
        })?;
        server = Some(handle);
        _dir = dir;
        vec![base]
    } else {
        args.url.clone()
    };

    let bases = Rc::new(bases);
    let options: Value = serde_json::from_str(&args.options)?;
    anyhow::ensure!(
        !args.minimal || options == json!({}),
        "--minimal plays the kinds' default options only"
    );
    let next_game = Rc::new(Cell::new(0));
    let concurrency = if args.games == 0 { 0 } else { args.concurrency };
    let started = Instant::now();
    let outcomes = players.block_on(async {
        let local = tokio::task::LocalSet::new();
        local
            .run_until(async {
                if args.healthz > 0 {
                    let sent = Rc::new(Cell::new(0));
                    let tasks: Vec<_> = (0..args.concurrency)
                        .map(|i| {
                            let base = bases[i % bases.len()].clone();
                            tokio::task::spawn_local(probe(
                                base,
                                args.probe.clone(),
                                sent.clone(),
                                args.healthz,
                            ))
                        })
                        .collect();
                    let mut outcomes = Vec::new();
                    for t in tasks {
                        outcomes.push(t.await??);
                    }
                    return anyhow::Ok(outcomes);
                }
                let tasks: Vec<_> = (0..concurrency)
                    .map(|_| {
                        tokio::task::spawn_local(player(
                            bases.clone(),
                            args.kind.clone(),
                            next_game.clone(),
                            args.games,
                            args.seed,
                            args.players.clone(),
                            options.clone(),
                            args.minimal,
                        ))
                    })
                    .collect();
                let mut outcomes = Vec::new();
                for t in tasks {
                    outcomes.push(t.await??);
                }
                anyhow::Ok(outcomes)
            })
            .await
    })?;
    let mut latencies = Vec::new();
    let mut endings = Vec::new();
    let (mut games, mut errors) = (0, 0);
    for o in outcomes {
        latencies.extend(o.latencies);
        endings.extend(o.endings);
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
    endings.sort();
    let (end_p50, end_p99) = (percentile(&endings, 50.0), percentile(&endings, 99.0));
    if let Some(handle) = server {
        service.block_on(handle.stop(true));
    }
    if args.json {
        println!(
            "{}",
            json!({"games": games, "moves": moves, "errors": errors, "seconds": elapsed,
                   "moves_per_sec": rate, "p50_ms": p50, "p95_ms": p95, "p99_ms": p99, "max_ms": max,
                   "raw_sqlite_tx_per_sec": raw, "ratio": raw.map(|r| rate / r),
                   "instances": bases.len(), "concurrency": args.concurrency, "kind": args.kind,
                   "players": args.players, "ending_p50_ms": end_p50, "ending_p99_ms": end_p99})
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
        println!(
            "ending moves ms  p50 {end_p50:.2}  p99 {end_p99:.2}  ({} players)",
            args.players
        );
        if let Some(raw) = raw {
            println!("raw SQLite tx/s  {raw:.0}  (one-row transactions, WAL, synchronous=NORMAL)");
            println!("ratio            {:.2} of the raw SQLite rate", rate / raw);
        }
    }
    Ok(())
}
