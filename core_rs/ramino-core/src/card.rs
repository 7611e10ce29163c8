//! Cards, their text notation, and decks of physical cards with stable ids.
//!
//! A [`Card`] is a card *kind* (the ace of spades, a joker); with two packs the
//! same kind exists twice, so inside a game each physical card also has an id
//! (its position in [`Deck::cards`]).

use std::fmt;
use std::str::FromStr;

use crate::error::CardError;

/// The four suits, in the order used for card indices and printing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Spades = 0,
    Hearts = 1,
    Diamonds = 2,
    Clubs = 3,
}

impl Suit {
    /// All suits in index order.
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// The suit's letter in card notation.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
            Suit::Diamonds => 'D',
            Suit::Clubs => 'C',
        }
    }

    /// The suit with index `i` (0..4).
    #[must_use]
    pub const fn from_index(i: u8) -> Suit {
        Suit::ALL[(i & 3) as usize]
    }

    fn parse(c: char) -> Option<Suit> {
        match c {
            'S' | 's' | '♠' | '♤' => Some(Suit::Spades),
            'H' | 'h' | '♥' | '♡' => Some(Suit::Hearts),
            'D' | 'd' | '♦' | '♢' => Some(Suit::Diamonds),
            'C' | 'c' | '♣' | '♧' => Some(Suit::Clubs),
            _ => None,
        }
    }
}

/// Rank letters in notation order, index 0 is the ace.
const RANK_LETTERS: [char; 13] = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];

/// One card kind: a natural card (rank 1..=13, ace = 1) of a suit, or a joker.
///
/// Stored as one byte: `suit * 13 + rank - 1` for naturals, 52 for the joker,
/// which is also the card's index in per-kind count tables.
///
/// ```
/// use ramino_core::Card;
/// let c: Card = "10h".parse().unwrap();
/// assert_eq!(c.to_string(), "TH");
/// assert_eq!(c.rank(), Some(10));
/// assert!("JK".parse::<Card>().unwrap().is_joker());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The joker.
    pub const JOKER: Card = Card(52);
    /// Number of natural card kinds.
    pub const NATURALS: usize = 52;

    /// A natural card; `rank` is 1 (ace) to 13 (king).
    #[must_use]
    pub const fn new(rank: u8, suit: Suit) -> Card {
        assert!(rank >= 1 && rank <= 13);
        Card(suit as u8 * 13 + rank - 1)
    }

    /// The card with kind index `i` (0..=52).
    #[must_use]
    pub const fn from_index(i: u8) -> Card {
        assert!(i <= 52);
        Card(i)
    }

    /// Kind index: 0..52 for naturals (suit-major), 52 for the joker.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[must_use]
    pub const fn is_joker(self) -> bool {
        self.0 == 52
    }

    /// Rank 1..=13 (ace = 1), `None` for the joker.
    #[must_use]
    pub const fn rank(self) -> Option<u8> {
        if self.is_joker() {
            None
        } else {
            Some(self.0 % 13 + 1)
        }
    }

    /// Suit, `None` for the joker.
    #[must_use]
    pub const fn suit(self) -> Option<Suit> {
        if self.is_joker() {
            None
        } else {
            Some(Suit::from_index(self.0 / 13))
        }
    }

    /// Parses a whitespace- or comma-separated list of cards.
    pub fn parse_list(text: &str) -> Result<Vec<Card>, CardError> {
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(str::parse)
            .collect()
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.rank(), self.suit()) {
            (Some(r), Some(s)) => write!(f, "{}{}", RANK_LETTERS[(r - 1) as usize], s.letter()),
            _ => f.write_str("JK"),
        }
    }
}

impl FromStr for Card {
    type Err = CardError;

    fn from_str(token: &str) -> Result<Card, CardError> {
        let bad = |why: &'static str| CardError::BadToken {
            token: excerpt(token),
            why,
        };
        let t = token.trim();
        if t.is_empty() {
            return Err(bad("empty token"));
        }
        if t.eq_ignore_ascii_case("JK") || t.eq_ignore_ascii_case("JOKER") {
            return Ok(Card::JOKER);
        }
        let chars: Vec<char> = t.chars().collect();
        let (rank_part, suit_char) = match chars.split_last() {
            Some((s, r)) if !r.is_empty() => (r, *s),
            _ => return Err(bad("a card is a rank followed by a suit")),
        };
        let suit = Suit::parse(suit_char).ok_or_else(|| bad("unknown suit (use S H D C)"))?;
        let rank = match rank_part {
            ['1', '0'] => 10,
            [c] => match c.to_ascii_uppercase() {
                'A' => 1,
                d @ '2'..='9' => d as u8 - b'0',
                'T' => 10,
                'J' => 11,
                'Q' => 12,
                'K' => 13,
                _ => return Err(bad("unknown rank (use A 2-9 T J Q K)")),
            },
            _ => return Err(bad("unknown rank (use A 2-9 T J Q K)")),
        };
        Ok(Card::new(rank, suit))
    }
}

