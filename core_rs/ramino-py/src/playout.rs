//! The searching bots' playouts (`ramino_core::playout`), without the GIL.

use std::time::Duration;

use pyo3::prelude::*;

use ramino_core as core;
use ramino_core::{Action, Card};

use crate::cards::cards_arg;
use crate::errors::CoreError;
use crate::variants::variant_arg;

/// Mean, playouts, wins, advantage over the first action, its standard error.
type Evaluated = (f64, u32, u32, f64, f64);

fn action_arg(text: &str) -> Result<Action, core::PlayoutError> {
    let bad = |why| core::PlayoutError::BadAction {
        action: text.to_string(),
        why,
    };
    let card = |t: &str| t.parse::<Card>().map_err(|_| bad("not a card"));
    match text.split_once(' ') {
        None => match text {
            "draw_from_stock" => Ok(Action::DrawFromStock),
            "take_discard" => Ok(Action::TakeDiscard),
            "pass_upcard" => Ok(Action::PassUpcard),
            _ => Err(bad("not an action")),
        },
        Some(("discard", c)) => Ok(Action::Discard(card(c)?)),
        Some(("knock", c)) => Ok(Action::Knock(card(c)?)),
        Some(_) => Err(bad("not an action")),
    }
}

fn per_seat<T>(name: &str, values: Vec<T>, n: usize) -> PyResult<Vec<T>> {
    if values.len() != n {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name} has {} entries for {n} seats",
            values.len()
        )));
    }
    Ok(values)
}

/// Mean utility, playouts, wins, advantage over the first action and its
/// standard error, of each action in order, for `seat`
/// (see `ramino_core::playout`). `actions`: "draw_from_stock",
/// "take_discard", "pass_upcard", "discard <card>", "knock <card>".
/// `iterations` bounds the deals sampled; `time_ms`, when given, bounds the
/// wall-clock time too (at least one deal is always played).
/// `margin_weight`: what a point of margin adds to a playout's utility beside
/// the win's 1 (a hundredth by default). `horizon`: turns of every seat
/// after which a playout stops and is scored by the hands then: their least
/// deadwood in a knocking variant, their distance from going out in the
/// others (`None`: at the round's end).
#[pyfunction]
#[pyo3(signature = (
    variant, *, seat, hand_sizes, known, opened, had_turn, discarded, laid_any,
    discard, table, unseen, stock_size, actions, iterations, seed,
    taken = None, rebuilds_left = 0, turns_left = 300, no_draw_seat = None, time_ms = None,
    margin_weight = 0.01, horizon = None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_actions(
    py: Python<'_>,
    variant: &Bound<'_, PyAny>,
    seat: usize,
    hand_sizes: Vec<usize>,
    known: Vec<Bound<'_, PyAny>>,
    opened: Vec<bool>,
    had_turn: Vec<bool>,
    discarded: Vec<Bound<'_, PyAny>>,
    laid_any: Vec<bool>,
    discard: &Bound<'_, PyAny>,
    table: Vec<Bound<'_, PyAny>>,
    unseen: &Bound<'_, PyAny>,
    stock_size: usize,
    actions: Vec<String>,
    iterations: u32,
    seed: u64,
    taken: Option<&Bound<'_, PyAny>>,
    rebuilds_left: u8,
    turns_left: u16,
    no_draw_seat: Option<usize>,
    time_ms: Option<f64>,
    margin_weight: f64,
    horizon: Option<u32>,
) -> PyResult<Vec<Evaluated>> {
    let v = variant_arg(variant)?;
    let n = hand_sizes.len();
    let known = per_seat("known", known, n)?;
    let discarded = per_seat("discarded", discarded, n)?;
    let opened = per_seat("opened", opened, n)?;
    let had_turn = per_seat("had_turn", had_turn, n)?;
    let laid_any = per_seat("laid_any", laid_any, n)?;
    let mut seats = Vec::with_capacity(n);
    for i in 0..n {
        seats.push(core::SeatSeen {
            hand_size: hand_sizes[i],
            known: cards_arg(&known[i])?,
            opened: opened[i],
            had_turn: had_turn[i],
            discarded: cards_arg(&discarded[i])?,
            laid_any: laid_any[i],
        });
    }
    let taken = match taken {
        Some(t) => {
            let c = cards_arg(t)?;
            if c.len() != 1 {
                return Err(pyo3::exceptions::PyValueError::new_err("taken is one card"));
            }
            Some(c[0])
        }
        None => None,
    };
    let seen = core::Seen {
        seat,
        seats,
        discard: cards_arg(discard)?,
        table: table.iter().map(cards_arg).collect::<PyResult<_>>()?,
        unseen: cards_arg(unseen)?,
        stock_size,
        taken,
        rebuilds_left,
        turns_left,
        no_draw_seat,
    };
    let actions = actions
        .iter()
        .map(|a| action_arg(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CoreError::Playout)?;
    if let Some(t) = time_ms {
        if !(t.is_finite() && t > 0.0) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "time_ms is a positive number of milliseconds, not {t}"
            )));
        }
    }
    if !(margin_weight.is_finite() && margin_weight >= 0.0) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "margin_weight is a number at least 0, not {margin_weight}"
        )));
    }
    let budget = core::Budget {
        max_iterations: iterations,
        time: time_ms.map(|t| Duration::from_secs_f64(t / 1000.0)),
        margin_weight,
        horizon,
    };
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let evals = py
        .allow_threads(|| core::evaluate(&v, &seen, &actions, &budget, key))
        .map_err(CoreError::Playout)?;
    Ok(evals
        .into_iter()
        .map(|e| (e.mean, e.playouts, e.wins, e.advantage, e.stderr))
        .collect())
}
