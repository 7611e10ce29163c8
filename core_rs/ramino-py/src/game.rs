//! The game kernel (`ramino_core::game`) for the Python engine
//! (`service/ramino/engine`), which keeps its own names and dataclasses:
//! [`GameRules`] (a variant's shared tables), [`GameKernel`] (one match: its
//! state, commands decided and events folded) and the policies as module
//! functions. Commands, events, the state and the hint cross as the engine's
//! own classes (`ramino.engine.commands`, `events`, `state`, `hint`), and
//! refusals as its errors (`ramino.engine.errors`).
//!
//! Those modules import this one, so their classes are imported at first use,
//! never at module init, and kept for every later call. A command's fields are
//! taken as the client sent them (a non-integer card becomes [`BAD_VALUE`],
//! which the kernel refuses as `BAD_FIELD`), so that the kernel, not this
//! layer, says what is wrong with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple, PyType};

use ramino_core::game::{
    self as kernel, reasons, CardId, Command, Ending, Event, Game, GameError, Hint, MeldDescription, Phase, Raw,
    RawEnd, Refusal, RefusalKind, RoundResult, Rules, ScorePart, ScorePartKind, SeatState, Setup, State, TableMeld,
    BAD_VALUE, NO_SEAT,
};
use ramino_core::{Card, End, MeldKind, Variant};

use crate::cards::{cards_arg, strings, table_arg};
use crate::search::{deadwood_py, PyDeadwood};
use crate::variants::variant_arg;

/// The engine's command classes, in the order the binding reads them
/// (the names of `ramino.engine.commands.COMMAND_TYPES`).
const COMMAND_NAMES: [&str; 11] = [
    "DrawFromStock",
    "TakeDiscard",
    "TurnOverDiscardPile",
    "LayMelds",
    "LayOff",
    "SwapJoker",
    "Discard",
    "Resign",
    "PassUpcard",
    "Knock",
    "AcceptLayout",
];

/// The engine's event classes (the names of
/// `ramino.engine.events.EVENT_TYPES`).
const EVENT_NAMES: [&str; 15] = [
    "RoundStarted",
    "DrewFromStock",
    "TookDiscard",
    "DiscardPileTurnedOver",
    "StockReshuffled",
    "MeldsLaid",
    "LaidOff",
    "JokerSwapped",
    "Discarded",
    "Resigned",
    "PassedUpcard",
    "Knocked",
    "LayoutAccepted",
    "RoundEnded",
    "MatchEnded",
];

/// The Python engine's classes the conversions build and recognise.
struct Classes {
    /// In [`COMMAND_NAMES`] order.
    commands: Vec<Py<PyType>>,
    /// In [`EVENT_NAMES`] order.
    events: Vec<Py<PyType>>,
    /// Each command's field names, in order (see [`instance`]).
    command_fields: Vec<Vec<Py<PyString>>>,
    /// Each event's field names, in order.
    event_fields: Vec<Vec<Py<PyString>>>,
    /// `ramino.engine.events.ScorePart` and its field names, in order.
    score_part: Py<PyType>,
    score_part_fields: Vec<Py<PyString>>,
    /// `ramino.engine.events.MeldDescription` and `MeldJoker`, and their
    /// field names, in order.
    meld_description: Py<PyType>,
    meld_description_fields: Vec<Py<PyString>>,
    meld_joker: Py<PyType>,
    meld_joker_fields: Vec<Py<PyString>>,
    state: Py<PyType>,
    seat: Py<PyType>,
    table_meld: Py<PyType>,
    illegal_move: Py<PyType>,
    malformed_command: Py<PyType>,
    invalid_setup: Py<PyType>,
    record_error: Py<PyType>,
}

fn class(module: &Bound<'_, PyModule>, name: &str) -> PyResult<Py<PyType>> {
    Ok(module.getattr(name)?.downcast_into::<PyType>()?.unbind())
}

fn classes_of(registry: &Bound<'_, PyAny>, names: &[&str]) -> PyResult<Vec<Py<PyType>>> {
    names
        .iter()
        .map(|n| Ok(registry.get_item(n)?.downcast_into::<PyType>()?.unbind()))
        .collect()
}

/// The names of a dataclass's fields, in the order of its `__init__`.
fn field_names(py: Python<'_>, classes: &[Py<PyType>]) -> PyResult<Vec<Vec<Py<PyString>>>> {
    let fields = py.import("dataclasses")?.getattr("fields")?;
    classes
        .iter()
        .map(|cls| {
            fields
                .call1((cls.bind(py),))?
                .try_iter()?
                .map(|f| Ok(PyString::intern(py, &f?.getattr("name")?.extract::<String>()?).unbind()))
                .collect()
        })
        .collect()
}

