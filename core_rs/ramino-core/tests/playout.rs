//! The playouts of the searching bots: the budget, determinism, input
//! errors, and the kernel's round underneath.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::sync::Arc;

use ramino_core::game::greedy;
use ramino_core::game::policy::{best_discards, discardable, ids_of, keep_one};
use ramino_core::game::{decide, joker_meld, legal_moves, CardId, Command, Event, Game, Phase, Rules, Setup, State};
use ramino_core::playout::play_round;
use ramino_core::{
    best_opening, evaluate, joker_swaps, layoff_targets, min_deadwood, Action, Budget, Card, ChaCha20, ParamValue,
    PlayoutError, Scoring, SeatSeen, Seen, Variant,
};

fn variants() -> Vec<Variant> {
    vec![
        Variant::ramino51(),
        Variant::rami51(),
        Variant::rummy(),
        Variant::gin(),
        Variant::rummy()
            .with_override("ace_high", ParamValue::Bool(true))
            .unwrap(),
    ]
}

fn seat(hand_size: usize, known: Vec<Card>, opened: bool) -> SeatSeen {
    SeatSeen {
        hand_size,
        known,
        opened,
        had_turn: true,
        discarded: vec![],
        laid_any: opened,
    }
}

/// Seat 0 holds `mine`, the other seats `size` unknown cards each, the rest
/// of the deck is the stock (the discard pile holds `discard`).
fn seen_for(v: &Variant, mine: &str, discard: &str, others: usize, size: usize) -> Seen {
    let mine = Card::parse_list(mine).unwrap();
    let discard = Card::parse_list(discard).unwrap();
    let mut unseen = v.deck().cards();
    for c in mine.iter().chain(&discard) {
        let i = unseen.iter().position(|u| u == c).unwrap();
        unseen.remove(i);
    }
    let mut seats = vec![seat(mine.len(), mine, false)];
    seats.extend((0..others).map(|_| seat(size, vec![], false)));
    Seen {
        seat: 0,
        stock_size: unseen.len() - others * size,
        seats,
        discard,
        table: vec![],
        unseen,
        taken: None,
        rebuilds_left: 3,
        turns_left: 300,
        no_draw_seat: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, rng_seed: RngSeed::Fixed(24), .. ProptestConfig::default() })]

    /// An iteration budget runs exactly that many playouts of every action,
    /// and the same seed gives the same figures.
    #[test]
    fn the_iteration_budget_is_exact_and_deterministic(vi in 0usize..4, n in 1u32..12, seed in any::<[u8; 32]>()) {
        let v = &variants()[vi];
        let (mine, size) = match v.hand_size(2) {
            Some(10) => ("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH", 10),
            _ => ("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH 7C 7D 8S 2H", 14),
        };
        let seen = seen_for(v, mine, "", 1, size);
        let actions = [Action::Discard("KC".parse().unwrap()), Action::Discard("AS".parse().unwrap())];
        let a = evaluate(v, &seen, &actions, &Budget::iterations(n), seed).unwrap();
        let b = evaluate(v, &seen, &actions, &Budget::iterations(n), seed).unwrap();
        prop_assert_eq!(&a, &b);
        for e in &a {
            prop_assert_eq!(e.playouts, n);
            prop_assert!(e.wins <= n);
            prop_assert!(e.mean.is_finite());
        }
    }
}

#[test]
fn a_hand_one_card_from_gin_knocks_rather_than_breaks_a_meld() {
    let v = Variant::gin();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D 9H KC 2D", "", 1, 10);
    let actions = [
        Action::Knock("KC".parse().unwrap()),
        Action::Discard("9C".parse().unwrap()),
    ];
    let e = evaluate(&v, &seen, &actions, &Budget::iterations(200), [1; 32]).unwrap();
    // Knocking with 2 points wins almost every hand at once.
    assert!(e[0].mean > e[1].mean, "{e:?}");
    assert!(e[0].wins > 150, "{e:?}");
}

