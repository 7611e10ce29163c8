//! Exact meld search: the best opening and the minimum deadwood of a hand,
//! lay-off targets and joker swaps against a table.
//!
//! The hand is a multiset of card kinds held in two bit planes (kinds held at
//! least once, kinds held twice) and a joker count. Every meld the hand could
//! form is listed once, filed under its lowest natural card. The search then
//! takes the lowest card left and either leaves it out of every meld or lays
//! one of the melds filed under it; results are memoised per remaining hand,
//! so the answer is the true optimum over all partitions, never a heuristic.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::card::{Card, Suit};
use crate::error::HandError;
use crate::meld::{extend_meld, position_rank, swap_joker, validate_meld, End, Meld};
use crate::variant::Variant;

/// Largest hand the search accepts.
pub const MAX_HAND: usize = 30;

/// A multiset of cards: kinds held at least once, kinds held twice, jokers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
struct Counts {
    one: u64,
    two: u64,
    jokers: u8,
}

impl Counts {
    fn of(cards: &[Card]) -> Counts {
        let mut c = Counts::default();
        for card in cards {
            if card.is_joker() {
                c.jokers += 1;
            } else {
                let bit = 1u64 << card.index();
                if c.one & bit != 0 {
                    c.two |= bit;
                } else {
                    c.one |= bit;
                }
            }
        }
        c
    }

    #[inline]
    fn contains(self, m: &Counts) -> bool {
        m.one & !self.one == 0 && m.two & !self.two == 0 && m.jokers <= self.jokers
    }

    /// Removes one copy of each kind in `kinds` (all held).
    #[inline]
    fn remove_once(self, kinds: u64) -> Counts {
        Counts {
            one: self.one & !(kinds & !self.two),
            two: self.two & !kinds,
            jokers: self.jokers,
        }
    }

    #[inline]
    fn remove(self, m: &Counts) -> Counts {
        let mut c = self.remove_once(m.one).remove_once(m.two);
        c.jokers -= m.jokers;
        c
    }

    #[inline]
    fn key(self, flags: u8) -> u128 {
        (self.one as u128) | ((self.two as u128) << 52) | ((self.jokers as u128) << 104) | ((flags as u128) << 112)
    }
}

/// A meld the hand could form, before any other meld is taken.
#[derive(Clone, Debug)]
struct Candidate {
    uses: Counts,
    /// Meld value (toward an opening).
    value: u32,
    /// Penalty of the cards it takes out of the hand.
    weight: u32,
    pure_run: bool,
    /// The meld's cards in meld order.
    cards: Vec<Card>,
}

fn natural(pos: u8, suit: Suit) -> Card {
    Card::new(position_rank(pos), suit)
}

/// Every set and run the hand's cards can form under `v`, jokers standing
/// anywhere they are allowed (also where the hand holds the natural card).
fn candidates(hand: Counts, cards_held: &[u8; 53], v: &Variant) -> Vec<Candidate> {
    let mut out = Vec::new();
    let max_j = (v.max_jokers_per_meld as usize).min(hand.jokers as usize);
    let jp = v.penalty(&Card::JOKER);
    for rank in 1..=13u8 {
        let suits: Vec<Suit> = Suit::ALL
            .into_iter()
            .filter(|&s| cards_held[Card::new(rank, s).index()] > 0)
            .collect();
        for mask in 1u32..(1 << suits.len()) {
            let chosen: Vec<Card> = suits
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, &s)| Card::new(rank, s))
                .collect();
            if chosen.len() < 2 {
                continue;
            }
            for j in 0..=max_j {
                let len = chosen.len() + j;
                if !(3..=4).contains(&len) {
                    continue;
                }
                let per = v.set_card_value(rank);
                let mut cards = chosen.clone();
                cards.extend(std::iter::repeat_n(Card::JOKER, j));
                let weight = chosen.iter().map(|c| v.penalty(c)).sum::<u32>() + jp * j as u32;
                let uses = Counts {
                    jokers: j as u8,
                    ..Counts::of(&chosen)
                };
                out.push(Candidate {
                    uses,
                    value: per * len as u32,
                    weight,
                    pure_run: false,
                    cards,
                });
            }
        }
    }
    let top = v.top_position();
    for suit in Suit::ALL {
        let held = |pos: u8| cards_held[natural(pos, suit).index()];
        for start in 1..=top {
            let mut path = Vec::new();
            runs_from(start, start, top, suit, &held, max_j, 0, &mut path, v, jp, &mut out);
        }
    }
    out
}

