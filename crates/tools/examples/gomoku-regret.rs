//! Gomoku move quality measured by a stronger engine, position by position.
//!
//! A row of games against Rapfi (`gomocup-match`) moves by about five games
//! in 96 whenever any move changes, which hides differences of a few points.
//! This measures moves instead: the positions where Tabula was to move in
//! recorded games (`gomocup-match --record`), each played by the engine
//! under test, and a stronger engine (the oracle, e.g. Rapfi at 200,000
//! nodes) asked how good the position is before and after. A move's loss is
//! the oracle's chance for the mover before, less its chance after: a
//! logistic of its evaluation at 250 units a logit (an assumed scale), a
//! mate counted as 3,000 units. The same positions serve every engine, so
//! two settings compare move for move.
//!
//! ```text
//! gomoku-regret positions --oracle RAPFI [--oracle-nodes 200000] [--max-ply 25] REC... > pos.txt
//! gomoku-regret score --oracle RAPFI --positions pos.txt [--level hard] [--budget-ms 300] [--work N] [--seed 1] > a.txt
//! gomoku-regret score --oracle RAPFI --positions pos.txt --engine RAPFI --nodes 20000 > b.txt
//! gomoku-regret compare a.txt b.txt
//! gomoku-regret play --positions pos.txt [--level hard] [--budget-ms 300] [--work N] [--seed 1] > moves.txt
//! ```
//!
//! `positions` writes one position a line: the oracle's evaluation for the
//! side to move, then the stones as `row,col` from X's first. `score` plays
//! each with Tabula in-process as `pbrain-tabula` would (`ai::choose` at the
//! level and budget, the seed one more each position), or with a Gomocup
//! engine (`--engine`, limited by `--nodes`), and writes `ply before after
//! row,col` a line. `compare` prints each file's mean loss a move by side
//! and by stage of the game, its drops of over 300 units, and the standard
//! error of its difference from the first file's, move for move. `play`
//! plays each position with Tabula as `score` does, without an oracle, and
//! writes `ply row,col` a line and the mean time a move (`--work`: that work
//! allowance instead of the budget's, the budget's time still the cap): two
//! builds that must search alike (a change that only makes it faster) give
//! the same file, and their times compare. The oracle
//! keeps its hash table from one question to the next, so its answers depend
//! a little on their order (the same for every engine scored).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use tabula::ai::{self, Budget, Level};
use tabula::rules::{AnyGame, GomokuOptions, GomokuRule, MoveInput, Setup};

#[path = "common/piskvork.rs"]
#[allow(dead_code)] // `game_line`: this example records no games
mod piskvork;

const SIZE: i64 = 15;
/// A mate's value, and the bound of every evaluation.
const MATE: i64 = 3_000;
/// Evaluation units a logit.
const SCALE: f64 = 250.0;

type Stone = (i64, i64);

/// The oracle (or an engine under test): a Gomocup engine process.
struct Oracle(piskvork::Engine);

impl Oracle {
    fn start(path: &str, nodes: u64) -> std::io::Result<Oracle> {
        piskvork::Engine::start(path, nodes, SIZE).map(Oracle)
    }

    /// The engine's move and its evaluation, for the side to move after
    /// `stones`, the position given afresh.
    fn ask(&mut self, stones: &[Stone]) -> std::io::Result<(Stone, String)> {
        // Rapfi drops a command that arrives as it finishes a move.
        std::thread::sleep(Duration::from_millis(10));
        self.0.send("BOARD")?;
        let me = stones.len() % 2;
        for (i, &(row, col)) in stones.iter().enumerate() {
            let own = if i % 2 == me { 1 } else { 2 };
            self.0.send(&format!("{col},{row},{own}"))?;
        }
        self.0.send("DONE")?;
        let ((x, y), eval) = self.0.reply()?;
        Ok(((y, x), eval))
    }
}

/// An evaluation as the engine printed it, bounded; `None` when it printed
/// none.
fn value(eval: &str) -> Option<i64> {
    if eval.starts_with("+M") {
        Some(MATE)
    } else if eval.starts_with("-M") {
        Some(-MATE)
    } else {
        eval.parse::<i64>().ok().map(|v| v.clamp(-MATE, MATE))
    }
}

fn chance(v: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let v = v as f64;
    1.0 / (1.0 + (-v / SCALE).exp())
}

