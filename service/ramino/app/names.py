"""What the games and quick play name alike: a person's name as a game or a
ticket keeps it, and the id of the game a create request makes (a lobby's,
or a match's)."""

from __future__ import annotations

import hashlib

from ramino import reasons as R
from ramino.errors import BadRequest
from ramino.store import RequestRecord

__all__ = ["MAX_NAME", "checked_name", "game_id_for"]

MAX_NAME = 64
"""The longest player name, in characters (after stripping spaces)."""


def checked_name(text: str, seat: int | None = None) -> str:
    """A person's name as games and tickets keep it: ``text`` without the
    spaces around it, 1 to :data:`MAX_NAME` characters; BAD_PLAYER_NAME
    otherwise (naming ``seat`` when given)."""
    name = text.strip()
    if not name or len(name) > MAX_NAME:
        where = "" if seat is None else f"seat {seat}: "
        raise BadRequest(f"{where}a player name is 1 to {MAX_NAME} characters", R.BAD_PLAYER_NAME)
    return name


def game_id_for(request: RequestRecord) -> str:
    """A create retried with the same request id by the same caller names
    the same game; another caller's same id names another game."""
    key = f"create:{len(request.scope)}:{request.scope}:{request.request_id}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]