#[test]
fn four_seats_of_ramino51_play_to_an_end() {
    let v = Variant::ramino51();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH 7C 7D 8S 2H", "", 3, 14);
    let actions = [
        Action::Discard("KC".parse().unwrap()),
        Action::Discard("2H".parse().unwrap()),
    ];
    let e = evaluate(&v, &seen, &actions, &Budget::iterations(20), [3; 32]).unwrap();
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|x| x.playouts == 20 && x.mean.is_finite()));
}

#[test]
fn bad_inputs_are_named() {
    let v = Variant::gin();
    let good = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH", "", 1, 10);
    let go = |s: &Seen, a: &[Action]| evaluate(&v, s, a, &Budget::iterations(1), [0; 32]).unwrap_err();
    let discard = [Action::Discard("KC".parse().unwrap())];

    let mut s = good.clone();
    s.stock_size += 1;
    assert_eq!(go(&s, &discard).reason(), "UNSEEN_COUNT");
    let mut s = good.clone();
    s.seats[1].known = Card::parse_list("KS KH").unwrap();
    s.seats[1].hand_size = 1;
    assert!(matches!(
        go(&s, &discard),
        PlayoutError::KnownExceedsHand { seat: 1, .. }
    ));
    let mut s = good.clone();
    s.seats[0].hand_size = 12;
    assert_eq!(go(&s, &discard).reason(), "OWN_HAND_UNKNOWN");
    let mut s = good.clone();
    s.unseen[0] = "AS".parse().unwrap();
    assert_eq!(
        go(&s, &discard).to_string(),
        "AS appears more often than the deck holds it"
    );
    assert_eq!(go(&good, &[]).reason(), "NO_ACTIONS");
    assert_eq!(
        go(&good, &[Action::Discard("7H".parse().unwrap())]).reason(),
        "BAD_ACTION"
    );
    assert_eq!(go(&good, &[Action::TakeDiscard]).reason(), "BAD_ACTION");
    let mut s = good.clone();
    s.seat = 5;
    assert_eq!(go(&s, &discard).reason(), "NO_SUCH_SEAT");
    let mut s = good;
    s.table = vec![Card::parse_list("2C 3C 5C").unwrap()];
    assert_eq!(go(&s, &discard).reason(), "BAD_TABLE");
    let r51 = Variant::ramino51();
    let s = seen_for(&r51, "AS 2S 3S", "", 1, 3);
    let e = evaluate(
        &r51,
        &s,
        &[Action::Knock("AS".parse().unwrap())],
        &Budget::iterations(1),
        [0; 32],
    );
    assert_eq!(e.unwrap_err().reason(), "BAD_ACTION");
}

/// The margin weight changes what a playout is worth, not how it is played:
/// at 0 a playout is worth its win alone (+1, -1 or 0), and past that the
/// means move in proportion to the weight, by the same mean margin.
#[test]
fn the_margin_weight_scales_the_points_beside_the_win() {
    let v = Variant::ramino51();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH 7C 7D 8S 2H", "", 1, 13);
    let actions = [
        Action::Discard("KC".parse().unwrap()),
        Action::Discard("2H".parse().unwrap()),
    ];
    let at = |w: f64| {
        let budget = Budget {
            margin_weight: w,
            ..Budget::iterations(60)
        };
        evaluate(&v, &seen, &actions, &budget, [5; 32]).unwrap()
    };
    let (none, small, large) = (at(0.0), at(0.001), at(0.01));
    for (i, e) in none.iter().enumerate() {
        let sum = e.mean * f64::from(e.playouts);
        assert!((sum - sum.round()).abs() < 1e-9, "{e:?}");
        assert!(e.mean.abs() <= 1.0, "{e:?}");
        assert_eq!(e.wins, small[i].wins);
        assert_eq!(e.wins, large[i].wins);
        let margin = (large[i].mean - e.mean) / 0.01;
        assert!(
            margin.abs() > 1.0,
            "a mean margin of {margin} points: the playouts ended level"
        );
        assert!(((small[i].mean - e.mean) / 0.001 - margin).abs() < 1e-6, "{e:?}");
    }
}

