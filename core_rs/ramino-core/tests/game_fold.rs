//! The game kernel's fold, round lifecycle and scoring, held to the Python
//! engine (`service/ramino/engine`): the deals of a fixed seed are the
//! engine's own (pasted from `Game.new(...).record.events`), every corrupt
//! event is refused as `RECORD_INCONSISTENT`, and the scores are the rules'.

use std::sync::Arc;

use ramino_core::game::reasons;
use ramino_core::game::*;
use ramino_core::meld::End;
use ramino_core::{ParamValue, Variant};

fn rules(variant: Variant) -> Arc<Rules> {
    Arc::new(Rules::new(variant))
}

fn preset(name: &str) -> Arc<Rules> {
    rules(Variant::preset(name).unwrap())
}

fn names(n: usize) -> Vec<String> {
    ["a", "b", "c", "d", "e", "f"][..n]
        .iter()
        .map(|s| (*s).to_string())
        .collect()
}

/// A game seed's 32 little-endian bytes: `low` plus `2^bit` where given.
fn seed(low: u64, bit: Option<usize>) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[..8].copy_from_slice(&low.to_le_bytes());
    if let Some(b) = bit {
        out[b / 8] |= 1 << (b % 8);
    }
    out
}

fn setup(s: [u8; 32]) -> Setup {
    Setup {
        seed: s,
        decks: Vec::new(),
    }
}

fn new_game(name: &str, players: usize, s: [u8; 32]) -> (Game, Vec<Event>) {
    Game::new(preset(name), &names(players), setup(s)).unwrap()
}

fn started(
    dealer: usize,
    first_player: usize,
    hands: &[&[CardId]],
    upcard: Option<CardId>,
    stock: &[CardId],
    round: u32,
) -> Event {
    Event::RoundStarted {
        round,
        dealer,
        first_player,
        hands: hands.iter().map(|h| Some(h.to_vec())).collect(),
        hand_sizes: hands.iter().map(|h| h.len()).collect(),
        upcard,
        stock_size: stock.len(),
        stock: Some(stock.to_vec()),
    }
}

// --- the deal ---------------------------------------------------------------

#[test]
fn a_new_game_deals_the_python_engines_hands_in_every_preset() {
    let cases: [(&str, usize, [u8; 32], Event); 5] = [
        (
            "ramino51",
            3,
            seed(7, None),
            started(
                2,
                0,
                &[
                    &[52, 45, 9, 46, 77, 48, 95, 3, 17, 2, 93, 107, 38, 99, 34],
                    &[89, 87, 44, 27, 74, 51, 85, 30, 19, 13, 12, 40, 105, 97],
                    &[10, 37, 47, 76, 1, 22, 33, 31, 72, 73, 26, 68, 28, 100],
                ],
                None,
                &[
                    20, 62, 59, 106, 69, 60, 50, 57, 88, 54, 102, 11, 39, 90, 23, 86, 6, 61, 15, 101, 14, 21, 91, 92,
                    4, 65, 0, 42, 49, 104, 96, 75, 82, 63, 103, 70, 64, 32, 84, 98, 67, 35, 78, 16, 66, 7, 81, 71, 53,
                    36, 18, 8, 24, 58, 83, 43, 79, 25, 29, 5, 55, 56, 94, 80, 41,
                ],
                1,
            ),
        ),
        (
            "rami51",
            2,
            seed(7, None),
            started(
                1,
                0,
                &[
                    &[52, 10, 87, 9, 47, 27, 77, 1, 51, 95, 33, 30, 17, 72],
                    &[89, 45, 37, 44, 46, 76, 74, 48, 22, 85, 3, 31, 19, 2],
                ],
                None,
                &[
                    20, 62, 59, 106, 69, 60, 50, 57, 88, 54, 102, 11, 39, 90, 23, 86, 6, 61, 15, 101, 14, 21, 91, 92,
                    4, 65, 0, 42, 49, 104, 96, 75, 82, 63, 103, 70, 64, 32, 84, 98, 67, 35, 78, 16, 66, 7, 81, 71, 53,
                    36, 18, 8, 24, 58, 83, 43, 79, 25, 29, 5, 55, 56, 94, 80, 41, 34, 100, 97, 99, 28, 105, 38, 68, 40,
                    107, 26, 12, 93, 73, 13,
                ],
                1,
            ),
        ),
        (
            "rummy",
            3,
            seed(7, None),
            started(
                2,
                0,
                &[
                    &[11, 25, 45, 36, 27, 29, 28],
                    &[33, 23, 17, 16, 50, 15, 9],
                    &[22, 19, 14, 13, 10, 3, 43],
                ],
                Some(7),
                &[
                    12, 21, 39, 6, 37, 5, 32, 38, 51, 35, 18, 34, 31, 20, 42, 2, 26, 47, 49, 41, 48, 44, 40, 0, 4, 8,
                    24, 30, 1, 46,
                ],
                1,
            ),
        ),
        (
            "gin",
            2,
            seed(7, None),
            started(
                1,
                0,
                &[
                    &[11, 22, 23, 45, 14, 16, 27, 10, 15, 28],
                    &[33, 25, 19, 17, 36, 13, 50, 29, 3, 9],
                ],
                Some(43),
                &[
                    12, 21, 39, 6, 37, 5, 32, 38, 51, 35, 18, 34, 31, 20, 42, 2, 26, 47, 49, 41, 48, 44, 40, 0, 4, 8,
                    24, 30, 1, 46, 7,
                ],
                1,
            ),
        ),
        (
            // Seed 2**200 + 12345: every byte of the seed counts.
            "rummy",
            2,
            seed(12345, Some(200)),
            started(
                1,
                0,
                &[
                    &[32, 3, 2, 26, 18, 10, 41, 47, 40, 48],
                    &[28, 15, 11, 43, 50, 12, 33, 20, 23, 31],
                ],
                Some(27),
                &[
                    29, 37, 49, 13, 44, 42, 14, 6, 45, 30, 22, 39, 21, 1, 46, 51, 36, 16, 34, 38, 24, 5, 35, 0, 17, 7,
                    4, 8, 25, 9, 19,
                ],
                1,
            ),
        ),
    ];
    for (name, players, s, expected) in cases {
        let (game, events) = new_game(name, players, s);
        assert_eq!(events, vec![expected], "{name}");
        assert_eq!(game.state.version, 1, "{name}");
        assert_eq!(game.state.round, 1, "{name}");
    }
}

