"""What a setting's value is: how it is read from text (a flag, a
``RAMINO_*`` variable) and from a TOML value, each checked the same way.

A TOML value is checked for its TOML type first (a port is an integer, not
a string), then given to the same check as the text, so that a bad value
is refused with the same words wherever it was written."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ramino.errors import excerpt

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Kind(Generic[T]):
    """A setting's type: ``from_text`` and ``from_toml`` raise ValueError
    with a message that says what was expected."""

    what: str
    """What a value is, in words ("a whole number")."""
    metavar: str
    """The placeholder of the flag's value in ``--help``."""
    from_text: Callable[[str], T]
    from_toml: Callable[[object], T]


def _number_text(value: object, whole: bool) -> str:
    """A TOML number as the text its flag would take; ValueError for any other TOML type."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{'a whole number' if whole else 'a number'}, not {excerpt(value)}")
    if whole and not isinstance(value, int):
        raise ValueError(f"a whole number, not {excerpt(value)}")
    return repr(value)


def whole(metavar: str = "N") -> Kind[int]:
    """A whole number."""

    def from_text(given: str) -> int:
        try:
            return int(given, 10)
        except ValueError:
            raise ValueError(f"a whole number, not {excerpt(given)}") from None

    return Kind("a whole number", metavar, from_text, lambda v: from_text(_number_text(v, True)))


def ranged(says: str, low: int, high: int, metavar: str = "N") -> Kind[int]:
    """A whole number from ``low`` to ``high``; another is refused as
    "``says``, not 'x'" (``says``: "a party holds 2 to 6 players")."""

    def from_text(given: str) -> int:
        try:
            value = int(given, 10)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise ValueError(f"{says}, not {excerpt(given)}")
        return value

    return Kind(says, metavar, from_text, lambda v: from_text(_number_text(v, True)))


def number(metavar: str = "S") -> Kind[float]:
    """A number (seconds, or a rate), unchecked beyond that."""

    def from_text(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"a number, not {excerpt(text)}") from None

    return Kind("a number", metavar, from_text, lambda v: from_text(_number_text(v, whole=False)))


def seconds(above_zero: bool = False) -> Kind[float]:
    """A number of seconds: 0 or more, or (``above_zero``) more than 0; finite."""

    def from_text(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if above_zero and not 0 < value < math.inf:
            raise ValueError(f"a number of seconds above 0, not {excerpt(text)}")
        if not above_zero and not 0 <= value < math.inf:
            raise ValueError(f"a number of seconds, 0 or more, not {excerpt(text)}")
        return value

    what = "seconds above 0" if above_zero else "seconds, 0 or more"
    return Kind(what, "S", from_text, lambda v: from_text(_number_text(v, whole=False)))


def text(metavar: str = "TEXT") -> Kind[str]:
    """A string, as given."""

    def from_toml(value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f"a string, not {excerpt(value)}")
        return value

    return Kind("a string", metavar, lambda t: t, from_toml)


def switch() -> Kind[bool]:
    """On or off: a TOML boolean; a variable is on when it is 1, true or yes."""

    def from_text(text: str) -> bool:
        return text.strip().lower() in ("1", "true", "yes")

    def from_toml(value: object) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"true or false, not {excerpt(value)}")
        return value

    return Kind("true or false", "", from_text, from_toml)


def window() -> Kind[tuple[float, float, float, float]]:
    """A rating window schedule: BASE,STEP,INTERVAL,MAX (a list of four
    numbers in TOML)."""
    from ramino.app.quick.queues import MatchmakerConfig

    def from_text(given: str) -> tuple[float, float, float, float]:
        parts = given.split(",")
        try:
            base, step, interval, most = (float(p) for p in parts)
            MatchmakerConfig(
                window_base=base, window_step=step, window_interval=interval, window_max=most
            )
        except ValueError as bad:
            raise ValueError(
                "a rating window schedule is BASE,STEP,INTERVAL,MAX (e.g. 3,3,10,60), not "
                f"{excerpt(given)}" + (f": {bad}" if len(parts) == 4 else "")
            ) from None
        return base, step, interval, most

    def from_toml(value: object) -> tuple[float, float, float, float]:
        if not isinstance(value, list):
            raise ValueError(f"a list of four numbers [BASE, STEP, INTERVAL, MAX], not {value!r}")
        return from_text(",".join(_number_text(v, whole=False) for v in value))

    return Kind("[BASE, STEP, INTERVAL, MAX]", "BASE,STEP,INTERVAL,MAX", from_text, from_toml)


def bot_times() -> Kind[dict[str, float]]:
    """Milliseconds a decision per searching level: hard=20,expert=100 (a
    table in TOML: ``{ hard = 20, expert = 100 }``)."""
    from ramino.bots.search import parse_times

    def from_toml(value: object) -> dict[str, float]:
        if not isinstance(value, dict):
            raise ValueError(f"a table of levels' milliseconds {{ hard = 20 }}, not {value!r}")
        return parse_times(
            ",".join(f"{k}={_number_text(v, whole=False)}" for k, v in value.items())
        )

    return Kind("a table { LEVEL = MS }", "LEVEL=MS,...", parse_times, from_toml)


Queues = dict[str, dict[str, float]]


def _checked_queues(queues: object, where: str) -> Queues:
    from ramino.app.quick.queues import MatchmakerConfig

    if not isinstance(queues, dict) or not all(isinstance(v, dict) for v in queues.values()):
        raise ValueError(
            f'{where}an object of queues, each an object of knobs: {{"gin/rated": '
            '{"settle": 10}}'
        )
    try:
        MatchmakerConfig(queues=queues)
    except ValueError as bad:
        raise ValueError(f"{where}{bad}") from None
    return queues


def queues_file(path: str) -> Queues:
    """Some queues' own knobs, from a JSON file (``docs/matchmaking.md``)."""
    try:
        with open(path, encoding="utf-8") as f:
            given = json.load(f)
    except (OSError, ValueError) as bad:
        raise ValueError(f"{path}: {bad}") from None
    return _checked_queues(given, f"{path}: ")


def queues() -> Kind[Queues]:
    """Some queues' own knobs: the path of a JSON file as text; in TOML a
    table of tables (``[quick.queues."gin/rated"]``) or such a path."""

    def from_toml(value: object) -> Queues:
        if isinstance(value, str):
            return queues_file(value)
        return _checked_queues(value, "")

    return Kind("a table of queues' tables, or a JSON file", "FILE", queues_file, from_toml)
