"""The exception tree of Ramino, rooted at :class:`RaminoError`.

Every error carries a stable, machine-readable ``reason`` (UPPER_SNAKE) that
the service sends to clients unchanged. Errors caused by bad input also
subclass :class:`ValueError`.
"""

from __future__ import annotations

EXCERPT = 32
"""Most characters of a client's input that an error message quotes."""


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """``text`` quoted for an error message: its first ``limit`` characters,
    and the length of the whole when it is longer."""
    s = text if isinstance(text, str) else repr(text)
    if len(s) <= limit:
        return repr(s)
    return f"{s[:limit]!r}... ({len(s)} characters)"


__all__ = [
    "RaminoError",
    "InputError",
    "CardError",
    "InvalidMeld",
    "InvalidHand",
    "VariantError",
    "InvalidSeed",
    "BadRequest",
    "OutOfRange",
    "NotPermitted",
    "NotFound",
    "GameStateError",
    "Busy",
    "Interrupted",
    "PartyStateError",
    "excerpt",
]


class RaminoError(Exception):
    """Base class of every error Ramino raises on purpose."""

    reason: str

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    def __reduce__(self) -> tuple[type[RaminoError], tuple[str, str]]:
        return (type(self), (str(self), self.reason))


class InputError(RaminoError, ValueError):
    """The caller passed something that cannot be."""


class CardError(InputError):
    """A card token, a deck, or more copies of a card than the deck holds."""


class InvalidMeld(InputError):
    """Cards that are not a legal meld; ``reason`` says why (``GAP``, ...)."""


class InvalidHand(InputError):
    """A hand or table the search refuses (``EMPTY_HAND``, ``HAND_TOO_LARGE``, ...)."""


class VariantError(InputError):
    """An unknown variant, or a bad parameter override."""


class InvalidSeed(InputError):
    """A shuffle seed that is not an integer from 0 to 2**256 - 1."""


# The service's domain errors: the application layer raises them and knows
# no transport; ``ramino.api.errors`` sends each with the gRPC status code
# that ``ramino.reasons`` registers for its reason.


class BadRequest(InputError):
    """A request the service refuses as malformed (a bad name, seat, page
    token, parameter, request id reused...)."""


class OutOfRange(BadRequest):
    """A value past what the request may name now (a version the game has
    not reached): unlike other bad requests it may become valid as the game
    goes on, so it is OUT_OF_RANGE, not INVALID_ARGUMENT."""


class NotPermitted(RaminoError):
    """The caller may not do this (another seat's or game's token, no
    spectators)."""


class NotFound(RaminoError):
    """No such thing, or none the caller may know of (another player's
    ticket is answered as unknown)."""


class GameStateError(RaminoError):
    """The game is not in a state that allows this (ended, not started, seat taken)."""


class PartyStateError(RaminoError):
    """The party is not in a state that allows this (full, queued, an
    invitation used or expired)."""


class Busy(RaminoError):
    """Too much at once (the work pool, a game's watchers, a slow watcher):
    retry later."""


class Interrupted(RaminoError):
    """Work cut short by the server (a watch feed failed): resume."""