/// Racing: an action far behind the leader is played out no more once the
/// standing says so, the first action plays every iteration, and an action
/// as good as the leader (here the same action twice) stays to the end.
#[test]
fn a_clearly_beaten_action_leaves_the_race_and_the_first_stays() {
    let v = Variant::gin();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D 9H KC 2D", "", 1, 10);
    let knock = Action::Knock("KC".parse().unwrap());
    let actions = [knock, Action::Discard("9C".parse().unwrap()), knock];
    let e = evaluate(&v, &seen, &actions, &Budget::iterations(200), [2; 32]).unwrap();
    assert_eq!(e[0].playouts, 200, "{e:?}");
    assert!((32..200).contains(&e[1].playouts), "{e:?}");
    assert_eq!(e[2].playouts, 200, "{e:?}");
    assert!(e[1].advantage < 0.0 && e[2].advantage == 0.0, "{e:?}");
}

// --- the kernel's round underneath ---------------------------------------------

/// A tie-breaker drawing from a seeded ChaCha20.
fn picker(seed: u64) -> impl FnMut(usize) -> usize {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = ChaCha20::from_seed(&key);
    move |n| rng.below(u32::try_from(n).expect("a small choice")) as usize
}

/// A new game of `preset` for 2 to 4 seats (by `k`), dealt from `k`'s seed.
fn new_game(preset: &str, k: u64) -> (Game, Vec<Event>) {
    let rules = Arc::new(Rules::new(Variant::preset(preset).unwrap()));
    let v = &rules.variant;
    let span = u64::from(v.max_players.min(4) - v.min_players + 1);
    let players: Vec<String> = (0..u64::from(v.min_players) + k % span)
        .map(|i| format!("p{i}"))
        .collect();
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&k.to_le_bytes());
    seed[8] = preset.len() as u8;
    Game::new(
        rules,
        &players,
        Setup {
            seed,
            decks: Vec::new(),
        },
    )
    .unwrap()
}

/// Plays `games` first rounds of `preset`, each seat by the greedy policy
/// but one command in four a legal move drawn at random (so that the
/// states are varied: swapped jokers, openings owed, lay-offs), calling
/// `visit` with the game and the round's events before every command.
fn walk(preset: &str, games: u64, mut visit: impl FnMut(&Game, &[Event])) {
    for k in 0..games {
        let (mut game, mut events) = new_game(preset, k);
        let mut pick = picker(k);
        let mut rng = ChaCha20::from_seed(&[k as u8 + 100; 32]);
        for _ in 0..3000 {
            let Some(seat) = game.turn_now() else { break };
            visit(&game, &events);
            let cmd = if rng.below(4) == 0 {
                let moves = game.legal_moves(seat);
                moves[rng.below(moves.len() as u32) as usize].clone()
            } else {
                greedy::choose(&game.state, &game.rules, seat, &mut pick).expect("a greedy command")
            };
            let more = game.apply(seat as i64, &cmd).expect("a legal command");
            if more.iter().any(|e| matches!(e, Event::RoundEnded(_))) {
                break;
            }
            events.extend(more);
        }
    }
}