/// An instance of one of the engine's frozen, slotted dataclasses (a
/// command or an event) with `args` as its fields, in order: the object is
/// allocated as `object.__new__(cls)` would and each field set as
/// `object.__setattr__` would, which is what the dataclass's own `__init__`
/// does, without running that Python function (most of the cost of an
/// event). Where the arguments do not match the fields, the class is called.
fn instance<'py, A>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    names: &[Py<PyString>],
    args: A,
) -> PyResult<Bound<'py, PyAny>>
where
    A: IntoPyObject<'py, Target = PyTuple, Output = Bound<'py, PyTuple>>,
    A::Error: Into<PyErr>,
{
    let args = args.into_pyobject(py).map_err(Into::into)?;
    if args.len() != names.len() {
        return cls.call1(args);
    }
    // SAFETY: `cls` is a live type object; `PyType_GenericAlloc` returns a new
    // reference (or null with an exception set), which `from_owned_ptr` takes;
    // every pointer passed to `PyObject_GenericSetAttr` is a live object held
    // by a `Bound` for the duration of the call.
    unsafe {
        let obj = pyo3::ffi::PyType_GenericAlloc(cls.as_type_ptr(), 0);
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        let obj = Bound::from_owned_ptr(py, obj);
        for (name, value) in names.iter().zip(args.iter()) {
            if pyo3::ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(obj)
    }
}

/// The engine's classes, imported once (at the first call that needs them).
fn classes(py: Python<'_>) -> PyResult<&'static Classes> {
    static CLASSES: GILOnceCell<Classes> = GILOnceCell::new();
    CLASSES.get_or_try_init(py, || {
        let commands = py.import("ramino.engine.commands")?;
        let events = py.import("ramino.engine.events")?;
        let state = py.import("ramino.engine.state")?;
        let errors = py.import("ramino.engine.errors")?;
        let commands = classes_of(&commands.getattr("COMMAND_TYPES")?, &COMMAND_NAMES)?;
        let score_part = class(&events, "ScorePart")?;
        let meld_description = class(&events, "MeldDescription")?;
        let meld_joker = class(&events, "MeldJoker")?;
        let events = classes_of(&events.getattr("EVENT_TYPES")?, &EVENT_NAMES)?;
        Ok(Classes {
            score_part_fields: field_names(py, std::slice::from_ref(&score_part))?.remove(0),
            score_part,
            meld_description_fields: field_names(py, std::slice::from_ref(&meld_description))?.remove(0),
            meld_description,
            meld_joker_fields: field_names(py, std::slice::from_ref(&meld_joker))?.remove(0),
            meld_joker,
            command_fields: field_names(py, &commands)?,
            event_fields: field_names(py, &events)?,
            commands,
            events,
            state: class(&state, "State")?,
            seat: class(&state, "Seat")?,
            table_meld: class(&state, "TableMeld")?,
            illegal_move: class(&errors, "IllegalMove")?,
            malformed_command: class(&errors, "MalformedCommand")?,
            invalid_setup: class(&errors, "InvalidSetup")?,
            record_error: class(&errors, "RecordError")?,
        })
    })
}

/// `ramino.engine.hint.Hint`, apart from the rest: the hint module imports
/// most of the engine.
fn hint_class(py: Python<'_>) -> PyResult<&'static Py<PyType>> {
    static HINT: GILOnceCell<Py<PyType>> = GILOnceCell::new();
    HINT.get_or_try_init(py, || class(&py.import("ramino.engine.hint")?, "Hint"))
}

// --- errors ------------------------------------------------------------------

/// An instance of an engine error class as a `PyErr` (or the error of making
/// it).
fn raised(made: PyResult<Bound<'_, PyAny>>) -> PyErr {
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

/// A refusal as `IllegalMove(message, reason, detail)` or
/// `MalformedCommand(message, reason)`.
fn refused(py: Python<'_>, r: Refusal) -> PyErr {
    let c = match classes(py) {
        Ok(c) => c,
        Err(e) => return e,
    };
    match r.kind {
        RefusalKind::Illegal => raised(c.illegal_move.bind(py).call1((r.message, r.reason, r.detail))),
        RefusalKind::Malformed => raised(c.malformed_command.bind(py).call1((r.message, r.reason))),
    }
}

/// `RecordError(message, reason)`.
fn record_error(py: Python<'_>, reason: &'static str, message: String) -> PyErr {
    match classes(py) {
        Ok(c) => raised(c.record_error.bind(py).call1((message, reason))),
        Err(e) => e,
    }
}

/// `InvalidSetup(message, reason)`.
fn setup_error(py: Python<'_>, e: GameError) -> PyErr {
    match classes(py) {
        Ok(c) => raised(c.invalid_setup.bind(py).call1((e.message, e.reason))),
        Err(e) => e,
    }
}

/// A record that does not replay as `RecordError` with its reason.
fn game_error(py: Python<'_>, e: GameError) -> PyErr {
    record_error(py, e.reason, e.message)
}

/// `MalformedCommand(UNKNOWN_CARD)` for a card id outside the deck given to
/// a policy function.
fn unknown_card(py: Python<'_>, id: i64, deck_size: usize) -> PyErr {
    match classes(py) {
        Ok(c) => raised(
            c.malformed_command
                .bind(py)
                .call1((format!("no card {id} in a deck of {deck_size}"), reasons::UNKNOWN_CARD)),
        ),
        Err(e) => e,
    }
}

fn describe(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "an object without a repr".to_string())
}

// --- rules -------------------------------------------------------------------

/// Distinct variants whose rules are kept; past that the cache starts over
/// (variants with overrides are client-made, so their number is unbounded).
const RULES_CACHE_SIZE: usize = 256;

/// The shared rules of `variant`: built once, then the same `Arc` for every
/// game of that variant.
fn shared_rules(variant: &Variant) -> Arc<Rules> {
    static CACHE: OnceLock<Mutex<HashMap<Variant, Arc<Rules>>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(rules) = cache.get(variant) {
        return Arc::clone(rules);
    }
    if cache.len() >= RULES_CACHE_SIZE {
        cache.clear();
    }
    let rules = Arc::new(Rules::new(variant.clone()));
    cache.insert(variant.clone(), Arc::clone(&rules));
    rules
}

/// A variant with the tables the kernel reads on every command, shared by
/// every game of the variant.
#[pyclass(name = "GameRules", module = "ramino._core", frozen)]
pub(crate) struct GameRules {
    rules: Arc<Rules>,
}

#[pymethods]
impl GameRules {
    #[new]
    fn new(variant: &Bound<'_, PyAny>) -> PyResult<Self> {
        let v = variant_arg(variant)?;
        Ok(GameRules {
            rules: shared_rules(&v),
        })
    }

    /// Cards in the deck (ids `0..deck_size`).
    #[getter]
    fn deck_size(&self) -> usize {
        self.rules.deck_size
    }

    /// Whether a seat must open before laying off (a threshold or a pure run).
    #[getter]
    fn needs_opening(&self) -> bool {
        self.rules.needs_opening
    }

    /// Whether going out needs a last discard.
    #[getter]
    fn must_discard(&self) -> bool {
        self.rules.must_discard
    }

    /// Whether an empty stock is rebuilt by reshuffling (else turned over).
    #[getter]
    fn reshuffle(&self) -> bool {
        self.rules.reshuffle
    }

    fn __repr__(&self) -> String {
        format!("GameRules('{}', ...)", self.rules.variant.name)
    }
}

// --- commands: Python -> Rust ----------------------------------------------------

/// An integer field as the client sent it: [`BAD_VALUE`] for a bool or a
/// non-integer; an integer beyond `i64` saturates (it is out of every range
/// either way, as it is for the Python engine).
fn raw(value: &Bound<'_, PyAny>) -> Raw {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return BAD_VALUE;
    }
    match value.extract::<i64>() {
        Ok(v) => v.max(BAD_VALUE + 1),
        Err(_) if value.gt(0).unwrap_or(false) => Raw::MAX,
        Err(_) => BAD_VALUE + 1,
    }
}

/// A melds field: `None` unless a list or tuple; an inner meld that is not
/// one becomes `[BAD_VALUE]` (refused as `BAD_FIELD` where it is read).
fn raw_melds(value: &Bound<'_, PyAny>) -> PyResult<Option<Vec<Vec<Raw>>>> {
    if !(value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
        return Ok(None);
    }
    let mut out = Vec::new();
    for meld in value.try_iter()? {
        let meld = meld?;
        if meld.is_instance_of::<PyList>() || meld.is_instance_of::<PyTuple>() {
            out.push(meld.try_iter()?.map(|c| c.map(|c| raw(&c))).collect::<PyResult<_>>()?);
        } else {
            out.push(vec![BAD_VALUE]);
        }
    }
    Ok(Some(out))
}

fn raw_end(value: &Bound<'_, PyAny>) -> RawEnd {
    match value.downcast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
        Some("start") => RawEnd::Start,
        Some("end") => RawEnd::End,
        _ => RawEnd::Bad(describe(value)),
    }
}

/// A seat as the client gave it: -1 (no seat) for a bool or a non-integer,
/// saturated beyond `i64`.
fn raw_seat(value: &Bound<'_, PyAny>) -> i64 {
    match raw(value) {
        BAD_VALUE => -1,
        v => v,
    }
}

/// A Python command (an instance of one of the engine's command classes,
/// exactly) as the kernel's; anything else is `Command::Unknown`.
fn command_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Command> {
    let py = obj.py();
    let c = classes(py)?;
    let t = obj.get_type();
    let Some(i) = c.commands.iter().position(|k| t.is(k)) else {
        return Ok(Command::Unknown(describe(obj)));
    };
    Ok(match COMMAND_NAMES[i] {
        "DrawFromStock" => Command::DrawFromStock,
        "TakeDiscard" => Command::TakeDiscard,
        "TurnOverDiscardPile" => Command::TurnOverDiscardPile,
        "LayMelds" => Command::LayMelds {
            melds: raw_melds(&obj.getattr(intern!(py, "melds"))?)?,
        },
        "LayOff" => Command::LayOff {
            card: raw(&obj.getattr(intern!(py, "card"))?),
            meld: raw(&obj.getattr(intern!(py, "meld"))?),
            end: raw_end(&obj.getattr(intern!(py, "end"))?),
        },
        "SwapJoker" => Command::SwapJoker {
            card: raw(&obj.getattr(intern!(py, "card"))?),
            meld: raw(&obj.getattr(intern!(py, "meld"))?),
            joker: raw(&obj.getattr(intern!(py, "joker"))?),
        },
        "Discard" => Command::Discard {
            card: raw(&obj.getattr(intern!(py, "card"))?),
        },
        "Resign" => Command::Resign,
        "PassUpcard" => Command::PassUpcard,
        "Knock" => {
            let discard = obj.getattr(intern!(py, "discard"))?;
            Command::Knock {
                discard: if discard.is_none() { None } else { Some(raw(&discard)) },
                melds: raw_melds(&obj.getattr(intern!(py, "melds"))?)?,
            }
        }
        "AcceptLayout" => Command::AcceptLayout,
        _ => Command::Unknown(describe(obj)),
    })
}

// --- commands: Rust -> Python ----------------------------------------------------

fn raw_melds_py<'py>(py: Python<'py>, melds: &Option<Vec<Vec<Raw>>>) -> PyResult<Bound<'py, PyAny>> {
    match melds {
        None => Ok(py.None().into_bound(py)),
        Some(ms) => {
            let inner = ms.iter().map(|m| PyTuple::new(py, m)).collect::<PyResult<Vec<_>>>()?;
            Ok(PyTuple::new(py, inner)?.into_any())
        }
    }
}

