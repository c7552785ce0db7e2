//! Tabula's Gomoku bot against any Gomocup (Piskvork protocol) engine:
//! freestyle 15x15, openings of three stones near the centre, each played
//! twice with colours swapped, the engine limited by nodes per move.
//!
//! ```text
//! cargo run --release -p tabula-tools --example gomocup-match -- \
//!     --engine /work/rapfi-run/pbrain-rapfi --nodes 20000 --openings 12
//! ```
//!
//! The engine runs in its own directory (Rapfi reads `config.toml` there),
//! one process per game, told `INFO max_node N`, `INFO timeout_turn 0`
//! (no time limit) and `INFO rule 0` (five or more). Tabula's level
//! (`--level`, default `hard`) thinks as the service does: `ai::choose`
//! with the time budget `--budget-ms` (default 300) and the work derived
//! from it. Rapfi drops a command that arrives as it finishes a move, so
//! each `TURN` waits 10 ms; an engine that fails anyway (an `ERROR` for
//! its move, or its output closed) is started again with the position, at
//! most twice a game. Prints one line per game and the score;
//! `--seed N` (default 1) picks other openings, `--from N` skips the first
//! N of them (`--openings 24 --from 12`: the second half of 24, each game
//! as in the whole run), `--show true` prints each
//! finished board with its move numbers (Tabula's in brackets).
//! `--record FILE` appends each finished game to FILE as
//! `crates/tools/examples/gomoku-selfplay.rs` prints its games (the result, then
//! `row,col,eval` a move), with the engine's evaluation of each position it
//! moved in and `?` for the opening and Tabula's moves: data for
//! `crates/tools/examples/gomoku-patterns.rs` from the positions Tabula's play leads to.
//!
//! The searches are bounded by work, so a row is reproducible, but only
//! while no move reaches the budget's wall-clock cap: on a busy machine
//! some do, and the row changes (the same code scored clearly lower with a
//! build running beside it than alone). `--cap-ms N` keeps the work of
//! `--budget-ms` but raises the cap, so that a row on a loaded machine is
//! the row of a quiet one.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula::ai::{self, Budget, Level};
use tabula::rules::{AnyGame, GomokuOptions, GomokuRule, MoveInput, Player, Setup};

#[path = "common/piskvork.rs"]
mod piskvork;

const SIZE: i64 = 15;

struct Options {
    engine: String,
    nodes: u64,
    openings: u32,
    level: Level,
    budget: Budget,
    /// The wall-clock cap of a move when it is not the budget's.
    cap: Option<Budget>,
    seed: u64,
    /// The first opening played (the ones before are drawn and skipped).
    from: u32,
    show: bool,
    record: Option<String>,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        engine: String::new(),
        nodes: 20_000,
        openings: 12,
        level: Level::Hard,
        budget: Budget::from_millis(300),
        cap: None,
        seed: 1,
        from: 0,
        show: false,
        record: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--engine" => o.engine.clone_from(&value),
            "--nodes" => o.nodes = number()?,
            "--openings" => o.openings = u32::try_from(number()?).map_err(|e| e.to_string())?,
            "--level" => o.level = value.parse().map_err(|_| format!("--level {value}"))?,
            "--budget-ms" => o.budget = Budget::from_millis(number()?),
            "--cap-ms" => o.cap = Some(Budget::from_millis(number()?)),
            "--seed" => o.seed = number()?,
            "--from" => o.from = u32::try_from(number()?).map_err(|e| e.to_string())?,
            "--show" => o.show = value == "true",
            "--record" => o.record = Some(value),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if o.engine.is_empty() {
        return Err("--engine PATH is required".into());
    }
    Ok(o)
}

/// An engine process.
struct Engine(piskvork::Engine);

impl Engine {
    fn start(path: &str, nodes: u64) -> std::io::Result<Engine> {
        piskvork::Engine::start(path, nodes, SIZE).map(Engine)
    }

    fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.0.send(line)
    }

    fn reply(&mut self) -> std::io::Result<((i64, i64), String)> {
        self.0.reply()
    }
}

/// Three distinct stones within two cells of the centre (X, O, X).
fn opening(rng: &mut ChaCha8Rng) -> Vec<(i64, i64)> {
    let mut stones: Vec<(i64, i64)> = Vec::new();
    while stones.len() < 3 {
        let s = (7 + rng.random_range(-2..=2), 7 + rng.random_range(-2..=2));
        if !stones.contains(&s) {
            stones.push(s);
        }
    }
    stones
}

/// How many times a game starts the engine again after it fails.
const RESTARTS: u32 = 2;

enum Outcome {
    Won,
    Lost,
    Drawn,
}

