//! Property tests of the game kernel on random games of every preset (and a
//! few overrides): each game is played from a seed by picking commands among
//! the legal moves (`Resign` now and then), mixed with random raw commands
//! (card ids out of range, `BAD_VALUE`, negative meld indexes, bad ends,
//! other seats). Each test holds one rule over every step of those games.
//!
//! Profiles, as `tests/conftest.py` sets them for Hypothesis: with `CI` set,
//! a fixed seed and no file written (every run plays the same games);
//! locally a random seed, printed on a failure with the command that plays
//! the same cases again (`PROPTEST_RNG_SEED=...`). A failure also prints its
//! minimal case (`Case`), which replays alone: the game is a function of it.
//!
//! The meld search's brute-force reference (`tests/properties.rs`) holds the
//! search on hands of up to 7 cards; a game's hands before an opening hold 13
//! to 15, out of its reach, and the reference is private to that test crate:
//! the opening the legal moves list is held here to the search's own value.

use std::sync::Arc;

use proptest::prelude::*;
use ramino_core::game::*;
use ramino_core::{ParamValue, Scoring, Variant};

// --- the profile --------------------------------------------------------------

mod common;

/// The seed of every CI run: its games end rounds in every way (gone out,
/// closed or not; the stock exhausted, the turn limit, resignations, a
/// drawn hand, a knock, gin, big gin, an undercut).
const CI_SEED: u64 = 5;

fn profile(cases: u32) -> ProptestConfig {
    common::profile(cases, CI_SEED, "game_properties")
}

// --- the tables played ----------------------------------------------------------

/// A variant to play: a preset, its overrides (`"true"`/`"false"` a bool,
/// digits an int, else a string) and the seat counts it is played with.
struct Table {
    preset: &'static str,
    overrides: &'static [(&'static str, &'static str)],
    seats: (usize, usize),
}

const TABLES: &[Table] = &[
    Table {
        preset: "ramino51",
        overrides: &[],
        seats: (2, 4),
    },
    Table {
        preset: "rami51",
        overrides: &[],
        seats: (2, 4),
    },
    Table {
        preset: "rummy",
        overrides: &[],
        seats: (2, 4),
    },
    Table {
        preset: "gin",
        overrides: &[],
        seats: (2, 2),
    },
    Table {
        preset: "rummy",
        overrides: &[("stock_exhausted", "turn_over"), ("max_rounds", "2")],
        seats: (2, 4),
    },
    Table {
        preset: "rummy",
        overrides: &[("max_stock_rebuilds", "0"), ("target_score", "40")],
        seats: (2, 3),
    },
    Table {
        preset: "ramino51",
        overrides: &[("joker_swap", "false"), ("max_stock_rebuilds", "1")],
        seats: (2, 3),
    },
    Table {
        preset: "gin",
        overrides: &[("big_gin", "true"), ("target_score", "30")],
        seats: (2, 2),
    },
];

impl Table {
    fn variant(&self) -> Variant {
        let mut v = Variant::preset(self.preset).expect("a preset");
        for &(name, value) in self.overrides {
            let value = match value {
                "true" => ParamValue::Bool(true),
                "false" => ParamValue::Bool(false),
                _ => value
                    .parse()
                    .map_or_else(|_| ParamValue::Str(value.into()), ParamValue::Int),
            };
            v = v.with_override(name, value).expect("a valid override");
        }
        v
    }
}

/// One random game: the table, its seats, the seed of its deals and of the
/// choices made in it, and how many commands are tried.
#[derive(Clone)]
struct Case {
    table: usize,
    seats: usize,
    seed: u64,
    steps: usize,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = &TABLES[self.table];
        write!(
            f,
            "Case {{ table: {} ({}{:?}), seats: {}, seed: {}, steps: {} }}",
            self.table, t.preset, t.overrides, self.seats, self.seed, self.steps
        )
    }
}

fn cases(max_steps: usize) -> impl Strategy<Value = Case> {
    (0..TABLES.len()).prop_flat_map(move |table| {
        let (lo, hi) = TABLES[table].seats;
        (lo..=hi, any::<u64>(), 1..=max_steps).prop_map(move |(seats, seed, steps)| Case {
            table,
            seats,
            seed,
            steps,
        })
    })
}

// --- playing a game -------------------------------------------------------------

/// splitmix64: the choices of a game, from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

