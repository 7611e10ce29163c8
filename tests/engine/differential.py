"""The harness of the golden games (issue 31): an engine replays games that
the frozen Python engine played, command by command, and every answer is
compared with the one it gave.

The Python engine the kernel replaced played those games beside the kernel
(the differential proof, run in full at commit 43b0902, where the engine lay
frozen under ``tests/engine_reference`` and ``bench/kernel_differential.py``
ran it); ``tests/vectors/games`` keeps a compact corpus of them, inputs and
expected outputs (:func:`replay_vector` checks a side against one).

Two sides stand behind one small interface (:class:`Side`):
:class:`KernelSide` (the Rust kernel, ``ramino._core.GameKernel``) and
:class:`LiveSide` (``ramino.engine.Game``, the kernel behind the engine's
names, as the service plays it). Every answer is normalized to plain data
(lists, dicts, ints, strings) before it is compared, so the classes of each
side never matter:

- an event or a command: its fields by name, with its class name under
  ``"type"`` (as :func:`ramino.engine.to_data` writes it);
- a refusal: ``[kind, reason, detail]`` (``IllegalMove`` or
  ``MalformedCommand``; ``detail`` ``None`` but for a meld's finer reason);
- the state: the fields :data:`STATE_FIELDS`, its seats' and table melds'
  (:data:`SEAT_FIELDS`, :data:`MELD_FIELDS`; a meld's jokers in their order);
- a hint: the fields :data:`HINT_FIELDS`, the deadwood as ``[value, melds,
  deadwood]``.

:func:`play_and_compare` plays one game on the live engine and on another
side (the raw binding by default, which tests the engine's conversions
against it). At every step it compares, for every seat, the legal moves and
the hint (seats holding cards); picks the command of the seat on turn by a
policy, from the live engine's legal moves (``random``, ``greedy``, ``hard``,
``mixed``); decides a few probe commands on both sides (illegal or malformed
ones, another seat's move, a Resign) and compares the answers; then applies
the command on both and compares the events, whose turn each event leaves,
and the whole state. The first difference raises :class:`Mismatch`, which
says how to replay it.

:func:`hidden_information` is the property that a seat's view, legal moves and
hint do not change when the cards it cannot see (the other hands and the
stock) are permuted among themselves; :func:`hidden_information_midgame`
checks it along a game of the live engine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import ramino
import ramino.engine as live
from ramino import _core
from ramino.engine.context import rules_for
from ramino.engine.deck import round_seed
from ramino.errors import RaminoError

__all__ = [
    "GAME_POLICIES",
    "HINT_FIELDS",
    "MELD_FIELDS",
    "POLICIES",
    "SEAT_FIELDS",
    "STATE_FIELDS",
    "VECTOR_FORMAT",
    "GameResult",
    "KernelSide",
    "LiveSide",
    "Mismatch",
    "ParameterSet",
    "Side",
    "Stats",
    "first_difference",
    "hidden_information",
    "hidden_information_midgame",
    "parameter_sets",
    "play_and_compare",
    "policy_of",
    "replay_vector",
    "seed_of",
]

Data = Any
"""Plain data: None, bool, int, str, lists and dicts of them."""

POLICIES = ("random", "greedy", "hard", "mixed")
"""How the seat on turn picks its command: at random among the live engine's
legal moves (Resign now and then); the greedy bot; the searching bot at a
fixed number of deals and no clock; random for even seats and greedy for odd
ones."""

VECTOR_FORMAT = "ramino.differential/1"
"""The format of the golden games: a vector's digests are over the fields
below."""

NEWER_FIELDS: dict[str, tuple[str, str]] = {
    "RoundEnded": ("parts", "scores"),
    "MatchEnded": ("parts", "totals"),
    "MeldsLaid": ("described", "melds"),
    "Knocked": ("described", "melds"),
    "LaidOff": ("described", "meld"),
    "JokerSwapped": ("described", "meld"),
}
"""Per event type, a field the kernel gives that the frozen Python engine
had none of, so that no vector keeps it (issue 43: what each seat's score is
made of; issue 44: what the kernel decided of each meld it laid or
changed), and the field it explains. :func:`replay_vector` compares and
digests a side's answers without it, having checked it against what the
vectors do keep: one entry per seat whose parts' points sum to its score
(or total); one description per meld laid, one of the meld a lay-off or a
swap changed."""


def vector_kept(data: Data) -> Data:
    """``data`` (plain data of a side) without :data:`NEWER_FIELDS`, each
    checked first; ``AssertionError`` when one does not explain its field."""
    if isinstance(data, list):
        return [vector_kept(v) for v in data]
    if not isinstance(data, dict):
        return data
    newer = NEWER_FIELDS.get(data.get("type"))  # type: ignore[arg-type]
    out = {k: vector_kept(v) for k, v in data.items() if newer is None or k != newer[0]}
    if newer is not None and newer[0] == "parts":
        parts, explained = data[newer[0]], data[newer[1]]
        sums = [sum(p["points"] for p in seat) for seat in parts]
        assert (
            sums == explained
        ), f"{data['type']}'s {newer[0]} {parts} do not sum to its {explained}"
    elif newer is not None:
        described, explained = data[newer[0]], data[newer[1]]
        if isinstance(explained, list):
            assert len(described) == len(explained) and all(
                d["kind"] in ("set", "run") for d in described
            ), f"{data['type']}'s described {described} do not describe its melds {explained}"
        else:
            assert described is not None and described["kind"] in (
                "set",
                "run",
            ), f"{data['type']} does not describe meld {explained}"
    return out


class _VectorSide:
    """A side as a golden vector sees it: its answers without
    :data:`NEWER_FIELDS` (:func:`vector_kept`)."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.name = side.name

    def new(
        self,
        variant: str,
        overrides: Mapping[str, Data],
        players: Sequence[str],
        seed: int,
        decks: Sequence[Sequence[int]] = (),
    ) -> list[list[Data]]:
        kept: list[list[Data]] = vector_kept(
            self.side.new(variant, overrides, players, seed, decks)
        )
        return kept

    def decide(self, seat: Data, command: Mapping[str, Data]) -> Data:
        return vector_kept(self.side.decide(seat, command))

    def apply(self, seat: Data, command: Mapping[str, Data]) -> Data:
        return vector_kept(self.side.apply(seat, command))

    def state(self) -> Data:
        return vector_kept(self.side.state())

    def legal_moves(self, seat: int) -> list[Data]:
        return self.side.legal_moves(seat)

    def hint(self, seat: int, with_legal: bool) -> Data:
        return self.side.hint(seat, with_legal)

    def view(self, seat: int) -> Data:
        return self.side.view(seat)


