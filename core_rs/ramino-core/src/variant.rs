//! Variant parameters as data. A variant is a named preset of [`Variant`];
//! nothing in the kernel (or the engine above it) branches on a preset's name,
//! only on the parameters, and any parameter can be overridden by name.

use crate::card::{Card, Deck};
use crate::error::VariantError;

/// Who scores what at the end of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// Lower is better: the players left with cards score their penalty.
    Penalty,
    /// Higher is better: the winner collects the penalty of every other hand.
    WinnerCollects,
}

/// What happens when a player must draw and the stock is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StockExhausted {
    /// All of the discard pile but its top card is shuffled into a new stock.
    Reshuffle,
    /// The discard pile is turned over, unshuffled, as the new stock.
    TurnOver,
}

/// A parameter value given as an override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Str(String),
    IntList(Vec<i64>),
}

/// Every rule that differs between variants (RULES.md section 4).
///
/// ```
/// use ramino_core::{Variant, ParamValue};
/// let v = Variant::preset("rummy").unwrap()
///     .with_override("ace_high", ParamValue::Bool(true)).unwrap();
/// assert!(v.ace_high);
/// assert_eq!(v.penalty(&"AS".parse().unwrap()), 15);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The preset this variant started from (informative only).
    pub name: &'static str,
    pub min_players: u8,
    pub max_players: u8,
    /// 52-card packs in the deck (1 or 2).
    pub packs: u8,
    /// Jokers in the deck (0 to 4).
    pub jokers: u8,
    /// Cards dealt to each player, by player count 2, 3, 4, 5, 6.
    pub hand_sizes: [u8; 5],
    /// Extra cards dealt to the first player (ramino51: 1, for 15 against 14).
    pub first_player_extra_cards: u8,
    /// Whether the first player's first turn starts with a draw.
    pub first_turn_draws: bool,
    /// Whether the card after the deal is turned up to start the discard pile.
    pub upcard: bool,
    /// Whether Q-K-A (and A-2-..-K-A) runs are allowed.
    pub ace_high: bool,
    pub max_jokers_per_meld: u8,
    /// Meld value of an ace low in a run (A-2-3) where `ace_high` is off.
    pub ace_low_value: u8,
    /// Meld value of an ace low in a run (A-2-3) where `ace_high` is on
    /// (rummy counts every ace 15 then).
    pub ace_low_value_with_ace_high: u8,
    /// Meld value of an ace high in a run (Q-K-A) or in a set.
    pub ace_high_value: u8,
    /// Penalty of an ace left in hand when `ace_high` is off.
    pub ace_penalty: u8,
    /// Penalty of an ace left in hand when `ace_high` is on.
    pub ace_high_penalty: u8,
    /// Penalty of a joker left in hand.
    pub joker_penalty: u16,
    /// Meld value the first melds of a player must reach (0: no opening rule).
    pub open_threshold: u16,
    /// Whether the opening must hold a run of 3 or more cards without a joker.
    pub open_requires_pure_run: bool,
    /// Whether a player may lay off in the turn they open.
    pub layoff_on_opening_turn: bool,
    /// Whether taking the discard before opening (after the first turn)
    /// obliges the player to open with that card in the same turn.
    pub discard_take_requires_open: bool,
    /// Whether an opened player may swap a natural card for a table joker.
    pub joker_swap: bool,
    /// Whether going out needs a final discard (the last card is never melded).
    pub must_discard_to_go_out: bool,
    pub scoring: Scoring,
    /// Score of the player who goes out (Penalty scoring).
    pub winner_score: i32,
    /// Score of a player who goes out from an unopened hand in one turn.
    pub closed_hand_score: i32,
    /// Factor on the other players' scores when the winner closed in hand.
    pub closed_hand_multiplier: u8,
    /// Flat score of a player who never opened (0: score the hand instead).
    pub never_opened_penalty: u16,
    /// Factor on the hand's score when the winner went rummy (WinnerCollects).
    pub rummy_multiplier: u8,
    pub stock_exhausted: StockExhausted,
    /// Times the stock may be rebuilt before a round ends with no winner.
    pub max_stock_rebuilds: u8,
    /// With two players, whether the winner of a round deals the next.
    pub winner_deals: bool,
    /// A match ends when a total reaches this (0: off).
    pub target_score: u32,
    /// A match ends after this many rounds (0: no limit).
    pub max_rounds: u32,
    /// A round ends with no winner after this many turns (one seat's turn,
    /// from its draw to its discard), whatever the stock.
    pub max_turns_per_round: u16,
    /// Whether a hand ends by a knock (gin rummy) instead of going out: a
    /// player whose unmatched cards total at most `knock_card` after a discard
    /// may knock; the defender then lays off and both hands are compared.
    /// Knocking play is for two players and a deck without jokers.
    pub knocking: bool,
    /// The most unmatched points a knock may show.
    pub knock_card: u8,
    /// Bonus of a knock with no unmatched card (gin).
    pub gin_bonus: u16,
    /// Whether a player may go big gin: all 11 cards melded, no discard.
    pub big_gin: bool,
    /// Bonus of big gin.
    pub big_gin_bonus: u16,
    /// Bonus of a defender whose unmatched total is below the knocker's.
    pub undercut_bonus: u16,
    /// With knocking: a discard that leaves this many cards in the stock
    /// ends the drawing (the next player may only knock with the upcard or
    /// pass, and a pass is a draw). 0: off.
    pub wall_stock_size: u8,
    /// Added at the end of a match to the winner's total.
    pub game_bonus: u16,
    /// Added at the end of a match to each player's total per hand won.
    pub box_bonus: u16,
    /// Factor on the winner's total when the loser won no hand (1: off).
    pub shutout_multiplier: u8,
    /// Whether the same dealer deals again after a hand with no winner.
    pub same_dealer_after_draw: bool,
}

