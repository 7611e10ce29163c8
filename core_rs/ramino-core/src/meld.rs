//! Meld validation: is an ordered list of cards a set or a run under a
//! variant, what is it worth, and what does each joker stand for.
//!
//! Run positions run from 1 (ace low) to 14 (ace high); a joker in a run
//! stands for the card at its position in the list.

use crate::card::{Card, Suit};
use crate::error::MeldError;
use crate::variant::Variant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeldKind {
    Set,
    Run,
}

impl MeldKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            MeldKind::Set => "set",
            MeldKind::Run => "run",
        }
    }
}

/// What one joker of a meld stands for: a rank (1..=13) and the suits it
/// may be. A run's joker has one suit; a set's joker any missing suit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JokerRole {
    /// Index of the joker in the meld's card list.
    pub index: usize,
    /// Run position (1..=14) in a run; the rank (ace = 1) in a set.
    pub position: u8,
    pub rank: u8,
    pub suits: Vec<Suit>,
}

impl JokerRole {
    /// The natural cards that this joker stands for (one in a run).
    #[must_use]
    pub fn cards(&self) -> Vec<Card> {
        self.suits.iter().map(|&s| Card::new(self.rank, s)).collect()
    }
}

/// A legal meld.
///
/// ```
/// use ramino_core::{validate_meld, Card, Variant, MeldKind};
/// let v = Variant::ramino51();
/// let m = validate_meld(&Card::parse_list("5H 6H JK").unwrap(), &v).unwrap();
/// assert_eq!(m.kind, MeldKind::Run);
/// assert_eq!(m.value, 18);
/// assert_eq!(m.jokers[0].cards()[0].to_string(), "7H");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Meld {
    pub kind: MeldKind,
    pub cards: Vec<Card>,
    /// Meld value under the variant, jokers worth the card they stand for.
    pub value: u32,
    pub jokers: Vec<JokerRole>,
    /// First run position (runs) or the rank (sets).
    pub low: u8,
    /// Last run position (runs) or the rank (sets).
    pub high: u8,
    /// The run's suit; `None` for a set.
    pub suit: Option<Suit>,
}

impl Meld {
    /// A set of four: nothing can be added to it.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.kind == MeldKind::Set && self.cards.len() == 4
    }

    /// A run with no joker.
    #[must_use]
    pub fn is_pure_run(&self) -> bool {
        self.kind == MeldKind::Run && self.jokers.is_empty()
    }
}

/// The rank of a run position (14 is the ace).
#[must_use]
pub const fn position_rank(pos: u8) -> u8 {
    if pos == 14 {
        1
    } else {
        pos
    }
}

/// Validates an ordered list of cards as one meld under `variant`.
pub fn validate_meld(cards: &[Card], variant: &Variant) -> Result<Meld, MeldError> {
    form(cards, variant).map(|f| f.meld(cards, variant))
}

/// The kind of the meld of `cards`, or [`validate_meld`]'s error (its
/// answer, without building the meld).
pub fn validate_form(cards: &[Card], variant: &Variant) -> Result<MeldKind, MeldError> {
    form(cards, variant).map(|f| f.kind)
}

/// What validation finds of a legal meld, before anything is built: its
/// kind, its span (first and last run position, or the set's rank twice)
/// and the run's suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Form {
    kind: MeldKind,
    low: u8,
    high: u8,
    suit: Option<Suit>,
}

impl Form {
    /// The meld of `cards` (the cards this form was found of).
    fn meld(self, cards: &[Card], variant: &Variant) -> Meld {
        let (low, high) = (self.low, self.high);
        let (value, jokers) = match self.kind {
            MeldKind::Set => {
                let seen = cards.iter().filter_map(|c| c.suit()).fold(0u8, |m, s| m | 1 << s as u8);
                let missing: Vec<Suit> = Suit::ALL.into_iter().filter(|&s| seen & (1 << s as u8) == 0).collect();
                let jokers = cards
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.is_joker())
                    .map(|(index, _)| JokerRole {
                        index,
                        position: low,
                        rank: low,
                        suits: missing.clone(),
                    })
                    .collect();
                (variant.set_card_value(low) * cards.len() as u32, jokers)
            }
            MeldKind::Run => {
                let suit = self.suit.expect("a run has a suit");
                let jokers = cards
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.is_joker())
                    .map(|(index, _)| {
                        let position = low + index as u8;
                        JokerRole {
                            index,
                            position,
                            rank: position_rank(position),
                            suits: vec![suit],
                        }
                    })
                    .collect();
                ((low..=high).map(|p| variant.position_value(p)).sum(), jokers)
            }
        };
        Meld {
            kind: self.kind,
            cards: cards.to_vec(),
            value,
            jokers,
            low,
            high,
            suit: self.suit,
        }
    }
}

