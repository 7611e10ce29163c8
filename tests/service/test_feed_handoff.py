"""In one process a watch feed is handed the events a move built: it parses
no row of the store for them; what another writer appends (here the game's
end) still comes through the store's subscription."""

from __future__ import annotations

from typing import Any

import pytest
import ramino.app.games.fanout as fanout
from ramino.app import GameApp
from ramino.engine import DrawFromStock, Seen
from ramino.store.memory import MemoryStore

from .test_move_records import SEED, seated


def named(version: int, event: Seen[Any], turn: int | None = None) -> bytes:
    return type(event.value).__name__.encode()


async def test_a_moves_events_are_handed_to_the_feed_and_no_row_is_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED, run_duties=False)
    game_id, seat = await seated(app)
    parsed: list[str] = []
    log_event = fanout.log_event

    def parsing(data: dict[str, Any]) -> Any:
        parsed.append(data["kind"])
        return log_event(data)

    monkeypatch.setattr(fanout, "log_event", parsing)
    stream = app.watch(game_id, None, None, False, named)
    assert (await anext(stream)).game is not None  # the snapshot; the feed is attached
    await app.move(game_id, seat, DrawFromStock(), None, None)
    drew = await anext(stream)
    assert (drew.type, drew.payload) == ("DrewFromStock", b"DrewFromStock")
    await app.end(game_id, "cancelled")
    ended = await anext(stream)
    assert (ended.type, ended.version) == ("GameEnded", drew.version + 1)
    assert parsed == ["ended"]
    await app.close()
