//! Fits the small network of `hard`'s Gomoku evaluation
//! (`crates/bots/src/gomoku/net.rs`) to games of a stronger engine (as
//! `crates/tools/examples/gomoku-patterns.rs`, the same files and target), on top of the
//! linear pattern weights, which stay as they are, and writes it as the
//! embedded `net.bin`.
//!
//! The model: the mover's chance is the logistic of the linear evaluation
//! plus the network's output. The network sums a vector per quad of shapes
//! at each empty cell (the mover's quads' vectors as the mover, the
//! opponent's as the opponent), and passes the sum, with the threat
//! classes' counts, through one hidden layer of rectified units. Minibatch
//! Adam (`NET_BATCH` 512 positions, `NET_LR` 0.003 times `NET_DECAY` 0.7
//! an epoch, `NET_EPOCHS` 8, L2 `NET_L2` 1e-6), seeded, so the same files
//! give the same network; quads seen in fewer than 30 positions keep no
//! vector; every fifth game held out. Prints the held-out losses of the
//! linear evaluation, of the embedded one (with the network built in), and
//! of the fit as written (its vectors rounded to the embedded units).
//!
//! ```text
//! cargo run --release -p tabula-tools --features tuning --example gomoku-net -- --out crates/bots/src/gomoku/net.bin sp20*.txt sp30*.txt
//! ```
//!
//! (The embedded network is this command's, on the 5,600 games at 10,000
//! nodes that the linear weights were fitted to and 5,600 more at 20,000
//! nodes, seeds 3001–3004: docs/benchmarks.md.)

#![allow(clippy::many_single_char_names)]

use std::process::ExitCode;

#[path = "common/fit.rs"]
#[allow(dead_code)] // `adam`, `best_scale`: this fit has its own minibatch Adam
mod fit;
use fit::{chance, cross_entropy, engine_scale, env, read_positions, sigmoid};

use tabula::ai::gomoku_tuning::{
    NET_COUNT_SCALE, NET_D as D, NET_H as H, NET_INPUTS as INPUTS, NET_SCALE, PATTERN_QUADS,
    PatternTerms, pattern_terms,
};

/// Quads as the mover, then as the opponent.
const FEATURES: usize = 2 * PATTERN_QUADS;
const EMBED: usize = FEATURES * D;
const W1: usize = EMBED;
const B1: usize = W1 + H * INPUTS;
const V: usize = B1 + H;
const C: usize = V + H;
const PARAMS: usize = C + 1;

struct Scored {
    terms: PatternTerms,
    target: f64,
    result: f64,
}

/// A seeded generator of numbers in [-0.5, 0.5).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
}

/// The features of `p` (a quad as the mover or as the opponent, per empty
/// cell) that have a vector.
fn features<'a>(p: &'a PatternTerms, kept: &'a [bool]) -> impl Iterator<Item = usize> + 'a {
    let mine = p.mine_quads.iter().map(|&i| usize::from(i));
    let theirs = p
        .theirs_quads
        .iter()
        .map(|&i| PATTERN_QUADS + usize::from(i));
    mine.chain(theirs).filter(|&f| kept[f])
}

/// The network's inputs for `p` under the parameters `w`.
fn inputs(w: &[f32], p: &PatternTerms, kept: &[bool]) -> [f32; INPUTS] {
    let mut x = [0.0f32; INPUTS];
    for f in features(p, kept) {
        for (x, &e) in x.iter_mut().zip(&w[f * D..f * D + D]) {
            *x += e;
        }
    }
    for (x, &s) in x[D..].iter_mut().zip(&p.scalars) {
        *x = s as f32 * NET_COUNT_SCALE;
    }
    x
}

/// The network's output (logits) for inputs `x`, and its hidden layer
/// before rectifying.
fn forward(w: &[f32], x: &[f32; INPUTS]) -> (f32, [f32; H]) {
    let mut hidden = [0.0f32; H];
    let mut out = w[C];
    for (j, h) in hidden.iter_mut().enumerate() {
        let row = &w[W1 + j * INPUTS..W1 + (j + 1) * INPUTS];
        *h = w[B1 + j] + row.iter().zip(x).map(|(a, b)| a * b).sum::<f32>();
        if *h > 0.0 {
            out += w[V + j] * *h;
        }
    }
    (out, hidden)
}

fn read(files: &[String]) -> Result<(Vec<Scored>, Vec<Scored>), String> {
    let mut all = Vec::new();
    read_positions(files, |g, engine, result, held_out| {
        if let Some(terms) = pattern_terms(g) {
            all.push((terms, engine.to_owned(), result, held_out));
        }
    })?;
    let fit: Vec<_> = all.iter().filter(|p| !p.3).collect();
    let (scale, _) = engine_scale(&fit, |p| p.2, |p| &p.1);
    let share = env("PAT_RESULT", 0.25);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (terms, engine, result, held_out) in all {
        let target = share * result + (1.0 - share) * chance(&engine, scale).unwrap_or(result);
        let p = Scored {
            terms,
            target,
            result,
        };
        if held_out {
            test.push(p);
        } else {
            train.push(p);
        }
    }
    eprintln!(
        "engine evaluation / {scale}; {} positions to fit, {} held out",
        train.len(),
        test.len()
    );
    Ok((train, test))
}

