"""The SDK's seat sessions (issue 21) against a real server on a loopback
socket: both flavours play a seat to the end from what the session pushes,
with no GetLegalMoves; a refused move is an update and the session goes on;
against a server without PlayGame the session falls back to unary moves and
the seat's watch."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace

import grpc
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
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
    Session,
    play_seat,
    play_seat_async,
)
from ramino_client.session import Update, _Resume, move_message, update_of
from ramino_client.session import options as session_options
from ramino_client.v1 import game_pb2 as client_pb2

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


def test_options_pushed_again_for_the_version_of_a_resent_move_are_not_handed_out() -> None:
    """A reopened session is pushed the options of the version it resumed at
    while the move it made from them is sent again: handing them out would
    have its player make a second move at a version already played."""
    resume = _Resume(after_version=7)
    pushed = game_pb2.SeatOptions(
        version=7, turn=0, moves=[game_pb2.Move(draw_from_stock=game_pb2.DrawFromStockMove())]
    )
    resume.unanswered["m1"] = move_message(DrawFromStock(), "m1", 7)
    assert not resume.take(Update(7, options=session_options(pushed)))
    del resume.unanswered["m1"]
    assert resume.take(Update(7, options=session_options(pushed)))


class _Scripted(Session):
    """A session whose stream is a script of server messages, each taken as
    a session takes it; the versions its moves are sent at are kept."""

    def __init__(self, resume: _Resume, script: list[client_pb2.PlayGameResponse]) -> None:
        self.seat = SimpleNamespace(last_view=None)
        self._resume = resume
        self._script = iter(script)
        self.sent: list[int | None] = []

    def __next__(self) -> Update:
        for response in self._script:
            update = update_of(response)
            if self._resume.take(update):
                return update
        raise StopIteration

    def send(
        self, move: Move, *, expected_version: int | None = None, request_id: str | None = None
    ) -> str:
        request_id = request_id or f"sent-{len(self.sent)}"
        self._resume.unanswered[request_id] = move_message(move, request_id, expected_version)
        self.sent.append(expected_version)
        return request_id


def test_a_resent_moves_answer_after_its_own_events_is_not_played_from_again() -> None:
    """A draw applied just before its stream was lost is sent again on the
    reopened one; the server can hand its event out (with the options after
    it) before it reads the resent draw, whose answer then brings the same
    version's options again. The answer is new to ``_Resume`` (it answers
    the draw), so it is ``play`` that keeps the seat from playing version 8
    twice (the second move would be refused as stale)."""
    resume = _Resume(after_version=7)
    resume.unanswered["draw"] = move_message(DrawFromStock(), "draw", 7)
    discard = client_pb2.Move(discard=client_pb2.DiscardMove(card_id=3))
    after = client_pb2.SeatOptions(version=8, turn=0, moves=[discard])
    drew = client_pb2.GameEvent(
        version=8, seat=0, turn=0, drew_from_stock=client_pb2.DrewFromStock()
    )
    result = client_pb2.MoveResult(
        events=[drew], view=client_pb2.GameView(version=8), legal_moves=[discard], options=after
    )
    session = _Scripted(
        resume,
        [
            client_pb2.PlayGameResponse(version=8, event=drew, options=after),
            client_pb2.PlayGameResponse(
                version=8, answer=client_pb2.MoveAnswer(request_id="draw", result=result)
            ),
        ],
    )
    session.play(lambda legal, view: legal.moves[0])
    assert session.sent == [8]
    assert list(resume.unanswered) == ["sent-0"]