/// Extends the run started at `start`, whose cards so far are `path`
/// (`Some(pos)` natural, `None` joker), by the card at `pos`.
#[allow(clippy::too_many_arguments)]
fn runs_from(
    start: u8,
    pos: u8,
    top: u8,
    suit: Suit,
    held: &dyn Fn(u8) -> u8,
    max_j: usize,
    jokers: usize,
    path: &mut Vec<Option<u8>>,
    v: &Variant,
    jp: u32,
    out: &mut Vec<Candidate>,
) {
    if pos > top {
        return;
    }
    // An ace at both ends of A..K..A uses two copies of that ace.
    let need = if pos == 14 && start == 1 && path.first() == Some(&Some(1)) {
        2
    } else {
        1
    };
    let mut choices: [Option<Option<u8>>; 2] = [None, None];
    if held(pos) >= need {
        choices[0] = Some(Some(pos));
    }
    if jokers < max_j {
        choices[1] = Some(None);
    }
    for choice in choices.into_iter().flatten() {
        path.push(choice);
        let j = jokers + usize::from(choice.is_none());
        let naturals = path.len() - j;
        if path.len() >= 3 && naturals >= 2 {
            let cards: Vec<Card> = path
                .iter()
                .enumerate()
                .map(|(i, p)| p.map_or(Card::JOKER, |_| natural(start + i as u8, suit)))
                .collect();
            let nat: Vec<Card> = cards.iter().copied().filter(|c| !c.is_joker()).collect();
            let value = (start..=pos).map(|p| v.position_value(p)).sum();
            let weight = nat.iter().map(|c| v.penalty(c)).sum::<u32>() + jp * j as u32;
            let uses = Counts {
                jokers: j as u8,
                ..Counts::of(&nat)
            };
            out.push(Candidate {
                uses,
                value,
                weight,
                pure_run: j == 0,
                cards,
            });
        }
        runs_from(start, pos + 1, top, suit, held, max_j, j, path, v, jp, out);
        path.pop();
    }
}

const NONE: i32 = i32::MIN / 2;
const NEED_PURE: u8 = 1;
const NEED_LEFTOVER: u8 = 2;
const NEED_INCLUDE: u8 = 4;

#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u128(&mut self, k: u128) {
        let x = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 ^= self.0 >> 32;
    }
}

/// What the search maximises over the melded cards.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Objective {
    /// Total meld value (best opening).
    Value,
    /// Total penalty taken out of the hand (minimum deadwood).
    Weight,
}

struct Search {
    by_lowest: Vec<Vec<Candidate>>,
    objective: Objective,
    include: Option<Card>,
    memo: HashMap<u128, i32, BuildHasherDefault<KeyHasher>>,
}

impl Search {
    fn new(hand: &[Card], v: &Variant, objective: Objective, include: Option<Card>) -> (Search, Counts) {
        let counts = Counts::of(hand);
        let mut held = [0u8; 53];
        for c in hand {
            held[c.index()] += 1;
        }
        let mut by_lowest = vec![Vec::new(); 52];
        for cand in candidates(counts, &held, v) {
            by_lowest[cand.uses.one.trailing_zeros() as usize].push(cand);
        }
        let memo = HashMap::with_capacity_and_hasher(256, BuildHasherDefault::default());
        (
            Search {
                by_lowest,
                objective,
                include,
                memo,
            },
            counts,
        )
    }

    fn score(&self, c: &Candidate) -> i32 {
        match self.objective {
            Objective::Value => c.value as i32,
            Objective::Weight => c.weight as i32,
        }
    }