fn command_to_py<'py>(py: Python<'py>, c: &Classes, cmd: &Command) -> PyResult<Bound<'py, PyAny>> {
    let Some(i) = COMMAND_NAMES.iter().position(|n| *n == cmd.type_name()) else {
        return Err(PyValueError::new_err(format!("not a command: {cmd:?}")));
    };
    let cls = c.commands[i].bind(py);
    let names = &c.command_fields[i];
    match cmd {
        Command::LayMelds { melds } => instance(py, cls, names, (raw_melds_py(py, melds)?,)),
        Command::LayOff { card, meld, end } => {
            let end = match end {
                RawEnd::Start => "start",
                RawEnd::End => "end",
                RawEnd::Bad(text) => text.as_str(),
            };
            instance(py, cls, names, (*card, *meld, end))
        }
        Command::SwapJoker { card, meld, joker } => instance(py, cls, names, (*card, *meld, *joker)),
        Command::Discard { card } => instance(py, cls, names, (*card,)),
        Command::Knock { discard, melds } => instance(py, cls, names, (*discard, raw_melds_py(py, melds)?)),
        _ => instance(py, cls, names, ()),
    }
}

fn commands_to_py<'py>(py: Python<'py>, cmds: &[Command]) -> PyResult<Bound<'py, PyList>> {
    let c = classes(py)?;
    let items = cmds
        .iter()
        .map(|m| command_to_py(py, c, m))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

// --- events and the state: Python -> Rust ---------------------------------------

/// Reads the fields of one Python object (an event, a seat, the state): a
/// value of the wrong type is `RECORD_FORMAT`; a card or a seat outside the
/// game is `range_reason`.
struct Fields<'a, 'py> {
    obj: &'a Bound<'py, PyAny>,
    deck_size: usize,
    seats: usize,
    range_reason: &'static str,
}

