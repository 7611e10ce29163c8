//! The kernel's decisions, one rule a test: a state built by hand, a command,
//! and the events or the refusal's reason the Python engine gives for it
//! (`service/ramino/engine/rules`).

use ramino_core::game::reasons as r;
use ramino_core::game::{
    can_take_discard, decide, joker_meld, knock_deadwood, undiscardable, wall_knock_possible, CardId, Command, Event,
    MeldDescription, Phase, RawEnd, Refusal, RefusalKind, BAD_VALUE,
};
use ramino_core::{validate_meld, Card, End, MeldKind, StockExhausted, Variant};

#[path = "support/table.rs"]
mod table;
use table::Table;

/// What the kernel decides at this table.
impl Table {
    fn decide(&self, seat: i64, command: &Command) -> Result<Vec<Event>, Refusal> {
        decide(&self.state, &self.rules, seat, command)
    }

    fn refusal(&self, seat: i64, command: &Command) -> Refusal {
        self.decide(seat, command).expect_err("the command is refused")
    }

    fn reason(&self, seat: i64, command: &Command) -> &'static str {
        self.refusal(seat, command).reason
    }

    /// What `validate_meld` answers of the meld of `ids`, as an event
    /// describes it.
    fn described(&self, ids: &[CardId]) -> MeldDescription {
        let meld = validate_meld(&self.rules.cards_of(ids), &self.rules.variant).expect("a meld");
        MeldDescription::of(&meld)
    }

    fn described_all(&self, melds: &[Vec<CardId>]) -> Vec<MeldDescription> {
        melds.iter().map(|m| self.described(m)).collect()
    }
}

fn turn_over_variant() -> Variant {
    Variant {
        stock_exhausted: StockExhausted::TurnOver,
        ..Variant::rummy()
    }
}

fn big_gin_variant() -> Variant {
    Variant {
        big_gin: true,
        ..Variant::gin()
    }
}

// The seat, the match, the shape, the turn.

#[test]
fn a_seat_outside_the_table_is_unknown() {
    let t = Table::new(Variant::ramino51());
    for seat in [-1, 2, 99] {
        let refusal = t.refusal(seat, &Command::Resign);
        assert_eq!(
            (refusal.reason, refusal.kind),
            (r::UNKNOWN_SEAT, RefusalKind::Malformed)
        );
    }
}

#[test]
fn nothing_is_played_once_the_match_is_over() {
    let mut t = Table::new(Variant::ramino51());
    t.state.phase = Phase::Over;
    assert_eq!(t.reason(0, &Command::Resign), r::MATCH_OVER);
    assert_eq!(t.reason(1, &Command::DrawFromStock), r::MATCH_OVER);
}

#[test]
fn a_resigned_seat_plays_no_more() {
    let mut t = Table::new(Variant::ramino51());
    t.state.seats[0].resigned = true;
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::SEAT_RESIGNED);
    assert_eq!(t.reason(0, &Command::Resign), r::SEAT_RESIGNED);
}

#[test]
fn a_seat_resigns_out_of_turn() {
    let t = Table::new(Variant::ramino51());
    assert_eq!(t.decide(1, &Command::Resign), Ok(vec![Event::Resigned { seat: 1 }]));
}

#[test]
fn a_command_out_of_turn_is_refused() {
    let mut t = Table::new(Variant::ramino51());
    t.stock("2C");
    assert_eq!(t.reason(1, &Command::DrawFromStock), r::NOT_YOUR_TURN);
    t.state.turn = 1;
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::NOT_YOUR_TURN);
}

#[test]
fn a_malformed_command_is_reported_before_the_turn() {
    let t = Table::new(Variant::ramino51());
    let refusal = t.refusal(1, &Command::Discard { card: BAD_VALUE });
    assert_eq!((refusal.reason, refusal.kind), (r::BAD_FIELD, RefusalKind::Malformed));
}

#[test]
fn a_card_id_is_an_integer_of_the_deck() {
    let t = Table::new(Variant::ramino51());
    assert_eq!(t.rules.deck_size, 108);
    assert_eq!(t.reason(0, &Command::Discard { card: BAD_VALUE }), r::BAD_FIELD);
    assert_eq!(t.reason(0, &Command::Discard { card: -1 }), r::UNKNOWN_CARD);
    assert_eq!(t.reason(0, &Command::Discard { card: 108 }), r::UNKNOWN_CARD);
    assert_eq!(
        t.reason(
            0,
            &Command::Knock {
                discard: Some(500),
                melds: Some(vec![])
            }
        ),
        r::UNKNOWN_CARD
    );
    assert_eq!(
        t.reason(
            0,
            &Command::SwapJoker {
                card: 1,
                meld: 0,
                joker: 108
            }
        ),
        r::UNKNOWN_CARD
    );
    // A well-formed discard in the draw phase gets past the shape.
    assert_eq!(t.reason(0, &Command::Discard { card: 107 }), r::MUST_DRAW_FIRST);
}

#[test]
fn a_meld_index_is_a_non_negative_integer() {
    let t = Table::new(Variant::ramino51());
    assert_eq!(
        t.reason(
            0,
            &Command::LayOff {
                card: 1,
                meld: -1,
                end: RawEnd::End
            }
        ),
        r::BAD_FIELD
    );
    assert_eq!(
        t.reason(
            0,
            &Command::LayOff {
                card: 1,
                meld: BAD_VALUE,
                end: RawEnd::End
            }
        ),
        r::BAD_FIELD
    );
    assert_eq!(
        t.reason(
            0,
            &Command::SwapJoker {
                card: 1,
                meld: -3,
                joker: 104
            }
        ),
        r::BAD_FIELD
    );
}