#[test]
fn every_card_is_in_exactly_one_place_after_the_deal() {
    for name in ["ramino51", "rami51", "rummy", "gin"] {
        for players in 2..=3 {
            if name == "gin" && players > 2 {
                continue;
            }
            let (game, _) = new_game(name, players, seed(99, None));
            assert_eq!(
                conservation_errors(&game.state, game.rules.deck_size),
                Vec::<String>::new(),
                "{name}"
            );
        }
    }
}

#[test]
fn conservation_names_a_card_in_two_places_and_an_unknown_id() {
    let (mut game, _) = new_game("rummy", 2, seed(7, None));
    let top = *game.state.stock.last().unwrap();
    game.state.seats[0].hand.push(top);
    game.state.discard.push(200);
    let errors = conservation_errors(&game.state, game.rules.deck_size);
    assert_eq!(
        errors,
        vec!["unknown card id 200".to_string(), format!("card {top} is in 2 places")]
    );
}

#[test]
fn the_first_turn_draws_or_plays_as_the_variant_says() {
    let (ramino, _) = new_game("ramino51", 2, seed(7, None));
    assert_eq!((ramino.state.turn, ramino.state.phase), (0, Phase::Play));
    assert_eq!(ramino.state.seats[0].turns, 1);
    let (gin, _) = new_game("gin", 2, seed(7, None));
    assert_eq!((gin.state.turn, gin.state.phase), (0, Phase::Draw));
    assert!(gin.state.first_upcard);
    let (rummy, _) = new_game("rummy", 2, seed(7, None));
    assert!(!rummy.state.first_upcard);
}

