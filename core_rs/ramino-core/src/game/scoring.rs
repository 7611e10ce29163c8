//! Scoring (the Python engine's `rules/scoring.py`): a round that a seat
//! won, the match's winners and its final totals with their bonuses.

use crate::variant::Scoring;

use super::types::{Ending, Rules, ScorePart, ScorePartKind, State};

/// Each seat's score: the sum of its parts.
#[must_use]
pub fn scores_of(parts: &[Vec<ScorePart>]) -> Vec<i64> {
    parts.iter().map(|p| p.iter().map(|x| x.points).sum()).collect()
}

/// A score's part for `factor` times `before` (a multiplier's): what it adds
/// to `before`; none for a factor of 1.
fn multiplied(kind: ScorePartKind, before: i64, factor: u8) -> Option<ScorePart> {
    let factor = i64::from(factor);
    (factor != 1).then(|| {
        ScorePart::new(kind, before * (factor - 1))
            .with_base(before)
            .with_factor(factor)
    })
}

/// Scores of a round that `winner` won (`closed`: in one turn from an
/// unopened hand); nobody scores in a round with no winner. Seats that have
/// resigned score nothing. The sums of [`round_score_parts`].
#[must_use]
pub fn round_scores(state: &State, rules: &Rules, winner: Option<usize>, closed: bool) -> Vec<i64> {
    scores_of(&round_score_parts(state, rules, winner, closed))
}

/// Each seat's score of a round that `winner` won, in its parts (see
/// [`round_scores`]); no part for a seat that scores nothing by rule (no
/// winner, resigned, a loser where the winner collects).
///
/// Penalty scoring: the winner scores `winner_score` (`closed_hand_score`
/// when closed), every other seat still in its hand's penalty, or
/// `never_opened_penalty` in its place when it never opened and that is set,
/// times `closed_hand_multiplier` when closed. Otherwise the winner collects
/// those hands (times `rummy_multiplier` when closed).
#[must_use]
pub fn round_score_parts(state: &State, rules: &Rules, winner: Option<usize>, closed: bool) -> Vec<Vec<ScorePart>> {
    let mut parts = vec![Vec::new(); state.seats.len()];
    let Some(winner) = winner else {
        return parts;
    };
    let v = &rules.variant;
    // A seat's hand as it scores: its penalty, or the flat score of a hand
    // never opened (the penalty it replaces as its base).
    let hand_part = |seat: usize| -> ScorePart {
        let s = &state.seats[seat];
        let penalty = i64::from(rules.penalty(&s.hand));
        if v.never_opened_penalty != 0 && !s.opened {
            return ScorePart::new(ScorePartKind::NeverOpened, i64::from(v.never_opened_penalty)).with_base(penalty);
        }
        ScorePart::new(ScorePartKind::HandPenalty, penalty)
    };
    let losers = state.active().into_iter().filter(|&i| i != winner);
    if v.scoring == Scoring::Penalty {
        parts[winner].push(if closed {
            ScorePart::new(ScorePartKind::ClosedHand, i64::from(v.closed_hand_score))
        } else {
            ScorePart::new(ScorePartKind::WentOut, i64::from(v.winner_score))
        });
        for i in losers {
            let hand = hand_part(i);
            parts[i].push(hand);
            if closed {
                parts[i].extend(multiplied(
                    ScorePartKind::ClosedHandMultiplier,
                    hand.points,
                    v.closed_hand_multiplier,
                ));
            }
        }
    } else {
        let collected: Vec<ScorePart> = losers
            .map(|i| {
                let hand = hand_part(i);
                let penalty = if hand.kind == ScorePartKind::NeverOpened {
                    hand.base
                } else {
                    hand.points
                };
                ScorePart::new(ScorePartKind::HandCollected, hand.points)
                    .with_base(penalty)
                    .with_seat(i)
            })
            .collect();
        let sum: i64 = collected.iter().map(|p| p.points).sum();
        parts[winner] = collected;
        if closed {
            parts[winner].extend(multiplied(ScorePartKind::RummyMultiplier, sum, v.rummy_multiplier));
        }
    }
    parts
}