/// One command tried, and what it did.
struct Step {
    before: State,
    /// The legal moves of the seat whose turn it was (none once over).
    legal: Vec<Command>,
    seat: i64,
    command: Command,
    outcome: Result<Vec<Event>, Refusal>,
    after: State,
}

/// A game played: its rules and players, its record (the deal's events, then
/// every accepted command's) and each step.
struct Played {
    rules: Arc<Rules>,
    players: Vec<String>,
    /// The deal's events: the first of the record.
    dealt: usize,
    record: Vec<Event>,
    steps: Vec<Step>,
}

/// A raw card id: mostly one of `hand`, else anything the wire could carry.
fn raw_card(rng: &mut Rng, hand: &[CardId], deck: usize) -> Raw {
    match rng.below(20) {
        0..=11 => rng.pick(hand).map_or(0, |&c| Raw::from(c)),
        12..=14 => rng.below(deck) as Raw,
        15 | 16 => (deck + rng.below(3)) as Raw,
        17 => -1 - rng.below(2) as Raw,
        18 => BAD_VALUE,
        _ => [256, i64::MAX, Raw::from(u8::MAX)][rng.below(3)],
    }
}

/// A raw meld index: mostly one on the table, else out of range or bad.
fn raw_meld(rng: &mut Rng, melds: usize) -> Raw {
    match rng.below(10) {
        0..=6 => rng.below(melds.max(1)) as Raw,
        7 => (melds + rng.below(2)) as Raw,
        8 => -1,
        _ => BAD_VALUE,
    }
}

fn raw_melds(rng: &mut Rng, hand: &[CardId], deck: usize) -> Option<Vec<Vec<Raw>>> {
    if rng.below(12) == 0 {
        return None;
    }
    let n = rng.below(3);
    Some(
        (0..n)
            .map(|_| {
                let len = rng.below(6);
                (0..len).map(|_| raw_card(rng, hand, deck)).collect()
            })
            .collect(),
    )
}

/// A random raw command for a random seat (mostly the seat whose turn it is).
fn raw_command(rng: &mut Rng, state: &State, rules: &Rules) -> (i64, Command) {
    let n = state.seats.len();
    let turn = if state.turn == NO_SEAT { 0 } else { state.turn };
    let seat: i64 = match rng.below(10) {
        0..=6 => turn as i64,
        7 => rng.below(n) as i64,
        8 => [n as i64, -1][rng.below(2)],
        _ => BAD_VALUE,
    };
    let hand: &[CardId] = usize::try_from(seat)
        .ok()
        .and_then(|s| state.seats.get(s))
        .map_or(&[], |s| &s.hand);
    let deck = rules.deck_size;
    let melds = state.melds.len();
    let command = match rng.below(13) {
        0 => Command::DrawFromStock,
        1 => Command::TakeDiscard,
        2 => Command::TurnOverDiscardPile,
        3 => Command::PassUpcard,
        4 => Command::AcceptLayout,
        5 => Command::Unknown("ShuffleTheDeck".into()),
        6 => Command::LayMelds {
            melds: raw_melds(rng, hand, deck),
        },
        7 => Command::LayOff {
            card: raw_card(rng, hand, deck),
            meld: raw_meld(rng, melds),
            end: match rng.below(5) {
                0 | 1 => RawEnd::Start,
                2 | 3 => RawEnd::End,
                _ => RawEnd::Bad("middle".into()),
            },
        },
        8 => {
            let meld = raw_meld(rng, melds);
            let table_joker = usize::try_from(meld)
                .ok()
                .and_then(|m| state.melds.get(m))
                .and_then(|m| m.jokers.first())
                .map(|j| Raw::from(j.0));
            Command::SwapJoker {
                card: raw_card(rng, hand, deck),
                meld,
                joker: match table_joker {
                    Some(j) if rng.below(2) == 0 => j,
                    _ => raw_card(rng, hand, deck),
                },
            }
        }
        9 | 10 => Command::Discard {
            card: raw_card(rng, hand, deck),
        },
        _ => Command::Knock {
            discard: (rng.below(4) != 0).then(|| raw_card(rng, hand, deck)),
            melds: raw_melds(rng, hand, deck),
        },
    };
    (seat, command)
}

/// Whether `command` moves the round on rather than drawing or discarding.
fn progress(command: &Command) -> bool {
    !matches!(
        command,
        Command::Discard { .. } | Command::DrawFromStock | Command::TakeDiscard | Command::TurnOverDiscardPile
    )
}