MAX_STEPS = 1500
"""Commands after which a game is closed: the seats resign one by one, in
seat order, until the match ends (a random match to a target score may
otherwise never end)."""

# --- normalization -------------------------------------------------------------

STATE_FIELDS = (
    "seats",
    "round",
    "dealer",
    "first_player",
    "turn",
    "phase",
    "stock",
    "discard",
    "melds",
    "rebuilds",
    "taken",
    "must_open",
    "pending_joker",
    "opened_this_turn",
    "results",
    "winners",
    "version",
    "first_upcard",
    "passes",
    "repeated",
    "drawn",
    "wall_take",
    "knocker",
    "knock_melds",
    "big_gin",
    "defender_melded",
    "accepted",
)
"""The state's fields compared, and digested by a vector of
:data:`VECTOR_FORMAT`, so written out rather than read from the state's
class: every field of :class:`ramino.engine.state.State`, which
``test_golden_games`` checks (it fails when the state gains a field)."""

SEAT_FIELDS = ("name", "hand", "opened", "first_laid_turn", "turns", "resigned", "total")
"""A seat's fields: every field of :class:`ramino.engine.state.Seat`."""

MELD_FIELDS = ("owner", "cards", "kind", "closed", "jokers", "value")
"""A table meld's fields: every field of :class:`ramino.engine.state.TableMeld`
but its ``view`` (built from the others, for views)."""

HINT_FIELDS = (
    "melds",
    "melds_value",
    "opening",
    "deadwood",
    "layoffs",
    "discard",
    "knock",
    "knock_unmatched",
)
"""A hint's fields: every field of :class:`ramino.engine.Hint`."""


_FIELDS: dict[type, tuple[str, ...]] = {}


def plain(value: object) -> Data:
    """``value`` as plain data (tuples become lists, dataclasses dicts with
    their class name under ``"type"``)."""
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if kind is tuple or kind is list:
        return [v if type(v) is int else plain(v) for v in value]  # type: ignore[attr-defined]
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        out: dict[str, Data] = {"type": kind.__name__}
        for name in names:
            out[name] = plain(getattr(value, name))
        return out
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def state_data(state: Any) -> Data:
    """A state's :data:`STATE_FIELDS` (a live or a kernel's :class:`State`)."""
    out: dict[str, Data] = {}
    for name in STATE_FIELDS:
        value = getattr(state, name)
        if name == "seats":
            out[name] = [{f: plain(getattr(s, f)) for f in SEAT_FIELDS} for s in value]
        elif name == "melds":
            out[name] = [_meld_data(m) for m in value]
        else:
            out[name] = plain(value)
    return out


def _meld_data(meld: Any) -> Data:
    out: dict[str, Data] = {}
    for name in MELD_FIELDS:
        value = getattr(meld, name)
        if name == "jokers":
            out[name] = [[card, list(stands)] for card, stands in value.items()]
        else:
            out[name] = plain(value)
    return out


