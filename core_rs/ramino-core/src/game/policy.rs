//! The policies, written once: the discard policy (the hint, the turn
//! timer's move, the greedy bots and the playouts all discard by it),
//! keep-one, and what a knock shows.

use std::collections::HashMap;

use crate::card::Card;
use crate::search::Deadwood;
use crate::variant::Variant;

use super::types::{CardId, Rules};

/// The cards of `hand` worth offering to end the turn, in hand order.
#[must_use]
pub fn discardable(rules: &Rules, hand: &[CardId], taken: Option<CardId>, pending_joker: Option<CardId>) -> Vec<CardId> {
    let _ = (rules, hand, taken, pending_joker);
    todo!()
}

/// How good a discard each card of `allowed` is, higher better.
#[must_use]
pub fn discard_scores(rules: &Rules, hand: &[CardId], allowed: &[CardId], deadwood: Option<&Deadwood>) -> HashMap<CardId, i64> {
    let _ = (rules, hand, allowed, deadwood);
    todo!()
}

/// The cards of `allowed` that [`discard_scores`] ranks best, in the order
/// given.
#[must_use]
pub fn best_discards(rules: &Rules, hand: &[CardId], allowed: &[CardId], deadwood: Option<&Deadwood>) -> Vec<CardId> {
    let _ = (rules, hand, allowed, deadwood);
    todo!()
}

/// Every card melds but going out needs a discard: the melds less one card
/// kept back, else less the meld of least value.
#[must_use]
pub fn keep_one(melds: &[Vec<Card>], variant: &Variant) -> Vec<Vec<Card>> {
    let _ = (melds, variant);
    todo!()
}

/// The unmatched total that a knock of `discard` and `melds` shows of `hand`.
#[must_use]
pub fn knock_unmatched(rules: &Rules, hand: &[CardId], discard: Option<CardId>, melds: &[Vec<CardId>]) -> u32 {
    let _ = (rules, hand, discard, melds);
    todo!()
}

/// Card codes back to ids of `hand`, the ids `first` preferred (the taken
/// discard, a swapped joker).
#[must_use]
pub fn ids_of(hand: &[CardId], rules: &Rules, melds: &[Vec<Card>], first: &[Option<CardId>]) -> Vec<Vec<CardId>> {
    let preferred: Vec<CardId> = first.iter().flatten().copied().filter(|c| hand.contains(c)).collect();
    // Each card's ids in the order they are handed out: preferred first.
    let mut pools: Vec<Vec<CardId>> = vec![Vec::new(); 53];
    for &c in preferred.iter().chain(hand.iter().filter(|c| !preferred.contains(c))) {
        pools[rules.card(c).index()].push(c);
    }
    let mut next = [0usize; 53];
    melds
        .iter()
        .map(|meld| {
            meld.iter()
                .map(|card| {
                    let i = card.index();
                    let id = pools[i][next[i]];
                    next[i] += 1;
                    id
                })
                .collect()
        })
        .collect()
}
