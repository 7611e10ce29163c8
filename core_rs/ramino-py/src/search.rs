//! The exact searches of a hand: its best opening, its minimum deadwood,
//! its penalty, and both searches over many hands at once; each runs
//! without the GIL, but for a small hand (see [`GIL_HELD_MAX`]).

use pyo3::marker::Ungil;
use pyo3::prelude::*;

use ramino_core as core;
use ramino_core::Card;

use crate::cards::{cards_arg, hand_arg, single_card, strings};
use crate::errors::{CoreError, CoreResult};
use crate::variants::variant_or_default;

/// The best opening of a hand.
#[pyclass(name = "Opening", module = "ramino", frozen)]
#[derive(Clone)]
struct PyOpening {
    #[pyo3(get)]
    value: u32,
    cards: Vec<Vec<Card>>,
}

#[pymethods]
impl PyOpening {
    /// The melds, each a list of cards in meld order.
    #[getter]
    fn melds(&self) -> Vec<Vec<String>> {
        self.cards.iter().map(|m| strings(m)).collect()
    }

    fn __repr__(&self) -> String {
        format!("Opening(value={}, melds={:?})", self.value, self.melds())
    }
}

/// The minimum deadwood of a hand.
#[pyclass(name = "Deadwood", module = "ramino", frozen)]
#[derive(Clone)]
pub(crate) struct PyDeadwood {
    /// Penalty of the cards left over.
    #[pyo3(get)]
    value: u32,
    cards: Vec<Vec<Card>>,
    left: Vec<Card>,
}

#[pymethods]
impl PyDeadwood {
    /// The melds, each a list of cards in meld order.
    #[getter]
    fn melds(&self) -> Vec<Vec<String>> {
        self.cards.iter().map(|m| strings(m)).collect()
    }

    /// The cards left over, in hand order.
    #[getter]
    fn deadwood(&self) -> Vec<String> {
        strings(&self.left)
    }

    fn __repr__(&self) -> String {
        format!(
            "Deadwood(value={}, melds={:?}, deadwood={:?})",
            self.value,
            self.melds(),
            self.deadwood()
        )
    }
}

impl PyDeadwood {
    /// The kernel's value again (a policy given the deadwood the caller
    /// already has).
    pub(crate) fn to_core(&self) -> core::Deadwood {
        core::Deadwood {
            value: self.value,
            melds: self.cards.clone(),
            deadwood: self.left.clone(),
        }
    }
}

/// Best opening and minimum deadwood of one hand (from `analyze_many`).
#[pyclass(name = "Analysis", module = "ramino", frozen, get_all)]
#[derive(Clone)]
struct PyAnalysis {
    opening: Option<PyOpening>,
    deadwood: PyDeadwood,
}

fn opening_py(o: core::Opening) -> PyOpening {
    PyOpening {
        value: o.value,
        cards: o.melds,
    }
}

pub(crate) fn deadwood_py(d: core::Deadwood) -> PyDeadwood {
    PyDeadwood {
        value: d.value,
        cards: d.melds,
        left: d.deadwood,
    }
}

/// The largest hand searched with the GIL held. Releasing the GIL and taking
/// it back costs 0.04 to 0.1 us a call (November's binding beside the same
/// with `allow_threads`, timed in turn), up to a third of a 10-card search
/// (0.24 us): the whole drift of gin's `min_deadwood` since November. A
/// search that short leaves other threads nothing worth the switch; the
/// slowest of either search on hands up to 11 cards took 8 us (random and
/// dense ramino51 hands with 2 to 4 jokers, 8 to 20 cards, the slowest
/// re-timed), 12 cards 17 us and 15 cards 60 us: from 12 cards on, and for
/// any large hand a client sends, the search runs without the GIL.
pub(crate) const GIL_HELD_MAX: usize = 11;

/// `search()`, for a hand of `len` cards: with the GIL held for a small
/// hand, else without it, so that other Python threads (the service's event
/// loop among them) go on while it works.
fn search_hand<T: Ungil>(py: Python<'_>, len: usize, search: impl Ungil + FnOnce() -> T) -> T {
    if len <= GIL_HELD_MAX {
        search()
    } else {
        py.allow_threads(search)
    }
}

/// Disjoint melds meeting the opening rule with the highest total value, or
/// None. With `include`, the opening must use that card.
#[pyfunction]
#[pyo3(signature = (hand, variant = None, *, include = None))]
fn best_opening(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    variant: Option<&Bound<'_, PyAny>>,
    include: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<PyOpening>> {
    let v = variant_or_default(variant)?;
    let hand = hand_arg(hand)?;
    let include = include.map(single_card).transpose()?;
    let o = search_hand(py, hand.len(), || core::best_opening(&hand, &v, include)).map_err(CoreError::from)?;
    Ok(o.map(opening_py))
}

/// Disjoint melds that minimise the penalty of the cards left over.
#[pyfunction]
#[pyo3(signature = (hand, variant = None))]
fn min_deadwood(py: Python<'_>, hand: &Bound<'_, PyAny>, variant: Option<&Bound<'_, PyAny>>) -> PyResult<PyDeadwood> {
    let v = variant_or_default(variant)?;
    let hand = hand_arg(hand)?;
    let d = search_hand(py, hand.len(), || core::min_deadwood(&hand, &v)).map_err(CoreError::from)?;
    Ok(deadwood_py(d))
}

/// Penalty of the cards left in a hand.
#[pyfunction]
#[pyo3(signature = (hand, variant = None))]
fn penalty(hand: &Bound<'_, PyAny>, variant: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
    let v = variant_or_default(variant)?;
    let hand = hand_arg(hand)?;
    if hand.len() > core::MAX_HAND {
        return Err(CoreError::Hand(core::HandError::TooLarge {
            len: hand.len(),
            max: core::MAX_HAND,
        })
        .into());
    }
    Ok(v.hand_penalty(&hand))
}

/// Best opening and minimum deadwood of many hands at once, without the GIL.
#[pyfunction]
#[pyo3(signature = (hands, variant = None))]
fn analyze_many(
    py: Python<'_>,
    hands: &Bound<'_, PyAny>,
    variant: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyAnalysis>> {
    let v = variant_or_default(variant)?;
    let mut parsed = Vec::new();
    for h in hands.try_iter()? {
        parsed.push(cards_arg(&h?)?);
    }
    let results = py.allow_threads(|| {
        parsed
            .iter()
            .enumerate()
            .map(|(i, hand)| {
                let wrap = |e: core::HandError| CoreError::Batch(i, Box::new(CoreError::from(e)));
                let o = core::best_opening(hand, &v, None).map_err(wrap)?;
                let d = core::min_deadwood(hand, &v).map_err(wrap)?;
                Ok((o, d))
            })
            .collect::<CoreResult<Vec<_>>>()
    })?;
    Ok(results
        .into_iter()
        .map(|(o, d)| PyAnalysis {
            opening: o.map(opening_py),
            deadwood: deadwood_py(d),
        })
        .collect())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyOpening>()?;
    m.add_class::<PyDeadwood>()?;
    m.add_class::<PyAnalysis>()?;
    m.add_function(wrap_pyfunction!(best_opening, m)?)?;
    m.add_function(wrap_pyfunction!(min_deadwood, m)?)?;
    m.add_function(wrap_pyfunction!(penalty, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_many, m)?)?;
    m.add("MAX_HAND", core::MAX_HAND)?;
    Ok(())
}
