//! The game kernel: the rules' state machine of every variant, shared by the
//! server's moves (through the `ramino-py` binding and
//! `service/ramino/engine`) and the bots' search.
//!
//! A command checked against the state becomes events ([`decide`], which
//! changes nothing); events fold into the state ([`apply_event`], the only
//! code that changes it, for live play and replay alike); the state may call
//! for more events by itself ([`follow_up`]: a reshuffle, the end of a round,
//! the next deal, the end of the match). [`Game`] ties them together.
//! [`legal_moves`] and [`hint`] answer what a seat may and should do, with the
//! policies of [`policy`] (the one discard policy, keep-one, knocks).
//!
//! One module per concern, as the phases' rules are read in one place:
//! `types` (the data), `fold` (the fold), `decide` (a command per phase),
//! `round` (the round's lifecycle and the deal), `scoring`, `moves`,
//! `hint` and `policy`.

mod decide;
mod fold;
pub mod greedy;
mod hint;
mod moves;
pub mod policy;
pub mod reasons;
mod round;
mod scoring;
mod types;

pub use decide::{can_take_discard, decide, joker_meld, knock_deadwood, undiscardable, wall_knock_possible};
pub use fold::{apply_event, at_wall, conservation_errors, meld_info, obliged_to_open};
pub use hint::hint;
pub use moves::{hand_melds, knocks, legal_moves, MAX_LAYOFF_MOVES, MAX_MELD_MOVES, MAX_SWAP_MOVES};
pub use round::{check_setup, deal, follow_up, Deal};
pub use scoring::{
    final_total_parts, final_totals, knock_score_parts, match_winners, round_score_parts, round_scores, scores_of,
};
pub use types::*;

/// The event as `viewer` (a seat, or `None` for a spectator) may see it: the
/// other hands and the stock's order hidden, a card drawn from the stock
/// hidden from everyone but the drawer.
#[must_use]
pub fn project(event: &Event, viewer: Option<usize>) -> Event {
    match event {
        Event::RoundStarted {
            round,
            dealer,
            first_player,
            hands,
            hand_sizes,
            upcard,
            stock_size,
            ..
        } => Event::RoundStarted {
            round: *round,
            dealer: *dealer,
            first_player: *first_player,
            hands: hands
                .iter()
                .enumerate()
                .map(|(s, h)| if Some(s) == viewer { h.clone() } else { None })
                .collect(),
            hand_sizes: hand_sizes.clone(),
            upcard: *upcard,
            stock_size: *stock_size,
            stock: None,
        },
        Event::DrewFromStock { seat, card } => Event::DrewFromStock {
            seat: *seat,
            card: if Some(*seat) == viewer { *card } else { None },
        },
        Event::StockReshuffled {
            rebuild,
            kept,
            stock_size,
            ..
        } => Event::StockReshuffled {
            rebuild: *rebuild,
            kept: *kept,
            stock_size: *stock_size,
            stock: None,
        },
        other => other.clone(),
    }
}

/// One match of rummy: its rules, what it was set up with, and its state
/// kept up to date event by event. Every method is deterministic.
#[derive(Clone, Debug)]
pub struct Game {
    pub rules: std::sync::Arc<Rules>,
    pub setup: Setup,
    pub state: State,
}

impl Game {
    /// A new game, its first round dealt: the game and the events of the deal.
    ///
    /// # Errors
    /// A setup the variant cannot play ([`check_setup`]).
    pub fn new(
        rules: std::sync::Arc<Rules>,
        players: &[String],
        setup: Setup,
    ) -> Result<(Game, Vec<Event>), GameError> {
        check_setup(&rules, players, &setup.decks)?;
        let mut game = Game {
            state: State::new(players),
            rules,
            setup,
        };
        let events = game.settle()?;
        Ok((game, events))
    }

    /// The game whose state was folded elsewhere (a replay, a snapshot).
    #[must_use]
    pub fn from_state(rules: std::sync::Arc<Rules>, setup: Setup, state: State) -> Game {
        Game { rules, setup, state }
    }

    /// The events of `seat` issuing `command` now; nothing changes.
    ///
    /// # Errors
    /// The refusal, with its reason.
    pub fn decide(&self, seat: i64, command: &Command) -> Result<Vec<Event>, Refusal> {
        decide(&self.state, &self.rules, seat, command)
    }

    /// Plays `command` for `seat`: the new events (the command's, then those
    /// the state called for), or the refusal with nothing changed.
    ///
    /// # Errors
    /// The refusal, with its reason.
    pub fn apply(&mut self, seat: i64, command: &Command) -> Result<Vec<Event>, Refusal> {
        let mut events = self.decide(seat, command)?;
        for e in &events {
            apply_event(&mut self.state, e, &self.rules).expect("the rules' own events fold");
        }
        events.extend(self.settle().expect("the rules' own follow-ups fold"));
        Ok(events)
    }

    /// Folds one event recorded elsewhere.
    ///
    /// # Errors
    /// The event does not fit the state (a corrupt record).
    pub fn fold(&mut self, event: &Event) -> Result<(), GameError> {
        apply_event(&mut self.state, event, &self.rules)
    }

    /// Folds the events the state calls for, one step at a time, until it
    /// calls for none: the events folded.
    ///
    /// # Errors
    /// Only for a state that no record could give.
    pub fn settle(&mut self) -> Result<Vec<Event>, GameError> {
        let mut out = Vec::new();
        loop {
            let more = follow_up(&self.state, &self.rules, &self.setup);
            if more.is_empty() {
                return Ok(out);
            }
            for e in more {
                apply_event(&mut self.state, &e, &self.rules)?;
                out.push(e);
            }
        }
    }

    /// Whose turn it is now, `None` between rounds and once the match is over.
    #[must_use]
    pub fn turn_now(&self) -> Option<usize> {
        if self.state.in_round() {
            Some(self.state.turn)
        } else {
            None
        }
    }

    #[must_use]
    pub fn legal_moves(&self, seat: usize) -> Vec<Command> {
        legal_moves(&self.state, &self.rules, seat)
    }

    #[must_use]
    pub fn hint(&self, seat: usize, legal: Option<&[Command]>) -> Option<Hint> {
        hint(&self.state, &self.rules, seat, legal)
    }
}