/// The checks of [`validate_meld`], in its order, allocating nothing.
fn form(cards: &[Card], variant: &Variant) -> Result<Form, MeldError> {
    if cards.len() < 3 {
        return Err(MeldError::TooShort);
    }
    let jokers = cards.iter().filter(|c| c.is_joker()).count();
    if jokers > variant.max_jokers_per_meld as usize {
        return Err(MeldError::TooManyJokers);
    }
    if cards.len() - jokers < 2 {
        return Err(MeldError::TooFewNaturals);
    }
    let mut naturals = cards.iter().filter_map(|c| c.rank().zip(c.suit()));
    let (rank0, suit0) = naturals.next().expect("two naturals");
    let (mut same_rank, mut same_suit) = (true, true);
    for (r, s) in naturals {
        same_rank &= r == rank0;
        same_suit &= s == suit0;
    }
    if same_rank {
        set_form(cards, rank0)
    } else if same_suit {
        run_form(cards, suit0, variant)
    } else {
        Err(MeldError::MixedSuits)
    }
}

fn set_form(cards: &[Card], rank: u8) -> Result<Form, MeldError> {
    if cards.len() > 4 {
        return Err(MeldError::SetTooLong);
    }
    let mut seen = 0u8;
    for s in cards.iter().filter_map(|c| c.suit()) {
        if seen & (1 << s as u8) != 0 {
            return Err(MeldError::DuplicateSuit);
        }
        seen |= 1 << s as u8;
    }
    Ok(Form {
        kind: MeldKind::Set,
        low: rank,
        high: rank,
        suit: None,
    })
}

fn run_form(cards: &[Card], suit: Suit, variant: &Variant) -> Result<Form, MeldError> {
    if cards.len() > 14 {
        return Err(MeldError::RunTooLong);
    }
    let (i0, r0) = cards
        .iter()
        .enumerate()
        .find_map(|(i, c)| c.rank().map(|r| (i, r)))
        .expect("a run has naturals");
    let fits = |start: i32| {
        cards.iter().enumerate().all(|(i, c)| match c.rank() {
            None => true,
            Some(r) => {
                let pos = start + i as i32;
                pos == r as i32 || (r == 1 && pos == 14)
            }
        })
    };
    // The first natural fixes where the run starts; an ace may sit low or high.
    let low_start = r0 as i32 - i0 as i32;
    let start = if fits(low_start) {
        low_start
    } else if r0 == 1 && fits(14 - i0 as i32) {
        14 - i0 as i32
    } else {
        return Err(classify_broken_run(cards));
    };
    let end = start + cards.len() as i32 - 1;
    if start < 1 || end > 14 {
        return Err(MeldError::JokerBeyondAce);
    }
    if end == 14 && !variant.ace_high {
        return Err(MeldError::AceHighNotAllowed);
    }
    Ok(Form {
        kind: MeldKind::Run,
        low: start as u8,
        high: end as u8,
        suit: Some(suit),
    })
}

/// Names what is wrong with a one-suit list whose naturals fit no run.
fn classify_broken_run(cards: &[Card]) -> MeldError {
    // Read the naturals left to right as run positions, an ace high once a
    // higher card has been seen.
    let mut prev: Option<(usize, u8)> = None;
    for (i, c) in cards.iter().enumerate() {
        let Some(r) = c.rank() else { continue };
        let Some((pi, pp)) = prev else {
            prev = Some((i, r));
            continue;
        };
        let pos = if r == 1 && pp > 1 { 14 } else { r };
        if pp == 14 {
            return MeldError::WrapAround;
        }
        if pos <= pp {
            return MeldError::OutOfOrder;
        }
        let (rank_gap, index_gap) = (pos - pp, i - pi);
        if (rank_gap as usize) > index_gap {
            return MeldError::Gap;
        }
        if (rank_gap as usize) < index_gap {
            // More jokers between two naturals than ranks between them.
            return MeldError::OutOfOrder;
        }
        prev = Some((i, pos));
    }
    MeldError::Gap
}

/// Where a card is added to a table meld.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Before the first card of a run.
    Start,
    /// After the last card of a run, or into a set.
    End,
}

/// The meld that results from laying `card` off onto `meld` at `end`.
pub fn extend_meld(meld: &Meld, card: Card, end: End, variant: &Variant) -> Result<Meld, MeldError> {
    let mut cards = Vec::with_capacity(meld.cards.len() + 1);
    if end == End::Start {
        cards.push(card);
    }
    cards.extend_from_slice(&meld.cards);
    if end == End::End {
        cards.push(card);
    }
    let extended = validate_meld(&cards, variant)?;
    if extended.kind != meld.kind {
        // A joker added to a two-natural meld cannot turn a run into a set.
        return Err(MeldError::MixedSuits);
    }
    Ok(extended)
}

