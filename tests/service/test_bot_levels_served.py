"""Games against the searching bot levels through a real server: the seat
shows its level, the bot's decisions run in the work pool, the game ends."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.pool import WorkPool
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.service.conftest import SECRET, SEED, Harness, auth, play_one, reason_of, seated_game


class CountingPool(WorkPool):
    """The work pool, counting what it ran."""

    def __init__(self) -> None:
        super().__init__(workers=2)
        self.ran = 0

    async def run(self, fn: Any, *args: Any) -> Any:
        self.ran += 1
        return await super().run(fn, *args)


async def test_a_person_plays_a_hard_and_an_expert_bot_to_the_end() -> None:
    pool = CountingPool()
    app = GameApp(open_store("memory"), seed_source=lambda: SEED, pool=pool)
    running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(SECRET)))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            h = Harness(running, app, TokenIssuer(SECRET), game_pb2_grpc.GameServiceStub(channel))
            for variant, level in (
                ("gin", game_pb2.BOT_LEVEL_HARD),
                ("rummy", game_pb2.BOT_LEVEL_EXPERT),
            ):
                created = await h.stub.CreateGame(
                    game_pb2.CreateGameRequest(
                        variant=variant,
                        seats=[
                            game_pb2.SeatConfig(player_name="ann"),
                            game_pb2.SeatConfig(bot=level),
                        ],
                        overrides={"max_rounds": 1} if variant == "rummy" else {"target_score": 1},
                    )
                )
                name = created.game.name
                assert created.game.seats[1].bot == level
                token = (
                    await h.stub.JoinGame(
                        game_pb2.JoinGameRequest(name=name, seat=0, player_name="ann")
                    )
                ).seat_token
                before = pool.ran
                for _ in range(3000):
                    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
                    if view.status == game_pb2.GAME_STATUS_FINISHED:
                        break
                    if view.HasField("turn") and view.turn == 0:
                        await play_one(h, name, token)
                    else:
                        await asyncio.sleep(0.005)
                assert view.status == game_pb2.GAME_STATUS_FINISHED, variant
                assert view.seats[1].bot == level
                assert pool.ran > before  # the bot's decisions ran in the pool
    finally:
        await running.stop(0)
        pool.shutdown()


async def test_a_hint_can_come_from_a_level(harness: Harness) -> None:
    h = harness
    name, tokens = await seated_game(h, "gin", 2)
    md = auth(tokens[0])
    turn = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md)).view.turn
    md = auth(tokens[turn])
    plain = await h.stub.GetLegalMoves(game_pb2.GetLegalMovesRequest(name=name), metadata=md)
    assert not plain.hint.HasField("suggested_move")
    for level in (game_pb2.BOT_LEVEL_HARD, game_pb2.BOT_LEVEL_MEDIUM):
        asked = await h.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name, hint_level=level), metadata=md
        )
        assert asked.hint.suggested_move in list(asked.moves)
        again = await h.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name, hint_level=level), metadata=md
        )
        assert again.hint.suggested_move == asked.hint.suggested_move
    other = auth(tokens[1 - turn])
    idle = await h.stub.GetLegalMoves(
        game_pb2.GetLegalMovesRequest(name=name, hint_level=game_pb2.BOT_LEVEL_HARD), metadata=other
    )
    assert not idle.moves and not idle.hint.HasField("suggested_move")
    try:
        await h.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name, hint_level=99),
            metadata=md,  # type: ignore[arg-type]
        )
    except grpc.aio.AioRpcError as e:
        assert e.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(e) == "BAD_HINT_LEVEL"
    else:
        raise AssertionError("an unknown hint level was accepted")


async def test_legal_moves_with_their_hint_and_a_levels_move_take_the_games_lock_once(
    harness: Harness,
) -> None:
    """GetLegalMoves answers its moves, their hint, the header its encoder
    needs and a level's suggested move from one hold of the game's lock (it
    took it three times): all of one version, and one wait behind a move."""
    h = harness
    name, tokens = await seated_game(h, "gin", 2)
    game_id = name.removeprefix("games/")
    turn = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.turn
    table = h.app.table
    taken: list[str] = []
    lock = table.lock

    def counted(key: str) -> Any:
        taken.append(key)
        return lock(key)

    table.lock = counted  # type: ignore[method-assign]
    try:
        asked = await h.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name, hint_level=game_pb2.BOT_LEVEL_MEDIUM),
            metadata=auth(tokens[turn]),
        )
    finally:
        del table.lock
    assert asked.moves and asked.hint.suggested_move in list(asked.moves)
    assert asked.options.version == asked.version
    assert taken.count(game_id) == 1