#[test]
fn a_lay_off_end_is_start_or_end_checked_first() {
    let t = Table::new(Variant::ramino51());
    let bad = RawEnd::Bad("middle".to_owned());
    assert_eq!(
        t.reason(
            0,
            &Command::LayOff {
                card: BAD_VALUE,
                meld: -1,
                end: bad
            }
        ),
        r::BAD_END
    );
}

#[test]
fn melds_are_a_non_empty_list_except_a_knocks() {
    let t = Table::new(Variant::ramino51());
    assert_eq!(t.reason(0, &Command::LayMelds { melds: None }), r::NO_MELDS);
    assert_eq!(t.reason(0, &Command::LayMelds { melds: Some(vec![]) }), r::NO_MELDS);
    assert_eq!(
        t.reason(
            0,
            &Command::Knock {
                discard: Some(1),
                melds: None
            }
        ),
        r::NO_MELDS
    );
    // A knock with no melds has its shape (ramino has no knocking play).
    assert_eq!(
        t.reason(
            0,
            &Command::Knock {
                discard: Some(1),
                melds: Some(vec![])
            }
        ),
        r::NOT_KNOCKING_PLAY
    );
}

#[test]
fn a_card_is_given_once_across_melds() {
    let t = Table::new(Variant::ramino51());
    let melds = Some(vec![vec![1, 2, 3], vec![4, 5, 1]]);
    assert_eq!(t.reason(0, &Command::LayMelds { melds }), r::DUPLICATE_CARD);
    // A meld's ids are all checked before its duplicates.
    let melds = Some(vec![vec![1, 1, BAD_VALUE]]);
    assert_eq!(t.reason(0, &Command::LayMelds { melds }), r::BAD_FIELD);
}

#[test]
fn an_unknown_command_is_refused() {
    let t = Table::new(Variant::ramino51());
    let refusal = t.refusal(0, &Command::Unknown("Shuffle".to_owned()));
    assert_eq!(
        (refusal.reason, refusal.kind),
        (r::UNKNOWN_COMMAND, RefusalKind::Malformed)
    );
}

#[test]
fn knocking_commands_need_a_knocking_variant() {
    let t = Table::new(Variant::ramino51());
    assert_eq!(t.reason(0, &Command::PassUpcard), r::NOT_KNOCKING_PLAY);
    assert_eq!(t.reason(0, &Command::AcceptLayout), r::NOT_KNOCKING_PLAY);
}

// Drawing.

#[test]
fn a_turn_draws_first() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "2C 3C 9D");
    assert_eq!(t.reason(0, &Command::discard(hand[0])), r::MUST_DRAW_FIRST);
    assert_eq!(
        t.reason(0, &Command::lay_melds(std::slice::from_ref(&hand))),
        r::MUST_DRAW_FIRST
    );
    assert_eq!(t.reason(0, &Command::lay_off(hand[0], 0, End::End)), r::MUST_DRAW_FIRST);
}

#[test]
fn a_seat_that_drew_draws_no_more() {
    let mut t = Table::new(Variant::ramino51());
    t.stock("2C 3C");
    t.discard_pile("4C");
    t.playing(false);
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::ALREADY_DREW);
    assert_eq!(t.reason(0, &Command::TakeDiscard), r::ALREADY_DREW);
    assert_eq!(t.reason(0, &Command::TurnOverDiscardPile), r::ALREADY_DREW);
}

#[test]
fn the_first_players_first_turn_has_no_draw_where_the_variant_says_so() {
    let mut t = Table::new(Variant::ramino51());
    t.stock("2C 3C");
    t.playing(false);
    t.state.seats[0].turns = 1;
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::FIRST_TURN_HAS_NO_DRAW);
    // Another seat's first turn, or the first player's second, already drew.
    t.state.first_player = 1;
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::ALREADY_DREW);
    // Rami 51's first turn draws.
    let mut t = Table::new(Variant::rami51());
    t.playing(false);
    t.state.seats[0].turns = 1;
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::ALREADY_DREW);
}

#[test]
fn a_draw_from_the_stock_takes_its_top_card() {
    let mut t = Table::new(Variant::ramino51());
    let stock = t.stock("2C 3C KH");
    assert_eq!(
        t.decide(0, &Command::DrawFromStock),
        Ok(vec![Event::DrewFromStock {
            seat: 0,
            card: Some(stock[2])
        }])
    );
}

#[test]
fn an_empty_stock_gives_no_card() {
    let mut t = Table::new(Variant::ramino51());
    t.discard_pile("4C");
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::STOCK_EMPTY);
}

#[test]
fn the_discard_pile_is_turned_over_only_once_the_stock_is_empty() {
    let mut t = Table::new(turn_over_variant());
    t.stock("2C");
    let pile = t.discard_pile("5D 9H KS");
    t.state.rebuilds = 1;
    assert_eq!(t.reason(0, &Command::TurnOverDiscardPile), r::STOCK_NOT_EMPTY);
    t.state.stock.clear();
    assert_eq!(
        t.decide(0, &Command::TurnOverDiscardPile),
        Ok(vec![
            Event::DiscardPileTurnedOver { seat: 0, rebuild: 2 },
            Event::DrewFromStock {
                seat: 0,
                card: Some(pile[0])
            },
        ])
    );
    t.state.discard.clear();
    assert_eq!(t.reason(0, &Command::TurnOverDiscardPile), r::DISCARD_PILE_EMPTY);
}