impl<'py> Fields<'_, 'py> {
    fn format_error(&self, name: &Bound<'py, PyString>, e: &PyErr) -> PyErr {
        let py = self.obj.py();
        let owner = self.obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        record_error(py, reasons::RECORD_FORMAT, format!("{owner}.{name}: {e}"))
    }

    fn get(&self, name: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
        self.obj.getattr(name).map_err(|e| self.format_error(name, &e))
    }

    fn value<T: FromPyObject<'py>>(&self, name: &Bound<'py, PyString>) -> PyResult<T> {
        self.get(name)?.extract().map_err(|e| self.format_error(name, &e))
    }

    fn out_of_range(&self, what: &str, value: i64) -> PyErr {
        record_error(
            self.obj.py(),
            self.range_reason,
            format!("no {what} {value} in this game"),
        )
    }

    fn seat_of(&self, s: i64) -> PyResult<usize> {
        usize::try_from(s)
            .ok()
            .filter(|&s| s < self.seats)
            .ok_or_else(|| self.out_of_range("seat", s))
    }

    fn card_of(&self, c: i64) -> PyResult<CardId> {
        CardId::try_from(c)
            .ok()
            .filter(|&c| usize::from(c) < self.deck_size)
            .ok_or_else(|| self.out_of_range("card", c))
    }

    fn cards_of(&self, cs: Vec<i64>) -> PyResult<Vec<CardId>> {
        cs.into_iter().map(|c| self.card_of(c)).collect()
    }

    fn seat(&self, name: &Bound<'py, PyString>) -> PyResult<usize> {
        self.seat_of(self.value(name)?)
    }

    /// A seat or -1 ([`NO_SEAT`]).
    fn seat_or_none(&self, name: &Bound<'py, PyString>) -> PyResult<usize> {
        match self.value::<i64>(name)? {
            -1 => Ok(NO_SEAT),
            s => self.seat_of(s),
        }
    }

    fn opt_seat(&self, name: &Bound<'py, PyString>) -> PyResult<Option<usize>> {
        self.value::<Option<i64>>(name)?.map(|s| self.seat_of(s)).transpose()
    }

    fn seats_of(&self, name: &Bound<'py, PyString>) -> PyResult<Vec<usize>> {
        self.value::<Vec<i64>>(name)?
            .into_iter()
            .map(|s| self.seat_of(s))
            .collect()
    }

    fn card(&self, name: &Bound<'py, PyString>) -> PyResult<CardId> {
        self.card_of(self.value(name)?)
    }

    fn opt_card(&self, name: &Bound<'py, PyString>) -> PyResult<Option<CardId>> {
        self.value::<Option<i64>>(name)?.map(|c| self.card_of(c)).transpose()
    }

    fn cards(&self, name: &Bound<'py, PyString>) -> PyResult<Vec<CardId>> {
        self.cards_of(self.value(name)?)
    }

    fn opt_cards(&self, name: &Bound<'py, PyString>) -> PyResult<Option<Vec<CardId>>> {
        self.value::<Option<Vec<i64>>>(name)?
            .map(|cs| self.cards_of(cs))
            .transpose()
    }

    fn melds(&self, name: &Bound<'py, PyString>) -> PyResult<Vec<Vec<CardId>>> {
        self.value::<Vec<Vec<i64>>>(name)?
            .into_iter()
            .map(|m| self.cards_of(m))
            .collect()
    }

    fn format(&self, message: String) -> PyErr {
        record_error(self.obj.py(), reasons::RECORD_FORMAT, message)
    }

    /// A `MeldDescription` (`obj` one).
    fn meld_description(&self, obj: &Bound<'py, PyAny>) -> PyResult<MeldDescription> {
        let py = self.obj.py();
        let g = Fields { obj, ..*self };
        let kind = match g.value::<String>(intern!(py, "kind"))?.as_str() {
            "set" => MeldKind::Set,
            "run" => MeldKind::Run,
            other => return Err(g.format(format!("no meld kind {other:?}"))),
        };
        let jokers = g
            .value::<Vec<Bound<'py, PyAny>>>(intern!(py, "jokers"))?
            .iter()
            .map(|obj| {
                let j = Fields { obj, ..*self };
                let names: Vec<String> = j.value(intern!(py, "stands_for"))?;
                let cards = names
                    .iter()
                    .map(|n| {
                        n.parse::<Card>()
                            .map_err(|e| j.format(format!("a joker's card {n:?}: {e}")))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                Ok((j.value(intern!(py, "index"))?, cards))
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(MeldDescription {
            kind,
            value: g.value(intern!(py, "value"))?,
            jokers,
            closed: g.value(intern!(py, "closed"))?,
            pure: g.value(intern!(py, "pure"))?,
        })
    }

    /// An event's `described`: a tuple of `MeldDescription`s.
    fn described_all(&self) -> PyResult<Vec<MeldDescription>> {
        let py = self.obj.py();
        self.value::<Vec<Bound<'py, PyAny>>>(intern!(py, "described"))?
            .iter()
            .map(|d| self.meld_description(d))
            .collect()
    }

    /// An event's `described`: one `MeldDescription` or `None`.
    fn described_one(&self) -> PyResult<Option<MeldDescription>> {
        let py = self.obj.py();
        self.value::<Option<Bound<'py, PyAny>>>(intern!(py, "described"))?
            .map(|d| self.meld_description(&d))
            .transpose()
    }

    /// An event's `parts`: per seat, its score's parts (`ScorePart`s).
    fn score_parts(&self) -> PyResult<Vec<Vec<ScorePart>>> {
        let py = self.obj.py();
        let seats: Vec<Vec<Bound<'py, PyAny>>> = self.value(intern!(py, "parts"))?;
        seats
            .iter()
            .map(|parts| {
                parts
                    .iter()
                    .map(|obj| {
                        let g = Fields { obj, ..*self };
                        let kind: String = g.value(intern!(py, "kind"))?;
                        Ok(ScorePart {
                            kind: ScorePartKind::parse(&kind)
                                .ok_or_else(|| g.format(format!("no score part kind {kind:?}")))?,
                            points: g.value(intern!(py, "points"))?,
                            base: g.value(intern!(py, "base"))?,
                            factor: g.value(intern!(py, "factor"))?,
                            seat: g.opt_seat(intern!(py, "seat"))?,
                        })
                    })
                    .collect()
            })
            .collect()
    }
}

/// A Python event as the kernel's: `RECORD_FORMAT` for a value that is not
/// an event or a field that does not convert, `range_reason` for a seat or a
/// card outside the game.
fn event_from_py(
    obj: &Bound<'_, PyAny>,
    deck_size: usize,
    seats: usize,
    range_reason: &'static str,
) -> PyResult<Event> {
    let py = obj.py();
    let c = classes(py)?;
    let t = obj.get_type();
    let f = Fields {
        obj,
        deck_size,
        seats,
        range_reason,
    };
    let Some(i) = c.events.iter().position(|k| t.is(k)) else {
        return Err(f.format(format!("not an event: {}", describe(obj))));
    };
    let seat = || f.seat(intern!(py, "seat"));
    Ok(match EVENT_NAMES[i] {
        "RoundStarted" => Event::RoundStarted {
            round: f.value(intern!(py, "round"))?,
            dealer: f.seat(intern!(py, "dealer"))?,
            first_player: f.seat(intern!(py, "first_player"))?,
            hands: f
                .value::<Vec<Option<Vec<i64>>>>(intern!(py, "hands"))?
                .into_iter()
                .map(|h| h.map(|h| f.cards_of(h)).transpose())
                .collect::<PyResult<_>>()?,
            hand_sizes: f.value(intern!(py, "hand_sizes"))?,
            upcard: f.opt_card(intern!(py, "upcard"))?,
            stock_size: f.value(intern!(py, "stock_size"))?,
            stock: f.opt_cards(intern!(py, "stock"))?,
        },
        "DrewFromStock" => Event::DrewFromStock {
            seat: seat()?,
            card: f.opt_card(intern!(py, "card"))?,
        },
        "TookDiscard" => Event::TookDiscard {
            seat: seat()?,
            card: f.card(intern!(py, "card"))?,
        },
        "DiscardPileTurnedOver" => Event::DiscardPileTurnedOver {
            seat: seat()?,
            rebuild: f.value(intern!(py, "rebuild"))?,
        },
        "StockReshuffled" => Event::StockReshuffled {
            rebuild: f.value(intern!(py, "rebuild"))?,
            kept: f.card(intern!(py, "kept"))?,
            stock_size: f.value(intern!(py, "stock_size"))?,
            stock: f.opt_cards(intern!(py, "stock"))?,
        },
        "MeldsLaid" => Event::MeldsLaid {
            seat: seat()?,
            melds: f.melds(intern!(py, "melds"))?,
            opening: f.value(intern!(py, "opening"))?,
            described: f.described_all()?,
        },
        "LaidOff" => Event::LaidOff {
            seat: seat()?,
            card: f.card(intern!(py, "card"))?,
            meld: f.value(intern!(py, "meld"))?,
            end: match f.value::<String>(intern!(py, "end"))?.as_str() {
                "start" => End::Start,
                "end" => End::End,
                other => return Err(f.format(format!("a lay-off's end is 'start' or 'end', not {other:?}"))),
            },
            described: f.described_one()?,
        },
        "JokerSwapped" => Event::JokerSwapped {
            seat: seat()?,
            card: f.card(intern!(py, "card"))?,
            meld: f.value(intern!(py, "meld"))?,
            joker: f.card(intern!(py, "joker"))?,
            described: f.described_one()?,
        },
        "Discarded" => Event::Discarded {
            seat: seat()?,
            card: f.card(intern!(py, "card"))?,
        },
        "Resigned" => Event::Resigned { seat: seat()? },
        "PassedUpcard" => Event::PassedUpcard { seat: seat()? },
        "Knocked" => Event::Knocked {
            seat: seat()?,
            discard: f.opt_card(intern!(py, "discard"))?,
            melds: f.melds(intern!(py, "melds"))?,
            deadwood: f.value(intern!(py, "deadwood"))?,
            described: f.described_all()?,
        },
        "LayoutAccepted" => Event::LayoutAccepted { seat: seat()? },
        "RoundEnded" => {
            let ending: String = f.value(intern!(py, "ending"))?;
            Event::RoundEnded(RoundResult {
                round: f.value(intern!(py, "round"))?,
                ending: Ending::parse(&ending).ok_or_else(|| f.format(format!("no round ending {ending:?}")))?,
                winner: f.opt_seat(intern!(py, "winner"))?,
                closed_hand: f.value(intern!(py, "closed_hand"))?,
                scores: f.value(intern!(py, "scores"))?,
                hands: f.melds(intern!(py, "hands"))?,
                parts: f.score_parts()?,
            })
        }
        "MatchEnded" => Event::MatchEnded {
            totals: f.value(intern!(py, "totals"))?,
            winners: f.seats_of(intern!(py, "winners"))?,
            parts: f.score_parts()?,
        },
        _ => return Err(f.format(format!("not an event: {}", describe(obj)))),
    })
}

/// A Python `TableMeld`.
fn table_meld_from_py(obj: &Bound<'_, PyAny>, deck_size: usize, seats: usize) -> PyResult<TableMeld> {
    let py = obj.py();
    let f = Fields {
        obj,
        deck_size,
        seats,
        range_reason: reasons::RECORD_FORMAT,
    };
    let kind = match f.value::<String>(intern!(py, "kind"))?.as_str() {
        "set" => MeldKind::Set,
        "run" => MeldKind::Run,
        other => return Err(f.format(format!("no meld kind {other:?}"))),
    };
    let mut jokers = Vec::new();
    for (id, stands) in f.value::<Bound<'_, PyDict>>(intern!(py, "jokers"))?.iter() {
        let id = f.card_of(id.extract().map_err(|e| f.format(format!("a joker's id: {e}")))?)?;
        let names: Vec<String> = stands
            .extract()
            .map_err(|e| f.format(format!("a joker's cards: {e}")))?;
        let cards = names
            .iter()
            .map(|n| {
                n.parse::<Card>()
                    .map_err(|e| f.format(format!("a joker's card {n:?}: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        jokers.push((id, cards));
    }
    Ok(TableMeld {
        owner: f.seat(intern!(py, "owner"))?,
        cards: f.cards(intern!(py, "cards"))?,
        kind,
        closed: f.value(intern!(py, "closed"))?,
        jokers,
        value: f.value(intern!(py, "value"))?,
    })
}

/// A Python `State` as the kernel's: any value that does not fit (a wrong
/// type, a card or a seat outside the game, an unknown phase) is
/// `RECORD_FORMAT`.
fn state_from_py(obj: &Bound<'_, PyAny>, deck_size: usize) -> PyResult<State> {
    let py = obj.py();
    let top = Fields {
        obj,
        deck_size,
        seats: 0,
        range_reason: reasons::RECORD_FORMAT,
    };
    let seat_objs: Vec<Bound<'_, PyAny>> = top.value(intern!(py, "seats"))?;
    let n = seat_objs.len();
    let f = Fields { seats: n, ..top };
    let mut seats = Vec::with_capacity(n);
    for s in &seat_objs {
        let g = Fields { obj: s, ..f };
        seats.push(SeatState {
            name: g.value(intern!(py, "name"))?,
            hand: g.cards(intern!(py, "hand"))?,
            opened: g.value(intern!(py, "opened"))?,
            first_laid_turn: g.value(intern!(py, "first_laid_turn"))?,
            turns: g.value(intern!(py, "turns"))?,
            resigned: g.value(intern!(py, "resigned"))?,
            total: g.value(intern!(py, "total"))?,
        });
    }
    let melds = f
        .value::<Vec<Bound<'_, PyAny>>>(intern!(py, "melds"))?
        .iter()
        .map(|m| table_meld_from_py(m, deck_size, n))
        .collect::<PyResult<Vec<_>>>()?;
    let mut results = Vec::new();
    for r in f.value::<Vec<Bound<'_, PyAny>>>(intern!(py, "results"))? {
        match event_from_py(&r, deck_size, n, reasons::RECORD_FORMAT)? {
            Event::RoundEnded(result) => results.push(result),
            _ => return Err(f.format("a state's results are RoundEnded events".to_string())),
        }
    }
    let phase_text: String = f.value(intern!(py, "phase"))?;
    let phase = Phase::parse(&phase_text).ok_or_else(|| f.format(format!("no phase {phase_text:?}")))?;
    let turn = f.seat_or_none(intern!(py, "turn"))?;
    if turn == NO_SEAT && matches!(phase, Phase::Draw | Phase::Play | Phase::Layoff) {
        return Err(f.format(format!("a round in phase {phase_text:?} has no seat to play")));
    }
    Ok(State {
        seats,
        round: f.value(intern!(py, "round"))?,
        dealer: f.seat_or_none(intern!(py, "dealer"))?,
        first_player: f.seat_or_none(intern!(py, "first_player"))?,
        turn,
        phase,
        stock: f.cards(intern!(py, "stock"))?,
        discard: f.cards(intern!(py, "discard"))?,
        melds,
        rebuilds: f.value(intern!(py, "rebuilds"))?,
        taken: f.opt_card(intern!(py, "taken"))?,
        must_open: f.value(intern!(py, "must_open"))?,
        pending_joker: f.opt_card(intern!(py, "pending_joker"))?,
        opened_this_turn: f.value(intern!(py, "opened_this_turn"))?,
        results,
        winners: f.seats_of(intern!(py, "winners"))?,
        version: f.value(intern!(py, "version"))?,
        first_upcard: f.value(intern!(py, "first_upcard"))?,
        passes: f.value(intern!(py, "passes"))?,
        repeated: f.value(intern!(py, "repeated"))?,
        drawn: f.value(intern!(py, "drawn"))?,
        wall_take: f.value(intern!(py, "wall_take"))?,
        knocker: f.opt_seat(intern!(py, "knocker"))?,
        knock_melds: f.value(intern!(py, "knock_melds"))?,
        big_gin: f.value(intern!(py, "big_gin"))?,
        defender_melded: f.value(intern!(py, "defender_melded"))?,
        accepted: f.value(intern!(py, "accepted"))?,
    })
}

// --- events and the state: Rust -> Python ---------------------------------------

fn ids_tuple<'py>(py: Python<'py>, ids: &[CardId]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, ids)
}

fn ids_list<'py>(py: Python<'py>, ids: &[CardId]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, ids)
}

fn melds_tuple<'py>(py: Python<'py>, melds: &[Vec<CardId>]) -> PyResult<Bound<'py, PyTuple>> {
    let inner = melds.iter().map(|m| ids_tuple(py, m)).collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, inner)
}

