//! Typed errors, one enum per concern. Every variant has a stable
//! machine-readable code (`reason()`), which the bindings and the service
//! carry to clients unchanged.

use thiserror::Error;

/// A card token, a list of cards, or a deck that cannot be.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardError {
    #[error("bad card {token:?}: {why}")]
    BadToken { token: String, why: &'static str },
    #[error("the deck holds only {copies} of {card}")]
    TooManyCopies { card: String, copies: u8 },
    #[error("a deck has 1 or 2 packs and 0 to 4 jokers, not {packs} packs and {jokers} jokers")]
    BadDeck { packs: u8, jokers: u8 },
}

impl CardError {
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        match self {
            CardError::BadToken { .. } => "BAD_CARD",
            CardError::TooManyCopies { .. } => "TOO_MANY_COPIES",
            CardError::BadDeck { .. } => "BAD_DECK",
        }
    }
}

/// Why a sequence of cards is not a legal meld. An ordinary answer of the
/// validator, never a panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Error)]
pub enum MeldError {
    #[error("a meld needs at least 3 cards")]
    TooShort,
    #[error("a set holds at most 4 cards")]
    SetTooLong,
    #[error("a run holds at most 13 cards, 14 with an ace at both ends")]
    RunTooLong,
    #[error("more jokers than this variant allows in one meld")]
    TooManyJokers,
    #[error("a meld needs at least two natural cards")]
    TooFewNaturals,
    #[error("a run is of one suit and a set of one rank: these cards are neither")]
    MixedSuits,
    #[error("a set may not hold two cards of the same suit")]
    DuplicateSuit,
    #[error("the run has a gap between its cards")]
    Gap,
    #[error("a run may not wrap around from king to ace to two")]
    WrapAround,
    #[error("a run is listed in ascending order")]
    OutOfOrder,
    #[error("this variant does not allow an ace above the king")]
    AceHighNotAllowed,
    #[error("a joker cannot stand beyond the ace at the end of a run")]
    JokerBeyondAce,
}

impl MeldError {
    /// Every reason, for tables and exhaustive tests.
    pub const ALL: [MeldError; 12] = [
        MeldError::TooShort,
        MeldError::SetTooLong,
        MeldError::RunTooLong,
        MeldError::TooManyJokers,
        MeldError::TooFewNaturals,
        MeldError::MixedSuits,
        MeldError::DuplicateSuit,
        MeldError::Gap,
        MeldError::WrapAround,
        MeldError::OutOfOrder,
        MeldError::AceHighNotAllowed,
        MeldError::JokerBeyondAce,
    ];

    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            MeldError::TooShort => "TOO_SHORT",
            MeldError::SetTooLong => "SET_TOO_LONG",
            MeldError::RunTooLong => "RUN_TOO_LONG",
            MeldError::TooManyJokers => "TOO_MANY_JOKERS",
            MeldError::TooFewNaturals => "TOO_FEW_NATURALS",
            MeldError::MixedSuits => "MIXED_SUITS",
            MeldError::DuplicateSuit => "DUPLICATE_SUIT",
            MeldError::Gap => "GAP",
            MeldError::WrapAround => "WRAP_AROUND",
            MeldError::OutOfOrder => "OUT_OF_ORDER",
            MeldError::AceHighNotAllowed => "ACE_HIGH_NOT_ALLOWED",
            MeldError::JokerBeyondAce => "JOKER_BEYOND_ACE",
        }
    }
}

/// A hand (or a table) that the search functions refuse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HandError {
    #[error(transparent)]
    Card(#[from] CardError),
    #[error("the hand is empty")]
    Empty,
    #[error("a hand holds at most {max} cards, this one {len}")]
    TooLarge { len: usize, max: usize },
    #[error("table meld {index} is not a legal meld: {error}")]
    BadTableMeld { index: usize, error: MeldError },
    #[error("{card} is not in the hand")]
    NotInHand { card: String },
}

impl HandError {
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        match self {
            HandError::Card(e) => e.reason(),
            HandError::Empty => "EMPTY_HAND",
            HandError::TooLarge { .. } => "HAND_TOO_LARGE",
            HandError::BadTableMeld { .. } => "BAD_TABLE_MELD",
            HandError::NotInHand { .. } => "CARD_NOT_IN_HAND",
        }
    }
}

/// A variant name or parameter override that cannot be.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VariantError {
    #[error("unknown variant {0:?} (known: ramino51, rami51, rummy)")]
    UnknownVariant(String),
    #[error("unknown variant parameter {0:?}")]
    UnknownParameter(String),
    #[error("bad value for variant parameter {name}: {why}")]
    BadValue { name: String, why: String },
}

impl VariantError {
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        match self {
            VariantError::UnknownVariant(_) => "UNKNOWN_VARIANT",
            VariantError::UnknownParameter(_) => "UNKNOWN_PARAMETER",
            VariantError::BadValue { .. } => "BAD_PARAMETER",
        }
    }
}