#[test]
fn the_discard_pile_is_not_turned_over_where_the_variant_reshuffles() {
    for variant in [Variant::ramino51(), Variant::rummy()] {
        let mut t = Table::new(variant);
        t.discard_pile("5D 9H");
        assert_eq!(t.reason(0, &Command::TurnOverDiscardPile), r::TURN_OVER_NOT_ALLOWED);
    }
}

#[test]
fn the_discard_is_taken_from_the_top_of_the_pile() {
    let mut t = Table::new(Variant::rummy());
    t.hand(0, "2C 3D 4H");
    let pile = t.discard_pile("5D 9H");
    assert_eq!(
        t.decide(0, &Command::TakeDiscard),
        Ok(vec![Event::TookDiscard { seat: 0, card: pile[1] }])
    );
    t.state.discard.clear();
    assert_eq!(t.reason(0, &Command::TakeDiscard), r::DISCARD_PILE_EMPTY);
    assert_eq!(can_take_discard(&t.state, &t.rules, 0), Some(r::DISCARD_PILE_EMPTY));
}

#[test]
fn the_discard_is_not_taken_when_only_it_and_its_twin_would_be_left() {
    let mut t = Table::new(Variant::ramino51());
    t.hand(0, "9S");
    t.discard_pile("9S");
    assert_eq!(t.reason(0, &Command::TakeDiscard), r::NO_CARD_LEFT_TO_DISCARD);
    t.state.seats[0].opened = true;
    assert_eq!(
        can_take_discard(&t.state, &t.rules, 0),
        Some(r::NO_CARD_LEFT_TO_DISCARD)
    );
    t.hand(0, "9S 2C");
    assert_eq!(can_take_discard(&t.state, &t.rules, 0), None);
}

#[test]
fn a_discard_taken_before_opening_obliges_an_opening_that_uses_it() {
    let mut t = Table::new(Variant::ramino51());
    // 7S 8S 9S (24) and KH KD KC (30) open for 54 with the 9S on the pile.
    t.hand(0, "7S 8S KH KD KC 2D 4C");
    let pile = t.discard_pile("9S");
    assert_eq!(
        t.decide(0, &Command::TakeDiscard),
        Ok(vec![Event::TookDiscard { seat: 0, card: pile[0] }])
    );
}

#[test]
fn a_discard_that_no_opening_can_use_is_not_taken_before_opening() {
    let mut t = Table::new(Variant::ramino51());
    // The hand opens (KH KD KC, QS JS TS... is 60) but not with the 9H.
    t.hand(0, "TS JS QS KH KD KC 2D 4C");
    t.discard_pile("9H");
    assert_eq!(t.reason(0, &Command::TakeDiscard), r::CANNOT_OPEN_WITH_DISCARD);
    // Not on the seat's first turn, not once it has opened.
    t.state.seats[0].turns = 1;
    assert!(t.decide(0, &Command::TakeDiscard).is_ok());
    t.state.seats[0].turns = 2;
    t.state.seats[0].opened = true;
    assert!(t.decide(0, &Command::TakeDiscard).is_ok());
    // Rami 51 lets a seat take the discard before opening.
    let mut t = Table::new(Variant::rami51());
    t.hand(0, "TS JS QS KH KD KC 2D 4C");
    t.discard_pile("9H");
    assert!(t.decide(0, &Command::TakeDiscard).is_ok());
}

// Discarding.

#[test]
fn a_discard_ends_the_turn() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "2C 3D");
    t.playing(false);
    assert_eq!(
        t.decide(0, &Command::discard(hand[1])),
        Ok(vec![Event::Discarded { seat: 0, card: hand[1] }])
    );
    let other = t.id("4H");
    assert_eq!(t.reason(0, &Command::discard(other)), r::CARD_NOT_IN_HAND);
}

#[test]
fn the_card_taken_from_the_pile_is_not_discarded_back() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "9S 9S 2C");
    t.playing(true);
    t.state.taken = Some(hand[0]);
    assert_eq!(t.reason(0, &Command::discard(hand[0])), r::CANNOT_DISCARD_TAKEN_CARD);
    assert_eq!(t.reason(0, &Command::discard(hand[1])), r::CANNOT_DISCARD_TAKEN_TWIN);
    assert!(undiscardable(&t.rules, Some(hand[0]), hand[1]));
    assert!(t.decide(0, &Command::discard(hand[2])).is_ok());
}

#[test]
fn a_seat_that_took_the_discard_before_opening_opens_before_discarding() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "9S 2C");
    t.playing(false);
    t.state.taken = Some(hand[0]);
    t.state.must_open = true;
    assert_eq!(t.reason(0, &Command::discard(hand[1])), r::MUST_OPEN_WITH_TAKEN_DISCARD);
}

#[test]
fn a_swapped_joker_is_melded_before_the_discard() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "JK 8H 8D 2C");
    t.playing(true);
    t.state.pending_joker = Some(hand[0]);
    assert_eq!(t.reason(0, &Command::discard(hand[3])), r::SWAPPED_JOKER_NOT_MELDED);
}

// Melds and the opening.

