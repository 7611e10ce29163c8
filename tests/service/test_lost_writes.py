"""A write that a shared store loses (a Redis failover promotes a replica
without it) may already sit in a replica's cache: the replica finds out on its
next read and folds the game again from the store, instead of serving a game
the store no longer has, or catching a different history up onto it."""

from __future__ import annotations

import uuid

import redis
from ramino.app import GameApp, HostedGame, Limits, SeatSpec
from ramino.engine import Discard, DrawFromStock
from ramino.engine.state import DRAW
from ramino.store.redis import RedisStore

from tests.support.redis_server import RedisServer


def host(url: str, prefix: str) -> GameApp:
    return GameApp(
        RedisStore(url, prefix=prefix), run_duties=False, limits=Limits(allow_bot_games=True)
    )


async def play_turn(app: GameApp, game_id: str, discard_last: bool) -> int:
    """Draws from the stock (unless the turn starts without a draw) and
    discards the hand's first or last card: the card discarded."""
    game = await app.load(game_id)
    assert game.engine is not None
    seat = game.engine.turn
    assert seat is not None
    if game.engine.state.phase == DRAW:
        assert await app.act_for(game_id, seat, game.version, lambda g: DrawFromStock(), False)
        game = await app.load(game_id)
        assert game.engine is not None
    hand = game.engine.state.seats[seat].hand
    card = hand[-1] if discard_last else hand[0]
    assert await app.act_for(game_id, seat, game.version, lambda g: Discard(card), False)
    return card


def lose_writes_after(url: str, store: RedisStore, game_id: str, version: int) -> None:
    """What a failover does to the writes its promoted replica never had: the
    log and the game's version go back to ``version``."""
    r = redis.Redis.from_url(url)
    log_key = store.layout.key(game_id, "log")
    entries = r.xrange(log_key)
    kept = [
        (stream_id, fields)
        for stream_id, fields in entries
        if int(stream_id.split(b"-")[0]) <= version
    ]
    assert len(kept) < len(entries)
    # A stream keeps its last id past a delete: the promoted replica's never had them.
    r.delete(log_key)
    for stream_id, fields in kept:
        r.xadd(log_key, fields, id=stream_id)
    r.hset(store.layout.key(game_id, "meta"), "version", version)
    r.close()


async def test_a_cached_write_the_store_lost_is_dropped_and_the_stores_history_served(
    redis_server: RedisServer,
) -> None:
    url, prefix = redis_server.url, f"lost-{uuid.uuid4().hex}:"
    writer, reader, other = host(url, prefix), host(url, prefix), host(url, prefix)
    try:
        created = await writer.create("ramino51", {}, [SeatSpec("", "greedy")] * 2)
        game_id = created.game_id
        kept = (await writer.load(game_id)).version
        lost_card = await play_turn(writer, game_id, discard_last=False)
        seen = await reader.load(game_id)  # the reader caches the write to be lost
        assert seen.engine is not None and seen.engine.state.discard[-1] == lost_card
        assert seen.version > kept

        store = writer.store
        assert isinstance(store, RedisStore)
        lose_writes_after(url, store, game_id, kept)
        # The store is behind the writer's cache: the writer serves the store's game.
        assert (await writer.load(game_id)).version == kept

        # Another replica plays that turn otherwise: same versions, another history.
        kept_card = await play_turn(other, game_id, discard_last=True)
        assert kept_card != lost_card
        truth = HostedGame.fold(await store.read(game_id))
        assert truth.version == seen.version

        again = await reader.load(game_id)
        assert again.version == truth.version
        assert again.engine is not None and truth.engine is not None
        assert again.engine.state.discard[-1] == kept_card
        for viewer in (None, 0, 1):
            assert again.engine.view(viewer) == truth.engine.view(viewer)
        assert again.engine.conservation_errors() == []
        # The writer, back on the store's history, follows it too.
        followed = await writer.load(game_id)
        assert followed.engine is not None
        assert followed.engine.view(None) == truth.engine.view(None)
    finally:
        for app in (writer, reader, other):
            await app.close()
