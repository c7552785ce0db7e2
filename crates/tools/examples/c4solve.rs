//! Exact Connect Four scores in the test protocol's notation.
//!
//! ```text
//! cargo run --release -p tabula-tools --example c4solve < positions
//! cargo run --release -p tabula-tools --example c4solve -- --analyze < positions
//! cargo run --release -p tabula-tools --example c4solve -- --no-book < data/Test_L2_R1
//! ```
//!
//! Each input line holds a position as the columns played from the empty
//! board, 1-based (`4453`), optionally followed by an expected score (as in
//! the protocol's test files). Each output line is `MOVES SCORE`, the score
//! on the protocol's scale (0 draw; `22 - n` when the side to move wins with
//! its `n`-th stone; negative when it loses); with `--analyze`, `MOVES`
//! followed by the score of each of the seven columns, `-` for a full one.
//!
//! On standard error: the number of positions, the mean and largest time
//! per position and the mean number of nodes searched, and how many answers
//! differ from the expected scores given. The solver's table is cleared
//! before each position (not timed), so every position is solved alone.
//!
//! Options: `--no-book` solves without the opening book; `--every N` takes
//! one line in `N` (a sample of a large set); `--times` appends to each
//! output line the time (microseconds) and nodes it took; `--large-table`
//! searches with the book builder's 768 MiB table instead of the service's
//! 48 MiB one; `--budget-ms N` gives each position `N` milliseconds and
//! prints `-` for one not solved (or analysed) by then, and on standard
//! error how many were (the `perfect` bot's share of its default 300 ms budget is 225);
//! `--keep-table` keeps the table from one position to the next (as the
//! service keeps its tables, and as Pons' `c4solver` reads its input)
//! instead of clearing it.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tabula::ai::connect_four_solver::{Book, LARGE_BUCKETS, Openings, Position, Solver, WIDTH};

/// What to print per position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The score of the position.
    Solve,
    /// The score of each column.
    Analyze,
}

/// Command-line options.
struct Options {
    mode: Mode,
    book: bool,
    every: usize,
    times: bool,
    large_table: bool,
    budget: Option<Duration>,
    between: Between,
}

/// What happens to the table between positions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Between {
    /// Cleared: every position is solved alone.
    Clear,
    /// Kept (`--keep-table`).
    Keep,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        mode: Mode::Solve,
        book: true,
        every: 1,
        times: false,
        large_table: false,
        budget: None,
        between: Between::Clear,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--analyze" => options.mode = Mode::Analyze,
            "--no-book" => options.book = false,
            "--times" => options.times = true,
            "--large-table" => options.large_table = true,
            "--budget-ms" => {
                options.budget = Some(Duration::from_millis(
                    args.next()
                        .and_then(|n| n.parse().ok())
                        .ok_or("--budget-ms takes a number of milliseconds")?,
                ));
            }
            "--keep-table" => options.between = Between::Keep,
            "--every" => {
                options.every = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--every takes a positive number")?;
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(options)
}

/// Totals over the positions solved.
#[derive(Default)]
struct Totals {
    positions: u32,
    time: Duration,
    slowest: Duration,
    nodes: u64,
    wrong: u32,
    invalid: u32,
    over_budget: u32,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("c4solve: {e}");
            return ExitCode::from(2);
        }
    };
    let book: Option<&dyn Openings> = options.book.then(|| Book::embedded() as &dyn Openings);
    if options.large_table {
        run(&options, Solver::<LARGE_BUCKETS>::with_table(book))
    } else {
        run(&options, Solver::new(book))
    }
}

/// Answers every line of standard input with `solver`.
fn run<const B: usize>(options: &Options, mut solver: Solver<'_, B>) -> ExitCode {
    let mut totals = Totals::default();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (n, line) in io::stdin().lock().lines().enumerate() {
        let Ok(line) = line else {
            eprintln!("c4solve: cannot read line {}", n + 1);
            return ExitCode::FAILURE;
        };
        if n % options.every != 0 {
            continue;
        }
        let mut fields = line.split_whitespace();
        let moves = fields.next().unwrap_or("");
        let expected: Option<i32> = fields.next().and_then(|s| s.parse().ok());
        let position = match Position::from_moves(moves) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("c4solve: line {}: {e}", n + 1);
                totals.invalid += 1;
                continue;
            }
        };
        if options.between == Between::Keep {
            solver.reset_nodes();
        } else {
            solver.reset();
        }
        let start = Instant::now();
        solver.set_deadline(options.budget.map(|b| start + b));
        // Without a budget there is no deadline, and every search finishes.
        let answer = match options.mode {
            Mode::Solve => solver
                .solve(&position)
                .map(|score| (Some(score), score.to_string())),
            Mode::Analyze => solver.analyze(&position).map(|scores| {
                let best = scores.iter().flatten().max().copied();
                let shown: Vec<String> = scores
                    .iter()
                    .map(|s| s.map_or_else(|| "-".to_owned(), |s| s.to_string()))
                    .collect();
                (best, shown.join(" "))
            }),
        };
        // Over the budget: shown as `-`, and not counted as wrong.
        let answer = answer.unwrap_or_else(|_| {
            totals.over_budget += 1;
            (expected, "-".to_owned())
        });
        let elapsed = start.elapsed();
        totals.positions += 1;
        totals.time += elapsed;
        totals.slowest = totals.slowest.max(elapsed);
        totals.nodes += solver.nodes();
        if expected.is_some() && expected != answer.0 {
            totals.wrong += 1;
        }
        let timing = if options.times {
            format!(" {} {}", elapsed.as_micros(), solver.nodes())
        } else {
            String::new()
        };
        if writeln!(out, "{moves} {}{timing}", answer.1).is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    report(&totals, options);
    if totals.wrong > 0 || totals.invalid > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes the totals to standard error.
fn report(totals: &Totals, options: &Options) {
    let count = totals.positions.max(1);
    let mean = totals.time / count;
    #[expect(
        clippy::cast_precision_loss,
        reason = "a mean for display; node counts stay far below 2^52"
    )]
    let nodes = totals.nodes as f64 / f64::from(count);
    eprintln!(
        "positions {} ({}), mean time {:.3?}, max time {:.3?}, mean nodes {nodes:.1}, wrong {}, invalid {}",
        totals.positions,
        match (options.mode == Mode::Analyze, options.book) {
            (true, true) => format!("analyze {WIDTH} columns, book"),
            (true, false) => format!("analyze {WIDTH} columns, no book"),
            (false, true) => "solve, book".to_owned(),
            (false, false) => "solve, no book".to_owned(),
        },
        mean,
        totals.slowest,
        totals.wrong,
        totals.invalid,
    );
    if let Some(budget) = options.budget {
        eprintln!(
            "within {budget:?}: {} of {} ({} over)",
            totals.positions - totals.over_budget,
            totals.positions,
            totals.over_budget
        );
    }
}
