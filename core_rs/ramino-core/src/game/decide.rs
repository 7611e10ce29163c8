//! A command from a seat becomes events, or a refusal (the Python engine's
//! `rules/turn.py`, `shape.py`, `draw.py`, `meld.py`, `discard.py`,
//! `gin.py`). Nothing here changes the state.

use crate::card::Card;

use super::types::{CardId, Command, Event, Refusal, Rules, State};

/// The events of `seat` issuing `command` now (the state is untouched).
///
/// # Errors
/// The refusal: `MalformedCommand` reasons for a command that cannot be
/// meant, `IllegalMove` reasons for one the rules forbid now.
pub fn decide(state: &State, rules: &Rules, seat: i64, command: &Command) -> Result<Vec<Event>, Refusal> {
    let _ = (state, rules, seat, command);
    todo!()
}

/// Why `seat` may not take the discard now (a reason), or `None`.
#[must_use]
pub fn can_take_discard(state: &State, rules: &Rules, seat: usize) -> Option<&'static str> {
    let _ = (state, rules, seat);
    todo!()
}

/// Whether `card` may not be discarded in a turn that took `taken` from the
/// discard pile: it is that card, or its identical twin from the other pack.
#[must_use]
pub fn undiscardable(rules: &Rules, taken: Option<CardId>, card: CardId) -> bool {
    match taken {
        None => false,
        Some(t) => card == t || rules.card(card) == rules.card(t),
    }
}

/// A way to lay a swapped joker of `hand` in new melds and keep a card that
/// may be discarded: the cards searched (`hand` less the kept card) and the
/// melds by card; `None` when there is none.
#[must_use]
pub fn joker_meld(rules: &Rules, taken: Option<CardId>, hand: &[CardId]) -> Option<(Vec<CardId>, Vec<Vec<Card>>)> {
    let _ = (rules, taken, hand);
    todo!()
}

/// Whether `seat`'s hand with the upcard could knock.
#[must_use]
pub fn wall_knock_possible(state: &State, rules: &Rules, seat: usize) -> bool {
    let _ = (state, rules, seat);
    todo!()
}

/// The least unmatched total of `cards` less one discard.
#[must_use]
pub fn knock_deadwood(cards: &[Card], rules: &Rules) -> u32 {
    let _ = (cards, rules);
    todo!()
}
