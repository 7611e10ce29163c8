//! Discarding, and the card taken from the discard pile that may not be
//! thrown back the same turn (the Python engine's `rules/discard.py`;
//! RULES.md section 5).

use super::super::reasons as r;
use super::super::types::{CardId, Event, Refusal, Rules, State};
use super::shape::in_hand;

/// Whether `card` may not be discarded in a turn that took `taken` from the
/// discard pile: it is that card, or its identical twin from the other pack.
#[must_use]
pub fn undiscardable(rules: &Rules, taken: Option<CardId>, card: CardId) -> bool {
    match taken {
        None => false,
        Some(t) => card == t || rules.card(card) == rules.card(t),
    }
}

/// A discard, which ends the turn (rummy; gin's is in `gin`).
pub(super) fn discard(state: &State, rules: &Rules, seat: usize, card: CardId) -> Result<Vec<Event>, Refusal> {
    in_hand(&state.seats[seat].hand, card)?;
    if state.must_open {
        return Err(Refusal::illegal(
            r::MUST_OPEN_WITH_TAKEN_DISCARD,
            "open with the card you took first",
        ));
    }
    if Some(card) == state.taken {
        return Err(Refusal::illegal(
            r::CANNOT_DISCARD_TAKEN_CARD,
            "the card taken from the discard pile stays this turn",
        ));
    }
    if undiscardable(rules, state.taken, card) {
        return Err(Refusal::illegal(
            r::CANNOT_DISCARD_TAKEN_TWIN,
            "the twin of the card taken from the discard pile stays this turn too",
        ));
    }
    if state.pending_joker.is_some() {
        return Err(Refusal::illegal(
            r::SWAPPED_JOKER_NOT_MELDED,
            "lay the joker you swapped in a new meld",
        ));
    }
    Ok(vec![Event::Discarded { seat, card }])
}
