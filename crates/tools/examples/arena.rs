//! Bots against bots: seeded level-vs-level matches for every game kind,
//! printed as markdown tables.
//!
//! ```text
//! cargo run --release -p tabula-tools --example arena -- --games 100 --gomoku-games 20 --budget-ms 50
//! ```
//!
//! Each pair of levels plays `--games` games (`--gomoku-games` for gomoku),
//! swapping colours every game; game `i` uses seed `--seed + i`. Budgets go
//! through [`ai::choose`] like the service's (time cap `--budget-ms`, work
//! derived from it) unless `--work` fixes the work allowance. Games run on
//! `--threads` threads (default: all cores); the time per move is measured
//! per level.
//!
//! Options: `--kinds tic_tac_toe,connect_four,gomoku,ultimate_tic_tac_toe`,
//! `--pairs adjacent|all` (default `all`), `--gomoku-size 15`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tabula::ai::{self, Budget, Level};
use tabula::rules::{AnyGame, GameKind, GomokuOptions, GomokuRule, Player, Setup};

/// Command-line options.
#[derive(Clone, Debug)]
struct Options {
    games: u32,
    gomoku_games: u32,
    budget: Budget,
    work: Option<u64>,
    seed: u64,
    threads: usize,
    kinds: Vec<GameKind>,
    all_pairs: bool,
    gomoku_size: i64,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
        let mut o = Options {
            games: 100,
            gomoku_games: 20,
            budget: Budget::from_millis(50),
            work: None,
            seed: 1,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            kinds: GameKind::ALL.to_vec(),
            all_pairs: true,
            gomoku_size: 15,
        };
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or(format!("{flag} needs a value"));
            let number = |v: String| v.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
            match flag.as_str() {
                "--games" => o.games = number(value()?)?.try_into().map_err(|_| "too many")?,
                "--gomoku-games" => {
                    o.gomoku_games = number(value()?)?.try_into().map_err(|_| "too many")?;
                }
                "--budget-ms" => o.budget = Budget::from_millis(number(value()?)?),
                "--work" => o.work = Some(number(value()?)?),
                "--seed" => o.seed = number(value()?)?,
                "--threads" => o.threads = number(value()?)?.max(1).try_into().unwrap_or(1),
                "--gomoku-size" => o.gomoku_size = number(value()?)?.try_into().unwrap_or(15),
                "--pairs" => {
                    o.all_pairs = match value()?.as_str() {
                        "all" => true,
                        "adjacent" => false,
                        other => return Err(format!("--pairs: all or adjacent, not {other}")),
                    }
                }
                "--kinds" => {
                    o.kinds = value()?
                        .split(',')
                        .map(|k| k.parse::<GameKind>().map_err(|e| e.to_string()))
                        .collect::<Result<_, _>>()?;
                }
                "--help" | "-h" => return Err(String::new()),
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(o)
    }

    fn setup(&self, kind: GameKind) -> Result<Setup, String> {
        Ok(match kind {
            GameKind::Gomoku => Setup::Gomoku(
                GomokuOptions::new(self.gomoku_size, GomokuRule::Freestyle)
                    .map_err(|e| e.to_string())?,
            ),
            other => Setup::default_for(other),
        })
    }
}

/// What happened in the games of one pair.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    wins: [u32; 2],
    draws: u32,
}

/// Time spent per level.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    moves: u64,
    total: Duration,
    longest: Duration,
}

impl Clock {
    fn add(&mut self, other: Clock) {
        self.moves += other.moves;
        self.total += other.total;
        self.longest = self.longest.max(other.longest);
    }
}

/// Plays one game; the winning level's index in `levels` (None for a draw)
/// and the time per level.
fn play(
    setup: Setup,
    levels: [Level; 2],
    x_first: usize,
    seed: u64,
    options: &Options,
) -> (Option<usize>, [Clock; 2]) {
    let mut game = AnyGame::new(setup);
    let mut clocks = [Clock::default(); 2];
    let side = |p: Player| if p == Player::X { x_first } else { 1 - x_first };
    while !game.is_over() {
        let who = side(game.to_move());
        let start = Instant::now();
        let chosen = match options.work {
            Some(work) => ai::choose_with_work(&game, levels[who], seed, options.budget, work),
            None => ai::choose(&game, levels[who], seed, options.budget),
        };
        let spent = start.elapsed();
        let suggestion = chosen
            .expect("level available")
            .expect("a move while the game is on");
        game.try_play(suggestion.mv).expect("bots play legal moves");
        let clock = &mut clocks[who];
        clock.moves += 1;
        clock.total += spent;
        clock.longest = clock.longest.max(spent);
    }
    (game.winner().map(side), clocks)
}

