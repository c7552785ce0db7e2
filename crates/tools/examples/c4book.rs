//! Builds the Connect Four opening book compiled into the solver.
//!
//! ```text
//! cargo run --release -p tabula-tools --example c4book -- --lines --depth 12 --threads 2
//! cargo run --release -p tabula-tools --example c4book -- --depth 10 --threads 2
//! cargo run --release -p tabula-tools --example c4book -- --depth 12 --estimate 1000
//! ```
//!
//! Two kinds of book, both exact scores of positions of at most `--depth`
//! stones (one of each mirror pair; never a position the side to move wins
//! or loses at once, which the solver scores without a search):
//!
//! - `--lines`: the `perfect` bot's own games, as X and as O. Where the
//!   bot is to move (X after an even number of stones, O after an odd
//!   one), the position and the first of its best moves, centre first (the
//!   bot plays it from the book without a search); after that move, every
//!   reply of the other side. Built layer by layer from the empty board and
//!   X's seven first moves; every layer's positions are solved outright by
//!   `--threads` threads (default 1), each with its own table of 3 GiB kept
//!   from one position to the next.
//! - otherwise, every position: first every position of the deepest layer
//!   is solved outright, then each shallower layer, whose searches stop at
//!   the layer below as soon as they reach it, so they cost little.
//!
//! Writes `--out` (default `crates/bots/data/connect-four-book.bin`, the file the
//! library embeds; rebuild the library afterwards); `--lines` writes it
//! again after each layer, so that an interrupted build leaves a book of the
//! layers done. Every score found is also appended to `--log` (default
//! `target/c4book.log`, lines `KEY SCORE`), and the scores already there are
//! not searched again, so an interrupted build resumes where it stopped.
//! With `--estimate N` it only solves one position in `N` of the deepest
//! layer and prints how long the whole layer would take.
//!
//! A book that answers every position within the bot's budget takes every
//! position to 12 or more stones: days of CPU on a 2-core machine (see
//! `docs/benchmarks.md`).

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tabula::ai::connect_four_solver::{
    HUGE_BUCKETS, LARGE_BUCKETS, MAX_DEPTH, Openings, Position, Solver, WIDTH, known_move_score,
    known_score, table_bytes, write_book,
};

