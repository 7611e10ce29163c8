"""A game: its record, and the kernel's game that folds it.

Every rule is the kernel's (``ramino._core.GameKernel`` over
``core_rs/ramino-core/src/game``): this class keeps the record (the truth of
a game) beside it and hands the kernel's answers out under the engine's
Python names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ramino
from ramino import limits, reasons
from ramino._core import GameKernel
from ramino.engine.commands import Command, Knock
from ramino.engine.context import Override, Rules, rules_for
from ramino.engine.errors import InvalidSetup, RecordError
from ramino.engine.events import Event, project
from ramino.engine.hint import Hint
from ramino.engine.record import Record, copy_overrides
from ramino.engine.snapshot import state_from_data, state_to_data
from ramino.engine.state import State
from ramino.engine.views import View, build_view

__all__ = ["Game", "trial_deal"]


class Game:
    """One match of rummy: create it with :meth:`new` or :meth:`from_record`,
    then :meth:`apply` commands. Every method is deterministic."""

    __slots__ = ("_record", "_rules", "_kernel", "_turns", "_state")

    def __init__(self, record: Record, rules: Rules, kernel: GameKernel) -> None:
        self._record = record
        self._rules = rules
        self._kernel = kernel
        self._turns: tuple[int | None, ...] = ()
        self._state: State | None = None

    @classmethod
    def new(
        cls,
        variant: str,
        players: Sequence[str],
        *,
        seed: int,
        overrides: Mapping[str, Override] | None = None,
        decks: Sequence[Sequence[int]] = (),
    ) -> Game:
        """A new game, its first round dealt. ``seed`` is the game's secret
        (``0 <= seed < 2**256``); ``decks`` optionally fixes the deck order of
        the first rounds (see :func:`ramino.engine.stack_deck`)."""
        ov = copy_overrides(overrides)
        rules = rules_for(variant, ov)
        kernel = GameKernel(rules.kernel, players, seed, decks)
        record = Record(
            variant=variant,
            overrides=ov,
            players=tuple(players),
            seed=seed,
            decks=tuple(tuple(d) for d in decks),
        )
        game = cls(record, rules, kernel)
        events, game._turns = kernel.settle()
        record.events.extend(events)
        return game

    @classmethod
    def from_record(cls, record: Record) -> Game:
        """The game that ``record`` describes, replayed event by event."""
        try:
            rules = rules_for(record.variant, record.overrides)
            kernel = GameKernel(rules.kernel, record.players, record.seed, record.decks)
        except (InvalidSetup, ValueError) as e:
            raise RecordError(f"bad record header: {e}", reasons.RECORD_INCONSISTENT) from None
        for event in record.events:
            kernel.fold(event)
        if kernel.follow_up():
            raise RecordError(
                "the record stops halfway through a step", reasons.RECORD_INCONSISTENT
            )
        copy = Record(
            record.variant,
            copy_overrides(record.overrides),
            record.players,
            record.seed,
            record.decks,
            list(record.events),
        )
        return cls(copy, rules, kernel)

    # --- reading ---------------------------------------------------------

    @property
    def record(self) -> Record:
        """The live record (do not modify it)."""
        return self._record

    @property
    def state(self) -> State:
        """The state as Python data (a copy of the kernel's, made once per
        version: do not modify it)."""
        state = self._state
        if state is None or state.version != self._kernel.version:
            state = self._state = self._kernel.state()
        return state

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def version(self) -> int:
        return self._kernel.version

    @property
    def finished(self) -> bool:
        return self._kernel.finished

    @property
    def turn(self) -> int | None:
        """Whose turn it is, ``None`` once the match is over."""
        return self._kernel.turn

    @property
    def turns(self) -> tuple[int | None, ...]:
        """Whose turn it was after each event of the last :meth:`apply` (of
        the deal, for a game just made by :meth:`new`): what every event
        tells its viewers of the turn, so that none asks again."""
        return self._turns

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards in ``seat``'s hand (for the server's own use: a view
        hides them from everyone else)."""
        return self._kernel.hand(seat)

    def view(self, viewer: int | None) -> View:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see now."""
        return build_view(self.state, self._rules, viewer)

    def events(self, viewer: int | None, since: int = 0) -> list[Event]:
        """The events from version ``since`` on, as ``viewer`` may see them."""
        return [project(e, viewer) for e in self._record.events[since:]]

    def legal_moves(self, seat: int) -> list[Command]:
        """The moves ``seat`` may make now (empty when it is not its turn)."""
        return self._kernel.legal_moves(seat)

    def knocks(self, seat: int) -> list[Knock]:
        """Gin: the knocks ``seat`` may make now, best (least unmatched) first."""
        return self._kernel.knocks(seat)

    def greedy(self, seat: int, discard: Callable[[list[int], list[int]], int]) -> Command | None:
        """The greedy policy's move for ``seat`` now (the kernel's, which the
        greedy bots and the playouts share), ``None`` when it has none;
        ``discard(allowed, best)`` picks each discard among the cards the
        policy would throw and the best of them."""
        return self._kernel.greedy(seat, discard)

    def hint(self, seat: int, legal: Sequence[Command] | None = None) -> Hint | None:
        """The hint on ``seat``'s hand (see :class:`~ramino.engine.hint.Hint`),
        ``None`` when it holds no card; ``legal``: its :meth:`legal_moves`
        now, when the caller has them."""
        return self._kernel.hint(seat, legal)

    def conservation_errors(self) -> list[str]:
        """Empty while every card is in exactly one place."""
        return self._kernel.conservation_errors()

    # --- playing -----------------------------------------------------------

    def check(self, seat: int, command: Command) -> None:
        """Raises what :meth:`apply` would raise, changing nothing."""
        self._kernel.decide(seat, command)

    def apply(self, seat: int, command: Command) -> list[Event]:
        """Plays ``command`` for ``seat``: the new events (also appended to the
        record), or :class:`~ramino.engine.IllegalMove` /
        :class:`~ramino.engine.MalformedCommand` with nothing changed."""
        events, self._turns = self._kernel.apply(seat, command)
        self._record.events += events
        return events

    def snapshot(self) -> dict[str, Any]:
        """The state as JSON data (see :mod:`ramino.engine.snapshot`)."""
        return state_to_data(self.state)

    @classmethod
    def from_snapshot(cls, header: Record, data: object) -> Game:
        """The game whose record starts like ``header`` (its events are not
        needed) and whose state was snapshotted as ``data``. Its record then
        holds only the events absorbed or applied after the snapshot."""
        rules = rules_for(header.variant, header.overrides)
        state = state_from_data(data)
        kernel = GameKernel.from_state(rules.kernel, header.seed, header.decks, state)
        record = Record(
            header.variant,
            copy_overrides(header.overrides),
            header.players,
            header.seed,
            header.decks,
            [],
        )
        return cls(record, rules, kernel)

    def absorb(self, events: Sequence[Event]) -> None:
        """Folds events recorded elsewhere (another server holding the same
        game) into this game, as :meth:`from_record` would have."""
        out = self._record.events
        for e in events:
            self._kernel.fold(e)
            out.append(e)


def trial_deal(
    variant: str,
    overrides: Mapping[str, Override],
    seats: int,
    *,
    seed: int = 0,
    decks: Sequence[Sequence[int]] = (),
) -> None:
    """Checks that a game of ``variant`` with these overrides can be hosted
    with ``seats`` seats by dealing it once and dropping it: the variant's
    hosting limits (:func:`ramino.limits.check_game_variant`), then the deal
    itself (the seat count, the seed, a stacked ``decks``). Raises what a
    real creation would: :class:`~ramino.VariantError`, or
    :class:`~ramino.engine.errors.InvalidSetup` for what cannot be dealt."""
    limits.check_game_variant(ramino.Variant(variant, **overrides))
    Game.new(
        variant,
        [f"seat {i}" for i in range(seats)],
        seed=seed,
        overrides=overrides,
        decks=decks,
    )
