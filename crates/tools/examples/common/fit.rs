//! What the Gomoku fitting examples share (`gomoku-tune`, `gomoku-patterns`):
//! the logistic model's pieces, reading the engine's evaluations, and one
//! Adam step.

use tabula::rules::gomoku::Gomoku;
use tabula::rules::{Game, GomokuOptions, GomokuRule};

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The engine's evaluation (as printed) as a winning chance, its scores
/// divided by `scale`; mates are 0 or 1.
pub fn chance(e: &str, scale: f64) -> Option<f64> {
    if e.starts_with("+M") {
        Some(1.0)
    } else if e.starts_with("-M") {
        Some(0.0)
    } else {
        e.parse::<f64>().ok().map(|x| sigmoid(x / scale))
    }
}

/// The loss of predicting `p` where `target` happened (or was the chance).
pub fn cross_entropy(target: f64, p: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    -(target * p.ln() + (1.0 - target) * (1.0 - p).ln())
}

/// One Adam step (β 0.9 and 0.999) on the weights `w` for which `active`
/// holds, from the summed gradient `grad` over `n` positions, with L2
/// regularisation `lambda`; `m` and `v` are the moments, `step` counts
/// from 1. Inactive weights, and their moments, stay as they are.
#[allow(clippy::too_many_arguments)]
pub fn adam(
    w: &mut [f64],
    m: &mut [f64],
    v: &mut [f64],
    grad: &[f64],
    n: f64,
    lambda: f64,
    lr: f64,
    step: i32,
    active: impl Fn(usize) -> bool,
) {
    let (b1, b2) = (0.9, 0.999);
    for i in 0..w.len() {
        if !active(i) {
            continue;
        }
        let g = grad[i] / n + 2.0 * lambda * w[i];
        m[i] = b1 * m[i] + (1.0 - b1) * g;
        v[i] = b2 * v[i] + (1.0 - b2) * g * g;
        let mh = m[i] / (1.0 - f64::powi(b1, step));
        let vh = v[i] / (1.0 - f64::powi(b2, step));
        w[i] -= lr * mh / (vh.sqrt() + 1e-8);
    }
}

/// Reads `files` (`gomoku-selfplay`'s output: a game a line, its result
/// then `row,col,evaluation` per move; or `P:<evaluation>` then the moves
/// of a position off a game's path) and calls `each` with every evaluated
/// position: the position, the engine's evaluation as printed, the result
/// for the side to move (for a position off a path, the evaluation's
/// chance), and whether it is held out (every fifth line). Returns the
/// number of lines read.
pub fn read_positions(
    files: &[String],
    mut each: impl FnMut(&Gomoku, &str, f64, bool),
) -> Result<usize, String> {
    let mut games = 0usize;
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let Some(result) = words.next() else { continue };
            let moves: Vec<(i64, i64, String)> = words
                .filter_map(|w| {
                    let mut f = w.split(',');
                    Some((
                        f.next()?.parse().ok()?,
                        f.next()?.parse().ok()?,
                        f.next().unwrap_or("?").to_owned(),
                    ))
                })
                .collect();
            games += 1;
            let held_out = games.is_multiple_of(5);
            let options = GomokuOptions::new(15, GomokuRule::Freestyle).expect("a size");
            let mut g = Gomoku::new(options);
            if let Some(eval) = result.strip_prefix("P:") {
                // A position off a game's path: the engine's evaluation only.
                for (r, c, _) in &moves {
                    let Ok(point) = g.point(*r, *c) else { break };
                    if g.try_play(point).is_err() {
                        break;
                    }
                }
                if let Some(p) = chance(eval, 275.0) {
                    each(&g, eval, p, held_out);
                }
                continue;
            }
            for (i, (r, c, e)) in moves.iter().enumerate() {
                if e != "?" {
                    let mover = if i % 2 == 0 { "X" } else { "O" };
                    let won = match result {
                        "D" => 0.5,
                        r if r == mover => 1.0,
                        _ => 0.0,
                    };
                    each(&g, e, won, held_out);
                }
                let Ok(point) = g.point(*r, *c) else { break };
                if g.try_play(point).is_err() {
                    break;
                }
            }
        }
    }
    Ok(games)
}

/// The scale among `scales` whose `loss` is least (the first of equals),
/// and that loss.
pub fn best_scale(scales: impl Iterator<Item = i32>, loss: impl Fn(f64) -> f64) -> (f64, f64) {
    let mut best = (0.0, f64::MAX);
    for s in scales {
        let s = f64::from(s);
        let l = loss(s);
        if l < best.1 {
            best = (s, l);
        }
    }
    best
}

/// The scale of the engine's evaluations (`chance`'s) that best predicts
/// the results of `set`, and its summed loss.
pub fn engine_scale<T>(
    set: &[T],
    result: impl Fn(&T) -> f64,
    engine: impl Fn(&T) -> &str,
) -> (f64, f64) {
    best_scale((50..=2000).step_by(25), |s| {
        set.iter()
            .filter_map(|p| Some(cross_entropy(result(p), chance(engine(p), s)?)))
            .sum()
    })
}

/// The command line of a fitting example, `[--out FILE] GAMES...`: what
/// `read` makes of the games' files, and the file to write. `None`, told
/// on standard error, when no games are named or they cannot be read.
pub fn load<T>(
    name: &str,
    read: impl FnOnce(&[String]) -> Result<T, String>,
) -> Option<(T, Option<String>)> {
    let mut files = Vec::new();
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--out" {
            out = args.next();
        } else {
            files.push(a);
        }
    }
    if files.is_empty() {
        eprintln!("usage: {name} [--out FILE] GAMES...");
        return None;
    }
    match read(&files) {
        Ok(games) => Some((games, out)),
        Err(e) => {
            eprintln!("{e}");
            None
        }
    }
}

/// A setting read from the environment variable `name`, else `default`.
pub fn env(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
