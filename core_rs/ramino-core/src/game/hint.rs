//! The hint on a seat's hand (the Python engine's `hint.py`).

use super::types::{Command, Hint, Rules, State};

/// The hint on `seat`'s hand, or `None` when it holds no card. `legal`: the
/// seat's legal moves now, when the caller has them.
#[must_use]
pub fn hint(state: &State, rules: &Rules, seat: usize, legal: Option<&[Command]>) -> Option<Hint> {
    let _ = (state, rules, seat, legal);
    todo!()
}
