"""Games against the searching bot levels through a real server: the seat
shows its level, the bot's decisions run in the work pool (waiting for a
duty slot there, never refused, never crowding callers out), the game
ends; a decision the machine starves is counted and said in the log."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import grpc
from prometheus_client import REGISTRY
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp, Limits
from ramino.app.games.duties import STARVED_LOG_SECONDS, StarvedLog
from ramino.bots.search import LEVEL_BUDGETS, Decision, level_budgets
from ramino.pool import WorkPool
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc, rules_pb2, rules_pb2_grpc

from tests.service.conftest import SECRET, SEED, Harness, auth, play_one, reason_of, seated_game


class CountingPool(WorkPool):
    """The work pool, counting what it ran (callers' calls and duties) and
    the most duties it held at once."""

    def __init__(self, workers: int = 2, capacity: int | None = None) -> None:
        super().__init__(workers=workers, capacity=capacity)
        self.ran = 0
        self.duties = 0
        self.most_duties = 0

    async def run(self, fn: Any, *args: Any) -> Any:
        self.ran += 1
        return await super().run(fn, *args)

    async def duty(self, fn: Any, *args: Any) -> Any:
        def counted(*a: Any) -> Any:
            self.duties += 1
            self.most_duties = max(self.most_duties, self.duties)
            try:
                return fn(*a)
            finally:
                self.duties -= 1

        self.ran += 1
        return await super().duty(counted, *args)


def test_a_server_s_bot_times_replace_only_the_levels_it_names() -> None:
    """``--bot-time-ms`` (``[bots] time_ms``) makes the server's budgets,
    handed to its app and its RulesService: the levels it names get its
    times, keeping their other figures; the others, and the defaults
    themselves, are left as they were."""
    assert level_budgets(None) == level_budgets({}) == LEVEL_BUDGETS
    budgets = level_budgets({"hard": 7.0})
    assert budgets["hard"].time_ms == 7.0
    assert budgets["hard"].width == LEVEL_BUDGETS["hard"].width
    assert budgets["expert"] == LEVEL_BUDGETS["expert"]
    assert LEVEL_BUDGETS["hard"].time_ms == 20.0


async def bot_games(stub: game_pb2_grpc.GameServiceStub, count: int, seats: list[int]) -> list[str]:
    """``count`` one-hand gin games whose seats are all bots of ``seats``."""
    names = []
    for _ in range(count):
        created = await stub.CreateGame(
            game_pb2.CreateGameRequest(
                variant="gin",
                seats=[game_pb2.SeatConfig(bot=level) for level in seats],
                overrides={"target_score": 1},
            )
        )
        names.append(created.game.name)
    return names


async def finished(stub: game_pb2_grpc.GameServiceStub, names: list[str]) -> bool:
    views = [(await stub.GetGame(game_pb2.GetGameRequest(name=n))).view for n in names]
    return all(v.status == game_pb2.GAME_STATUS_FINISHED for v in views)


def metric(name: str, level: str) -> float:
    return REGISTRY.get_sample_value(name, {"level": level}) or 0.0


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
        await app.close()
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


async def test_bot_duties_wait_for_their_slot_and_leave_the_pool_to_callers(
    logs: io.StringIO,
) -> None:
    """Six games of hard bots on a pool of one thread that admits one
    caller's call at a time: every bot decision waits for the one duty slot
    (no duty fails, at most one in the pool at once, every game ends), and a
    person's hints by the hard level, callers' calls through the same pool,
    are answered all along instead of SERVER_BUSY."""
    pool = CountingPool(workers=1, capacity=1)
    limits = Limits(allow_bot_games=True)
    budgets = level_budgets({"hard": 2.0})
    app = GameApp(
        open_store("memory"),
        seed_source=lambda: SEED,
        pool=pool,
        limits=limits,
        bot_budgets=budgets,
    )
    running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(SECRET)), pool=pool)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            h = Harness(running, app, TokenIssuer(SECRET), game_pb2_grpc.GameServiceStub(channel))
            hard = game_pb2.BOT_LEVEL_HARD
            names = await bot_games(h.stub, 6, [hard, hard])
            person, tokens = await seated_game(h, "gin", 2)
            hints = 0
            for _ in range(4000):
                if await finished(h.stub, names):
                    break
                turn = (await h.stub.GetGame(game_pb2.GetGameRequest(name=person))).view.turn
                asked = await h.stub.GetLegalMoves(
                    game_pb2.GetLegalMovesRequest(name=person, hint_level=hard),
                    metadata=auth(tokens[turn]),
                )
                assert asked.hint.suggested_move in list(asked.moves)
                hints += 1
            assert await finished(h.stub, names)
            assert hints > 0
            assert pool.most_duties == 1
    finally:
        await running.stop(0)
        await app.close()
        pool.shutdown()
    lines = [json.loads(line) for line in logs.getvalue().splitlines() if line.strip()]
    assert not [d for d in lines if d["event"] == "duty failed"]


async def test_a_starved_bot_decision_is_counted_and_said_in_the_log(
    logs: io.StringIO,
) -> None:
    """A budget no search can keep (a microsecond): every searched decision
    of the hard bot runs past 1.5 times it, so each is counted in
    ``ramino_bot_starved`` and the log says so (the first at once, then at
    most a line per STARVED_LOG_SECONDS), while the game plays on to its
    end; the decisions and the deals they sampled are in the metrics."""
    starved = metric("ramino_bot_starved_total", "hard")
    decided = metric("ramino_bot_decision_seconds_count", "hard")
    dealt = metric("ramino_bot_decision_deals_count", "hard")
    pool = CountingPool()
    limits = Limits(allow_bot_games=True)
    budgets = level_budgets({"hard": 0.001})
    app = GameApp(
        open_store("memory"),
        seed_source=lambda: SEED,
        pool=pool,
        limits=limits,
        bot_budgets=budgets,
    )
    running = await create_server(
        "127.0.0.1:0", GameServicer(app, TokenIssuer(SECRET)), bot_budgets=budgets
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            rules = rules_pb2_grpc.RulesServiceStub(channel)
            told = await rules.ListBotLevels(rules_pb2.ListBotLevelsRequest())
            assert {info.name: info.time_ms for info in told.levels}["hard"] == 0.001
            names = await bot_games(stub, 1, [game_pb2.BOT_LEVEL_HARD, game_pb2.BOT_LEVEL_MEDIUM])
            for _ in range(3000):
                if await finished(stub, names):
                    break
                await asyncio.sleep(0.005)
            assert await finished(stub, names)
    finally:
        await running.stop(0)
        await app.close()
        pool.shutdown()
    searched = metric("ramino_bot_decision_deals_count", "hard") - dealt
    assert searched > 0
    assert metric("ramino_bot_starved_total", "hard") - starved == searched
    assert metric("ramino_bot_decision_seconds_count", "hard") - decided >= searched
    lines = [json.loads(line) for line in logs.getvalue().splitlines() if line.strip()]
    said = [d for d in lines if d["event"] == "bot decisions starved"]
    assert said and said[0]["starved"] == said[0]["searched"] == 1
    assert said[0]["bot"] == "hard" and said[0]["budget_ms"] == 0.001
    assert said[0]["deals"] >= 1 and said[0]["game"] == names[0].split("/")[-1]


def test_starved_decisions_are_said_at_most_once_a_period(logs: io.StringIO) -> None:
    """The first starved decision is said at once; the next ones within
    STARVED_LOG_SECONDS only in the line after it, which counts them and
    the searches since; decisions with nothing searched are not counted."""
    now = [0.0]
    said = StarvedLog(clock=lambda: now[0])
    hungry = Decision("hard", wall_ms=40.0, cpu_ms=5.0, deals=12, budget_ms=20.0)
    fed = Decision("hard", wall_ms=20.0, cpu_ms=19.0, deals=300, budget_ms=20.0)
    greedy = Decision("hard", wall_ms=40.0, cpu_ms=1.0, deals=0, budget_ms=20.0)
    assert hungry.starved and not fed.starved and not greedy.starved
    assert Decision("hard", 35.0, 30.0, 300, 20.0).starved  # past 1.5 times its budget
    assert not Decision("hard", 900.0, 1.0, 40, None).starved  # no clock: never starved
    said.note("g1", hungry)
    for t in (1.0, 2.0, 3.0):
        now[0] = t
        said.note("g2", fed)
        said.note("g2", greedy)
        said.note("g3", hungry)
    now[0] = STARVED_LOG_SECONDS + 0.5
    said.note("g4", hungry)
    assert said.lines == 2
    lines = [json.loads(line) for line in logs.getvalue().splitlines() if line.strip()]
    first, second = [d for d in lines if d["event"] == "bot decisions starved"]
    assert (first["starved"], first["searched"], first["game"]) == (1, 1, "g1")
    assert (second["starved"], second["searched"], second["game"]) == (4, 7, "g4")


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
    table = h.app.cache
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
