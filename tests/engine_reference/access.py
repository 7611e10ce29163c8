"""Who may act in a game or look at it: the seat checks and the spectator
rule, once, for every path that reads or moves (a move, legal moves, a
view, a watch)."""

from __future__ import annotations

from ramino import reasons
from ramino.errors import NotPermitted

__all__ = ["check_seat", "check_spectator"]


def check_seat(seat: int, seats: int) -> None:
    """Refuses a seat claim (a signed token, so ours) for a seat that a game
    of ``seats`` seats does not have."""
    if not 0 <= seat < seats:
        raise NotPermitted(
            "this seat token claims a seat the game does not have", reasons.NO_SUCH_SEAT
        )


def check_spectator(viewer: int | None, spectators_disabled: bool) -> None:
    """Refuses a spectator (``viewer`` ``None``) of a game created without
    spectators: only its seats may see or watch it."""
    if viewer is None and spectators_disabled:
        raise NotPermitted(
            "this game has no spectators: only its seats may see or watch it",
            reasons.SPECTATING_DISABLED,
        )
