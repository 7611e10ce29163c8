//! Criterion benches of the meld search, without Python in the way.
//!
//! `cargo bench -p ramino-core --bench search -- --quick`
//!
//! Every bench runs over a fixed set of hands made by a deterministic generator
//! (the crate's own ChaCha20 shuffle with seeds 0, 1, 2, ...), so runs compare
//! across machines and commits. Throughput is per hand (or per meld), so the
//! reported `thrpt` is hands per second and `time / HANDS` is the time per hand.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ramino_core::{best_opening, min_deadwood, shuffle, validate_meld, Card, Suit, Variant};

/// Hands per set.
const HANDS: usize = 256;

/// A 32-byte seed from a set number and a hand number.
fn seed(set: u8, i: usize) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[0] = set;
    s[1..9].copy_from_slice(&(i as u64).to_le_bytes());
    s
}

/// `HANDS` hands of `size` cards, each the first cards of a shuffled `pool`.
fn deal(set: u8, pool: &[Card], size: usize) -> Vec<Vec<Card>> {
    (0..HANDS)
        .map(|i| {
            let perm = shuffle(&seed(set, i), pool.len());
            perm[..size].iter().map(|&j| pool[j as usize]).collect()
        })
        .collect()
}

/// Hands dealt at random from the variant's whole deck.
fn random_hands(set: u8, v: &Variant, size: usize) -> Vec<Vec<Card>> {
    deal(set, &v.deck().cards(), size)
}

/// Dense hands: `jokers` jokers plus cards from ranks 8, 9 and 10 of all four
/// suits in two packs (24 naturals), so sets, runs and duplicate cards overlap
/// everywhere and each joker can complete many of them; the hardest shape found.
fn dense_hands(set: u8, size: usize, jokers: usize) -> Vec<Vec<Card>> {
    let mut pool = Vec::new();
    for rank in 8..=10 {
        for suit in Suit::ALL {
            pool.push(Card::new(rank, suit));
            pool.push(Card::new(rank, suit));
        }
    }
    deal(set, &pool, size - jokers)
        .into_iter()
        .map(|mut h| {
            h.resize(h.len() + jokers, Card::JOKER);
            h
        })
        .collect()
}

fn bench_best_opening(c: &mut Criterion) {
    let ramino51 = Variant::ramino51();
    let rami51 = Variant::rami51();
    let sets = [
        ("random_ramino51_15", &ramino51, random_hands(1, &ramino51, 15)),
        ("random_rami51_14", &rami51, random_hands(2, &rami51, 14)),
        ("dense_ramino51_15", &ramino51, dense_hands(3, 15, 2)),
        ("dense_rami51_14", &rami51, dense_hands(4, 14, 2)),
    ];
    let mut group = c.benchmark_group("best_opening");
    group.throughput(Throughput::Elements(HANDS as u64));
    for (name, v, hands) in &sets {
        group.bench_function(*name, |b| {
            b.iter(|| {
                for h in hands {
                    black_box(best_opening(black_box(h), v, None).unwrap());
                }
            });
        });
    }
    group.finish();
}

fn bench_min_deadwood(c: &mut Criterion) {
    let rummy = Variant::rummy();
    let ramino51 = Variant::ramino51();
    let sets = [
        ("gin_rummy_10", &rummy, random_hands(5, &rummy, 10)),
        ("random_ramino51_15", &ramino51, random_hands(6, &ramino51, 15)),
        ("dense_ramino51_15", &ramino51, dense_hands(7, 15, 2)),
    ];
    let mut group = c.benchmark_group("min_deadwood");
    group.throughput(Throughput::Elements(HANDS as u64));
    for (name, v, hands) in &sets {
        group.bench_function(*name, |b| {
            b.iter(|| {
                for h in hands {
                    black_box(min_deadwood(black_box(h), v).unwrap());
                }
            });
        });
    }
    group.finish();
}

fn bench_validate_meld(c: &mut Criterion) {
    let v = Variant::ramino51();
    let texts = [
        "6S 7S 8S",
        "TD TC TH",
        "5H 6H JK",
        "JK 5H 6H",
        "QS KS AS",
        "7C JK 7D 7H",
        "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "9D TD JK QD KD",
        "5H 6S 7H",
        "QH KH AH JK",
        "TD TD TC",
        "JK JK 5H",
    ];
    let melds: Vec<Vec<Card>> = texts.iter().map(|t| Card::parse_list(t).unwrap()).collect();
    let mut group = c.benchmark_group("validate_meld");
    group.throughput(Throughput::Elements(melds.len() as u64));
    group.bench_function("mixed_12", |b| {
        b.iter(|| {
            for m in &melds {
                let _ = black_box(validate_meld(black_box(m), &v));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench_best_opening, bench_min_deadwood, bench_validate_meld);
criterion_main!(benches);