    fn flags_after(&self, flags: u8, c: &Candidate) -> u8 {
        let mut f = flags;
        if c.pure_run {
            f &= !NEED_PURE;
        }
        if let Some(inc) = self.include {
            let has = if inc.is_joker() {
                c.uses.jokers > 0
            } else {
                c.uses.one & (1 << inc.index()) != 0
            };
            if has {
                f &= !NEED_INCLUDE;
            }
        }
        f
    }

    /// May the lowest card `low` be left out of every meld under `flags`?
    fn may_leave(&self, s: Counts, low: usize, flags: u8) -> bool {
        !(flags & NEED_INCLUDE != 0 && self.include.is_some_and(|c| c.index() == low) && s.two & (1 << low) == 0)
    }

    fn best(&mut self, s: Counts, flags: u8) -> i32 {
        if s.one == 0 {
            let pending_joker = flags & NEED_INCLUDE != 0;
            if flags & NEED_PURE != 0 || pending_joker || (flags & NEED_LEFTOVER != 0 && s.jokers == 0) {
                return NONE;
            }
            return 0;
        }
        let key = s.key(flags);
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        let low = s.one.trailing_zeros() as usize;
        let mut best = NONE;
        if self.may_leave(s, low, flags) {
            best = self.best(s.remove_once(1 << low), flags & !NEED_LEFTOVER);
        }
        for i in 0..self.by_lowest[low].len() {
            let c = &self.by_lowest[low][i];
            if !s.contains(&c.uses) {
                continue;
            }
            let (next, f, gain) = (s.remove(&c.uses), self.flags_after(flags, c), self.score(c));
            let r = self.best(next, f);
            if r != NONE && r + gain > best {
                best = r + gain;
            }
        }
        self.memo.insert(key, best);
        best
    }

    /// The melds of an optimal answer from `s` (after `best` has run).
    fn melds(&mut self, mut s: Counts, mut flags: u8) -> Vec<Vec<Card>> {
        let mut out = Vec::new();
        let mut target = self.best(s, flags);
        while s.one != 0 {
            let low = s.one.trailing_zeros() as usize;
            if self.may_leave(s, low, flags) {
                let next = s.remove_once(1 << low);
                if self.best(next, flags & !NEED_LEFTOVER) == target {
                    s = next;
                    flags &= !NEED_LEFTOVER;
                    continue;
                }
            }
            let mut found = false;
            for i in 0..self.by_lowest[low].len() {
                let c = self.by_lowest[low][i].clone();
                if !s.contains(&c.uses) {
                    continue;
                }
                let (next, f, gain) = (s.remove(&c.uses), self.flags_after(flags, &c), self.score(&c));
                let r = self.best(next, f);
                if r != NONE && r + gain == target {
                    out.push(c.cards);
                    s = next;
                    flags = f;
                    target = r;
                    found = true;
                    break;
                }
            }
            assert!(found, "search memo is inconsistent");
        }
        out
    }
}

/// Checks a hand for the search: not empty, not too large, possible in the deck.
pub fn check_hand(hand: &[Card], v: &Variant) -> Result<(), HandError> {
    if hand.is_empty() {
        return Err(HandError::Empty);
    }
    if hand.len() > MAX_HAND {
        return Err(HandError::TooLarge {
            len: hand.len(),
            max: MAX_HAND,
        });
    }
    v.deck().check_hand(hand)?;
    Ok(())
}

/// The best opening: disjoint melds meeting the opening rule with the highest
/// total value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub value: u32,
    pub melds: Vec<Vec<Card>>,
}

