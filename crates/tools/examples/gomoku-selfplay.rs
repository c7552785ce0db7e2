//! Games of a Gomocup engine against itself, for fitting `hard`'s weights
//! (`crates/tools/examples/gomoku-tune.rs`): freestyle 15x15, openings of three random
//! stones within `--spread` cells of the centre, the engine limited by
//! `--nodes` a move. Prints one game a line: the result (`X`, `O` or `D`)
//! and the moves as `row,col,eval` from the first stone (the engine's
//! evaluation of the position it moved in, for the mover, as it printed
//! it: `?` for the opening stones).
//!
//! ```text
//! cargo run --release -p tabula-tools --features tuning --example gomoku-selfplay -- --engine /work/rapfi-run/pbrain-rapfi \
//!     --nodes 20000 --games 500 --seed 200 --spread 3 > games.txt
//! cargo run --release -p tabula-tools --features tuning --example gomoku-selfplay -- --engine /work/rapfi-run/pbrain-rapfi \
//!     --nodes 20000 --seed 300 --perturb games.txt > perturbed.txt
//! ```
//!
//! Two engine processes a game (one a colour), each told `INFO max_node N`
//! and `INFO timeout_turn 0`; each `TURN` waits 10 ms (Rapfi drops a command
//! that arrives as it finishes a move). `--perturb FILE`: positions off the
//! paths of the games in FILE, with the engine's evaluation (see
//! [`perturbed`]).

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula::ai::gomoku_tuning::{candidates, evaluation_terms};
use tabula::rules::gomoku::Gomoku;
use tabula::rules::{Game, GomokuOptions, GomokuRule};

#[path = "common/piskvork.rs"]
mod piskvork;

const SIZE: i64 = 15;

/// An engine process, and whether it has been told the game so far.
struct Engine {
    process: piskvork::Engine,
    told: bool,
}

impl Engine {
    fn start(path: &str, nodes: u64) -> std::io::Result<Engine> {
        Ok(Engine {
            process: piskvork::Engine::start(path, nodes, SIZE)?,
            told: false,
        })
    }

    fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.process.send(line)
    }

    fn line(&mut self) -> std::io::Result<String> {
        self.process.line()
    }

    /// The engine's move for the position `history` (row, col; X first),
    /// its own colour `me` (0 = X).
    fn think(
        &mut self,
        history: &[(i64, i64)],
        me: usize,
    ) -> std::io::Result<((i64, i64), String)> {
        if self.told {
            let &(row, col) = history.last().expect("the opponent moved");
            std::thread::sleep(Duration::from_millis(10));
            self.send(&format!("TURN {col},{row}"))?;
        } else {
            self.send("BOARD")?;
            for (i, &(row, col)) in history.iter().enumerate() {
                let own = if i % 2 == me { 1 } else { 2 };
                self.send(&format!("{col},{row},{own}"))?;
            }
            self.send("DONE")?;
            self.told = true;
        }
        let ((x, y), eval) = self.process.reply()?;
        Ok(((y, x), eval))
    }
}

/// Five in a row (or more) through the last stone of `history`.
fn five(grid: &[[u8; 15]; 15], (r, c): (i64, i64)) -> bool {
    let who = grid[r as usize][c as usize];
    [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| {
        let mut run = 1;
        for sign in [-1, 1] {
            let (mut y, mut x) = (r + sign * dr, c + sign * dc);
            while (0..SIZE).contains(&y)
                && (0..SIZE).contains(&x)
                && grid[y as usize][x as usize] == who
            {
                run += 1;
                y += sign * dr;
                x += sign * dc;
            }
        }
        run >= 5
    })
}

/// A finished game: its result and its moves, each with the mover's
/// evaluation (`?` for the opening stones).
type Record = (char, Vec<((i64, i64), String)>);

fn game(engine: &str, nodes: u64, stones: &[(i64, i64)]) -> std::io::Result<Record> {
    let mut grid = [[0u8; 15]; 15];
    let mut history = Vec::new();
    let mut evals = Vec::new();
    for (i, &(r, c)) in stones.iter().enumerate() {
        grid[r as usize][c as usize] = 1 + (i % 2) as u8;
        history.push((r, c));
        evals.push(String::from("?"));
    }
    let mut engines = [Engine::start(engine, nodes)?, Engine::start(engine, nodes)?];
    loop {
        let me = history.len() % 2;
        let ((r, c), eval) = engines[me].think(&history, me)?;
        if !(0..SIZE).contains(&r) || !(0..SIZE).contains(&c) || grid[r as usize][c as usize] != 0 {
            return Err(std::io::Error::other(format!("illegal move {r},{c}")));
        }
        grid[r as usize][c as usize] = 1 + me as u8;
        history.push((r, c));
        evals.push(eval);
        let done = if five(&grid, (r, c)) {
            Some(if me == 0 { 'X' } else { 'O' })
        } else {
            (history.len() == (SIZE * SIZE) as usize).then_some('D')
        };
        if let Some(result) = done {
            return Ok((result, history.into_iter().zip(evals).collect()));
        }
    }
}