#[test]
fn stacked_decks_deal_the_first_rounds() {
    let order: Vec<CardId> = (0..52).collect();
    let s = Setup {
        seed: seed(7, None),
        decks: vec![order],
    };
    let (game, _) = Game::new(preset("gin"), &names(2), s).unwrap();
    // Dealt one at a time from the first card, the first player (seat 0) first.
    assert_eq!(game.state.seats[0].hand, vec![0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    assert_eq!(game.state.seats[1].hand, vec![1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    assert_eq!(game.state.discard, vec![20]);
    assert_eq!(game.state.stock.last(), Some(&21));
    assert_eq!(game.state.stock.first(), Some(&51));
}

#[test]
fn the_deal_puts_the_extra_cards_then_the_upcard_then_the_stock_top_last() {
    let d = deal(&[0, 1, 2, 3, 4, 5, 6, 7, 8], 2, 2, 1, true);
    assert_eq!(
        d,
        Deal {
            hands: vec![vec![0, 2, 4], vec![1, 3]],
            upcard: Some(5),
            stock: vec![8, 7, 6]
        }
    );
    let d = deal(&[0, 1, 2, 3, 4, 5], 2, 2, 0, false);
    assert_eq!(
        d,
        Deal {
            hands: vec![vec![0, 2], vec![1, 3]],
            upcard: None,
            stock: vec![5, 4]
        }
    );
}

/// The round ended as the engine would record it, with no score.
fn end_round(game: &mut Game, winner: Option<usize>, scores: Vec<i64>) {
    let result = RoundResult {
        round: game.state.round,
        ending: if winner.is_some() {
            Ending::Knock
        } else {
            Ending::TurnLimit
        },
        winner,
        closed_hand: false,
        scores,
        hands: game.state.seats.iter().map(|s| s.hand.clone()).collect(),
        parts: Vec::new(),
    };
    game.fold(&Event::RoundEnded(result)).unwrap();
}

#[test]
fn in_gin_the_winner_of_a_hand_deals_the_next_as_the_python_engine_does() {
    let (mut game, _) = new_game("gin", 2, seed(7, None));
    end_round(&mut game, Some(0), vec![20, 0]);
    let expected = started(
        0,
        1,
        &[
            &[0, 45, 40, 17, 1, 4, 8, 9, 30, 27],
            &[32, 16, 31, 25, 22, 46, 3, 7, 12, 41],
        ],
        Some(14),
        &[
            37, 39, 36, 2, 20, 6, 49, 42, 29, 38, 15, 5, 48, 10, 19, 18, 43, 33, 24, 35, 34, 11, 23, 50, 13, 44, 21,
            26, 51, 47, 28,
        ],
        2,
    );
    assert_eq!(follow_up(&game.state, &game.rules, &game.setup), vec![expected]);
}

#[test]
fn in_gin_the_same_dealer_deals_again_after_a_hand_with_no_winner() {
    let (mut game, _) = new_game("gin", 2, seed(7, None));
    end_round(&mut game, None, vec![0, 0]);
    let events = game.settle().unwrap();
    assert!(matches!(
        events[..],
        [Event::RoundStarted {
            dealer: 1,
            first_player: 0,
            round: 2,
            ..
        }]
    ));
}

#[test]
fn a_resigned_seat_is_skipped_by_the_deal_as_the_python_engine_does() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    game.fold(&Event::Resigned { seat: 0 }).unwrap();
    // Seat 0 was to play: the turn passed to the next seat still in.
    assert_eq!((game.state.turn, game.state.phase), (1, Phase::Draw));
    end_round(&mut game, None, vec![0, 0, 0]);
    let expected = Event::RoundStarted {
        round: 2,
        dealer: 1,
        first_player: 2,
        hands: vec![
            Some(vec![]),
            Some(vec![0, 45, 40, 17, 1, 4, 8, 9, 30, 27]),
            Some(vec![32, 16, 31, 25, 22, 46, 3, 7, 12, 41]),
        ],
        hand_sizes: vec![0, 10, 10],
        upcard: Some(14),
        stock_size: 31,
        stock: Some(vec![
            37, 39, 36, 2, 20, 6, 49, 42, 29, 38, 15, 5, 48, 10, 19, 18, 43, 33, 24, 35, 34, 11, 23, 50, 13, 44, 21,
            26, 51, 47, 28,
        ]),
    };
    assert_eq!(game.settle().unwrap(), vec![expected]);
    assert_eq!(conservation_errors(&game.state, 52), Vec::<String>::new());
}

// --- the round's lifecycle -------------------------------------------------

/// A round of `name` in progress, by hand: seat 0 to draw, `hands` held.
fn in_round(name: &str, hands: &[&[CardId]]) -> (State, Arc<Rules>) {
    let r = preset(name);
    let mut state = State::new(&names(hands.len()));
    state.round = 3;
    state.dealer = hands.len() - 1;
    state.first_player = 0;
    state.turn = 0;
    state.phase = Phase::Draw;
    for (s, h) in state.seats.iter_mut().zip(hands) {
        s.hand = h.to_vec();
        s.turns = 1;
    }
    (state, r)
}

#[test]
fn an_empty_stock_is_reshuffled_from_the_discard_pile_as_the_python_engine_does() {
    let (mut state, r) = in_round("ramino51", &[&[1, 3], &[4]]);
    state.discard = vec![5, 17, 40, 2, 99, 63, 8];
    state.rebuilds = 1;
    let reshuffled = |stock: Vec<CardId>| Event::StockReshuffled {
        rebuild: 2,
        kept: 8,
        stock_size: 6,
        stock: Some(stock),
    };
    assert_eq!(
        follow_up(&state, &r, &setup(seed(7, None))),
        vec![reshuffled(vec![99, 17, 5, 40, 2, 63])]
    );
    let big = seed(3, Some(255));
    assert_eq!(
        follow_up(&state, &r, &setup(big)),
        vec![reshuffled(vec![99, 40, 17, 5, 2, 63])]
    );
    apply_event(&mut state, &reshuffled(vec![99, 17, 5, 40, 2, 63]), &r).unwrap();
    assert_eq!(
        (state.stock.len(), state.discard.clone(), state.rebuilds),
        (6, vec![8], 2)
    );
}

#[test]
fn the_stock_is_exhausted_after_the_last_rebuild_or_with_one_discard() {
    let (mut state, r) = in_round("ramino51", &[&[1, 3], &[4]]);
    state.discard = vec![5, 17];
    state.rebuilds = 3;
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    assert!(matches!(
        &events[..],
        [Event::RoundEnded(RoundResult {
            ending: Ending::StockExhausted,
            winner: None,
            ..
        })]
    ));
    state.rebuilds = 0;
    state.discard = vec![5];
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    assert!(matches!(
        &events[..],
        [Event::RoundEnded(RoundResult {
            ending: Ending::StockExhausted,
            ..
        })]
    ));
}

#[test]
fn a_turned_over_pile_is_the_players_to_ask_for_until_the_rebuilds_run_out() {
    let v = Variant::rummy()
        .with_override("stock_exhausted", ParamValue::Str("turn_over".into()))
        .unwrap();
    let r = rules(v);
    let (mut state, _) = in_round("rummy", &[&[1, 3], &[4]]);
    state.discard = vec![5, 17];
    assert_eq!(follow_up(&state, &r, &setup(seed(7, None))), Vec::new());
    apply_event(&mut state, &Event::DiscardPileTurnedOver { seat: 0, rebuild: 1 }, &r).unwrap();
    assert_eq!(
        (state.stock.clone(), state.discard.clone(), state.rebuilds),
        (vec![17, 5], vec![], 1)
    );
    state.stock.clear();
    state.discard = vec![];
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    assert!(matches!(
        &events[..],
        [Event::RoundEnded(RoundResult {
            ending: Ending::StockExhausted,
            ..
        })]
    ));
}

#[test]
fn a_seat_with_no_card_on_its_turn_went_out() {
    let (mut state, r) = in_round("rummy", &[&[], &[12, 13], &[43]]);
    state.stock = vec![0];
    state.phase = Phase::Play;
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    let Event::RoundEnded(result) = &events[0] else {
        panic!("{events:?}")
    };
    // Never laid before going out: closed in hand, the rummy multiplier.
    assert_eq!(
        (result.ending, result.winner, result.closed_hand),
        (Ending::WentOut, Some(0), true)
    );
    assert_eq!(result.scores, vec![32, 0, 0]);
    assert_eq!(result.hands, vec![vec![], vec![12, 13], vec![43]]);
}

#[test]
fn a_round_with_one_seat_left_ends_by_resignations() {
    let (mut state, r) = in_round("rummy", &[&[1], &[12, 13], &[43]]);
    state.stock = vec![0];
    state.seats[1].resigned = true;
    state.seats[2].resigned = true;
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    assert!(matches!(
        &events[..],
        [Event::RoundEnded(RoundResult {
            ending: Ending::Resignations,
            winner: None,
            ..
        })]
    ));
}

#[test]
fn a_round_past_its_turn_limit_ends_with_no_winner() {
    let (mut state, r) = in_round("rummy", &[&[1], &[12, 13]]);
    state.stock = vec![0];
    state.seats[0].turns = 150;
    state.seats[1].turns = 150;
    assert_eq!(follow_up(&state, &r, &setup(seed(7, None))), Vec::new());
    state.seats[0].turns = 151;
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    assert!(
        matches!(&events[..], [Event::RoundEnded(RoundResult { ending: Ending::TurnLimit, scores, .. })] if scores == &[0, 0])
    );
}

/// A gin hand knocked by seat 0 with `knocker` left, the defender `defender`
/// left, the layout accepted: its score.
fn knocked(knocker: &[CardId], defender: &[CardId], big_gin: bool) -> RoundResult {
    let (mut state, r) = in_round("gin", &[knocker, defender]);
    state.stock = vec![0, 1, 2];
    state.phase = Phase::Layoff;
    state.turn = 1;
    state.knocker = Some(0);
    state.big_gin = big_gin;
    state.accepted = true;
    match &follow_up(&state, &r, &setup(seed(7, None)))[..] {
        [Event::RoundEnded(result)] => result.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_knock_scores_the_difference_of_the_unmatched_totals() {
    // AS + 2H = 3 against KS + QS = 20.
    let r = knocked(&[0, 14], &[12, 11], false);
    assert_eq!(
        (r.ending, r.winner, r.scores.clone(), r.closed_hand),
        (Ending::Knock, Some(0), vec![17, 0], false)
    );
    assert_eq!(r.hands, vec![vec![0, 14], vec![12, 11]]);
}

#[test]
fn gin_and_big_gin_score_the_defenders_total_and_their_bonus() {
    let r = knocked(&[], &[12, 11], false);
    assert_eq!((r.ending, r.winner, r.scores), (Ending::Gin, Some(0), vec![20 + 25, 0]));
    let r = knocked(&[], &[12, 11], true);
    assert_eq!(
        (r.ending, r.winner, r.scores),
        (Ending::BigGin, Some(0), vec![20 + 31, 0])
    );
}

#[test]
fn an_undercut_scores_the_defender_the_difference_and_the_bonus() {
    // AS + 2H = 3 against AH = 1.
    let r = knocked(&[0, 14], &[13], false);
    assert_eq!(
        (r.ending, r.winner, r.scores),
        (Ending::Undercut, Some(1), vec![0, 2 + 25])
    );
}

#[test]
fn equal_unmatched_totals_score_nobody() {
    // 2S = 2 against AS + AH = 2.
    let r = knocked(&[1], &[0, 13], false);
    assert_eq!((r.ending, r.winner, r.scores), (Ending::Knock, None, vec![0, 0]));
}

#[test]
fn a_gin_hand_drawn_ends_with_no_winner() {
    let (mut state, r) = in_round("gin", &[&[1], &[2]]);
    state.stock = vec![0, 3, 4];
    state.drawn = true;
    let events = follow_up(&state, &r, &setup(seed(7, None)));
    assert!(matches!(
        &events[..],
        [Event::RoundEnded(RoundResult {
            ending: Ending::Drawn,
            winner: None,
            ..
        })]
    ));
}

#[test]
fn a_match_over_between_rounds_ends_with_its_final_totals() {
    let (mut game, _) = new_game("gin", 2, seed(7, None));
    end_round(&mut game, Some(0), vec![100, 0]);
    let events = game.settle().unwrap();
    // 100, a box of 25 and the game bonus of 100, doubled by the shutout.
    assert_eq!(
        events,
        vec![Event::MatchEnded {
            totals: vec![450, 0],
            winners: vec![0],
            parts: vec![
                vec![
                    ScorePart::new(ScorePartKind::Rounds, 100),
                    ScorePart::new(ScorePartKind::BoxBonus, 25).with_base(25).with_factor(1),
                    ScorePart::new(ScorePartKind::GameBonus, 100),
                    ScorePart::new(ScorePartKind::ShutoutMultiplier, 225)
                        .with_base(225)
                        .with_factor(2),
                ],
                vec![ScorePart::new(ScorePartKind::Rounds, 0)],
            ],
        }]
    );
    assert_eq!(game.state.phase, Phase::Over);
    assert_eq!(game.state.winners, vec![0]);
    assert_eq!(game.state.seats[0].total, 450);
    assert_eq!(follow_up(&game.state, &game.rules, &game.setup), Vec::new());
}

// --- the fold ---------------------------------------------------------------

#[test]
fn each_event_counts_a_version_and_a_discard_passes_the_turn() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    game.fold(&Event::DrewFromStock {
        seat: 0,
        card: Some(46),
    })
    .unwrap();
    assert_eq!((game.state.phase, game.state.version), (Phase::Play, 2));
    assert_eq!(game.state.seats[0].hand.last(), Some(&46));
    game.fold(&Event::Discarded { seat: 0, card: 11 }).unwrap();
    assert_eq!(
        (game.state.turn, game.state.phase, game.state.version),
        (1, Phase::Draw, 3)
    );
    assert_eq!(game.state.discard, vec![7, 11]);
    assert_eq!(game.state.seats[1].turns, 1);
    game.fold(&Event::TookDiscard { seat: 1, card: 11 }).unwrap();
    assert_eq!(game.state.taken, Some(11));
    assert_eq!(conservation_errors(&game.state, 52), Vec::<String>::new());
}

#[test]
fn melds_laid_open_the_seat_and_a_lay_off_extends_a_table_meld() {
    // Seat 0 of rummy seed 7 holds 3D 4D (28, 29) and 2D (27).
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    game.fold(&Event::DrewFromStock {
        seat: 0,
        card: Some(46),
    })
    .unwrap();
    game.fold(&Event::MeldsLaid {
        seat: 0,
        melds: vec![vec![27, 28, 29]],
        opening: false,
        described: vec![],
    })
    .unwrap();
    assert!(game.state.seats[0].opened);
    assert_eq!(game.state.seats[0].first_laid_turn, 1);
    assert_eq!(game.state.melds[0].cards, vec![27, 28, 29]);
    // AD (26) goes at the start.
    game.state.seats[0].hand.push(26);
    game.state.stock.retain(|&c| c != 26);
    game.fold(&Event::LaidOff {
        seat: 0,
        card: 26,
        meld: 0,
        end: End::Start,
        described: None,
    })
    .unwrap();
    assert_eq!(game.state.melds[0].cards, vec![26, 27, 28, 29]);
    assert_eq!(game.state.melds[0].value, 10);
    assert_eq!(conservation_errors(&game.state, 52), Vec::<String>::new());
}

#[test]
fn in_gin_the_upcard_taken_and_discarded_back_twice_is_a_draw() {
    let (mut game, _) = new_game("gin", 2, seed(7, None));
    game.fold(&Event::PassedUpcard { seat: 0 }).unwrap();
    assert_eq!((game.state.turn, game.state.passes), (1, 1));
    game.fold(&Event::TookDiscard { seat: 1, card: 43 }).unwrap();
    assert!(!game.state.first_upcard);
    game.fold(&Event::Discarded { seat: 1, card: 43 }).unwrap();
    assert!(game.state.repeated && !game.state.drawn);
    game.fold(&Event::TookDiscard { seat: 0, card: 43 }).unwrap();
    game.fold(&Event::Discarded { seat: 0, card: 43 }).unwrap();
    assert!(game.state.drawn);
}

#[test]
fn a_knock_lays_the_knockers_melds_and_hands_the_layout_to_the_defender() {
    // Gin seed 7, seat 0: JS QS (10, 11) and KS from the stock's second card.
    let (mut game, _) = new_game("gin", 2, seed(7, None));
    game.fold(&Event::PassedUpcard { seat: 0 }).unwrap();
    game.fold(&Event::PassedUpcard { seat: 1 }).unwrap();
    game.state.stock.retain(|&c| c != 12);
    game.state.stock.push(12);
    game.fold(&Event::DrewFromStock {
        seat: 0,
        card: Some(12),
    })
    .unwrap();
    let knock = Event::Knocked {
        seat: 0,
        discard: Some(45),
        melds: vec![vec![10, 11, 12]],
        deadwood: 0,
        described: vec![],
    };
    game.fold(&knock).unwrap();
    assert_eq!((game.state.turn, game.state.phase), (1, Phase::Layoff));
    assert_eq!(
        (game.state.knocker, game.state.knock_melds, game.state.big_gin),
        (Some(0), 1, false)
    );
    assert_eq!(game.state.discard, vec![43, 45]);
    game.fold(&Event::LayoutAccepted { seat: 1 }).unwrap();
    assert!(game.state.accepted);
    assert_eq!(conservation_errors(&game.state, 52), Vec::<String>::new());
}

fn refused(game: &mut Game, event: &Event) -> GameError {
    let err = game.fold(event).expect_err("a corrupt event");
    assert_eq!(err.reason, reasons::RECORD_INCONSISTENT, "{err}");
    err
}

#[test]
fn a_draw_that_is_not_the_stocks_top_is_refused() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    let err = refused(&mut game, &Event::DrewFromStock { seat: 0, card: Some(1) });
    assert_eq!(err.message, "the drawn card is not the top of the stock");
    refused(&mut game, &Event::DrewFromStock { seat: 0, card: None });
}

#[test]
fn acting_out_of_turn_or_phase_is_refused() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    let err = refused(
        &mut game,
        &Event::DrewFromStock {
            seat: 1,
            card: Some(46),
        },
    );
    assert_eq!(err.message, "seat 1 acted out of turn or phase");
    refused(&mut game, &Event::Discarded { seat: 0, card: 11 });
    refused(
        &mut game,
        &Event::DrewFromStock {
            seat: 9,
            card: Some(46),
        },
    );
    refused(&mut game, &Event::LayoutAccepted { seat: 0 });
}

#[test]
fn a_discard_of_a_card_not_in_hand_is_refused() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    game.fold(&Event::DrewFromStock {
        seat: 0,
        card: Some(46),
    })
    .unwrap();
    let err = refused(&mut game, &Event::Discarded { seat: 0, card: 33 });
    assert_eq!(err.message, "card 33 is not in the hand");
}

#[test]
fn a_take_that_is_not_the_discard_piles_top_is_refused() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    let err = refused(&mut game, &Event::TookDiscard { seat: 0, card: 12 });
    assert_eq!(err.message, "the taken card is not the top of the discard pile");
}

