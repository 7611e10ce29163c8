"""A game's record: how it was created and everything that happened.

The record is the truth of a game (the state is a fold over its events). Its
JSON form is versioned and stable: keys sorted, no whitespace, the seed as a
decimal string (it is 256 bits wide), events as ``{"type": ..., fields}``.
The record holds the secret seed and every hidden card: it is for the server
and for replays after the game, never for a player during one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ramino import reasons

from tests.engine_reference.codec import event_from_data, to_data
from tests.engine_reference.context import Override
from tests.engine_reference.errors import RecordError
from tests.engine_reference.events import Event

__all__ = ["Record", "FORMAT", "FORMAT_VERSION"]

FORMAT: Final = "ramino.record"
FORMAT_VERSION: Final = 1


def _fail(message: str, reason: str = reasons.RECORD_FORMAT) -> RecordError:
    return RecordError(message, reason)


@dataclass(slots=True)
class Record:
    variant: str
    """The preset the game's variant starts from."""
    overrides: dict[str, Override]
    players: tuple[str, ...]
    seed: int
    decks: tuple[tuple[int, ...], ...] = ()
    """Explicit deck orders of the first rounds, if the game was stacked."""
    events: list[Event] = field(default_factory=list)

    @property
    def version(self) -> int:
        """The number of events: the game's version for compare-and-set."""
        return len(self.events)

    def to_data(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "variant": self.variant,
            "overrides": dict(self.overrides),
            "players": list(self.players),
            "seed": str(self.seed),
            "decks": [list(d) for d in self.decks],
            "events": [to_data(e) for e in self.events],
        }

    def to_json(self) -> str:
        """The stable JSON form (the same record always gives the same text)."""
        return json.dumps(self.to_data(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_data(cls, data: object) -> Record:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise _fail("not a ramino record")
        if data.get("format_version") != FORMAT_VERSION:
            raise _fail(
                f"record format version {data.get('format_version')!r} is not " f"{FORMAT_VERSION}",
                reasons.RECORD_VERSION,
            )
        variant = data.get("variant")
        overrides = data.get("overrides")
        players = data.get("players")
        seed = data.get("seed")
        decks = data.get("decks", [])
        events = data.get("events")
        if not isinstance(variant, str):
            raise _fail("variant is a preset name")
        if not isinstance(overrides, dict) or not all(
            isinstance(k, str) and _is_override(v) for k, v in overrides.items()
        ):
            raise _fail("overrides map parameter names to values")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise _fail("players is a list of names")
        if not isinstance(seed, str) or not seed.isdigit():
            raise _fail("seed is a decimal string")
        if not isinstance(decks, list) or not all(_is_int_list(d) for d in decks):
            raise _fail("decks is a list of card id lists")
        if not isinstance(events, list):
            raise _fail("events is a list")
        return cls(
            variant=variant,
            overrides=dict(overrides),
            players=tuple(players),
            seed=int(seed),
            decks=tuple(tuple(d) for d in decks),
            events=[event_from_data(e) for e in events],
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as e:
            raise _fail(f"not JSON: {e}") from None
        return cls.from_data(data)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_int_list(value: object) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _is_override(value: object) -> bool:
    return isinstance(value, bool | int | str) or _is_int_list(value)


def copy_overrides(overrides: Mapping[str, Override] | None) -> dict[str, Override]:
    """A plain copy of ``overrides`` (lists copied too)."""
    out: dict[str, Override] = {}
    for k, v in (overrides or {}).items():
        out[k] = list(v) if isinstance(v, Sequence) and not isinstance(v, str) else v
    return out
