//! Fits the weights of `hard`'s learned Gomoku evaluation over line
//! patterns (`crates/bots/src/gomoku/patterns.rs`) to games of a stronger engine
//! (`crates/tools/examples/gomoku-selfplay.rs`, with the engine's evaluations; `P:`
//! lines from `--perturb` count too), and writes them as the embedded
//! `patterns.bin`.
//!
//! The model: the mover's chance is the logistic of a sum of a weight per
//! pattern key (`gomoku_tuning::pattern_terms`: every line of every empty
//! cell, the four cells each side, seen from the mover), a weight per quad
//! of shapes at each empty cell (its four shapes together, the mover's and
//! the opponent's), weights of the threat classes' counts and one per
//! threat mask (which classes each side has). The target: the engine's
//! evaluation as a chance (its score over the scale that best predicts the
//! results), `PAT_RESULT` (0.25) of it the game's result. Full-batch Adam
//! with L2 (`PAT_L2`, 1e-4 a position), `PAT_STEPS` steps (200), the keys
//! seen in fewer than `PAT_MIN` (30) positions left at 0; every fifth game
//! held out. Prints the losses against the window evaluation
//! (`hard`'s before) at its best scale, then writes `--out FILE`.
//!
//! ```text
//! for s in 2001 2002 2003 2004 2005 2006 2007 2008; do
//!     cargo run --release -p tabula-tools --features tuning --example gomoku-selfplay -- --engine /work/rapfi-run/pbrain-rapfi \
//!         --nodes 10000 --games 700 --seed $s --spread 3 > sp$s.txt
//! done
//! cargo run --release -p tabula-tools --features tuning --example gomoku-patterns -- --out crates/bots/src/gomoku/patterns.bin sp20*.txt
//! ```
//!
//! (The embedded weights are this command's: 5,600 games of Rapfi at
//! 10,000 nodes a move. Played and fitted again on a second machine, of
//! another make, they came out byte for byte. The weights before were
//! fitted to games at 2,000 nodes; fits to games at 20,000 nodes were
//! tried and played no better: docs/benchmarks.md. The evaluation's
//! network is fitted on top of these weights by `gomoku-net`: fit it again
//! after them.)

// The fit names its quantities as the formulas do (w, m, v, g, n).
#![allow(clippy::many_single_char_names)]

use std::process::ExitCode;

#[path = "common/fit.rs"]
mod fit;
use fit::{
    adam, best_scale, chance, cross_entropy, engine_scale, env, load, read_positions, sigmoid,
};

use tabula::ai::gomoku_tuning::{
    PATTERN_KEYS, PATTERN_MASKS, PATTERN_QUADS, PATTERN_SCALARS, PatternTerms, evaluation_terms,
    pattern_terms,
};
use tabula::rules::gomoku::Gomoku;

const QUAD_MINE: usize = PATTERN_KEYS;
const QUAD_THEIRS: usize = QUAD_MINE + PATTERN_QUADS;
/// The sparse weights (keys and quads) end here.
const SPARSE: usize = QUAD_THEIRS + PATTERN_QUADS;
const SCALAR: usize = SPARSE;
const MASK: usize = SCALAR + PATTERN_SCALARS;
const PARAMS: usize = MASK + PATTERN_MASKS;

/// One evaluated position: its terms, the window evaluation (`hard`'s
/// before), the engine's evaluation as printed and the result for the
/// mover.
struct Scored {
    terms: PatternTerms,
    window: f64,
    engine: String,
    result: f64,
}

/// The logit of `p` under the weights `w`.
fn logit(w: &[f64], p: &PatternTerms) -> f64 {
    let mut z = 0.0;
    for &k in &p.keys {
        z += w[usize::from(k)];
    }
    for &i in &p.mine_quads {
        z += w[QUAD_MINE + usize::from(i)];
    }
    for &i in &p.theirs_quads {
        z += w[QUAD_THEIRS + usize::from(i)];
    }
    for (i, &x) in p.scalars.iter().enumerate() {
        z += w[SCALAR + i] * f64::from(x);
    }
    z + w[MASK + p.mask]
}

/// Adds `g` times the terms of `p` to `grad`.
fn add_grad(grad: &mut [f64], p: &PatternTerms, g: f64) {
    for &k in &p.keys {
        grad[usize::from(k)] += g;
    }
    for &i in &p.mine_quads {
        grad[QUAD_MINE + usize::from(i)] += g;
    }
    for &i in &p.theirs_quads {
        grad[QUAD_THEIRS + usize::from(i)] += g;
    }
    for (i, &x) in p.scalars.iter().enumerate() {
        grad[SCALAR + i] += g * f64::from(x);
    }
    grad[MASK + p.mask] += g;
}

/// Counts in `seen` the positions where each weight of `p` appears.
fn add_grad_count(seen: &mut [u32], p: &PatternTerms) {
    for &k in &p.keys {
        seen[usize::from(k)] += 1;
    }
    for &i in &p.mine_quads {
        seen[QUAD_MINE + usize::from(i)] += 1;
    }
    for &i in &p.theirs_quads {
        seen[QUAD_THEIRS + usize::from(i)] += 1;
    }
    for (i, &x) in p.scalars.iter().enumerate() {
        if x != 0 {
            seen[SCALAR + i] += 1;
        }
    }
    seen[MASK + p.mask] += 1;
}