/// Command-line options.
struct Options {
    depth: u32,
    threads: usize,
    out: String,
    log: String,
    estimate: Option<usize>,
    lines: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        depth: 10,
        threads: 1,
        out: "crates/bots/data/connect-four-book.bin".to_owned(),
        log: "target/c4book.log".to_owned(),
        estimate: None,
        lines: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} takes a value"));
        match arg.as_str() {
            "--depth" => {
                options.depth = value()?
                    .parse()
                    .ok()
                    .filter(|&d| d <= MAX_DEPTH)
                    .ok_or(format!("--depth takes 0..={MAX_DEPTH}"))?;
            }
            "--threads" => {
                options.threads = value()?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--threads takes a positive number")?;
            }
            "--out" => options.out = value()?,
            "--lines" => options.lines = true,
            "--log" => options.log = value()?,
            "--estimate" => {
                options.estimate = Some(
                    value()?
                        .parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or("--estimate takes a positive number")?,
                );
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(options)
}

/// The scores found so far, as a book the solver can read while the next
/// layer is built.
struct Layers {
    depth: u32,
    scores: HashMap<u64, i32>,
}

impl Openings for Layers {
    fn depth(&self) -> u32 {
        self.depth
    }

    fn score(&self, key: u64) -> Option<i32> {
        self.scores.get(&key).copied()
    }
}

/// One position per mirror pair for each number of stones up to `depth`,
/// reached without a win, in book-key order.
fn enumerate(depth: u32) -> Vec<Vec<Position>> {
    let mut layers = vec![vec![Position::new()]];
    for _ in 0..depth {
        let last = layers.last().expect("layer 0 exists");
        let mut seen = HashSet::new();
        let mut next: Vec<(u64, Position)> = Vec::new();
        for p in last {
            for col in 0..WIDTH {
                if p.can_play(col) && !p.is_winning_move(col) {
                    let mut child = *p;
                    child.play(col);
                    let key = child.book_key();
                    if seen.insert(key) {
                        next.push((key, child));
                    }
                }
            }
        }
        next.sort_unstable_by_key(|&(key, _)| key);
        layers.push(next.into_iter().map(|(_, p)| p).collect());
    }
    layers
}

/// Whether the book stores `p`: the solver scores the others without a
/// search.
fn needs_search(p: &Position) -> bool {
    !p.can_win_next() && !p.loses_next()
}

/// Solves `positions` on `threads` threads against `book`, printing
/// progress and appending each score to `log`; returns (book key, score)
/// pairs and the nodes searched.
fn solve_all(
    positions: &[Position],
    book: &Layers,
    threads: usize,
    log: Option<&Mutex<File>>,
) -> (Vec<(u64, i32)>, u64) {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(positions.len()));
    let nodes = Mutex::new(0u64);
    let start = Instant::now();
    // Report often in small layers, whose positions are slow.
    let every = (positions.len() / 50).clamp(1, 20_000);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut solver = Solver::<LARGE_BUCKETS>::with_table(Some(book));
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = positions.get(i) else { break };
                    let score = solver.solve(p).expect("no deadline");
                    let key = p.book_key();
                    mine.push((key, score));
                    if let Some(log) = log {
                        let mut file = log.lock().expect("no panic");
                        writeln!(file, "{key} {score}").expect("the log is writable");
                    }
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished.is_multiple_of(every) {
                        progress(finished, positions.len(), start.elapsed());
                    }
                }
                *nodes.lock().expect("no panic") += solver.nodes();
                results.lock().expect("no panic").extend(mine);
            });
        }
    });
    let results = results.into_inner().expect("no panic");
    (results, nodes.into_inner().expect("no panic"))
}

/// The scores of an earlier build's log, if there is one.
fn read_log(path: &str) -> Result<HashMap<u64, i32>, String> {
    let Ok(file) = File::open(path) else {
        return Ok(HashMap::new());
    };
    let mut scores = HashMap::new();
    for line in BufReader::new(file).lines() {
        let line = line.map_err(|e| format!("{path}: {e}"))?;
        let parsed = line
            .split_once(' ')
            .and_then(|(k, s)| Some((k.parse().ok()?, s.parse().ok()?)));
        // A line cut short by an interruption is solved again.
        if let Some((key, score)) = parsed {
            scores.insert(key, score);
        }
    }
    Ok(scores)
}

