"""A seat's catch-up over a long game (issue 36): its watch or its session
from ``after_version=1`` over a game of 5,000 versions, through a real
server on a loopback socket, makes the seat's options once at most, at the
game's current version, and never once per replayed version (each took
the game's lock and, for a finished game, folded it again); the replay
reads the store a page at a time and gives the event loop back every
``CATCH_UP_TURN`` entries. Counted, never timed: the functions that
compute a seat's options are wrapped to count their calls and still do
their work."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import pytest
from ramino.app import HostedGame, Limits, SeatSpec
from ramino.app.games.watch import CATCH_UP_BATCH, CATCH_UP_TURN
from ramino.store import Entry
from ramino.v1 import game_pb2

from .conftest import auth
from .test_hostile_streams import Served, rest, serving, two_people, watch
from .test_watch_batches import moves

VERSIONS = 5000
OVERRIDES = {"target_score": 1_000_000, "max_rounds": 100_000}
"""A match of two greedy bots that outlasts ``VERSIONS``."""
T = TypeVar("T")


@dataclass
class Counts:
    """Calls made while a catch-up ran: ``options_at`` (each one the game's
    lock and a load), ``legal`` (a seat's legal moves and hint computed),
    ``locks`` (the game's lock taken, by anyone)."""

    calls: Counter[str]

    @property
    def options_at(self) -> int:
        return self.calls["options_at"]

    @property
    def legal(self) -> int:
        return self.calls["legal"]

    @property
    def locks(self) -> int:
        return self.calls["locks"]


def counted(calls: Counter[str], what: str, real: Callable[..., Awaitable[T]]) -> Any:
    async def counting(*args: Any, **kwargs: Any) -> T:
        calls[what] += 1
        return await real(*args, **kwargs)

    return counting


@asynccontextmanager
async def long_game(finished: bool) -> AsyncIterator[tuple[Served, HostedGame, Counts]]:
    """A served rummy game of two greedy bots, played to ``VERSIONS``
    versions or more, then ended (``finished``) or left as it is (the bots
    stopped), with the calls that compute a seat's options counted from
    then on."""
    async with serving(Limits(allow_bot_games=True)) as s:
        app = s.h.app
        seats = [SeatSpec("", "greedy"), SeatSpec("", "greedy")]
        created = await app.create("rummy", dict(OVERRIDES), seats)
        game_id = created.game_id
        for _ in range(6000):
            if await app.store.version(game_id) >= VERSIONS:
                break
            await asyncio.sleep(0.01)
        assert app.duties is not None
        await app.duties.stop()
        if finished:
            await app.end(game_id, "cancelled")
        game = await app.load(game_id)
        assert game.version >= VERSIONS
        assert (game.status == "finished") == finished
        calls: Counter[str] = Counter()
        moves = app.moves
        mp = pytest.MonkeyPatch()
        mp.setattr(moves, "options_at", counted(calls, "options_at", moves.options_at))
        mp.setattr(moves, "_legal", counted(calls, "legal", moves._legal))
        lock = app.cache.lock

        def counting_lock(locked: str) -> Any:
            if locked == game_id:
                calls["locks"] += 1
            return lock(locked)

        mp.setattr(app.cache, "lock", counting_lock)
        try:
            yield s, game, Counts(calls)
        finally:
            mp.undo()


def session(s: Served, name: str, token: str) -> Any:
    """A seat's session started from ``after_version=1``."""
    call = s.h.stub.PlayGame(metadata=auth(token))
    start = game_pb2.PlayGameStart(name=name, after_version=1)
    return call, call.write(game_pb2.PlayGameRequest(start=start))


def versions_of(items: list[Any]) -> list[int]:
    """The version of each event of a watch's or a session's messages."""
    return [i.event.version for i in items if i.WhichOneof("payload") == "event"]


async def test_a_seats_watch_over_a_finished_5000_version_game_makes_no_options() -> None:
    async with long_game(finished=True) as (s, game, counts):
        name = f"games/{game.game_id}"
        token = s.h.tokens.issue(game.game_id, 0)
        items = await rest(watch(s.h.stub, name, token, after_version=1))
        assert versions_of(items) == list(range(2, game.version + 1))
        assert items[-1].event.WhichOneof("event") == "game_ended"
        assert not any(i.HasField("options") for i in items[:-1])
        # The game has ended: nothing to compute at its end either. Before,
        # each replayed turn of the seat's took the lock and folded the game.
        assert (counts.options_at, counts.legal) == (0, 0)
        assert counts.locks <= 2  # the handler's load and the watch's


async def test_a_seats_session_over_a_finished_5000_version_game_makes_no_options() -> None:
    async with long_game(finished=True) as (s, game, counts):
        name = f"games/{game.game_id}"
        call, started = session(s, name, s.h.tokens.issue(game.game_id, 1))
        await started
        items = []
        while (message := await call.read()) is not grpc.aio.EOF:
            items.append(message)
        assert versions_of(items) == list(range(2, game.version + 1))
        assert not any(i.HasField("options") and i.options.moves for i in items)
        assert (counts.options_at, counts.legal) == (0, 0)
        assert counts.locks <= 2  # the handler's load and the watch's


async def test_a_seats_watch_over_a_live_5000_version_game_makes_its_options_once() -> None:
    async with long_game(finished=False) as (s, game, counts):
        assert game.engine is not None and game.engine.turn is not None
        mover, other = game.engine.turn, 1 - game.engine.turn
        name = f"games/{game.game_id}"
        stream = watch(s.h.stub, name, s.h.tokens.issue(game.game_id, mover), after_version=1)
        items = []
        while not items or items[-1].version < game.version:
            items.append(await stream.read())
        stream.cancel()
        assert versions_of(items) == list(range(2, game.version + 1))
        # The options once, at the end, with the last event: the seat's moves now.
        assert [i.version for i in items if i.HasField("options")] == [game.version]
        assert (counts.options_at, counts.legal) == (1, 1)
        legal = await s.h.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name),
            metadata=auth(s.h.tokens.issue(game.game_id, mover)),
        )
        options = items[-1].options
        assert options.moves and list(options.moves) == list(legal.moves)
        assert options.version == game.version and options.turn == mover
        # The other seat, whose turn it is not, needs none computed.
        counts.calls.clear()
        stream = watch(s.h.stub, name, s.h.tokens.issue(game.game_id, other), after_version=1)
        items = []
        while not items or items[-1].version < game.version:
            items.append(await stream.read())
        stream.cancel()
        assert versions_of(items) == list(range(2, game.version + 1))
        assert not any(i.HasField("options") for i in items)
        assert counts.options_at == 0 and counts.legal == 0


