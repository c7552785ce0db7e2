//! Fits weights of `hard`'s Gomoku search to games of a stronger engine
//! (`crates/tools/examples/gomoku-selfplay.rs`); docs/benchmarks.md has what came of it.
//!
//! The move ordering (the default): a softmax over each position's
//! candidate cells (as `hard`'s move generation builds them,
//! `tabula::ai::gomoku_tuning::candidates`) of a score that is a sum of
//! weights, fitted to the move played (cross-entropy, L2 1e-4, 300 steps of
//! full-batch Adam). The score of a cell for the mover: `ATTACK_CLASS[its
//! class for the mover] + DEFEND_CLASS[for the opponent] + the sum over its
//! four lines of ATTACK_SHAPE[mover's shape] and DEFEND_SHAPE[opponent's] +
//! ATTACK_PAIR[mover's two best shapes] + DEFEND_PAIR[opponent's] +
//! ATTACK_QUAD[mover's four shapes, best first] + DEFEND_QUAD[opponent's]`
//! (`TUNE_NEAR=1` adds the distance to the last two moves, which the
//! engine does not read). All but the distances are functions of the
//! quads, so the score is one number per quad for each side: the table
//! `--out FILE` writes, in thousandths of a logit, as the engine's
//! `crates/bots/src/gomoku/policy.rs` reads it. Prints how often the played move is
//! first, in the best 10 (the inner width) and in the best 28 (the root's)
//! under `hard`'s ordering (the embedded table's) and the fitted one (on
//! held-out games: every fifth), and what widths chosen by the softmax's
//! mass would keep.
//!
//! `--eval`: the static evaluation, a weighted sum of
//! `gomoku_tuning::evaluation_terms`, fitted as a logistic model of the
//! mover's chance (a thousand to a logit) to half the game's result and
//! half the engine's own evaluation (its score as a chance, the scale that
//! best predicts the results); positions off the games' paths (`P:` lines,
//! `gomoku-selfplay --perturb`) count the engine's evaluation only.
//! `TUNE_L2` sets the L2 weight (1e-5; 1e-3 was used), `TUNE_RESULT` the
//! result's share of the target (0.5).
//!
//! ```text
//! cargo run --release -p tabula-tools --features tuning --example gomoku-tune -- --out crates/bots/src/gomoku/policy.bin sp20*.txt sp30*.txt
//! TUNE_L2=1e-3 cargo run --release -p tabula-tools --features tuning --example gomoku-tune -- --eval games.txt perturbed.txt
//! ```

// The fits name their quantities as the formulas do (w, m, v, g, n).
#![allow(clippy::many_single_char_names)]

use std::process::ExitCode;

#[path = "common/fit.rs"]
#[allow(dead_code)] // `env`: this example reads its own settings
mod fit;
use fit::{adam, best_scale, chance, cross_entropy, engine_scale, load, read_positions, sigmoid};

use tabula::ai::gomoku_tuning::{
    Candidate, PATTERN_QUADS as QUADS, POLICY_SORTED, candidates, class_of, evaluation_terms,
    is_sorted, quad,
};
use tabula::rules::gomoku::Gomoku;
use tabula::rules::{Game, GomokuOptions, GomokuRule};

const CLASSES: usize = 7;
const SHAPES: usize = 10;
const A_CLASS: usize = 0;
const D_CLASS: usize = A_CLASS + CLASSES;
const A_SHAPE: usize = D_CLASS + CLASSES;
const D_SHAPE: usize = A_SHAPE + SHAPES;
const A_PAIR: usize = D_SHAPE + SHAPES;
const D_PAIR: usize = A_PAIR + SHAPES * SHAPES;
const NEAR_LAST: usize = D_PAIR + SHAPES * SHAPES;
const NEAR_OWN: usize = NEAR_LAST + 3;
const A_QUAD: usize = NEAR_OWN + 3;
const D_QUAD: usize = A_QUAD + QUADS;
const PARAMS: usize = D_QUAD + QUADS;

/// Whether the locality features are used (`TUNE_NEAR=1`).
fn near_on() -> bool {
    std::env::var("TUNE_NEAR").is_ok_and(|v| v == "1")
}

/// The distance bucket (0: next to, 1: two away, 2: farther) of a cell
/// from a move (Chebyshev).
fn bucket(c: &Candidate, m: (i64, i64)) -> usize {
    let d = (c.row as i64 - m.0).abs().max((c.col as i64 - m.1).abs());
    (d.max(1) - 1).min(2) as usize
}

/// The two best shapes' index (best * 10 + second).
fn pair(shapes: [u8; 4]) -> usize {
    let mut s = shapes;
    s.sort_unstable_by(|a, b| b.cmp(a));
    usize::from(s[0]) * SHAPES + usize::from(s[1])
}

