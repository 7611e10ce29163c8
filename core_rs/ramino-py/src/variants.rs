//! Variants as parameters: the `Variant` class (a preset with overrides),
//! and a variant argument read from Python (a preset name or a `Variant`).

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};

use ramino_core as core;
use ramino_core::ParamValue;

use crate::cards::cards_arg;
use crate::errors::CoreError;

fn param_to_py<'py>(py: Python<'py>, v: ParamValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        ParamValue::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        ParamValue::Int(i) => i.into_pyobject(py)?.into_any(),
        ParamValue::Str(s) => PyString::new(py, &s).into_any(),
        ParamValue::IntList(l) => PyList::new(py, l)?.into_any(),
    })
}

fn param_from_py(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<ParamValue> {
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(ParamValue::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(ParamValue::Int(i));
        }
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(ParamValue::Str(s.to_str()?.to_string()));
    }
    if let Ok(l) = obj.extract::<Vec<i64>>() {
        if !obj.is_instance_of::<PyString>() {
            return Ok(ParamValue::IntList(l));
        }
    }
    Err(CoreError::Variant(core::VariantError::BadValue {
        name: name.to_string(),
        why: format!("unsupported value {}", obj.repr()?),
    })
    .into())
}

/// `v` with the keyword arguments `overrides` (parameter name to value) set.
fn with_overrides(mut v: core::Variant, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<core::Variant> {
    if let Some(kw) = overrides {
        for (k, value) in kw.iter() {
            let k: String = k.extract()?;
            let value = param_from_py(&k, &value)?;
            v = v.with_override(&k, value).map_err(CoreError::from)?;
        }
    }
    Ok(v)
}

/// The parameters of a variant: a preset with optional overrides.
#[pyclass(name = "Variant", module = "ramino", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
struct PyVariant(core::Variant);

macro_rules! variant_class {
    ($($param:ident),* $(,)?) => {
        #[pymethods]
        impl PyVariant {
            #[new]
            #[pyo3(signature = (name = "ramino51", **overrides))]
            fn new(name: &str, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let v = core::Variant::preset(name).map_err(CoreError::from)?;
                Ok(PyVariant(with_overrides(v, overrides)?))
            }

            /// This variant with some parameters replaced.
            #[pyo3(signature = (**overrides))]
            fn replace(&self, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                Ok(PyVariant(with_overrides(self.0.clone(), overrides)?))
            }

            /// Every parameter by name (plus `name` and `deck_size`).
            fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
                let d = PyDict::new(py);
                for name in core::PARAMETERS {
                    d.set_item(name, param_to_py(py, self.0.get(name).expect("listed"))?)?;
                }
                Ok(d)
            }

            /// Cards dealt to each player other than the first, for `players`
            /// players, or None when the variant does not allow that many.
            fn hand_size(&self, players: u8) -> Option<u8> {
                self.0.hand_size(players)
            }

            /// Penalty of one card left in hand.
            fn card_penalty(&self, card: &Bound<'_, PyAny>) -> PyResult<u32> {
                let cards = cards_arg(card)?;
                Ok(cards.iter().map(|c| self.0.penalty(c)).sum())
            }

            fn __repr__(&self) -> String {
                format!("Variant('{}', ...)", self.0.name)
            }

            $(
                #[getter]
                fn $param<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                    param_to_py(py, self.0.get(stringify!($param)).expect("listed"))
                }
            )*
        }
    };
}

variant_class!(
    name,
    deck_size,
    min_players,
    max_players,
    packs,
    jokers,
    hand_sizes,
    first_player_extra_cards,
    first_turn_draws,
    upcard,
    ace_high,
    max_jokers_per_meld,
    ace_low_value,
    ace_low_value_with_ace_high,
    ace_high_value,
    ace_penalty,
    ace_high_penalty,
    joker_penalty,
    open_threshold,
    open_requires_pure_run,
    layoff_on_opening_turn,
    discard_take_requires_open,
    joker_swap,
    must_discard_to_go_out,
    scoring,
    winner_score,
    closed_hand_score,
    closed_hand_multiplier,
    never_opened_penalty,
    rummy_multiplier,
    stock_exhausted,
    max_stock_rebuilds,
    winner_deals,
    target_score,
    max_rounds,
    max_turns_per_round,
    knocking,
    knock_card,
    gin_bonus,
    big_gin,
    big_gin_bonus,
    undercut_bonus,
    wall_stock_size,
    game_bonus,
    box_bonus,
    shutout_multiplier,
    same_dealer_after_draw,
);

/// A variant argument: a `Variant`'s parameters borrowed from it (it is
/// frozen), or a preset by name.
pub(crate) fn variant_arg<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, core::Variant>> {
    if let Ok(v) = obj.downcast::<PyVariant>() {
        return Ok(Cow::Borrowed(&v.get().0));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(Cow::Borrowed(
            core::Variant::preset_ref(s.to_str()?).map_err(CoreError::from)?,
        ));
    }
    Err(PyTypeError::new_err(format!(
        "expected a variant name or a Variant, not {}",
        obj.get_type().name()?
    )))
}

/// A variant argument, ramino51 when none is given.
pub(crate) fn variant_or_default<'a>(variant: Option<&'a Bound<'_, PyAny>>) -> PyResult<Cow<'a, core::Variant>> {
    match variant {
        Some(v) => variant_arg(v),
        None => Ok(Cow::Borrowed(core::Variant::preset_ref("ramino51").expect("a preset"))),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyVariant>()?;
    m.add("PRESETS", core::PRESETS.to_vec())?;
    m.add("PARAMETERS", core::PARAMETERS.to_vec())?;
    Ok(())
}
