"""A game: its record, and its state kept up to date event by event."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ramino import reasons

from tests.engine_reference.commands import Command
from tests.engine_reference.context import Override, Rules, rules_for
from tests.engine_reference.deck import SEED_LIMIT
from tests.engine_reference.errors import InvalidSetup, RecordError
from tests.engine_reference.events import Event, project
from tests.engine_reference.hint import Hint, hint
from tests.engine_reference.moves import legal_moves
from tests.engine_reference.record import Record, copy_overrides
from tests.engine_reference.rules import Setup, decide, follow_up
from tests.engine_reference.snapshot import state_from_data, state_to_data
from tests.engine_reference.state import OVER, Seat, State, apply_event, conservation_errors
from tests.engine_reference.views import View, build_view

__all__ = ["Game"]


def _check_setup(
    rules: Rules, players: Sequence[str], seed: object, decks: Sequence[Sequence[int]]
) -> None:
    v = rules.variant
    if not v.min_players <= len(players) <= v.max_players:
        raise InvalidSetup(
            f"{v.name} is played by {v.min_players} to {v.max_players} players, "
            f"not {len(players)}",
            reasons.PLAYER_COUNT,
        )
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise InvalidSetup(
                f"a player's name is a non-empty string, got {name!r}", reasons.BAD_PLAYER_NAME
            )
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < SEED_LIMIT:
        raise InvalidSetup("the seed is an integer from 0 to 2**256 - 1", reasons.BAD_SEED)
    for n in range(2, len(players) + 1):
        size = v.hand_size(n)
        if size is None:
            continue
        dealt = n * size + v.first_player_extra_cards + (1 if v.upcard else 0)
        if dealt + 1 > rules.deck_size:
            raise InvalidSetup(
                f"{n} hands of {size} leave no stock in a deck of {rules.deck_size}",
                reasons.DECK_TOO_SMALL,
            )
    for d in decks:
        if sorted(d) != list(range(rules.deck_size)):
            raise InvalidSetup(
                f"a stacked deck is a permutation of the {rules.deck_size} card ids",
                reasons.BAD_DECK,
            )


class Game:
    """One match of rummy: create it with :meth:`new` or :meth:`from_record`,
    then :meth:`apply` commands. Every method is deterministic."""

    __slots__ = ("_record", "_rules", "_setup", "_state", "_turns")

    def __init__(self, record: Record, rules: Rules, state: State) -> None:
        self._record = record
        self._rules = rules
        self._setup = Setup(record.seed, record.decks)
        self._state = state
        self._turns: tuple[int | None, ...] = ()

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
        _check_setup(rules, players, seed, decks)
        record = Record(
            variant=variant,
            overrides=ov,
            players=tuple(players),
            seed=seed,
            decks=tuple(tuple(d) for d in decks),
        )
        game = cls(record, rules, State([Seat(p) for p in players]))
        turns: list[int | None] = []
        game._settle(record.events, turns)
        game._turns = tuple(turns)
        return game

    @classmethod
    def from_record(cls, record: Record) -> Game:
        """The game that ``record`` describes, replayed event by event."""
        try:
            rules = rules_for(record.variant, record.overrides)
            _check_setup(rules, record.players, record.seed, record.decks)
        except (InvalidSetup, ValueError) as e:
            raise RecordError(f"bad record header: {e}", reasons.RECORD_INCONSISTENT) from None
        state = State([Seat(p) for p in record.players])
        for event in record.events:
            apply_event(state, event, rules)
        game = cls(
            Record(
                record.variant,
                copy_overrides(record.overrides),
                record.players,
                record.seed,
                record.decks,
                list(record.events),
            ),
            rules,
            state,
        )
        if follow_up(state, rules, game._setup):
            raise RecordError(
                "the record stops halfway through a step", reasons.RECORD_INCONSISTENT
            )
        return game

    # --- reading ---------------------------------------------------------

    @property
    def record(self) -> Record:
        """The live record (do not modify it)."""
        return self._record

    @property
    def state(self) -> State:
        """The live state (do not modify it: it is the fold of the record)."""
        return self._state

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def version(self) -> int:
        return self._state.version

    @property
    def finished(self) -> bool:
        return self._state.phase == OVER

    @property
    def turn(self) -> int | None:
        return None if self.finished else self._state.turn

    @property
    def turns(self) -> tuple[int | None, ...]:
        """Whose turn it was after each event of the last :meth:`apply` (of
        the deal, for a game just made by :meth:`new`): what every event
        tells its viewers of the turn, so that none asks again."""
        return self._turns

    def _turn_now(self) -> int | None:
        state = self._state
        return state.turn if state.in_round() else None

    def view(self, viewer: int | None) -> View:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see now."""
        return build_view(self._state, self._rules, viewer)

    def events(self, viewer: int | None, since: int = 0) -> list[Event]:
        """The events from version ``since`` on, as ``viewer`` may see them."""
        return [project(e, viewer) for e in self._record.events[since:]]

    def legal_moves(self, seat: int) -> list[Command]:
        return legal_moves(self._state, self._rules, seat)

    def hint(self, seat: int, legal: Sequence[Command] | None = None) -> Hint | None:
        """The hint on ``seat``'s hand (see :class:`~ramino.engine.hint.Hint`),
        ``None`` when it holds no card; ``legal``: its :meth:`legal_moves`
        now, when the caller has them."""
        return hint(self._state, self._rules, seat, legal)

    def conservation_errors(self) -> list[str]:
        """Empty while every card is in exactly one place."""
        return conservation_errors(self._state, self._rules.deck_size)

    # --- playing -----------------------------------------------------------

    def check(self, seat: int, command: Command) -> None:
        """Raises what :meth:`apply` would raise, changing nothing."""
        decide(self._state, self._rules, seat, command)

    def apply(self, seat: int, command: Command) -> list[Event]:
        """Plays ``command`` for ``seat``: the new events (also appended to the
        record), or :class:`~ramino.engine.IllegalMove` /
        :class:`~ramino.engine.MalformedCommand` with nothing changed."""
        events = decide(self._state, self._rules, seat, command)
        out = self._record.events
        start = len(out)
        turns = []
        for e in events:
            apply_event(self._state, e, self._rules)
            out.append(e)
            turns.append(self._turn_now())
        self._settle(out, turns)
        self._turns = tuple(turns)
        return out[start:]

    def snapshot(self) -> dict[str, Any]:
        """The state as JSON data (see :mod:`ramino.engine.snapshot`)."""
        return state_to_data(self._state)

    @classmethod
    def from_snapshot(cls, header: Record, data: object) -> Game:
        """The game whose record starts like ``header`` (its events are not
        needed) and whose state was snapshotted as ``data``. Its record then
        holds only the events absorbed or applied after the snapshot."""
        rules = rules_for(header.variant, header.overrides)
        state = state_from_data(data)
        record = Record(
            header.variant,
            copy_overrides(header.overrides),
            header.players,
            header.seed,
            header.decks,
            [],
        )
        return cls(record, rules, state)

    def absorb(self, events: Sequence[Event]) -> None:
        """Folds events recorded elsewhere (another server holding the same
        game) into this game, as :meth:`from_record` would have."""
        out = self._record.events
        for e in events:
            apply_event(self._state, e, self._rules)
            out.append(e)

    def _settle(self, out: list[Event], turns: list[int | None] | None = None) -> None:
        while True:
            more = follow_up(self._state, self._rules, self._setup)
            if not more:
                return
            for e in more:
                apply_event(self._state, e, self._rules)
                out.append(e)
                if turns is not None:
                    turns.append(self._turn_now())