#[test]
fn a_lay_off_or_a_swap_on_no_such_meld_or_joker_is_refused() {
    let (mut game, _) = new_game("ramino51", 2, seed(7, None));
    let err = refused(
        &mut game.clone(),
        &Event::LaidOff {
            seat: 0,
            card: 52,
            meld: 0,
            end: End::End,
            described: None,
        },
    );
    assert_eq!(err.message, "no table meld 0");
    // Seat 0 holds TS JS (9, 10) and, from the stock, QS (11).
    game.state.seats[0].hand.push(11);
    game.state.stock.retain(|&c| c != 11);
    game.fold(&Event::MeldsLaid {
        seat: 0,
        melds: vec![vec![9, 10, 11]],
        opening: false,
        described: vec![],
    })
    .unwrap();
    let err = refused(
        &mut game,
        &Event::JokerSwapped {
            seat: 0,
            card: 52,
            meld: 0,
            joker: 10,
            described: None,
        },
    );
    assert_eq!(err.message, "card 10 is not a joker of meld 0");
}

#[test]
fn a_meld_that_is_not_one_is_refused() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    game.fold(&Event::DrewFromStock {
        seat: 0,
        card: Some(46),
    })
    .unwrap();
    refused(
        &mut game,
        &Event::MeldsLaid {
            seat: 0,
            melds: vec![vec![11, 25, 45]],
            opening: false,
            described: vec![],
        },
    );
}