/// Longest part of a bad token that an error quotes: the token comes from a
/// client, and an error echoing a 16 kB token would exceed the metadata
/// limits of the client that reads it.
pub const TOKEN_EXCERPT: usize = 16;

/// `token`, or its first [`TOKEN_EXCERPT`] characters and an ellipsis.
fn excerpt(token: &str) -> String {
    match token.char_indices().nth(TOKEN_EXCERPT) {
        None => token.to_string(),
        Some((end, _)) => format!("{}...", &token[..end]),
    }
}

/// The physical cards of a game: `packs` 52-card packs plus `jokers` jokers.
///
/// ```
/// use ramino_core::Deck;
/// let d = Deck::new(2, 4).unwrap();
/// assert_eq!(d.len(), 108);
/// assert_eq!(d.card(0).to_string(), "AS");
/// assert_eq!(d.card(107).to_string(), "JK");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deck {
    packs: u8,
    jokers: u8,
}

impl Deck {
    /// A deck of one or two packs with 0 to 4 jokers.
    pub fn new(packs: u8, jokers: u8) -> Result<Deck, CardError> {
        if !(1..=2).contains(&packs) || jokers > 4 {
            return Err(CardError::BadDeck { packs, jokers });
        }
        Ok(Deck { packs, jokers })
    }

    #[must_use]
    pub const fn packs(self) -> u8 {
        self.packs
    }

    #[must_use]
    pub const fn jokers(self) -> u8 {
        self.jokers
    }

    /// Number of physical cards.
    #[must_use]
    pub const fn len(self) -> usize {
        self.packs as usize * 52 + self.jokers as usize
    }

    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// How many physical copies of `card` the deck holds.
    #[must_use]
    pub const fn copies(self, card: Card) -> u8 {
        if card.is_joker() {
            self.jokers
        } else {
            self.packs
        }
    }

    /// The card with physical id `id`: pack by pack, suit-major, ace to king,
    /// then the jokers. Panics when `id >= len()`.
    #[must_use]
    pub fn card(self, id: usize) -> Card {
        assert!(id < self.len(), "card id {id} out of range");
        if id >= self.packs as usize * 52 {
            Card::JOKER
        } else {
            Card::from_index((id % 52) as u8)
        }
    }

    /// All physical cards in id order.
    #[must_use]
    pub fn cards(self) -> Vec<Card> {
        (0..self.len()).map(|id| self.card(id)).collect()
    }

    /// Checks that `cards` could all come from this deck (no kind more often
    /// than the deck holds it).
    pub fn check_hand(self, cards: &[Card]) -> Result<(), CardError> {
        let mut counts = [0u8; 53];
        for &c in cards {
            counts[c.index()] += 1;
            if counts[c.index()] > self.copies(c) {
                return Err(CardError::TooManyCopies {
                    card: c.to_string(),
                    copies: self.copies(c),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_token_is_quoted_by_a_short_prefix_only() {
        let long = "X".repeat(16_000);
        let err = long.parse::<Card>().unwrap_err();
        assert_eq!(
            err,
            CardError::BadToken {
                token: format!("{}...", "X".repeat(TOKEN_EXCERPT)),
                why: "unknown suit (use S H D C)",
            }
        );
        assert!(err.to_string().len() < 80);
        let short = "ZZ".parse::<Card>().unwrap_err();
        assert!(matches!(short, CardError::BadToken { token, .. } if token == "ZZ"));
        // A multi-byte character is never cut in half.
        let wide = "\u{e9}".repeat(40).parse::<Card>().unwrap_err();
        assert!(matches!(wide, CardError::BadToken { token, .. } if token.chars().count() == 19));
    }

    #[test]
    fn every_card_round_trips_through_notation() {
        for i in 0..=52u8 {
            let c = Card::from_index(i);
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
    }

    #[test]
    fn notation_accepts_ten_symbols_and_any_case() {
        assert_eq!("10♥".parse::<Card>().unwrap().to_string(), "TH");
        assert_eq!("qd".parse::<Card>().unwrap().to_string(), "QD");
        assert_eq!("jk".parse::<Card>().unwrap(), Card::JOKER);
        assert_eq!("A♣".parse::<Card>().unwrap().to_string(), "AC");
    }

    #[test]
    fn bad_tokens_are_named() {
        for t in ["1H", "ZZ", "11S", "A", "AX", "10", "♥"] {
            let e = t.parse::<Card>().unwrap_err();
            assert!(e.to_string().contains(t), "{e}");
        }
    }

    #[test]
    fn deck_ids_are_stable() {
        let d = Deck::new(2, 4).unwrap();
        assert_eq!(d.card(52).to_string(), "AS");
        assert_eq!(d.card(51).to_string(), "KC");
        assert_eq!(d.cards().iter().filter(|c| c.is_joker()).count(), 4);
        assert!(Deck::new(3, 0).is_err());
    }

    #[test]
    fn check_hand_rejects_extra_copies() {
        let d = Deck::new(1, 0).unwrap();
        let h = Card::parse_list("AS AS").unwrap();
        assert!(d.check_hand(&h).is_err());
        assert!(d.check_hand(&Card::parse_list("JK").unwrap()).is_err());
    }
}
