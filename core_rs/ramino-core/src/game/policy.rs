//! The policies, written once: the discard policy (the hint, the turn
//! timer's move, the greedy bots and the playouts all discard by it),
//! keep-one, and what a knock shows.

use std::collections::HashMap;

use crate::card::Card;
use crate::meld::validate_meld;
use crate::search::{min_deadwood, Deadwood};
use crate::variant::Variant;

use super::decide::undiscardable;
use super::types::{CardId, Rules};

/// The cards of `hand` worth offering to end the turn, in hand order: not a
/// swapped joker waiting for its meld; not the card taken from the discard
/// pile nor its twin (RULES.md section 5); in gin, where the taken card may
/// be discarded back, it is kept while there is another choice (throwing
/// back what was just taken wastes the turn, and twice in succession draws
/// the hand).
#[must_use]
pub fn discardable(
    rules: &Rules,
    hand: &[CardId],
    taken: Option<CardId>,
    pending_joker: Option<CardId>,
) -> Vec<CardId> {
    let cards: Vec<CardId> = hand.iter().copied().filter(|&c| Some(c) != pending_joker).collect();
    if !rules.variant.knocking {
        return cards.into_iter().filter(|&c| !undiscardable(rules, taken, c)).collect();
    }
    if taken.is_some() && cards.len() > 1 {
        return cards.into_iter().filter(|&c| Some(c) != taken).collect();
    }
    cards
}

/// How good a discard each card of `allowed` (cards of `hand`) is, higher
/// better: deadwood before melded cards, high penalties first, lone cards
/// before cards with partners (another suit of the rank, or the suit within
/// two ranks). A joker last while there is another choice. A card's twin
/// scores as it does. `deadwood`: the hand's least deadwood, when the caller
/// has it (an empty or oversized hand, which the search refuses, counts
/// every card as deadwood).
#[must_use]
pub fn discard_scores(
    rules: &Rules,
    hand: &[CardId],
    allowed: &[CardId],
    deadwood: Option<&Deadwood>,
) -> HashMap<CardId, i64> {
    let scores = Scores::of(rules, hand, deadwood);
    allowed.iter().map(|&c| (c, scores.of_card(rules, c))).collect()
}

/// What [`discard_scores`] reads of a hand, by card index: the hand's
/// loose cards, the suits held per rank, the cards held per suit and rank.
struct Scores {
    /// Bit `i`: the card of index `i` is left over by the least deadwood.
    loose: u64,
    suits_of_rank: [[bool; 4]; 14],
    /// Ranks offset by 2, so that a neighbour two ranks off either end has
    /// a place.
    in_suit: [[i64; 18]; 4],
}

impl Scores {
    fn of(rules: &Rules, hand: &[CardId], deadwood: Option<&Deadwood>) -> Scores {
        let mut loose = 0u64;
        let mut mark = |cards: &mut dyn Iterator<Item = Card>| {
            for c in cards {
                loose |= 1 << c.index();
            }
        };
        match deadwood {
            Some(d) => mark(&mut d.deadwood.iter().copied()),
            None => {
                let cards = rules.cards_of(hand);
                match min_deadwood(&cards, &rules.variant) {
                    Ok(d) => mark(&mut d.deadwood.into_iter()),
                    Err(_) => mark(&mut cards.into_iter()),
                }
            }
        }
        let mut suits_of_rank = [[false; 4]; 14];
        let mut in_suit = [[0i64; 18]; 4];
        for &c in hand {
            let card = rules.card(c);
            if let (Some(rank), Some(suit)) = (card.rank(), card.suit()) {
                suits_of_rank[usize::from(rank)][suit as usize] = true;
                in_suit[suit as usize][usize::from(rank) + 2] += 1;
            }
        }
        Scores {
            loose,
            suits_of_rank,
            in_suit,
        }
    }

