"""PlayGame, a seat's session (issue 21): real servers on loopback sockets,
raw generated stubs. A session's messages come in version order, each
version once (its own moves' events in their answers, the others' as
events), its options pushed whenever the turn comes to it; refusals are
answers and the stream stays open; a resume misses and repeats nothing; a
session move and a unary move of the same seat interleave."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp, Limits
from ramino.store import Store, open_store
from ramino.store.redis import RedisStore
from ramino.v1 import game_pb2, game_pb2_grpc

from .conftest import SECRET, SEED, auth, reason_of
from .test_hostile_streams import two_people as joined_pair


@dataclass
class Served:
    app: GameApp
    servicer: GameServicer
    stub: game_pb2_grpc.GameServiceStub
    address: str


@asynccontextmanager
async def serving(
    store: Store | None = None, limits: Limits | None = None, per_connection: int = 100
) -> AsyncIterator[Served]:
    app = GameApp(store or open_store("memory"), seed_source=lambda: SEED, limits=limits)
    servicer = GameServicer(app, TokenIssuer(SECRET), max_streams_per_connection=per_connection)
    await app.start()
    running = await create_server("127.0.0.1:0", servicer)
    address = f"127.0.0.1:{running.port}"
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            yield Served(app, servicer, game_pb2_grpc.GameServiceStub(channel), address)
    finally:
        await running.stop(0)
        await app.close()


async def two_people(stub: game_pb2_grpc.GameServiceStub) -> tuple[str, list[str]]:
    """A rummy game of two joined people: its name and seat tokens."""
    name, tokens, _ = await joined_pair(stub)
    return name, tokens


def reason_in(status: Any) -> str:
    info = error_details_pb2.ErrorInfo()
    assert status.details and status.details[0].Unpack(info)
    return str(info.reason)


def move_request(options: game_pb2.SeatOptions, request_id: str) -> game_pb2.PlayGameRequest:
    """The move a plain player makes from its pushed options: melds when it
    can, a draw, else the hinted discard (without a hint, the last legal
    discard: the card just drawn)."""
    kinds = {m.WhichOneof("move"): m for m in options.moves}
    v = options.version
    if "lay_melds" in kinds:
        melds = kinds["lay_melds"].lay_melds.melds
        return game_pb2.PlayGameRequest(
            lay_melds=game_pb2.LayMeldsRequest(
                request_id=request_id, expected_version=v, melds=melds
            )
        )
    if "draw_from_stock" in kinds:
        return game_pb2.PlayGameRequest(
            draw_from_stock=game_pb2.DrawFromStockRequest(request_id=request_id, expected_version=v)
        )
    discards = [m.discard.card_id for m in options.moves if m.WhichOneof("move") == "discard"]
    card = options.hint.suggested_discard.id if options.HasField("hint") else discards[-1]
    return game_pb2.PlayGameRequest(
        discard=game_pb2.DiscardRequest(request_id=request_id, expected_version=v, card_id=card)
    )


@dataclass
class Seen:
    """What one session was sent."""

    messages: list[game_pb2.PlayGameResponse] = field(default_factory=list)

    def versions(self) -> list[int]:
        """Every version the session told of, in the order sent: each
        event's, and each event of each answer."""
        out = []
        for m in self.messages:
            kind = m.WhichOneof("payload")
            if kind == "event":
                out.append(m.event.version)
            elif kind == "answer" and m.answer.HasField("result"):
                out.extend(e.version for e in m.answer.result.events)
        return out


def session(stub: game_pb2_grpc.GameServiceStub, token: str) -> Any:
    return stub.PlayGame(metadata=auth(token))


async def start(
    call: Any, name: str, after: int | None = None, hints: bool = True, views: bool = True
) -> None:
    """Starts a session; by default asking for the hint and the answers'
    views (what the tests here read: the lean session is
    tests/service/test_session_lean.py's)."""
    begin = game_pb2.PlayGameStart(name=name, hints=hints, answer_views=views)
    if after is not None:
        begin.after_version = after
    await call.write(game_pb2.PlayGameRequest(start=begin))