#[test]
fn an_opening_reaches_the_threshold() {
    let mut t = Table::new(Variant::ramino51());
    let run = t.ids("7S 8S 9S");
    let set = t.ids("KH KD KC");
    let rest = t.ids("2D");
    t.state.seats[0].hand = [run.clone(), set.clone(), rest].concat();
    t.playing(false);
    let refusal = t.refusal(0, &Command::lay_melds(std::slice::from_ref(&run)));
    assert_eq!(refusal.reason, r::OPENING_BELOW_THRESHOLD);
    assert_eq!(refusal.message, "an opening needs 51, these melds are worth 24");
    assert_eq!(
        t.decide(0, &Command::lay_melds(&[run.clone(), set.clone()])),
        Ok(vec![Event::MeldsLaid {
            seat: 0,
            melds: vec![run.clone(), set.clone()],
            opening: true,
            described: t.described_all(&[run.clone(), set.clone()]),
        }])
    );
    // Once opened, any meld may be laid.
    t.state.seats[0].opened = true;
    assert_eq!(
        t.decide(0, &Command::lay_melds(std::slice::from_ref(&run))),
        Ok(vec![Event::MeldsLaid {
            seat: 0,
            melds: vec![run.clone()],
            opening: false,
            described: vec![t.described(&run)],
        }])
    );
}

#[test]
fn an_opening_needs_a_pure_run_where_the_variant_says_so() {
    let mut t = Table::new(Variant::rami51());
    let kings = t.ids("KH KD KC KS");
    let queens = t.ids("QH QD QC");
    let run = t.ids("5S 6S JK");
    let rest = t.ids("2D");
    t.state.seats[0].hand = [kings.clone(), queens.clone(), run.clone(), rest].concat();
    t.playing(false);
    assert_eq!(
        t.reason(0, &Command::lay_melds(&[kings.clone(), queens.clone()])),
        r::OPENING_NEEDS_PURE_RUN
    );
    // A run with a joker is not pure.
    assert_eq!(
        t.reason(0, &Command::lay_melds(&[kings.clone(), run])),
        r::OPENING_NEEDS_PURE_RUN
    );
    // Ramino 51 needs no pure run.
    let mut t = Table::new(Variant::ramino51());
    let kings = t.ids("KH KD KC KS");
    let queens = t.ids("QH QD QC");
    let rest = t.ids("2D");
    t.state.seats[0].hand = [kings.clone(), queens.clone(), rest].concat();
    t.playing(false);
    assert!(t.decide(0, &Command::lay_melds(&[kings, queens])).is_ok());
}

#[test]
fn a_laid_meld_is_described_as_the_meld_kernel_validated_it() {
    let mut t = Table::new(Variant::ramino51());
    let run = t.ids("5H 6H JK");
    let set = t.ids("QH JK QC");
    let rest = t.ids("2D");
    t.state.seats[0].hand = [run.clone(), set.clone(), rest].concat();
    t.playing(true);
    let Ok(events) = t.decide(0, &Command::lay_melds(&[run.clone(), set.clone()])) else {
        panic!("the melds are laid");
    };
    let [Event::MeldsLaid { described, .. }] = &events[..] else {
        panic!("one MeldsLaid: {events:?}");
    };
    assert_eq!(described, &t.described_all(&[run, set]));
    let (run, set) = (&described[0], &described[1]);
    assert_eq!(
        (run.kind, run.value, run.closed, run.pure),
        (MeldKind::Run, 18, false, false)
    );
    assert_eq!(run.jokers, vec![(2, Card::parse_list("7H").unwrap())]);
    assert_eq!(
        (set.kind, set.value, set.closed, set.pure),
        (MeldKind::Set, 30, false, false)
    );
    assert_eq!(set.jokers, vec![(1, Card::parse_list("QS QD").unwrap())]);
}

#[test]
fn basic_rummy_has_no_opening() {
    let mut t = Table::new(Variant::rummy());
    let run = t.ids("2S 3S 4S");
    let rest = t.ids("9D");
    t.state.seats[0].hand = [run.clone(), rest].concat();
    t.playing(false);
    assert_eq!(
        t.decide(0, &Command::lay_melds(std::slice::from_ref(&run))),
        Ok(vec![Event::MeldsLaid {
            seat: 0,
            melds: vec![run.clone()],
            opening: false,
            described: vec![t.described(&run)],
        }])
    );
}

#[test]
fn a_meld_is_checked_by_the_meld_kernel_with_its_detail() {
    let mut t = Table::new(Variant::ramino51());
    let cards = t.hand(0, "7S 8S TS 2D");
    t.playing(true);
    let refusal = t.refusal(0, &Command::lay_melds(&[cards[..3].to_vec()]));
    assert_eq!((refusal.reason, refusal.detail), (r::INVALID_MELD, Some("GAP")));
    let other = t.id("9S");
    let refusal = t.refusal(0, &Command::lay_melds(&[vec![cards[0], cards[1], other]]));
    assert_eq!(refusal.reason, r::CARD_NOT_IN_HAND);
}

#[test]
fn an_opening_after_taking_the_discard_uses_the_card_taken() {
    let mut t = Table::new(Variant::ramino51());
    let run = t.ids("7S 8S 9S");
    let set = t.ids("KH KD KC");
    let queens = t.ids("QH QD QC");
    let rest = t.ids("2D");
    t.state.seats[0].hand = [run.clone(), set.clone(), queens.clone(), rest].concat();
    t.playing(false);
    t.state.taken = Some(run[2]);
    t.state.must_open = true;
    assert_eq!(
        t.reason(0, &Command::lay_melds(&[set.clone(), queens])),
        r::MUST_OPEN_WITH_TAKEN_DISCARD
    );
    assert!(t.decide(0, &Command::lay_melds(&[run, set])).is_ok());
}