/// Prints how far a layer has come and when it should end.
fn progress(done: usize, total: usize, elapsed: Duration) {
    let rate = elapsed.as_secs_f64() / f64_of(done);
    eprintln!(
        "  {done}/{total} after {:.0?}, about {:.0}s to go",
        elapsed,
        rate * f64_of(total - done)
    );
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts for display, far below 2^52"
)]
fn f64_of(n: usize) -> f64 {
    n as f64
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("c4book: {e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    if options.lines {
        eprintln!(
            "{} thread(s), {} MiB of table each",
            options.threads,
            table_bytes(HUGE_BUCKETS) >> 20
        );
        return build_lines(&options, start);
    }
    eprintln!(
        "{} thread(s), {} MiB of table each",
        options.threads,
        table_bytes(LARGE_BUCKETS) >> 20
    );
    let layers = enumerate(options.depth);
    for (d, layer) in layers.iter().enumerate() {
        let searched = layer.iter().filter(|p| needs_search(p)).count();
        eprintln!("layer {d}: {} positions, {searched} to search", layer.len());
    }
    eprintln!("enumerated in {:.1?}", start.elapsed());
    let mut book = Layers {
        depth: options.depth,
        scores: HashMap::new(),
    };
    let earlier = match read_log(&options.log) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("c4book: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(every) = options.estimate {
        let deepest = layers.last().expect("layer 0 exists");
        let sample: Vec<Position> = deepest
            .iter()
            .filter(|p| needs_search(p))
            .step_by(every)
            .copied()
            .collect();
        let t = Instant::now();
        let (_, nodes) = solve_all(&sample, &book, options.threads, None);
        let per = t.elapsed() / u32::try_from(sample.len().max(1)).unwrap_or(u32::MAX);
        let total = deepest.iter().filter(|p| needs_search(p)).count();
        eprintln!(
            "sample of {}: {per:.2?} and {} nodes per position; the layer of {total} would take about {:.0}s on {} thread(s)",
            sample.len(),
            nodes / u64::try_from(sample.len().max(1)).unwrap_or(1),
            per.as_secs_f64() * f64_of(total),
            options.threads
        );
        return ExitCode::SUCCESS;
    }
    let log = match OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options.log)
    {
        Ok(f) => Mutex::new(f),
        Err(e) => {
            eprintln!("c4book: cannot open {}: {e}", options.log);
            return ExitCode::FAILURE;
        }
    };
    for (d, layer) in layers.iter().enumerate().rev() {
        let t = Instant::now();
        let mut todo = Vec::new();
        for p in layer.iter().filter(|p| needs_search(p)) {
            match earlier.get(&p.book_key()) {
                Some(&score) => {
                    book.scores.insert(p.book_key(), score);
                }
                None => todo.push(*p),
            }
        }
        let (scores, nodes) = solve_all(&todo, &book, options.threads, Some(&log));
        eprintln!(
            "layer {d}: {} positions solved in {:.1?}, {nodes} nodes",
            scores.len(),
            t.elapsed()
        );
        book.scores.extend(scores);
    }
    let entries: Vec<(u64, i32)> = book.scores.into_iter().collect();
    write_out(&options, &entries, start)
}

/// Writes the book of `entries` to `--out`.
fn write_out(options: &Options, entries: &[(u64, i32)], start: Instant) -> ExitCode {
    let bytes = match write_book(options.depth, entries) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("c4book: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&options.out, &bytes) {
        eprintln!("c4book: cannot write {}: {e}", options.out);
        return ExitCode::FAILURE;
    }
    eprintln!(
        "wrote {} ({} positions, {} bytes) in {:.1?}",
        options.out,
        entries.len(),
        bytes.len(),
        start.elapsed()
    );
    ExitCode::SUCCESS
}

/// The score and the chosen move of a position where the bot is to move,
/// as far as `known` tells them: its score (from the log, or without a
/// search) and the first column, centre first, whose move keeps it.
fn chosen(p: &Position, known: &HashMap<u64, i32>) -> (Option<i32>, Option<usize>) {
    let score = known_score(&Logged(known), p);
    let col = score.and_then(|score| {
        CENTRE_FIRST
            .into_iter()
            .find(|&col| p.can_play(col) && known_move_score(&Logged(known), p, col) == Some(score))
    });
    (score, col)
}

/// The scores found so far, of any number of stones, as the solver's
/// library reads a book.
struct Logged<'a>(&'a HashMap<u64, i32>);

impl Openings for Logged<'_> {
    fn depth(&self) -> u32 {
        u32::MAX
    }

    fn score(&self, key: u64) -> Option<i32> {
        self.0.get(&key).copied()
    }
}

