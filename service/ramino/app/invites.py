"""Invite codes of private games.

A private game is never listed; a seat of it is taken only with its invite
code, which its creator is given once (a retry of the creation with the
same request id gets it again) and shares. The code is
``{game id}.{secret}``: the game id says which game it opens (so the code
alone is enough to join) and the secret, 128 random bits as URL-safe base64,
is what no one can guess. The game's log keeps only the secret's SHA-256
(:attr:`~ramino.app.log.Header.invite_hash`), so whoever reads the log or a
store's dump cannot join with it; the code is kept in the creating
request's record only, for that retry.

A code opens its own game only, and only while the game waits for players:
once dealt (or ended) it opens nothing. Every code that opens nothing is
answered alike (:class:`InviteNotValid`), whether its game exists or not.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ramino import reasons as R
from ramino.errors import NotFound

__all__ = ["InviteNotValid", "new_secret", "secret_hash", "invite_code", "parse", "opens"]

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


def new_secret() -> str:
    """A new code's secret: :data:`SECRET_BYTES` random bytes, URL-safe base64."""
    return secrets.token_urlsafe(SECRET_BYTES)


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