/// A legal move of `seat`, chosen in the game's style: `eager` percent of
/// the time a move that lays cards or knocks where there is one, else a draw
/// or a discard (the hint's half of the time).
fn legal_choice(rng: &mut Rng, game: &Game, seat: usize, legal: &[Command], eager: usize) -> Option<Command> {
    // A defender lays what it can before it accepts the layout.
    let mut forward: Vec<&Command> = legal.iter().filter(|c| progress(c)).collect();
    if forward.len() > 1 && rng.below(100) < eager {
        forward.retain(|c| **c != Command::AcceptLayout);
    }
    // Knocks are listed best first: the best half of the time.
    let knocks: Vec<&Command> = legal.iter().filter(|c| matches!(c, Command::Knock { .. })).collect();
    if !knocks.is_empty() && rng.below(100) < eager {
        let k = if rng.below(2) == 0 { 0 } else { rng.below(knocks.len()) };
        return Some(knocks[k].clone());
    }
    if !forward.is_empty() && rng.below(100) < eager {
        return rng.pick(&forward).map(|c| (*c).clone());
    }
    let plain: Vec<&Command> = legal.iter().filter(|c| !progress(c)).collect();
    if plain.iter().any(|c| matches!(c, Command::Discard { .. })) && rng.below(2) == 0 {
        if let Some(h) = game.hint(seat, Some(legal)) {
            let d = Command::discard(h.discard);
            if legal.contains(&d) {
                return Some(d);
            }
        }
    }
    rng.pick(&plain)
        .map(|c| (*c).clone())
        .or_else(|| rng.pick(legal).cloned())
}

/// A deck order whose deal gives each of `seats` hands a block of
/// consecutive ids (runs of a suit), a few cards then swapped at random.
fn lucky_deck(rng: &mut Rng, rules: &Rules, seats: usize) -> Vec<CardId> {
    let deck = rules.deck_size;
    let v = &rules.variant;
    let size = usize::from(v.hand_size(seats as u8).expect("a table's seat count is dealt"));
    let from = rng.below(deck);
    let mut blocks: Vec<CardId> = (0..deck).map(|i| ((i + from) % deck) as CardId).collect();
    for _ in 0..rng.below(deck / 6) {
        let (a, b) = (rng.below(deck), rng.below(deck));
        blocks.swap(a, b);
    }
    // Dealt one card at a time round the table: slot `j * seats + p` is the
    // `j`-th card of hand `p`, its block's `j`-th.
    let mut order = vec![0; deck];
    for p in 0..seats {
        for j in 0..size {
            order[j * seats + p] = blocks[p * size + j];
        }
    }
    order[seats * size..].copy_from_slice(&blocks[seats * size..]);
    order
}

/// Plays `case`: every command tried, with the state around it.
fn play(case: &Case) -> Played {
    let rules = Arc::new(Rules::new(TABLES[case.table].variant()));
    let players: Vec<String> = (0..case.seats).map(|i| format!("p{i}")).collect();
    let mut rng = Rng(case.seed);
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next().to_le_bytes());
    }
    // A third of the games start from stacked deals, whose hands hold long
    // runs: they open, go out closed, knock and go gin early.
    let decks = if rng.below(3) == 0 {
        (0..6).map(|_| lucky_deck(&mut rng, &rules, case.seats)).collect()
    } else {
        Vec::new()
    };
    let setup = Setup { seed, decks };
    let (mut game, mut record) = Game::new(rules.clone(), &players, setup).expect("a table's setup is valid");
    let dealt = record.len();
    // The style of the game: eager to lay, casual, or aimless (whose rounds
    // run into the stock's end and the turn limit).
    let eager = [90, 50, 3][rng.below(3)];
    let mut steps = Vec::new();
    let mut after_over = 0;
    for _ in 0..case.steps {
        let before = game.state.clone();
        let legal = game.turn_now().map(|t| game.legal_moves(t)).unwrap_or_default();
        let roll = rng.below(100);
        let (seat, command) = match game.turn_now() {
            Some(turn) if roll >= 12 && !legal.is_empty() => {
                let c = legal_choice(&mut rng, &game, turn, &legal, eager).expect("the legal moves are not empty");
                (turn as i64, c)
            }
            Some(_) if roll == 0 && rng.below(10) == 0 => (rng.below(case.seats) as i64, Command::Resign),
            _ => raw_command(&mut rng, &game.state, &rules),
        };
        let outcome = game.apply(seat, &command);
        if let Ok(events) = &outcome {
            record.extend(events.iter().cloned());
        }
        steps.push(Step {
            before,
            legal,
            seat,
            command,
            outcome,
            after: game.state.clone(),
        });
        if game.state.phase == Phase::Over {
            after_over += 1;
            if after_over > 3 {
                break;
            }
        }
    }
    Played {
        rules,
        players,
        dealt,
        record,
        steps,
    }
}