/// `row,col`.
fn stone(s: &str) -> Option<Stone> {
    let mut parts = s.split(',');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The game after `stones`.
fn game_of(stones: &[Stone]) -> Result<AnyGame, String> {
    let options = GomokuOptions::new(SIZE, GomokuRule::Freestyle).map_err(|e| e.to_string())?;
    let mut game = AnyGame::new(Setup::Gomoku(options));
    for &(row, col) in stones {
        game.play_input(MoveInput::Cell { row, col })
            .map_err(|e| format!("{row},{col}: {e}"))?;
    }
    Ok(game)
}

/// The value after the mover played `mv`, for the mover: a five wins; else
/// the oracle's evaluation for the opponent, negated (none printed: it made
/// five at once).
fn after(oracle: &mut Oracle, stones: &[Stone], mv: Stone) -> Result<i64, String> {
    let mut next = stones.to_vec();
    next.push(mv);
    let game = game_of(&next)?;
    if game.is_over() {
        return Ok(if game.winner().is_some() { MATE } else { 0 });
    }
    let (_, eval) = oracle.ask(&next).map_err(|e| e.to_string())?;
    Ok(value(&eval).map_or(-MATE, |v| -v))
}

struct Args {
    oracle: String,
    oracle_nodes: u64,
    max_ply: usize,
    positions: String,
    engine: Option<String>,
    nodes: u64,
    level: Level,
    budget_ms: u64,
    work: Option<u64>,
    seed: u64,
    files: Vec<String>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        oracle: String::new(),
        oracle_nodes: 200_000,
        max_ply: 25,
        positions: String::new(),
        engine: None,
        nodes: 0,
        level: Level::Hard,
        budget_ms: 300,
        work: None,
        seed: 1,
        files: Vec::new(),
    };
    while let Some(flag) = args.next() {
        if !flag.starts_with("--") {
            a.files.push(flag);
            continue;
        }
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--oracle" => a.oracle.clone_from(&value),
            "--oracle-nodes" => a.oracle_nodes = number()?,
            "--max-ply" => a.max_ply = usize::try_from(number()?).map_err(|e| e.to_string())?,
            "--positions" => a.positions.clone_from(&value),
            "--engine" => a.engine = Some(value),
            "--nodes" => a.nodes = number()?,
            "--level" => a.level = value.parse().map_err(|_| format!("--level {value}"))?,
            "--budget-ms" => a.budget_ms = number()?,
            "--work" => a.work = Some(number()?),
            "--seed" => a.seed = number()?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(a)
}

/// The positions where Tabula was to move in the recorded games (its moves
/// are the ones recorded without an evaluation), before `--max-ply`.
fn positions(a: &Args) -> Result<(), String> {
    let mut oracle = Oracle::start(&a.oracle, a.oracle_nodes).map_err(|e| e.to_string())?;
    let mut count = 0;
    for file in &a.files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for line in text.lines() {
            let moves: Vec<(Stone, &str)> = line
                .split_whitespace()
                .skip(1)
                .filter_map(|m| {
                    let (rc, eval) = m.rsplit_once(',')?;
                    Some((stone(rc)?, eval))
                })
                .collect();
            let Some(engine) = moves.iter().position(|&(_, e)| e != "?") else {
                continue;
            };
            let tabula = 1 - engine % 2;
            let stones: Vec<Stone> = moves.iter().map(|&(s, _)| s).collect();
            for i in (3..a.max_ply.min(stones.len().saturating_sub(1))).filter(|i| i % 2 == tabula)
            {
                let (_, eval) = oracle.ask(&stones[..i]).map_err(|e| e.to_string())?;
                let before = value(&eval).unwrap_or(MATE);
                let cells: Vec<String> = stones[..i]
                    .iter()
                    .map(|(r, c)| format!("{r},{c}"))
                    .collect();
                println!("{before} {}", cells.join(" "));
                count += 1;
            }
        }
    }
    eprintln!("{count} positions");
    Ok(())
}

/// Each position played by the engine under test, and scored.
fn score(a: &Args) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&a.positions).map_err(|e| format!("{}: {e}", a.positions))?;
    let mut oracle = Oracle::start(&a.oracle, a.oracle_nodes).map_err(|e| e.to_string())?;
    let mut engine = match &a.engine {
        Some(path) => Some(Oracle::start(path, a.nodes).map_err(|e| e.to_string())?),
        None => None,
    };
    for (k, line) in text.lines().enumerate() {
        let (before, stones) = position(k, line)?;
        let mv = if let Some(engine) = engine.as_mut() {
            engine.ask(&stones).map_err(|e| e.to_string())?.0
        } else {
            tabula_move(a, k, &stones)?
        };
        let value = after(&mut oracle, &stones, mv)?;
        println!("{} {before} {value} {},{}", stones.len(), mv.0, mv.1);
    }
    Ok(())
}

/// The `k`th line (from 0) of a positions file: the oracle's evaluation
/// and the stones.
fn position(k: usize, line: &str) -> Result<(i64, Vec<Stone>), String> {
    let mut parts = line.split_whitespace();
    let before: i64 = parts
        .next()
        .and_then(|v| v.parse().ok())
        .ok_or(format!("line {}: no evaluation", k + 1))?;
    let stones = parts
        .map(stone)
        .collect::<Option<_>>()
        .ok_or(format!("line {}", k + 1))?;
    Ok((before, stones))
}

