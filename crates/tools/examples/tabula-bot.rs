//! `tabula-bot`: runs a local engine as a Tabula bot player.
//!
//! ```text
//! cargo build --release -p tabula-tools --example tabula-bot --example pbrain-tabula
//! BOT_KEY=tpk_… target/release/examples/tabula-bot --url http://127.0.0.1:8080 \
//!     -- target/release/examples/pbrain-tabula --budget-ms 100
//! ```
//!
//! It listens to the player's event stream, accepts the challenges its
//! engine can play (declines the others, `kind`), and plays each game that
//! starts through the game's own event stream, one engine process a game.
//! Both streams are reopened with `Last-Event-ID` when they drop or stay
//! silent past the keep-alive; a move is sent with `If-Match` and an
//! `Idempotency-Key`, so a resent move plays once. `--versus LEVEL --games N`
//! instead plays N games of `--kind` against the service's own bot, one after
//! the other, and prints the results (the bridge's test drives it so).
//!
//! Two engine protocols (`--protocol`):
//! - `gomocup` (Gomoku only): the Piskvork protocol, as Gomocup's managers
//!   speak it: `START size`, `INFO rule 0|1`, `INFO timeout_turn ms`, `BEGIN`,
//!   `TURN x,y`, `RESTART` and `BOARD` … `DONE` when the engine's board is
//!   not the game's (a reconnect, a new round), `END`. `x,y`: column, row,
//!   from 0 at the top left.
//! - `line` (every kind): the bridge writes `position <kind> <options>
//!   <notation>` (options as one-line JSON, the moves so far in the kind's
//!   notation, possibly none) and the engine answers one line, its move in the
//!   kind's notation; `quit` ends it. See `docs/bots.md`.

use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, ValueEnum};
use serde_json::{Value, json};
use tabula_rules::notation::{self, Line};
use tabula_rules::{GameKind, GomokuOptions, GomokuRule, MoveInput, Setup};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

#[path = "common/sse.rs"]
mod sse;
use sse::Events;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Protocol {
    Gomocup,
    Line,
}

#[derive(Clone, Debug, Parser)]
#[command(about = "Runs a local engine as a Tabula bot player")]
struct Args {
    /// The service's address.
    #[arg(long, env = "TABULA_URL", default_value = "http://127.0.0.1:8080")]
    url: String,
    /// The bot player's key (`POST /v1/players {"name", "bot": true}`).
    #[arg(long, env = "BOT_KEY", hide_env_values = true)]
    key: String,
    /// How the bridge talks to the engine.
    #[arg(long, value_enum, default_value = "gomocup")]
    protocol: Protocol,
    /// Play this many games against the service's bot of this level
    /// (`random`, `easy`, `medium`, `hard`) instead of listening for
    /// challenges.
    #[arg(long)]
    versus: Option<String>,
    /// How many games `--versus` plays.
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// The kind `--versus` plays.
    #[arg(long, default_value = "gomoku")]
    kind: String,
    /// The engine's command line.
    #[arg(required = true, last = true)]
    engine: Vec<String>,
}

#[derive(Clone)]
struct Bridge {
    http: reqwest::Client,
    url: String,
    key: String,
    protocol: Protocol,
    engine: Vec<String>,
}

impl Bridge {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, String)],
    ) -> Result<(u16, Value)> {
        sse::call(
            &self.http, &self.url, &self.key, method, path, body, headers,
        )
        .await
    }

    fn plays(&self, kind: &str) -> bool {
        self.protocol == Protocol::Line || kind == "gomoku"
    }
}

/// One engine process, spoken to a line at a time.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
    /// Gomocup: how many of the game's moves the engine's board holds.
    known: Option<usize>,
}