/// Parameter names accepted by [`Variant::with_override`], in a fixed order.
pub const PARAMETERS: [&str; 47] = [
    "min_players",
    "max_players",
    "packs",
    "jokers",
    "hand_sizes",
    "first_player_extra_cards",
    "first_turn_draws",
    "upcard",
    "ace_high",
    "max_jokers_per_meld",
    "ace_low_value",
    "ace_low_value_with_ace_high",
    "ace_high_value",
    "ace_penalty",
    "ace_high_penalty",
    "joker_penalty",
    "open_threshold",
    "open_requires_pure_run",
    "layoff_on_opening_turn",
    "discard_take_requires_open",
    "joker_swap",
    "must_discard_to_go_out",
    "scoring",
    "winner_score",
    "closed_hand_score",
    "closed_hand_multiplier",
    "never_opened_penalty",
    "rummy_multiplier",
    "stock_exhausted",
    "max_stock_rebuilds",
    "winner_deals",
    "target_score",
    "max_rounds",
    "max_turns_per_round",
    "knocking",
    "knock_card",
    "gin_bonus",
    "big_gin",
    "big_gin_bonus",
    "undercut_bonus",
    "wall_stock_size",
    "game_bonus",
    "box_bonus",
    "shutout_multiplier",
    "same_dealer_after_draw",
    "name",
    "deck_size",
];

/// Names of the presets.
pub const PRESETS: [&str; 4] = ["ramino51", "rami51", "rummy", "gin"];