fn main() -> ExitCode {
    let Some(((train, test), out)) = fit::load("gomoku-net", read) else {
        return ExitCode::FAILURE;
    };
    let losses = |set: &[Scored], f: &dyn Fn(&Scored) -> f64| {
        let n = set.len().max(1) as f64;
        let (mut t, mut r) = (0.0, 0.0);
        for p in set {
            let q = sigmoid(f(p));
            t += cross_entropy(p.target, q);
            r += cross_entropy(p.result, q);
        }
        format!("target loss {:.4}, result loss {:.4}", t / n, r / n)
    };
    let linear = |p: &Scored| f64::from(p.terms.linear) / 1000.0;
    println!("linear evaluation, held out: {}", losses(&test, &linear));
    let embedded = |p: &Scored| f64::from(p.terms.embedded) / 1000.0;
    println!(
        "embedded evaluation, held out: {}",
        losses(&test, &embedded)
    );

    let min_count = env("NET_MIN", 30.0) as u32;
    let mut seen = vec![0u32; FEATURES];
    let all = vec![true; FEATURES];
    for p in &train {
        for f in features(&p.terms, &all) {
            seen[f] += 1;
        }
    }
    let kept: Vec<bool> = seen.iter().map(|&n| n >= min_count).collect();
    let epochs = env("NET_EPOCHS", 8.0) as i32;
    let batch = env("NET_BATCH", 512.0) as usize;
    let lr0 = env("NET_LR", 0.003) as f32;
    let decay = env("NET_DECAY", 0.7) as f32;
    let l2 = env("NET_L2", 1e-6) as f32;
    let mut rng = Rng(1);
    let mut w = vec![0.0f32; PARAMS];
    for x in &mut w[..EMBED] {
        *x = rng.next() * 0.02;
    }
    let spread = 2.0 / (INPUTS as f32).sqrt();
    for x in &mut w[W1..B1] {
        *x = rng.next() * spread;
    }
    let (mut m, mut v) = (vec![0.0f32; PARAMS], vec![0.0f32; PARAMS]);
    let mut grad = vec![0.0f32; PARAMS];
    let mut touched = vec![false; FEATURES];
    let mut rows: Vec<usize> = Vec::new();
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut step = 0;
    for epoch in 0..epochs {
        let lr = lr0 * decay.powi(epoch);
        for i in (1..order.len()).rev() {
            let j = ((rng.next() + 0.5) * (i + 1) as f32) as usize % (i + 1);
            order.swap(i, j);
        }
        for chunk in order.chunks(batch) {
            step += 1;
            for f in rows.drain(..) {
                touched[f] = false;
                grad[f * D..f * D + D].fill(0.0);
            }
            grad[EMBED..].fill(0.0);
            for &i in chunk {
                let p = &train[i];
                let x = inputs(&w, &p.terms, &kept);
                let (out, hidden) = forward(&w, &x);
                let z = linear(p) as f32 + out;
                let g = (1.0 / (1.0 + (-z).exp()) - p.target as f32) / chunk.len() as f32;
                grad[C] += g;
                let mut dx = [0.0f32; D];
                for (j, &h) in hidden.iter().enumerate() {
                    if h <= 0.0 {
                        continue;
                    }
                    grad[V + j] += g * h;
                    let dh = g * w[V + j];
                    grad[B1 + j] += dh;
                    for (k, &xk) in x.iter().enumerate() {
                        grad[W1 + j * INPUTS + k] += dh * xk;
                    }
                    for (k, d) in dx.iter_mut().enumerate() {
                        *d += dh * w[W1 + j * INPUTS + k];
                    }
                }
                for f in features(&p.terms, &kept) {
                    if !touched[f] {
                        touched[f] = true;
                        rows.push(f);
                    }
                    for (gk, &d) in grad[f * D..f * D + D].iter_mut().zip(&dx) {
                        *gk += d;
                    }
                }
            }
            // Adam; a vector only when a position of the batch had it.
            let (b1, b2) = (0.9f32, 0.999f32);
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            let mut update = |i: usize| {
                let g = grad[i] + l2 * w[i];
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                w[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
            };
            for &f in &rows {
                (f * D..f * D + D).for_each(&mut update);
            }
            (EMBED..PARAMS).for_each(&mut update);
        }
        let f = |p: &Scored| linear(p) + f64::from(forward(&w, &inputs(&w, &p.terms, &kept)).0);
        eprintln!(
            "epoch {epoch}: fit {}; held out {}",
            losses(&train, &f),
            losses(&test, &f)
        );
    }
    // The vectors in the embedded units.
    let unit = |x: f32| (x * NET_SCALE).round().clamp(-32_000.0, 32_000.0) / NET_SCALE;
    for x in &mut w[..EMBED] {
        *x = unit(*x);
    }
    let f = |p: &Scored| linear(p) + f64::from(forward(&w, &inputs(&w, &p.terms, &kept)).0);
    println!("the fit as written, held out: {}", losses(&test, &f));
    let quads: Vec<usize> = (0..PATTERN_QUADS)
        .filter(|&q| kept[q] || kept[PATTERN_QUADS + q])
        .collect();
    println!("{} quads with a vector", quads.len());
    if let Some(out) = out {
        let mut bytes = Vec::new();
        for n in [D, H] {
            bytes.extend(u16::try_from(n).unwrap_or(0).to_le_bytes());
        }
        bytes.extend(u32::try_from(quads.len()).unwrap_or(0).to_le_bytes());
        for &q in &quads {
            bytes.extend(u16::try_from(q).unwrap_or(0).to_le_bytes());
            for f in [q, PATTERN_QUADS + q] {
                for &x in &w[f * D..f * D + D] {
                    let x = if kept[f] { (x * NET_SCALE) as i16 } else { 0 };
                    bytes.extend(x.to_le_bytes());
                }
            }
        }
        for &x in &w[W1..] {
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
