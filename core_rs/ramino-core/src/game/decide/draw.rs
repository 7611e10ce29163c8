//! Drawing (the Python engine's `rules/draw.py`): from the stock, the
//! discard pile (and when taking it obliges an opening), or the discard pile
//! turned over.

use crate::search::best_opening;

use super::super::fold::obliged_to_open;
use super::super::reasons as r;
use super::super::types::{Event, Phase, Refusal, Rules, State};
use super::shape::Shaped;

/// Why `seat` may not take the discard now (a reason), or `None`.
///
/// Taking it before opening where that obliges an opening needs an opening
/// that uses it; a hand too large for the search has none (the engine would
/// fail there: no hand of a real deal is that large).
#[must_use]
pub fn can_take_discard(state: &State, rules: &Rules, seat: usize) -> Option<&'static str> {
    let Some(&top) = state.discard.last() else {
        return Some(r::DISCARD_PILE_EMPTY);
    };
    let top_card = rules.card(top);
    let hand = &state.seats[seat].hand;
    if hand.iter().all(|&c| rules.card(c) == top_card) {
        return Some(r::NO_CARD_LEFT_TO_DISCARD);
    }
    if obliged_to_open(state, seat, rules) {
        let mut cards = rules.cards_of(hand);
        cards.push(top_card);
        if !matches!(best_opening(&cards, &rules.variant, Some(top_card)), Ok(Some(_))) {
            return Some(r::CANNOT_OPEN_WITH_DISCARD);
        }
    }
    None
}

/// A draw (`DrawFromStock`, `TakeDiscard` or `TurnOverDiscardPile`) by the
/// seat whose turn it is.
pub(super) fn draw(state: &State, rules: &Rules, seat: usize, command: &Shaped) -> Result<Vec<Event>, Refusal> {
    if state.phase == Phase::Play {
        if !rules.variant.first_turn_draws && seat == state.first_player && state.seats[seat].turns == 1 {
            return Err(Refusal::illegal(
                r::FIRST_TURN_HAS_NO_DRAW,
                "the first player's first turn has no draw",
            ));
        }
        return Err(Refusal::illegal(r::ALREADY_DREW, "you have drawn this turn"));
    }
    match command {
        Shaped::DrawFromStock => match state.stock.last() {
            Some(&card) => Ok(vec![Event::DrewFromStock { seat, card: Some(card) }]),
            None => Err(Refusal::illegal(
                r::STOCK_EMPTY,
                "the stock is empty: take the discard or turn it over",
            )),
        },
        Shaped::TakeDiscard => match (can_take_discard(state, rules, seat), state.discard.last()) {
            (None, Some(&card)) => Ok(vec![Event::TookDiscard { seat, card }]),
            (Some(r::DISCARD_PILE_EMPTY), _) | (None, None) => {
                Err(Refusal::illegal(r::DISCARD_PILE_EMPTY, "the discard pile is empty"))
            }
            (Some(r::NO_CARD_LEFT_TO_DISCARD), _) => Err(Refusal::illegal(
                r::NO_CARD_LEFT_TO_DISCARD,
                "you would hold only that card and its twin, neither discardable",
            )),
            (Some(why), _) => Err(Refusal::illegal(
                why,
                "taking the discard before opening obliges you to open with it",
            )),
        },
        _ => {
            if rules.reshuffle {
                return Err(Refusal::illegal(
                    r::TURN_OVER_NOT_ALLOWED,
                    "this variant reshuffles the discard pile",
                ));
            }
            if !state.stock.is_empty() {
                return Err(Refusal::illegal(r::STOCK_NOT_EMPTY, "the stock is not empty"));
            }
            // The bottom of the pile becomes the top of the stock.
            match state.discard.first() {
                Some(&card) => Ok(vec![
                    Event::DiscardPileTurnedOver {
                        seat,
                        rebuild: state.rebuilds + 1,
                    },
                    Event::DrewFromStock { seat, card: Some(card) },
                ]),
                None => Err(Refusal::illegal(r::DISCARD_PILE_EMPTY, "the discard pile is empty")),
            }
        }
    }
}