/// Positions off the games' paths, as a search meets them: from an
/// eighth of the positions of the games in `file`, one to three moves
/// each drawn from the best 12 of `hard`'s move ordering, then the
/// engine's evaluation of where they lead. Prints `P:eval` (for the side
/// to move) and the moves, a position a line.
fn perturbed(engine: &str, nodes: u64, file: &str, rng: &mut ChaCha8Rng) -> std::io::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let mut rapfi = Engine::start(engine, nodes)?;
    let out = std::io::stdout();
    for line in text.lines() {
        let moves: Vec<(i64, i64)> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|word| {
                let mut f = word.split(',');
                Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
            })
            .collect();
        for i in 3..moves.len() {
            if rng.random_range(0..8) != 0 {
                continue;
            }
            let options = GomokuOptions::new(SIZE, GomokuRule::Freestyle).expect("a size");
            let mut g = Gomoku::new(options);
            let mut history = moves[..i].to_vec();
            for &(r, c) in &history {
                let p = g
                    .point(r, c)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                g.try_play(p)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            let extra = rng.random_range(1..=3);
            let mut ok = true;
            for _ in 0..extra {
                let Some(mut cands) = candidates(&g) else {
                    ok = false;
                    break;
                };
                cands.sort_by_key(|c| std::cmp::Reverse(c.score));
                cands.truncate(12);
                if cands.is_empty() {
                    ok = false;
                    break;
                }
                let c = &cands[rng.random_range(0..cands.len())];
                let (r, col) = (c.row as i64, c.col as i64);
                let p = g
                    .point(r, col)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                g.try_play(p)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                history.push((r, col));
                if g.winner().is_some() {
                    ok = false;
                    break;
                }
            }
            if !ok || evaluation_terms(&g).is_none() {
                continue;
            }
            // Rapfi drops a command that arrives as it finishes a move.
            std::thread::sleep(Duration::from_millis(20));
            rapfi.send("RESTART")?;
            loop {
                if rapfi.line()? == "OK" {
                    break;
                }
            }
            rapfi.told = false;
            let (_, eval) = rapfi.think(&history, history.len() % 2)?;
            let moves: Vec<String> = history.iter().map(|(r, c)| format!("{r},{c},?")).collect();
            let mut out = out.lock();
            writeln!(out, "P:{eval} {}", moves.join(" "))?;
            out.flush()?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut engine = String::new();
    let (mut nodes, mut games, mut seed, mut spread) = (5_000u64, 100u64, 1u64, 2i64);
    let mut perturb = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let Some(value) = args.next() else {
            eprintln!("{flag} needs a value");
            return ExitCode::FAILURE;
        };
        let n = value.parse::<u64>().unwrap_or(0);
        match flag.as_str() {
            "--engine" => engine = value,
            "--nodes" => nodes = n,
            "--games" => games = n,
            "--seed" => seed = n,
            "--spread" => spread = i64::try_from(n).unwrap_or(2),
            "--perturb" => perturb = Some(value),
            _ => {
                eprintln!("unknown flag {flag}");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if let Some(file) = perturb {
        return match perturbed(&engine, nodes, &file, &mut rng) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    let out = std::io::stdout();
    for _ in 0..games {
        let mut stones: Vec<(i64, i64)> = Vec::new();
        while stones.len() < 3 {
            let s = (
                7 + rng.random_range(-spread..=spread),
                7 + rng.random_range(-spread..=spread),
            );
            if !stones.contains(&s) {
                stones.push(s);
            }
        }
        match game(&engine, nodes, &stones) {
            Ok((result, history)) => {
                let moves = history.iter().map(|(m, e)| (*m, e.as_str()));
                let mut out = out.lock();
                let _ = writeln!(out, "{}", piskvork::game_line(result, moves));
                let _ = out.flush();
            }
            Err(e) => eprintln!("a game failed: {e}"),
        }
    }
    ExitCode::SUCCESS
}