/// A seat of the state, -1 for [`NO_SEAT`].
fn seat_or_minus_one(seat: usize) -> i64 {
    if seat == NO_SEAT {
        -1
    } else {
        i64::try_from(seat).unwrap_or(-1)
    }
}

/// The engine's event class named `name` (an [`Event::type_name`]) and its
/// field names.
fn event_class<'a, 'py>(
    py: Python<'py>,
    c: &'a Classes,
    name: &str,
) -> PyResult<(&'a Bound<'py, PyType>, &'a [Py<PyString>])> {
    let i = EVENT_NAMES
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| PyValueError::new_err(format!("no engine class for {name}")))?;
    Ok((c.events[i].bind(py), &c.event_fields[i]))
}

/// Each seat's score parts as a tuple of tuples of `ScorePart`s.
fn score_parts_tuple<'py>(py: Python<'py>, parts: &[Vec<ScorePart>]) -> PyResult<Bound<'py, PyTuple>> {
    let c = classes(py)?;
    let cls = c.score_part.bind(py);
    let seats = parts
        .iter()
        .map(|seat| {
            let items = seat
                .iter()
                .map(|p| {
                    instance(
                        py,
                        cls,
                        &c.score_part_fields,
                        (p.kind.as_str(), p.points, p.base, p.factor, p.seat),
                    )
                })
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, seats)
}

/// A kernel's meld description as a `MeldDescription`.
fn meld_description_py<'py>(py: Python<'py>, d: &MeldDescription) -> PyResult<Bound<'py, PyAny>> {
    let c = classes(py)?;
    let jokers = d
        .jokers
        .iter()
        .map(|(index, cards)| {
            let names = PyTuple::new(py, cards.iter().map(Card::to_string))?;
            instance(py, c.meld_joker.bind(py), &c.meld_joker_fields, (*index, names))
        })
        .collect::<PyResult<Vec<_>>>()?;
    instance(
        py,
        c.meld_description.bind(py),
        &c.meld_description_fields,
        (d.kind.as_str(), d.value, PyTuple::new(py, jokers)?, d.closed, d.pure),
    )
}

fn described_tuple<'py>(py: Python<'py>, described: &[MeldDescription]) -> PyResult<Bound<'py, PyTuple>> {
    let items = described
        .iter()
        .map(|d| meld_description_py(py, d))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

fn described_opt<'py>(py: Python<'py>, described: Option<&MeldDescription>) -> PyResult<Option<Bound<'py, PyAny>>> {
    described.map(|d| meld_description_py(py, d)).transpose()
}

fn round_ended<'py>(
    py: Python<'py>,
    (cls, names): (&Bound<'py, PyType>, &[Py<PyString>]),
    r: &RoundResult,
) -> PyResult<Bound<'py, PyAny>> {
    instance(
        py,
        cls,
        names,
        (
            r.round,
            r.ending.as_str(),
            r.winner,
            r.closed_hand,
            PyTuple::new(py, &r.scores)?,
            melds_tuple(py, &r.hands)?,
            score_parts_tuple(py, &r.parts)?,
        ),
    )
}

fn event_to_py<'py>(py: Python<'py>, c: &Classes, e: &Event) -> PyResult<Bound<'py, PyAny>> {
    let (cls, names) = event_class(py, c, e.type_name())?;
    match e {
        Event::RoundStarted {
            round,
            dealer,
            first_player,
            hands,
            hand_sizes,
            upcard,
            stock_size,
            stock,
        } => {
            let hands = hands
                .iter()
                .map(|h| h.as_deref().map(|h| ids_tuple(py, h)).transpose())
                .collect::<PyResult<Vec<_>>>()?;
            instance(
                py,
                cls,
                names,
                (
                    *round,
                    *dealer,
                    *first_player,
                    PyTuple::new(py, hands)?,
                    PyTuple::new(py, hand_sizes)?,
                    *upcard,
                    *stock_size,
                    stock.as_deref().map(|s| ids_tuple(py, s)).transpose()?,
                ),
            )
        }
        Event::DrewFromStock { seat, card } => instance(py, cls, names, (*seat, *card)),
        Event::TookDiscard { seat, card } | Event::Discarded { seat, card } => instance(py, cls, names, (*seat, *card)),
        Event::DiscardPileTurnedOver { seat, rebuild } => instance(py, cls, names, (*seat, *rebuild)),
        Event::StockReshuffled {
            rebuild,
            kept,
            stock_size,
            stock,
        } => instance(
            py,
            cls,
            names,
            (
                *rebuild,
                *kept,
                *stock_size,
                stock.as_deref().map(|s| ids_tuple(py, s)).transpose()?,
            ),
        ),
        Event::MeldsLaid {
            seat,
            melds,
            opening,
            described,
        } => instance(
            py,
            cls,
            names,
            (
                *seat,
                melds_tuple(py, melds)?,
                *opening,
                described_tuple(py, described)?,
            ),
        ),
        Event::LaidOff {
            seat,
            card,
            meld,
            end,
            described,
        } => {
            let end = match end {
                End::Start => intern!(py, "start"),
                End::End => intern!(py, "end"),
            };
            instance(
                py,
                cls,
                names,
                (*seat, *card, *meld, end, described_opt(py, described.as_ref())?),
            )
        }
        Event::JokerSwapped {
            seat,
            card,
            meld,
            joker,
            described,
        } => instance(
            py,
            cls,
            names,
            (*seat, *card, *meld, *joker, described_opt(py, described.as_ref())?),
        ),
        Event::Resigned { seat } | Event::PassedUpcard { seat } | Event::LayoutAccepted { seat } => {
            instance(py, cls, names, (*seat,))
        }
        Event::Knocked {
            seat,
            discard,
            melds,
            deadwood,
            described,
        } => instance(
            py,
            cls,
            names,
            (
                *seat,
                *discard,
                melds_tuple(py, melds)?,
                *deadwood,
                described_tuple(py, described)?,
            ),
        ),
        Event::RoundEnded(r) => round_ended(py, (cls, names), r),
        Event::MatchEnded { totals, winners, parts } => instance(
            py,
            cls,
            names,
            (
                PyTuple::new(py, totals)?,
                PyTuple::new(py, winners)?,
                score_parts_tuple(py, parts)?,
            ),
        ),
    }
}

