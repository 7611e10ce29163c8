"""The SDK's seat sessions (issue 21) against a real server on a loopback
socket: both flavours play a seat to the end from what the session pushes,
with no GetLegalMoves; a refused move is an update and the session goes on;
against a server without PlayGame the session falls back to unary moves and
the seat's watch; a move whose answer is lost with its stream is resent,
named in the reopened start, and its version comes once (issue 35)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import open_store
from ramino.v1 import game_pb2
from ramino_client import (
    AsyncClient,
    Client,
    DrawFromStock,
    GameStatus,
    GameView,
    LegalMoves,
    Move,
    ServiceError,
    play_seat,
    play_seat_async,
)

from .conftest import SECRET, ThreadServer, choose


def policy(legal: LegalMoves, view: GameView | None) -> Move:
    move = choose(legal)
    assert move is not None
    return move


def test_two_blocking_seats_play_to_the_end_from_their_sessions(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", "bo"])
        seats = [client.join(game.name, who) for who in ("ann", "bo")]
        ends: list[GameView | None] = [None, None]

        def run(i: int) -> None:
            ends[i] = play_seat(seats[i], policy)

        threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        final = client.get_game(game.name)
        assert final.status == GameStatus.FINISHED
        assert all(v is not None and v.version <= final.version for v in ends)


async def test_two_asyncio_seats_play_to_the_end_from_their_sessions(server: ThreadServer) -> None:
    async with AsyncClient(server.address) as client:
        game = await client.create_game("rummy", seats=["ann", "bo"])
        seats = [await client.join(game.name, who) for who in ("ann", "bo")]
        await asyncio.wait_for(
            asyncio.gather(*(play_seat_async(seat, policy) for seat in seats)), 120
        )
        assert (await client.get_game(game.name)).status == GameStatus.FINISHED


async def test_a_refused_move_on_a_session_is_an_update_and_it_goes_on(
    server: ThreadServer,
) -> None:
    async with AsyncClient(server.address) as client:
        game = await client.create_game("rummy", seats=["ann", "bo"])
        seats = [await client.join(game.name, who) for who in ("ann", "bo")]
        view = await seats[0].view()
        mover = seats[view.turn or 0]
        async with mover.session() as session:
            first = await anext(session)
            assert first.snapshot is not None and first.options and first.options.moves
            await session.send(DrawFromStock(), expected_version=first.version - 1)
            refused = await anext(session)
            assert isinstance(refused.error, ServiceError)
            assert refused.error.reason == "VERSION_MISMATCH"
            sent = await session.send(DrawFromStock(), expected_version=first.version)
            answered = await anext(session)
            assert answered.request_id == sent and answered.result is not None
            assert answered.result.legal_moves is not None  # still its turn: a discard
            assert session.last_version == first.version + 1


def older_handlers(servicer: GameServicer) -> grpc.GenericRpcHandler:
    """GameService as a server from before PlayGame serves it: every method
    but that one, which its clients then find UNIMPLEMENTED."""
    service = game_pb2.DESCRIPTOR.services_by_name["GameService"]
    handlers = {}
    for method in service.methods:
        if method.name == "PlayGame":
            continue
        request = getattr(game_pb2, method.input_type.name)
        make = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=request.FromString,
            # (a watch sends its events as bytes, made once per viewer class)
            response_serializer=lambda r: r if isinstance(r, bytes) else r.SerializeToString(),
        )
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


@asynccontextmanager
async def older_server() -> AsyncIterator[str]:
    app = GameApp(open_store("memory"))
    await app.start()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((older_handlers(GameServicer(app, TokenIssuer(SECRET))),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(0)
        await app.close()


async def test_a_session_falls_back_to_unary_moves_and_the_watch_without_play_game() -> None:
    async with older_server() as address, AsyncClient(address) as client:
        game = await client.create_game("rummy", seats=["ann", "bo"])
        seats = [await client.join(game.name, who) for who in ("ann", "bo")]
        answered: list[int] = []
        enough = asyncio.Event()

        async def run(i: int) -> None:
            async with seats[i].session() as session:
                async for update in session:
                    assert session.fallback  # it found no PlayGame
                    assert update.error is None
                    if update.result is not None:
                        answered.append(update.result.version)
                        if len(answered) == 12:
                            enough.set()
                    legal = update.result.legal_moves if update.result else update.options
                    if legal is not None and legal.moves:
                        await session.send(policy(legal, None), expected_version=legal.version)

        tasks = [asyncio.create_task(run(i)) for i in (0, 1)]
        await asyncio.wait_for(enough.wait(), 60)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # Each move answered once, in version order.
        assert answered[:12] == sorted(set(answered[:12]))


class LosesAnAnswer(GameServicer):
    """A real server whose first session answer to a move is lost with its
    stream (UNAVAILABLE in its place): the move applied, its answer never
    sent. Each session start's ``resend`` is kept."""

    def __init__(self, app: GameApp) -> None:
        super().__init__(app, TokenIssuer(SECRET))
        self.lost = False
        self.starts: list[list[str]] = []

    async def PlayGame(self, requests: Any, context: Any) -> None:  # noqa: N802
        await super().PlayGame(self._noted(requests), _Losing(context, self))

    async def _noted(self, requests: Any) -> AsyncIterator[game_pb2.PlayGameRequest]:
        async for request in requests:
            if request.WhichOneof("message") == "start":
                self.starts.append(list(request.start.resend))
            yield request


class _Losing:
    """A session's context whose first answer to a move ends the stream."""

    def __init__(self, context: Any, server: LosesAnAnswer) -> None:
        self._context = context
        self._server = server

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    async def write(self, message: Any) -> None:
        answer = not isinstance(message, bytes) and message.WhichOneof("payload") == "answer"
        if answer and not self._server.lost:
            self._server.lost = True
            await self._context.abort(grpc.StatusCode.UNAVAILABLE, "the connection was lost")
        await self._context.write(message)


async def test_a_move_whose_answer_was_lost_is_resent_named_and_its_version_comes_once() -> None:
    app = GameApp(open_store("memory"))
    servicer = LosesAnAnswer(app)
    await app.start()
    running = await create_server("127.0.0.1:0", servicer)
    try:
        async with AsyncClient(f"127.0.0.1:{running.port}") as client:
            game = await client.create_game("rummy", seats=["ann", "bo"])
            seats = [await client.join(game.name, who) for who in ("ann", "bo")]
            view = await seats[0].view()
            async with seats[view.turn or 0].session() as session:
                first = await anext(session)
                assert first.snapshot is not None and first.options and first.options.moves
                sent = await session.send(DrawFromStock(), expected_version=first.version)
                updates = []
                while not updates or updates[-1].request_id != sent:
                    updates.append(await asyncio.wait_for(anext(session), 30))
                reconnects = session.reconnects
            final = await client.get_game(game.name)
    finally:
        await running.stop(0)
        await app.close()
    assert final.version == first.version + 1  # drawn once
    assert reconnects == 1 and servicer.starts == [[], [sent]]
    # The draw's version once: in its answer, never as an event before it,
    # and no options to play pushed before that answer.
    answer = updates[-1]
    assert answer.result is not None and answer.version == first.version + 1
    assert [u.version for u in updates if u.event is not None] == []
    assert not any(u.options and u.options.moves for u in updates[:-1])