    /// The score of the card of id `c`.
    fn of_card(&self, rules: &Rules, c: CardId) -> i64 {
        let card = rules.card(c);
        let penalty = i64::from(rules.penalties[c as usize]);
        match (card.rank(), card.suit()) {
            (Some(rank), Some(suit)) if self.loose & (1 << card.index()) != 0 => {
                let (r, s) = (usize::from(rank), suit as usize);
                let in_suit = &self.in_suit[s];
                let mut partners = self.suits_of_rank[r].iter().filter(|&&h| h).count() as i64 - 1;
                // Ranks r-2..=r+2 sit at r..=r+4 (offset by 2).
                partners += in_suit[r] + in_suit[r + 1] + in_suit[r + 3] + in_suit[r + 4];
                penalty * 2 - 8 * partners
            }
            (Some(_), Some(_)) => penalty * 2 - 500,
            _ => -1000,
        }
    }
}

/// The cards of `allowed` that [`discard_scores`] ranks best, in the order
/// given (a bot draws among them; the hint takes the first); empty when
/// `allowed` is.
#[must_use]
pub fn best_discards(rules: &Rules, hand: &[CardId], allowed: &[CardId], deadwood: Option<&Deadwood>) -> Vec<CardId> {
    if allowed.is_empty() {
        return Vec::new();
    }
    let scores = Scores::of(rules, hand, deadwood);
    let mut best = Vec::new();
    let mut top = i64::MIN;
    for &c in allowed {
        let score = scores.of_card(rules, c);
        if score > top {
            top = score;
            best.clear();
        }
        if score == top {
            best.push(c);
        }
    }
    best
}

/// Every card melds but going out needs a discard: the melds less one card
/// kept back (an end of a long run, a card of a set of four), else less the
/// meld of least value (the first of them; a list that is not of melds
/// counts 0 for one).
#[must_use]
pub fn keep_one(melds: &[Vec<Card>], variant: &Variant) -> Vec<Vec<Card>> {
    for (i, m) in melds.iter().enumerate() {
        if m.len() >= 4 {
            for rest in [&m[1..], &m[..m.len() - 1]] {
                if validate_meld(rest, variant).is_ok() {
                    let mut out = melds.to_vec();
                    out[i] = rest.to_vec();
                    return out;
                }
            }
        }
    }
    if melds.len() > 1 {
        let values: Vec<u32> = melds
            .iter()
            .map(|m| validate_meld(m, variant).map_or(0, |v| v.value))
            .collect();
        let least = values.iter().copied().min().unwrap_or(0);
        let drop = values.iter().position(|&v| v == least).unwrap_or(0);
        return melds
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != drop)
            .map(|(_, m)| m.clone())
            .collect();
    }
    Vec::new()
}

/// The unmatched total that a knock of `discard` and `melds` shows of `hand`.
#[must_use]
pub fn knock_unmatched(rules: &Rules, hand: &[CardId], discard: Option<CardId>, melds: &[Vec<CardId>]) -> u32 {
    let left: Vec<CardId> = hand
        .iter()
        .copied()
        .filter(|&c| Some(c) != discard && !melds.iter().any(|m| m.contains(&c)))
        .collect();
    rules.penalty(&left)
}

/// Card codes back to ids of `hand`, the ids `first` preferred (the taken
/// discard, a swapped joker).
#[must_use]
pub fn ids_of(hand: &[CardId], rules: &Rules, melds: &[Vec<Card>], first: &[Option<CardId>]) -> Vec<Vec<CardId>> {
    let preferred = || first.iter().flatten().copied().filter(|c| hand.contains(c));
    let order = || preferred().chain(hand.iter().copied().filter(|c| !preferred().any(|p| p == *c)));
    // Each card's ids in the order they are handed out (preferred first), in
    // one list by card index: card `i`'s are `pools[next[i]..end[i]]`.
    let mut end = [0usize; 53];
    for c in order() {
        end[rules.card(c).index()] += 1;
    }
    let mut at = 0;
    for n in &mut end {
        at += *n;
        *n = at;
    }
    let mut next = [0usize; 53];
    next[1..].copy_from_slice(&end[..52]);
    let mut pools = vec![0; at];
    let mut fill = next;
    for c in order() {
        let i = rules.card(c).index();
        pools[fill[i]] = c;
        fill[i] += 1;
    }
    melds
        .iter()
        .map(|meld| {
            meld.iter()
                .map(|card| {
                    let i = card.index();
                    let id = pools[..end[i]][next[i]];
                    next[i] += 1;
                    id
                })
                .collect()
        })
        .collect()
}