/// One game from `stones` (row, column) with Tabula playing `tabula`.
fn play(
    o: &Options,
    stones: &[(i64, i64)],
    tabula: Player,
    seed: u64,
) -> std::io::Result<(Outcome, usize, Duration)> {
    let options = GomokuOptions::new(SIZE, GomokuRule::Freestyle).expect("15 is a size");
    let mut game = AnyGame::new(Setup::Gomoku(options));
    let mut history: Vec<(i64, i64)> = Vec::new();
    let mut evals: Vec<String> = Vec::new();
    for &(row, col) in stones {
        game.play_input(MoveInput::Cell { row, col })
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        history.push((row, col));
        evals.push("?".into());
    }
    let mut engine = Engine::start(&o.engine, o.nodes)?;
    let mut told = false;
    let mut restarts = 0;
    let mut thinking = Duration::ZERO;
    let mut ours = 0u32;
    while !game.is_over() {
        if game.to_move() == tabula {
            let start = Instant::now();
            let work = o.budget.work(game.kind());
            let cap = o.cap.unwrap_or(o.budget);
            let s = ai::choose_with_work(&game, o.level, seed + u64::from(ours), cap, work)
                .map_err(|e| std::io::Error::other(e.to_string()))?
                .ok_or_else(|| std::io::Error::other("no move"))?;
            thinking += start.elapsed();
            ours += 1;
            let MoveInput::Cell { row, col } = s.mv.input() else {
                return Err(std::io::Error::other("not a gomoku move"));
            };
            game.play_input(MoveInput::Cell { row, col })
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            history.push((row, col));
            evals.push("?".into());
            continue;
        }
        if told {
            let &(row, col) = history.last().expect("Tabula moved");
            std::thread::sleep(Duration::from_millis(10));
            engine.send(&format!("TURN {col},{row}"))?;
        } else {
            // The position so far, the engine's stones as 1.
            engine.send("BOARD")?;
            for (i, &(row, col)) in history.iter().enumerate() {
                let by = if i % 2 == 0 { Player::X } else { Player::O };
                let own = if by == tabula { 2 } else { 1 };
                engine.send(&format!("{col},{row},{own}"))?;
            }
            engine.send("DONE")?;
            told = true;
        }
        let ((x, y), eval) = match engine.reply() {
            Ok(reply) => reply,
            Err(e) if restarts < RESTARTS => {
                // Rapfi has answered a `TURN` with `ERROR Unknown command`
                // (once in ~2,000 games): a new process, told the position.
                eprintln!("the engine failed ({e}): started again with the position");
                restarts += 1;
                engine = Engine::start(&o.engine, o.nodes)?;
                told = false;
                continue;
            }
            Err(e) => return Err(e),
        };
        if game.play_input(MoveInput::Cell { row: y, col: x }).is_err() {
            eprintln!("the engine played an illegal move {x},{y}: it loses");
            return Ok((Outcome::Won, history.len(), thinking / ours.max(1)));
        }
        history.push((y, x));
        evals.push(eval);
    }
    if o.show {
        show(&history, tabula);
    }
    if let Some(file) = &o.record {
        record(file, &history, &evals, game.winner())?;
    }
    let result = match game.winner() {
        Some(w) if w == tabula => Outcome::Won,
        Some(_) => Outcome::Lost,
        None => Outcome::Drawn,
    };
    Ok((result, history.len(), thinking / ours.max(1)))
}

/// Appends a finished game to `file` as `gomoku-selfplay` prints one.
fn record(
    file: &str,
    history: &[(i64, i64)],
    evals: &[String],
    winner: Option<Player>,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let result = match winner {
        Some(Player::X) => 'X',
        Some(_) => 'O',
        None => 'D',
    };
    let moves = history.iter().zip(evals).map(|(&m, e)| (m, e.as_str()));
    let mut line = piskvork::game_line(result, moves);
    line.push('\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?
        .write_all(line.as_bytes())
}

/// Prints a finished game on standard error: the board with each stone's
/// move number (Tabula's in brackets).
fn show(history: &[(i64, i64)], tabula: Player) {
    let mut grid = vec![vec![String::from("  . "); SIZE as usize]; SIZE as usize];
    for (i, &(r, c)) in history.iter().enumerate() {
        let by = if i % 2 == 0 { Player::X } else { Player::O };
        let mark = if by == tabula {
            format!("[{:>2}]", i + 1)
        } else {
            format!(" {:>2} ", i + 1)
        };
        grid[r as usize][c as usize] = mark;
    }
    let mut out = String::from("     ");
    for c in 0..SIZE {
        let _ = write!(out, "{c:>3} ");
    }
    out.push('\n');
    for (r, row) in grid.iter().enumerate() {
        let _ = writeln!(out, "{r:>3}  {}", row.concat());
    }
    eprintln!("{out}");
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    let (mut won, mut drawn, mut lost) = (0u32, 0u32, 0u32);
    for i in 0..o.openings {
        let stones = opening(&mut rng);
        if i < o.from {
            continue;
        }
        for tabula in [Player::O, Player::X] {
            let seed = o.seed * 1000 + u64::from(i) * 2 + u64::from(tabula == Player::X);
            match play(&o, &stones, tabula, seed) {
                Ok((result, plies, per_move)) => {
                    let word = match result {
                        Outcome::Won => {
                            won += 1;
                            "won"
                        }
                        Outcome::Lost => {
                            lost += 1;
                            "lost"
                        }
                        Outcome::Drawn => {
                            drawn += 1;
                            "drawn"
                        }
                    };
                    println!(
                        "opening {i} {stones:?}, Tabula {tabula:?}: {word} in {plies} plies ({:.0} ms a move)",
                        per_move.as_secs_f64() * 1000.0
                    );
                }
                Err(e) => {
                    eprintln!("opening {i}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let games = won + drawn + lost;
    let score = (f64::from(won) + f64::from(drawn) / 2.0) / f64::from(games.max(1));
    println!(
        "Tabula {} at {} ms against the engine at {} nodes: {games} games, {won} won, {drawn} drawn, {lost} lost: {:.1}%",
        o.level,
        o.budget.time.as_millis(),
        o.nodes,
        score * 100.0
    );
    ExitCode::SUCCESS
}