/// Disjoint melds that meet `v`'s opening rule (threshold, a pure run where
/// required, a card kept to discard where going out needs a discard) with the
/// highest total value, or `None`. With `include`, the opening must use that
/// card (a discard taken before opening).
///
/// ```
/// use ramino_core::{best_opening, Card, Variant};
/// let hand = Card::parse_list("6S 7S 8S TD TC TH 2C").unwrap();
/// let o = best_opening(&hand, &Variant::ramino51(), None).unwrap().unwrap();
/// assert_eq!(o.value, 51);
/// ```
pub fn best_opening(hand: &[Card], v: &Variant, include: Option<Card>) -> Result<Option<Opening>, HandError> {
    check_hand(hand, v)?;
    if let Some(inc) = include {
        if !hand.contains(&inc) {
            return Err(HandError::NotInHand { card: inc.to_string() });
        }
    }
    let (mut search, counts) = Search::new(hand, v, Objective::Value, include);
    let mut flags = 0;
    if v.open_requires_pure_run {
        flags |= NEED_PURE;
    }
    if v.must_discard_to_go_out {
        flags |= NEED_LEFTOVER;
    }
    if include.is_some() {
        flags |= NEED_INCLUDE;
    }
    let best = search.best(counts, flags);
    if best == NONE || best <= 0 || (best as u32) < u32::from(v.open_threshold) {
        return Ok(None);
    }
    let melds = search.melds(counts, flags);
    Ok(Some(Opening {
        value: best as u32,
        melds,
    }))
}

/// The minimum deadwood: disjoint melds leaving the least penalty in hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadwood {
    /// Penalty of the cards left over.
    pub value: u32,
    pub melds: Vec<Vec<Card>>,
    /// The cards left over, in hand order.
    pub deadwood: Vec<Card>,
}

/// Disjoint melds that minimise the penalty of the cards left over.
///
/// ```
/// use ramino_core::{min_deadwood, Card, Variant};
/// let hand = Card::parse_list("AS 2S 3S KD").unwrap();
/// assert_eq!(min_deadwood(&hand, &Variant::rummy()).unwrap().value, 10);
/// ```
pub fn min_deadwood(hand: &[Card], v: &Variant) -> Result<Deadwood, HandError> {
    check_hand(hand, v)?;
    let (mut search, counts) = Search::new(hand, v, Objective::Weight, None);
    let taken = search.best(counts, 0);
    let melds = search.melds(counts, 0);
    let mut left = hand.to_vec();
    for card in melds.iter().flatten() {
        let i = left
            .iter()
            .position(|c| c == card)
            .expect("melded card comes from the hand");
        left.remove(i);
    }
    let value = v.hand_penalty(hand) - taken as u32;
    debug_assert_eq!(value, v.hand_penalty(&left));
    Ok(Deadwood {
        value,
        melds,
        deadwood: left,
    })
}

/// Where a hand card can be laid off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayOff {
    pub card: Card,
    /// Index of the table meld.
    pub meld: usize,
    pub end: End,
    /// The meld after the lay-off.
    pub result: Meld,
}

/// A hand card that can take the place of a table joker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JokerSwap {
    pub card: Card,
    pub meld: usize,
    /// Index of the joker in the meld's card list.
    pub joker_index: usize,
    pub result: Meld,
}

/// Validates every table meld.
pub fn check_table(table: &[Vec<Card>], v: &Variant) -> Result<Vec<Meld>, HandError> {
    table
        .iter()
        .enumerate()
        .map(|(index, m)| validate_meld(m, v).map_err(|error| HandError::BadTableMeld { index, error }))
        .collect()
}

fn distinct(hand: &[Card]) -> Vec<Card> {
    let mut d: Vec<Card> = hand.to_vec();
    d.sort();
    d.dedup();
    d
}