/// The Python greedy bot's `choose` (`service/ramino/bots/greedy.py`),
/// ported literally over the kernel's whole legal-move list and searches:
/// the reference the kernel's policy, with its shortcuts, must equal.
fn reference(state: &State, rules: &Rules, seat: usize, pick: &mut impl FnMut(usize) -> usize) -> Option<Command> {
    let v = &rules.variant;
    let legal = |c: &Command| decide(state, rules, seat as i64, c).is_ok();
    let hand = &state.seats[seat].hand;
    let cards = rules.cards_of(hand);
    let cmd: Option<Command> = if v.knocking {
        let moves = legal_moves(state, rules, seat);
        match state.phase {
            Phase::Draw => {
                let mut take = false;
                if let (true, Some(&top)) = (moves.contains(&Command::TakeDiscard), state.discard.last()) {
                    let mut with = cards.clone();
                    with.push(rules.card(top));
                    let dw = min_deadwood(&with, v).unwrap();
                    let wall = !moves.contains(&Command::DrawFromStock) && !state.first_upcard;
                    take = wall || !dw.deadwood.contains(&rules.card(top));
                }
                if take {
                    Some(Command::TakeDiscard)
                } else if moves.contains(&Command::DrawFromStock) {
                    Some(Command::DrawFromStock)
                } else if moves.contains(&Command::PassUpcard) {
                    Some(Command::PassUpcard)
                } else {
                    moves.first().cloned()
                }
            }
            Phase::Play => {
                if let Some(k) = moves.iter().find(|m| matches!(m, Command::Knock { .. })) {
                    Some(k.clone())
                } else {
                    let legal_discards: Vec<CardId> = moves
                        .iter()
                        .filter_map(|m| match m {
                            Command::Discard { card } => Some(*card as CardId),
                            _ => None,
                        })
                        .collect();
                    let allowed: Vec<CardId> = discardable(rules, hand, state.taken, None)
                        .into_iter()
                        .filter(|c| legal_discards.contains(c))
                        .collect();
                    Some(Command::discard(ref_choice(rules, hand, &allowed, pick)))
                }
            }
            _ => {
                if let Some(lo) = moves.iter().find(|m| matches!(m, Command::LayOff { .. })) {
                    Some(lo.clone())
                } else {
                    let dw = (!hand.is_empty()).then(|| min_deadwood(&cards, v).unwrap());
                    match dw.as_ref().and_then(|d| d.melds.first()) {
                        Some(m) => Some(Command::lay_melds(&ids_of(hand, rules, std::slice::from_ref(m), &[]))),
                        None => Some(Command::AcceptLayout),
                    }
                }
            }
        }
    } else if state.phase == Phase::Draw {
        let mut out = None;
        if let Some(&top) = state.discard.last() {
            let card = rules.card(top);
            let mut wanted = card.is_joker();
            if !wanted {
                let mut with = cards.clone();
                with.push(card);
                wanted = !min_deadwood(&with, v).unwrap().deadwood.contains(&card);
            }
            if wanted && legal(&Command::TakeDiscard) {
                out = Some(Command::TakeDiscard);
            }
        }
        out.or(Some(if state.stock.is_empty() {
            Command::TurnOverDiscardPile
        } else {
            Command::DrawFromStock
        }))
    } else {
        reference_play(state, rules, seat, pick)
    };
    match cmd {
        Some(c) if legal(&c) => Some(c),
        _ => ref_fallback(state, rules, seat, pick),
    }
}

/// The Python `_discard_choice`.
fn ref_choice(rules: &Rules, hand: &[CardId], allowed: &[CardId], pick: &mut dyn FnMut(usize) -> usize) -> CardId {
    let best = best_discards(rules, hand, allowed, None);
    best[pick(best.len())]
}

/// The Python `_fallback`.
fn ref_fallback(state: &State, rules: &Rules, seat: usize, pick: &mut dyn FnMut(usize) -> usize) -> Option<Command> {
    let moves = legal_moves(state, rules, seat);
    let discards: Vec<CardId> = moves
        .iter()
        .filter_map(|m| match m {
            Command::Discard { card } => Some(*card as CardId),
            _ => None,
        })
        .collect();
    if discards.is_empty() {
        return moves.first().cloned();
    }
    Some(Command::discard(ref_choice(
        rules,
        &state.seats[seat].hand,
        &discards,
        pick,
    )))
}