fn features(c: &Candidate, last: (i64, i64), own: (i64, i64)) -> Vec<usize> {
    let mut f = vec![
        A_CLASS + usize::from(c.mine_class),
        D_CLASS + usize::from(c.theirs_class),
        A_PAIR + pair(c.mine),
        D_PAIR + pair(c.theirs),
    ];
    f.extend(c.mine.iter().map(|&s| A_SHAPE + usize::from(s)));
    f.extend(c.theirs.iter().map(|&s| D_SHAPE + usize::from(s)));
    f.push(A_QUAD + quad(c.mine));
    f.push(D_QUAD + quad(c.theirs));
    if near_on() {
        f.push(NEAR_LAST + bucket(c, last));
        f.push(NEAR_OWN + bucket(c, own));
    }
    f
}

struct Position {
    /// Per candidate, its features.
    cands: Vec<Vec<usize>>,
    /// `hard`'s ordering scores (the embedded one's).
    old: Vec<i32>,
    /// Per candidate, the mover's quad and the opponent's.
    quads: Vec<(usize, usize)>,
    played: usize,
}

/// The rank (0 = first) of `played` by `scores` (ties counted against it).
fn rank<T: PartialOrd + Copy>(scores: &[T], played: usize) -> usize {
    scores
        .iter()
        .enumerate()
        .filter(|&(i, &s)| i != played && s >= scores[played])
        .count()
}

fn report(name: &str, positions: &[&Position], score: impl Fn(&Position) -> Vec<f64>) {
    let (mut top1, mut top10, mut top28) = (0, 0, 0);
    for p in positions {
        let r = rank(&score(p), p.played);
        top1 += usize::from(r == 0);
        top10 += usize::from(r < 10);
        top28 += usize::from(r < 28);
    }
    let n = positions.len().max(1) as f64;
    println!(
        "{name}: {} positions, played move first {:.1}%, in the best 10 {:.1}%, in the best 28 {:.1}%",
        positions.len(),
        100.0 * top1 as f64 / n,
        100.0 * top10 as f64 / n,
        100.0 * top28 as f64 / n
    );
}

fn logits(w: &[f64], p: &Position) -> Vec<f64> {
    p.cands
        .iter()
        .map(|f| f.iter().map(|&i| w[i]).sum())
        .collect()
}

