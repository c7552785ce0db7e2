//! Random playouts per second for each game: play uniformly random legal
//! moves from the empty board to the end. Run with `cargo bench -p tabula-rules --bench rules`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula_rules::connect_four::ConnectFour;
use tabula_rules::gomoku::Gomoku;
use tabula_rules::tic_tac_toe::TicTacToe;
use tabula_rules::ultimate::Ultimate;
use tabula_rules::{Game, GomokuOptions};

/// Plays one random game to its end, reusing the move buffer; returns the ply.
fn playout<G: Game>(mut game: G, rng: &mut ChaCha8Rng, moves: &mut Vec<G::Move>) -> u32 {
    while !game.is_over() {
        game.legal_moves_into(moves);
        let m = moves[rng.random_range(0..moves.len())];
        game.play_unchecked(m);
    }
    game.ply()
}

fn bench_playouts<G: Game>(c: &mut Criterion, name: &str, start: &G) {
    let mut group = c.benchmark_group("random_playout");
    group.throughput(Throughput::Elements(1));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut moves = Vec::with_capacity(256);
    group.bench_function(BenchmarkId::from_parameter(name), |b| {
        b.iter(|| black_box(playout(start.clone(), &mut rng, &mut moves)));
    });
    group.finish();
}

fn playouts(c: &mut Criterion) {
    bench_playouts(c, "tic_tac_toe", &TicTacToe::new());
    bench_playouts(c, "connect_four", &ConnectFour::new());
    bench_playouts(c, "gomoku_15", &Gomoku::new(GomokuOptions::default()));
    bench_playouts(c, "ultimate_tic_tac_toe", &Ultimate::new());
}

fn threats(c: &mut Criterion) {
    // Threats are computed on every read of a game: measure them mid-game.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut g = Gomoku::new(GomokuOptions::default());
    let mut moves = Vec::new();
    for _ in 0..60 {
        g.legal_moves_into(&mut moves);
        let m = moves[rng.random_range(0..moves.len())];
        if g.is_over() {
            break;
        }
        g.play_unchecked(m);
    }
    c.bench_function("threats/gomoku_15_after_60", |b| {
        b.iter(|| black_box(g.threats()));
    });
}

criterion_group!(benches, playouts, threats);
criterion_main!(benches);