async def play_seat(
    stub: game_pb2_grpc.GameServiceStub,
    name: str,
    token: str,
    until: int,
    seen: Seen,
    prefix: str,
) -> None:
    """Plays a seat from what its session pushes until the game reaches
    version ``until`` (each seat stops there, whichever made it: a count of
    moves a seat could leave the other waiting for a turn)."""
    call = session(stub, token)
    await start(call, name)
    made = last = 0
    while last < until:
        try:
            message = await asyncio.wait_for(call.read(), 30)
        except TimeoutError:
            told = [(m.WhichOneof("payload"), m.version) for m in seen.messages]
            raise AssertionError(f"{prefix}: nothing for 30 s at {last}; told {told}") from None
        assert message is not grpc.aio.EOF
        seen.messages.append(message)
        last = max(last, message.version)
        if message.WhichOneof("payload") == "answer":
            assert message.answer.HasField("result"), message.answer.error
            options = message.answer.result.options
        elif message.HasField("options"):
            options = message.options
        else:
            continue
        if options.moves and last < until:
            made += 1
            await call.write(move_request(options, f"{prefix}-{made}"))
    await call.done_writing()
    while (message := await call.read()) is not grpc.aio.EOF:
        seen.messages.append(message)


def assert_played(seen: list[Seen], until: int) -> None:
    """Each seat was told every version from its snapshot to ``until`` once,
    in order, and each of its moves was answered with a result."""
    for one in seen:
        told = one.versions()
        first = one.messages[0].snapshot.version
        assert told == list(range(first + 1, told[-1] + 1)) and told[-1] >= until
        answers = [m for m in one.messages if m.WhichOneof("payload") == "answer"]
        assert answers and all(a.answer.HasField("result") for a in answers)


async def version_of(stub: game_pb2_grpc.GameServiceStub, name: str) -> int:
    return int((await stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version)


async def test_two_sessions_play_from_pushed_options_each_version_told_once_in_order() -> None:
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        until = await version_of(s.stub, name) + 24
        seen = [Seen(), Seen()]
        await asyncio.gather(
            *(play_seat(s.stub, name, tokens[i], until, seen[i], f"s{i}") for i in (0, 1))
        )
        final = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version
        for one in seen:
            first = one.messages[0]
            assert first.WhichOneof("payload") == "snapshot"
            told = one.versions()
            assert told == sorted(set(told)), "each version once, in order"
            assert told[0] == first.snapshot.version + 1
            # Every version after the snapshot up to the last message's.
            assert told == list(range(told[0], told[-1] + 1))
            assert told[-1] <= final
            # Every event says whose turn it is after it.
            events = [m.event for m in one.messages if m.WhichOneof("payload") == "event"]
            assert events and all(e.HasField("turn") for e in events)


async def read_until(call: Any, what: str) -> list[game_pb2.PlayGameResponse]:
    """The session's messages up to the first whose payload is ``what``
    (or, for "options", the first that carries options)."""
    out = []
    while True:
        message = await call.read()
        assert message is not grpc.aio.EOF, out
        out.append(message)
        if what == "options" and message.HasField("options"):
            return out
        if message.WhichOneof("payload") == what:
            return out


async def options_of(call: Any) -> game_pb2.SeatOptions:
    """The next options pushed or answered on ``call``, with moves."""
    while True:
        message = await call.read()
        assert message is not grpc.aio.EOF
        if message.WhichOneof("payload") == "answer" and message.answer.HasField("result"):
            if message.answer.result.options.moves:
                return message.answer.result.options
        elif message.HasField("options") and message.options.moves:
            return message.options


async def opened(s: Served) -> tuple[str, list[str], int, Any, game_pb2.SeatOptions]:
    """A game of two people and a session of the seat to play, at its options."""
    name, tokens = await two_people(s.stub)
    view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    call = session(s.stub, tokens[view.turn])
    await start(call, name)
    return name, tokens, view.turn, call, await options_of(call)


def draw(request_id: str = "", expected: int | None = None) -> game_pb2.PlayGameRequest:
    move = game_pb2.DrawFromStockRequest(request_id=request_id)
    if expected is not None:
        move.expected_version = expected
    return game_pb2.PlayGameRequest(draw_from_stock=move)


async def answer(call: Any) -> game_pb2.MoveAnswer:
    return (await read_until(call, "answer"))[-1].answer


async def test_a_refused_move_is_an_answer_with_its_status_and_the_session_goes_on() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("stale", options.version - 1))
        refused = await answer(call)
        assert refused.request_id == "stale" and refused.HasField("error")
        assert refused.error.code == grpc.StatusCode.ABORTED.value[0]
        assert reason_in(refused.error) == "VERSION_MISMATCH"
        # A field no command carries: refused the same way, the game unchanged.
        await call.write(
            game_pb2.PlayGameRequest(discard=game_pb2.DiscardRequest(request_id="bad", card_id=-1))
        )
        bad = await answer(call)
        assert bad.request_id == "bad" and reason_in(bad.error) == "BAD_CARD_ID"
        # Another game's name in a move.
        await call.write(
            game_pb2.PlayGameRequest(
                draw_from_stock=game_pb2.DrawFromStockRequest(name="games/other", request_id="o")
            )
        )
        assert reason_in((await answer(call)).error) == "SESSION_GAME"
        await call.write(draw("good", options.version))
        good = await answer(call)
        assert good.HasField("result") and good.result.view.version == options.version + 1
        assert good.result.options.moves  # still its turn: discard
        await call.done_writing()


