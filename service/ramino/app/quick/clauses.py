"""The matching grammar: what a ticket asks of the tickets it may meet,
besides its queue, seat counts and rating window (``docs/matchmaking.md``,
"The matching grammar").

A ticket has string properties (``region: eu``: a key both tickets set must
have the same value) and numeric properties (``latency: 40``), and up to
:data:`MAX_CLAUSES` clauses, each tested on the *other* ticket's properties:

- ``must``: the other ticket has the property and it passes the test;
- ``should``: as ``must`` while this ticket has waited less than the
  queue's ``prefer_for``, then dropped (a preference that gives way);
- ``must_not``: the other ticket lacks the property, or it fails the test.

A test is ``any_of`` (the string property is one of the values) or a
``min``/``max`` range (the numeric property lies within it, bounds
included). Two tickets meet only when each one's clauses allow the other.
A ticket's ``rating_band`` (0: none) is the most rating difference its
player accepts from any mate, whatever the widening window says.

A clause is kept, in the ticket, as a dict: ``{"occur", "key", "any_of"}``
or ``{"occur", "key", "min", "max"}`` (a missing bound ``None``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ramino import reasons
from ramino.app.quick.tickets import Ticket
from ramino.errors import BadRequest

__all__ = [
    "MAX_CLAUSES",
    "MAX_NUMBERS",
    "MAX_VALUES",
    "MUST",
    "MUST_NOT",
    "OCCURS",
    "SHOULD",
    "allows",
    "allows_no_properties",
    "checked_band",
    "checked_clauses",
    "checked_numbers",
]

MUST, SHOULD, MUST_NOT = "must", "should", "must_not"
OCCURS = (MUST, SHOULD, MUST_NOT)
MAX_CLAUSES = 8
MAX_NUMBERS = 8
MAX_VALUES = 8
"""The most values of one ``any_of``."""
MAX_TEXT = 32
"""The longest key or value, as of string properties."""


def _text(text: str) -> bool:
    return 0 < len(text) <= MAX_TEXT and text.isprintable()


def checked_numbers(numbers: Mapping[str, float], strings: Mapping[str, str]) -> dict[str, float]:
    """A ticket's numeric properties: at most :data:`MAX_NUMBERS`, each key
    1 to 32 printable characters and not a string property's too, each value
    finite; BAD_TICKET_PROPERTIES naming the first that is not."""
    if len(numbers) > MAX_NUMBERS:
        raise BadRequest(
            f"at most {MAX_NUMBERS} numeric properties, not {len(numbers)}",
            reasons.BAD_TICKET_PROPERTIES,
        )
    for key, value in numbers.items():
        if not _text(key):
            raise BadRequest(
                f"numeric property {key[:40]!r}: a key is 1 to {MAX_TEXT} printable characters",
                reasons.BAD_TICKET_PROPERTIES,
            )
        if key in strings:
            raise BadRequest(
                f"numeric property {key!r} is a string property too: one kind per key",
                reasons.BAD_TICKET_PROPERTIES,
            )
        if not math.isfinite(value):
            raise BadRequest(
                f"numeric property {key!r}: a finite number, not {value}",
                reasons.BAD_TICKET_PROPERTIES,
            )
    return {k: float(v) for k, v in numbers.items()}


def _bad(i: int, what: str) -> BadRequest:
    return BadRequest(f"clause {i}: {what}", reasons.BAD_MATCH_CLAUSE)


def checked_clauses(clauses: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The clauses as a ticket keeps them; BAD_MATCH_CLAUSE naming the first
    bad one (by its index) and what is wrong with it."""
    if len(clauses) > MAX_CLAUSES:
        raise BadRequest(
            f"at most {MAX_CLAUSES} clauses, not {len(clauses)}", reasons.BAD_MATCH_CLAUSE
        )
    kept: list[dict[str, Any]] = []
    for i, clause in enumerate(clauses):
        occur, key = clause.get("occur", ""), clause.get("key", "")
        if occur not in OCCURS:
            raise _bad(i, "its occur is one of must, should, must_not")
        if not _text(key):
            raise _bad(i, f"its key is 1 to {MAX_TEXT} printable characters")
        if "any_of" in clause:
            values = list(clause["any_of"])
            if not 1 <= len(values) <= MAX_VALUES or not all(_text(v) for v in values):
                raise _bad(
                    i,
                    f"any_of is 1 to {MAX_VALUES} values, each 1 to {MAX_TEXT} "
                    "printable characters",
                )
            kept.append({"occur": occur, "key": key, "any_of": sorted(set(values))})
        elif "min" in clause or "max" in clause:
            low, high = clause.get("min"), clause.get("max")
            if low is None and high is None:
                raise _bad(i, "a range has a min, a max or both")
            if any(b is not None and not math.isfinite(b) for b in (low, high)):
                raise _bad(i, "a range's bounds are finite numbers")
            if low is not None and high is not None and low > high:
                raise _bad(i, f"a range's min {low} is above its max {high}")
            kept.append({"occur": occur, "key": key, "min": low, "max": high})
        else:
            raise _bad(i, "it tests any_of (string values) or a range (min, max)")
    return kept


def checked_band(band: float) -> float:
    """A rating band: 0 (none) or a finite number of points above 0."""
    if not (math.isfinite(band) and band >= 0):
        raise BadRequest(
            f"a rating band is 0 (none) or a positive number of points, not {band}",
            reasons.BAD_RATING_BAND,
        )
    return float(band)


def _passes(clause: Mapping[str, Any], other: Ticket) -> bool:
    """Whether the other ticket has the clause's property and it passes."""
    key = clause["key"]
    if "any_of" in clause:
        return key in other.properties and other.properties[key] in clause["any_of"]
    if key not in other.numbers:
        return False
    value = other.numbers[key]
    low, high = clause["min"], clause["max"]
    return (low is None or value >= low) and (high is None or value <= high)


def allows(ticket: Ticket, other: Ticket, waited: float, prefer_for: float) -> bool:
    """Whether ``ticket``'s clauses, after it has waited ``waited`` seconds,
    allow it to meet ``other``."""
    for clause in ticket.clauses:
        occur = clause["occur"]
        if occur == SHOULD and waited >= prefer_for:
            continue
        if _passes(clause, other) != (occur != MUST_NOT):
            return False
    return True


def allows_no_properties(ticket: Ticket, waited: float, prefer_for: float) -> bool:
    """Whether ``ticket``'s clauses, after it has waited ``waited`` seconds,
    allow a mate that sets no property (a lobby table): a must clause never
    does, nor a should clause while it holds; a must_not clause always does."""
    return all(
        c["occur"] == MUST_NOT or (c["occur"] == SHOULD and waited >= prefer_for)
        for c in ticket.clauses
    )
