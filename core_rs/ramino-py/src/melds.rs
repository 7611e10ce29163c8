//! Melds: validating one, laying a card off onto one, and where a hand's
//! cards can be laid off or swapped for a table joker.

use pyo3::prelude::*;

use ramino_core as core;
use ramino_core::End;

use crate::cards::{cards_arg, single_card, strings, table_arg};
use crate::errors::{CoreError, CoreResult};
use crate::variants::variant_or_default;

/// What one joker of a meld stands for.
#[pyclass(name = "JokerRole", module = "ramino", frozen, get_all)]
#[derive(Clone)]
struct PyJokerRole {
    /// Index of the joker in the meld's card list.
    index: usize,
    /// The natural cards it stands for (one in a run, any missing suit in a set).
    stands_for: Vec<String>,
}

/// A legal meld.
#[pyclass(name = "Meld", module = "ramino", frozen, get_all)]
#[derive(Clone)]
struct PyMeld {
    /// "set" or "run".
    kind: &'static str,
    /// Meld value under the variant, jokers worth the card they stand for.
    value: u32,
    /// The cards in meld order.
    cards: Vec<String>,
    jokers: Vec<PyJokerRole>,
    /// A set of four: nothing can be added.
    closed: bool,
    /// A run with no joker.
    pure: bool,
}

impl From<&core::Meld> for PyMeld {
    fn from(m: &core::Meld) -> Self {
        PyMeld {
            kind: m.kind.as_str(),
            value: m.value,
            cards: strings(&m.cards),
            jokers: m
                .jokers
                .iter()
                .map(|j| PyJokerRole {
                    index: j.index,
                    stands_for: strings(&j.cards()),
                })
                .collect(),
            closed: m.is_closed(),
            pure: m.is_pure_run(),
        }
    }
}

#[pymethods]
impl PyMeld {
    fn __repr__(&self) -> String {
        format!(
            "Meld(kind='{}', value={}, cards={:?})",
            self.kind, self.value, self.cards
        )
    }
}

/// Where a hand card can be laid off.
#[pyclass(name = "LayOff", module = "ramino", frozen, get_all)]
#[derive(Clone)]
struct PyLayOff {
    card: String,
    /// Index of the table meld.
    meld: usize,
    /// "start" or "end" of a run; "end" for a set.
    end: &'static str,
    /// The meld's cards after the lay-off.
    result: Vec<String>,
}

#[pymethods]
impl PyLayOff {
    fn __repr__(&self) -> String {
        format!("LayOff(card='{}', meld={}, end='{}')", self.card, self.meld, self.end)
    }
}

/// A hand card that can take a table joker's place.
#[pyclass(name = "JokerSwap", module = "ramino", frozen, get_all)]
#[derive(Clone)]
struct PyJokerSwap {
    card: String,
    meld: usize,
    /// Index of the joker in the meld's card list.
    joker_index: usize,
    /// The meld's cards after the swap.
    result: Vec<String>,
}

#[pymethods]
impl PyJokerSwap {
    fn __repr__(&self) -> String {
        format!(
            "JokerSwap(card='{}', meld={}, joker_index={})",
            self.card, self.meld, self.joker_index
        )
    }
}

fn end_name(e: End) -> &'static str {
    match e {
        End::Start => "start",
        End::End => "end",
    }
}

fn end_arg(s: &str) -> CoreResult<End> {
    match s {
        "start" => Ok(End::Start),
        "end" => Ok(End::End),
        other => Err(CoreError::Variant(core::VariantError::BadValue {
            name: "end".into(),
            why: format!("expected \"start\" or \"end\", not {other:?}"),
        })),
    }
}

/// Validates an ordered list of cards as one meld.
#[pyfunction]
#[pyo3(signature = (cards, variant = None))]
fn validate_meld(cards: &Bound<'_, PyAny>, variant: Option<&Bound<'_, PyAny>>) -> PyResult<PyMeld> {
    let v = variant_or_default(variant)?;
    let cards = cards_arg(cards)?;
    let m = core::validate_meld(&cards, &v).map_err(CoreError::from)?;
    Ok(PyMeld::from(&m))
}

/// The meld after laying `card` off onto `meld` at `end` ("start" or "end").
#[pyfunction]
#[pyo3(signature = (meld, card, end = "end", variant = None))]
fn extend_meld(
    meld: &Bound<'_, PyAny>,
    card: &Bound<'_, PyAny>,
    end: &str,
    variant: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyMeld> {
    let v = variant_or_default(variant)?;
    let end = end_arg(end)?;
    let cards = cards_arg(meld)?;
    let card = single_card(card)?;
    let m = core::validate_meld(&cards, &v).map_err(CoreError::from)?;
    let e = core::extend_meld(&m, card, end, &v).map_err(CoreError::from)?;
    Ok(PyMeld::from(&e))
}

/// For each distinct hand card, the table melds that accept it and where.
#[pyfunction]
#[pyo3(signature = (hand, table, variant = None))]
fn layoff_targets(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    table: &Bound<'_, PyAny>,
    variant: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyLayOff>> {
    let v = variant_or_default(variant)?;
    let (hand, table) = (cards_arg(hand)?, table_arg(table)?);
    let l = py
        .allow_threads(|| core::layoff_targets(&hand, &table, &v))
        .map_err(CoreError::from)?;
    Ok(l.into_iter()
        .map(|x| PyLayOff {
            card: x.card.to_string(),
            meld: x.meld,
            end: end_name(x.end),
            result: strings(&x.result.cards),
        })
        .collect())
}

/// For each distinct hand card, the table jokers it can replace.
#[pyfunction]
#[pyo3(signature = (hand, table, variant = None))]
fn joker_swaps(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    table: &Bound<'_, PyAny>,
    variant: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyJokerSwap>> {
    let v = variant_or_default(variant)?;
    let (hand, table) = (cards_arg(hand)?, table_arg(table)?);
    let s = py
        .allow_threads(|| core::joker_swaps(&hand, &table, &v))
        .map_err(CoreError::from)?;
    Ok(s.into_iter()
        .map(|x| PyJokerSwap {
            card: x.card.to_string(),
            meld: x.meld,
            joker_index: x.joker_index,
            result: strings(&x.result.cards),
        })
        .collect())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMeld>()?;
    m.add_class::<PyJokerRole>()?;
    m.add_class::<PyLayOff>()?;
    m.add_class::<PyJokerSwap>()?;
    m.add_function(wrap_pyfunction!(validate_meld, m)?)?;
    m.add_function(wrap_pyfunction!(extend_meld, m)?)?;
    m.add_function(wrap_pyfunction!(layoff_targets, m)?)?;
    m.add_function(wrap_pyfunction!(joker_swaps, m)?)?;
    Ok(())
}