/// Columns in the order the bot prefers among equal moves: centre first.
const CENTRE_FIRST: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// Solves the positions of `todo` (the bot to move) on `threads` threads:
/// each one's score and the first move, centre first, that keeps it. Logs
/// the position's score and the score of the position after that move.
fn solve_choices(
    todo: &[Position],
    known: &HashMap<u64, i32>,
    threads: usize,
    log: &Mutex<File>,
) -> Vec<(u64, i32, Option<u64>)> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(todo.len()));
    let start = Instant::now();
    let every = (todo.len() / 50).clamp(1, 20_000);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut solver = Solver::<HUGE_BUCKETS>::with_table(None);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = todo.get(i) else { break };
                    let score = match known_score(&Logged(known), p) {
                        Some(score) => score,
                        None => solver.solve(p).expect("no deadline"),
                    };
                    let col = CENTRE_FIRST
                        .into_iter()
                        .find(|&col| {
                            p.can_play(col)
                                && solver.keeps_score(p, col, score).expect("no deadline")
                        })
                        .expect("some move keeps the score");
                    let mut child = *p;
                    child.play(col);
                    // A child scored without a search is not stored.
                    let child = needs_search(&child).then(|| child.book_key());
                    {
                        let mut file = log.lock().expect("no panic");
                        writeln!(file, "{} {score}", p.book_key()).expect("the log is writable");
                        if let Some(child) = child {
                            writeln!(file, "{child} {}", -score).expect("the log is writable");
                        }
                    }
                    results
                        .lock()
                        .expect("no panic")
                        .push((p.book_key(), score, child));
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished.is_multiple_of(every) {
                        progress(finished, todo.len(), start.elapsed());
                    }
                }
            });
        }
    });
    results.into_inner().expect("no panic")
}

/// Builds the book of the bot's own lines (`--lines`; see the module docs).
fn build_lines(options: &Options, start: Instant) -> ExitCode {
    let mut known = match read_log(&options.log) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("c4book: {e}");
            return ExitCode::FAILURE;
        }
    };
    let log = match OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options.log)
    {
        Ok(f) => Mutex::new(f),
        Err(e) => {
            eprintln!("c4book: cannot open {}: {e}", options.log);
            return ExitCode::FAILURE;
        }
    };
    let depth = options.depth;
    // The positions of each number of stones where the bot is to move:
    // X's line from the empty board, O's from each first move of X.
    let mut layers: Vec<HashMap<u64, Position>> = vec![HashMap::new(); depth as usize + 2];
    layers[0].insert(Position::new().book_key(), Position::new());
    for col in 0..WIDTH {
        let mut p = Position::new();
        p.play(col);
        layers[1].insert(p.book_key(), p);
    }
    // The bot's positions stop a stone short of the depth, so that the
    // position after its move is in the book too.
    for stones in 0..depth as usize {
        let t = Instant::now();
        let mut layer: Vec<(u64, Position)> = std::mem::take(&mut layers[stones])
            .into_iter()
            .filter(|(_, p)| needs_search(p))
            .collect();
        layer.sort_unstable_by_key(|&(key, _)| key);
        let todo: Vec<Position> = layer
            .iter()
            .filter(|(_, p)| chosen(p, &known).1.is_none())
            .map(|&(_, p)| p)
            .collect();
        eprintln!(
            "layer {stones}: {} positions of the bot, {} to solve",
            layer.len(),
            todo.len()
        );
        for (key, score, child) in solve_choices(&todo, &known, options.threads, &log) {
            known.insert(key, score);
            if let Some(child) = child {
                known.insert(child, -score);
            }
        }
        for (_, p) in &layer {
            let (_, Some(col)) = chosen(p, &known) else {
                eprintln!("c4book: no move chosen at {} stones", p.moves());
                return ExitCode::FAILURE;
            };
            let mut child = *p;
            child.play(col);
            for reply in 0..WIDTH {
                if child.can_play(reply) && !child.is_winning_move(reply) {
                    let mut next = child;
                    next.play(reply);
                    if let Some(layer) = layers.get_mut(stones + 2) {
                        layer.insert(next.book_key(), next);
                    }
                }
            }
        }
        eprintln!("layer {stones}: done in {:.1?}", t.elapsed());
        let entries: Vec<(u64, i32)> = known
            .iter()
            .filter(|&(&key, _)| key < 1 << 32)
            .map(|(&k, &s)| (k, s))
            .collect();
        let code = write_out(options, &entries, start);
        if code != ExitCode::SUCCESS {
            return code;
        }
    }
    ExitCode::SUCCESS
}
