//! Tabula's Gomoku bot as a Gomocup engine (the Piskvork protocol on
//! standard input and output), so it plays in any Gomocup manager:
//!
//! ```text
//! cargo build --release --example pbrain-tabula
//! target/release/examples/pbrain-tabula [--level hard] [--budget-ms 300] [--seed 1]
//! ```
//!
//! Commands: `START n` (sizes 5 to 25), `RESTART`, `BEGIN`, `TURN x,y`,
//! `BOARD` … `DONE`, `INFO rule r` (0: five or more, 1: exactly five; others
//! are refused with an `ERROR`), `INFO timeout_turn ms` (caps the budget;
//! 0 keeps it), other `INFO` ignored, `ABOUT`, `END`. Coordinates are
//! `x,y`: column, then row, from 0. The bot thinks as the service's does
//! (`ai::choose` with the budget's time and the work derived from it).

use std::io::{BufRead, Write};

use tabula::ai::{self, Budget, Level};
use tabula::rules::{AnyGame, GomokuOptions, GomokuRule, MoveInput, Setup};

struct Brain {
    level: Level,
    budget_ms: u64,
    turn_ms: Option<u64>,
    seed: u64,
    size: i64,
    rule: GomokuRule,
    game: Option<AnyGame>,
    moves: u64,
}

impl Brain {
    fn new_game(&mut self) -> Result<(), String> {
        let options = GomokuOptions::new(self.size, self.rule).map_err(|e| e.to_string())?;
        self.game = Some(AnyGame::new(Setup::Gomoku(options)));
        Ok(())
    }

    fn play(&mut self, x: i64, y: i64) -> Result<(), String> {
        let game = self.game.as_mut().ok_or("no game: START first")?;
        game.play_input(MoveInput::Cell { row: y, col: x })
            .map(|_| ())
            .map_err(|e| format!("{x},{y}: {e}"))
    }

    /// Thinks, plays and names the bot's move.
    fn think(&mut self) -> Result<String, String> {
        let game = self.game.as_mut().ok_or("no game: START first")?;
        if game.is_over() {
            return Err("the game is over".into());
        }
        let ms = match self.turn_ms {
            Some(t) if t > 0 => self.budget_ms.min(t.saturating_sub(t / 10 + 20).max(1)),
            _ => self.budget_ms,
        };
        self.moves += 1;
        let s = ai::choose(
            game,
            self.level,
            self.seed.wrapping_add(self.moves),
            Budget::from_millis(ms),
        )
        .map_err(|e| e.to_string())?
        .ok_or("no move")?;
        let MoveInput::Cell { row, col } = s.mv.input() else {
            return Err("not a gomoku move".into());
        };
        game.play_input(MoveInput::Cell { row, col })
            .map_err(|e| e.to_string())?;
        Ok(format!("{col},{row}"))
    }

    /// Answers one command line; `None` to stop.
    fn answer(
        &mut self,
        line: &str,
        input: &mut impl Iterator<Item = String>,
    ) -> Option<Result<String, String>> {
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let pair = |s: &str| -> Result<(i64, i64), String> {
            let mut it = s.trim().split(',').map(|v| v.trim().parse::<i64>());
            match (it.next(), it.next()) {
                (Some(Ok(x)), Some(Ok(y))) => Ok((x, y)),
                _ => Err(format!("unreadable coordinates {s:?}")),
            }
        };
        Some(match command.to_ascii_uppercase().as_str() {
            "START" => rest
                .trim()
                .parse::<i64>()
                .map_err(|e| e.to_string())
                .and_then(|n| {
                    self.size = n;
                    self.new_game()
                })
                .map(|()| "OK".into()),
            "RESTART" => self.new_game().map(|()| "OK".into()),
            "BEGIN" => self.think(),
            "TURN" => pair(rest)
                .and_then(|(x, y)| self.play(x, y))
                .and_then(|()| self.think()),
            "BOARD" => {
                // The stones, own (1) and the opponent's (2), in no order:
                // replayed alternately from the engine's if it has as many (it is X
                // then), else from the opponent's.
                let mut own = Vec::new();
                let mut theirs = Vec::new();
                for l in input.by_ref() {
                    let l = l.trim().to_owned();
                    if l.eq_ignore_ascii_case("DONE") {
                        break;
                    }
                    let mut it = l.split(',').map(|v| v.trim().parse::<i64>());
                    if let (Some(Ok(x)), Some(Ok(y)), Some(Ok(who))) =
                        (it.next(), it.next(), it.next())
                    {
                        if who == 1 {
                            own.push((x, y));
                        } else {
                            theirs.push((x, y));
                        }
                    }
                }
                let result = self.new_game().and_then(|()| {
                    let (first, second) = if own.len() >= theirs.len() {
                        (&own, &theirs)
                    } else {
                        (&theirs, &own)
                    };
                    for i in 0..first.len().max(second.len()) {
                        for side in [first, second] {
                            if let Some(&(x, y)) = side.get(i) {
                                self.play(x, y)?;
                            }
                        }
                    }
                    Ok(())
                });
                result.and_then(|()| self.think())
            }
            "INFO" => {
                let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match key.to_ascii_lowercase().as_str() {
                    "rule" => {
                        self.rule = match value.trim() {
                            "0" => GomokuRule::Freestyle,
                            "1" => GomokuRule::Standard,
                            _ => {
                                return Some(Err(format!(
                                    "rule {value} is not played here (0: five or more, 1: exactly five)"
                                )));
                            }
                        };
                        // Sent after START: the game (no stone yet) takes it.
                        self.new_game().map(|()| String::new())
                    }
                    "timeout_turn" => {
                        self.turn_ms = value.trim().parse().ok();
                        Ok(String::new())
                    }
                    _ => Ok(String::new()),
                }
            }
            "ABOUT" => Ok(format!(
                "name=\"tabula\", version=\"{}\", author=\"Tabula\", country=\"-\"",
                env!("CARGO_PKG_VERSION")
            )),
            "END" => return None,
            "" => Ok(String::new()),
            other => Err(format!("unknown command {other}")),
        })
    }
}

fn main() {
    let mut brain = Brain {
        level: Level::Hard,
        budget_ms: 300,
        turn_ms: None,
        seed: 1,
        size: 15,
        rule: GomokuRule::Freestyle,
        game: None,
        moves: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--level" => brain.level = value.parse().unwrap_or(Level::Hard),
            "--budget-ms" => brain.budget_ms = value.parse().unwrap_or(300),
            "--seed" => brain.seed = value.parse().unwrap_or(1),
            _ => eprintln!("unknown flag {flag}"),
        }
    }
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines().map_while(Result::ok);
    let mut out = std::io::stdout();
    while let Some(line) = lines.next() {
        let line = line.trim().to_owned();
        match brain.answer(&line, &mut lines) {
            None => break,
            Some(Ok(reply)) if reply.is_empty() => {}
            Some(Ok(reply)) => {
                let _ = writeln!(out, "{reply}");
            }
            Some(Err(e)) => {
                let _ = writeln!(out, "ERROR {e}");
            }
        }
        let _ = out.flush();
    }
}
