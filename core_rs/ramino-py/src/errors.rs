//! Every kernel error mapped to its Python class of `ramino.errors` in one
//! place ([`CoreError`]): each class is a `ramino.RaminoError` with the
//! kernel's stable reason.

use pyo3::prelude::*;

use ramino_core as core;

/// Every error the kernel can raise, mapped to `ramino.errors` by one match.
pub(crate) enum CoreError {
    Card(core::CardError),
    Meld(core::MeldError),
    Hand(core::HandError),
    Variant(core::VariantError),
    Seed(String),
    Playout(core::PlayoutError),
    Batch(usize, Box<CoreError>),
}

impl From<core::CardError> for CoreError {
    fn from(e: core::CardError) -> Self {
        CoreError::Card(e)
    }
}
impl From<core::MeldError> for CoreError {
    fn from(e: core::MeldError) -> Self {
        CoreError::Meld(e)
    }
}
impl From<core::HandError> for CoreError {
    fn from(e: core::HandError) -> Self {
        match e {
            core::HandError::Card(c) => CoreError::Card(c),
            other => CoreError::Hand(other),
        }
    }
}
impl From<core::VariantError> for CoreError {
    fn from(e: core::VariantError) -> Self {
        CoreError::Variant(e)
    }
}

impl CoreError {
    fn class_reason_message(&self) -> (&'static str, &'static str, String) {
        match self {
            CoreError::Card(e) => ("CardError", e.reason(), e.to_string()),
            CoreError::Meld(e) => ("InvalidMeld", e.reason(), e.to_string()),
            CoreError::Hand(e) => ("InvalidHand", e.reason(), e.to_string()),
            CoreError::Variant(e) => ("VariantError", e.reason(), e.to_string()),
            CoreError::Seed(m) => ("InvalidSeed", "BAD_SEED", m.clone()),
            CoreError::Playout(e) => ("InvalidHand", e.reason(), e.to_string()),
            CoreError::Batch(i, inner) => {
                let (class, reason, message) = inner.class_reason_message();
                (class, reason, format!("hand {i}: {message}"))
            }
        }
    }
}

impl From<CoreError> for PyErr {
    fn from(e: CoreError) -> PyErr {
        let (class, reason, message) = e.class_reason_message();
        Python::with_gil(|py| {
            let made = py
                .import("ramino.errors")
                .and_then(|m| m.getattr(class))
                .and_then(|cls| cls.call1((message.clone(), reason)));
            match made {
                Ok(exc) => PyErr::from_value(exc),
                Err(err) => err,
            }
        })
    }
}

pub(crate) type CoreResult<T> = Result<T, CoreError>;