impl Variant {
    /// Italian Ramino 51 (seed 000).
    #[must_use]
    pub fn ramino51() -> Variant {
        Variant {
            name: "ramino51",
            min_players: 2,
            max_players: 6,
            packs: 2,
            jokers: 4,
            hand_sizes: [14; 5],
            first_player_extra_cards: 1,
            first_turn_draws: false,
            upcard: false,
            ace_high: true,
            max_jokers_per_meld: 1,
            ace_low_value: 10,
            ace_low_value_with_ace_high: 10,
            ace_high_value: 10,
            ace_penalty: 10,
            ace_high_penalty: 10,
            joker_penalty: 20,
            open_threshold: 51,
            open_requires_pure_run: false,
            layoff_on_opening_turn: false,
            discard_take_requires_open: true,
            joker_swap: true,
            must_discard_to_go_out: true,
            scoring: Scoring::Penalty,
            winner_score: -40,
            closed_hand_score: -80,
            closed_hand_multiplier: 2,
            never_opened_penalty: 100,
            rummy_multiplier: 1,
            stock_exhausted: StockExhausted::Reshuffle,
            max_stock_rebuilds: 3,
            winner_deals: false,
            target_score: 0,
            max_rounds: 1,
            max_turns_per_round: 300,
            knocking: false,
            knock_card: 10,
            gin_bonus: 25,
            big_gin: false,
            big_gin_bonus: 31,
            undercut_bonus: 25,
            wall_stock_size: 0,
            game_bonus: 0,
            box_bonus: 0,
            shutout_multiplier: 1,
            same_dealer_after_draw: false,
        }
    }

    /// Rami 51, the French rummy of seed 003.
    #[must_use]
    pub fn rami51() -> Variant {
        Variant {
            name: "rami51",
            max_players: 4,
            first_player_extra_cards: 0,
            first_turn_draws: true,
            ace_low_value: 1,
            ace_low_value_with_ace_high: 1,
            ace_high_value: 11,
            ace_penalty: 11,
            ace_high_penalty: 11,
            open_requires_pure_run: true,
            layoff_on_opening_turn: true,
            discard_take_requires_open: false,
            winner_score: 0,
            closed_hand_score: 0,
            closed_hand_multiplier: 1,
            ..Variant::ramino51()
        }
    }

    /// Basic Rummy of seeds 001 and 002.
    #[must_use]
    pub fn rummy() -> Variant {
        Variant {
            name: "rummy",
            min_players: 2,
            max_players: 6,
            packs: 1,
            jokers: 0,
            hand_sizes: [10, 7, 7, 6, 6],
            first_player_extra_cards: 0,
            first_turn_draws: true,
            upcard: true,
            ace_high: false,
            max_jokers_per_meld: 0,
            ace_low_value: 1,
            ace_low_value_with_ace_high: 15,
            ace_high_value: 15,
            ace_penalty: 1,
            ace_high_penalty: 15,
            joker_penalty: 0,
            open_threshold: 0,
            open_requires_pure_run: false,
            layoff_on_opening_turn: true,
            discard_take_requires_open: false,
            joker_swap: false,
            must_discard_to_go_out: false,
            scoring: Scoring::WinnerCollects,
            winner_score: 0,
            closed_hand_score: 0,
            closed_hand_multiplier: 1,
            never_opened_penalty: 0,
            rummy_multiplier: 2,
            stock_exhausted: StockExhausted::Reshuffle,
            max_stock_rebuilds: 3,
            winner_deals: false,
            target_score: 150,
            max_rounds: 0,
            max_turns_per_round: 300,
            knocking: false,
            knock_card: 10,
            gin_bonus: 25,
            big_gin: false,
            big_gin_bonus: 31,
            undercut_bonus: 25,
            wall_stock_size: 0,
            game_bonus: 0,
            box_bonus: 0,
            shutout_multiplier: 1,
            same_dealer_after_draw: false,
        }
    }