/// The Python `_play` (and `_choose_discard`), literally.
fn reference_play(state: &State, rules: &Rules, seat: usize, pick: &mut impl FnMut(usize) -> usize) -> Option<Command> {
    let v = &rules.variant;
    let legal = |c: &Command| decide(state, rules, seat as i64, c).is_ok();
    let s = &state.seats[seat];
    let hand = &s.hand;
    let cards = rules.cards_of(hand);
    let first = [state.taken, state.pending_joker];
    let choose_discard = |pick: &mut dyn FnMut(usize) -> usize| {
        let allowed = discardable(rules, hand, state.taken, state.pending_joker);
        if allowed.is_empty() {
            return ref_fallback(state, rules, seat, pick);
        }
        Some(Command::discard(ref_choice(rules, hand, &allowed, pick)))
    };
    if rules.needs_opening && !s.opened {
        let include = if state.must_open {
            state.taken.map(|t| rules.card(t))
        } else {
            None
        };
        if let Some(o) = best_opening(&cards, v, include).unwrap() {
            let cmd = Command::lay_melds(&ids_of(hand, rules, &o.melds, &first));
            if legal(&cmd) {
                return Some(cmd);
            }
        }
        return choose_discard(pick);
    }
    if state.pending_joker.is_some() {
        if let Some((rest, jm)) = joker_meld(rules, state.taken, hand) {
            return Some(Command::lay_melds(&ids_of(&rest, rules, &jm, &first)));
        }
    }
    let dw = min_deadwood(&cards, v).unwrap();
    if !dw.melds.is_empty() {
        let melds = if dw.deadwood.is_empty() && rules.must_discard {
            keep_one(&dw.melds, v)
        } else {
            dw.melds.clone()
        };
        if !melds.is_empty() {
            let cmd = Command::lay_melds(&ids_of(hand, rules, &melds, &first));
            if legal(&cmd) {
                return Some(cmd);
            }
        }
    }
    if !state.melds.is_empty() {
        let table: Vec<Vec<Card>> = state.melds.iter().map(|m| rules.cards_of(&m.cards)).collect();
        for lo in layoff_targets(&cards, &table, v).unwrap() {
            if lo.card.is_joker() && hand.len() > 2 {
                continue;
            }
            let Some(&id) = hand
                .iter()
                .find(|&&c| rules.card(c) == lo.card && Some(c) != state.pending_joker)
            else {
                continue;
            };
            let cmd = Command::lay_off(id, lo.meld, lo.end);
            if legal(&cmd) {
                return Some(cmd);
            }
        }
        if v.joker_swap && state.pending_joker.is_none() {
            for sw in joker_swaps(&cards, &table, v).unwrap() {
                let id = *hand.iter().find(|&&c| rules.card(c) == sw.card).unwrap();
                let joker = state.melds[sw.meld].cards[sw.joker_index];
                let cmd = Command::swap_joker(id, sw.meld, joker);
                if legal(&cmd) {
                    return Some(cmd);
                }
            }
        }
    }
    choose_discard(pick)
}

const PRESET_NAMES: [&str; 4] = ["ramino51", "rami51", "rummy", "gin"];

/// Over thousands of states of every preset, the greedy policy always has
/// a command, the rules take it, and it is the Python bot's choice as the
/// whole legal-move list gives it (the policy's shortcuts change no
/// answer), drawing as many tie-breaks.
#[test]
fn the_greedy_policy_proposes_the_python_bots_legal_command() {
    for preset in PRESET_NAMES {
        let mut states = 0;
        let games = if preset == "gin" { 48 } else { 16 };
        walk(preset, games, |game, _| {
            let seat = game.turn_now().unwrap();
            let (state, rules) = (&game.state, &*game.rules);
            let (mut calls, mut ref_calls) = (Vec::new(), Vec::new());
            let (mut p, mut q) = (picker(states), picker(states));
            let mine = greedy::choose(state, rules, seat, &mut |n| {
                calls.push(n);
                p(n)
            })
            .expect("a greedy command");
            assert!(
                decide(state, rules, seat as i64, &mine).is_ok(),
                "{preset}: {mine:?} refused"
            );
            let theirs = reference(state, rules, seat, &mut |n| {
                ref_calls.push(n);
                q(n)
            });
            assert_eq!(Some(&mine), theirs.as_ref(), "{preset}, state {states}: {state:?}");
            assert_eq!(calls, ref_calls, "{preset}: the tie-breaks drawn");
            states += 1;
        });
        assert!(states > 1000, "{preset}: {states} states");
    }
}