fn events_to_py<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let c = classes(py)?;
    let items = events
        .iter()
        .map(|e| event_to_py(py, c, e))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

fn table_meld_to_py<'py>(py: Python<'py>, c: &Classes, m: &TableMeld) -> PyResult<Bound<'py, PyAny>> {
    let jokers = PyDict::new(py);
    for (id, cards) in &m.jokers {
        jokers.set_item(*id, PyTuple::new(py, strings(cards))?)?;
    }
    c.table_meld.bind(py).call1((
        m.owner,
        ids_list(py, &m.cards)?,
        m.kind.as_str(),
        m.closed,
        jokers,
        m.value,
    ))
}

fn state_to_py<'py>(py: Python<'py>, s: &State) -> PyResult<Bound<'py, PyAny>> {
    let c = classes(py)?;
    let seats = s
        .seats
        .iter()
        .map(|x| {
            c.seat.bind(py).call1((
                x.name.as_str(),
                ids_list(py, &x.hand)?,
                x.opened,
                x.first_laid_turn,
                x.turns,
                x.resigned,
                x.total,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let melds = s
        .melds
        .iter()
        .map(|m| table_meld_to_py(py, c, m))
        .collect::<PyResult<Vec<_>>>()?;
    let round_ended_cls = event_class(py, c, "RoundEnded")?;
    let results = s
        .results
        .iter()
        .map(|r| round_ended(py, round_ended_cls, r))
        .collect::<PyResult<Vec<_>>>()?;
    let kw = PyDict::new(py);
    kw.set_item(intern!(py, "seats"), PyList::new(py, seats)?)?;
    kw.set_item(intern!(py, "round"), s.round)?;
    kw.set_item(intern!(py, "dealer"), seat_or_minus_one(s.dealer))?;
    kw.set_item(intern!(py, "first_player"), seat_or_minus_one(s.first_player))?;
    kw.set_item(intern!(py, "turn"), seat_or_minus_one(s.turn))?;
    kw.set_item(intern!(py, "phase"), s.phase.as_str())?;
    kw.set_item(intern!(py, "stock"), ids_list(py, &s.stock)?)?;
    kw.set_item(intern!(py, "discard"), ids_list(py, &s.discard)?)?;
    kw.set_item(intern!(py, "melds"), PyList::new(py, melds)?)?;
    kw.set_item(intern!(py, "rebuilds"), s.rebuilds)?;
    kw.set_item(intern!(py, "taken"), s.taken)?;
    kw.set_item(intern!(py, "must_open"), s.must_open)?;
    kw.set_item(intern!(py, "pending_joker"), s.pending_joker)?;
    kw.set_item(intern!(py, "opened_this_turn"), s.opened_this_turn)?;
    kw.set_item(intern!(py, "results"), PyList::new(py, results)?)?;
    kw.set_item(intern!(py, "winners"), PyTuple::new(py, &s.winners)?)?;
    kw.set_item(intern!(py, "version"), s.version)?;
    kw.set_item(intern!(py, "first_upcard"), s.first_upcard)?;
    kw.set_item(intern!(py, "passes"), s.passes)?;
    kw.set_item(intern!(py, "repeated"), s.repeated)?;
    kw.set_item(intern!(py, "drawn"), s.drawn)?;
    kw.set_item(intern!(py, "wall_take"), s.wall_take)?;
    kw.set_item(intern!(py, "knocker"), s.knocker)?;
    kw.set_item(intern!(py, "knock_melds"), s.knock_melds)?;
    kw.set_item(intern!(py, "big_gin"), s.big_gin)?;
    kw.set_item(intern!(py, "defender_melded"), s.defender_melded)?;
    kw.set_item(intern!(py, "accepted"), s.accepted)?;
    c.state.bind(py).call((), Some(&kw))
}

fn hint_to_py<'py>(py: Python<'py>, h: Hint) -> PyResult<Bound<'py, PyAny>> {
    let c = classes(py)?;
    let layoffs = h
        .layoffs
        .iter()
        .map(|&(card, meld, end)| command_to_py(py, c, &Command::lay_off(card, meld, end)))
        .collect::<PyResult<Vec<_>>>()?;
    let knock = h
        .knock
        .as_ref()
        .map(|(discard, melds)| command_to_py(py, c, &Command::knock(*discard, melds)))
        .transpose()?;
    hint_class(py)?.bind(py).call1((
        melds_tuple(py, &h.melds)?,
        h.melds_value,
        h.opening,
        Bound::new(py, deadwood_py(h.deadwood))?,
        PyTuple::new(py, layoffs)?,
        h.discard,
        knock,
        h.knock_unmatched,
    ))
}

// --- the game --------------------------------------------------------------------

/// A seed as the kernel takes it (its 32 little-endian bytes), `None` unless
/// an int (not a bool) with 0 <= seed < 2**256.
fn seed_bytes(seed: &Bound<'_, PyAny>) -> Option<[u8; 32]> {
    if !seed.is_instance_of::<PyInt>() || seed.is_instance_of::<PyBool>() {
        return None;
    }
    let py = seed.py();
    let bytes = seed
        .call_method1(intern!(py, "to_bytes"), (32, intern!(py, "little")))
        .ok()?;
    bytes.extract::<Vec<u8>>().ok()?.try_into().ok()
}

/// Stacked decks as card ids; a deck that is not a sequence of ids 0..=255
/// becomes empty, which no deck is (the setup's check refuses it as
/// `BAD_DECK`, in its turn among the checks).
fn decks_arg(decks: Option<&Bound<'_, PyAny>>) -> Vec<Vec<CardId>> {
    let Some(decks) = decks else { return Vec::new() };
    let Ok(iter) = decks.try_iter() else {
        return vec![Vec::new()];
    };
    iter.map(|d| {
        d.ok()
            .and_then(|d| {
                d.try_iter()
                    .ok()?
                    .map(|c| c.ok()?.extract::<CardId>().ok())
                    .collect::<Option<Vec<_>>>()
            })
            .unwrap_or_default()
    })
    .collect()
}

fn is_permutation(deck: &[CardId], size: usize) -> bool {
    let mut seen = vec![false; size];
    deck.len() == size
        && deck.iter().all(|&c| {
            let c = usize::from(c);
            c < size && !std::mem::replace(&mut seen[c], true)
        })
}

/// One match of rummy: its rules, setup and state, commands decided and
/// events folded by the kernel. Every method is deterministic.
#[pyclass(name = "GameKernel", module = "ramino._core")]
pub(crate) struct GameKernel {
    game: Game,
}

impl GameKernel {
    /// Whose turn it is now: `None` between rounds and once the match is over.
    fn turn_now(&self) -> Option<usize> {
        self.game.turn_now()
    }

    /// Folds `event` (the rules' own): a kernel error as `RecordError`.
    fn fold_own(&mut self, py: Python<'_>, event: &Event) -> PyResult<()> {
        kernel::apply_event(&mut self.game.state, event, &self.game.rules).map_err(|e| game_error(py, e))
    }

    /// Folds the follow-ups one step at a time until there are none,
    /// appending each event and whose turn it is after it.
    fn settle_into(&mut self, py: Python<'_>, out: &mut Vec<Event>, turns: &mut Vec<Option<usize>>) -> PyResult<()> {
        loop {
            let more = kernel::follow_up(&self.game.state, &self.game.rules, &self.game.setup);
            if more.is_empty() {
                return Ok(());
            }
            for e in more {
                self.fold_own(py, &e)?;
                out.push(e);
                turns.push(self.turn_now());
            }
        }
    }

    fn played<'py>(
        py: Python<'py>,
        events: &[Event],
        turns: Vec<Option<usize>>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyTuple>)> {
        Ok((events_to_py(py, events)?, PyTuple::new(py, turns)?))
    }

    fn seat_index(&self, seat: i64) -> PyResult<usize> {
        usize::try_from(seat)
            .ok()
            .filter(|&s| s < self.game.state.seats.len())
            .ok_or_else(|| PyIndexError::new_err(format!("no seat {seat}")))
    }
}

