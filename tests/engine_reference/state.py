"""The state of a game, and the fold that applies one event to it.

The state is what the events imply, nothing more: :func:`apply_event` is the
only code that changes it, for live play and for replay alike, so replaying a
record gives the identical state by construction. The fold trusts the rules
that produced the events but checks what is cheap to check (the card is where
the event says), so a corrupted record fails loudly instead of drifting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import ramino
from ramino import reasons

from tests.engine_reference.context import Rules
from tests.engine_reference.errors import RecordError
from tests.engine_reference.events import (
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Event,
    JokerSwapped,
    Knocked,
    LaidOff,
    LayoutAccepted,
    MatchEnded,
    MeldsLaid,
    PassedUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    StockReshuffled,
    TookDiscard,
)

__all__ = [
    "DRAW",
    "PLAY",
    "BETWEEN_ROUNDS",
    "OVER",
    "LAYOFF",
    "TableMeld",
    "Seat",
    "State",
    "apply_event",
    "conservation_errors",
]

# Phases. A round is always in DRAW or PLAY for the seat whose turn it is;
# BETWEEN_ROUNDS lasts only until the next deal, which follows at once.
DRAW: Final = "draw"
PLAY: Final = "play"
BETWEEN_ROUNDS: Final = "between_rounds"
OVER: Final = "over"
LAYOFF: Final = "layoff"
"""Knocking play: the defender lays off, melds and accepts the layout."""


@dataclass(slots=True)
class TableMeld:
    owner: int
    cards: list[int]
    kind: str
    closed: bool
    jokers: dict[int, tuple[str, ...]]
    """Card id of each joker in the meld -> the cards it stands for."""
    value: int
    view: object = field(default=None, compare=False, repr=False)
    """The meld's public view, built once (see :mod:`ramino.engine.views`)."""


@dataclass(slots=True)
class Seat:
    name: str
    hand: list[int] = field(default_factory=list)
    opened: bool = False
    first_laid_turn: int = 0
    """The seat's turn number (from 1) in which it first put cards on the
    table this round; 0 while it has laid nothing."""
    turns: int = 0
    """Turns this seat has started this round, the current one included."""
    resigned: bool = False
    total: int = 0


@dataclass(slots=True)
class State:
    seats: list[Seat]
    round: int = 0
    dealer: int = -1
    first_player: int = -1
    turn: int = -1
    phase: str = BETWEEN_ROUNDS
    stock: list[int] = field(default_factory=list)
    """Top card last."""
    discard: list[int] = field(default_factory=list)
    """Top card last."""
    melds: list[TableMeld] = field(default_factory=list)
    rebuilds: int = 0
    taken: int | None = None
    """The card taken from the discard pile this turn."""
    must_open: bool = False
    """The discard was taken before opening: this turn must open with it."""
    pending_joker: int | None = None
    """A joker taken by a swap this turn, not yet laid in a new meld."""
    opened_this_turn: bool = False
    results: list[RoundEnded] = field(default_factory=list)
    winners: tuple[int, ...] = ()
    version: int = 0
    # Knocking play (gin); all reset by each deal.
    first_upcard: bool = False
    """The first upcard is being offered (before any draw of the round)."""
    passes: int = 0
    """Passes on the first upcard this round."""
    repeated: bool = False
    """The last turn took the upcard and discarded it back."""
    drawn: bool = False
    """The hand is a draw (a pass at the wall, or the upcard taken and
    discarded back twice in succession): the round ends with no winner."""
    wall_take: bool = False
    """The upcard was taken at the wall: this turn must knock."""
    knocker: int | None = None
    knock_melds: int = 0
    """The knocker's melds are the first ``knock_melds`` table melds."""
    big_gin: bool = False
    defender_melded: bool = False
    accepted: bool = False

    def active(self) -> list[int]:
        """Seats still in the match, in seat order."""
        return [i for i, s in enumerate(self.seats) if not s.resigned]

    def next_active(self, seat: int) -> int:
        n = len(self.seats)
        for k in range(1, n + 1):
            s = (seat + k) % n
            if not self.seats[s].resigned:
                return s
        return seat

    def in_round(self) -> bool:
        return self.phase == DRAW or self.phase == PLAY or self.phase == LAYOFF


def meld_info(owner: int, cards: list[int], rules: Rules) -> TableMeld:
    """A table meld with what the kernel says about it (kind, jokers...)."""
    names = rules.names
    m = ramino.validate_meld([names[c] for c in cards], rules.variant)
    jokers = {cards[j.index]: tuple(j.stands_for) for j in m.jokers}
    return TableMeld(owner, cards, m.kind, m.closed, jokers, m.value)


def _corrupt(message: str) -> RecordError:
    return RecordError(message, reasons.RECORD_INCONSISTENT)