#[test]
fn a_round_ending_that_was_not_being_played_is_refused() {
    let (mut game, _) = new_game("rummy", 2, seed(7, None));
    let result = RoundResult {
        round: 2,
        ending: Ending::TurnLimit,
        winner: None,
        closed_hand: false,
        scores: vec![0, 0],
        hands: vec![vec![], vec![]],
        parts: Vec::new(),
    };
    let err = refused(&mut game, &Event::RoundEnded(result.clone()));
    assert_eq!(err.message, "a round ended that was not being played");
    let mut between = State::new(&names(2));
    let err = apply_event(
        &mut between,
        &Event::RoundEnded(RoundResult { round: 0, ..result }),
        &game.rules,
    );
    assert_eq!(err.unwrap_err().reason, reasons::RECORD_INCONSISTENT);
}

#[test]
fn a_round_started_during_another_or_out_of_order_is_refused() {
    let (mut game, events) = new_game("rummy", 2, seed(7, None));
    let err = refused(&mut game, &events[0]);
    assert_eq!(err.message, "a round started while another was being played");
    let mut fresh = State::new(&names(2));
    let Event::RoundStarted {
        hands,
        upcard,
        stock,
        dealer,
        first_player,
        hand_sizes,
        stock_size,
        ..
    } = events[0].clone()
    else {
        unreachable!()
    };
    let second = Event::RoundStarted {
        round: 2,
        dealer,
        first_player,
        hands: hands.clone(),
        hand_sizes: hand_sizes.clone(),
        upcard,
        stock_size,
        stock: stock.clone(),
    };
    assert!(apply_event(&mut fresh, &second, &game.rules).is_err());
    let hidden = Event::RoundStarted {
        round: 1,
        dealer,
        first_player,
        hands,
        hand_sizes,
        upcard,
        stock_size,
        stock: None,
    };
    let err = apply_event(&mut fresh, &hidden, &game.rules).unwrap_err();
    assert_eq!(err.message, "a record's deal carries every hand and the stock");
    assert_eq!(fresh.version, 0);
}

#[test]
fn a_deal_with_an_unknown_card_or_seat_is_refused() {
    let r = preset("rummy");
    let mut fresh = State::new(&names(2));
    let bad_card = started(1, 0, &[&[0], &[52]], None, &[1], 1);
    assert_eq!(
        apply_event(&mut fresh, &bad_card, &r).unwrap_err().reason,
        reasons::RECORD_INCONSISTENT
    );
    let bad_seat = started(1, 2, &[&[0], &[2]], None, &[1], 1);
    assert_eq!(
        apply_event(&mut fresh, &bad_seat, &r).unwrap_err().reason,
        reasons::RECORD_INCONSISTENT
    );
    let three = started(1, 0, &[&[0], &[2], &[3]], None, &[1], 1);
    let err = apply_event(&mut fresh, &three, &r).unwrap_err();
    assert_eq!(err.message, "the deal does not match the players");
}