/// The record folded event by event into a fresh state: `check` sees each
/// event with the state before it and the next event.
fn walk_record(
    p: &Played,
    mut check: impl FnMut(&State, &Event, Option<&Event>) -> Result<(), TestCaseError>,
) -> Result<State, TestCaseError> {
    let mut state = State::new(&p.players);
    for (k, e) in p.record.iter().enumerate() {
        check(&state, e, p.record.get(k + 1))?;
        let folded = apply_event(&mut state, e, &p.rules);
        prop_assert!(folded.is_ok(), "event {k} {e:?} does not fold: {folded:?}");
    }
    Ok(state)
}

/// The seat that put cards on the table in `e`, if any.
fn laid_by(e: &Event) -> Option<usize> {
    match e {
        Event::MeldsLaid { seat, .. } | Event::LaidOff { seat, .. } | Event::JokerSwapped { seat, .. } => Some(*seat),
        _ => None,
    }
}

/// A hand's penalty, from the variant's card values.
fn hand_penalty(rules: &Rules, hand: &[CardId]) -> i64 {
    i64::from(rules.variant.hand_penalty(&rules.cards_of(hand)))
}

// --- the properties ---------------------------------------------------------------

/// The most commands a game is played for (a round of 2 to 4 seats takes 40 to
/// 600; an aimless round runs to the turn limit).
const STEPS: usize = 1500;

/// Cases a test: each plays that many games (a few milliseconds each).
const CASES: u32 = 64;