/// Whether [`extend_meld`] accepts `card` at `end` of the meld of `cards`
/// whose kind is `kind` (its answer, without building the meld: the bots'
/// playouts ask it for every card and table meld).
pub fn extension_fits(
    cards: &[Card],
    kind: MeldKind,
    card: Card,
    end: End,
    variant: &Variant,
) -> Result<(), MeldError> {
    // Longer than any meld: the validation refuses it by length alone.
    const ROOM: usize = 16;
    let n = cards.len() + 1;
    let mut buffer = [card; ROOM];
    let mut long = Vec::new();
    let extended: &mut [Card] = if n <= ROOM {
        &mut buffer[..n]
    } else {
        long.resize(n, card);
        &mut long
    };
    let rest = if end == End::Start { 1..n } else { 0..n - 1 };
    extended[rest].copy_from_slice(cards);
    if form(extended, variant)?.kind != kind {
        // A joker added to a two-natural meld cannot turn a run into a set.
        return Err(MeldError::MixedSuits);
    }
    Ok(())
}

/// The meld that results from giving `card` for the joker at `joker_index`,
/// when `card` is one that joker stands for.
pub fn swap_joker(meld: &Meld, joker_index: usize, card: Card) -> Option<Meld> {
    let role = meld.jokers.iter().find(|j| j.index == joker_index)?;
    if !role.cards().contains(&card) {
        return None;
    }
    let mut m = meld.clone();
    m.cards[joker_index] = card;
    m.jokers.retain(|j| j.index != joker_index);
    for j in &mut m.jokers {
        if m.kind == MeldKind::Set {
            j.suits.retain(|&s| Some(s) != card.suit());
        }
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, variant: &Variant) -> Result<Meld, MeldError> {
        validate_meld(&Card::parse_list(text).unwrap(), variant)
    }

    #[test]
    fn rules_examples_are_legal() {
        let v = Variant::ramino51();
        assert_eq!(check("6S 7S 8S", &v).unwrap().value, 21);
        assert_eq!(check("TD TC TH", &v).unwrap().value, 30);
        assert_eq!(check("QH KH AH", &v).unwrap().value, 30);
        assert_eq!(check("JK 5H 6H", &v).unwrap().jokers[0].cards()[0].to_string(), "4H");
        let r = Variant::rami51();
        assert_eq!(check("AS 2S 3S", &r).unwrap().value, 6);
        assert_eq!(check("QS KS AS", &r).unwrap().value, 31);
        assert_eq!(check("AS AH AD", &r).unwrap().value, 33);
    }

    #[test]
    fn each_reason_is_reachable() {
        let v = Variant::ramino51();
        let rummy = Variant::rummy();
        let cases = [
            ("AS 2S", &v, MeldError::TooShort),
            ("5S 5H 5D 5C 5S", &v, MeldError::SetTooLong),
            ("JK 5H JK", &v, MeldError::TooManyJokers),
            ("5S 6H 7S", &v, MeldError::MixedSuits),
            ("5S 5H 5S", &v, MeldError::DuplicateSuit),
            ("5S 6S 8S", &v, MeldError::Gap),
            ("KS AS 2S", &v, MeldError::WrapAround),
            ("7S 6S 5S", &v, MeldError::OutOfOrder),
            ("QS KS AS", &rummy, MeldError::AceHighNotAllowed),
            ("QH KH AH JK", &v, MeldError::JokerBeyondAce),
            ("JK AH 2H", &v, MeldError::JokerBeyondAce),
        ];
        for (text, var, want) in cases {
            assert_eq!(check(text, var).unwrap_err(), want, "{text}");
        }
        let loose = v
            .clone()
            .with_override("max_jokers_per_meld", crate::ParamValue::Int(3))
            .unwrap();
        assert_eq!(check("JK 5H JK", &loose).unwrap_err(), MeldError::TooFewNaturals);
    }

    #[test]
    fn ace_at_both_ends_is_a_fourteen_card_run() {
        let v = Variant::ramino51();
        let m = check("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", &v).unwrap();
        assert_eq!((m.low, m.high), (1, 14));
    }

    #[test]
    fn extending_and_swapping() {
        let v = Variant::ramino51();
        let m = check("5H 6H JK", &v).unwrap();
        assert!(extend_meld(&m, "8H".parse().unwrap(), End::End, &v).is_ok());
        assert!(extend_meld(&m, "4H".parse().unwrap(), End::Start, &v).is_ok());
        assert!(extend_meld(&m, "JK".parse().unwrap(), End::End, &v).is_err());
        let s = swap_joker(&m, 2, "7H".parse().unwrap()).unwrap();
        assert!(s.is_pure_run());
        assert!(swap_joker(&m, 2, "7S".parse().unwrap()).is_none());
    }
}
