"""Invite codes of private games, and what a stranger is told of them.

A private game is never listed; a seat of it is taken only with its invite
code, which its creator is given (a retry of the creation with the same
request id gets it again) and shares. The code is ``{game id}.{secret}``:
the game id says which game it opens (so the code alone is enough to join)
and the secret, 128 bits as URL-safe base64, is the HMAC-SHA-256 of the
game id under the server's secret (:func:`secret_for`), which no one
without that secret can make. A code is checked against the server's secret
first, in constant time and before any lookup (:func:`made_here`): a wrong
secret is refused by the same work whether its game exists or not, and
only a code the server made is looked up at all. The game's log keeps only
the secret's SHA-256 (:attr:`~ramino.app.log.Header.invite_hash`), so
whoever reads the log or a store's dump cannot join with it, and no store
keeps the code. Replicas share the server's secret (``ramino serve``
derives it from the seat-token secret); a new secret makes the codes of the
tables still waiting open nothing.

A code opens its own game only, and only while the game waits for players:
once dealt (or ended) it opens nothing. Every code that opens nothing is
answered alike (:class:`InviteNotValid`), whether its game exists or not;
and to anyone who is not one of its seats, a private game is no game at all
(:func:`check_visible`): every call answers it as it answers an id that
names no game.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from ramino import reasons as R
from ramino.errors import NotFound
from ramino.store import GameNotFound

__all__ = [
    "InviteNotValid",
    "secret_for",
    "made_here",
    "secret_hash",
    "invite_code",
    "parse",
    "opens",
    "check_visible",
]

SECRET_BYTES = 16
"""Random bytes in a code's secret: 128 bits."""
MAX_CODE = 100
"""The longest code looked at (a game id of up to 64 characters, a dot and
the secret's 22); longer is answered as any code that opens nothing."""


class InviteNotValid(NotFound):
    """An invite code that opens no game: wrong, or its game was dealt or
    ended, or there is no such game (the answer does not say which)."""

    def __init__(self) -> None:
        super().__init__(
            "this invite code opens no game: it is wrong, or its game has started or ended",
            R.INVITE_NOT_VALID,
        )


def secret_for(key: bytes, game_id: str) -> str:
    """The secret of ``game_id``'s code under the server's ``key``: the
    first :data:`SECRET_BYTES` bytes of an HMAC-SHA-256, URL-safe base64."""
    mac = hmac.new(key, b"invite:" + game_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:SECRET_BYTES]).rstrip(b"=").decode()


def made_here(key: bytes, game_id: str, secret: str) -> bool:
    """Whether ``secret`` is the one the server's ``key`` makes for
    ``game_id``: compared in constant time, with no lookup, so that a wrong
    secret takes the same time whether its game exists or not."""
    return hmac.compare_digest(secret_for(key, game_id).encode(), secret.encode("utf-8", "replace"))


def secret_hash(secret: str) -> str:
    """What a game's header keeps of its code's secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def invite_code(game_id: str, secret: str) -> str:
    return f"{game_id}.{secret}"


def parse(code: str) -> tuple[str, str]:
    """The game id and secret of ``code``; :class:`InviteNotValid` for a
    string that is no code (too long, no dot, a game id that is not
    alphanumeric)."""
    game_id, dot, secret = code.strip().partition(".")
    if (
        len(code) > MAX_CODE
        or not dot
        or not secret
        or not game_id.isascii()
        or not game_id.isalnum()
    ):
        raise InviteNotValid()
    return game_id, secret


def opens(invite_hash: str, secret: str) -> bool:
    """Whether ``secret`` is the one whose hash a game keeps (compared in
    constant time; a public game's empty hash is opened by nothing)."""
    return bool(invite_hash) and hmac.compare_digest(invite_hash, secret_hash(secret))


def check_visible(game_id: str, private: bool, viewer: int | None) -> None:
    """Answers a private game as no game (:class:`GameNotFound`, as the
    store answers an id it does not have) to a caller who is not one of its
    seats (``viewer`` ``None``): its existence is told to no stranger."""
    if private and viewer is None:
        raise GameNotFound(game_id)
