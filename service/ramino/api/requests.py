"""What the servicer reads of a request before the application sees it: a
game's name, a request id and its record, card ids and meld indexes."""

from __future__ import annotations

import hashlib
from typing import Any

from ramino import reasons
from ramino.api import convert
from ramino.app.values import RequestRecord, fingerprint
from ramino.errors import excerpt

__all__ = [
    "MAX_CARD_ID",
    "MAX_REQUEST_ID",
    "request_hash",
    "check_request_id",
    "request_record",
    "game_id_of",
    "card_id",
    "meld_index",
]

MAX_CARD_ID = 1 << 10
MAX_REQUEST_ID = 128


def request_hash(request_id: str) -> str:
    """What the logs show of a request id: a short hash, never the id."""
    return hashlib.sha256(request_id.encode()).hexdigest()[:12]


def check_request_id(request_id: str) -> None:
    if len(request_id) > MAX_REQUEST_ID:
        raise convert.invalid(
            reasons.BAD_REQUEST_ID, f"a request id is at most {MAX_REQUEST_ID} characters"
        )


def request_record(request: Any, method: str, scope: str) -> RequestRecord | None:
    """The record of ``request``'s request id (None without one): scoped to
    the caller, the method, and the request's fingerprint (its deterministic
    serialization, request id cleared)."""
    if not request.request_id:
        return None
    request_id = request.request_id
    request.request_id = ""  # (cleared for the fingerprint, and set again: no copy made)
    try:
        printed = fingerprint(request.SerializeToString(deterministic=True))
    finally:
        request.request_id = request_id
    return RequestRecord(request_id, scope, method, printed)


def game_id_of(name: str) -> str:
    prefix, _, game_id = name.partition("/")
    if prefix != "games" or not game_id or not game_id.isalnum() or len(game_id) > 64:
        raise convert.invalid(
            reasons.BAD_GAME_NAME, f'a game name is "games/{{game}}", not {excerpt(name)}'
        )
    return game_id


def card_id(value: int) -> int:
    if not 0 <= value < MAX_CARD_ID:
        raise convert.invalid(reasons.BAD_CARD_ID, f"no card has id {value}")
    return value


def meld_index(value: int, what: str) -> int:
    if not 0 <= value < MAX_CARD_ID:
        raise convert.invalid(reasons.BAD_MELD_INDEX, f"no {what} {value}")
    return value