def hint_data(hint: Any) -> Data:
    if hint is None:
        return None
    out: dict[str, Data] = {}
    for name in HINT_FIELDS:
        value = getattr(hint, name)
        if name == "deadwood":
            out[name] = [value.value, plain(list(value.melds)), plain(list(value.deadwood))]
        else:
            out[name] = plain(value)
    return out


def digest(data: Data) -> str:
    """A short SHA-256 of ``data``'s canonical JSON: how a golden vector
    keeps what it does not keep whole (40 bits: one chance in a trillion, per
    step, that a difference goes unseen; a corpus holds about 10**5 steps)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def _tuples(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


@dataclass(frozen=True, slots=True)
class NotACommand:
    """What a client might send that is no command at all (a probe)."""


def build_command(data: Mapping[str, Data], types: Mapping[str, type]) -> object:
    """The command ``data`` describes, of one side's classes, its fields as
    they are (a probe may hold a bool where a card id goes)."""
    cls = types.get(data["type"])
    if cls is None:
        return NotACommand()
    return cls(**{k: _tuples(v) for k, v in data.items() if k != "type"})


def _refusal(e: Exception) -> Data:
    if isinstance(e, RaminoError):
        return [type(e).__name__, e.reason, getattr(e, "detail", None)]
    return ["error", type(e).__name__, str(e)]


# --- the sides -----------------------------------------------------------------


class Side(Protocol):
    """One engine, playing one game at a time; every answer plain data."""

    name: str

    def new(
        self,
        variant: str,
        overrides: Mapping[str, Data],
        players: Sequence[str],
        seed: int,
        decks: Sequence[Sequence[int]] = (),
    ) -> list[list[Data]]:
        """Creates the game (its first round dealt): the deal's events and
        whose turn each left."""
        ...

    def decide(self, seat: Data, command: Mapping[str, Data]) -> Data:
        """``["ok", events]`` or ``[kind, reason, detail]``; nothing changes."""
        ...

    def apply(self, seat: Data, command: Mapping[str, Data]) -> Data:
        """``["ok", events, turns]`` or ``[kind, reason, detail]``."""
        ...

    def state(self) -> Data: ...

    def legal_moves(self, seat: int) -> list[Data]: ...

    def hint(self, seat: int, with_legal: bool) -> Data:
        """The hint, computed with the side's own legal moves handed in when
        ``with_legal``, else by the hint itself."""
        ...

    def view(self, seat: int) -> Data: ...


class LiveSide:
    """``ramino.engine.Game`` as the service uses it: the kernel behind the
    engine's names (a decision's events from the game's own kernel,
    ``Game._kernel.decide``, as ``Game.check`` gives only the refusal)."""

    name = "live"

    def __init__(self) -> None:
        self.game: Any = None

    def new(
        self,
        variant: str,
        overrides: Mapping[str, Data],
        players: Sequence[str],
        seed: int,
        decks: Sequence[Sequence[int]] = (),
    ) -> list[list[Data]]:
        self.game = live.Game.new(
            variant, list(players), seed=seed, overrides=dict(overrides), decks=decks
        )
        return [[plain(e) for e in self.game.record.events], list(self.game.turns)]

    def command(self, data: Mapping[str, Data]) -> object:
        return build_command(data, live.COMMAND_TYPES)

    def decide(self, seat: Data, command: Mapping[str, Data]) -> Data:
        try:
            events = self.game._kernel.decide(seat, self.command(command))
        except Exception as e:  # every refusal and crash is an answer to compare
            return _refusal(e)
        return ["ok", [plain(e) for e in events]]

    def apply(self, seat: Data, command: Mapping[str, Data]) -> Data:
        try:
            events = self.game.apply(seat, self.command(command))
        except Exception as e:
            return _refusal(e)
        return ["ok", [plain(e) for e in events], list(self.game.turns)]

    def state(self) -> Data:
        return state_data(self.game.state)

    def legal_moves(self, seat: int) -> list[Data]:
        return [plain(m) for m in self.game.legal_moves(seat)]

    def hint(self, seat: int, with_legal: bool) -> Data:
        legal = self.game.legal_moves(seat) if with_legal else None
        return hint_data(self.game.hint(seat, legal))

    def view(self, seat: int) -> Data:
        return plain(self.game.view(seat))


class KernelSide:
    """The Rust kernel through ``ramino._core.GameKernel``: commands, events
    and hints are the live ``ramino.engine`` classes."""

    name = "kernel"

    def __init__(self) -> None:
        self.kernel: Any = None
        self._variant = ""
        self._overrides: dict[str, Data] = {}

    def new(
        self,
        variant: str,
        overrides: Mapping[str, Data],
        players: Sequence[str],
        seed: int,
        decks: Sequence[Sequence[int]] = (),
    ) -> list[list[Data]]:
        self._variant, self._overrides = variant, dict(overrides)
        rules = _core.GameRules(ramino.Variant(variant, **overrides))
        self.kernel = _core.GameKernel(rules, list(players), seed, decks=[list(d) for d in decks])
        events, turns = self.kernel.settle()
        return [[plain(e) for e in events], list(turns)]

    def command(self, data: Mapping[str, Data]) -> object:
        return build_command(data, live.COMMAND_TYPES)

    def decide(self, seat: Data, command: Mapping[str, Data]) -> Data:
        try:
            events = self.kernel.decide(seat, self.command(command))
        except Exception as e:
            return _refusal(e)
        return ["ok", [plain(e) for e in events]]

    def apply(self, seat: Data, command: Mapping[str, Data]) -> Data:
        try:
            events, turns = self.kernel.apply(seat, self.command(command))
        except Exception as e:
            return _refusal(e)
        return ["ok", [plain(e) for e in events], list(turns)]

    def state(self) -> Data:
        return state_data(self.kernel.state())

    def legal_moves(self, seat: int) -> list[Data]:
        return [plain(m) for m in self.kernel.legal_moves(seat)]

    def hint(self, seat: int, with_legal: bool) -> Data:
        legal = self.kernel.legal_moves(seat) if with_legal else None
        return hint_data(self.kernel.hint(seat, legal))

    def view(self, seat: int) -> Data:
        from ramino.engine.views import build_view

        rules = rules_for(self._variant, self._overrides)
        return plain(build_view(self.kernel.state(), rules, seat))


# --- policies ------------------------------------------------------------------


class _Policy:
    """Chooses the command of the seat on turn, from the live game."""

    def __init__(self, kind: str, seed: int) -> None:
        if kind not in POLICIES:
            raise ValueError(f"unknown policy {kind!r}: one of {POLICIES}")
        self.kind = kind
        self.rng = random.Random(f"policy {seed}")
        self._bots: dict[int, Any] = {}

    def _bot(self, seat: int, seed: int) -> Any:
        bot = self._bots.get(seat)
        if bot is None:
            if self.kind == "hard":
                from ramino.bots.search import Budget, SearchBot

                budget = Budget(time_ms=None, iterations=12, width=3)
                bot = SearchBot(seed * 8 + seat, "hard", budget)
            else:
                from ramino.bots.greedy import GreedyBot

                bot = GreedyBot(seed * 8 + seat)
            self._bots[seat] = bot
        return bot

    def choose(self, game: Any, seat: int, seed: int) -> Data:
        kind = self.kind
        if kind == "mixed":
            kind = "random" if seat % 2 == 0 else "greedy"
        if kind == "random":
            moves = game.legal_moves(seat)
            if not moves or self.rng.random() < 0.002:
                return {"type": "Resign"}
            return plain(self.rng.choice(moves))
        return plain(self._bot(seat, seed).choose(game, seat))


# --- probes --------------------------------------------------------------------


def _probes(rng: random.Random, game: Any, seat: int, chosen: Data, k: int) -> list[list[Data]]:
    """``k`` probe commands ``[seat, command]`` for the position of ``game``
    (the live one), drawn from the kinds below: most are refused, with a
    reason that the other side must give too."""
    state = game.state
    rules = game.rules
    n = len(state.seats)
    deck = rules.deck_size
    hand = list(state.seats[seat].hand)
    melds = state.melds
    others = [s for s in range(n) if s != seat]

    def card() -> int:
        return rng.choice(hand) if hand and rng.random() < 0.8 else rng.randrange(-1, deck + 1)

    def some(count: int) -> list[int]:
        return rng.sample(hand, min(count, len(hand))) if hand else [rng.randrange(deck)]

    def meld_index() -> int:
        return (
            rng.randrange(len(melds))
            if melds and rng.random() < 0.8
            else len(melds) + rng.randrange(3)
        )

    def joker_of(i: int) -> int:
        if 0 <= i < len(melds) and melds[i].jokers and rng.random() < 0.8:
            return rng.choice(list(melds[i].jokers))
        return rng.randrange(deck)

    def end() -> str:
        return rng.choice(("start", "end"))

    def lay() -> list[list[int]]:
        cards = some(rng.choice((3, 3, 4, 5)))
        if rng.random() < 0.5:
            names = rules.names
            cards.sort(key=lambda c: (names[c][1], "A23456789TJQK".find(names[c][0])))
        return [cards]

    def partition(cards: list[int]) -> list[list[int]]:
        """Some melds of the least deadwood of ``cards`` (every one, or a
        random few): real melds, for the opening's and the knock's rules."""
        names = rules.names
        if not cards or len(cards) > ramino.MAX_HAND:
            return []
        found = [
            list(m) for m in ramino.min_deadwood([names[c] for c in cards], rules.variant).melds
        ]
        if found and rng.random() < 0.5:
            found = rng.sample(found, rng.randint(1, len(found)))
        pools: dict[str, list[int]] = {}
        for c in cards:
            pools.setdefault(names[c], []).append(c)
        return [[pools[n].pop(0) for n in m] for m in found]

    def knock() -> Data:
        d = card()
        return {"type": "Knock", "discard": d, "melds": partition([c for c in hand if c != d])}

    def layoff() -> Data:
        names = rules.names
        table = [[names[c] for c in m.cards] for m in melds]
        targets = ramino.layoff_targets([names[c] for c in hand], table, rules.variant)
        if not targets:
            return {"type": "LayOff", "card": card(), "meld": meld_index(), "end": end()}
        lo = rng.choice(targets)
        ids = [c for c in hand if names[c] == lo.card]
        return {"type": "LayOff", "card": rng.choice(ids), "meld": lo.meld, "end": lo.end}

    makers: list[Callable[[], list[Data]]] = [
        lambda: [seat, {"type": "LayMelds", "melds": partition(hand) or lay()}],
        lambda: [seat, {"type": "LayMelds", "melds": partition(hand) or lay()}],
        lambda: [seat, layoff()],
        lambda: [seat, knock()],
        lambda: [seat, {"type": "Knock", "discard": None, "melds": partition(hand)}],
        lambda: [seat, {"type": "Discard", "card": card()}],
        lambda: [seat, {"type": "LayMelds", "melds": lay()}],
        lambda: [seat, {"type": "LayOff", "card": card(), "meld": meld_index(), "end": end()}],
        lambda: [
            seat,
            (lambda i: {"type": "SwapJoker", "card": card(), "meld": i, "joker": joker_of(i)})(
                meld_index()
            ),
        ],
        lambda: [seat, {"type": "Knock", "discard": card(), "melds": lay()}],
        lambda: [seat, {"type": "Knock", "discard": rng.choice((None, card())), "melds": []}],
        lambda: [
            seat,
            {"type": rng.choice(("DrawFromStock", "TakeDiscard", "TurnOverDiscardPile"))},
        ],
        lambda: [seat, {"type": rng.choice(("PassUpcard", "AcceptLayout", "DrawFromStock"))}],
        lambda: [rng.choice(others), chosen],
        lambda: [rng.choice(others), {"type": "Resign"}],
        lambda: [rng.choice((n, -1, True, n + 5)), chosen],
        lambda: [seat, rng.choice(_MALFORMED)(rng, hand, deck)],
    ]
    return [rng.choice(makers)() for _ in range(k)]


def _first(hand: list[int], deck: int) -> int:
    return hand[0] if hand else deck - 1


_MALFORMED: list[Callable[[random.Random, list[int], int], Data]] = [
    lambda rng, hand, deck: {"type": "Discard", "card": rng.choice((True, False, "3", None))},
    lambda rng, hand, deck: {"type": "Discard", "card": rng.choice((deck, deck + 7, -3))},
    lambda rng, hand, deck: {"type": "LayMelds", "melds": []},
    lambda rng, hand, deck: {"type": "LayMelds", "melds": [[_first(hand, deck)] * 3]},
    lambda rng, hand, deck: {"type": "LayMelds", "melds": [[_first(hand, deck), True, 2]]},
    lambda rng, hand, deck: {"type": "LayMelds", "melds": [[0, 1, deck]]},
    lambda rng, hand, deck: {
        "type": "LayOff",
        "card": _first(hand, deck),
        "meld": 0,
        "end": "middle",
    },
    lambda rng, hand, deck: {
        "type": "LayOff",
        "card": _first(hand, deck),
        "meld": rng.choice((-1, True)),
        "end": "end",
    },
    lambda rng, hand, deck: {"type": "LayOff", "card": False, "meld": 0, "end": "start"},
    lambda rng, hand, deck: {
        "type": "SwapJoker",
        "card": _first(hand, deck),
        "meld": -2,
        "joker": 0,
    },
    lambda rng, hand, deck: {
        "type": "SwapJoker",
        "card": _first(hand, deck),
        "meld": 0,
        "joker": deck,
    },
    lambda rng, hand, deck: {"type": "Knock", "discard": True, "melds": []},
    lambda rng, hand, deck: {"type": "Knock", "discard": _first(hand, deck), "melds": [[0, 0, 1]]},
    lambda rng, hand, deck: {"type": "NotACommand"},
]


# --- comparing -----------------------------------------------------------------


class Mismatch(AssertionError):
    """Two sides answered differently; the message says how to replay it."""


def first_difference(a: Data, b: Data, path: str = "") -> str | None:
    """Where ``a`` and ``b`` first differ (a path like ``.seats[1].hand``)."""
    if type(a) is not type(b):
        return f"{path or '.'}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                x = a[k] if k in a else "missing"
                y = b[k] if k in b else "missing"
                return f"{path}.{k}: {x!r} != {y!r}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return (
                f"{path}: length {len(a)} != {len(b)} (extra: {(a[len(b):] or b[len(a):])[:3]!r})"
            )
        return None
    return None if a == b else f"{path or '.'}: {a!r} != {b!r}"


@dataclass(slots=True)
class Stats:
    games: int = 0
    commands: int = 0
    probes: int = 0
    comparisons: int = 0


@dataclass(slots=True)
class GameResult:
    stats: Stats
    totals: list[int]
    winners: list[int]


@dataclass(slots=True)
class _Run:
    a: Side
    b: Side
    replay: str
    stats: Stats = field(default_factory=Stats)
    step: int = -1

    def same(self, what: str, x: Data, y: Data, command: Data = None) -> None:
        self.stats.comparisons += 1
        if x == y:
            return
        where = first_difference(x, y) or "?"
        raise Mismatch(
            f"{self.a.name} and {self.b.name} differ at step {self.step} on {what}\n"
            f"  replay: {self.replay}\n"
            f"  command: {json.dumps(command)}\n"
            f"  first difference ({self.a.name} != {self.b.name}): {where}\n"
            f"  {self.a.name}: {json.dumps(x)[:3000]}\n"
            f"  {self.b.name}: {json.dumps(y)[:3000]}"
        )


def _positions(run: _Run, state: Data) -> None:
    """Compares every seat's legal moves and hint (one side asked with its
    legal moves handed in, the other without, in turn)."""
    for seat, s in enumerate(state["seats"]):
        moves = run.a.legal_moves(seat)
        run.same(f"the legal moves of seat {seat}", moves, run.b.legal_moves(seat))
        if s["hand"]:
            with_legal = (run.step + seat) % 2 == 0
            hint = run.a.hint(seat, with_legal)
            run.same(f"the hint of seat {seat}", hint, run.b.hint(seat, not with_legal))


def play_and_compare(
    variant: str,
    overrides: Mapping[str, Data],
    players: int | Sequence[str],
    seed: int,
    policy: str,
    probes: int = 3,
    *,
    against: Callable[[], Side] = KernelSide,
    max_steps: int = MAX_STEPS,
    resign_rate: float = 0.002,
) -> GameResult:
    """Plays one game on the live engine and on ``against()``, comparing
    every answer; raises :class:`Mismatch` at the first difference.
    ``probes``: probe commands per step."""
    names = [f"p{i}" for i in range(players)] if isinstance(players, int) else list(players)
    replay = (
        f"play_and_compare({variant!r}, {dict(overrides)!r}, {len(names)}, seed={seed}, "
        f"policy={policy!r}, probes={probes}, against={against.__name__})"
    )
    engine = LiveSide()
    run = _Run(engine, against(), replay)
    deal = engine.new(variant, overrides, names, seed)
    run.same("the deal", deal, run.b.new(variant, overrides, names, seed))
    state = engine.state()
    run.same("the state after the deal", state, run.b.state())
    game = engine.game
    chooser = _Policy(policy, seed)
    rng = random.Random(f"probes {seed}")
    count = 0
    while not game.finished:
        run.step = count
        _positions(run, state)
        turn = game.turn
        if count >= max_steps:
            seat = next(i for i, s in enumerate(game.state.seats) if not s.resigned)
            command: Data = {"type": "Resign"}
        elif resign_rate and rng.random() < resign_rate:
            active = [i for i, s in enumerate(game.state.seats) if not s.resigned]
            seat = rng.choice([i for i in active if i != turn])
            command = {"type": "Resign"}
        else:
            seat = turn
            command = chooser.choose(game, seat, seed)
        asked = 0
        for probe_seat, probe in _probes(rng, game, turn, command, probes):
            answer = engine.decide(probe_seat, probe)
            run.same("a probe", answer, run.b.decide(probe_seat, probe), [probe_seat, probe])
            asked += 1
        run.stats.probes += asked
        decided = engine.decide(seat, command)
        run.same("the command's decision", decided, run.b.decide(seat, command), [seat, command])
        applied = engine.apply(seat, command)
        if applied[0] != "ok":
            raise RuntimeError(
                f"the policy chose a refused command: {replay} step {count}: {applied}"
            )
        run.same(
            "the command's events and turns", applied, run.b.apply(seat, command), [seat, command]
        )
        state = engine.state()
        run.same("the state after the command", state, run.b.state(), [seat, command])
        run.stats.commands += 1
        count += 1
    run.step = count
    _positions(run, state)
    # Once the match is over, every command is refused (a resigned seat's
    # first).
    asked = 0
    for probe_seat, probe in _probes(rng, game, 0, {"type": "Resign"}, probes + 2):
        answer = engine.decide(probe_seat, probe)
        run.same(
            "a probe after the match", answer, run.b.decide(probe_seat, probe), [probe_seat, probe]
        )
        asked += 1
    run.stats.probes += asked
    run.stats.games = 1
    return GameResult(run.stats, [s["total"] for s in state["seats"]], list(state["winners"]))


def replay_vector(side: Side, vector: Mapping[str, Data]) -> Stats:
    """Plays a golden vector's game on ``side``, asserting every output it
    keeps: the deal, every probe's answer, every command's events and turns,
    the digests of the legal moves and hints before each command and of the
    state after it, and the final totals and winners; raises
    :class:`Mismatch`, naming the vector, at the first difference."""
    if vector.get("format") != VECTOR_FORMAT:
        raise ValueError(f"not a vector of {VECTOR_FORMAT}: {vector.get('format')!r}")
    names = vector["players"]
    replay = (
        f"vector {vector['variant']} {vector['overrides']} players={len(names)} "
        f"seed={vector['seed']} policy={vector['policy']}"
    )
    kept = _VectorSide(side)
    run = _Run(_Expected(), kept, replay)
    deal = kept.new(vector["variant"], vector["overrides"], names, vector["seed"])
    d = vector["deal"]
    run.same("the deal", [d["events"], d["turns"]], deal)
    run.same("the state's digest after the deal", d["state"], digest(kept.state()))
    for i, step in enumerate(vector["steps"]):
        run.step = i
        positions = _side_positions(kept, kept.state(), i)
        run.same("the digest of the legal moves and hints", step["moves"], digest(positions))
        for seat, probe, answer in step["probes"]:
            run.same("a probe", answer, kept.decide(seat, probe), [seat, probe])
        run.stats.probes += len(step["probes"])
        command = [step["seat"], step["command"]]
        applied = kept.apply(step["seat"], step["command"])
        run.same(
            "the command's events and turns",
            ["ok", step["events"], step["turns"]],
            applied,
            command,
        )
        run.same("the state's digest", step["state"], digest(kept.state()), command)
        run.stats.commands += 1
    run.step = len(vector["steps"])
    state = kept.state()
    run.same(
        "the final digest of the legal moves and hints",
        vector["moves"],
        digest(_side_positions(kept, state, run.step)),
    )
    for seat, probe, answer in vector["probes"]:
        run.same("a probe after the match", answer, kept.decide(seat, probe), [seat, probe])
    run.stats.probes += len(vector["probes"])
    run.same("the final totals", vector["totals"], [s["total"] for s in state["seats"]])
    run.same("the winners", vector["winners"], list(state["winners"]))
    run.stats.games = 1
    return run.stats


class _Expected:
    name = "vector"


def _side_positions(side: Side, state: Data, step: int) -> Data:
    out: list[Data] = []
    for seat, s in enumerate(state["seats"]):
        hint = side.hint(seat, (step + seat) % 2 == 1) if s["hand"] else None
        out.append([side.legal_moves(seat), hint])
    return out


# --- hidden information ------------------------------------------------------------


def _seen_by(side: Side, seat: int) -> Data:
    return {
        "view": side.view(seat),
        "legal": side.legal_moves(seat),
        "hint": side.hint(seat, False),
    }


def hidden_information(
    make_side: Callable[[], Side],
    variant: str,
    overrides: Mapping[str, Data],
    players: int,
    seed: int,
    permutations: int = 2,
) -> int:
    """For every seat of a fresh deal: the seat's view, legal moves and hint
    are the same when the cards it cannot see (the other hands and the stock)
    are permuted among themselves, the game made with the permuted deck
    order (``decks=``). Returns the comparisons made."""
    names = [f"p{i}" for i in range(players)]
    rules = rules_for(variant, dict(overrides))
    order = list(ramino.shuffle(round_seed(seed, 1), rules.deck_size))
    base = make_side()
    base.new(variant, overrides, names, seed, decks=[order])
    state = base.state()
    rng = random.Random(f"hidden {seed}")
    done = 0
    for seat in range(players):
        seen = _seen_by(base, seat)
        hidden = set(state["stock"])
        for other, s in enumerate(state["seats"]):
            if other != seat:
                hidden.update(s["hand"])
        spots = [i for i, c in enumerate(order) if c in hidden]
        for _ in range(permutations):
            cards = [order[i] for i in spots]
            rng.shuffle(cards)
            permuted = list(order)
            for i, c in zip(spots, cards, strict=True):
                permuted[i] = c
            other_side = make_side()
            other_side.new(variant, overrides, names, seed, decks=[permuted])
            if other_side.state()["seats"][seat]["hand"] != state["seats"][seat]["hand"]:
                raise AssertionError("the permutation moved the seat's own cards")
            again = _seen_by(other_side, seat)
            if again != seen:
                raise Mismatch(
                    f"seat {seat} sees the hidden cards ({make_side.__name__}, {variant} "
                    f"{dict(overrides)} players={players} seed={seed}): "
                    f"{first_difference(seen, again)}"
                )
            done += 1
    return done


def hidden_information_midgame(
    variant: str,
    overrides: Mapping[str, Data],
    players: int,
    seed: int,
    every: int = 7,
) -> int:
    """The same property at many points of a game of the live engine played
    greedily: the game is rebuilt (``Game.from_snapshot``) from a snapshot of
    its state whose hidden cards (the other hands and the stock, less the
    public card taken from the discard pile and a swapped joker) are permuted,
    for the seat on turn and another. Returns the comparisons made."""
    from ramino.bots.greedy import GreedyBot

    names = [f"p{i}" for i in range(players)]
    game = live.Game.new(variant, names, seed=seed, overrides=dict(overrides))
    bot = GreedyBot(seed)
    rng = random.Random(f"midgame {seed}")
    done = 0
    step = 0
    while not game.finished and step < 600:
        if step % every == 0:
            for seat in {game.turn, rng.randrange(players)}:
                done += _check_permuted(game, seat, rng)
        seat = game.turn
        game.apply(seat, bot.choose(game, seat))
        step += 1
    return done


def _check_permuted(game: live.Game, seat: int, rng: random.Random) -> int:
    data = game.snapshot()
    state = game.state
    public = {state.taken, state.pending_joker}
    places = [data["stock"]] + [s["hand"] for i, s in enumerate(data["seats"]) if i != seat]
    cards = [c for p in places for c in p if c not in public]
    rng.shuffle(cards)
    it = iter(cards)
    for p in places:
        p[:] = [c if c in public else next(it) for c in p]
    other = live.Game.from_snapshot(game.record, data)

    def seen(g: live.Game) -> Data:
        return [
            plain(g.view(seat)),
            [plain(m) for m in g.legal_moves(seat)],
            hint_data(g.hint(seat)),
        ]

    a, b = seen(game), seen(other)
    if a != b:
        raise Mismatch(f"seat {seat} sees the hidden cards mid-game: {first_difference(a, b)}")
    return 1


# --- the parameter sets --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParameterSet:
    variant: str
    overrides: Mapping[str, Data]
    players: int

    @property
    def label(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in sorted(self.overrides.items()))
        return f"{self.variant}/{self.players}p" + (f"/{extra}" if extra else "")


OPTION_SETS: list[tuple[str, dict[str, Data], tuple[int, ...]]] = [
    # rummy: the stock's exhaustion, its rebuilds, going out by a lay-off.
    ("rummy", {"stock_exhausted": "turn_over"}, (2, 4)),
    ("rummy", {"stock_exhausted": "turn_over", "max_stock_rebuilds": 1}, (3,)),
    ("rummy", {"stock_exhausted": "reshuffle", "max_stock_rebuilds": 0}, (2,)),
    ("rummy", {"layoff_on_opening_turn": False, "open_threshold": 20}, (3,)),
    ("rummy", {"max_turns_per_round": 40}, (4,)),
    # ramino51: laying off on the opening turn, no joker swap, taking the
    # discard without opening, going out by a lay-off, no closed-hand bonus.
    ("ramino51", {"layoff_on_opening_turn": True}, (2, 4)),
    ("ramino51", {"joker_swap": False}, (3,)),
    ("ramino51", {"discard_take_requires_open": False}, (2,)),
    ("ramino51", {"must_discard_to_go_out": False, "stock_exhausted": "turn_over"}, (3,)),
    # rami51: no lay-off on the opening turn; a threshold without a pure run.
    ("rami51", {"layoff_on_opening_turn": False}, (2,)),
    ("rami51", {"open_requires_pure_run": False, "open_threshold": 30}, (3,)),
    # gin: big gin, another knock card, no wall.
    ("gin", {"big_gin": True}, (2,)),
    ("gin", {"knock_card": 5, "big_gin": True}, (2,)),
    ("gin", {"wall_stock_size": 0}, (2,)),
    ("gin", {"knock_card": 1, "target_score": 50}, (2,)),
]


GAME_POLICIES = ("random", "greedy", "mixed", "hard", "random", "greedy", "mixed", "random")
"""The policy of game ``i`` of a parameter set is ``GAME_POLICIES[i % 8]``:
mostly random and greedy play, a mix of both at one table, and now and then
the searching bot (among the first games, which the corpus keeps)."""


def policy_of(game: int) -> str:
    return GAME_POLICIES[game % len(GAME_POLICIES)]


def seed_of(ps: ParameterSet, game: int) -> int:
    """The seed of game ``game`` of a parameter set, whatever the run's size."""
    return game * 7919 + ps.players


def parameter_sets() -> list[ParameterSet]:
    """Every preset with every seat count its variant allows, then the option
    sets where the rules branch."""
    out: list[ParameterSet] = []
    for name in ("ramino51", "rami51", "rummy", "gin"):
        v = ramino.Variant(name)
        out.extend(ParameterSet(name, {}, n) for n in range(v.min_players, v.max_players + 1))
    for name, overrides, counts in OPTION_SETS:
        out.extend(ParameterSet(name, overrides, n) for n in counts)
    return out