/// Reads the games of `files`: the positions to fit, those held out
/// (every fifth game) and the number of games.
fn read(files: &[String]) -> Result<(Vec<Position>, Vec<Position>, usize), String> {
    let mut train = Vec::new();
    let mut test = Vec::new();
    let mut games = 0usize;
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let Some(_result) = words.next() else {
                continue;
            };
            let moves: Vec<(i64, i64)> = words
                .filter_map(|w| {
                    let mut f = w.split(',');
                    Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
                })
                .collect();
            games += 1;
            let options = GomokuOptions::new(15, GomokuRule::Freestyle).expect("a size");
            let mut g = Gomoku::new(options);
            for (i, &(r, c)) in moves.iter().enumerate() {
                if i >= 3
                    && let Some(cands) = candidates(&g)
                    && cands.len() > 1
                    && let Some(played) = cands
                        .iter()
                        .position(|x| (x.row, x.col) == (r as usize, c as usize))
                {
                    let p = Position {
                        cands: cands
                            .iter()
                            .map(|x| features(x, moves[i - 1], moves[i - 2]))
                            .collect(),
                        old: cands.iter().map(|x| x.score).collect(),
                        quads: cands
                            .iter()
                            .map(|x| (quad(x.mine), quad(x.theirs)))
                            .collect(),
                        played,
                    };
                    if games.is_multiple_of(5) {
                        test.push(p);
                    } else {
                        train.push(p);
                    }
                }
                let Ok(point) = g.point(r, c) else { break };
                if g.try_play(point).is_err() {
                    break;
                }
            }
        }
    }
    Ok((train, test, games))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|f| f == "--eval") {
        return fit_eval(&args[1..]);
    }
    let Some(((train, test, games), out)) = load("gomoku-tune", read) else {
        return ExitCode::FAILURE;
    };
    let trains: Vec<&Position> = train.iter().collect();
    let tests: Vec<&Position> = test.iter().collect();
    println!("{games} games");
    let old = |p: &Position| p.old.iter().map(|&s| f64::from(s)).collect();
    report("hard's ordering, train", &trains, old);
    report("hard's ordering, held out", &tests, old);

    // Full-batch Adam on the mean cross-entropy plus L2.
    let lambda = 1e-4;
    let mut w = vec![0.0f64; PARAMS];
    let (mut m, mut v) = (vec![0.0; PARAMS], vec![0.0; PARAMS]);
    let lr = 0.05;
    for step in 1..=300 {
        let mut grad = vec![0.0; PARAMS];
        let mut loss = 0.0;
        for p in &train {
            let z = logits(&w, p);
            let max = z.iter().copied().fold(f64::MIN, f64::max);
            let e: Vec<f64> = z.iter().map(|x| (x - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            loss += sum.ln() + max - z[p.played];
            for (k, f) in p.cands.iter().enumerate() {
                let g = e[k] / sum - f64::from(u8::from(k == p.played));
                for &i in f {
                    grad[i] += g;
                }
            }
        }
        let n = train.len() as f64;
        adam(&mut w, &mut m, &mut v, &grad, n, lambda, lr, step, |_| true);
        if step % 100 == 0 {
            let reg: f64 = w.iter().map(|x| x * x).sum::<f64>() * lambda;
            eprintln!("step {step}: loss {:.4}", loss / n + reg);
        }
    }
    // The scores per quad, thousandths of a logit, as the engine reads
    // them: the class, shape and pair weights are functions of the quad,
    // so each side's sum is one number a quad (each of those weights taken
    // relative to its none: the same order).
    let mut table = vec![[0i16; 2]; QUADS];
    for (q, scores) in table.iter_mut().enumerate().filter(|(q, _)| is_sorted(*q)) {
        let shapes = [q / 1000 % 10, q / 100 % 10, q / 10 % 10, q % 10].map(|x| x as u8);
        let class = usize::from(class_of(shapes));
        let side = |class_at: usize, shape_at: usize, pair_at: usize, quad_at: usize| {
            let mut x = w[class_at + class] - w[class_at];
            x += shapes
                .iter()
                .map(|&s| w[shape_at + usize::from(s)] - w[shape_at])
                .sum::<f64>();
            x += w[pair_at + pair(shapes)] - w[pair_at];
            x += w[quad_at + q];
            (x * 1000.0).round().clamp(-30_000.0, 30_000.0) as i16
        };
        *scores = [
            side(A_CLASS, A_SHAPE, A_PAIR, A_QUAD),
            side(D_CLASS, D_SHAPE, D_PAIR, D_QUAD),
        ];
    }
    let score = |p: &Position| -> Vec<f64> {
        p.quads
            .iter()
            .map(|&(mine, theirs)| f64::from(table[mine][0]) + f64::from(table[theirs][1]))
            .collect()
    };
    report("fitted ordering, train", &trains, score);
    report("fitted ordering, held out", &tests, score);
    // Widths by probability: the moves, best first, until their softmax
    // mass reaches `mass`, within `lo..=hi`.
    for mass in [0.8, 0.9, 0.95, 0.98] {
        for (lo, hi) in [(4, 10), (6, 14), (6, 20), (8, 20)] {
            let (mut hit, mut width) = (0usize, 0usize);
            for p in &tests {
                let z: Vec<f64> = score(p);
                let mut order: Vec<usize> = (0..z.len()).collect();
                order.sort_by(|&a, &b| z[b].total_cmp(&z[a]));
                let max = z[order[0]];
                let e: Vec<f64> = order
                    .iter()
                    .map(|&i| ((z[i] - max) / 1000.0).exp())
                    .collect();
                let total: f64 = e.iter().sum();
                let mut cum = 0.0;
                let mut k = 0;
                while k < e.len() && (k < lo || cum < mass * total) && k < hi {
                    cum += e[k];
                    k += 1;
                }
                width += k;
                hit += usize::from(order[..k].contains(&p.played));
            }
            let n = tests.len().max(1) as f64;
            println!(
                "mass {mass} widths {lo}..={hi}: mean width {:.1}, played move kept {:.1}%",
                width as f64 / n,
                100.0 * hit as f64 / n
            );
        }
    }
    if let Some(out) = out {
        let mut bytes = u16::try_from(POLICY_SORTED)
            .expect("a count")
            .to_le_bytes()
            .to_vec();
        for scores in table
            .iter()
            .enumerate()
            .filter(|(q, _)| is_sorted(*q))
            .map(|(_, s)| s)
        {
            bytes.extend(scores[0].to_le_bytes());
            bytes.extend(scores[1].to_le_bytes());
        }
        if let Err(e) = std::fs::write(&out, bytes) {
            eprintln!("{out}: {e}");
            return ExitCode::FAILURE;
        }
        println!("wrote {out}");
    }
    ExitCode::SUCCESS
}

/// One evaluated position: the evaluation's terms, the engine's own
/// evaluation (as printed) and the game's result, both for the mover.
struct Scored {
    terms: Vec<f64>,
    engine: String,
    result: f64,
}

/// Fits the static evaluation's weights (`EVAL_WEIGHTS` in `engine.rs`):
/// a logistic model of the mover's winning chance, the target half the
/// game's result and half the engine's evaluation as a chance.
fn fit_eval(files: &[String]) -> ExitCode {
    let mut train = Vec::new();
    let mut test = Vec::new();
    let read = read_positions(files, |g, engine, result, held_out| {
        if let Some(terms) = evaluation_terms(g) {
            let p = Scored {
                terms: terms.iter().map(|&t| f64::from(t)).collect(),
                engine: engine.to_owned(),
                result,
            };
            if held_out {
                test.push(p);
            } else {
                train.push(p);
            }
        }
    });
    let games = match read {
        Ok(games) => games,
        Err(e) => {
            eprintln!("cannot read {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "{games} games, {} positions to fit, {} held out",
        train.len(),
        test.len()
    );
    // The engine's scale: the one that best predicts the results.
    let (scale, best) = engine_scale(&train, |p| p.result, |p| &p.engine);
    let n = train.len() as f64;
    println!(
        "engine evaluation / {scale} as a logit: result loss {:.4}",
        best / n
    );
    // `TUNE_RESULT`: the share of the game's result in the target (0.5).
    let share: f64 = std::env::var("TUNE_RESULT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.5);
    let target = |p: &Scored| {
        share * p.result + (1.0 - share) * chance(&p.engine, scale).unwrap_or(p.result)
    };
    let terms = train[0].terms.len();
    // Each term divided by its spread, so that one step fits all.
    let spread: Vec<f64> = (0..terms)
        .map(|i| {
            let mean = train.iter().map(|p| p.terms[i]).sum::<f64>() / n;
            let var = train
                .iter()
                .map(|p| (p.terms[i] - mean).powi(2))
                .sum::<f64>()
                / n;
            if var > 0.0 { var.sqrt() } else { 1.0 }
        })
        .collect();
    let predict = |w: &[f64], p: &Scored| {
        sigmoid(
            p.terms
                .iter()
                .zip(w)
                .zip(&spread)
                .map(|((t, w), s)| t / s * w)
                .sum(),
        )
    };
    let mean_loss = |w: &[f64], set: &[Scored], by: &dyn Fn(&Scored) -> f64| {
        set.iter()
            .map(|p| cross_entropy(by(p), predict(w, p)))
            .sum::<f64>()
            / set.len().max(1) as f64
    };
    // The window evaluation as it is (`hard` before), its best scale.
    let old = |p: &Scored| {
        let t = &p.terms;
        1.5 * (t[1] + 12.0 * t[2] + 120.0 * t[3] + 1200.0 * t[4])
            - (t[5] + 12.0 * t[6] + 120.0 * t[7] + 1200.0 * t[8])
    };
    let (old_scale, _) = best_scale((100..=20_000).step_by(100), |s| {
        train
            .iter()
            .map(|p| cross_entropy(target(p), sigmoid(old(p) / s)))
            .sum()
    });
    let old_loss = |set: &[Scored], by: &dyn Fn(&Scored) -> f64| {
        set.iter()
            .map(|p| cross_entropy(by(p), sigmoid(old(p) / old_scale)))
            .sum::<f64>()
            / set.len().max(1) as f64
    };
    let result = |p: &Scored| p.result;
    println!(
        "window evaluation / {old_scale}: target loss {:.4} (held out {:.4}), result loss held out {:.4}",
        old_loss(&train, &target),
        old_loss(&test, &target),
        old_loss(&test, &result)
    );
    let lambda: f64 = std::env::var("TUNE_L2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1e-5);
    let mut w = vec![0.0f64; terms];
    let (mut m, mut v) = (vec![0.0; terms], vec![0.0; terms]);
    let lr = 0.02;
    for step in 1..=3000 {
        let mut grad = vec![0.0; terms];
        for p in &train {
            let g = predict(&w, p) - target(p);
            for i in 0..terms {
                grad[i] += g * p.terms[i] / spread[i];
            }
        }
        adam(&mut w, &mut m, &mut v, &grad, n, lambda, lr, step, |_| true);
        if step % 500 == 0 {
            eprintln!("step {step}: loss {:.4}", mean_loss(&w, &train, &target));
        }
    }
    println!(
        "fitted: target loss {:.4} (held out {:.4}), result loss held out {:.4}",
        mean_loss(&w, &train, &target),
        mean_loss(&w, &test, &target),
        mean_loss(&w, &test, &result)
    );
    // A thousand to a logit.
    let ints: Vec<i32> = w
        .iter()
        .zip(&spread)
        .map(|(w, s)| (w / s * 1000.0).round() as i32)
        .collect();
    println!("const EVAL_WEIGHTS: [i32; EVAL_TERMS] = {ints:?};");
    ExitCode::SUCCESS
}
