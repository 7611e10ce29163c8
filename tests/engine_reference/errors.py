"""Errors of the rules engine, under :class:`ramino.errors.RaminoError`.

:class:`IllegalMove` is a well-formed command that the rules refuse now (the
service maps it to FAILED_PRECONDITION); the other classes are bad input and
also subclass :class:`ValueError` (INVALID_ARGUMENT). Every ``reason`` is a
constant of :mod:`ramino.reasons`. A refused command never changes the
game.
"""

from __future__ import annotations

from ramino.errors import InputError, RaminoError

__all__ = ["IllegalMove", "MalformedCommand", "InvalidSetup", "RecordError"]


class IllegalMove(RaminoError):
    """A command the rules forbid in the current state.

    ``detail`` carries a finer reason from the meld kernel where there is one
    (``GAP``, ``MIXED_SUITS``, ...) for :data:`~ramino.reasons.INVALID_MELD`
    and :data:`~ramino.reasons.CANNOT_LAY_OFF`, else ``None``.
    """

    detail: str | None

    def __init__(self, message: str, reason: str, detail: str | None = None) -> None:
        super().__init__(message, reason)
        self.detail = detail

    def __reduce__(self) -> tuple[type[IllegalMove], tuple[str, str, str | None]]:  # type: ignore[override]
        return (type(self), (str(self), self.reason, self.detail))


class MalformedCommand(InputError):
    """A command that cannot be meant: unknown card or seat, wrong field types."""


class InvalidSetup(InputError):
    """A game that cannot be created: player count, seed, stacked deck."""


class RecordError(InputError):
    """A record that cannot be read or does not replay."""
