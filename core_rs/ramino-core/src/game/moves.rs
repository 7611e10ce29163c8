//! The moves a seat may make now (the Python engine's `moves.py`).

use crate::card::Card;
use crate::variant::Variant;

use super::types::{Command, Rules, State};

pub const MAX_MELD_MOVES: usize = 16;
pub const MAX_LAYOFF_MOVES: usize = 48;
pub const MAX_SWAP_MOVES: usize = 16;

/// The moves `seat` may make now (empty when it is not its turn).
#[must_use]
pub fn legal_moves(state: &State, rules: &Rules, seat: usize) -> Vec<Command> {
    let _ = (state, rules, seat);
    todo!()
}

/// Every meld that `cards` hold, for a deck without jokers.
#[must_use]
pub fn hand_melds(cards: &[Card], variant: &Variant) -> Vec<Vec<Card>> {
    let _ = (cards, variant);
    todo!()
}

/// The knocks `seat` may make now, best (least unmatched) first.
#[must_use]
pub fn knocks(state: &State, rules: &Rules, seat: usize) -> Vec<Command> {
    let _ = (state, rules, seat);
    todo!()
}
