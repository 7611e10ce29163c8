"""The application layer between the servicers and the engine."""

from ramino.app.games import GameApp, Limits, WatchItem
from ramino.app.log import Header, HostedGame, SeatSpec

__all__ = ["GameApp", "Header", "HostedGame", "Limits", "SeatSpec", "WatchItem"]
