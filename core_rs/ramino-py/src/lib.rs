//! `ramino._core`: a thin PyO3 layer over `ramino-core`, one binding module
//! per concern (as the `tokenizers` Python bindings do): [`cards`],
//! [`variants`], [`melds`], [`search`], [`deck`], [`playout`], [`game`] (the
//! game kernel), each converting arguments, calling the kernel and
//! converting results, and [`errors`], which maps every kernel error to its
//! Python class in one place. This file only registers them.

use pyo3::prelude::*;

mod cards;
mod deck;
mod errors;
mod game;
mod melds;
mod playout;
mod search;
mod variants;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    cards::register(m)?;
    variants::register(m)?;
    melds::register(m)?;
    search::register(m)?;
    deck::register(m)?;
    game::register(m)?;
    m.add_function(wrap_pyfunction!(playout::evaluate_actions, m)?)?;
    Ok(())
}
