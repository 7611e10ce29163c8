//! Arbitrary bytes as a game: a table (a preset, or one with an override),
//! its seat count and seed, then commands, each a byte or a few: a byte
//! below 128 plays that legal move (modulo their count) of the seat whose
//! turn it is; a higher one a raw command of the kind it names, for a seat
//! and with fields from the next bytes (out of range, negative and
//! `BAD_VALUE` ones included). Never a panic; a refusal changes nothing;
//! every card stays in one place; every legal move is accepted; the record
//! replays into the same state.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use ramino_core::game::{
    apply_event, conservation_errors, decide, CardId, Command, Game, Raw, RawEnd, Rules, Setup, State, BAD_VALUE,
};
use ramino_core::{ParamValue, Variant};

/// The bytes left, read one at a time (zero once they run out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A raw field: a small integer (card ids and meld indexes past the
    /// table's included), or one of the wire's extremes.
    fn raw(&mut self) -> Raw {
        match self.next() {
            b @ 0..=239 => Raw::from(b),
            240 => -1,
            241 => BAD_VALUE,
            242 => i64::MAX,
            243 => 256,
            244 => -256,
            245 => BAD_VALUE + 1,
            b => Raw::from(b) - 500,
        }
    }

    /// Melds of raw ids, or `None` (not a list).
    fn melds(&mut self) -> Option<Vec<Vec<Raw>>> {
        let n = self.next();
        if n >= 0xF0 {
            return None;
        }
        Some(
            (0..n % 4)
                .map(|_| {
                    let len = self.next() % 7;
                    (0..len).map(|_| self.raw()).collect()
                })
                .collect(),
        )
    }
}

/// The tables: each preset, then three overrides.
fn variant(which: u8) -> Variant {
    let (preset, over): (&str, Option<(&str, ParamValue)>) = match which % 7 {
        0 => ("ramino51", None),
        1 => ("rami51", None),
        2 => ("rummy", None),
        3 => ("gin", None),
        4 => ("rummy", Some(("stock_exhausted", ParamValue::Str("turn_over".into())))),
        5 => ("ramino51", Some(("joker_swap", ParamValue::Bool(false)))),
        _ => ("gin", Some(("big_gin", ParamValue::Bool(true)))),
    };
    let v = Variant::preset(preset).expect("a preset");
    match over {
        Some((name, value)) => v.with_override(name, value).expect("a valid override"),
        None => v,
    }
}

/// A first deck whose deal gives each hand a block of consecutive ids (runs
/// of a suit), from `from`: games that meld and go out in a few commands.
fn stacked(rules: &Rules, seats: usize, from: usize) -> Vec<CardId> {
    let deck = rules.deck_size;
    let size = rules.variant.hand_size(seats as u8).map_or(0, usize::from);
    let blocks: Vec<CardId> = (0..deck).map(|i| ((i + from) % deck) as CardId).collect();
    let mut order = blocks.clone();
    for p in 0..seats {
        for j in 0..size {
            order[j * seats + p] = blocks[p * size + j];
        }
    }
    order
}

fn raw_command(kind: u8, bytes: &mut Bytes) -> Command {
    match kind % 13 {
        0 => Command::DrawFromStock,
        1 => Command::TakeDiscard,
        2 => Command::TurnOverDiscardPile,
        3 => Command::PassUpcard,
        4 => Command::AcceptLayout,
        5 => Command::Resign,
        6 => Command::Unknown("Shuffle".into()),
        7 => Command::LayMelds { melds: bytes.melds() },
        8 => Command::LayOff {
            card: bytes.raw(),
            meld: bytes.raw(),
            end: match bytes.next() % 3 {
                0 => RawEnd::Start,
                1 => RawEnd::End,
                _ => RawEnd::Bad("middle".into()),
            },
        },
        9 => Command::SwapJoker {
            card: bytes.raw(),
            meld: bytes.raw(),
            joker: bytes.raw(),
        },
        10 | 11 => Command::Discard { card: bytes.raw() },
        _ => Command::Knock {
            discard: (bytes.next() & 3 != 0).then(|| bytes.raw()),
            melds: bytes.melds(),
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let table = bytes.next();
    let rules = Arc::new(Rules::new(variant(table)));
    let v = &rules.variant;
    let seats =
        usize::from(v.min_players) + usize::from(bytes.next()) % usize::from(4.min(v.max_players) - v.min_players + 1);
    let mut seed = [0u8; 32];
    for b in seed.iter_mut().take(8) {
        *b = bytes.next();
    }
    let decks = if table >= 0x80 {
        vec![stacked(&rules, seats, usize::from(seed[0]))]
    } else {
        Vec::new()
    };
    let players: Vec<String> = (0..seats).map(|i| format!("p{i}")).collect();
    let (mut game, mut record) =
        Game::new(rules.clone(), &players, Setup { seed, decks }).expect("the tables are playable");

    while !bytes.0.is_empty() {
        let before = game.state.clone();
        let turn = game.turn_now();
        let mut legal = Vec::new();
        for seat in 0..seats {
            let moves = game.legal_moves(seat);
            for m in &moves {
                if let Err(r) = decide(&game.state, &rules, seat as i64, m) {
                    panic!("seat {seat}'s legal move {m:?} refused: {r}");
                }
            }
            if Some(seat) == turn {
                legal = moves;
            }
        }
        let kind = bytes.next();
        let (seat, command) = if kind < 128 {
            let Some(t) = turn else { continue };
            if legal.is_empty() {
                continue;
            }
            (t as i64, legal[usize::from(kind) % legal.len()].clone())
        } else {
            let s = bytes.next() % (seats as u8 + 3);
            let seat = match usize::from(s) {
                s if s < seats => s as i64,
                s if s == seats => -1,
                s if s == seats + 1 => BAD_VALUE,
                s => s as i64,
            };
            (seat, raw_command(kind - 128, &mut bytes))
        };
        match game.apply(seat, &command) {
            Ok(events) => {
                record.extend(events);
                let errors = conservation_errors(&game.state, rules.deck_size);
                assert!(errors.is_empty(), "{command:?} by {seat}: {errors:?}");
            }
            Err(_) => assert!(
                game.state == before,
                "a refused {command:?} by {seat} changed the state"
            ),
        }
    }

    let mut replayed = State::new(&players);
    for e in &record {
        apply_event(&mut replayed, e, &rules).expect("the record folds");
    }
    assert!(replayed == game.state, "the record does not replay");
});