/// Given the kernel's whole legal-move list, the greedy policy chooses as
/// it does without one; given that list less the lay-off or joker swap it
/// chose, it plays another command, and no lay-off or swap the list leaves
/// out (issue 49, item 6).
#[test]
fn greedy_chooses_its_lay_offs_and_swaps_among_the_legal_moves_given() {
    for preset in PRESET_NAMES {
        let (mut states, mut narrowed) = (0, 0);
        let games = if preset == "gin" { 24 } else { 8 };
        walk(preset, games, |game, _| {
            let seat = game.turn_now().unwrap();
            let (state, rules) = (&game.state, &*game.rules);
            let first = |_: &[CardId], best: &[CardId]| best[0];
            let alone = greedy::choose_with(state, rules, seat, &mut first.clone()).expect("a greedy command");
            let all = legal_moves(state, rules, seat);
            let among = greedy::choose_among(state, rules, seat, Some(&all), &mut first.clone());
            assert_eq!(among.as_ref(), Some(&alone), "{preset}, state {states}");
            states += 1;
            if !matches!(alone, Command::LayOff { .. } | Command::SwapJoker { .. }) {
                return;
            }
            let fewer: Vec<Command> = all.iter().filter(|&m| *m != alone).cloned().collect();
            let other =
                greedy::choose_among(state, rules, seat, Some(&fewer), &mut first.clone()).expect("a greedy command");
            assert_ne!(other, alone, "{preset}: a move left out is played");
            if matches!(other, Command::LayOff { .. } | Command::SwapJoker { .. }) {
                assert!(fewer.contains(&other), "{preset}: {other:?} is not listed");
            }
            assert!(
                decide(state, rules, seat as i64, &other).is_ok(),
                "{preset}: {other:?} refused"
            );
            narrowed += 1;
        });
        assert!(
            states > 300 && narrowed > 10,
            "{preset}: {states} states, {narrowed} narrowed"
        );
    }
}

/// A playout's round is the kernel's own: the game played command by
/// command by the greedy policy ends in the `RoundEnded` that
/// `play_round` finds from the same deal, scored by the kernel.
#[test]
fn a_playout_round_ends_as_the_kernel_game_scores_it() {
    for preset in PRESET_NAMES {
        let mut ended_with_winner = 0;
        for k in 0..40 {
            let (mut game, _) = new_game(preset, 1000 + k);
            let rules = game.rules.clone();
            let mut state = game.state.clone();
            let found = play_round(&mut state, &rules, &game.setup, &mut picker(k)).expect("a round's end");
            let mut pick = picker(k);
            let ended = loop {
                let seat = game.turn_now().expect("a round in play");
                let cmd = greedy::choose(&game.state, &rules, seat, &mut pick).unwrap();
                let events = game.apply(seat as i64, &cmd).unwrap();
                if let Some(Event::RoundEnded(r)) = events.into_iter().find(|e| matches!(e, Event::RoundEnded(_))) {
                    break r;
                }
            };
            assert_eq!(found, ended, "{preset}, deal {k}");
            assert_eq!(ended.scores.len(), game.state.seats.len());
            match ended.winner {
                None => assert!(ended.scores.iter().all(|&s| s == 0), "{ended:?}"),
                Some(w) => {
                    ended_with_winner += 1;
                    if rules.variant.scoring == Scoring::WinnerCollects || rules.variant.knocking {
                        assert!(ended.scores[w] >= 0, "{ended:?}");
                        let others = ended.scores.iter().enumerate().filter(|&(i, _)| i != w);
                        assert!(others.into_iter().all(|(_, &s)| s == 0), "{ended:?}");
                    }
                }
            }
        }
        assert!(ended_with_winner > 20, "{preset}: {ended_with_winner} rounds won");
    }
}

