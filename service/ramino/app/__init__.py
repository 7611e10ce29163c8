"""The application layer between the servicers and the engine."""

from ramino.app.application import GameApp, Limits, WatchItem
from ramino.app.hosted import HostedGame
from ramino.app.log import Header, SeatSpec

__all__ = ["GameApp", "Header", "HostedGame", "Limits", "SeatSpec", "WatchItem"]