async def test_a_request_id_replayed_on_the_session_gets_the_first_answer_and_moves_once() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("d-1", options.version))
        await call.write(draw("d-1", options.version))
        first, again = await answer(call), await answer(call)
        assert first.HasField("result") and first == again
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        assert view.version == options.version + 1
        # The same id over the unary call: the same first answer.
        unary = await s.stub.DrawFromStock(
            game_pb2.DrawFromStockRequest(
                name=name, request_id="d-1", expected_version=options.version
            ),
            metadata=auth(tokens[seat]),
        )
        assert unary.result == first.result
        # The id reused for another move is refused, the stream open.
        await call.write(
            game_pb2.PlayGameRequest(
                discard=game_pb2.DiscardRequest(
                    request_id="d-1", card_id=first.result.view.hand[0].id
                )
            )
        )
        assert reason_in((await answer(call)).error) == "REQUEST_ID_REUSED"
        await call.write(draw("d-2"))
        assert (await answer(call)).HasField("error")  # drawing twice: illegal
        await call.done_writing()


async def test_a_unary_move_of_the_same_seat_comes_as_an_event_between_session_answers() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("d", options.version))
        drew = await answer(call)
        card = drew.result.options.hint.suggested_discard.id
        discarded = await s.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=card), metadata=auth(tokens[seat])
        )
        at = discarded.result.view.version
        messages = await read_until(call, "event")
        event = messages[-1]
        assert event.event.version == at and event.event.HasField("discarded")
        assert event.event.turn == 1 - seat
        # The turn left the seat: its options say so, with no moves.
        assert event.HasField("options") and not event.options.moves
        await call.done_writing()
        assert await call.read() is grpc.aio.EOF


async def test_a_session_reopened_after_a_version_misses_and_repeats_nothing() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        other = 1 - seat
        await call.write(draw("d", options.version))
        drew = await answer(call)
        card = drew.result.options.hint.suggested_discard.id
        await call.write(
            game_pb2.PlayGameRequest(discard=game_pb2.DiscardRequest(request_id="x", card_id=card))
        )
        last = (await answer(call)).result.view.version
        call.cancel()  # dropped
        # The other seat plays meanwhile (unary).
        view = None
        for _ in range(2):
            legal = await s.stub.GetLegalMoves(
                game_pb2.GetLegalMovesRequest(name=name), metadata=auth(tokens[other])
            )
            kinds = {m.WhichOneof("move") for m in legal.moves}
            if "draw_from_stock" in kinds:
                r = await s.stub.DrawFromStock(
                    game_pb2.DrawFromStockRequest(name=name), metadata=auth(tokens[other])
                )
            else:
                r = await s.stub.Discard(
                    game_pb2.DiscardRequest(
                        name=name, card_id=legal.options.hint.suggested_discard.id
                    ),
                    metadata=auth(tokens[other]),
                )
            view = r.result.view
        assert view is not None
        again = session(s.stub, tokens[seat])
        await start(again, name, after=last)
        told = []
        while True:
            message = await again.read()
            assert message.WhichOneof("payload") != "snapshot"
            if message.WhichOneof("payload") == "event":
                told.append(message.event.version)
            if message.HasField("options") and message.options.moves:
                break
        assert told == list(range(last + 1, view.version + 1))
        assert message.options.version == view.version
        await again.done_writing()


@pytest.mark.parametrize("kind", ["memory", "sqlite", "redis"])
async def test_a_session_reopened_at_the_games_version_is_told_its_options_and_plays_at_once(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> None:
    """Dropped on its turn with nothing missed, the seat reopens after the
    game's version: no event is to come until it moves, yet its options
    come first and its move is answered (it used to wait for the next event)."""
    async with replicas(request, kind, tmp_path) as served:
        s = served[0]
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("d", options.version))
        drew = (await answer(call)).result
        call.cancel()  # dropped, its turn to discard
        again = session(s.stub, tokens[seat])
        await start(again, name, after=drew.view.version)
        first = await asyncio.wait_for(again.read(), 10)
        assert first.WhichOneof("payload") is None
        assert first.version == first.options.version == drew.view.version
        assert first.options.turn == seat and first.options.moves == drew.options.moves
        card = drew.options.hint.suggested_discard.id
        await again.write(
            game_pb2.PlayGameRequest(
                discard=game_pb2.DiscardRequest(
                    request_id="x", card_id=card, expected_version=drew.view.version
                )
            )
        )
        moved = await asyncio.wait_for(again.read(), 10)
        assert moved.answer.request_id == "x" and moved.answer.HasField("result")
        assert [e.version for e in moved.answer.result.events] == [drew.view.version + 1]
        await again.done_writing()
        assert await asyncio.wait_for(again.read(), 10) is grpc.aio.EOF


