//! Cards: the `Card` class, and hands and tables read from Python (a string
//! in card notation, or a sequence of strings and `Card`s).

use std::ops::Deref;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyType};
use pyo3::{ffi, Borrowed};

use ramino_core::{Card, MAX_HAND};

use crate::errors::CoreError;

/// A card kind: a natural card or the joker.
#[pyclass(name = "Card", module = "ramino", frozen, eq, hash, ord)]
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct PyCard(pub(crate) Card);

#[pymethods]
impl PyCard {
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        Ok(PyCard(text.parse::<Card>().map_err(CoreError::from)?))
    }

    /// Rank 1 (ace) to 13 (king); None for the joker.
    #[getter]
    fn rank(&self) -> Option<u8> {
        self.0.rank()
    }

    /// Suit letter S, H, D or C; None for the joker.
    #[getter]
    fn suit(&self) -> Option<char> {
        self.0.suit().map(|s| s.letter())
    }

    #[getter]
    fn is_joker(&self) -> bool {
        self.0.is_joker()
    }

    /// Kind index: 0..52 for naturals (suit-major), 52 for the joker.
    #[getter]
    fn index(&self) -> usize {
        self.0.index()
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Card('{}')", self.0)
    }
}

/// One hand or meld argument: a string in card notation or a sequence of
/// strings and Card objects.
pub(crate) fn cards_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Card>> {
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(Card::parse_list(s.to_str()?).map_err(CoreError::from)?);
    }
    // Hands come as lists on the hot paths (bots, the service): read those
    // by index, and look the Card type up once rather than once per card.
    let card_type = obj.py().get_type::<PyCard>();
    if let Ok(list) = obj.downcast::<PyList>() {
        return list_cards(list, &card_type);
    }
    let Ok(iter) = obj.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "expected cards as a string or a sequence of strings and Cards, not {}",
            obj.get_type().name()?
        )));
    };
    let mut out = Vec::new();
    for item in iter {
        out.push(card_item(&item?, &card_type)?);
    }
    Ok(out)
}

/// A hand argument of a search: a list of up to [`MAX_HAND`] cards read
/// into a buffer on the stack (a heap allocation and its free cost about
/// 0.01 us of a 10-card search's 0.6 us call), any other hand into a `Vec`.
pub(crate) enum HandArg {
    Inline { cards: [Card; MAX_HAND], len: usize },
    Heap(Vec<Card>),
}

impl Deref for HandArg {
    type Target = [Card];

    fn deref(&self) -> &[Card] {
        match self {
            HandArg::Inline { cards, len } => &cards[..*len],
            HandArg::Heap(cards) => cards,
        }
    }
}

/// A hand argument read as [`cards_arg`] reads it, kept on the stack when it
/// is a list that a search accepts.
pub(crate) fn hand_arg(obj: &Bound<'_, PyAny>) -> PyResult<HandArg> {
    if let Ok(list) = obj.downcast::<PyList>() {
        let len = list.len();
        if len <= MAX_HAND {
            let card_type = obj.py().get_type::<PyCard>();
            let mut cards = [Card::JOKER; MAX_HAND];
            for (i, slot) in cards[..len].iter_mut().enumerate() {
                *slot = card_item(&list_item(list, i), &card_type)?;
            }
            return Ok(HandArg::Inline { cards, len });
        }
    }
    cards_arg(obj).map(HandArg::Heap)
}

/// The cards of a list.
fn list_cards(list: &Bound<'_, PyList>, card_type: &Bound<'_, PyType>) -> PyResult<Vec<Card>> {
    (0..list.len())
        .map(|i| card_item(&list_item(list, i), card_type))
        .collect()
}

/// Item `i` of a list, borrowed from it rather than counted: a list
/// iterator of the stable ABI takes a reference and drops it per item (with
/// the `Card` type compared by pointer too, reading 10 cards fell from 0.115
/// to 0.058 us). `i` must be below the list's length, and the item must be
/// read before any Python code runs.
fn list_item<'a, 'py>(list: &'a Bound<'py, PyList>, i: usize) -> Borrowed<'a, 'py, PyAny> {
    // SAFETY: the callers pass `i` below the list's length, read while the
    // GIL is held; the list cannot change until the item is read, since
    // reading a card runs no Python code (a `Card`'s value is read in place,
    // a string's text by `PyUnicode_AsUTF8AndSize`), and an item the list
    // holds lives as long as it holds it.
    unsafe {
        let ptr = ffi::PyList_GetItem(list.as_ptr(), i as ffi::Py_ssize_t);
        Borrowed::from_ptr(list.py(), ptr)
    }
}

/// One card of a hand: a `Card` (checked against the `Card` type given) or
/// a card string.
fn card_item(item: &Bound<'_, PyAny>, card_type: &Bound<'_, PyType>) -> PyResult<Card> {
    // The type compared by pointer: `get_type` would count a reference.
    // SAFETY: `item` is a live object, whose type pointer is always set.
    if unsafe { ffi::Py_TYPE(item.as_ptr()) } == card_type.as_type_ptr() {
        // SAFETY: the object's type is exactly `Card` (which has no
        // subclasses: it is not declared `subclass`), checked just above.
        let c = unsafe { item.downcast_unchecked::<PyCard>() };
        return Ok(c.get().0);
    }
    if let Ok(s) = item.downcast::<PyString>() {
        return Ok(s.to_str()?.parse::<Card>().map_err(CoreError::from)?);
    }
    Err(PyTypeError::new_err(format!(
        "expected a card string or a Card, not {}",
        item.get_type().name()?
    )))
}

pub(crate) fn table_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<Card>>> {
    let mut out = Vec::new();
    for meld in obj.try_iter()? {
        out.push(cards_arg(&meld?)?);
    }
    Ok(out)
}

pub(crate) fn strings(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

pub(crate) fn single_card(obj: &Bound<'_, PyAny>) -> PyResult<Card> {
    if let Ok(c) = obj.downcast::<PyCard>() {
        return Ok(c.get().0);
    }
    let s = obj
        .downcast::<PyString>()
        .map_err(|_| PyTypeError::new_err("expected a card string or a Card"))?;
    Ok(s.to_str()?.parse::<Card>().map_err(CoreError::from)?)
}

/// Parses cards in notation (a string, or a sequence of strings and Cards).
#[pyfunction]
fn parse_cards(cards: &Bound<'_, PyAny>) -> PyResult<Vec<PyCard>> {
    Ok(cards_arg(cards)?.into_iter().map(PyCard).collect())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCard>()?;
    m.add_function(wrap_pyfunction!(parse_cards, m)?)?;
    Ok(())
}