#[test]
fn a_second_resignation_or_an_unknown_seat_is_refused() {
    let (mut game, _) = new_game("rummy", 3, seed(7, None));
    game.fold(&Event::Resigned { seat: 2 }).unwrap();
    let err = refused(&mut game, &Event::Resigned { seat: 2 });
    assert_eq!(err.message, "seat 2 resigned twice");
    refused(&mut game, &Event::Resigned { seat: 3 });
}

#[test]
fn a_match_ending_during_a_round_is_refused() {
    let (mut game, _) = new_game("rummy", 2, seed(7, None));
    let err = refused(
        &mut game,
        &Event::MatchEnded {
            totals: vec![0, 0],
            winners: vec![0],
            parts: Vec::new(),
        },
    );
    assert_eq!(err.message, "the match ended during a round");
}

#[test]
fn a_reshuffle_or_turn_over_that_does_not_match_the_piles_is_refused() {
    let (mut game, _) = new_game("rummy", 2, seed(7, None));
    let reshuffle = Event::StockReshuffled {
        rebuild: 1,
        kept: 27,
        stock_size: 0,
        stock: Some(vec![]),
    };
    let err = refused(&mut game, &reshuffle);
    assert_eq!(err.message, "the reshuffle does not match the discard pile");
    let hidden = Event::StockReshuffled {
        rebuild: 1,
        kept: 27,
        stock_size: 0,
        stock: None,
    };
    assert_eq!(
        refused(&mut game, &hidden).message,
        "a record's reshuffle carries the stock"
    );
    let turned = Event::DiscardPileTurnedOver { seat: 0, rebuild: 1 };
    assert_eq!(
        refused(&mut game, &turned).message,
        "the discard pile is turned over only when the stock is empty"
    );
    // The stock emptied, a reshuffle of cards that are not the pile's.
    game.state.stock.clear();
    game.state.discard = vec![3, 4, 27];
    let wrong = Event::StockReshuffled {
        rebuild: 1,
        kept: 27,
        stock_size: 2,
        stock: Some(vec![3, 5]),
    };
    assert_eq!(
        refused(&mut game, &wrong).message,
        "the reshuffled stock is not the discard pile"
    );
}

// --- scoring ----------------------------------------------------------------

/// A state of `name` between hands held as given, every seat opened.
fn hands(name: &str, held: &[&[CardId]]) -> (State, Arc<Rules>) {
    let (mut state, r) = in_round(name, held);
    for s in &mut state.seats {
        s.opened = true;
    }
    (state, r)
}

#[test]
fn penalty_scoring_doubles_the_hands_of_a_closed_win_and_charges_a_never_opened_seat() {
    // Ramino 51: seat 2 holds a joker (20) and 2S (2).
    let (mut state, r) = hands("ramino51", &[&[], &[0, 1], &[104, 1]]);
    state.seats[1].opened = false;
    assert_eq!(round_scores(&state, &r, Some(0), true), vec![-80, 200, 44]);
    assert_eq!(round_scores(&state, &r, Some(0), false), vec![-40, 100, 22]);
    assert_eq!(round_scores(&state, &r, None, false), vec![0, 0, 0]);
    state.seats[2].resigned = true;
    assert_eq!(round_scores(&state, &r, Some(0), false), vec![-40, 100, 0]);
}

#[test]
fn points_scoring_gives_the_winner_the_other_hands_times_the_rummy_multiplier() {
    // KS + AH = 11, 5C = 5; rummy has no never-opened charge.
    let (mut state, r) = hands("rummy", &[&[], &[12, 13], &[43]]);
    state.seats[2].opened = false;
    assert_eq!(round_scores(&state, &r, Some(0), false), vec![16, 0, 0]);
    assert_eq!(round_scores(&state, &r, Some(0), true), vec![32, 0, 0]);
    state.seats[1].resigned = true;
    assert_eq!(round_scores(&state, &r, Some(0), false), vec![5, 0, 0]);
}

// --- what each score is made of ---------------------------------------------

fn part(kind: ScorePartKind, points: i64) -> ScorePart {
    ScorePart::new(kind, points)
}

#[test]
fn ramino51_the_winner_going_out_scores_minus_40() {
    let (state, r) = hands("ramino51", &[&[], &[1]]);
    assert_eq!(
        round_score_parts(&state, &r, Some(0), false)[0],
        vec![part(ScorePartKind::WentOut, -40)]
    );
}

#[test]
fn ramino51_a_hand_left_scores_its_penalty_jokers_20() {
    // A joker (20) and 2S (2).
    let (state, r) = hands("ramino51", &[&[], &[104, 1]]);
    assert_eq!(
        round_score_parts(&state, &r, Some(0), false)[1],
        vec![part(ScorePartKind::HandPenalty, 22)]
    );
}

#[test]
fn ramino51_a_seat_that_never_opened_scores_100_in_place_of_its_hand() {
    let (mut state, r) = hands("ramino51", &[&[], &[104, 1]]);
    state.seats[1].opened = false;
    let parts = round_score_parts(&state, &r, Some(0), false);
    assert_eq!(parts[1], vec![part(ScorePartKind::NeverOpened, 100).with_base(22)]);
    assert_eq!(scores_of(&parts), vec![-40, 100]);
}

#[test]
fn ramino51_closing_in_hand_scores_minus_80_and_doubles_every_other_score() {
    let (mut state, r) = hands("ramino51", &[&[], &[0, 1], &[104, 1]]);
    state.seats[1].opened = false;
    let parts = round_score_parts(&state, &r, Some(0), true);
    assert_eq!(parts[0], vec![part(ScorePartKind::ClosedHand, -80)]);
    assert_eq!(
        parts[1],
        vec![
            part(ScorePartKind::NeverOpened, 100).with_base(12),
            part(ScorePartKind::ClosedHandMultiplier, 100)
                .with_base(100)
                .with_factor(2),
        ]
    );
    assert_eq!(
        parts[2],
        vec![
            part(ScorePartKind::HandPenalty, 22),
            part(ScorePartKind::ClosedHandMultiplier, 22)
                .with_base(22)
                .with_factor(2),
        ]
    );
    assert_eq!(scores_of(&parts), round_scores(&state, &r, Some(0), true));
}

