"""Snapshots: a replica that has never seen a long game loads it from its
latest snapshot and the entries after it, into the same state as a full fold."""

from __future__ import annotations

import asyncio

from ramino.app import GameApp, HostedGame, Limits, SeatSpec
from ramino.store import Entry, Store, open_store


class CountingStore:
    """A store that remembers which versions reads started after."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.reads_after: list[int] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[Entry]:
        self.reads_after.append(after_version)
        return await self.inner.read(game_id, after_version, limit)


async def test_a_long_game_loads_from_its_snapshot_into_the_same_state() -> None:
    store = open_store("memory")
    host = GameApp(store, snapshot_every=25, limits=Limits(allow_bot_games=True))
    game = await host.create("ramino51", {"max_rounds": 3}, [SeatSpec("", "greedy")] * 3)
    for _ in range(600):
        loaded = await host.load(game.game_id)
        if loaded.status == "finished" or loaded.version > 120:
            break
        await asyncio.sleep(0.005)
    await host.duties.stop()  # type: ignore[union-attr]
    snapshot = await store.load_snapshot(game.game_id)
    assert snapshot is not None and snapshot[0] > 25

    counting = CountingStore(store)
    fresh = GameApp(counting, run_duties=False)  # type: ignore[arg-type]
    from_snapshot = await fresh.load(game.game_id)
    assert counting.reads_after == [snapshot[0]]
    folded = HostedGame.fold(await store.read(game.game_id))
    assert from_snapshot.version == folded.version
    assert from_snapshot.players == folded.players
    assert from_snapshot.engine is not None and folded.engine is not None
    for viewer in (None, 0, 1, 2):
        assert from_snapshot.engine.view(viewer) == folded.engine.view(viewer)
    assert from_snapshot.engine.conservation_errors() == []