#[pymethods]
impl GameKernel {
    /// A game before its first deal (`settle` deals it). `seed`:
    /// 0 <= seed < 2**256; `decks`: stacked deck orders for the first rounds.
    #[new]
    #[pyo3(signature = (rules, players, seed, decks = None))]
    fn new(
        py: Python<'_>,
        rules: &GameRules,
        players: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        decks: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        // A name that is not a string is refused as an empty one is.
        let names = players
            .try_iter()?
            .map(|p| Ok(p?.extract::<String>().unwrap_or_default()))
            .collect::<PyResult<Vec<String>>>()?;
        let decks = decks_arg(decks);
        let rules = Arc::clone(&rules.rules);
        let checked = kernel::check_setup(&rules, &names, &decks);
        // The engine's order of checks: the players, the seed, then the rest.
        if let Err(e) = &checked {
            if e.reason == reasons::PLAYER_COUNT || e.reason == reasons::BAD_PLAYER_NAME {
                return Err(setup_error(py, e.clone()));
            }
        }
        let Some(seed) = seed_bytes(seed) else {
            return Err(setup_error(
                py,
                GameError::setup(reasons::BAD_SEED, "the seed is an integer from 0 to 2**256 - 1"),
            ));
        };
        checked.map_err(|e| setup_error(py, e))?;
        let state = State::new(&names);
        Ok(GameKernel {
            game: Game::from_state(rules, Setup { seed, decks }, state),
        })
    }

    /// The game whose state was kept elsewhere (a snapshot's
    /// `ramino.engine.state.State`); a value that does not fit is
    /// `RecordError` `RECORD_FORMAT`.
    #[staticmethod]
    fn from_state(
        py: Python<'_>,
        rules: &GameRules,
        seed: &Bound<'_, PyAny>,
        decks: &Bound<'_, PyAny>,
        state: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let rules = Arc::clone(&rules.rules);
        let format = |m: &str| record_error(py, reasons::RECORD_FORMAT, m.to_string());
        let seed = seed_bytes(seed).ok_or_else(|| format("the seed is an integer from 0 to 2**256 - 1"))?;
        let decks = decks_arg(Some(decks));
        if !decks.iter().all(|d| is_permutation(d, rules.deck_size)) {
            return Err(format("a stacked deck is a permutation of the deck's card ids"));
        }
        let state = state_from_py(state, rules.deck_size)?;
        Ok(GameKernel {
            game: Game::from_state(rules, Setup { seed, decks }, state),
        })
    }

    /// The events of `seat` issuing `command` now; nothing changes. Raises
    /// `IllegalMove` or `MalformedCommand`.
    fn decide<'py>(
        &self,
        py: Python<'py>,
        seat: &Bound<'py, PyAny>,
        command: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let command = command_from_py(command)?;
        let events = self.game.decide(raw_seat(seat), &command).map_err(|r| refused(py, r))?;
        events_to_py(py, &events)
    }

    /// Plays `command` for `seat`: the events (the command's, then those the
    /// state called for) and whose turn it is after each (None outside a
    /// round). A refusal changes nothing.
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        seat: &Bound<'py, PyAny>,
        command: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyTuple>)> {
        let command = command_from_py(command)?;
        let mut events = self.game.decide(raw_seat(seat), &command).map_err(|r| refused(py, r))?;
        let mut turns = Vec::with_capacity(events.len());
        for e in &events {
            self.fold_own(py, e)?;
            turns.push(self.turn_now());
        }
        self.settle_into(py, &mut events, &mut turns)?;
        Self::played(py, &events, turns)
    }

    /// Folds the events the state calls for (a new game's deal), one step at
    /// a time: the events and whose turn it is after each.
    fn settle<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyTuple>)> {
        let mut events = Vec::new();
        let mut turns = Vec::new();
        self.settle_into(py, &mut events, &mut turns)?;
        Self::played(py, &events, turns)
    }

    /// The events the state calls for now, not folded.
    fn follow_up<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        events_to_py(
            py,
            &kernel::follow_up(&self.game.state, &self.game.rules, &self.game.setup),
        )
    }

    /// Folds one event recorded elsewhere: `RecordError` (`RECORD_FORMAT` for
    /// a value that does not convert, `RECORD_INCONSISTENT` for one that does
    /// not fit the state, which is then unspecified).
    fn fold(&mut self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        let state = &self.game.state;
        let event = event_from_py(
            event,
            self.game.rules.deck_size,
            state.seats.len(),
            reasons::RECORD_INCONSISTENT,
        )?;
        self.game.fold(&event).map_err(|e| game_error(py, e))
    }

    /// The moves `seat` may make now (empty when it is not its turn).
    fn legal_moves<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyList>> {
        let Ok(seat) = self.seat_index(seat) else {
            return PyList::new(py, Vec::<Bound<'_, PyAny>>::new());
        };
        let game = &self.game;
        let moves = py.allow_threads(|| game.legal_moves(seat));
        commands_to_py(py, &moves)
    }

    /// The greedy policy's command for `seat` now (the kernel's
    /// `game::greedy`), `None` when it has none; `discard(allowed, best)`
    /// chooses each discard: the cards the policy lets the seat discard and
    /// the best of them by the discard policy, as lists of card ids; it
    /// returns a card id (one outside `allowed` counts as the first of
    /// `best`). An error it raises is raised here.
    fn greedy<'py>(
        &self,
        py: Python<'py>,
        seat: i64,
        discard: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let seat = self.seat_index(seat)?;
        let mut failed: Option<PyErr> = None;
        let mut chooser = |allowed: &[CardId], best: &[CardId]| -> CardId {
            let chosen = discard
                .call1((allowed.to_vec(), best.to_vec()))
                .and_then(|c| c.extract::<CardId>());
            match chosen {
                Ok(card) => card,
                Err(e) => {
                    failed.get_or_insert(e);
                    best[0]
                }
            }
        };
        let game = &self.game;
        let found = kernel::greedy::choose_with(&game.state, &game.rules, seat, &mut chooser);
        if let Some(e) = failed {
            return Err(e);
        }
        let c = classes(py)?;
        found.map(|cmd| command_to_py(py, c, &cmd)).transpose()
    }

    /// Gin: the knocks `seat` may make now, best (least unmatched) first
    /// (empty when it may not knock).
    fn knocks<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyList>> {
        let Ok(seat) = self.seat_index(seat) else {
            return PyList::new(py, Vec::<Bound<'_, PyAny>>::new());
        };
        let game = &self.game;
        let found = py.allow_threads(|| kernel::knocks(&game.state, &game.rules, seat));
        commands_to_py(py, &found)
    }

    /// The hint on `seat`'s hand (`ramino.engine.hint.Hint`), None when it
    /// holds no card; `legal`: its legal moves now, when the caller has them.
    #[pyo3(signature = (seat, legal = None))]
    fn hint<'py>(
        &self,
        py: Python<'py>,
        seat: i64,
        legal: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let seat = self.seat_index(seat)?;
        let legal = match legal {
            None => None,
            Some(l) => Some(
                l.try_iter()?
                    .map(|m| command_from_py(&m?))
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        let game = &self.game;
        let found = py.allow_threads(|| game.hint(seat, legal.as_deref()));
        found.map(|h| hint_to_py(py, h)).transpose()
    }

    /// A fresh `ramino.engine.state.State` of the game now.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        state_to_py(py, &self.game.state)
    }

    /// The rules this game is played by.
    #[getter]
    fn rules(&self) -> GameRules {
        GameRules {
            rules: Arc::clone(&self.game.rules),
        }
    }

    /// Events folded so far.
    #[getter]
    fn version(&self) -> u64 {
        self.game.state.version
    }

    /// Whose turn it is: None between rounds and once the match is over.
    #[getter]
    fn turn(&self) -> Option<usize> {
        self.turn_now()
    }

    #[getter]
    fn phase(&self) -> &'static str {
        self.game.state.phase.as_str()
    }

    #[getter]
    fn finished(&self) -> bool {
        self.game.state.phase == Phase::Over
    }

    #[getter]
    fn round(&self) -> u32 {
        self.game.state.round
    }

    /// Empty while every card is in exactly one place.
    fn conservation_errors(&self) -> Vec<String> {
        kernel::conservation_errors(&self.game.state, self.game.rules.deck_size)
    }

    /// `seat`'s hand, in hand order.
    fn hand<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyTuple>> {
        let seat = self.seat_index(seat)?;
        ids_tuple(py, &self.game.state.seats[seat].hand)
    }

    fn __repr__(&self) -> String {
        let s = &self.game.state;
        format!(
            "GameKernel('{}', round={}, phase='{}', version={})",
            self.game.rules.variant.name,
            s.round,
            s.phase.as_str(),
            s.version
        )
    }
}

