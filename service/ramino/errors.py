"""The exception tree of Ramino, rooted at :class:`RaminoError`.

Every error carries a stable, machine-readable ``reason`` (UPPER_SNAKE) that
the service sends to clients unchanged. Errors caused by bad input also
subclass :class:`ValueError`.
"""

from __future__ import annotations

__all__ = [
    "RaminoError",
    "InputError",
    "CardError",
    "InvalidMeld",
    "InvalidHand",
    "VariantError",
    "InvalidSeed",
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