/// For each distinct card of the hand, the table melds that accept it and where.
pub fn layoff_targets(hand: &[Card], table: &[Vec<Card>], v: &Variant) -> Result<Vec<LayOff>, HandError> {
    if hand.len() > MAX_HAND {
        return Err(HandError::TooLarge {
            len: hand.len(),
            max: MAX_HAND,
        });
    }
    let melds = check_table(table, v)?;
    let mut out = Vec::new();
    for card in distinct(hand) {
        for (i, m) in melds.iter().enumerate() {
            let ends: &[End] = if m.kind == crate::MeldKind::Run {
                &[End::Start, End::End]
            } else {
                &[End::End]
            };
            for &end in ends {
                if let Ok(result) = extend_meld(m, card, end, v) {
                    out.push(LayOff {
                        card,
                        meld: i,
                        end,
                        result,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// For each distinct card of the hand, the table jokers it can replace.
pub fn joker_swaps(hand: &[Card], table: &[Vec<Card>], v: &Variant) -> Result<Vec<JokerSwap>, HandError> {
    if hand.len() > MAX_HAND {
        return Err(HandError::TooLarge {
            len: hand.len(),
            max: MAX_HAND,
        });
    }
    let melds = check_table(table, v)?;
    let mut out = Vec::new();
    for card in distinct(hand).into_iter().filter(|c| !c.is_joker()) {
        for (i, m) in melds.iter().enumerate() {
            for role in &m.jokers {
                if let Some(result) = swap_joker(m, role.index, card) {
                    out.push(JokerSwap {
                        card,
                        meld: i,
                        joker_index: role.index,
                        result,
                    });
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(t: &str) -> Vec<Card> {
        Card::parse_list(t).unwrap()
    }

    #[test]
    fn opening_of_the_rules_example() {
        let o = best_opening(&hand("6S 7S 8S TD TC TH 2C"), &Variant::ramino51(), None)
            .unwrap()
            .unwrap();
        assert_eq!(o.value, 51);
        assert_eq!(o.melds.len(), 2);
    }

    #[test]
    fn opening_keeps_a_card_to_discard() {
        // All nine cards meld for 51, but one must be kept to discard.
        let v = Variant::ramino51();
        assert!(best_opening(&hand("6S 7S 8S TD TC TH"), &v, None).unwrap().is_none());
    }

    #[test]
    fn rami51_opening_needs_a_pure_run() {
        let v = Variant::rami51();
        assert!(best_opening(&hand("KS KH KD KC QS QH QD 2C"), &v, None)
            .unwrap()
            .is_none());
        assert!(best_opening(&hand("KS KH KD QS QH QD 2C 3C 4C 9H"), &v, None)
            .unwrap()
            .is_some());
    }

    #[test]
    fn include_forces_the_card_into_the_opening() {
        let v = Variant::ramino51();
        let h = hand("KS KH KD QS QH QD 9C 2H");
        assert!(best_opening(&h, &v, Some("KS".parse().unwrap())).unwrap().is_some());
        assert!(best_opening(&h, &v, Some("2H".parse().unwrap())).unwrap().is_none());
    }

    #[test]
    fn deadwood_prefers_high_cards_in_melds() {
        let d = min_deadwood(&hand("7S 8S 9S 9H 9D"), &Variant::rummy()).unwrap();
        assert_eq!(d.value, 15);
    }

    #[test]
    fn bad_hands_are_refused() {
        let v = Variant::rummy();
        assert_eq!(min_deadwood(&[], &v).unwrap_err(), HandError::Empty);
        assert!(matches!(
            min_deadwood(&hand("AS AS 2S"), &v).unwrap_err(),
            HandError::Card(_)
        ));
        let big = vec![Card::new(2, Suit::Spades); 31];
        assert!(matches!(
            min_deadwood(&big, &Variant::ramino51()).unwrap_err(),
            HandError::TooLarge { .. }
        ));
    }

    #[test]
    fn layoffs_and_swaps() {
        let v = Variant::ramino51();
        let table = vec![hand("5H 6H JK"), hand("9S 9D 9C")];
        let l = layoff_targets(&hand("4H 8H 9H JK"), &table, &v).unwrap();
        let names: Vec<String> = l.iter().map(|x| format!("{}@{}{:?}", x.card, x.meld, x.end)).collect();
        assert_eq!(names, ["4H@0Start", "8H@0End", "9H@1End", "JK@1End"]);
        let s = joker_swaps(&hand("7H 7S"), &table, &v).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].card.to_string(), "7H");
    }
}
