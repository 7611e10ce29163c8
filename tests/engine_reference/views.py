"""What one seat, or a spectator, may see of a game.

Cards are given by id; ``View.deck`` names every id (the id-to-card table is
public, it follows from the variant). Hidden cards never appear: another
seat's hand is a count, the stock a size.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tests.engine_reference.context import Rules
from tests.engine_reference.events import RoundEnded
from tests.engine_reference.state import State, TableMeld

__all__ = ["MeldView", "SeatView", "Standing", "View", "build_view", "standings"]


@dataclass(frozen=True, slots=True)
class MeldView:
    index: int
    owner: int
    kind: str
    """``"set"`` or ``"run"``."""
    cards: tuple[int, ...]
    jokers: tuple[tuple[int, tuple[str, ...]], ...]
    """Each joker's card id and the cards it stands for."""
    closed: bool
    value: int


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    name: str
    hand_size: int
    opened: bool
    resigned: bool
    total: int


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    name: str
    total: int
    rank: int
    """1 for the best total; equal totals share a rank; resigned seats last."""


@dataclass(frozen=True, slots=True)
class View:
    version: int
    viewer: int | None
    """The seat this view is for, or ``None`` for a spectator."""
    variant: str
    deck: tuple[str, ...]
    """The card of every id."""
    round: int
    dealer: int
    turn: int | None
    """Whose turn it is, ``None`` once the match is over."""
    phase: str
    """``draw``, ``play``, ``layoff`` (gin's defender) or ``over``."""
    stock_size: int
    discard_pile: tuple[int, ...]
    """Bottom card first, top card last."""
    melds: tuple[MeldView, ...]
    seats: tuple[SeatView, ...]
    hand: tuple[int, ...] | None
    """The viewer's own hand, ``None`` for a spectator."""
    taken_card: int | None
    """The card the seat to play took from the discard pile this turn."""
    must_open: bool
    """The seat to play took the discard before opening and must open with it."""
    pending_joker: int | None
    """A joker the seat to play swapped and must lay in a new meld."""
    opened_this_turn: bool
    stock_rebuilds: int
    results: tuple[RoundEnded, ...]
    standings: tuple[Standing, ...]
    winners: tuple[int, ...]
    knocker: int | None = None
    """Knocking play (gin): the seat that knocked this hand, while the
    defender plays."""
    first_upcard: bool = False
    """Knocking play: the first upcard is on offer (take it or pass)."""

    def card(self, card_id: int) -> str:
        return self.deck[card_id]

    def to_data(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists when dumped)."""
        data = dataclasses.asdict(self)
        data["results"] = [
            {f.name: getattr(r, f.name) for f in dataclasses.fields(r)} for r in self.results
        ]
        return data


def _meld_view(index: int, m: TableMeld) -> MeldView:
    # A table meld is replaced, never changed, when a card is added: its view
    # can be kept with it.
    view = m.view
    if isinstance(view, MeldView) and view.index == index:
        return view
    view = MeldView(
        index=index,
        owner=m.owner,
        kind=m.kind,
        cards=tuple(m.cards),
        jokers=tuple(m.jokers.items()),
        closed=m.closed,
        value=m.value,
    )
    m.view = view
    return view


_STANDINGS: dict[tuple[object, ...], tuple[Standing, ...]] = {}


def standings(state: State, rules: Rules) -> tuple[Standing, ...]:
    """Seats by total, best first (cached: totals change once a round)."""
    key = (rules.variant.scoring, *((s.name, s.total, s.resigned) for s in state.seats))
    cached = _STANDINGS.get(key)
    if cached is None:
        if len(_STANDINGS) > 4096:
            _STANDINGS.clear()
        cached = _STANDINGS[key] = _standings(state, rules)
    return cached


def _standings(state: State, rules: Rules) -> tuple[Standing, ...]:
    lower_is_better = rules.variant.scoring == "penalty"
    seats = state.seats
    order = sorted(
        range(len(seats)),
        key=lambda i: (seats[i].resigned, seats[i].total if lower_is_better else -seats[i].total),
    )
    out: list[Standing] = []
    rank = 0
    previous: tuple[bool, int] | None = None
    for position, i in enumerate(order, start=1):
        key = (seats[i].resigned, seats[i].total)
        if key != previous:
            rank = position
            previous = key
        out.append(Standing(i, seats[i].name, seats[i].total, rank))
    return tuple(out)


def build_view(state: State, rules: Rules, viewer: int | None) -> View:
    over = state.phase == "over"
    hand = None
    if viewer is not None:
        hand = tuple(state.seats[viewer].hand)
    return View(
        version=state.version,
        viewer=viewer,
        variant=rules.variant.name,
        deck=rules.names,
        round=state.round,
        dealer=state.dealer,
        turn=None if over else state.turn,
        phase=state.phase,
        stock_size=len(state.stock),
        discard_pile=tuple(state.discard),
        melds=tuple(_meld_view(i, m) for i, m in enumerate(state.melds)),
        seats=tuple(
            SeatView(i, s.name, len(s.hand), s.opened, s.resigned, s.total)
            for i, s in enumerate(state.seats)
        ),
        hand=hand,
        taken_card=None if over else state.taken,
        must_open=state.must_open and not over,
        pending_joker=None if over else state.pending_joker,
        opened_this_turn=state.opened_this_turn and not over,
        stock_rebuilds=state.rebuilds,
        results=tuple(state.results),
        standings=standings(state, rules),
        winners=state.winners,
        knocker=None if over else state.knocker,
        first_upcard=state.first_upcard and not over,
    )