async def test_a_seats_session_over_a_live_5000_version_game_makes_its_options_once() -> None:
    async with long_game(finished=False) as (s, game, counts):
        assert game.engine is not None and game.engine.turn is not None
        mover = game.engine.turn
        name = f"games/{game.game_id}"
        call, started = session(s, name, s.h.tokens.issue(game.game_id, mover))
        await started
        items = []
        # (Options with no moves may come first: the turn is not the seat's.)
        while not items or not items[-1].options.moves:
            message = await call.read()
            assert message is not grpc.aio.EOF
            items.append(message)
        assert versions_of(items) == list(range(2, game.version + 1))
        options = items[-1].options
        assert options.moves and options.version == game.version and options.turn == mover
        # Once computed, at the end; at most one more look that finds the
        # game past the version it asked at (a session's opening, when its
        # first item is not there yet), which computes nothing.
        assert counts.legal == 1 and counts.options_at <= 2
        await call.done_writing()
        assert await call.read() is grpc.aio.EOF


async def test_a_catch_up_reads_pages_and_gives_the_event_loop_back() -> None:
    async with long_game(finished=True) as (s, game, _):
        app = s.h.app
        store = app.store
        limits: list[int | None] = []
        read = store.read

        async def reading(game_id: str, after: int = 0, limit: int | None = None) -> list[Entry]:
            if game_id == game.game_id:
                limits.append(limit)
            return await read(game_id, after, limit)

        turns = 0
        done = False

        async def ticker() -> None:
            nonlocal turns
            while not done:
                turns += 1
                await asyncio.sleep(0)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(store, "read", reading)
            stream = app.watch(game.game_id, 0, 1, False, s.servicer.encode_event)
            ticking = asyncio.create_task(ticker())
            at: Counter[int] = Counter()
            versions = []
            # A reader that never awaits anything else between items: only
            # the replay gives the loop back.
            async for item in stream:
                versions.append(item.version)
                at[turns] += 1
            done = True
            await ticking
        assert versions == list(range(2, game.version + 1))
        # Never more than CATCH_UP_TURN entries in one turn of the loop.
        assert max(at.values()) <= CATCH_UP_TURN
        # The log read a page at a time (the load of the finished game
        # reads the entries after its snapshot, which are fewer).
        pages = [limit for limit in limits if limit is not None]
        assert pages == [CATCH_UP_BATCH] * len(pages)
        # (a full last page is followed by one read that finds nothing more).
        assert len(pages) == (game.version - 1) // CATCH_UP_BATCH + 1


async def test_a_live_entry_with_newer_ones_queued_for_the_stream_is_past() -> None:
    async with serving() as s:
        name, tokens, _ = await two_people(s.h.stub)
        game_id = name.split("/")[1]
        stream = s.h.app.watch(game_id, 0, None, False, s.servicer.encode_event)
        start = (await anext(stream)).version  # the snapshot
        await moves(s, name, tokens, 3)  # their entries queued for the stream, unread
        now = await s.h.app.store.version(game_id)
        items = [await anext(stream) for _ in range(now - start)]
        assert [i.version for i in items] == list(range(start + 1, now + 1))
        # Only the newest asks for the seat's options; the game is past the others.
        assert [i.past for i in items] == [True] * (now - start - 1) + [False]
        await stream.aclose()  # type: ignore[attr-defined]