impl Engine {
    fn start(command: &[String]) -> Result<Engine> {
        let (program, args) = command.split_first().context("no engine command")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("starting {program}"))?;
        let input = child.stdin.take().context("engine stdin")?;
        let output = BufReader::new(child.stdout.take().context("engine stdout")?).lines();
        Ok(Engine {
            child,
            input,
            output,
            known: None,
        })
    }

    async fn send(&mut self, line: &str) -> Result<()> {
        self.input.write_all(format!("{line}\n").as_bytes()).await?;
        self.input.flush().await?;
        Ok(())
    }

    /// The engine's next answer, past its `MESSAGE`, `DEBUG` and such lines.
    async fn answer(&mut self) -> Result<String> {
        loop {
            let line = self
                .output
                .next_line()
                .await?
                .context("the engine exited")?;
            let line = line.trim();
            let word = line.split_whitespace().next().unwrap_or("");
            match word {
                "" | "MESSAGE" | "DEBUG" | "SUGGEST" | "UNKNOWN" => {}
                "ERROR" => bail!("the engine said: {line}"),
                _ => return Ok(line.to_owned()),
            }
        }
    }

    /// Gomocup: the engine's move for `seat` after `moves`, as `x,y`.
    async fn gomocup_move(
        &mut self,
        options: GomokuOptions,
        moves: &[MoveInput],
        seat: &str,
        turn_ms: Option<i64>,
    ) -> Result<String> {
        let cell = |m: &MoveInput| match *m {
            MoveInput::Cell { row, col } => Ok(format!("{col},{row}")),
            _ => Err(anyhow!("not a Gomoku move")),
        };
        if self.known.is_none() {
            self.send(&format!("START {}", options.size())).await?;
            self.expect_ok().await?;
            let rule = u8::from(options.rule() == GomokuRule::Standard);
            self.send(&format!("INFO rule {rule}")).await?;
        }
        if let Some(ms) = turn_ms {
            self.send(&format!("INFO timeout_turn {ms}")).await?;
        }
        match self.known {
            Some(k) if k + 1 == moves.len() => {
                self.send(&format!("TURN {}", cell(&moves[k])?)).await?;
            }
            Some(0) | None if moves.is_empty() => self.send("BEGIN").await?,
            known => {
                if known.is_some() {
                    self.send("RESTART").await?;
                    self.expect_ok().await?;
                }
                self.send("BOARD").await?;
                for (i, m) in moves.iter().enumerate() {
                    let own = (i % 2 == 0) == (seat == "X");
                    self.send(&format!("{},{}", cell(m)?, if own { 1 } else { 2 }))
                        .await?;
                }
                self.send("DONE").await?;
            }
        }
        self.known = Some(moves.len());
        self.answer().await
    }

    async fn expect_ok(&mut self) -> Result<()> {
        let answer = self.answer().await?;
        if answer != "OK" {
            bail!("the engine answered {answer:?}, not OK");
        }
        Ok(())
    }

    async fn stop(mut self, protocol: Protocol) {
        let _ = self
            .send(if protocol == Protocol::Gomocup {
                "END"
            } else {
                "quit"
            })
            .await;
        if tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// The setup a game's notation answer names.
fn setup_of(kind: &str, options: &Value) -> Result<Setup> {
    let kind: GameKind = kind.parse().map_err(|_| anyhow!("unknown kind {kind}"))?;
    Ok(match kind {
        GameKind::Gomoku => {
            let size = options["size"].as_i64().unwrap_or(15);
            let rule = options["rule"]
                .as_str()
                .and_then(GomokuRule::parse)
                .unwrap_or_default();
            Setup::Gomoku(GomokuOptions::new(size, rule)?)
        }
        other => Setup::default_for(other),
    })
}

/// A move in its wire shape.
fn wire(m: MoveInput) -> Value {
    match m {
        MoveInput::Cell { row, col } => json!({"row": row, "col": col}),
        MoveInput::Column { column } => json!({"column": column}),
        MoveInput::BoardCell { board, cell } => json!({"board": board, "cell": cell}),
    }
}

/// Plays `seat` of a game until its round is over; the game as it ended.
async fn play(bridge: &Bridge, id: &str, seat: &str) -> Result<Value> {
    let mut engine = Engine::start(&bridge.engine)?;
    let mut events = Events::new(format!("/v1/games/{id}/events"));
    let mut answered = -1;
    let ended = loop {
        let Some((event, data)) = events.next(&bridge.http, &bridge.url, &bridge.key).await else {
            break Value::Null; // deleted
        };
        let game = if event == "state" {
            data
        } else {
            data["game"].clone()
        };
        if matches!(game["status"].as_str(), Some("won" | "draw")) {
            break game;
        }
        let version = game["version"].as_i64().unwrap_or(0);
        if game["turn"].as_str() != Some(seat) || version <= answered {
            continue;
        }
        answered = version;
        let (status, notation) = bridge
            .call(
                reqwest::Method::GET,
                &format!("/v1/games/{id}/notation"),
                None,
                &[],
            )
            .await?;
        if status != 200 {
            bail!("{id}: notation answered {status}");
        }
        let kind = notation["kind"].as_str().unwrap_or_default();
        let setup = setup_of(kind, &notation["options"])?;
        let moves_text = notation["moves"].as_str().unwrap_or_default();
        let line = notation::parse_line(setup, moves_text).map_err(|e| anyhow!("{id}: {e}"))?;
        let moves: Vec<MoveInput> = line.moves().iter().map(|m| m.input()).collect();
        let chosen = match (bridge.protocol, setup) {
            (Protocol::Gomocup, Setup::Gomoku(options)) => {
                let turn_ms = game["clock"][seat]["remaining_ms"]
                    .as_i64()
                    .map(|ms| (ms / 10).clamp(1, 30_000));
                let answer = engine.gomocup_move(options, &moves, seat, turn_ms).await?;
                let (x, y) = answer
                    .split_once(',')
                    .ok_or_else(|| anyhow!("the engine answered {answer:?}"))?;
                let (col, row) = (x.trim().parse()?, y.trim().parse()?);
                line.position()
                    .parse_move(MoveInput::Cell { row, col })
                    .map_err(|e| anyhow!("{answer}: {e}"))?
                    .input()
            }
            (Protocol::Gomocup, _) => bail!("the gomocup protocol plays Gomoku only, not {kind}"),
            (Protocol::Line, _) => {
                let command = format!("position {kind} {} {moves_text}", notation["options"]);
                engine.send(command.trim_end()).await?;
                let answer = engine.answer().await?;
                one_more(setup, &line, moves_text, &answer)?
            }
        };
        let (status, body) = bridge
            .call(
                reqwest::Method::POST,
                &format!("/v1/games/{id}/moves"),
                Some(wire(chosen)),
                &[
                    ("If-Match", format!("\"{version}\"")),
                    ("Idempotency-Key", format!("{id}-{version}")),
                ],
            )
            .await?;
        match status {
            200 | 201 => {}
            // The game moved on (a resign, a timeout): its stream says what next.
            409 | 412 => engine.known = None,
            _ => bail!(
                "{id}: the move {} was refused: {status} {body}",
                wire(chosen)
            ),
        }
    };
    engine.stop(bridge.protocol).await;
    Ok(ended)
}

/// The line's next move read from the engine's `answer` in the kind's notation.
fn one_more(setup: Setup, line: &Line, moves_text: &str, answer: &str) -> Result<MoveInput> {
    let separator = if moves_text.is_empty()
        || matches!(setup.kind(), GameKind::ConnectFour | GameKind::TicTacToe)
    {
        ""
    } else {
        " "
    };
    let longer = notation::parse_line(setup, &format!("{moves_text}{separator}{}", answer.trim()))
        .map_err(|e| anyhow!("the engine's move {answer:?}: {e}"))?;
    if longer.moves().len() != line.moves().len() + 1 {
        bail!("the engine answered {answer:?}, not one move");
    }
    Ok(longer.moves()[line.moves().len()].input())
}

/// Listens to the player's stream for ever: accepts what the engine plays,
/// plays each game that starts.
async fn listen(bridge: Bridge) -> Result<()> {
    let mut events = Events::new("/v1/players/me/events".to_owned());
    let mut playing = std::collections::HashSet::new();
    while let Some((event, data)) = events.next(&bridge.http, &bridge.url, &bridge.key).await {
        match event.as_str() {
            "challenge" if data["challenge"]["status"] == "pending" => {
                let challenge = &data["challenge"];
                let id = challenge["id"].as_str().unwrap_or_default();
                let (path, body) = if bridge.plays(challenge["kind"].as_str().unwrap_or_default()) {
                    (format!("/v1/challenges/{id}/accept"), None)
                } else {
                    (
                        format!("/v1/challenges/{id}/decline"),
                        Some(json!({"reason": "kind"})),
                    )
                };
                let (status, answer) = bridge.call(reqwest::Method::POST, &path, body, &[]).await?;
                eprintln!(
                    "challenge {id}: {status} {}",
                    answer["code"].as_str().unwrap_or("")
                );
            }
            "game_start" => {
                let game = data["game"].as_str().unwrap_or_default().to_owned();
                let seat = data["seat"].as_str().unwrap_or_default().to_owned();
                if playing.insert(game.clone()) {
                    let bridge = bridge.clone();
                    tokio::spawn(async move {
                        match play(&bridge, &game, &seat).await {
                            Ok(ended) => eprintln!("game {game}: {}", summary(&ended, &seat)),
                            Err(e) => eprintln!("game {game}: {e:#}"),
                        }
                    });
                }
            }
            "game_finish" => {
                playing.remove(data["game"].as_str().unwrap_or_default());
            }
            _ => {}
        }
    }
    bail!("the player's stream is gone (404)")
}

fn summary(game: &Value, seat: &str) -> &'static str {
    match (game["status"].as_str(), game["winner"].as_str()) {
        (Some("draw"), _) => "draw",
        (Some("won"), Some(w)) if w == seat => "won",
        (Some("won"), _) => "lost",
        _ => "gone",
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let bridge = Bridge {
        http: reqwest::Client::new(),
        url: args.url.trim_end_matches('/').to_owned(),
        key: args.key,
        protocol: args.protocol,
        engine: args.engine,
    };
    let Some(level) = args.versus else {
        return listen(bridge).await;
    };
    let (mut won, mut lost, mut drawn) = (0, 0, 0);
    for n in 0..args.games {
        let seat = if n % 2 == 0 { "X" } else { "O" };
        let body = json!({"kind": args.kind, "seat": seat, "opponent": {"type": "bot", "level": level, "seed": n}});
        let (status, created) = bridge
            .call(reqwest::Method::POST, "/v1/games", Some(body), &[])
            .await?;
        if status != 201 {
            bail!("creating game {n}: {status} {created}");
        }
        let id = created["game"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let ended = play(&bridge, &id, seat).await?;
        match summary(&ended, seat) {
            "won" => won += 1,
            "lost" => lost += 1,
            "draw" => drawn += 1,
            other => bail!("game {id}: {other}"),
        }
        println!("game {} {id} as {seat}: {}", n + 1, summary(&ended, seat));
    }
    println!(
        "{} games against {level}: {won} won, {lost} lost, {drawn} drawn",
        args.games
    );
    Ok(())
}