#[test]
fn the_last_card_is_discarded_where_going_out_needs_it() {
    let mut t = Table::new(Variant::ramino51());
    let run = t.hand(0, "7S 8S 9S");
    t.playing(true);
    let refusal = t.refusal(0, &Command::lay_melds(std::slice::from_ref(&run)));
    assert_eq!(refusal.reason, r::LAST_CARD_MUST_BE_DISCARDED);
    // Basic rummy goes out by melding every card.
    let mut t = Table::new(Variant::rummy());
    let run = t.hand(0, "7S 8S 9S");
    t.playing(false);
    assert!(t.decide(0, &Command::lay_melds(&[run])).is_ok());
}

#[test]
fn a_play_may_not_leave_only_the_card_taken_from_the_pile() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "7S 8S 9S 9H");
    t.playing(true);
    t.state.taken = Some(hand[3]);
    assert_eq!(
        t.reason(0, &Command::lay_melds(&[hand[..3].to_vec()])),
        r::NO_CARD_LEFT_TO_DISCARD
    );
}

#[test]
fn the_card_taken_may_be_left_where_it_can_still_be_laid_off_to_go_out() {
    let mut t = Table::new(Variant::rummy());
    let hand = t.hand(0, "7S 8S 9S 9H");
    t.playing(false);
    t.state.taken = Some(hand[3]);
    let melds = Command::lay_melds(&[hand[..3].to_vec()]);
    assert_eq!(t.reason(0, &melds), r::NO_CARD_LEFT_TO_DISCARD);
    // The 9H goes on the table's TH JH QH: the seat can still go out.
    t.meld(1, "TH JH QH");
    assert!(t.decide(0, &melds).is_ok());
}

// Lay-offs.

#[test]
fn a_lay_off_extends_a_table_meld() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "6S TS 2D");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(true);
    assert_eq!(
        t.decide(0, &Command::lay_off(hand[0], m, End::Start)),
        Ok(vec![Event::LaidOff {
            seat: 0,
            card: hand[0],
            meld: m,
            end: End::Start,
            described: Some(t.described(&[&[hand[0]][..], &t.state.melds[m].cards[..]].concat())),
        }])
    );
    assert!(t.decide(0, &Command::lay_off(hand[1], m, End::End)).is_ok());
    let refusal = t.refusal(0, &Command::lay_off(hand[2], m, End::End));
    assert_eq!(
        (refusal.reason, refusal.detail),
        (r::CANNOT_LAY_OFF, Some("MIXED_SUITS"))
    );
    assert_eq!(
        t.reason(0, &Command::lay_off(hand[1], m, End::Start)),
        r::CANNOT_LAY_OFF
    );
    assert_eq!(t.reason(0, &Command::lay_off(hand[0], 1, End::Start)), r::NO_SUCH_MELD);
}

#[test]
fn a_lay_off_needs_an_opening_first() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "6S 2D");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(false);
    assert_eq!(t.reason(0, &Command::lay_off(hand[0], m, End::Start)), r::NOT_OPENED);
    t.state.must_open = true;
    t.state.taken = Some(hand[0]);
    assert_eq!(
        t.reason(0, &Command::lay_off(hand[0], m, End::Start)),
        r::MUST_OPEN_WITH_TAKEN_DISCARD
    );
    // Basic rummy lays off from the first turn.
    let mut t = Table::new(Variant::rummy());
    let hand = t.hand(0, "6S 2D");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(false);
    assert!(t.decide(0, &Command::lay_off(hand[0], m, End::Start)).is_ok());
}

#[test]
fn no_lay_off_on_the_opening_turn_where_the_variant_says_so() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "6S 2D");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(true);
    t.state.opened_this_turn = true;
    assert_eq!(
        t.reason(0, &Command::lay_off(hand[0], m, End::Start)),
        r::NO_LAYOFF_ON_OPENING_TURN
    );
    let mut t = Table::new(Variant::rami51());
    let hand = t.hand(0, "6S 2D");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(true);
    t.state.opened_this_turn = true;
    assert!(t.decide(0, &Command::lay_off(hand[0], m, End::Start)).is_ok());
}

#[test]
fn a_set_of_four_is_closed() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "KS 2D");
    let m = t.meld(1, "KH KD KC KS");
    t.playing(true);
    assert_eq!(t.reason(0, &Command::lay_off(hand[0], m, End::End)), r::MELD_CLOSED);
}

#[test]
fn a_lay_off_keeps_a_card_to_discard_where_going_out_needs_it() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.hand(0, "6S");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(true);
    assert_eq!(
        t.reason(0, &Command::lay_off(hand[0], m, End::Start)),
        r::LAST_CARD_MUST_BE_DISCARDED
    );
    let mut t = Table::new(Variant::rummy());
    let hand = t.hand(0, "6S");
    let m = t.meld(1, "7S 8S 9S");
    t.playing(true);
    assert!(t.decide(0, &Command::lay_off(hand[0], m, End::Start)).is_ok());
}

// Joker swaps.

/// Seat 0 has opened; table meld 0 is 7S JK 9S (the joker stands for 8S).
fn swap_table(hand: &str) -> (Table, Vec<CardId>, CardId) {
    let mut t = Table::new(Variant::ramino51());
    let m = t.meld(1, "7S JK 9S");
    let joker = t.state.melds[m].cards[1];
    let hand = t.hand(0, hand);
    t.playing(true);
    (t, hand, joker)
}