#[test]
fn rami51_the_winner_scores_0_and_the_others_their_hands_aces_11() {
    // AS (11 in hand) and 2S.
    let (mut state, r) = hands("rami51", &[&[], &[0, 1], &[104]]);
    state.seats[2].opened = false;
    let parts = round_score_parts(&state, &r, Some(0), false);
    assert_eq!(
        parts,
        vec![
            vec![part(ScorePartKind::WentOut, 0)],
            vec![part(ScorePartKind::HandPenalty, 13)],
            vec![part(ScorePartKind::NeverOpened, 100).with_base(20)],
        ]
    );
}

#[test]
fn rummy_the_winner_collects_the_other_hands() {
    // KS + AH = 11, 5C = 5.
    let (state, r) = hands("rummy", &[&[], &[12, 13], &[43]]);
    let parts = round_score_parts(&state, &r, Some(0), false);
    assert_eq!(
        parts,
        vec![
            vec![
                part(ScorePartKind::HandCollected, 11).with_base(11).with_seat(1),
                part(ScorePartKind::HandCollected, 5).with_base(5).with_seat(2),
            ],
            vec![],
            vec![],
        ]
    );
}

#[test]
fn rummy_going_rummy_doubles_the_hands_collected() {
    let (state, r) = hands("rummy", &[&[], &[12, 13], &[43]]);
    let parts = round_score_parts(&state, &r, Some(0), true);
    assert_eq!(
        parts[0][2],
        part(ScorePartKind::RummyMultiplier, 16).with_base(16).with_factor(2)
    );
    assert_eq!(scores_of(&parts), vec![32, 0, 0]);
}

#[test]
fn no_winner_no_part() {
    let (state, r) = hands("ramino51", &[&[0], &[1]]);
    assert_eq!(round_score_parts(&state, &r, None, false), vec![vec![], vec![]]);
}

#[test]
fn gin_a_knock_scores_the_defenders_deadwood_less_the_knockers() {
    // AS + 2H = 3 against KS + QS = 20.
    let r = knocked(&[0, 14], &[12, 11], false);
    assert_eq!(
        r.parts,
        vec![
            vec![
                part(ScorePartKind::OpponentDeadwood, 20).with_seat(1),
                part(ScorePartKind::OwnDeadwood, -3),
            ],
            vec![],
        ]
    );
}

#[test]
fn gin_going_gin_adds_the_gin_bonus_and_big_gin_its_own() {
    let r = knocked(&[], &[12, 11], false);
    assert_eq!(
        r.parts[0],
        vec![
            part(ScorePartKind::OpponentDeadwood, 20).with_seat(1),
            part(ScorePartKind::GinBonus, 25),
        ]
    );
    let r = knocked(&[], &[12, 11], true);
    assert_eq!(r.parts[0][1], part(ScorePartKind::BigGinBonus, 31));
}

#[test]
fn gin_an_undercut_scores_the_defender_the_difference_and_the_undercut_bonus() {
    // AS + 2H = 3 against AH = 1.
    let r = knocked(&[0, 14], &[13], false);
    assert_eq!(
        r.parts,
        vec![
            vec![],
            vec![
                part(ScorePartKind::OpponentDeadwood, 3).with_seat(0),
                part(ScorePartKind::OwnDeadwood, -1),
                part(ScorePartKind::UndercutBonus, 25),
            ],
        ]
    );
    assert_eq!(scores_of(&r.parts), r.scores);
}

#[test]
fn gin_equal_deadwood_scores_nobody_and_has_no_part() {
    let r = knocked(&[1], &[0, 13], false);
    assert_eq!(r.parts, vec![vec![], vec![]]);
}

#[test]
fn gin_the_match_end_adds_a_box_per_hand_won_and_the_game_bonus() {
    let (mut state, r) = between("gin", &[90, 40], 4);
    won(&mut state, &[Some(0), None, Some(1), Some(0)]);
    assert_eq!(
        final_total_parts(&state, &r, &[0]),
        vec![
            vec![
                part(ScorePartKind::Rounds, 90),
                part(ScorePartKind::BoxBonus, 50).with_base(25).with_factor(2),
                part(ScorePartKind::GameBonus, 100),
            ],
            vec![
                part(ScorePartKind::Rounds, 40),
                part(ScorePartKind::BoxBonus, 25).with_base(25).with_factor(1),
            ],
        ]
    );
}

#[test]
fn gin_a_shutout_doubles_the_winners_total_with_its_bonuses() {
    let (mut state, r) = between("gin", &[110, 0], 3);
    won(&mut state, &[Some(0), None, Some(0)]);
    let parts = final_total_parts(&state, &r, &[0]);
    assert_eq!(
        parts[0][3],
        part(ScorePartKind::ShutoutMultiplier, 260)
            .with_base(260)
            .with_factor(2)
    );
    assert_eq!(parts[1], vec![part(ScorePartKind::Rounds, 0)]);
}

#[test]
fn outside_gin_the_match_end_is_the_rounds_alone() {
    let (mut state, r) = between("ramino51", &[160, 30], 3);
    won(&mut state, &[Some(0), Some(1)]);
    assert_eq!(
        final_total_parts(&state, &r, &[1]),
        vec![
            vec![part(ScorePartKind::Rounds, 160)],
            vec![part(ScorePartKind::Rounds, 30)]
        ]
    );
}

#[test]
fn a_round_whose_parts_do_not_sum_to_its_scores_is_refused() {
    let (mut game, _) = new_game("rummy", 2, seed(7, None));
    let result = RoundResult {
        round: game.state.round,
        ending: Ending::WentOut,
        winner: Some(0),
        closed_hand: false,
        scores: vec![10, 0],
        hands: vec![vec![], vec![]],
        parts: vec![vec![part(ScorePartKind::HandCollected, 9).with_seat(1)], vec![]],
    };
    let err = refused(&mut game, &Event::RoundEnded(result));
    assert_eq!(err.message, "the round's score parts do not sum to its scores");
}

fn between(name: &str, totals: &[i64], round: u32) -> (State, Arc<Rules>) {
    let r = preset(name);
    let mut state = State::new(&names(totals.len()));
    state.round = round;
    for (s, &t) in state.seats.iter_mut().zip(totals) {
        s.total = t;
    }
    (state, r)
}

