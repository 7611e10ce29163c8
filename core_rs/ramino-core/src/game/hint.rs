//! The hint on a seat's hand (the Python engine's `hint.py`): from the
//! kernel's exact search and the rules, the melds to lay, the lay-offs, the
//! discard to make and gin's best knock. The discard is the one policy's
//! ([`super::policy::best_discards`]).

use crate::meld::{validate_meld, End};
use crate::search::{best_opening, min_deadwood, Deadwood};

use super::decide::{decide, joker_meld};
use super::moves::legal_moves;
use super::policy::{best_discards, discardable, ids_of, keep_one, knock_unmatched};
use super::types::{CardId, Command, Hint, Phase, Raw, RawEnd, Rules, State};

/// The hint on `seat`'s hand, or `None` when it holds no card (or a hand the
/// search refuses, which no folded record gives). `legal`: the seat's legal
/// moves now, when the caller has them (they give the lay-offs and knocks
/// without a second search).
#[must_use]
pub fn hint(state: &State, rules: &Rules, seat: usize, legal: Option<&[Command]>) -> Option<Hint> {
    let s = &state.seats[seat];
    let hand = &s.hand;
    if hand.is_empty() {
        return None;
    }
    // The card taken this turn and a swapped joker waiting for its meld are
    // the turn's: another seat's hint takes no account of them.
    let mine = state.turn == seat;
    let taken = if mine { state.taken } else { None };
    let pending = if mine { state.pending_joker } else { None };
    let v = &rules.variant;
    let hand_cards = rules.cards_of(hand);
    let deadwood = min_deadwood(&hand_cards, v).ok()?;
    let mut melds: Vec<Vec<CardId>> = Vec::new();
    let mut value = 0;
    let mut opening = false;
    if v.knocking {
        // Melds are laid by knocking: the knock below carries them.
    } else if !s.opened {
        let include = if state.must_open {
            taken.map(|t| rules.card(t))
        } else {
            None
        };
        if let Some(found) = best_opening(&hand_cards, v, include).ok().flatten() {
            melds = ids_of(hand, rules, &found.melds, &[taken]);
            value = found.value;
            opening = rules.needs_opening;
        }
    } else {
        melds = opened_melds(state, rules, seat, &deadwood, taken, pending);
        value = melds
            .iter()
            .map(|m| validate_meld(&rules.cards_of(m), v).map_or(0, |m| m.value))
            .sum();
    }
    let in_melds = |c: CardId| melds.iter().any(|m| m.contains(&c));
    let computed;
    let legal = match legal {
        Some(l) => l,
        None => {
            computed = legal_moves(state, rules, seat);
            &computed
        }
    };
    let mut layoffs: Vec<(CardId, usize, End)> = Vec::new();
    for m in legal {
        if let Some((card, meld, end)) = as_layoff(m) {
            if !in_melds(card) && layoffs.iter().all(|lo| lo.0 != card) {
                layoffs.push((card, meld, end));
            }
        }
    }
    let mut knock = None;
    let mut unmatched = 0;
    if v.knocking && state.phase == Phase::Play {
        // The engine lists the knocks best first.
        if let Some((discard, knock_melds)) = legal.iter().find_map(as_knock) {
            unmatched = knock_unmatched(rules, hand, discard, &knock_melds);
            knock = Some((discard, knock_melds));
        }
    }
    // The discard comes after the melds: a card of theirs only when nothing
    // else may go.
    let mut allowed = discardable(rules, hand, taken, pending);
    if allowed.is_empty() {
        allowed.clone_from(hand);
    }
    let mut outside: Vec<CardId> = allowed.iter().copied().filter(|&c| !in_melds(c)).collect();
    if outside.is_empty() {
        outside = allowed;
    }
    let discard = *best_discards(rules, hand, &outside, Some(&deadwood)).first()?;
    Some(Hint {
        melds,
        melds_value: value,
        opening,
        deadwood,
        layoffs,
        discard,
        knock,
        knock_unmatched: unmatched,
    })
}

/// A raw id as a card id, `None` when it cannot be one.
fn id(raw: Raw) -> Option<CardId> {
    CardId::try_from(raw).ok()
}

/// Raw melds as card ids, `None` when one cannot be an id.
fn ids(raw: &[Vec<Raw>]) -> Option<Vec<Vec<CardId>>> {
    raw.iter().map(|m| m.iter().map(|&c| id(c)).collect()).collect()
}

/// A well-formed `LayOff` as (card, meld, end).
fn as_layoff(command: &Command) -> Option<(CardId, usize, End)> {
    let Command::LayOff { card, meld, end } = command else {
        return None;
    };
    let end = match end {
        RawEnd::Start => End::Start,
        RawEnd::End => End::End,
        RawEnd::Bad(_) => return None,
    };
    Some((id(*card)?, usize::try_from(*meld).ok()?, end))
}

/// A well-formed `Knock` as (discard, melds).
fn as_knock(command: &Command) -> Option<(Option<CardId>, Vec<Vec<CardId>>)> {
    let Command::Knock {
        discard,
        melds: Some(melds),
    } = command
    else {
        return None;
    };
    let discard = match discard {
        Some(d) => Some(id(*d)?),
        None => None,
    };
    Some((discard, ids(melds)?))
}

/// The melds an opened seat should lay: the swapped joker's new meld while
/// one waits, else the melds of the least deadwood, one card kept back where
/// going out needs a discard; in the play phase, the first of those (all of
/// them, else each alone) that the rules take now.
fn opened_melds(
    state: &State,
    rules: &Rules,
    seat: usize,
    deadwood: &Deadwood,
    taken: Option<CardId>,
    pending: Option<CardId>,
) -> Vec<Vec<CardId>> {
    let hand = &state.seats[seat].hand;
    let first = [taken, pending];
    if pending.is_some() {
        if let Some((rest, jm)) = joker_meld(rules, taken, hand) {
            return ids_of(&rest, rules, &jm, &first);
        }
    }
    let mut partition = deadwood.melds.clone();
    if deadwood.deadwood.is_empty() && rules.must_discard {
        partition = keep_one(&partition, &rules.variant);
    }
    if partition.is_empty() {
        return Vec::new();
    }
    let together = ids_of(hand, rules, &partition, &first);
    if state.phase != Phase::Play || state.turn != seat {
        return together;
    }
    let Ok(seat_id) = i64::try_from(seat) else {
        return Vec::new();
    };
    let alone = together.iter().map(|m| vec![m.clone()]);
    std::iter::once(together.clone())
        .chain(alone)
        .find(|melds| decide(state, rules, seat_id, &Command::lay_melds(melds)).is_ok())
        .unwrap_or_default()
}
