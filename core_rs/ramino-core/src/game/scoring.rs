//! Scoring (the Python engine's `rules/scoring.py`): a round that a seat
//! won, the match's winners and its final totals with their bonuses.

use crate::variant::Scoring;

use super::types::{Rules, State};

/// Scores of a round that `winner` won (`closed`: in one turn from an
/// unopened hand); nobody scores in a round with no winner. Seats that have
/// resigned score nothing.
///
/// Penalty scoring: the winner scores `winner_score` (`closed_hand_score`
/// when closed), every other seat still in its hand's penalty (times
/// `closed_hand_multiplier` when closed), or `never_opened_penalty` when it
/// never opened and that is set. Otherwise the winner collects those hands
/// (times `rummy_multiplier` when closed).
#[must_use]
pub fn round_scores(state: &State, rules: &Rules, winner: Option<usize>, closed: bool) -> Vec<i64> {
    let mut scores = vec![0i64; state.seats.len()];
    let Some(winner) = winner else {
        return scores;
    };
    let v = &rules.variant;
    let hand_score = |seat: usize| -> i64 {
        let s = &state.seats[seat];
        if v.never_opened_penalty != 0 && !s.opened {
            return i64::from(v.never_opened_penalty);
        }
        i64::from(rules.penalty(&s.hand))
    };
    let losers: Vec<usize> = state.active().into_iter().filter(|&i| i != winner).collect();
    if v.scoring == Scoring::Penalty {
        let factor = if closed { i64::from(v.closed_hand_multiplier) } else { 1 };
        scores[winner] = i64::from(if closed { v.closed_hand_score } else { v.winner_score });
        for i in losers {
            scores[i] = hand_score(i) * factor;
        }
    } else {
        let factor = if closed { i64::from(v.rummy_multiplier) } else { 1 };
        scores[winner] = losers.into_iter().map(hand_score).sum::<i64>() * factor;
    }
    scores
}

/// The winners if the match is over between rounds, else `None`: every seat
/// still in once one or none is left; else, once the rounds are played
/// (`max_rounds`, 0: no limit), a total reached `target_score` (0: off) or
/// the seats left cannot be dealt, those of the best total (the lowest in
/// penalty scoring, else the highest).
#[must_use]
pub fn match_winners(state: &State, rules: &Rules) -> Option<Vec<usize>> {
    if state.round == 0 {
        return None;
    }
    let v = &rules.variant;
    let active = state.active();
    if active.len() <= 1 {
        return Some(active);
    }
    let totals: Vec<i64> = active.iter().map(|&i| state.seats[i].total).collect();
    let over = (v.max_rounds != 0 && state.round >= v.max_rounds)
        || (v.target_score != 0 && totals.iter().any(|&t| t >= i64::from(v.target_score)))
        || u8::try_from(active.len()).ok().and_then(|n| v.hand_size(n)).is_none();
    if !over {
        return None;
    }
    let best = if v.scoring == Scoring::Penalty {
        totals.iter().min()
    } else {
        totals.iter().max()
    };
    let best = *best.expect("two seats or more are still in");
    Some(
        active
            .into_iter()
            .zip(totals)
            .filter(|&(_, t)| t == best)
            .map(|(i, _)| i)
            .collect(),
    )
}

/// The totals at the end of a match with its bonuses (gin): each seat still
/// in `box_bonus` per hand won; a sole winner `game_bonus`; and, when no
/// other seat still in won a hand (a shutout), the winner's total times
/// `shutout_multiplier`. Every bonus is 0 (the factor 1) outside gin.
#[must_use]
pub fn final_totals(state: &State, rules: &Rules, winners: &[usize]) -> Vec<i64> {
    let v = &rules.variant;
    let mut totals: Vec<i64> = state.seats.iter().map(|s| s.total).collect();
    let mut wins = vec![0i64; totals.len()];
    for w in state.results.iter().filter_map(|r| r.winner) {
        // A winner past the seats would be a corrupt record's: it wins nothing.
        if let Some(k) = wins.get_mut(w) {
            *k += 1;
        }
    }
    let active = state.active();
    for &i in &active {
        totals[i] += i64::from(v.box_bonus) * wins[i];
    }
    if let ([w], true) = (winners, active.len() > 1) {
        totals[*w] += i64::from(v.game_bonus);
        if !active.iter().any(|&i| i != *w && wins[i] != 0) {
            totals[*w] *= i64::from(v.shutout_multiplier);
        }
    }
    totals
}
