//! Scoring (the Python engine's `rules/scoring.py`): a round that a seat
//! won, the match's winners and its final totals with their bonuses.

use super::types::{Rules, State};

/// Scores of a round that `winner` won (`closed`: in one turn from an
/// unopened hand); nobody scores in a round with no winner.
#[must_use]
pub fn round_scores(state: &State, rules: &Rules, winner: Option<usize>, closed: bool) -> Vec<i64> {
    let _ = (state, rules, winner, closed);
    todo!()
}

/// The winners if the match is over between rounds, else `None`.
#[must_use]
pub fn match_winners(state: &State, rules: &Rules) -> Option<Vec<usize>> {
    let _ = (state, rules);
    todo!()
}

/// The totals at the end of a match with its bonuses (gin).
#[must_use]
pub fn final_totals(state: &State, rules: &Rules, winners: &[usize]) -> Vec<i64> {
    let _ = (state, rules, winners);
    todo!()
}