#[test]
fn a_joker_is_swapped_for_the_card_it_stands_for() {
    let (t, hand, joker) = swap_table("8S 8H 8D 3C");
    assert_eq!(
        t.decide(0, &Command::swap_joker(hand[0], 0, joker)),
        Ok(vec![Event::JokerSwapped {
            seat: 0,
            card: hand[0],
            meld: 0,
            joker,
            described: Some(
                t.described(
                    &t.state.melds[0]
                        .cards
                        .iter()
                        .map(|&c| if c == joker { hand[0] } else { c })
                        .collect::<Vec<_>>()
                )
            ),
        }])
    );
    let refusal = t.refusal(0, &Command::swap_joker(hand[1], 0, joker));
    assert_eq!(refusal.reason, r::JOKER_STANDS_FOR_OTHER_CARD);
    assert_eq!(refusal.message, "that joker stands for 8S");
    let seven = t.state.melds[0].cards[0];
    assert_eq!(t.reason(0, &Command::swap_joker(hand[0], 0, seven)), r::NO_SUCH_JOKER);
    assert_eq!(t.reason(0, &Command::swap_joker(hand[0], 1, joker)), r::NO_SUCH_MELD);
}

#[test]
fn a_joker_swap_needs_a_variant_that_has_it() {
    let mut t = Table::new(Variant::rummy());
    let hand = t.hand(0, "8S 2D");
    t.playing(true);
    assert_eq!(
        t.reason(0, &Command::swap_joker(hand[0], 0, 0)),
        r::JOKER_SWAP_NOT_ALLOWED
    );
}

#[test]
fn a_joker_swap_needs_an_opening_and_not_the_opening_turn() {
    let (mut t, hand, joker) = swap_table("8S 8H 8D 3C");
    t.state.seats[0].opened = false;
    assert_eq!(t.reason(0, &Command::swap_joker(hand[0], 0, joker)), r::NOT_OPENED);
    t.state.seats[0].opened = true;
    t.state.opened_this_turn = true;
    assert_eq!(
        t.reason(0, &Command::swap_joker(hand[0], 0, joker)),
        r::NO_SWAP_ON_OPENING_TURN
    );
}

#[test]
fn a_joker_is_swapped_for_a_natural_card() {
    let (t, hand, joker) = swap_table("JK 8H 8D 3C");
    assert_eq!(
        t.reason(0, &Command::swap_joker(hand[0], 0, joker)),
        r::SWAP_NEEDS_NATURAL_CARD
    );
}

#[test]
fn a_swapped_joker_must_be_meldable_this_turn() {
    let (t, hand, joker) = swap_table("8S 3C KD");
    assert_eq!(
        t.reason(0, &Command::swap_joker(hand[0], 0, joker)),
        r::SWAPPED_JOKER_CANNOT_BE_MELDED
    );
}

#[test]
fn one_swapped_joker_at_a_time_and_into_a_new_meld() {
    let (mut t, hand, joker) = swap_table("8S 8H 8D 3C");
    let own = t.id("JK");
    t.state.seats[0].hand.push(own);
    t.state.pending_joker = Some(own);
    assert_eq!(
        t.reason(0, &Command::swap_joker(hand[0], 0, joker)),
        r::SWAPPED_JOKER_NOT_MELDED
    );
    assert_eq!(
        t.reason(0, &Command::lay_off(own, 0, End::Start)),
        r::SWAPPED_JOKER_NOT_MELDED
    );
    // A meld that leaves the joker unmeldable (8H 8D laid without it).
    let eights = t.id("8C");
    t.state.seats[0].hand.push(eights);
    assert_eq!(
        t.reason(0, &Command::lay_melds(&[vec![hand[1], hand[2], eights]])),
        r::SWAPPED_JOKER_NOT_MELDED
    );
    // Laying the joker's meld is the way out.
    assert!(t.decide(0, &Command::lay_melds(&[vec![hand[1], hand[2], own]])).is_ok());
}

#[test]
fn joker_meld_keeps_a_discardable_card() {
    let mut t = Table::new(Variant::ramino51());
    let hand = t.ids("8H 8D JK 3C");
    let (rest, melds) = joker_meld(&t.rules, None, &hand).expect("a meld with the joker");
    assert_eq!(rest, vec![hand[0], hand[1], hand[2]]);
    assert_eq!(melds.len(), 1);
    // The card taken from the pile is not the one kept: 3C is.
    let (rest, _) = joker_meld(&t.rules, Some(hand[0]), &hand).expect("a meld with the joker");
    assert_eq!(rest, vec![hand[0], hand[1], hand[2]]);
    // Keeping 3C, the card taken, leaves no other meld.
    assert_eq!(joker_meld(&t.rules, Some(hand[3]), &hand), None);
    // No joker, nothing to lay.
    assert_eq!(joker_meld(&t.rules, None, &hand[..2]), None);
}

// Gin: the first upcard, the wall, the knock, the defender.

/// Seat 0 to draw in gin; the first upcard on offer.
fn gin_table(variant: Variant) -> Table {
    let mut t = Table::new(variant);
    t.state.seats[0].turns = 1;
    t.state.seats[1].turns = 0;
    t.state.first_upcard = true;
    t
}

