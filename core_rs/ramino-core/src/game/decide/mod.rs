//! A command from a seat becomes events, or a refusal (the Python engine's
//! `rules/turn.py`, `shape.py`, `draw.py`, `meld.py`, `discard.py`,
//! `gin.py`). Nothing here changes the state.
//!
//! The order of the checks is the engine's, so that every command gets the
//! same refusal: the seat, the match, a resignation, then the command's shape
//! (a malformed command is always reported as such), then the turn, then the
//! phase's rules.

mod discard;
mod draw;
mod gin;
mod meld;
mod shape;

pub use discard::undiscardable;
pub use draw::can_take_discard;
pub use gin::{knock_deadwood, wall_knock_possible};
pub use meld::joker_meld;

use super::reasons as r;
use super::types::{Command, Event, Phase, Refusal, Rules, State};
use shape::{shape, Shaped};

/// The events of `seat` issuing `command` now (the state is untouched).
///
/// # Errors
/// The refusal: `MalformedCommand` reasons for a command that cannot be
/// meant, `IllegalMove` reasons for one the rules forbid now.
pub fn decide(state: &State, rules: &Rules, seat: i64, command: &Command) -> Result<Vec<Event>, Refusal> {
    let seat = match usize::try_from(seat) {
        Ok(s) if s < state.seats.len() => s,
        _ => return Err(Refusal::malformed(r::UNKNOWN_SEAT, format!("no seat {seat}"))),
    };
    if state.phase == Phase::Over {
        return Err(Refusal::illegal(r::MATCH_OVER, "the match is over"));
    }
    if state.seats[seat].resigned {
        return Err(Refusal::illegal(r::SEAT_RESIGNED, "this seat has resigned"));
    }
    if *command == Command::Resign {
        return Ok(vec![Event::Resigned { seat }]);
    }
    let shaped = shape(command, rules)?;
    if state.turn != seat {
        return Err(Refusal::illegal(r::NOT_YOUR_TURN, "it is not your turn"));
    }
    if rules.variant.knocking {
        return gin::knocking(state, rules, seat, shaped);
    }
    match shaped {
        Shaped::PassUpcard | Shaped::Knock { .. } | Shaped::AcceptLayout => Err(Refusal::illegal(
            r::NOT_KNOCKING_PLAY,
            "this variant has no knocking (gin) play",
        )),
        Shaped::DrawFromStock | Shaped::TakeDiscard | Shaped::TurnOverDiscardPile => {
            draw::draw(state, rules, seat, &shaped)
        }
        _ if state.phase == Phase::Draw => Err(Refusal::illegal(r::MUST_DRAW_FIRST, "draw a card first")),
        Shaped::Discard(card) => discard::discard(state, rules, seat, card),
        Shaped::LayMelds(melds) => meld::lay_melds(state, rules, seat, melds),
        Shaped::LayOff { card, meld, end } => meld::lay_off(state, rules, seat, card, meld, end),
        Shaped::SwapJoker { card, meld, joker } => meld::swap(state, rules, seat, card, meld, joker),
    }
}
