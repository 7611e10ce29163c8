//! The fold: one event applied to the state (the Python engine's
//! `state.py`). It trusts the rules that produced the events but checks what
//! is cheap to check (the card is where the event says), so a corrupted
//! record fails loudly instead of drifting.

use crate::meld::validate_meld;

use super::types::{CardId, Event, GameError, Rules, State, TableMeld};

/// A table meld with what the kernel says about it (kind, jokers, value).
///
/// # Errors
/// The cards are not a meld (a corrupt record).
pub fn meld_info(owner: usize, cards: Vec<CardId>, rules: &Rules) -> Result<TableMeld, GameError> {
    let m = validate_meld(&rules.cards_of(&cards), &rules.variant)
        .map_err(|e| GameError::corrupt(format!("the table meld {cards:?} is not a meld: {e}")))?;
    let jokers = m.jokers.iter().map(|j| (cards[j.index], j.cards())).collect();
    Ok(TableMeld { owner, kind: m.kind, closed: m.is_closed(), jokers, value: m.value, cards })
}

/// Whether taking the discard now obliges `seat` to open with it.
#[must_use]
pub fn obliged_to_open(state: &State, seat: usize, rules: &Rules) -> bool {
    let s = &state.seats[seat];
    rules.needs_opening && rules.variant.discard_take_requires_open && !s.opened && s.turns > 1
}

/// Knocking play: whether the stock is down to the wall.
#[must_use]
pub fn at_wall(state: &State, rules: &Rules) -> bool {
    let v = &rules.variant;
    v.knocking && 0 < v.wall_stock_size && state.stock.len() <= usize::from(v.wall_stock_size)
}

/// Folds `event` into `state` (in place); the version counts it.
///
/// # Errors
/// The event does not fit the state; the state is then unspecified (callers
/// fold a copy, or drop the game).
pub fn apply_event(state: &mut State, event: &Event, rules: &Rules) -> Result<(), GameError> {
    let _ = (state, event, rules);
    todo!()
}

/// Every way in which the cards are not each in exactly one place.
#[must_use]
pub fn conservation_errors(state: &State, deck_size: usize) -> Vec<String> {
    let _ = (state, deck_size);
    todo!()
}
