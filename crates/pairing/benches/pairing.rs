//! Pairing's time: a Swiss round by the Dutch system (the largest committed
//! case, 48 players, and 300 players from `tests/scale`), and an arena's pass
//! over 500 free entrants. Run with `cargo bench -p tabula-pairing --bench
//! pairing`; the 1,000-player round is timed with `tabula-pair` (see
//! docs/benchmarks.md), too slow for repeated samples.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_pairing::{arena, dutch, trf};

fn case(path: &str) -> trf::Tournament {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    trf::parse(&std::fs::read_to_string(&path).expect("the case")).expect("TRF16")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("pairing");
    group.sample_size(10);
    for (name, path) in [
        (
            "dutch_48_players_round_3",
            "../../../shared/data/swiss/s69-r3.trf",
        ),
        ("dutch_300_players_round_5", "tests/scale/swiss-300-r5.trf"),
    ] {
        let t = case(path);
        group.bench_function(name, |b| b.iter(|| black_box(dutch::pair(&t))));
    }
    // 500 entrants free at once, places 1..500, each just out of a game with
    // its neighbour.
    let free: Vec<arena::Free> = (1..=500)
        .map(|i| arena::Free {
            id: i,
            place: i,
            last_opponent: Some(if i % 2 == 1 { i + 1 } else { i - 1 }),
        })
        .collect();
    group.bench_function("arena_500_free", |b| {
        b.iter(|| black_box(arena::pair(&free)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