def obliged_to_open(state: State, seat: int, rules: Rules) -> bool:
    """Whether taking the discard now obliges ``seat`` to open with it."""
    s = state.seats[seat]
    return (
        rules.needs_opening
        and rules.variant.discard_take_requires_open
        and not s.opened
        and s.turns > 1
    )


def at_wall(state: State, rules: Rules) -> bool:
    """Knocking play: whether the stock is down to the wall, where the seat
    to draw may only take the upcard to knock, or pass."""
    v = rules.variant
    return v.knocking and 0 < v.wall_stock_size and len(state.stock) <= v.wall_stock_size


def _start_turn(state: State, seat: int, phase: str) -> None:
    state.turn = seat
    state.seats[seat].turns += 1
    state.phase = phase
    state.taken = None
    state.must_open = False
    state.pending_joker = None
    state.opened_this_turn = False
    state.wall_take = False


def _take_from_hand(hand: list[int], card: int) -> None:
    try:
        hand.remove(card)
    except ValueError:
        raise _corrupt(f"card {card} is not in the hand") from None


def _laid(state: State, seat: int) -> None:
    s = state.seats[seat]
    s.opened = True
    if not s.first_laid_turn:
        s.first_laid_turn = s.turns


def _check_turn(state: State, seat: int, phase: str) -> None:
    if state.turn != seat or state.phase != phase:
        raise _corrupt(f"seat {seat} acted out of turn or phase")


def apply_event(state: State, event: Event, rules: Rules) -> None:
    """Folds ``event`` into ``state`` (in place)."""
    seats = state.seats
    if isinstance(event, DrewFromStock):
        _check_turn(state, event.seat, DRAW)
        if not state.stock or event.card != state.stock[-1]:
            raise _corrupt("the drawn card is not the top of the stock")
        seats[event.seat].hand.append(state.stock.pop())
        state.phase = PLAY
        state.first_upcard = False
    elif isinstance(event, Discarded):
        _check_turn(state, event.seat, PLAY)
        hand = seats[event.seat].hand
        _take_from_hand(hand, event.card)
        state.discard.append(event.card)
        if rules.variant.knocking:
            # Taking the upcard and discarding it back, twice in succession,
            # is a draw.
            back = event.card == state.taken
            state.drawn = back and state.repeated
            state.repeated = back
        if hand:
            _start_turn(state, state.next_active(event.seat), DRAW)
    elif isinstance(event, TookDiscard):
        _check_turn(state, event.seat, DRAW)
        if not state.discard or state.discard[-1] != event.card:
            raise _corrupt("the taken card is not the top of the discard pile")
        state.must_open = obliged_to_open(state, event.seat, rules)
        state.wall_take = at_wall(state, rules)
        seats[event.seat].hand.append(state.discard.pop())
        state.taken = event.card
        state.phase = PLAY
        state.first_upcard = False
    elif isinstance(event, PassedUpcard):
        _check_turn(state, event.seat, DRAW)
        if state.first_upcard:
            state.passes += 1
            _start_turn(state, state.next_active(event.seat), DRAW)
        else:
            state.drawn = True
    elif isinstance(event, Knocked):
        _check_turn(state, event.seat, PLAY)
        hand = seats[event.seat].hand
        if event.discard is not None:
            _take_from_hand(hand, event.discard)
            state.discard.append(event.discard)
        for meld in event.melds:
            for c in meld:
                _take_from_hand(hand, c)
            state.melds.append(meld_info(event.seat, list(meld), rules))
        state.knocker = event.seat
        state.knock_melds = len(event.melds)
        state.big_gin = event.discard is None
        state.turn = state.next_active(event.seat)
        state.phase = LAYOFF
        state.taken = None
        state.wall_take = False
    elif isinstance(event, LayoutAccepted):
        _check_turn(state, event.seat, LAYOFF)
        state.accepted = True
    elif isinstance(event, MeldsLaid) and state.phase == LAYOFF:
        _check_turn(state, event.seat, LAYOFF)
        hand = seats[event.seat].hand
        for meld in event.melds:
            for c in meld:
                _take_from_hand(hand, c)
            state.melds.append(meld_info(event.seat, list(meld), rules))
        state.defender_melded = True
    elif isinstance(event, MeldsLaid):
        _check_turn(state, event.seat, PLAY)
        hand = seats[event.seat].hand
        for meld in event.melds:
            for c in meld:
                _take_from_hand(hand, c)
            state.melds.append(meld_info(event.seat, list(meld), rules))
            if state.pending_joker in meld:
                state.pending_joker = None
        if event.opening:
            state.opened_this_turn = True
            state.must_open = False
        _laid(state, event.seat)
    elif isinstance(event, LaidOff):
        _check_turn(state, event.seat, LAYOFF if state.phase == LAYOFF else PLAY)
        _take_from_hand(seats[event.seat].hand, event.card)
        if not 0 <= event.meld < len(state.melds):
            raise _corrupt(f"no table meld {event.meld}")
        old = state.melds[event.meld]
        cards = [event.card, *old.cards] if event.end == "start" else [*old.cards, event.card]
        state.melds[event.meld] = meld_info(old.owner, cards, rules)
        _laid(state, event.seat)
    elif isinstance(event, JokerSwapped):
        _check_turn(state, event.seat, PLAY)
        hand = seats[event.seat].hand
        _take_from_hand(hand, event.card)
        if not 0 <= event.meld < len(state.melds):
            raise _corrupt(f"no table meld {event.meld}")
        old = state.melds[event.meld]
        if event.joker not in old.jokers:
            raise _corrupt(f"card {event.joker} is not a joker of meld {event.meld}")
        cards = [event.card if c == event.joker else c for c in old.cards]
        state.melds[event.meld] = meld_info(old.owner, cards, rules)
        hand.append(event.joker)
        state.pending_joker = event.joker
    elif isinstance(event, DiscardPileTurnedOver):
        _check_turn(state, event.seat, DRAW)
        if state.stock or not state.discard:
            raise _corrupt("the discard pile is turned over only when the stock is empty")
        state.discard.reverse()
        state.stock, state.discard = state.discard, []
        state.rebuilds = event.rebuild
    elif isinstance(event, StockReshuffled):
        if event.stock is None:
            raise _corrupt("a record's reshuffle carries the stock")
        if state.stock or not state.discard or state.discard[-1] != event.kept:
            raise _corrupt("the reshuffle does not match the discard pile")
        if sorted(event.stock) != sorted(state.discard[:-1]):
            raise _corrupt("the reshuffled stock is not the discard pile")
        state.stock = list(event.stock)
        state.discard = [event.kept]
        state.rebuilds = event.rebuild
    elif isinstance(event, Resigned):
        seat = seats[event.seat]
        if seat.resigned:
            raise _corrupt(f"seat {event.seat} resigned twice")
        seat.resigned = True
        if state.in_round() and state.turn == event.seat:
            nxt = state.next_active(event.seat)
            if nxt != event.seat:
                _start_turn(state, nxt, DRAW)
    elif isinstance(event, RoundStarted):
        _round_started(state, event, rules)
    elif isinstance(event, RoundEnded):
        if not state.in_round() or event.round != state.round:
            raise _corrupt("a round ended that was not being played")
        for s, score in zip(seats, event.scores, strict=True):
            s.total += score
        state.results.append(event)
        state.phase = BETWEEN_ROUNDS
    elif isinstance(event, MatchEnded):
        if state.phase != BETWEEN_ROUNDS:
            raise _corrupt("the match ended during a round")
        state.winners = event.winners
        for seat_state, total in zip(seats, event.totals, strict=True):
            seat_state.total = total
        state.phase = OVER
    else:  # pragma: no cover - the Event union is exhaustive
        raise _corrupt(f"unknown event {event!r}")
    state.version += 1