// --- policies --------------------------------------------------------------------

/// Card ids of the rules' deck, else `MalformedCommand` `UNKNOWN_CARD`.
fn ids_arg(py: Python<'_>, rules: &Rules, ids: &[i64]) -> PyResult<Vec<CardId>> {
    ids.iter().map(|&c| id_arg(py, rules, c)).collect()
}

fn id_arg(py: Python<'_>, rules: &Rules, id: i64) -> PyResult<CardId> {
    CardId::try_from(id)
        .ok()
        .filter(|&c| usize::from(c) < rules.deck_size)
        .ok_or_else(|| unknown_card(py, id, rules.deck_size))
}

fn opt_id_arg(py: Python<'_>, rules: &Rules, id: Option<i64>) -> PyResult<Option<CardId>> {
    id.map(|c| id_arg(py, rules, c)).transpose()
}

/// The cards of `hand` worth offering to end the turn, in hand order.
#[pyfunction]
#[pyo3(signature = (rules, hand, taken, pending))]
fn discardable<'py>(
    py: Python<'py>,
    rules: &GameRules,
    hand: Vec<i64>,
    taken: Option<i64>,
    pending: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let r = &rules.rules;
    let out = kernel::policy::discardable(
        r,
        &ids_arg(py, r, &hand)?,
        opt_id_arg(py, r, taken)?,
        opt_id_arg(py, r, pending)?,
    );
    ids_list(py, &out)
}

/// How good a discard each card of `allowed` is, higher better (in
/// `allowed` order); `deadwood`: the hand's least deadwood, when known.
#[pyfunction]
#[pyo3(signature = (rules, hand, allowed, deadwood = None))]
fn discard_scores<'py>(
    py: Python<'py>,
    rules: &GameRules,
    hand: Vec<i64>,
    allowed: Vec<i64>,
    deadwood: Option<PyRef<'_, PyDeadwood>>,
) -> PyResult<Bound<'py, PyDict>> {
    let r = &rules.rules;
    let allowed = ids_arg(py, r, &allowed)?;
    let d = deadwood.map(|d| d.to_core());
    let scores = kernel::policy::discard_scores(r, &ids_arg(py, r, &hand)?, &allowed, d.as_ref());
    let out = PyDict::new(py);
    for c in &allowed {
        if let Some(s) = scores.get(c) {
            out.set_item(*c, *s)?;
        }
    }
    Ok(out)
}

/// The cards of `allowed` that `discard_scores` ranks best, in the order
/// given.
#[pyfunction]
#[pyo3(signature = (rules, hand, allowed, deadwood = None))]
fn best_discards<'py>(
    py: Python<'py>,
    rules: &GameRules,
    hand: Vec<i64>,
    allowed: Vec<i64>,
    deadwood: Option<PyRef<'_, PyDeadwood>>,
) -> PyResult<Bound<'py, PyList>> {
    let r = &rules.rules;
    let d = deadwood.map(|d| d.to_core());
    let out = kernel::policy::best_discards(r, &ids_arg(py, r, &hand)?, &ids_arg(py, r, &allowed)?, d.as_ref());
    ids_list(py, &out)
}

/// Every card melds but going out needs a discard: the melds less one card
/// kept back, else less the meld of least value.
#[pyfunction]
fn keep_one(melds: &Bound<'_, PyAny>, variant: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<String>>> {
    let melds = table_arg(melds)?;
    let v = variant_arg(variant)?;
    Ok(kernel::policy::keep_one(&melds, &v)
        .iter()
        .map(|m| strings(m))
        .collect())
}

/// The cards a joker's meld was searched in and its melds by card.
type JokerMeld<'py> = (Bound<'py, PyList>, Vec<Vec<String>>);

/// A way to lay a swapped joker of `hand` in new melds and keep a card that
/// may be discarded: the cards searched and the melds by card; None when
/// there is none.
#[pyfunction]
fn joker_meld<'py>(
    py: Python<'py>,
    rules: &GameRules,
    taken: Option<i64>,
    hand: Vec<i64>,
) -> PyResult<Option<JokerMeld<'py>>> {
    let r = &rules.rules;
    let found = kernel::joker_meld(r, opt_id_arg(py, r, taken)?, &ids_arg(py, r, &hand)?);
    found
        .map(|(rest, melds)| Ok((ids_list(py, &rest)?, melds.iter().map(|m| strings(m)).collect())))
        .transpose()
}

/// The unmatched total that a knock of `discard` and `melds` shows of `hand`.
#[pyfunction]
fn knock_unmatched(
    py: Python<'_>,
    rules: &GameRules,
    hand: Vec<i64>,
    discard: Option<i64>,
    melds: Vec<Vec<i64>>,
) -> PyResult<u32> {
    let r = &rules.rules;
    let melds = melds.iter().map(|m| ids_arg(py, r, m)).collect::<PyResult<Vec<_>>>()?;
    Ok(kernel::policy::knock_unmatched(
        r,
        &ids_arg(py, r, &hand)?,
        opt_id_arg(py, r, discard)?,
        &melds,
    ))
}

/// Whether `card` may not be discarded in a turn that took `taken`.
#[pyfunction]
fn undiscardable(py: Python<'_>, rules: &GameRules, taken: Option<i64>, card: i64) -> PyResult<bool> {
    let r = &rules.rules;
    Ok(kernel::undiscardable(
        r,
        opt_id_arg(py, r, taken)?,
        id_arg(py, r, card)?,
    ))
}

/// Every meld that `cards` hold, for a deck without jokers.
#[pyfunction]
fn hand_melds(cards: &Bound<'_, PyAny>, variant: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<String>>> {
    let cards = cards_arg(cards)?;
    let v = variant_arg(variant)?;
    Ok(kernel::hand_melds(&cards, &v).iter().map(|m| strings(m)).collect())
}

/// The least unmatched total of `cards` less one discard.
#[pyfunction]
fn knock_deadwood(cards: &Bound<'_, PyAny>, rules: &GameRules) -> PyResult<u32> {
    Ok(kernel::knock_deadwood(&cards_arg(cards)?, &rules.rules))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GameRules>()?;
    m.add_class::<GameKernel>()?;
    m.add("MAX_MELD_MOVES", kernel::MAX_MELD_MOVES)?;
    m.add("MAX_LAYOFF_MOVES", kernel::MAX_LAYOFF_MOVES)?;
    m.add("MAX_SWAP_MOVES", kernel::MAX_SWAP_MOVES)?;
    m.add_function(wrap_pyfunction!(discardable, m)?)?;
    m.add_function(wrap_pyfunction!(discard_scores, m)?)?;
    m.add_function(wrap_pyfunction!(best_discards, m)?)?;
    m.add_function(wrap_pyfunction!(keep_one, m)?)?;
    m.add_function(wrap_pyfunction!(joker_meld, m)?)?;
    m.add_function(wrap_pyfunction!(knock_unmatched, m)?)?;
    m.add_function(wrap_pyfunction!(undiscardable, m)?)?;
    m.add_function(wrap_pyfunction!(hand_melds, m)?)?;
    m.add_function(wrap_pyfunction!(knock_deadwood, m)?)?;
    Ok(())
}