/// What a seat has seen, as the searching bot gathers it
/// (`service/ramino/bots/search.py`'s `observe`), but for the cards another
/// seat took that went back to the stock.
fn observe(game: &Game, seat: usize, events: &[Event]) -> Seen {
    let (st, rules) = (&game.state, &game.rules);
    let n = st.seats.len();
    let mut held: Vec<Vec<CardId>> = vec![Vec::new(); n];
    let mut discarded: Vec<Vec<Card>> = vec![Vec::new(); n];
    let mut had_turn = vec![false; n];
    let mut draws = 0u16;
    for e in events {
        match e {
            Event::TookDiscard { seat, card } => {
                held[*seat].push(*card);
                had_turn[*seat] = true;
                draws += 1;
            }
            Event::DrewFromStock { seat, .. } => {
                had_turn[*seat] = true;
                draws += 1;
            }
            Event::JokerSwapped { seat, joker, .. } => held[*seat].push(*joker),
            Event::Discarded { seat, card } => {
                discarded[*seat].push(rules.card(*card));
                had_turn[*seat] = true;
            }
            Event::PassedUpcard { seat } => had_turn[*seat] = true,
            _ => {}
        }
    }
    let mut visible: Vec<CardId> = st.seats[seat].hand.clone();
    visible.extend(&st.discard);
    visible.extend(st.melds.iter().flat_map(|m| m.cards.iter()));
    let mut known = Vec::new();
    for (i, h) in held.iter_mut().enumerate() {
        if i == seat {
            known.push(rules.cards_of(&st.seats[seat].hand));
        } else {
            h.sort_unstable();
            h.dedup();
            // Unlike `observe`, a card taken and since turned over or
            // shuffled into the stock is not counted as held.
            h.retain(|c| !visible.contains(c) && st.seats[i].hand.contains(c));
            visible.extend(h.iter());
            known.push(rules.cards_of(h));
        }
    }
    let v = &rules.variant;
    Seen {
        seat,
        seats: (0..n)
            .map(|i| {
                let s = &st.seats[i];
                SeatSeen {
                    hand_size: s.hand.len(),
                    known: known[i].clone(),
                    opened: s.opened,
                    had_turn: had_turn[i],
                    discarded: discarded[i].clone(),
                    laid_any: s.opened && !(i == seat && st.opened_this_turn),
                }
            })
            .collect(),
        discard: rules.cards_of(&st.discard),
        table: st.melds.iter().map(|m| rules.cards_of(&m.cards)).collect(),
        unseen: (0..rules.deck_size as CardId)
            .filter(|c| !visible.contains(c))
            .map(|c| rules.card(c))
            .collect(),
        stock_size: st.stock.len(),
        taken: st.taken.map(|t| rules.card(t)),
        rebuilds_left: v.max_stock_rebuilds.saturating_sub(st.rebuilds as u8),
        turns_left: v.max_turns_per_round.saturating_sub(draws).max(1),
        no_draw_seat: None,
    }
}

/// The searching bot's candidates (`SearchBot._candidates`): the legal
/// draws; or, where the greedy bot would discard or knock, the knocks and
/// the legal discards, by card.
fn candidates(game: &Game, seat: usize) -> Vec<Action> {
    let (state, rules) = (&game.state, &*game.rules);
    let moves = game.legal_moves(seat);
    let mut out = Vec::new();
    match state.phase {
        Phase::Draw => {
            for (cmd, action) in [
                (Command::TakeDiscard, Action::TakeDiscard),
                (Command::DrawFromStock, Action::DrawFromStock),
                (Command::PassUpcard, Action::PassUpcard),
            ] {
                if moves.contains(&cmd) {
                    out.push(action);
                }
            }
        }
        Phase::Play => {
            let greedy = greedy::choose(state, rules, seat, &mut |_| 0);
            if !matches!(
                greedy,
                Some(Command::Discard { .. } | Command::Knock { discard: Some(_), .. })
            ) {
                return out;
            }
            for m in &moves {
                let action = match m {
                    Command::Knock { discard: Some(d), .. } => Action::Knock(rules.card(*d as CardId)),
                    Command::Discard { card } => Action::Discard(rules.card(*card as CardId)),
                    _ => continue,
                };
                if !out.contains(&action) {
                    out.push(action);
                }
            }
        }
        _ => {}
    }
    out
}

/// The positions of real games, seen as the searching bot sees them, start
/// playouts for every candidate the bot would weigh: the state built from
/// what the seat has seen takes every legal draw, discard and knock.
#[test]
fn every_candidate_of_a_real_position_is_played_out() {
    for preset in PRESET_NAMES {
        let mut evaluated = 0;
        let mut k = 0u8;
        walk(preset, 10, |game, events| {
            k = k.wrapping_add(1);
            let seat = game.turn_now().unwrap();
            let actions = candidates(game, seat);
            if k % 3 != 0 || actions.len() < 2 {
                return;
            }
            let seen = observe(game, seat, events);
            let evals = evaluate(&game.rules.variant, &seen, &actions, &Budget::iterations(2), [k; 32])
                .unwrap_or_else(|e| panic!("{preset}: {e} for {actions:?} in {seen:?}"));
            assert!(evals.iter().all(|e| e.playouts >= 1 && e.mean.is_finite()));
            evaluated += 1;
        });
        assert!(evaluated > 30, "{preset}: {evaluated} positions");
    }
}
