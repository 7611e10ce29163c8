"""What quick play asks of the games, as two small protocols: quick play
(:mod:`ramino.app.quick`) imports no module of the games
(:mod:`ramino.app.games`); :class:`~ramino.app.application.GameApp` hands it
the lobby as :class:`Seating` and the game cache as :class:`GameRecords`
(``tests/service/test_layers.py`` holds the halves apart)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ramino.app.hosted import HostedGame
from ramino.app.log import SeatSpec
from ramino.store import RequestRecord, Store

__all__ = ["GameRecords", "Seating"]


class Seating(Protocol):
    """The lobby as the matchmaker uses it: a match's game made and dealt, a
    ticket seated at a quick-play table still waiting for players."""

    async def create(
        self,
        variant: str,
        overrides: dict[str, Any],
        seats: Sequence[SeatSpec],
        turn_timer_seconds: int = 0,
        request: RequestRecord | None = None,
        *,
        rated: bool = False,
    ) -> HostedGame: ...

    async def deal_if_full(self, game_id: str) -> HostedGame: ...

    async def waiting_table(self, game_id: str) -> HostedGame | None: ...

    async def join(
        self,
        game_id: str,
        seat: int | None,
        player_name: str,
        request: RequestRecord | None = None,
        player_id: str | None = None,
    ) -> tuple[HostedGame, int]: ...


class GameRecords(Protocol):
    """The games as quick play reads a finished one's record."""

    @property
    def store(self) -> Store: ...

    async def load(self, game_id: str) -> HostedGame: ...