/// Reads the games and positions of `files`: (fit, held out).
fn read(files: &[String]) -> Result<(Vec<Scored>, Vec<Scored>), String> {
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let window = |g: &Gomoku| {
        evaluation_terms(g).map_or(0.0, |t| {
            let t = t.map(f64::from);
            1.5 * (t[1] + 12.0 * t[2] + 120.0 * t[3] + 1200.0 * t[4])
                - (t[5] + 12.0 * t[6] + 120.0 * t[7] + 1200.0 * t[8])
        })
    };
    let games = read_positions(files, |g, engine, result, held_out| {
        if let Some(terms) = pattern_terms(g) {
            let set = if held_out { &mut test } else { &mut train };
            set.push(Scored {
                terms,
                window: window(g),
                engine: engine.to_owned(),
                result,
            });
        }
    })?;
    eprintln!(
        "{games} games, {} positions to fit, {} held out",
        train.len(),
        test.len()
    );
    Ok((train, test))
}

fn main() -> ExitCode {
    let Some(((train, test), out)) = load("gomoku-patterns", read) else {
        return ExitCode::FAILURE;
    };
    let n = train.len() as f64;
    // The engine's scale: the one that best predicts the results.
    let (scale, best) = engine_scale(&train, |p| p.result, |p| &p.engine);
    println!("engine evaluation / {scale}: result loss {:.4}", best / n);
    let share = env("PAT_RESULT", 0.25);
    let target = |p: &Scored| {
        share * p.result + (1.0 - share) * chance(&p.engine, scale).unwrap_or(p.result)
    };
    let result = |p: &Scored| p.result;
    let mean = |set: &[Scored], f: &dyn Fn(&Scored) -> f64, by: &dyn Fn(&Scored) -> f64| {
        set.iter().map(|p| cross_entropy(by(p), f(p))).sum::<f64>() / set.len().max(1) as f64
    };
    // The window evaluation at its best scale.
    let (window_scale, window_best) = best_scale((100..=3000).step_by(50), |s| {
        mean(&train, &|p| sigmoid(p.window / s), &target)
    });
    let window = |p: &Scored| sigmoid(p.window / window_scale);
    println!(
        "window evaluation / {window_scale}: target loss {:.4} (held out {:.4}), result loss held out {:.4}",
        window_best,
        mean(&test, &window, &target),
        mean(&test, &window, &result),
    );
    // The weights as embedded, without the network (`gomoku-net`).
    let embedded = |p: &Scored| sigmoid(f64::from(p.terms.linear) / 1000.0);
    println!(
        "embedded weights: target loss held out {:.4}, result loss held out {:.4}",
        mean(&test, &embedded, &target),
        mean(&test, &embedded, &result),
    );
    let lambda = env("PAT_L2", 1e-4);
    let steps = env("PAT_STEPS", 200.0) as i32;
    let lr = env("PAT_LR", 0.02);
    // Keys, quads and masks seen in fewer than `PAT_MIN` (30) positions
    // keep no weight.
    let min_count = env("PAT_MIN", 30.0) as u32;
    let mut seen = vec![0u32; PARAMS];
    for p in &train {
        add_grad_count(&mut seen, &p.terms);
    }
    let mut w = vec![0.0f64; PARAMS];
    let (mut m, mut v) = (vec![0.0; PARAMS], vec![0.0; PARAMS]);
    for step in 1..=steps {
        let mut grad = vec![0.0; PARAMS];
        for p in &train {
            let g = sigmoid(logit(&w, &p.terms)) - target(p);
            add_grad(&mut grad, &p.terms, g);
        }
        adam(&mut w, &mut m, &mut v, &grad, n, lambda, lr, step, |i| {
            seen[i] >= min_count
        });
        if step % 50 == 0 || step == steps {
            let f = |p: &Scored| sigmoid(logit(&w, &p.terms));
            eprintln!(
                "step {step}: target loss {:.4} (held out {:.4}), result loss held out {:.4}",
                mean(&train, &f, &target),
                mean(&test, &f, &target),
                mean(&test, &f, &result),
            );
        }
    }
    // Thousandths of a logit.
    let q = |x: f64| (x * 1000.0).round().clamp(-32_000.0, 32_000.0) as i16;
    let qw: Vec<i16> = w.iter().map(|&x| q(x)).collect();
    println!("scalars: {:?}", &qw[SCALAR..MASK]);
    let masks: Vec<String> = (0..PATTERN_MASKS)
        .filter(|&m| seen[MASK + m] >= min_count)
        .map(|m| format!("{m:09b}:{}", qw[MASK + m]))
        .collect();
    println!(
        "threat masks (the opponent's open four .. three, the mover's four-three .. three): {masks:?}"
    );
    let used: Vec<(u32, i16)> = (0..SPARSE)
        .filter(|&k| qw[k] != 0)
        .map(|k| (u32::try_from(k).unwrap_or(0), qw[k]))
        .collect();
    println!(
        "{} pattern keys and {} quads with a weight",
        used.iter()
            .filter(|&&(k, _)| (k as usize) < QUAD_MINE)
            .count(),
        used.iter()
            .filter(|&&(k, _)| (k as usize) >= QUAD_MINE)
            .count()
    );
    if let Some(out) = out {
        let mut bytes = Vec::new();
        for &x in &qw[SCALAR..] {
            bytes.extend(x.to_le_bytes());
        }
        bytes.extend(u32::try_from(used.len()).unwrap_or(0).to_le_bytes());
        for (k, x) in used {
            bytes.extend(k.to_le_bytes());
            bytes.extend(x.to_le_bytes());
        }
        if let Err(e) = std::fs::write(&out, bytes) {
            eprintln!("{out}: {e}");
            return ExitCode::FAILURE;
        }
        println!("wrote {out}");
    }
    ExitCode::SUCCESS
}
