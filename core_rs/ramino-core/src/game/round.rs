//! The round's lifecycle (the Python engine's `rules/round.py` and
//! `deck.py`'s deal): what the state calls for by itself, the deal, and the
//! checks of a game's setup.

use super::types::{CardId, Event, GameError, Rules, Setup, State};

/// A deal: hands in turn order (the first player's first), the upcard, the
/// stock (top card last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    pub hands: Vec<Vec<CardId>>,
    pub upcard: Option<CardId>,
    pub stock: Vec<CardId>,
}

/// Deals `order` (a permutation of card ids) to `players` hands.
#[must_use]
pub fn deal(order: &[CardId], players: usize, size: usize, extra: usize, upcard: bool) -> Deal {
    let _ = (order, players, size, extra, upcard);
    todo!()
}

/// Refuses a game the variant cannot play: player count (`PLAYER_COUNT`),
/// names (`BAD_PLAYER_NAME`), a deck too small for the hands
/// (`DECK_TOO_SMALL`), stacked decks that are not permutations (`BAD_DECK`).
///
/// # Errors
/// The first of those.
pub fn check_setup(rules: &Rules, players: &[String], decks: &[Vec<CardId>]) -> Result<(), GameError> {
    let _ = (rules, players, decks);
    todo!()
}

/// The events the state calls for by itself now (possibly none).
#[must_use]
pub fn follow_up(state: &State, rules: &Rules, setup: &Setup) -> Vec<Event> {
    let _ = (state, rules, setup);
    todo!()
}