/// Levels that can play `kind`.
fn levels_for(setup: Setup) -> Vec<Level> {
    let game = AnyGame::new(setup);
    Level::ALL
        .into_iter()
        .filter(|&l| ai::check_available(&game, l).is_ok())
        .collect()
}

fn run_kind(kind: GameKind, options: &Options) -> Result<String, String> {
    let setup = options.setup(kind)?;
    let levels = levels_for(setup);
    let games = if kind == GameKind::Gomoku {
        options.gomoku_games
    } else {
        options.games
    };
    let pairs: Vec<[Level; 2]> = levels
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| {
            levels[i + 1..]
                .iter()
                .take(if options.all_pairs { usize::MAX } else { 1 })
                .map(move |&b| [b, a])
        })
        .collect();
    let jobs: Vec<(usize, u32)> = (0..pairs.len())
        .flat_map(|p| (0..games).map(move |g| (p, g)))
        .collect();
    let next = Mutex::new(0usize);
    let results = Mutex::new(vec![(Tally::default(), [Clock::default(); 2]); pairs.len()]);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.threads {
            scope.spawn(|| {
                loop {
                    let job = {
                        let mut n = next.lock().expect("job counter");
                        let job = jobs.get(*n).copied();
                        *n += 1;
                        job
                    };
                    let Some((p, g)) = job else { break };
                    let seed = options.seed.wrapping_add(u64::from(g));
                    let x_first = usize::try_from(g % 2).unwrap_or(0);
                    let (winner, clocks) = play(setup, pairs[p], x_first, seed, options);
                    let mut all = results.lock().expect("results");
                    let (tally, times) = &mut all[p];
                    match winner {
                        Some(w) => tally.wins[w] += 1,
                        None => tally.draws += 1,
                    }
                    times[0].add(clocks[0]);
                    times[1].add(clocks[1]);
                }
            });
        }
    });
    let results = results.into_inner().expect("results");
    let mut out = format!(
        "### {kind} ({games} games per pair, {:.0?} wall)\n\n",
        started.elapsed()
    );
    out.push_str(
        "| stronger | weaker | stronger wins | weaker wins | draws | stronger's points |\n",
    );
    out.push_str("|---|---|---:|---:|---:|---:|\n");
    let mut per_level: BTreeMap<Level, Clock> = BTreeMap::new();
    for (pair, (tally, clocks)) in pairs.iter().zip(&results) {
        let played = f64::from(tally.wins[0] + tally.wins[1] + tally.draws);
        let points = f64::from(tally.wins[0]) + f64::from(tally.draws) / 2.0;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.0}% |",
            pair[0],
            pair[1],
            tally.wins[0],
            tally.wins[1],
            tally.draws,
            100.0 * points / played.max(1.0)
        );
        for (level, clock) in pair.iter().zip(clocks) {
            per_level.entry(*level).or_default().add(*clock);
        }
    }
    out.push_str("\n| level | moves | mean time per move | longest move |\n|---|---:|---:|---:|\n");
    for (level, clock) in per_level {
        let moves = u32::try_from(clock.moves.max(1)).unwrap_or(u32::MAX);
        let _ = writeln!(
            out,
            "| {level} | {} | {:.2?} | {:.2?} |",
            clock.moves,
            clock.total / moves,
            clock.longest
        );
    }
    Ok(out)
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("arena: {message}");
            }
            eprintln!(
                "usage: arena [--games N] [--gomoku-games N] [--budget-ms MS] [--work N] \
                 [--seed S] [--threads T] [--kinds k1,k2] [--pairs all|adjacent] \
                 [--gomoku-size N]"
            );
            return ExitCode::FAILURE;
        }
    };
    println!(
        "Budget: {:?} per move{}, {} thread(s), seeds from {}.\n",
        options.budget.time,
        options
            .work
            .map_or(String::new(), |w| format!(", work fixed at {w}")),
        options.threads,
        options.seed
    );
    for &kind in &options.kinds {
        match run_kind(kind, &options) {
            Ok(table) => println!("{table}"),
            Err(e) => {
                eprintln!("arena: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