#[test]
fn the_first_upcard_is_taken_or_passed() {
    let mut t = gin_table(Variant::gin());
    t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD");
    let stock = t.stock("2D 3D 4D 5D 6D");
    let pile = t.discard_pile("QD");
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::TAKE_OR_PASS_UPCARD);
    assert_eq!(
        t.decide(0, &Command::PassUpcard),
        Ok(vec![Event::PassedUpcard { seat: 0 }])
    );
    assert_eq!(
        t.decide(0, &Command::TakeDiscard),
        Ok(vec![Event::TookDiscard { seat: 0, card: pile[0] }])
    );
    t.state.passes = 2;
    assert_eq!(t.reason(0, &Command::TakeDiscard), r::UPCARD_PASSED);
    assert_eq!(t.reason(0, &Command::PassUpcard), r::CANNOT_PASS);
    assert_eq!(
        t.decide(0, &Command::DrawFromStock),
        Ok(vec![Event::DrewFromStock {
            seat: 0,
            card: Some(stock[4])
        }])
    );
}

#[test]
fn a_gin_turn_draws_first_and_never_turns_the_pile_over() {
    let mut t = gin_table(Variant::gin());
    let hand = t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD");
    t.stock("2D 3D 4D 5D 6D");
    t.discard_pile("QD");
    t.state.first_upcard = false;
    assert_eq!(t.reason(0, &Command::TurnOverDiscardPile), r::TURN_OVER_NOT_ALLOWED);
    assert_eq!(t.reason(0, &Command::discard(hand[0])), r::MUST_DRAW_FIRST);
    assert_eq!(t.reason(0, &Command::knock(Some(hand[9]), &[])), r::MUST_DRAW_FIRST);
    assert_eq!(t.reason(0, &Command::PassUpcard), r::CANNOT_PASS);
    // An empty stock is at the wall; without a wall, it is empty.
    t.state.stock.clear();
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::WALL_REACHED);
    let mut t = gin_table(Variant {
        wall_stock_size: 0,
        ..Variant::gin()
    });
    t.state.first_upcard = false;
    t.discard_pile("QD");
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::STOCK_EMPTY);
}

#[test]
fn at_the_wall_the_upcard_is_taken_only_to_knock() {
    let mut t = gin_table(Variant::gin());
    t.state.first_upcard = false;
    // Three runs and KD: with the QD it would knock (discard either, 10 left).
    t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD");
    t.stock("2D 3D");
    let pile = t.discard_pile("QD");
    assert!(wall_knock_possible(&t.state, &t.rules, 0));
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::WALL_REACHED);
    assert_eq!(
        t.decide(0, &Command::PassUpcard),
        Ok(vec![Event::PassedUpcard { seat: 0 }])
    );
    assert_eq!(
        t.decide(0, &Command::TakeDiscard),
        Ok(vec![Event::TookDiscard { seat: 0, card: pile[0] }])
    );
    t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C KC KH");
    assert!(!wall_knock_possible(&t.state, &t.rules, 0));
    assert_eq!(t.reason(0, &Command::TakeDiscard), r::WALL_NEEDS_KNOCK);
    // Above the wall, the stock is drawn as usual.
    t.stock("2D 3D 4D");
    assert!(t.decide(0, &Command::DrawFromStock).is_ok());
}

#[test]
fn a_gin_turn_after_its_draw_discards_or_knocks() {
    let mut t = gin_table(Variant::gin());
    t.state.first_upcard = false;
    let hand = t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD QD");
    t.playing(false);
    assert_eq!(t.reason(0, &Command::DrawFromStock), r::ALREADY_DREW);
    assert_eq!(t.reason(0, &Command::PassUpcard), r::ALREADY_DREW);
    assert_eq!(t.reason(0, &Command::AcceptLayout), r::DEFENDER_TO_PLAY);
    assert_eq!(
        t.reason(0, &Command::lay_melds(&[hand[..3].to_vec()])),
        r::MELDS_ONLY_BY_KNOCKING
    );
    assert_eq!(
        t.reason(0, &Command::lay_off(hand[3], 0, End::End)),
        r::MELDS_ONLY_BY_KNOCKING
    );
    assert_eq!(
        t.decide(0, &Command::discard(hand[9])),
        Ok(vec![Event::Discarded { seat: 0, card: hand[9] }])
    );
    t.state.wall_take = true;
    assert_eq!(t.reason(0, &Command::discard(hand[9])), r::MUST_KNOCK);
}

#[test]
fn a_knock_leaves_at_most_the_knock_card_unmatched() {
    let mut t = gin_table(Variant::gin());
    t.state.first_upcard = false;
    let h = t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD QD");
    t.playing(false);
    let melds = vec![h[0..3].to_vec(), h[3..6].to_vec(), h[6..9].to_vec()];
    assert_eq!(
        t.decide(0, &Command::knock(Some(h[9]), &melds)),
        Ok(vec![Event::Knocked {
            seat: 0,
            discard: Some(h[9]),
            melds: melds.clone(),
            deadwood: 10,
            described: t.described_all(&melds),
        }])
    );
    let refusal = t.refusal(0, &Command::knock(Some(h[9]), &melds[..2]));
    assert_eq!(refusal.reason, r::KNOCK_TOO_HIGH);
    assert_eq!(
        refusal.message,
        "the unmatched cards total 34, more than the knock card 10"
    );
    // The discard is not melded too.
    assert_eq!(t.reason(0, &Command::knock(Some(h[0]), &melds)), r::CARD_NOT_IN_HAND);
    let bad = vec![vec![h[0], h[1], h[3]]];
    let refusal = t.refusal(0, &Command::knock(Some(h[9]), &bad));
    assert_eq!((refusal.reason, refusal.detail), (r::INVALID_MELD, Some("MIXED_SUITS")));
    assert_eq!(knock_deadwood(&t.rules.cards_of(&h), &t.rules), 10);
}

