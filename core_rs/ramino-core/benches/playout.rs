//! Playouts per second of the searching bots' [`evaluate`], without Python.
//!
//! `cargo bench -p ramino-core --bench playout`
//!
//! Fixed positions (the crate's own shuffle with seeds 0, 1, 2, ...) in
//! ramino51, rummy and gin, each evaluated with a fixed iteration budget and
//! a fixed seed: a play decision (three discards) and a draw decision (the
//! stock or the discard). The table gives, per variant, the playouts run, the
//! time they took (the best of `REPEATS` runs) and playouts per second. Time
//! is the thread's own time on a CPU (Linux's `/proc/thread-self/schedstat`,
//! so that other work on a busy machine counts less), or the wall clock where
//! that cannot be read. The positions use only `evaluate`'s public API, so
//! the same file times any version of the playouts.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ramino_core::{evaluate, shuffle, Action, Budget, Card, SeatSeen, Seen, Variant};

/// Positions of each kind per variant.
const POSITIONS: u8 = 12;
/// Deals sampled per evaluation.
const ITERATIONS: u32 = 100;
/// Runs of the whole set; the fastest counts.
const REPEATS: usize = 5;

/// A position of two seats from the deck shuffled with seed `set`: seat 0
/// holds `mine` cards (its hand, plus the card drawn where it is to
/// discard), seat 1 a hand of unknown cards, one card on the discard pile
/// (thrown by seat 1), the rest the stock.
fn position(v: &Variant, set: u8, play: bool) -> (Seen, Vec<Action>) {
    let deck = v.deck().cards();
    let mut key = [0u8; 32];
    key[0] = set;
    key[1] = u8::from(play);
    let order: Vec<Card> = shuffle(&key, deck.len()).iter().map(|&i| deck[i as usize]).collect();
    let size = usize::from(v.hand_size(2).expect("two seats play every preset"));
    let mine_len = size + usize::from(play);
    let mine = order[..mine_len].to_vec();
    let top = order[mine_len];
    let unseen = order[mine_len + 1..].to_vec();
    let actions = if play {
        let mut distinct: Vec<Card> = Vec::new();
        for c in &mine {
            if !distinct.contains(c) && distinct.len() < 3 {
                distinct.push(*c);
            }
        }
        distinct.into_iter().map(Action::Discard).collect()
    } else {
        vec![Action::DrawFromStock, Action::TakeDiscard]
    };
    let seen = Seen {
        seat: 0,
        seats: vec![
            SeatSeen {
                hand_size: mine_len,
                known: mine,
                opened: false,
                had_turn: play,
                discarded: vec![],
                laid_any: false,
            },
            SeatSeen {
                hand_size: size,
                known: vec![],
                opened: false,
                had_turn: true,
                discarded: vec![top],
                laid_any: false,
            },
        ],
        discard: vec![top],
        table: vec![],
        stock_size: unseen.len() - size,
        unseen,
        taken: None,
        rebuilds_left: 2,
        turns_left: 300,
        no_draw_seat: None,
    };
    (seen, actions)
}

/// The time this thread has run on a CPU, when Linux tells it.
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The time since `start` (CPU time, else wall clock).
fn since(start: (Option<Duration>, Instant)) -> Duration {
    match (start.0, cpu_time()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => start.1.elapsed(),
    }
}

/// The playouts run on `positions` and the fastest time of `REPEATS` runs.
fn time(v: &Variant, positions: &[(Seen, Vec<Action>)]) -> (u64, Duration) {
    let mut best = Duration::MAX;
    let mut playouts = 0;
    for _ in 0..REPEATS {
        let start = (cpu_time(), Instant::now());
        playouts = 0;
        for (k, (seen, actions)) in positions.iter().enumerate() {
            let evals = evaluate(v, seen, actions, &Budget::iterations(ITERATIONS), [k as u8; 32])
                .expect("a well-formed position");
            playouts += black_box(evals).iter().map(|e| u64::from(e.playouts)).sum::<u64>();
        }
        best = best.min(since(start));
    }
    (playouts, best)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter (any other argument) picks variants.
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    println!(
        "{:<10} {:>9} {:>10} {:>14}",
        "variant", "playouts", "seconds", "playouts/s"
    );
    for v in [Variant::ramino51(), Variant::rummy(), Variant::gin()] {
        if !filter.is_empty() && !filter.iter().any(|f| v.name.contains(f.as_str())) {
            continue;
        }
        let positions: Vec<(Seen, Vec<Action>)> = (0..POSITIONS)
            .flat_map(|set| [position(&v, set, true), position(&v, set, false)])
            .collect();
        let (playouts, took) = time(&v, &positions);
        println!(
            "{:<10} {:>9} {:>10.3} {:>14.0}",
            v.name,
            playouts,
            took.as_secs_f64(),
            playouts as f64 / took.as_secs_f64()
        );
    }
}
