//! The rules kernel of Ramino: cards and decks, variant parameters, meld
//! validation, exact meld search, scoring and the deterministic shuffle.
//!
//! Pure Rust with no I/O; the Python bindings live in the `ramino-py` crate.
//!
//! ```
//! use ramino_core::{best_opening, Card, Variant};
//! let hand = Card::parse_list("AS 2S 3S QH KH AH JK TD TC").unwrap();
//! let opening = best_opening(&hand, &Variant::ramino51(), None).unwrap().unwrap();
//! // All nine cards meld for 75, but one card must be kept to discard.
//! assert_eq!(opening.value, 60);
//! ```

pub mod card;
pub mod error;
pub mod game;
pub mod meld;
pub mod playout;
pub mod search;
pub mod selfplay;
mod sha256;
pub mod shuffle;
pub mod variant;

pub use card::{Card, Deck, Suit};
pub use error::{CardError, HandError, MeldError, VariantError};
pub use meld::{extend_meld, swap_joker, validate_meld, End, JokerRole, Meld, MeldKind};
pub use playout::{evaluate, Action, Budget, Evaluation, PlayoutError, SeatSeen, Seen, DEFAULT_MARGIN_WEIGHT};
pub use search::{
    best_opening, check_hand, joker_swaps, layoff_targets, min_deadwood, Deadwood, JokerSwap, LayOff, Opening, MAX_HAND,
};
pub use shuffle::{reshuffle_seed, round_seed, shuffle, ChaCha20};
pub use variant::{ParamValue, Scoring, StockExhausted, Variant, PARAMETERS, PRESETS};