#[test]
fn a_match_of_limited_rounds_ends_after_them_with_the_lowest_totals_in_penalty_scoring() {
    let (state, r) = between("ramino51", &[30, 10, 10], 0);
    assert_eq!(match_winners(&state, &r), None);
    let (state, r) = between("ramino51", &[30, 10, 10], 1);
    assert_eq!(match_winners(&state, &r), Some(vec![1, 2]));
    let v = Variant::ramino51()
        .with_override("max_rounds", ParamValue::Int(0))
        .unwrap();
    assert_eq!(match_winners(&state, &rules(v)), None);
}

#[test]
fn a_match_to_a_target_score_ends_when_a_total_reaches_it_with_the_highest() {
    let (state, r) = between("rummy", &[149, 20], 4);
    assert_eq!(match_winners(&state, &r), None);
    let (state, r) = between("rummy", &[150, 160], 4);
    assert_eq!(match_winners(&state, &r), Some(vec![1]));
    let v = Variant::rummy()
        .with_override("target_score", ParamValue::Int(0))
        .unwrap();
    assert_eq!(match_winners(&state, &rules(v)), None);
}

#[test]
fn a_match_ends_with_a_single_seat_still_in_or_too_few_to_deal() {
    let (mut state, r) = between("rummy", &[0, 50, 0], 2);
    state.seats[1].resigned = true;
    state.seats[2].resigned = true;
    assert_eq!(match_winners(&state, &r), Some(vec![0]));
    // Three seats at least: two left cannot be dealt.
    let v = Variant::rummy()
        .with_override("min_players", ParamValue::Int(3))
        .unwrap();
    let (mut state, _) = between("rummy", &[5, 50, 7], 2);
    state.seats[1].resigned = true;
    assert_eq!(match_winners(&state, &rules(v)), Some(vec![2]));
}

fn won(state: &mut State, winners: &[Option<usize>]) {
    for (k, &winner) in winners.iter().enumerate() {
        state.results.push(RoundResult {
            round: k as u32 + 1,
            ending: Ending::Knock,
            winner,
            closed_hand: false,
            scores: vec![0; state.seats.len()],
            hands: vec![vec![]; state.seats.len()],
            parts: Vec::new(),
        });
    }
}

#[test]
fn final_totals_add_a_box_per_hand_won_and_the_game_bonus() {
    let (mut state, r) = between("gin", &[90, 40], 4);
    won(&mut state, &[Some(0), None, Some(1), Some(0)]);
    assert_eq!(final_totals(&state, &r, &[0]), vec![90 + 50 + 100, 40 + 25]);
}

#[test]
fn a_shutout_doubles_the_winners_total_with_its_bonuses() {
    let (mut state, r) = between("gin", &[110, 0], 3);
    won(&mut state, &[Some(0), None, Some(0)]);
    assert_eq!(final_totals(&state, &r, &[0]), vec![(110 + 50 + 100) * 2, 0]);
}

#[test]
fn tied_winners_get_their_boxes_but_no_game_bonus() {
    let (mut state, r) = between("gin", &[100, 100], 3);
    won(&mut state, &[Some(0), Some(1)]);
    assert_eq!(final_totals(&state, &r, &[0, 1]), vec![125, 125]);
}

#[test]
fn outside_gin_the_totals_stand_as_they_are() {
    let (mut state, r) = between("rummy", &[160, 30], 3);
    won(&mut state, &[Some(0), Some(0)]);
    assert_eq!(final_totals(&state, &r, &[0]), vec![160, 30]);
}

// --- the setup --------------------------------------------------------------

fn refusal(r: &Rules, players: &[String], decks: &[Vec<CardId>]) -> GameError {
    check_setup(r, players, decks).expect_err("a bad setup")
}

#[test]
fn a_setup_with_a_player_count_the_variant_does_not_play_is_refused() {
    let err = refusal(&preset("gin"), &names(1), &[]);
    assert_eq!(
        (err.reason, err.message.as_str()),
        (reasons::PLAYER_COUNT, "gin is played by 2 to 2 players, not 1")
    );
    assert_eq!(refusal(&preset("gin"), &names(3), &[]).reason, reasons::PLAYER_COUNT);
    assert_eq!(refusal(&preset("rami51"), &names(5), &[]).reason, reasons::PLAYER_COUNT);
    assert!(check_setup(&preset("rummy"), &names(6), &[]).is_ok());
}

#[test]
fn a_blank_player_name_is_refused() {
    for blank in ["", "   ", " \u{1f}\t", "\u{3000}"] {
        let players = vec!["a".to_string(), blank.to_string()];
        assert_eq!(
            refusal(&preset("rummy"), &players, &[]).reason,
            reasons::BAD_PLAYER_NAME,
            "{blank:?}"
        );
    }
    assert!(check_setup(&preset("rummy"), &["a".into(), " b ".into()], &[]).is_ok());
}

#[test]
fn a_deck_too_small_for_any_count_from_two_players_up_is_refused() {
    // 3 players are dealt 7 each, but 2 would be dealt 26: no stock.
    let v = Variant {
        hand_sizes: [26, 7, 7, 6, 6],
        ..Variant::rummy()
    };
    let err = refusal(&rules(v), &names(3), &[]);
    assert_eq!(err.reason, reasons::DECK_TOO_SMALL);
    assert_eq!(err.message, "2 hands of 26 leave no stock in a deck of 52");
    // Counts above the game's are not dealt.
    let v = Variant {
        hand_sizes: [10, 7, 7, 6, 12],
        ..Variant::rummy()
    };
    assert!(check_setup(&rules(v), &names(3), &[]).is_ok());
}

#[test]
fn a_stacked_deck_that_is_not_a_permutation_is_refused() {
    let mut twice: Vec<CardId> = (0..52).collect();
    twice[51] = 0;
    let short: Vec<CardId> = (0..51).collect();
    let good: Vec<CardId> = (0..52).rev().collect();
    for bad in [twice, short] {
        let err = refusal(&preset("rummy"), &names(2), &[good.clone(), bad]);
        assert_eq!(err.reason, reasons::BAD_DECK);
        assert_eq!(err.message, "a stacked deck is a permutation of the 52 card ids");
    }
    let err = Game::new(preset("rummy"), &names(1), setup(seed(7, None))).unwrap_err();
    assert_eq!(err.reason, reasons::PLAYER_COUNT);
}
