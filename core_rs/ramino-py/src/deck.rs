//! Decks: a variant's physical cards, and the seeded shuffle that deals
//! them.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt};

use ramino_core as core;

use crate::cards::PyCard;
use crate::errors::CoreError;
use crate::variants::variant_or_default;

/// The permutation of range(n) that `seed` (0 <= seed < 2**256) gives:
/// ChaCha20 keyed by the seed's 32 little-endian bytes, then Fisher-Yates.
#[pyfunction]
fn shuffle(seed: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<u32>> {
    if !seed.is_instance_of::<PyInt>() || seed.is_instance_of::<PyBool>() {
        return Err(CoreError::Seed(format!("a seed is an int, not {}", seed.get_type().name()?)).into());
    }
    if n > 1 << 20 {
        return Err(CoreError::Seed(format!("cannot shuffle {n} items (at most 2**20)")).into());
    }
    let bytes = seed
        .call_method1("to_bytes", (32, "little"))
        .map_err(|_| CoreError::Seed("a seed is an int from 0 to 2**256 - 1".into()))?;
    let key: [u8; 32] = bytes.extract::<Vec<u8>>()?.try_into().expect("to_bytes gave 32 bytes");
    Ok(core::shuffle(&key, n))
}

/// The seed of round `round`'s deal (`rebuild` 0) or of the `rebuild`-th
/// reshuffle of its stock, derived from a game's `seed` (0 <= seed < 2**256)
/// as `ramino_core::shuffle::round_seed` and `reshuffle_seed` say.
#[pyfunction]
#[pyo3(signature = (seed, round, rebuild = 0))]
fn derive_seed<'py>(seed: &Bound<'py, PyInt>, round: u32, rebuild: u32) -> PyResult<Bound<'py, PyAny>> {
    let game: [u8; 32] = seed
        .call_method1("to_bytes", (32, "little"))
        .and_then(|b| b.extract::<Vec<u8>>())
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| CoreError::Seed("a seed is an int from 0 to 2**256 - 1".into()))?;
    let derived = match rebuild {
        0 => core::round_seed(&game, round),
        k => core::reshuffle_seed(&game, round, k),
    };
    let py = seed.py();
    py.get_type::<PyInt>()
        .call_method1("from_bytes", (PyBytes::new(py, &derived), "little"))
}

/// The physical cards of a variant's deck, in id order.
#[pyfunction]
#[pyo3(signature = (variant = None))]
fn deck_cards(variant: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PyCard>> {
    let v = variant_or_default(variant)?;
    Ok(v.deck().cards().into_iter().map(PyCard).collect())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shuffle, m)?)?;
    m.add_function(wrap_pyfunction!(derive_seed, m)?)?;
    m.add_function(wrap_pyfunction!(deck_cards, m)?)?;
    Ok(())
}
