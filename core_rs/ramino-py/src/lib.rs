//! `ramino._core`: a thin PyO3 layer over `ramino-core`. It converts
//! arguments, calls the kernel, converts results, and maps every kernel error
//! to its Python class in one place ([`CoreError`]).

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};

use ramino_core as core;
use ramino_core::{Card, End, ParamValue};

mod playout;

/// Every error the kernel can raise, mapped to `ramino.errors` by one match.
enum CoreError {
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

type CoreResult<T> = Result<T, CoreError>;

/// A card kind: a natural card or the joker.
#[pyclass(name = "Card", module = "ramino", frozen, eq, hash, ord)]
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct PyCard(Card);

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
fn cards_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Card>> {
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(Card::parse_list(s.to_str()?).map_err(CoreError::from)?);
    }
    // Hands come as lists on the hot paths (bots, the service): read those
    // by index, and look the Card type up once rather than once per card.
    let card_type = obj.py().get_type::<PyCard>();
    if let Ok(list) = obj.downcast::<PyList>() {
        let mut out = Vec::with_capacity(list.len());
        for item in list.iter() {
            out.push(card_item(&item, &card_type)?);
        }
        return Ok(out);
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

/// One card of a hand: a `Card` (checked against the `Card` type given) or
/// a card string.
fn card_item(item: &Bound<'_, PyAny>, card_type: &Bound<'_, pyo3::types::PyType>) -> PyResult<Card> {
    if item.get_type().is(card_type) {
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

fn table_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<Card>>> {
    let mut out = Vec::new();
    for meld in obj.try_iter()? {
        out.push(cards_arg(&meld?)?);
    }
    Ok(out)
}

fn strings(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

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
                let mut v = core::Variant::preset(name).map_err(CoreError::from)?;
                if let Some(kw) = overrides {
                    for (k, value) in kw.iter() {
                        let k: String = k.extract()?;
                        let value = param_from_py(&k, &value)?;
                        v = v.with_override(&k, value).map_err(CoreError::from)?;
                    }
                }
                Ok(PyVariant(v))
            }

            /// This variant with some parameters replaced.
            #[pyo3(signature = (**overrides))]
            fn replace(&self, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let mut v = self.0.clone();
                if let Some(kw) = overrides {
                    for (k, value) in kw.iter() {
                        let k: String = k.extract()?;
                        let value = param_from_py(&k, &value)?;
                        v = v.with_override(&k, value).map_err(CoreError::from)?;
                    }
                }
                Ok(PyVariant(v))
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

fn variant_arg(obj: &Bound<'_, PyAny>) -> PyResult<Cow<'static, core::Variant>> {
    if let Ok(v) = obj.downcast::<PyVariant>() {
        return Ok(Cow::Owned(v.get().0.clone()));
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
struct PyDeadwood {
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

/// Best opening and minimum deadwood of one hand (from `analyze_many`).
#[pyclass(name = "Analysis", module = "ramino", frozen, get_all)]
#[derive(Clone)]
struct PyAnalysis {
    opening: Option<PyOpening>,
    deadwood: PyDeadwood,
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

fn opening_py(o: core::Opening) -> PyOpening {
    PyOpening {
        value: o.value,
        cards: o.melds,
    }
}

fn deadwood_py(d: core::Deadwood) -> PyDeadwood {
    PyDeadwood {
        value: d.value,
        cards: d.melds,
        left: d.deadwood,
    }
}

/// Parses cards in notation (a string, or a sequence of strings and Cards).
#[pyfunction]
fn parse_cards(cards: &Bound<'_, PyAny>) -> PyResult<Vec<PyCard>> {
    Ok(cards_arg(cards)?.into_iter().map(PyCard).collect())
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

fn single_card(obj: &Bound<'_, PyAny>) -> PyResult<Card> {
    if let Ok(c) = obj.downcast::<PyCard>() {
        return Ok(c.get().0);
    }
    let s = obj
        .downcast::<PyString>()
        .map_err(|_| PyTypeError::new_err("expected a card string or a Card"))?;
    Ok(s.to_str()?.parse::<Card>().map_err(CoreError::from)?)
}

fn variant_or_default(variant: Option<&Bound<'_, PyAny>>) -> PyResult<Cow<'static, core::Variant>> {
    match variant {
        Some(v) => variant_arg(v),
        None => Ok(Cow::Borrowed(core::Variant::preset_ref("ramino51").expect("a preset"))),
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
    let hand = cards_arg(hand)?;
    let include = include.map(single_card).transpose()?;
    // The search runs without the GIL: other Python threads (the service's
    // event loop among them) go on while it works.
    let o = py
        .allow_threads(|| core::best_opening(&hand, &v, include))
        .map_err(CoreError::from)?;
    Ok(o.map(opening_py))
}

/// Disjoint melds that minimise the penalty of the cards left over.
#[pyfunction]
#[pyo3(signature = (hand, variant = None))]
fn min_deadwood(py: Python<'_>, hand: &Bound<'_, PyAny>, variant: Option<&Bound<'_, PyAny>>) -> PyResult<PyDeadwood> {
    let v = variant_or_default(variant)?;
    let hand = cards_arg(hand)?;
    let d = py
        .allow_threads(|| core::min_deadwood(&hand, &v))
        .map_err(CoreError::from)?;
    Ok(deadwood_py(d))
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

/// Penalty of the cards left in a hand.
#[pyfunction]
#[pyo3(signature = (hand, variant = None))]
fn penalty(hand: &Bound<'_, PyAny>, variant: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
    let v = variant_or_default(variant)?;
    let hand = cards_arg(hand)?;
    if hand.len() > core::MAX_HAND {
        return Err(CoreError::Hand(core::HandError::TooLarge {
            len: hand.len(),
            max: core::MAX_HAND,
        })
        .into());
    }
    Ok(v.hand_penalty(&hand))
}

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
        .call_method1("from_bytes", (pyo3::types::PyBytes::new(py, &derived), "little"))
}

/// The physical cards of a variant's deck, in id order.
#[pyfunction]
#[pyo3(signature = (variant = None))]
fn deck_cards(variant: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PyCard>> {
    let v = variant_or_default(variant)?;
    Ok(v.deck().cards().into_iter().map(PyCard).collect())
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCard>()?;
    m.add_class::<PyVariant>()?;
    m.add_class::<PyMeld>()?;
    m.add_class::<PyJokerRole>()?;
    m.add_class::<PyOpening>()?;
    m.add_class::<PyDeadwood>()?;
    m.add_class::<PyLayOff>()?;
    m.add_class::<PyJokerSwap>()?;
    m.add_class::<PyAnalysis>()?;
    m.add_function(wrap_pyfunction!(parse_cards, m)?)?;
    m.add_function(wrap_pyfunction!(validate_meld, m)?)?;
    m.add_function(wrap_pyfunction!(extend_meld, m)?)?;
    m.add_function(wrap_pyfunction!(best_opening, m)?)?;
    m.add_function(wrap_pyfunction!(min_deadwood, m)?)?;
    m.add_function(wrap_pyfunction!(layoff_targets, m)?)?;
    m.add_function(wrap_pyfunction!(joker_swaps, m)?)?;
    m.add_function(wrap_pyfunction!(penalty, m)?)?;
    m.add_function(wrap_pyfunction!(shuffle, m)?)?;
    m.add_function(wrap_pyfunction!(derive_seed, m)?)?;
    m.add_function(wrap_pyfunction!(deck_cards, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_many, m)?)?;
    m.add_function(wrap_pyfunction!(playout::evaluate_actions, m)?)?;
    m.add("PRESETS", core::PRESETS.to_vec())?;
    m.add("PARAMETERS", core::PARAMETERS.to_vec())?;
    m.add("MAX_HAND", core::MAX_HAND)?;
    Ok(())
}