    /// Gin Rummy (RULES.md section 4, gin): two players, ten cards, a knock
    /// at 10 or less, match to 100.
    #[must_use]
    pub fn gin() -> Variant {
        Variant {
            name: "gin",
            max_players: 2,
            hand_sizes: [10; 5],
            ace_low_value_with_ace_high: 1,
            ace_high_value: 1,
            ace_high_penalty: 1,
            must_discard_to_go_out: true,
            rummy_multiplier: 1,
            max_stock_rebuilds: 0,
            winner_deals: true,
            target_score: 100,
            knocking: true,
            wall_stock_size: 2,
            game_bonus: 100,
            box_bonus: 25,
            shutout_multiplier: 2,
            same_dealer_after_draw: true,
            ..Variant::rummy()
        }
    }

    /// A preset by name.
    pub fn preset(name: &str) -> Result<Variant, VariantError> {
        Ok(Variant::preset_ref(name)?.clone())
    }

    /// A preset by name, without copying it.
    pub fn preset_ref(name: &str) -> Result<&'static Variant, VariantError> {
        static PRESET_VARIANTS: std::sync::LazyLock<[Variant; 4]> =
            std::sync::LazyLock::new(|| [Variant::ramino51(), Variant::rami51(), Variant::rummy(), Variant::gin()]);
        PRESET_VARIANTS
            .iter()
            .find(|v| v.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| VariantError::UnknownVariant(name.to_string()))
    }

    /// The deck this variant plays with.
    #[must_use]
    pub fn deck(&self) -> Deck {
        Deck::new(self.packs, self.jokers).expect("a checked variant has a valid deck")
    }

    /// Cards dealt to each non-first player for `players` players, if allowed.
    #[must_use]
    pub fn hand_size(&self, players: u8) -> Option<u8> {
        if players < self.min_players || players > self.max_players || !(2..=6).contains(&players) {
            return None;
        }
        Some(self.hand_sizes[(players - 2) as usize])
    }

    /// Highest run position: 14 (ace above the king) where `ace_high`, else 13.
    #[must_use]
    pub const fn top_position(&self) -> u8 {
        if self.ace_high {
            14
        } else {
            13
        }
    }

    /// Meld value of the card at run position `pos` (1 = ace low .. 14 = ace
    /// high).
    #[must_use]
    pub const fn position_value(&self, pos: u8) -> u32 {
        match pos {
            1 if self.ace_high => self.ace_low_value_with_ace_high as u32,
            1 => self.ace_low_value as u32,
            14 => self.ace_high_value as u32,
            2..=9 => pos as u32,
            _ => 10,
        }
    }

    /// Meld value of one card of a set of `rank` (1..=13). An ace in a set
    /// counts as an ace high where `ace_high` is on, as an ace low otherwise.
    #[must_use]
    pub const fn set_card_value(&self, rank: u8) -> u32 {
        match rank {
            1 if self.ace_high => self.ace_high_value as u32,
            1 => self.ace_low_value as u32,
            r => self.position_value(r),
        }
    }

    /// Penalty of one card left in hand.
    #[must_use]
    pub const fn penalty(&self, card: &Card) -> u32 {
        match card.rank() {
            None => self.joker_penalty as u32,
            Some(1) => {
                if self.ace_high {
                    self.ace_high_penalty as u32
                } else {
                    self.ace_penalty as u32
                }
            }
            Some(r @ 2..=9) => r as u32,
            Some(_) => 10,
        }
    }

    /// Penalty of a whole hand.
    #[must_use]
    pub fn hand_penalty(&self, cards: &[Card]) -> u32 {
        cards.iter().map(|c| self.penalty(c)).sum()
    }

    /// The value of the parameter `name` (one of [`PARAMETERS`]).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<ParamValue> {
        use ParamValue::{Bool, Int, IntList, Str};
        Some(match name {
            "name" => Str(self.name.to_string()),
            "deck_size" => Int(self.deck().len() as i64),
            "min_players" => Int(self.min_players.into()),
            "max_players" => Int(self.max_players.into()),
            "packs" => Int(self.packs.into()),
            "jokers" => Int(self.jokers.into()),
            "hand_sizes" => IntList(self.hand_sizes.iter().map(|&h| h.into()).collect()),
            "first_player_extra_cards" => Int(self.first_player_extra_cards.into()),
            "first_turn_draws" => Bool(self.first_turn_draws),
            "upcard" => Bool(self.upcard),
            "ace_high" => Bool(self.ace_high),
            "max_jokers_per_meld" => Int(self.max_jokers_per_meld.into()),
            "ace_low_value" => Int(self.ace_low_value.into()),
            "ace_low_value_with_ace_high" => Int(self.ace_low_value_with_ace_high.into()),
            "ace_high_value" => Int(self.ace_high_value.into()),
            "ace_penalty" => Int(self.ace_penalty.into()),
            "ace_high_penalty" => Int(self.ace_high_penalty.into()),
            "joker_penalty" => Int(self.joker_penalty.into()),
            "open_threshold" => Int(self.open_threshold.into()),
            "open_requires_pure_run" => Bool(self.open_requires_pure_run),
            "layoff_on_opening_turn" => Bool(self.layoff_on_opening_turn),
            "discard_take_requires_open" => Bool(self.discard_take_requires_open),
            "joker_swap" => Bool(self.joker_swap),
            "must_discard_to_go_out" => Bool(self.must_discard_to_go_out),
            "scoring" => Str(match self.scoring {
                Scoring::Penalty => "penalty".into(),
                Scoring::WinnerCollects => "winner_collects".into(),
            }),
            "winner_score" => Int(self.winner_score.into()),
            "closed_hand_score" => Int(self.closed_hand_score.into()),
            "closed_hand_multiplier" => Int(self.closed_hand_multiplier.into()),
            "never_opened_penalty" => Int(self.never_opened_penalty.into()),
            "rummy_multiplier" => Int(self.rummy_multiplier.into()),
            "stock_exhausted" => Str(match self.stock_exhausted {
                StockExhausted::Reshuffle => "reshuffle".into(),
                StockExhausted::TurnOver => "turn_over".into(),
            }),
            "max_stock_rebuilds" => Int(self.max_stock_rebuilds.into()),
            "winner_deals" => Bool(self.winner_deals),
            "target_score" => Int(self.target_score.into()),
            "max_rounds" => Int(self.max_rounds.into()),
            "max_turns_per_round" => Int(self.max_turns_per_round.into()),
            "knocking" => Bool(self.knocking),
            "knock_card" => Int(self.knock_card.into()),
            "gin_bonus" => Int(self.gin_bonus.into()),
            "big_gin" => Bool(self.big_gin),
            "big_gin_bonus" => Int(self.big_gin_bonus.into()),
            "undercut_bonus" => Int(self.undercut_bonus.into()),
            "wall_stock_size" => Int(self.wall_stock_size.into()),
            "game_bonus" => Int(self.game_bonus.into()),
            "box_bonus" => Int(self.box_bonus.into()),
            "shutout_multiplier" => Int(self.shutout_multiplier.into()),
            "same_dealer_after_draw" => Bool(self.same_dealer_after_draw),
            _ => return None,
        })
    }

    /// This variant with one parameter replaced, checked.
    pub fn with_override(mut self, name: &str, value: ParamValue) -> Result<Variant, VariantError> {
        let bad = |why: &str| VariantError::BadValue {
            name: name.to_string(),
            why: why.to_string(),
        };
        fn int<T: TryFrom<i64>>(v: &ParamValue, bad: impl Fn(&str) -> VariantError) -> Result<T, VariantError> {
            match v {
                ParamValue::Int(i) => T::try_from(*i).map_err(|_| bad("out of range")),
                _ => Err(bad("expected an integer")),
            }
        }
        let boolean = |v: &ParamValue| match v {
            ParamValue::Bool(b) => Ok(*b),
            _ => Err(bad("expected true or false")),
        };
        match name {
            "min_players" => self.min_players = int(&value, bad)?,
            "max_players" => self.max_players = int(&value, bad)?,
            "packs" => self.packs = int(&value, bad)?,
            "jokers" => self.jokers = int(&value, bad)?,
            "hand_sizes" => match &value {
                ParamValue::IntList(l) if l.len() == 5 => {
                    for (slot, &n) in self.hand_sizes.iter_mut().zip(l) {
                        *slot = u8::try_from(n).map_err(|_| bad("out of range"))?;
                    }
                }
                _ => return Err(bad("expected 5 integers, for 2 to 6 players")),
            },
            "first_player_extra_cards" => self.first_player_extra_cards = int(&value, bad)?,
            "first_turn_draws" => self.first_turn_draws = boolean(&value)?,
            "upcard" => self.upcard = boolean(&value)?,
            "ace_high" => self.ace_high = boolean(&value)?,
            "max_jokers_per_meld" => self.max_jokers_per_meld = int(&value, bad)?,
            "ace_low_value" => self.ace_low_value = int(&value, bad)?,
            "ace_low_value_with_ace_high" => self.ace_low_value_with_ace_high = int(&value, bad)?,
            "ace_high_value" => self.ace_high_value = int(&value, bad)?,
            "ace_penalty" => self.ace_penalty = int(&value, bad)?,
            "ace_high_penalty" => self.ace_high_penalty = int(&value, bad)?,
            "joker_penalty" => self.joker_penalty = int(&value, bad)?,
            "open_threshold" => self.open_threshold = int(&value, bad)?,
            "open_requires_pure_run" => self.open_requires_pure_run = boolean(&value)?,
            "layoff_on_opening_turn" => self.layoff_on_opening_turn = boolean(&value)?,
            "discard_take_requires_open" => self.discard_take_requires_open = boolean(&value)?,
            "joker_swap" => self.joker_swap = boolean(&value)?,
            "must_discard_to_go_out" => self.must_discard_to_go_out = boolean(&value)?,
            "scoring" => {
                self.scoring = match &value {
                    ParamValue::Str(s) if s == "penalty" => Scoring::Penalty,
                    ParamValue::Str(s) if s == "winner_collects" => Scoring::WinnerCollects,
                    _ => return Err(bad("expected \"penalty\" or \"winner_collects\"")),
                }
            }
            "winner_score" => self.winner_score = int(&value, bad)?,
            "closed_hand_score" => self.closed_hand_score = int(&value, bad)?,
            "closed_hand_multiplier" => self.closed_hand_multiplier = int(&value, bad)?,
            "never_opened_penalty" => self.never_opened_penalty = int(&value, bad)?,
            "rummy_multiplier" => self.rummy_multiplier = int(&value, bad)?,
            "stock_exhausted" => {
                self.stock_exhausted = match &value {
                    ParamValue::Str(s) if s == "reshuffle" => StockExhausted::Reshuffle,
                    ParamValue::Str(s) if s == "turn_over" => StockExhausted::TurnOver,
                    _ => return Err(bad("expected \"reshuffle\" or \"turn_over\"")),
                }
            }
            "max_stock_rebuilds" => self.max_stock_rebuilds = int(&value, bad)?,
            "winner_deals" => self.winner_deals = boolean(&value)?,
            "target_score" => self.target_score = int(&value, bad)?,
            "max_rounds" => self.max_rounds = int(&value, bad)?,
            "max_turns_per_round" => self.max_turns_per_round = int(&value, bad)?,
            "knocking" => self.knocking = boolean(&value)?,
            "knock_card" => self.knock_card = int(&value, bad)?,
            "gin_bonus" => self.gin_bonus = int(&value, bad)?,
            "big_gin" => self.big_gin = boolean(&value)?,
            "big_gin_bonus" => self.big_gin_bonus = int(&value, bad)?,
            "undercut_bonus" => self.undercut_bonus = int(&value, bad)?,
            "wall_stock_size" => self.wall_stock_size = int(&value, bad)?,
            "game_bonus" => self.game_bonus = int(&value, bad)?,
            "box_bonus" => self.box_bonus = int(&value, bad)?,
            "shutout_multiplier" => self.shutout_multiplier = int(&value, bad)?,
            "same_dealer_after_draw" => self.same_dealer_after_draw = boolean(&value)?,
            "name" | "deck_size" => return Err(bad("is derived, not a parameter")),
            _ => return Err(VariantError::UnknownParameter(name.to_string())),
        }
        self.check().map_err(|why| VariantError::BadValue {
            name: name.to_string(),
            why,
        })?;
        Ok(self)
    }

    /// Checks the parameters against each other.
    fn check(&self) -> Result<(), String> {
        if !(1..=2).contains(&self.packs) {
            return Err("packs must be 1 or 2".into());
        }
        if self.jokers > 4 {
            return Err("jokers must be 0 to 4".into());
        }
        if self.min_players < 2 || self.max_players > 6 || self.min_players > self.max_players {
            return Err("players must be within 2 to 6, min no more than max".into());
        }
        if self.max_jokers_per_meld > 4 {
            return Err("max_jokers_per_meld must be 0 to 4".into());
        }
        if self.hand_sizes.iter().any(|&h| h == 0 || h > 30) {
            return Err("hand sizes must be 1 to 30".into());
        }
        if self.knocking && (self.jokers > 0 || self.max_players > 2) {
            return Err("knocking is played by two players without jokers".into());
        }
        if self.max_turns_per_round == 0 {
            return Err("max_turns_per_round must be at least 1".into());
        }
        let deck = self.packs as usize * 52 + self.jokers as usize;
        for players in self.min_players..=self.max_players {
            let h = self.hand_sizes[(players - 2) as usize] as usize;
            let dealt = h * players as usize + self.first_player_extra_cards as usize;
            if dealt + usize::from(self.upcard) + 1 > deck {
                return Err(format!(
                    "{players} players with {h} cards each need more than the deck's {deck} cards"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid() {
        for name in PRESETS {
            Variant::preset(name).unwrap().check().unwrap();
        }
        assert!(Variant::preset("gin").unwrap().knocking);
        assert!(Variant::preset("canasta").is_err());
        assert!(Variant::gin().with_override("jokers", ParamValue::Int(2)).is_err());
    }

    #[test]
    fn every_parameter_reads_back_and_overrides_round_trip() {
        let v = Variant::rami51();
        for name in PARAMETERS {
            let value = v.get(name).unwrap_or_else(|| panic!("{name}"));
            if name != "name" && name != "deck_size" {
                assert_eq!(v.clone().with_override(name, value).unwrap(), v, "{name}");
            }
        }
    }

    #[test]
    fn overrides_are_checked() {
        let v = Variant::ramino51();
        assert!(v.clone().with_override("packs", ParamValue::Int(3)).is_err());
        assert!(v.clone().with_override("ace_high", ParamValue::Int(1)).is_err());
        assert!(v.clone().with_override("nope", ParamValue::Bool(true)).is_err());
        let v = v.with_override("joker_penalty", ParamValue::Int(50)).unwrap();
        assert_eq!(v.penalty(&Card::JOKER), 50);
    }

    #[test]
    fn card_values_follow_the_tables() {
        let r51 = Variant::rami51();
        assert_eq!(r51.position_value(1), 1);
        assert_eq!(r51.position_value(14), 11);
        assert_eq!(r51.penalty(&"AS".parse().unwrap()), 11);
        let ram = Variant::ramino51();
        assert_eq!(ram.position_value(1), 10);
        assert_eq!(ram.penalty(&"KD".parse().unwrap()), 10);
        assert_eq!(ram.penalty(&"7D".parse().unwrap()), 7);
        assert_eq!(Variant::rummy().penalty(&"AS".parse().unwrap()), 1);
    }
}