def _round_started(state: State, event: RoundStarted, rules: Rules) -> None:
    if state.phase != BETWEEN_ROUNDS or event.round != state.round + 1:
        raise _corrupt("a round started while another was being played")
    if event.stock is None or any(h is None for h in event.hands):
        raise _corrupt("a record's deal carries every hand and the stock")
    if len(event.hands) != len(state.seats):
        raise _corrupt("the deal does not match the players")
    state.round = event.round
    state.dealer = event.dealer
    state.first_player = event.first_player
    for s, hand in zip(state.seats, event.hands, strict=True):
        s.hand = list(hand or ())
        s.opened = False
        s.first_laid_turn = 0
        s.turns = 0
    state.stock = list(event.stock)
    state.discard = [] if event.upcard is None else [event.upcard]
    state.melds = []
    state.rebuilds = 0
    state.first_upcard = rules.variant.knocking and event.upcard is not None
    state.passes = 0
    state.repeated = False
    state.drawn = False
    state.knocker = None
    state.knock_melds = 0
    state.big_gin = False
    state.defender_melded = False
    state.accepted = False
    first_phase = DRAW if rules.variant.first_turn_draws else PLAY
    _start_turn(state, event.first_player, first_phase)


def conservation_errors(state: State, deck_size: int) -> list[str]:
    """Every way in which the cards are not each in exactly one place."""
    seen = [0] * deck_size
    places = [state.stock, state.discard, *(s.hand for s in state.seats)]
    places.extend(m.cards for m in state.melds)
    errors: list[str] = []
    for place in places:
        for c in place:
            if 0 <= c < deck_size:
                seen[c] += 1
            else:
                errors.append(f"unknown card id {c}")
    if state.round == 0:
        return errors
    for c, k in enumerate(seen):
        if k != 1:
            errors.append(f"card {c} is in {k} places")
    return errors