#[test]
fn big_gin_melds_all_eleven_cards_where_the_variant_has_it() {
    let mut t = gin_table(Variant::gin());
    t.state.first_upcard = false;
    let h = t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C TC JC");
    t.playing(false);
    let all = vec![h[0..3].to_vec(), h[3..6].to_vec(), h[6..11].to_vec()];
    assert_eq!(t.reason(0, &Command::knock(None, &all)), r::BIG_GIN_NOT_ALLOWED);
    let mut t = gin_table(big_gin_variant());
    t.state.first_upcard = false;
    let h = t.hand(0, "AS 2S 3S 4H 5H 6H 7C 8C 9C TC JC");
    t.playing(false);
    let all = vec![h[0..3].to_vec(), h[3..6].to_vec(), h[6..11].to_vec()];
    assert_eq!(
        t.decide(0, &Command::knock(None, &all)),
        Ok(vec![Event::Knocked {
            seat: 0,
            discard: None,
            melds: all.clone(),
            deadwood: 0,
            described: t.described_all(&all),
        }])
    );
    let short = vec![h[0..3].to_vec(), h[3..6].to_vec(), h[6..10].to_vec()];
    assert_eq!(t.reason(0, &Command::knock(None, &short)), r::BIG_GIN_MELDS_ALL);
}

/// The defender (seat 1) to play after seat 0 knocked with AS 2S 3S and
/// 4H 5H 6H; `left` is what the knocker kept.
fn layoff_table(variant: Variant, left: &str) -> (Table, Vec<CardId>) {
    let mut t = gin_table(variant);
    t.state.first_upcard = false;
    t.meld(0, "AS 2S 3S");
    t.meld(0, "4H 5H 6H");
    t.hand(0, left);
    let hand = t.hand(1, "4S 7H 9C 9D 9H KC");
    t.state.phase = Phase::Layoff;
    t.state.turn = 1;
    t.state.knocker = Some(0);
    t.state.knock_melds = 2;
    (t, hand)
}

#[test]
fn the_defender_lays_off_on_the_knockers_melds() {
    let (t, hand) = layoff_table(Variant::gin(), "QD 7D");
    assert_eq!(
        t.decide(1, &Command::lay_off(hand[0], 0, End::End)),
        Ok(vec![Event::LaidOff {
            seat: 1,
            card: hand[0],
            meld: 0,
            end: End::End,
            described: Some(t.described(&[&t.state.melds[0].cards[..], &[hand[0]][..]].concat())),
        }])
    );
    assert!(t.decide(1, &Command::lay_off(hand[1], 1, End::End)).is_ok());
    let refusal = t.refusal(1, &Command::lay_off(hand[5], 0, End::End));
    assert_eq!(
        (refusal.reason, refusal.detail),
        (r::CANNOT_LAY_OFF, Some("MIXED_SUITS"))
    );
    assert_eq!(t.reason(1, &Command::lay_off(hand[0], 2, End::End)), r::NO_SUCH_MELD);
    assert_eq!(t.reason(0, &Command::AcceptLayout), r::NOT_YOUR_TURN);
}

#[test]
fn the_defender_lays_off_only_on_the_knockers_melds_and_before_its_own() {
    let (mut t, hand) = layoff_table(Variant::gin(), "QD 7D");
    let own = t.meld(1, "TC JC QC");
    assert_eq!(
        t.reason(1, &Command::lay_off(hand[5], own, End::End)),
        r::LAYOFF_ONLY_ON_KNOCKERS_MELDS
    );
    t.state.defender_melded = true;
    assert_eq!(
        t.reason(1, &Command::lay_off(hand[0], 0, End::End)),
        r::NO_LAYOFF_AFTER_MELDS
    );
}

#[test]
fn no_lay_off_on_gin_or_big_gin() {
    let (mut t, hand) = layoff_table(big_gin_variant(), "");
    assert_eq!(
        t.reason(1, &Command::lay_off(hand[0], 0, End::End)),
        r::NO_LAYOFF_ON_GIN
    );
    t.state.big_gin = true;
    assert_eq!(
        t.reason(1, &Command::lay_off(hand[0], 0, End::End)),
        r::NO_LAYOFF_ON_GIN
    );
}

#[test]
fn the_defender_melds_and_accepts_the_layout() {
    let (t, hand) = layoff_table(Variant::gin(), "QD 7D");
    let nines = hand[2..5].to_vec();
    assert_eq!(
        t.decide(1, &Command::lay_melds(std::slice::from_ref(&nines))),
        Ok(vec![Event::MeldsLaid {
            seat: 1,
            melds: vec![nines.clone()],
            opening: false,
            described: vec![t.described(&nines)],
        }])
    );
    let refusal = t.refusal(1, &Command::lay_melds(&[vec![hand[0], hand[1], hand[5]]]));
    assert_eq!(refusal.reason, r::INVALID_MELD);
    assert_eq!(
        t.decide(1, &Command::AcceptLayout),
        Ok(vec![Event::LayoutAccepted { seat: 1 }])
    );
    assert_eq!(t.reason(1, &Command::discard(hand[0])), r::DEFENDER_TO_PLAY);
    assert_eq!(t.reason(1, &Command::DrawFromStock), r::DEFENDER_TO_PLAY);
    assert_eq!(t.reason(1, &Command::knock(Some(hand[0]), &[])), r::DEFENDER_TO_PLAY);
}
