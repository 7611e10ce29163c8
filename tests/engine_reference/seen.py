"""The one viewer filter: what a viewer (a seat, or ``None`` for a
spectator) may see of an event or of a game's state.

Every event and view that leaves the server passes here first, the mover's
own answer too: :func:`see_event` projects an event (:func:`project`),
:func:`see_view` builds a view (:func:`build_view`), and each wraps its
value in a :class:`Seen` for its viewer. Encoders accept only ``Seen``
values, and only this module makes them, so a field that a viewer may not
see is hidden in one place (the projection) for every path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tests.engine_reference.events import project
from tests.engine_reference.views import View, build_view

if TYPE_CHECKING:
    from tests.engine_reference.game import Game

__all__ = ["Seen", "see_event", "see_view"]

T = TypeVar("T", covariant=True)
_PROJECTED = object()
"""The key that only this module's projections hold."""


class Seen(Generic[T]):
    """``value`` as ``viewer`` may see it; made only by :func:`see_event`
    and :func:`see_view`."""

    __slots__ = ("value", "viewer")
    value: T
    viewer: int | None

    def __init__(self, value: T, viewer: int | None, key: object) -> None:
        if key is not _PROJECTED:
            raise TypeError("a Seen value is made by the engine's projection only")
        self.value = value
        self.viewer = viewer

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Seen) and self.viewer == other.viewer and self.value == other.value

    def __hash__(self) -> int:
        return hash((self.viewer, self.value))

    def __repr__(self) -> str:
        return f"Seen({self.value!r}, viewer={self.viewer!r})"


def see_event(event: Any, viewer: int | None) -> Seen[Any]:
    """``event`` (the engine's, or one of the service's own, which hide
    nothing) as ``viewer`` may see it."""
    return Seen(project(event, viewer), viewer, _PROJECTED)


def see_view(game: Game, viewer: int | None) -> Seen[View]:
    """What ``viewer`` may see of ``game`` now."""
    return Seen(build_view(game.state, game.rules, viewer), viewer, _PROJECTED)