async def test_the_seats_watch_carries_the_same_pushed_options() -> None:
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        mover, other = view.turn, 1 - view.turn
        watch = s.stub.WatchGame(game_pb2.WatchGameRequest(name=name), metadata=auth(tokens[other]))
        snapshot = await watch.read()
        assert snapshot.HasField("snapshot") and not snapshot.options.moves
        md = auth(tokens[mover])
        drew = await s.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md)
        assert drew.result.options.moves and drew.result.options == game_pb2.SeatOptions(
            version=drew.result.view.version,
            turn=mover,
            moves=drew.result.legal_moves,
            hint=drew.result.hint,
        )
        card = drew.result.options.hint.suggested_discard.id
        await s.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=card), metadata=md)
        while True:
            message = await watch.read()
            if message.HasField("options"):
                break
        assert message.event.HasField("discarded") and message.event.turn == other
        legal = await s.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name), metadata=auth(tokens[other])
        )
        assert message.options == legal.options and legal.options.moves
        watch.cancel()


async def test_the_seats_watch_takes_back_its_moves_when_the_turn_leaves_after_the_seat_outran_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The seat's moves outrun its watch: the options of its draw are past
    (the game has moved on) when the watch comes to them. Its discard still
    comes with empty options, so that the moves pushed with the snapshot
    are taken back (the watch held on to them before)."""
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        mover = view.turn
        md = auth(tokens[mover])
        watch = s.stub.WatchGame(game_pb2.WatchGameRequest(name=name), metadata=md)
        snapshot = await watch.read()
        assert snapshot.HasField("snapshot") and snapshot.options.moves
        # The watch waits before each of its next options until both moves are made.
        gate = asyncio.Event()
        options_at = s.app.moves.options_at

        async def late(
            game_id: str, seat: int, version: int, hint: bool = True, view: bool = False
        ) -> Any:
            await gate.wait()
            return await options_at(game_id, seat, version, hint, view)

        monkeypatch.setattr(s.app.moves, "options_at", late)
        drew = await s.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md)
        card = drew.result.options.hint.suggested_discard.id
        await s.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=card), metadata=md)
        gate.set()
        draw = await watch.read()
        assert draw.event.HasField("drew_from_stock") and not draw.HasField("options")
        discard = await watch.read()
        assert discard.event.HasField("discarded") and discard.event.turn == 1 - mover
        assert discard.HasField("options"), "the moves pushed before were never taken back"
        assert discard.options == game_pb2.SeatOptions(version=discard.version, turn=1 - mover)
        watch.cancel()


async def test_a_stopping_server_drains_its_sessions() -> None:
    app = GameApp(open_store("memory"), seed_source=lambda: SEED)
    servicer = GameServicer(app, TokenIssuer(SECRET))
    await app.start()
    running = await create_server("127.0.0.1:0", servicer)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        name, tokens = await two_people(stub)
        call = session(stub, tokens[0])
        await start(call, name)
        assert (await call.read()).HasField("snapshot")
        stopping = asyncio.create_task(running.stop(5))
        # The session ends (no error) well before the grace runs out.
        while (await call.read()) is not grpc.aio.EOF:
            pass
        assert await call.code() == grpc.StatusCode.OK
        await stopping
    await app.close()


# --- every store, and two replicas sharing Redis ------------------------------------------


@asynccontextmanager
async def replicas(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> AsyncIterator[list[Served]]:
    """One server on memory or sqlite; two sharing one Redis or Redis Cluster."""
    if kind in ("memory", "sqlite"):
        url = "memory" if kind == "memory" else f"sqlite:{tmp_path / 'games.db'}"
        async with serving(open_store(url)) as one:
            yield [one]
        return
    prefix = f"test-{uuid.uuid4().hex}:"
    fixture = "redis_cluster" if kind == "redis-cluster" else "redis_server"
    url = request.getfixturevalue(fixture).url
    async with serving(RedisStore(url, prefix=prefix)) as a:
        async with serving(RedisStore(url, prefix=prefix)) as b:
            yield [a, b]


@pytest.mark.parametrize("kind", ["memory", "sqlite", "redis", "redis-cluster"])
async def test_sessions_play_on_every_store_the_seats_on_two_replicas_sharing_redis(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> None:
    async with replicas(request, kind, tmp_path) as served:
        name, tokens = await two_people(served[0].stub)
        until = await version_of(served[0].stub, name) + 20
        seen = [Seen(), Seen()]
        await asyncio.gather(
            *(
                play_seat(
                    served[i % len(served)].stub, name, tokens[i], until, seen[i], f"{kind}{i}"
                )
                for i in (0, 1)
            )
        )
        assert_played(seen, until)


# --- hostile clients ------------------------------------------------------------------------


async def refusal(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        while (await call.read()) is not grpc.aio.EOF:
            pass
    return caught.value


async def test_a_session_opened_with_another_games_token_is_refused() -> None:
    async with serving() as s:
        name, _ = await two_people(s.stub)
        _, others = await two_people(s.stub)
        call = session(s.stub, others[0])
        await start(call, name)
        error = await refusal(call)
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert reason_of(error) == "WRONG_GAME"


async def test_a_session_must_open_with_its_start_and_start_once() -> None:
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        call = session(s.stub, tokens[0])
        await call.write(draw("d"))
        assert reason_of(await refusal(call)) == "SESSION_START"
        again = session(s.stub, tokens[0])
        await start(again, name)
        await start(again, name)
        assert reason_of(await refusal(again)) == "SESSION_START"


async def test_an_oversize_message_ends_the_session_and_changes_nothing() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        huge = game_pb2.LayMeldsRequest(
            request_id="big",
            melds=[game_pb2.MeldCardIds(card_ids=list(range(500))) for _ in range(20)],
        )
        await call.write(game_pb2.PlayGameRequest(lay_melds=huge))
        error = await refusal(call)
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(error) == "REQUEST_TOO_LARGE"
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        assert view.version == options.version


async def test_a_flood_of_sessions_meets_the_connection_and_seat_limits() -> None:
    async with serving(limits=Limits(max_streams_per_seat=2), per_connection=3) as s:
        name, tokens = await two_people(s.stub)
        held = []
        for _ in range(2):
            call = session(s.stub, tokens[0])
            await start(call, name)
            assert (await call.read()).HasField("snapshot")
            held.append(call)
        over_seat = session(s.stub, tokens[0])
        await start(over_seat, name)
        assert reason_of(await refusal(over_seat)) == "TOO_MANY_WATCHERS"
        # A watch of the other seat takes the connection's third place.
        watch = s.stub.WatchGame(game_pb2.WatchGameRequest(name=name), metadata=auth(tokens[1]))
        assert (await watch.read()).HasField("snapshot")
        over_connection = session(s.stub, tokens[1])
        await start(over_connection, name)
        assert reason_of(await refusal(over_connection)) == "TOO_MANY_STREAMS"
        for call in (*held, watch):
            call.cancel()


SMALL_WINDOW = [
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.http2.bdp_probe", 0),
    ("grpc.http2.lookahead_bytes", 1024),
]


async def test_a_session_that_never_reads_is_ended_and_holds_no_place() -> None:
    async with serving(limits=Limits(watch_queue=4, watch_lag=0.05)) as s:
        name, tokens = await two_people(s.stub)
        game_id = name.split("/")[1]
        async with grpc.aio.insecure_channel(s.address, options=SMALL_WINDOW) as channel:
            stuck = session(game_pb2_grpc.GameServiceStub(channel), tokens[1])
            await start(stuck, name)
            while s.app.watching.watchers(game_id, 1) == 0:
                await asyncio.sleep(0.01)
            moves = 0
            while s.app.watching.watchers(game_id, 1) == 1:
                assert moves < 600
                await unary_move(s, name, tokens)
                moves += 1
                await asyncio.sleep(0)
            assert s.app.watching.watchers(game_id, 1) == 0
            stuck.cancel()


async def unary_move(s: Served, name: str, tokens: list[str]) -> None:
    """One unary move of the seat whose turn it is: a draw, else the hinted discard."""
    for token in tokens:
        legal = await s.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name), metadata=auth(token)
        )
        if not legal.moves:
            continue
        if any(m.HasField("draw_from_stock") for m in legal.moves):
            await s.stub.DrawFromStock(
                game_pb2.DrawFromStockRequest(name=name), metadata=auth(token)
            )
        else:
            card = legal.options.hint.suggested_discard.id
            await s.stub.Discard(
                game_pb2.DiscardRequest(name=name, card_id=card), metadata=auth(token)
            )
        return
