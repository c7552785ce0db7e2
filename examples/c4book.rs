//! Builds the Connect Four opening book compiled into the solver.
//!
//! ```text
//! cargo run --release --example c4book -- --depth 10 --threads 2
//! cargo run --release --example c4book -- --depth 12 --estimate 1000
//! cargo run --release --example c4book -- --line --depth 1
//! ```
//!
//! The book holds the exact score of every position with at most `--depth`
//! stones (one of each mirror pair; not those the side to move wins at once
//! or loses at once, which the solver scores without a search). It is built
//! bottom up: first every position of the deepest layer is solved outright,
//! then each shallower layer, whose searches stop at the layer below as soon
//! as they reach it, so they cost little. The solver's own table is kept
//! from one position to the next. Positions are shared among `--threads`
//! threads (default 1), each with its own large table (768 MiB, printed at
//! the start).
//!
//! Writes `--out` (default `data/connect-four-book.bin`, the file the
//! library embeds; rebuild the library afterwards). Every score found is
//! also appended to `--log` (default `target/c4book.log`, lines `KEY
//! SCORE`), and the scores already there are not searched again, so an
//! interrupted build resumes where it stopped. With `--estimate N` it only
//! solves one position in `N` of the deepest layer and prints how long the
//! whole layer would take.
//!
//! With `--line`, the book holds only the positions of the `perfect` bot's
//! own games as X up to `--depth` stones: where X is to move, the position
//! and one move of its best score (the centre-most; the bot plays it from
//! the book without a search); where O is to move, every reply of O. A full
//! book to a depth where every position is answered within the bot's budget
//! takes many CPU-hours (see `docs/benchmarks.md`); a line is what fits in
//! minutes.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tabula::ai::connect_four_solver::{
    LARGE_BUCKETS, MAX_DEPTH, Openings, Position, Solver, WIDTH, table_bytes, write_book,
};

/// Command-line options.
struct Options {
    depth: u32,
    threads: usize,
    out: String,
    log: String,
    estimate: Option<usize>,
    line: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        depth: 10,
        threads: 1,
        out: "data/connect-four-book.bin".to_owned(),
        log: "target/c4book.log".to_owned(),
        estimate: None,
        line: false,
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
            "--line" => options.line = true,
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

/// The exact score of `p`, from `book` when known, else solved (and then
/// logged and added to `book`).
fn score_of(
    p: &Position,
    solver: &mut Solver<'_, LARGE_BUCKETS>,
    book: &mut HashMap<u64, i32>,
    log: &Mutex<File>,
) -> i32 {
    if p.can_win_next() {
        return p.win_next_score();
    }
    if let Some(&score) = book.get(&p.book_key()) {
        return score;
    }
    let t = Instant::now();
    let score = solver.solve(p).expect("no deadline");
    let key = p.book_key();
    eprintln!(
        "  {} stones, key {key}: {score} in {:.1?}",
        p.moves(),
        t.elapsed()
    );
    writeln!(log.lock().expect("no panic"), "{key} {score}").expect("the log is writable");
    book.insert(key, score);
    score
}

/// Adds to `book` the positions of `perfect`'s games as X from `p` up to
/// `depth` stones (see the module docs).
fn line(
    p: &Position,
    depth: u32,
    solver: &mut Solver<'_, LARGE_BUCKETS>,
    book: &mut HashMap<u64, i32>,
    log: &Mutex<File>,
) {
    if p.moves() > depth || !needs_search(p) {
        return;
    }
    let score = score_of(p, solver, book, log);
    let x_to_move = p.moves().is_multiple_of(2);
    let mut seen = HashSet::new();
    for col in [3, 2, 4, 1, 5, 0, 6] {
        if !p.can_play(col) || p.is_winning_move(col) {
            continue;
        }
        let mut child = *p;
        child.play(col);
        if !seen.insert(child.book_key()) {
            continue;
        }
        if x_to_move {
            // The first move of the best score, solved if need be (the
            // child one stone deeper is in the book all the same).
            if child.moves() > depth || -score_of(&child, solver, book, log) != score {
                continue;
            }
            line(&child, depth, solver, book, log);
            return;
        }
        line(&child, depth, solver, book, log);
    }
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
    eprintln!(
        "{} thread(s), {} MiB of table each",
        options.threads,
        table_bytes(LARGE_BUCKETS) >> 20
    );
    if options.line {
        return build_line(&options, start);
    }
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

/// Builds the book of `perfect`'s lines as X (`--line`).
fn build_line(options: &Options, start: Instant) -> ExitCode {
    let mut book = match read_log(&options.log) {
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
    let mut solver = Solver::<LARGE_BUCKETS>::with_table(None);
    line(
        &Position::new(),
        options.depth,
        &mut solver,
        &mut book,
        &log,
    );
    // Only the positions of the line: a log may hold others.
    let mut entries = Vec::new();
    collect_line(&Position::new(), options.depth, &book, &mut entries);
    write_out(options, &entries, start)
}

/// The (key, score) of the book positions reachable from `p` through book
/// positions.
fn collect_line(p: &Position, depth: u32, book: &HashMap<u64, i32>, out: &mut Vec<(u64, i32)>) {
    if p.moves() > depth || !needs_search(p) {
        return;
    }
    let Some(&score) = book.get(&p.book_key()) else {
        return;
    };
    if out.iter().any(|&(k, _)| k == p.book_key()) {
        return;
    }
    out.push((p.book_key(), score));
    for col in 0..WIDTH {
        if p.can_play(col) && !p.is_winning_move(col) {
            let mut child = *p;
            child.play(col);
            collect_line(&child, depth, book, out);
        }
    }
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