/// The end of a knocked hand (the Python engine's `gin.knock_scored`): its
/// winner, its ending and each seat's score in its parts. The knocker
/// scores the difference of the unmatched totals (plus the gin or big gin
/// bonus), or the defender, when its total is lower (an undercut), the
/// difference plus the undercut bonus. Equal totals: nobody scores.
#[must_use]
pub fn knock_score_parts(state: &State, rules: &Rules, knocker: usize) -> (Option<usize>, Ending, Vec<Vec<ScorePart>>) {
    let v = &rules.variant;
    let defender = state.next_active(knocker);
    let dk = i64::from(rules.penalty(&state.seats[knocker].hand));
    let dd = i64::from(rules.penalty(&state.seats[defender].hand));
    let mut parts = vec![Vec::new(); state.seats.len()];
    // The winner's parts: the loser's unmatched total, less its own.
    let difference = |loser: usize, theirs: i64, own: i64| -> Vec<ScorePart> {
        let mut p = vec![ScorePart::new(ScorePartKind::OpponentDeadwood, theirs).with_seat(loser)];
        if own != 0 {
            p.push(ScorePart::new(ScorePartKind::OwnDeadwood, -own));
        }
        p
    };
    let (winner, ending) = if dk == 0 {
        let (ending, bonus) = if state.big_gin {
            (
                Ending::BigGin,
                ScorePart::new(ScorePartKind::BigGinBonus, i64::from(v.big_gin_bonus)),
            )
        } else {
            (
                Ending::Gin,
                ScorePart::new(ScorePartKind::GinBonus, i64::from(v.gin_bonus)),
            )
        };
        parts[knocker] = difference(defender, dd, dk);
        parts[knocker].push(bonus);
        (Some(knocker), ending)
    } else if dd > dk {
        parts[knocker] = difference(defender, dd, dk);
        (Some(knocker), Ending::Knock)
    } else if dd < dk {
        parts[defender] = difference(knocker, dk, dd);
        parts[defender].push(ScorePart::new(
            ScorePartKind::UndercutBonus,
            i64::from(v.undercut_bonus),
        ));
        (Some(defender), Ending::Undercut)
    } else {
        (None, Ending::Knock)
    };
    (winner, ending, parts)
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

/// The totals at the end of a match with its bonuses (gin): the sums of
/// [`final_total_parts`].
#[must_use]
pub fn final_totals(state: &State, rules: &Rules, winners: &[usize]) -> Vec<i64> {
    scores_of(&final_total_parts(state, rules, winners))
}

/// Each seat's total at the end of a match in its parts: the rounds' total;
/// for each seat still in, `box_bonus` per hand won; for a sole winner,
/// `game_bonus`; and, when no other seat still in won a hand (a shutout),
/// the winner's total so far times `shutout_multiplier`. Every bonus is 0
/// (the factor 1) outside gin, and a bonus of 0 is no part.
#[must_use]
pub fn final_total_parts(state: &State, rules: &Rules, winners: &[usize]) -> Vec<Vec<ScorePart>> {
    let v = &rules.variant;
    let mut parts: Vec<Vec<ScorePart>> = state
        .seats
        .iter()
        .map(|s| vec![ScorePart::new(ScorePartKind::Rounds, s.total)])
        .collect();
    let mut wins = vec![0i64; parts.len()];
    for w in state.results.iter().filter_map(|r| r.winner) {
        // A winner past the seats would be a corrupt record's: it wins nothing.
        if let Some(k) = wins.get_mut(w) {
            *k += 1;
        }
    }
    let active = state.active();
    for &i in &active {
        if v.box_bonus != 0 && wins[i] != 0 {
            let per = i64::from(v.box_bonus);
            parts[i].push(
                ScorePart::new(ScorePartKind::BoxBonus, per * wins[i])
                    .with_base(per)
                    .with_factor(wins[i]),
            );
        }
    }
    if let ([w], true) = (winners, active.len() > 1) {
        if v.game_bonus != 0 {
            parts[*w].push(ScorePart::new(ScorePartKind::GameBonus, i64::from(v.game_bonus)));
        }
        if !active.iter().any(|&i| i != *w && wins[i] != 0) {
            let before: i64 = parts[*w].iter().map(|p| p.points).sum();
            parts[*w].extend(multiplied(
                ScorePartKind::ShutoutMultiplier,
                before,
                v.shutout_multiplier,
            ));
        }
    }
    parts
}