/// Tabula's move in the `k`th position (from 0), `stones`.
fn tabula_move(a: &Args, k: usize, stones: &[Stone]) -> Result<Stone, String> {
    let game = game_of(stones)?;
    let seed = a.seed.wrapping_add(k as u64 + 1);
    let budget = Budget::from_millis(a.budget_ms);
    let s = match a.work {
        Some(work) => ai::choose_with_work(&game, a.level, seed, budget, work),
        None => ai::choose(&game, a.level, seed, budget),
    }
    .map_err(|e| e.to_string())?
    .ok_or("no move")?;
    let MoveInput::Cell { row, col } = s.mv.input() else {
        return Err("not a gomoku move".into());
    };
    Ok((row, col))
}

/// Each position played by Tabula, with the time it took.
fn play(a: &Args) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&a.positions).map_err(|e| format!("{}: {e}", a.positions))?;
    let mut spent = Duration::ZERO;
    let mut count = 0;
    for (k, line) in text.lines().enumerate() {
        let (_, stones) = position(k, line)?;
        let start = Instant::now();
        let mv = tabula_move(a, k, &stones)?;
        spent += start.elapsed();
        count += 1;
        println!("{} {},{}", stones.len(), mv.0, mv.1);
    }
    eprintln!(
        "{count} moves, {:.1} ms a move",
        spent.as_secs_f64() * 1e3 / f64::from(count.max(1))
    );
    Ok(())
}

/// A line of a score file: `(ply, before, after, move)`.
type Scored = (usize, i64, i64, String);

fn scored(line: &str) -> Option<Scored> {
    let p: Vec<&str> = line.split_whitespace().collect();
    let [ply, before, after, mv] = p.as_slice() else {
        return None;
    };
    Some((
        ply.parse().ok()?,
        before.parse().ok()?,
        after.parse().ok()?,
        (*mv).to_owned(),
    ))
}

fn read_score(file: &str) -> Result<Vec<Scored>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    text.lines()
        .map(|line| scored(line).ok_or(format!("{file}: {line}")))
        .collect()
}

#[allow(clippy::cast_precision_loss)]
fn compare(a: &Args) -> Result<(), String> {
    let runs: Vec<_> = a
        .files
        .iter()
        .map(|f| read_score(f).map(|r| (f, r)))
        .collect::<Result<_, _>>()?;
    let Some((_, first)) = runs.first() else {
        return Err("compare needs score files".into());
    };
    let loss = |r: &Scored| chance(r.1) - chance(r.2);
    let mean =
        |rows: &[&Scored]| rows.iter().map(|r| loss(r)).sum::<f64>() / rows.len().max(1) as f64;
    for (name, rows) in &runs {
        let pick = |f: &dyn Fn(usize) -> bool| rows.iter().filter(|r| f(r.0)).collect::<Vec<_>>();
        let drops = rows.iter().filter(|r| r.1 - r.2 > 300).count();
        print!(
            "{name}: {:.4} a move (n {}); X {:.4}, O {:.4}; plies 3-8 {:.4}, 9-14 {:.4}, 15+ {:.4}; drops over 300: {drops}",
            mean(&pick(&|_| true)),
            rows.len(),
            mean(&pick(&|p| p % 2 == 0)),
            mean(&pick(&|p| p % 2 == 1)),
            mean(&pick(&|p| p < 9)),
            mean(&pick(&|p| (9..15).contains(&p))),
            mean(&pick(&|p| p >= 15)),
        );
        if rows.len() == first.len() {
            let d: Vec<f64> = rows
                .iter()
                .zip(first)
                .map(|(r, f)| loss(r) - loss(f))
                .collect();
            let n = d.len() as f64;
            let m = d.iter().sum::<f64>() / n;
            let sd = (d.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
            let same = rows.iter().zip(first).filter(|(r, f)| r.3 == f.3).count();
            print!(
                "; against the first {m:+.4} (standard error {:.4}), the same move {same}",
                sd / n.sqrt()
            );
        }
        println!();
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut argv = std::env::args().skip(1);
    let command = argv.next().unwrap_or_default();
    let result = parse(argv).and_then(|a| match command.as_str() {
        "positions" if !a.oracle.is_empty() => positions(&a),
        "score" if !a.oracle.is_empty() && !a.positions.is_empty() => score(&a),
        "compare" => compare(&a),
        "play" if !a.positions.is_empty() => play(&a),
        _ => {
            Err("usage: gomoku-regret positions|score|compare|play (see the source's docs)".into())
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
