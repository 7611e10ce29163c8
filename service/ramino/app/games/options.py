"""What a seat is told it may do: the one rule for pushing a seat's options,
used by its session (:mod:`ramino.app.games.session`) and by its watch
(``GameServicer.WatchGame``, which only encodes what this gives)."""

from __future__ import annotations

from ramino.app.games.moves import Moves
from ramino.app.games.outcomes import LegalMoves
from ramino.app.games.watch import WatchItem
from ramino.app.log import END_EVENTS

__all__ = ["SeatTold"]


class SeatTold:
    """What one stream of a seat last told it, and the options it sends with
    each message: made (:meth:`Moves.options_at`, once per state of the
    game) with an event after which the turn is the seat's, unless the game
    is known to be past it (a catch-up's, or one with newer ones queued) or
    the caller holds them off for now; none, with whose turn it is, with an
    event after which the turn left a seat that may think it has moves, or
    that ended the game; nothing otherwise."""

    def __init__(
        self,
        moves: Moves,
        game_id: str,
        seat: int,
        told: bool | None = None,
        views: bool = False,
    ) -> None:
        """``told``: what the seat is known to think at the start (None:
        nothing told yet, so the turn leaving it is said too); ``views``:
        options with moves come with the seat's view at their version
        (:attr:`LegalMoves.seen`: a session's ``option_views``)."""
        self._moves = moves
        self.views = views
        self.game_id = game_id
        self.seat = seat
        self.told = told
        """Whether the seat was last told it has moves (None: told nothing yet)."""

    async def at(
        self, version: int, hints: bool = True, with_view: bool = True
    ) -> LegalMoves | None:
        """The seat's options at ``version`` (``hints``: with their hint;
        ``with_view``: False for options that go with a snapshot, which is
        the view), noted as told; None when the game has moved past
        ``version``."""
        options = await self._moves.options_at(
            self.game_id, self.seat, version, hints, self.views and with_view
        )
        if options is not None:
            self.told = bool(options.moves)
        return options

    def answered(self, options: LegalMoves | None) -> None:
        """The seat was told ``options`` another way (a move's answer)."""
        self.told = options is not None and bool(options.moves)

    async def after(
        self, item: WatchItem, hints: bool = True, now: bool = True
    ) -> LegalMoves | None:
        """The options to send with the event ``item`` (``now``: whether
        they may be made now: a caller with newer messages on their way
        makes them later, at the last version)."""
        if item.type in END_EVENTS:
            options = LegalMoves(item.version, (), None, None) if self.told else None
            self.told = False
            return options
        if item.turn == self.seat:
            if item.past or not now:
                return None
            return await self.at(item.version, hints)
        if self.told is not False:
            self.told = False
            return LegalMoves(item.version, (), None, item.turn)
        return None