proptest! {
    #![proptest_config(profile(CASES))]

    /// Every move `legal_moves` lists is accepted by `decide`; the seat whose
    /// turn it is always has one; no other seat has any.
    #[test]
    fn every_listed_legal_move_is_accepted(case in cases(STEPS)) {
        let p = play(&case);
        for (k, s) in p.steps.iter().enumerate() {
            for seat in 0..p.players.len() {
                let mine = s.before.in_round() && seat == s.before.turn;
                let legal = if mine { s.legal.clone() } else { legal_moves(&s.before, &p.rules, seat) };
                if mine {
                    prop_assert!(!legal.is_empty(), "step {k}: seat {seat} has no legal move in {:?}", s.before.phase);
                } else {
                    prop_assert!(legal.is_empty(), "step {k}: seat {seat} out of turn has moves {legal:?}");
                }
                for m in &legal {
                    let got = decide(&s.before, &p.rules, seat as i64, m);
                    prop_assert!(got.is_ok(), "step {k}: seat {seat}'s legal {m:?} refused: {got:?}");
                }
            }
        }
    }

    /// A refused command changes nothing, and is refused again the same way.
    #[test]
    fn a_refused_command_leaves_the_state_unchanged(case in cases(STEPS)) {
        let p = play(&case);
        for (k, s) in p.steps.iter().enumerate() {
            if let Err(r) = &s.outcome {
                prop_assert_eq!(&s.after, &s.before, "step {}: {:?} by {} refused ({})", k, &s.command, s.seat, r);
                let again = decide(&s.before, &p.rules, s.seat, &s.command);
                prop_assert_eq!(again.as_ref().err(), Some(r), "step {}", k);
            }
        }
    }

    /// After every accepted command and the events it called for, every card
    /// is in exactly one place.
    #[test]
    fn every_card_is_in_one_place_after_every_accepted_command(case in cases(STEPS)) {
        let p = play(&case);
        for (k, s) in p.steps.iter().enumerate() {
            if s.outcome.is_ok() {
                let errors = conservation_errors(&s.after, p.rules.deck_size);
                prop_assert!(errors.is_empty(), "step {k}: {:?} by {}: {errors:?}", s.command, s.seat);
            }
        }
    }

    /// Folding the record into a fresh state gives the game's state, after
    /// every command and at the end, with every card in one place after
    /// every event.
    #[test]
    fn folding_the_record_replays_the_game(case in cases(STEPS)) {
        let p = play(&case);
        let mut state = State::new(&p.players);
        for e in &p.record[..p.dealt] {
            prop_assert!(apply_event(&mut state, e, &p.rules).is_ok());
        }
        for (k, s) in p.steps.iter().enumerate() {
            prop_assert_eq!(&state, &s.before, "step {}", k);
            if let Ok(events) = &s.outcome {
                for e in events {
                    let folded = apply_event(&mut state, e, &p.rules);
                    prop_assert!(folded.is_ok(), "step {k}: {e:?} does not fold: {folded:?}");
                    let errors = conservation_errors(&state, p.rules.deck_size);
                    prop_assert!(errors.is_empty(), "step {k}: after {e:?}: {errors:?}");
                }
            }
            prop_assert_eq!(&state, &s.after, "step {}: {:?} by {}", k, &s.command, s.seat);
        }
        let replayed = walk_record(&p, |_, _, _| Ok(()))?;
        prop_assert_eq!(&replayed, &p.steps.last().expect("a case plays a step").after);
    }

    /// A projected event shows the viewer its own hand and drawn cards and
    /// nothing else hidden: no other hand, no stock, no other seat's draw.
    #[test]
    fn a_projected_event_hides_the_other_hands_the_stock_and_others_draws(case in cases(STEPS)) {
        let p = play(&case);
        let viewers = (0..p.players.len()).map(Some).chain([None]);
        for viewer in viewers {
            for e in &p.record {
                let seen = project(e, viewer);
                match (e, &seen) {
                    (
                        Event::RoundStarted { round, dealer, first_player, hands, hand_sizes, upcard, stock_size, .. },
                        Event::RoundStarted {
                            round: r2, dealer: d2, first_player: f2, hands: h2, hand_sizes: s2, upcard: u2,
                            stock_size: n2, stock,
                        },
                    ) => {
                        prop_assert_eq!((round, dealer, first_player, hand_sizes, upcard, stock_size), (r2, d2, f2, s2, u2, n2));
                        prop_assert_eq!(stock, &None);
                        for (seat, (h, shown)) in hands.iter().zip(h2).enumerate() {
                            let want = if Some(seat) == viewer { h.clone() } else { None };
                            prop_assert_eq!(shown, &want, "seat {} seen by {:?}", seat, viewer);
                        }
                    }
                    (Event::DrewFromStock { seat, card }, Event::DrewFromStock { seat: s2, card: c2 }) => {
                        prop_assert_eq!(seat, s2);
                        let want = if Some(*seat) == viewer { *card } else { None };
                        prop_assert_eq!(*c2, want, "seat {}'s draw seen by {:?}", seat, viewer);
                    }
                    (
                        Event::StockReshuffled { rebuild, kept, stock_size, .. },
                        Event::StockReshuffled { rebuild: r2, kept: k2, stock_size: n2, stock },
                    ) => {
                        prop_assert_eq!((rebuild, kept, stock_size), (r2, k2, n2));
                        prop_assert_eq!(stock, &None);
                    }
                    (Event::RoundStarted { .. } | Event::DrewFromStock { .. } | Event::StockReshuffled { .. }, _) => {
                        prop_assert!(false, "{e:?} projected as {seen:?}");
                    }
                    _ => prop_assert_eq!(&seen, e),
                }
            }
        }
    }

    /// In the play phase, where a discard is legal at all, the hint's
    /// discard is a card of the hand that `decide` takes as a discard; the
    /// hint is the same with the legal moves given or found.
    #[test]
    fn the_hints_discard_is_a_legal_discard(case in cases(STEPS)) {
        let p = play(&case);
        for (k, s) in p.steps.iter().enumerate() {
            let st = &s.before;
            if st.phase != Phase::Play || !s.legal.iter().any(|c| matches!(c, Command::Discard { .. })) {
                continue;
            }
            let seat = st.turn;
            let h = hint(st, &p.rules, seat, Some(&s.legal));
            prop_assert!(h.is_some(), "step {k}: no hint for seat {seat}");
            let h = h.expect("checked");
            prop_assert!(st.seats[seat].hand.contains(&h.discard), "step {}: hint discards {} not in hand", k, h.discard);
            let got = decide(st, &p.rules, seat as i64, &Command::discard(h.discard));
            prop_assert!(got.is_ok(), "step {k}: the hint's discard {} is refused: {got:?}", h.discard);
            prop_assert_eq!(Some(h), hint(st, &p.rules, seat, None), "step {}", k);
        }
    }

    /// Before a seat has opened, the opening the legal moves list is the
    /// search's best opening (the search is held to a brute force in
    /// `tests/properties.rs`): its melds are the hand's, and worth the best
    /// value, at least the threshold; none is listed when none exists, or
    /// when `decide` refuses the best.
    #[test]
    fn the_listed_opening_is_the_best_opening(case in cases(STEPS)) {
        let p = play(&case);
        let v = &p.rules.variant;
        for (k, s) in p.steps.iter().enumerate() {
            let st = &s.before;
            let seat = st.turn;
            if !p.rules.needs_opening || st.phase != Phase::Play || st.seats[seat].opened || v.knocking {
                continue;
            }
            let hand = &st.seats[seat].hand;
            let include = if st.must_open { st.taken.map(|t| p.rules.card(t)) } else { None };
            let best = ramino_core::best_opening(&p.rules.cards_of(hand), v, include).expect("a dealt hand searches");
            let listed: Vec<&Vec<Vec<Raw>>> = s.legal.iter().filter_map(|c| match c {
                Command::LayMelds { melds: Some(m) } => Some(m),
                _ => None,
            }).collect();
            prop_assert!(listed.len() <= 1, "step {k}: {} openings listed", listed.len());
            let Some(best) = best else {
                prop_assert!(listed.is_empty(), "step {k}: an opening listed where none exists: {listed:?}");
                continue;
            };
            prop_assert!(best.value >= u32::from(v.open_threshold));
            if listed.is_empty() {
                // Only a legal opening is listed (one that leaves no card to
                // discard but the one taken is not).
                let ids = ramino_core::game::policy::ids_of(hand, &p.rules, &best.melds, &[st.taken, st.pending_joker]);
                let got = decide(st, &p.rules, seat as i64, &Command::lay_melds(&ids));
                prop_assert!(got.is_err(), "step {k}: the legal opening worth {} is not listed", best.value);
                continue;
            }
            let mut left = hand.clone();
            let mut value = 0;
            for m in listed[0] {
                let ids: Vec<CardId> = m.iter().map(|&c| CardId::try_from(c).expect("a listed id")).collect();
                for c in &ids {
                    let i = left.iter().position(|x| x == c);
                    prop_assert!(i.is_some(), "step {k}: {c} laid but not in the hand");
                    left.remove(i.expect("checked"));
                }
                let meld = ramino_core::validate_meld(&p.rules.cards_of(&ids), v);
                prop_assert!(meld.is_ok(), "step {k}: {ids:?} is not a meld");
                value += meld.expect("checked").value;
            }
            prop_assert_eq!(value, best.value, "step {}", k);
        }
    }

    /// A round's scores are the variant's: penalty scoring gives the winner
    /// of a round gone out the winner's (or closed) score and the others
    /// their hands' penalties (or the never-opened penalty), times the
    /// closed factor; points scoring gives the winner the others' hands
    /// (times the rummy factor); a knocked hand scores the difference (with
    /// gin's, big gin's or the undercut's bonus); any other ending nobody.
    #[test]
    fn a_rounds_scores_follow_the_variants_scoring(case in cases(STEPS)) {
        let p = play(&case);
        let rules = &p.rules;
        let v = &rules.variant;
        let n = p.players.len();
        // The turns (each seat's count) in which each seat laid cards this round.
        let mut laid: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut big_gin = false;
        walk_record(&p, |st, e, _| {
            if let Some(seat) = laid_by(e) {
                laid[seat].push(st.seats[seat].turns);
            }
            match e {
                Event::RoundStarted { .. } => laid.iter_mut().for_each(Vec::clear),
                Event::Knocked { discard, .. } => big_gin = discard.is_none(),
                Event::RoundEnded(r) => {
                    prop_assert_eq!(r.round, st.round);
                    let hands: Vec<Vec<CardId>> = st.seats.iter().map(|s| s.hand.clone()).collect();
                    prop_assert_eq!(&r.hands, &hands);
                    let active = st.active();
                    let mut want = vec![0i64; n];
                    match r.ending {
                        Ending::WentOut => {
                            let w = st.turn;
                            prop_assert_eq!(r.winner, Some(w));
                            prop_assert!(st.seats[w].hand.is_empty());
                            let closed = laid[w].iter().all(|&t| t == st.seats[w].turns);
                            prop_assert_eq!(r.closed_hand, closed, "the winner laid in turns {:?} of {}", &laid[w], st.seats[w].turns);
                            let hand = |i: usize| {
                                if v.never_opened_penalty != 0 && laid[i].is_empty() {
                                    i64::from(v.never_opened_penalty)
                                } else {
                                    hand_penalty(rules, &st.seats[i].hand)
                                }
                            };
                            let losers = active.iter().copied().filter(|&i| i != w);
                            if v.scoring == Scoring::Penalty {
                                let factor = if closed { i64::from(v.closed_hand_multiplier) } else { 1 };
                                want[w] = i64::from(if closed { v.closed_hand_score } else { v.winner_score });
                                for i in losers {
                                    want[i] = hand(i) * factor;
                                }
                            } else {
                                let factor = if closed { i64::from(v.rummy_multiplier) } else { 1 };
                                want[w] = losers.map(hand).sum::<i64>() * factor;
                            }
                        }
                        Ending::Knock | Ending::Gin | Ending::BigGin | Ending::Undercut => {
                            prop_assert!(v.knocking && active.len() == 2);
                            let knocker = st.knocker.expect("a knocked hand has its knocker");
                            let defender = active.iter().copied().find(|&i| i != knocker).expect("two seats");
                            let dk = hand_penalty(rules, &st.seats[knocker].hand);
                            let dd = hand_penalty(rules, &st.seats[defender].hand);
                            let (ending, winner) = if dk == 0 {
                                let (ending, bonus) = if big_gin { (Ending::BigGin, v.big_gin_bonus) } else { (Ending::Gin, v.gin_bonus) };
                                want[knocker] = dd + i64::from(bonus);
                                (ending, Some(knocker))
                            } else if dd > dk {
                                want[knocker] = dd - dk;
                                (Ending::Knock, Some(knocker))
                            } else if dd < dk {
                                want[defender] = dk - dd + i64::from(v.undercut_bonus);
                                (Ending::Undercut, Some(defender))
                            } else {
                                (Ending::Knock, None)
                            };
                            prop_assert_eq!((r.ending, r.winner), (ending, winner));
                        }
                        Ending::StockExhausted => prop_assert!(st.stock.is_empty()),
                        Ending::Resignations => prop_assert!(active.len() < 2),
                        Ending::TurnLimit => {
                            let turns: u32 = st.seats.iter().map(|s| s.turns).sum();
                            prop_assert!(turns > u32::from(v.max_turns_per_round), "{turns} turns");
                        }
                        Ending::Drawn => prop_assert!(v.knocking),
                    }
                    if !matches!(r.ending, Ending::WentOut | Ending::Knock | Ending::Gin | Ending::BigGin | Ending::Undercut) {
                        prop_assert_eq!(r.winner, None);
                    }
                    prop_assert_eq!(&r.scores, &want, "{:?}", r);
                }
                _ => {}
            }
            Ok(())
        })?;
    }

    /// Every seat's score of a round, and its total at the match's end, is
    /// the sum of the parts the kernel gives it, each part of a kind that the
    /// variant's scoring has (a knock's in knocking play, a hand's penalty or
    /// the winner's score in penalty scoring, a collected hand where the
    /// winner collects), a collected hand or a deadwood naming another seat.
    #[test]
    fn every_score_is_the_sum_of_its_parts(case in cases(STEPS)) {
        use ScorePartKind as K;
        let p = play(&case);
        let v = &p.rules.variant;
        let n = p.players.len();
        walk_record(&p, |st, e, _| {
            match e {
                Event::RoundEnded(r) => {
                    prop_assert_eq!(r.parts.len(), n);
                    prop_assert_eq!(&scores_of(&r.parts), &r.scores, "{:?}", &r.parts);
                    for (i, part) in r.parts.iter().enumerate().flat_map(|(i, ps)| ps.iter().map(move |x| (i, x))) {
                        let allowed: &[ScorePartKind] = if v.knocking {
                            &[K::OpponentDeadwood, K::OwnDeadwood, K::GinBonus, K::BigGinBonus, K::UndercutBonus]
                        } else if v.scoring == Scoring::Penalty {
                            &[K::WentOut, K::ClosedHand, K::HandPenalty, K::NeverOpened, K::ClosedHandMultiplier]
                        } else {
                            &[K::HandCollected, K::RummyMultiplier]
                        };
                        prop_assert!(allowed.contains(&part.kind), "{:?} in {}", part, v.name);
                        prop_assert!(part.seat.is_none_or(|s| s != i && s < n), "{:?} of seat {}", part, i);
                    }
                    if r.winner.is_none() {
                        prop_assert!(r.parts.iter().all(Vec::is_empty), "{:?}", &r.parts);
                    }
                }
                Event::MatchEnded { totals, parts, .. } => {
                    prop_assert_eq!(&scores_of(parts), totals, "{:?}", parts);
                    for (ps, seat) in parts.iter().zip(&st.seats) {
                        prop_assert_eq!(ps.first().copied(), Some(ScorePart::new(K::Rounds, seat.total)));
                    }
                }
                _ => {}
            }
            Ok(())
        })?;
    }

    /// After every round's end, each seat's total is the sum of its scores in
    /// the rounds' results, one result a round played.
    #[test]
    fn the_totals_are_the_sum_of_the_round_results(case in cases(STEPS)) {
        let p = play(&case);
        let mut state = State::new(&p.players);
        for e in &p.record {
            prop_assert!(apply_event(&mut state, e, &p.rules).is_ok());
            if let Event::RoundEnded(_) = e {
                prop_assert_eq!(state.results.len(), state.round as usize);
                for (i, seat) in state.seats.iter().enumerate() {
                    let sum: i64 = state.results.iter().map(|r| r.scores[i]).sum();
                    prop_assert_eq!(seat.total, sum, "seat {} after round {}", i, state.round);
                }
            }
        }
    }

    /// The match ends exactly when `match_winners` says so after a round,
    /// as the rules say (one seat left, the rounds played, the target
    /// reached), with the best totals' seats as its winners and the totals
    /// with their bonuses; after it, nothing is accepted or listed.
    #[test]
    fn the_match_ends_exactly_when_match_winners_says_so(case in cases(STEPS)) {
        let p = play(&case);
        let rules = &p.rules;
        let v = &rules.variant;
        let mut ended = false;
        let state = walk_record(&p, |st, e, next| {
            prop_assert!(!ended, "{e:?} after the match's end");
            match e {
                Event::RoundEnded(r) => {
                    let mut after = st.clone();
                    prop_assert!(apply_event(&mut after, e, rules).is_ok());
                    let winners = match_winners(&after, rules);
                    let active = after.active();
                    let totals: Vec<i64> = active.iter().map(|&i| after.seats[i].total).collect();
                    let over = active.len() <= 1
                        || (v.max_rounds != 0 && after.round >= v.max_rounds)
                        || (v.target_score != 0 && totals.iter().any(|&t| t >= i64::from(v.target_score)));
                    prop_assert_eq!(winners.is_some(), over, "after {:?} with totals {:?}", r, &totals);
                    match (next, &winners) {
                        (Some(Event::MatchEnded { winners: got, .. }), Some(want)) => prop_assert_eq!(got, want),
                        (Some(Event::RoundStarted { .. }), None) => {}
                        _ => prop_assert!(false, "after {r:?}, match_winners {winners:?} but next {next:?}"),
                    }
                    if let Some(w) = winners {
                        let best = if v.scoring == Scoring::Penalty { totals.iter().min() } else { totals.iter().max() };
                        let want: Vec<usize> = if active.len() <= 1 {
                            active.clone()
                        } else {
                            active.iter().zip(&totals).filter(|&(_, t)| Some(t) == best).map(|(&i, _)| i).collect()
                        };
                        prop_assert_eq!(w, want);
                    }
                }
                Event::MatchEnded { totals, winners, .. } => {
                    prop_assert_eq!(st.phase, Phase::BetweenRounds);
                    let active = st.active();
                    let mut want: Vec<i64> = st.seats.iter().map(|s| s.total).collect();
                    let won = |i: usize| st.results.iter().filter(|r| r.winner == Some(i)).count() as i64;
                    for &i in &active {
                        want[i] += i64::from(v.box_bonus) * won(i);
                    }
                    if let ([w], true) = (winners.as_slice(), active.len() > 1) {
                        want[*w] += i64::from(v.game_bonus);
                        if active.iter().all(|&i| i == *w || won(i) == 0) {
                            want[*w] *= i64::from(v.shutout_multiplier);
                        }
                    }
                    prop_assert_eq!(totals, &want);
                    ended = true;
                }
                _ => {}
            }
            Ok(())
        })?;
        prop_assert_eq!(state.phase == Phase::Over, ended);
        for (k, s) in p.steps.iter().filter(|s| s.before.phase == Phase::Over).enumerate() {
            prop_assert!(s.outcome.is_err(), "step {} after the end: {:?} accepted", k, &s.command);
            for seat in 0..p.players.len() {
                prop_assert!(legal_moves(&s.before, rules, seat).is_empty());
            }
        }
    }
}
