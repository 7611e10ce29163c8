"""A hostile client against a real server on a loopback socket, through the
raw generated stubs and raw byte calls (never the SDK): every request that
is too large, does not decode, or carries values no game needs is a clear
error with an ErrorInfo, quotes at most a short prefix of its input, and
stalls nobody; the server's caches and tables stay bounded."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import ramino
import ramino.app.games.moves as app_moves
from google.protobuf import descriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from prometheus_client import REGISTRY
from ramino import limits
from ramino.api import game_servicer, rules_servicer
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.interceptors import DEFAULT_MAX_MESSAGE_BYTES, transport_limit
from ramino.api.messages import GameVariant, Messages
from ramino.api.server import RunningServer, create_server
from ramino.app import GameApp, Limits
from ramino.pool import WorkPool
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc, rules_pb2, rules_pb2_grpc, types_pb2

from .conftest import SECRET, SEED, auth

LIMIT = 1 << 20
SHORT = 200
"""Longest error message a hostile input may get back (it quotes a prefix)."""
JUNK = "\u00e9x" * 8000  # 16,000 characters


@dataclass
class Hostile:
    server: RunningServer
    app: GameApp
    pool: WorkPool
    channel: grpc.aio.Channel
    games: game_pb2_grpc.GameServiceStub
    rules: rules_pb2_grpc.RulesServiceStub
    health: health_pb2_grpc.HealthStub

    @classmethod
    def on(
        cls, server: RunningServer, app: GameApp, pool: WorkPool, ch: grpc.aio.Channel
    ) -> Hostile:
        """The stubs of every service over ``ch``."""
        return cls(
            server,
            app,
            pool,
            ch,
            game_pb2_grpc.GameServiceStub(ch),
            rules_pb2_grpc.RulesServiceStub(ch),
            health_pb2_grpc.HealthStub(ch),
        )


@pytest.fixture
async def hostile() -> AsyncIterator[Hostile]:
    pool = WorkPool(workers=2, capacity=2)
    # Games of bots only are allowed: these tests are about inputs, not that rule.
    limits = Limits(allow_bot_games=True)
    app = GameApp(open_store("memory"), seed_source=lambda: SEED, pool=pool, limits=limits)
    servicer = GameServicer(app, TokenIssuer(SECRET))
    running = await create_server("127.0.0.1:0", servicer, max_message_bytes=LIMIT, pool=pool)
    # The client may send and receive what it likes: the server decides.
    options = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}", options=options) as ch:
        yield Hostile.on(running, app, pool, ch)
    await running.stop(0)
    await app.close()
    pool.shutdown()


def info_of(err: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(err)
    assert status is not None, f"{err.code()} without a status detail: {err.details()}"
    info = error_details_pb2.ErrorInfo()
    assert status.details and status.details[0].Unpack(info), err
    assert info.domain == "ramino.v1" and info.reason
    return info


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> str:
    """Awaits ``call``, which must fail with ``code`` and ``reason``; its message."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert (err.value.code(), info_of(err.value).reason) == (code, reason), err.value.details()
    message = err.value.details() or ""
    assert len(message) <= SHORT, message[:300]
    return message


UNKNOWN_FIELD = "unknown_field"
"""A key of :func:`overrides`: a field of a newer client's parameters."""


def overrides(**values: Any) -> types_pb2.VariantParameters:
    """Typed overrides; with ``UNKNOWN_FIELD``, also a field number the
    server does not know (127, a varint)."""
    unknown = values.pop(UNKNOWN_FIELD, None)
    msg = types_pb2.VariantParameters(**values)
    if unknown is not None:
        msg.MergeFromString(b"\xf8\x07" + bytes([unknown]))
    return msg


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def eventually(check: Callable[[], bool]) -> bool:
    """Whether ``check`` holds within a few seconds: the server counts and
    logs an RPC just after its status has gone out to the client."""
    for _ in range(500):
        if check():
            return True
        await asyncio.sleep(0.01)
    return check()


async def open_game(h: Hostile, people: int = 2) -> tuple[str, list[str]]:
    seats = [game_pb2.SeatConfig(player_name=f"p{i}") for i in range(people)]
    created = await h.games.CreateGame(game_pb2.CreateGameRequest(variant="rummy", seats=seats))
    name = created.game.name
    tokens = []
    for i in range(people):
        joined = await h.games.JoinGame(
            game_pb2.JoinGameRequest(name=name, seat=i, player_name=f"p{i}")
        )
        tokens.append(joined.seat_token)
    return name, tokens


# --- no request blocks the event loop -------------------------------------------

SEVENTY_K_MELDS = [rules_pb2.MeldCodes(cards=["5H", "6H", "7H"])] * 70_000
HEAVY_HAND = (
    "3C 4C 2C 4H 4D 2S 5S 5H 5D 4S AD 2D 2H AH 5D 3H 3C 3D 3S AC 3D 2D 2C AS 2S AH 5C JK JK JK"
).split()


async def test_a_70k_meld_table_is_refused_before_any_search(hostile: Hostile) -> None:
    request = rules_pb2.AnalyzeHandRequest(variant="ramino51", hand=["5S"], table=SEVENTY_K_MELDS)
    assert request.ByteSize() < LIMIT
    message = await refused(
        hostile.rules.AnalyzeHand(request), grpc.StatusCode.INVALID_ARGUMENT, "TABLE_TOO_LARGE"
    )
    assert str(limits.MAX_TABLE_MELDS) in message


async def test_hand_table_and_meld_sizes_have_limits_a_game_never_reaches(
    hostile: Hostile,
) -> None:
    rules = hostile.rules
    cases = [
        (
            rules.AnalyzeHand(rules_pb2.AnalyzeHandRequest(hand=["5S"] * (ramino.MAX_HAND + 1))),
            "HAND_TOO_LARGE",
            str(ramino.MAX_HAND),
        ),
        (
            rules.AnalyzeHand(
                rules_pb2.AnalyzeHandRequest(
                    hand=["5S"], table=SEVENTY_K_MELDS[: limits.MAX_TABLE_MELDS + 1]
                )
            ),
            "TABLE_TOO_LARGE",
            str(limits.MAX_TABLE_MELDS),
        ),
        (
            rules.AnalyzeHand(
                rules_pb2.AnalyzeHandRequest(
                    hand=["5S"],
                    table=[rules_pb2.MeldCodes(cards=["5H"] * (limits.MAX_MELD_CARDS + 1))],
                )
            ),
            "MELD_TOO_LARGE",
            str(limits.MAX_MELD_CARDS),
        ),
        (
            rules.ValidateMeld(
                rules_pb2.ValidateMeldRequest(cards=["5H"] * (limits.MAX_MELD_CARDS + 1))
            ),
            "MELD_TOO_LARGE",
            str(limits.MAX_MELD_CARDS),
        ),
    ]
    for call, reason, limit in cases:
        message = await refused(call, grpc.StatusCode.INVALID_ARGUMENT, reason)
        assert limit in message
    # At the limits, a request is answered.
    at_limit = await rules.AnalyzeHand(
        rules_pb2.AnalyzeHandRequest(
            variant="rami51",
            hand=HEAVY_HAND,
            table=[rules_pb2.MeldCodes(cards=["5H", "6H", "JK"])] * limits.MAX_TABLE_MELDS,
        )
    )
    assert at_limit.min_deadwood.melds and at_limit.lay_offs


class Gate:
    """A test seam around pooled work: each call says it entered, then waits
    until the test opens the gate (or a generous time passes, noted)."""

    def __init__(self, work: Callable[..., Any]) -> None:
        self.work = work
        self.open = threading.Event()
        self.entered: list[threading.Thread] = []
        self.some_entered = threading.Event()
        self.timed_out = False

    def __call__(self, *args: Any) -> Any:
        self.entered.append(threading.current_thread())
        self.some_entered.set()
        if not self.open.wait(60):
            self.timed_out = True
        return self.work(*args)


async def test_a_heavy_analyze_hand_runs_off_the_event_loop(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a legal, heavy AnalyzeHand is held inside its work, a health
    Check and a ListVariants complete: the work is not on the event loop.
    (Were it on the loop, nothing would be answered until the gate timed
    out, and the gate would say so.)"""
    gate = Gate(rules_servicer.analyze_hand)
    monkeypatch.setattr(rules_servicer, "analyze_hand", gate)
    heavy = asyncio.ensure_future(
        hostile.rules.AnalyzeHand(rules_pb2.AnalyzeHandRequest(variant="rami51", hand=HEAVY_HAND))
    )
    assert await asyncio.to_thread(gate.some_entered.wait, 60)
    check = await hostile.health.Check(health_pb2.HealthCheckRequest(), timeout=30)
    assert check.status == health_pb2.HealthCheckResponse.SERVING
    variants = await hostile.rules.ListVariants(rules_pb2.ListVariantsRequest(), timeout=30)
    assert len(variants.variants) == len(ramino.PRESETS)
    assert not heavy.done()
    gate.open.set()
    answer = await heavy
    assert answer.min_deadwood.melds and not gate.timed_out
    assert gate.entered[0] is not threading.main_thread()


async def test_a_flood_of_heavy_calls_is_refused_as_server_busy(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool admits ``capacity`` calls; the next is RESOURCE_EXHAUSTED
    at once (SERVER_BUSY), not queued; once the work ends, calls pass again."""
    gate = Gate(rules_servicer.analyze_hand)
    monkeypatch.setattr(rules_servicer, "analyze_hand", gate)
    request = rules_pb2.AnalyzeHandRequest(variant="rami51", hand=HEAVY_HAND)
    admitted = [asyncio.ensure_future(hostile.rules.AnalyzeHand(request)) for _ in range(2)]
    for _ in range(600):
        if hostile.pool.admitted == hostile.pool.capacity:
            break
        await asyncio.sleep(0.05)
    assert hostile.pool.admitted == hostile.pool.capacity == 2
    before = sample("ramino_rpcs_total", method="AnalyzeHand", code="RESOURCE_EXHAUSTED")
    await refused(
        hostile.rules.AnalyzeHand(request), grpc.StatusCode.RESOURCE_EXHAUSTED, "SERVER_BUSY"
    )
    assert await eventually(
        lambda: sample("ramino_rpcs_total", method="AnalyzeHand", code="RESOURCE_EXHAUSTED")
        == before + 1
    )
    gate.open.set()
    for call in admitted:
        assert (await call).min_deadwood.melds
    assert hostile.pool.admitted == 0
    assert (await hostile.rules.AnalyzeHand(request)).min_deadwood.melds


async def test_hints_on_large_hands_are_searched_off_the_event_loop(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GetLegalMoves of a hand larger than any preset deals runs its
    searches in the pool, while a Check completes."""
    h = hostile
    sizes = overrides(hand_sizes=[25, 7, 7, 6, 6], max_players=2)
    created = await h.games.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy", overrides=sizes, seats=[game_pb2.SeatConfig(player_name="a")] * 2
        )
    )
    name, tokens = created.game.name, []
    for i in range(2):
        joined = await h.games.JoinGame(
            game_pb2.JoinGameRequest(name=name, seat=i, player_name="p")
        )
        tokens.append(joined.seat_token)
    view = (await h.games.GetGame(game_pb2.GetGameRequest(name=name))).view
    assert len(view.hand) == 0 and view.seats[view.turn].hand_size > app_moves.POOLED_HAND
    gate = Gate(app_moves.legal_moves)
    monkeypatch.setattr(app_moves, "legal_moves", gate)
    legal = asyncio.ensure_future(
        h.games.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name), metadata=auth(tokens[view.turn])
        )
    )
    assert await asyncio.to_thread(gate.some_entered.wait, 60)
    check = await h.health.Check(health_pb2.HealthCheckRequest(), timeout=30)
    assert check.status == health_pb2.HealthCheckResponse.SERVING and not legal.done()
    gate.open.set()
    assert (await legal).moves and not gate.timed_out


async def test_bots_search_large_hands_off_the_event_loop(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot holding more cards than any preset deals chooses its move in
    the work pool (the game's lock held meanwhile), not on the event loop."""
    from types import SimpleNamespace

    from ramino.bots.greedy import GreedyBot

    from .conftest import play_one

    threads: list[threading.Thread] = []
    choose = GreedyBot.choose

    def recorded(self: GreedyBot, game: Any, seat: int) -> Any:
        threads.append(threading.current_thread())
        return choose(self, game, seat)

    monkeypatch.setattr(GreedyBot, "choose", recorded)
    h = hostile
    created = await h.games.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy",
            overrides=overrides(hand_sizes=[25, 7, 7, 6, 6], max_players=2),
            seats=[
                game_pb2.SeatConfig(player_name="p"),
                game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY),
            ],
        )
    )
    name = created.game.name
    joined = await h.games.JoinGame(game_pb2.JoinGameRequest(name=name, seat=0, player_name="p"))
    person = SimpleNamespace(stub=h.games)
    for _ in range(600):
        if threads:
            break
        view = (await h.games.GetGame(game_pb2.GetGameRequest(name=name))).view
        if view.turn == 0:
            await play_one(person, name, joined.seat_token)  # type: ignore[arg-type]
        else:
            await asyncio.sleep(0.05)
    # The first choice is of the bot's dealt hand (25 cards, or 26 drawn).
    assert threads and threads[0] is not threading.main_thread()


@pytest.mark.parametrize(
    "search",
    [
        lambda: ramino.best_opening(HEAVY_HAND, "rami51"),
        lambda: ramino.min_deadwood(HEAVY_HAND, "rami51"),
        lambda: ramino.layoff_targets(HEAVY_HAND, [["5H", "6H", "JK"]] * 64, "rami51"),
        lambda: ramino.joker_swaps(HEAVY_HAND, [["5H", "6H", "JK"]] * 64, "rami51"),
    ],
    ids=["best_opening", "min_deadwood", "layoff_targets", "joker_swaps"],
)
def test_meld_searches_release_the_gil(search: Callable[[], object]) -> None:
    """With the interpreter's switch interval set very long, a thread that
    holds the GIL keeps it until it blocks or releases it. The main thread
    wakes another thread, then only searches: the other thread can run (and
    read ``phase``) before the searches end only if a search releases the
    GIL. Holding it, the searches would let the thread in only at the join,
    after ``phase`` became "done". No clock decides the outcome."""
    woken = threading.Event()
    phase = ["idle"]
    seen: list[str] = []

    def other() -> None:
        woken.wait()
        seen.append(phase[0])

    thread = threading.Thread(target=other)
    thread.start()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        phase[0] = "searching"
        woken.set()
        for _ in range(200):
            search()
            if seen:
                break
        phase[0] = "done"
    finally:
        sys.setswitchinterval(interval)
    thread.join()
    assert seen == ["searching"]


# --- inputs that crashed a handler ----------------------------------------------

BAD_OVERRIDES: list[tuple[dict[str, Any], str, str]] = [
    ({"max_rounds": limits.MAX_ROUNDS + 1}, "BAD_PARAMETER", "max_rounds"),
    ({"joker_penalty": -1}, "BAD_PARAMETER", "joker_penalty"),
    ({"open_threshold": 2**31 - 1}, "BAD_PARAMETER", "open_threshold"),
    ({"packs": 3}, "BAD_PARAMETER", "packs"),
    ({"scoring": 99}, "BAD_PARAMETER", "scoring"),
    ({"stock_exhausted": -5}, "BAD_PARAMETER", "stock_exhausted"),
    ({"hand_sizes": [10, 7, 7]}, "BAD_PARAMETER", "hand_sizes"),
    ({"hand_sizes": [10, 7, 7, 6, 0]}, "BAD_PARAMETER", "hand_sizes"),
    ({"winner_score": -(2**31)}, "BAD_PARAMETER", "winner_score"),
    ({"knock_card": 101}, "BAD_PARAMETER", "knock_card"),
    ({"max_turns_per_round": -1}, "BAD_PARAMETER", "max_turns_per_round"),
    ({"shutout_multiplier": 11}, "BAD_PARAMETER", "shutout_multiplier"),
    ({UNKNOWN_FIELD: 1}, "UNKNOWN_PARAMETER", "does not know"),
]


@pytest.mark.parametrize(
    ("values", "reason", "named"),
    BAD_OVERRIDES,
    ids=[f"{r[2][:20]}-{i}" for i, r in enumerate(BAD_OVERRIDES)],
)
async def test_overrides_are_checked_against_the_variants_parameters(
    hostile: Hostile, values: dict[str, Any], reason: str, named: str
) -> None:
    """Every RPC that takes overrides answers INVALID_ARGUMENT naming the
    parameter, for a value out of its range, an unknown choice, a list of
    the wrong length, or a field the server does not know; never INTERNAL."""
    s = overrides(**values)
    seats = [game_pb2.SeatConfig(player_name="a")] * 2
    calls = [
        hostile.games.CreateGame(
            game_pb2.CreateGameRequest(variant="rummy", overrides=s, seats=seats)
        ),
        hostile.rules.ValidateMeld(
            rules_pb2.ValidateMeldRequest(variant="rummy", overrides=s, cards=["5H", "6H", "7H"])
        ),
        hostile.rules.AnalyzeHand(
            rules_pb2.AnalyzeHandRequest(variant="rummy", overrides=s, hand=["5H"])
        ),
    ]
    for call in calls:
        message = await refused(call, grpc.StatusCode.INVALID_ARGUMENT, reason)
        assert named in message


async def test_max_rounds_and_target_score_are_bounded_and_a_match_must_end(
    hostile: Hostile,
) -> None:
    seats = [game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_RANDOM)] * 2

    def create(**values: Any) -> Any:
        return hostile.games.CreateGame(
            game_pb2.CreateGameRequest(variant="rummy", overrides=overrides(**values), seats=seats)
        )

    for values, named in [
        ({"max_rounds": limits.MAX_ROUNDS + 1}, "max_rounds"),
        ({"max_rounds": 10**9}, "max_rounds"),
        ({"target_score": limits.MAX_TARGET_SCORE + 1}, "target_score"),
        ({"max_rounds": -1}, "max_rounds"),
        ({"max_rounds": 0, "target_score": 0}, "max_rounds"),
    ]:
        message = await refused(create(**values), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PARAMETER")
        assert named in message
    assert await hostile.app.store.list_games(10) == type(await hostile.app.store.list_games(10))(
        [], ""
    )
    at_bounds = await create(max_rounds=limits.MAX_ROUNDS, target_score=limits.MAX_TARGET_SCORE)
    assert at_bounds.game.name


async def test_hand_sizes_that_outgrow_the_meld_search_are_refused(hostile: Hostile) -> None:
    """A dealt hand, with the card drawn, fits the search that lists legal
    moves and hints (30 cards): larger deals would break every move."""
    seats = [game_pb2.SeatConfig(player_name="a")] * 2
    s = overrides(hand_sizes=[29, 7, 7, 6, 6], max_players=2, packs=2)
    message = await refused(
        hostile.games.CreateGame(
            game_pb2.CreateGameRequest(variant="ramino51", overrides=s, seats=seats)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "HAND_TOO_LARGE",
    )
    assert str(ramino.MAX_HAND) in message


def _token(payload: bytes) -> str:
    return base64.urlsafe_b64encode(payload).decode()


async def test_page_tokens_are_opaque_and_any_malformed_one_is_bad_page_token(
    hostile: Hostile,
) -> None:
    h = hostile
    for _ in range(3):
        await open_game(h)
    first = await h.games.ListGames(game_pb2.ListGamesRequest(page_size=2))
    assert len(first.games) == 2 and first.next_page_token
    rest = await h.games.ListGames(
        game_pb2.ListGamesRequest(page_size=2, page_token=first.next_page_token)
    )
    assert len(rest.games) == 1 and not rest.next_page_token
    big = "9" * 400
    tokens = [
        _token(f'[{big}, "abc"]'.encode()),
        _token(b'[1e999, "abc"]'),
        _token(b'[NaN, "abc"]'),
        _token(b'[true, "abc"]'),
        _token(b"[1, 2]"),
        _token(b'[1, "a", 3]'),
        _token(b"{}"),
        _token(b"[" * 5000),
        _token(json.dumps([1, "x" * 100]).encode()),
        "%%%",
        "\u00e9t\u00e9",
        JUNK,
        _token(JUNK.encode()),
    ]
    for token in tokens:
        message = await refused(
            h.games.ListGames(game_pb2.ListGamesRequest(page_token=token)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_PAGE_TOKEN",
        )
        assert token[:12] not in message


# --- undecodable and over-size requests -----------------------------------------


def _raw(h: Hostile, service: str, method: str, streaming: bool = False) -> Any:
    path = f"/ramino.v1.{service}/{method}"
    if streaming:
        return h.channel.unary_stream(path)
    return h.channel.unary_unary(path)


async def test_undecodable_requests_are_invalid_argument_with_error_info_log_and_metric(
    hostile: Hostile, logs: io.StringIO
) -> None:
    before = sample("ramino_rpcs_total", method="CreateGame", code="INVALID_ARGUMENT")
    message = await refused(
        _raw(hostile, "GameService", "CreateGame")(b"\xff\xff\xff\xff"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    assert "decode" in message
    assert await eventually(
        lambda: sample("ramino_rpcs_total", method="CreateGame", code="INVALID_ARGUMENT")
        == before + 1
    )
    lines = [json.loads(line) for line in logs.getvalue().splitlines() if line.strip()]
    rpc = [line for line in lines if line.get("event") == "rpc"]
    assert rpc[-1]["rpc"] == "CreateGame" and rpc[-1]["status"] == "INVALID_ARGUMENT"
    assert rpc[-1]["reason"] == "MALFORMED_REQUEST"
    assert not [line for line in lines if line.get("event") == "unexpected error"]


async def test_over_size_requests_are_resource_exhausted_with_error_info_log_and_metric(
    hostile: Hostile, logs: io.StringIO
) -> None:
    """Past the server's limit a request is REQUEST_TOO_LARGE with its
    ErrorInfo; past gRPC's own transport limit (twice that) gRPC refuses it
    bare, before any handler runs, as documented."""
    name, tokens = await open_game(hostile)
    big = game_pb2.LayMeldsRequest(
        name=name, melds=[game_pb2.MeldCardIds(card_ids=[1] * (LIMIT + 1000))]
    )
    assert LIMIT < big.ByteSize() < transport_limit(LIMIT)
    before = sample("ramino_rpcs_total", method="LayMelds", code="RESOURCE_EXHAUSTED")
    message = await refused(
        hostile.games.LayMelds(big, metadata=auth(tokens[0])),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "REQUEST_TOO_LARGE",
    )
    assert str(LIMIT) in message
    assert await eventually(
        lambda: sample("ramino_rpcs_total", method="LayMelds", code="RESOURCE_EXHAUSTED")
        == before + 1
    )
    rpc = [json.loads(x) for x in logs.getvalue().splitlines() if '"rpc"' in x]
    assert rpc[-1]["rpc"] == "LayMelds" and rpc[-1]["status"] == "RESOURCE_EXHAUSTED"
    assert rpc[-1]["reason"] == "REQUEST_TOO_LARGE"
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await _raw(hostile, "GameService", "LayMelds")(b"\x00" * (transport_limit(LIMIT) + 1))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def largest_analysis() -> rules_pb2.AnalyzeHandRequest:
    """The largest AnalyzeHand a client may send: a hand and a table at their limits."""
    return rules_pb2.AnalyzeHandRequest(
        variant="ramino51",
        hand=["10H"] * limits.MAX_HAND,
        table=[rules_pb2.MeldCodes(cards=["10H"] * limits.MAX_MELD_CARDS)] * limits.MAX_TABLE_MELDS,
    )


async def test_an_over_size_request_is_refused_by_its_length_without_being_decoded() -> None:
    """With the default limit, bytes that would not even decode are
    REQUEST_TOO_LARGE, not MALFORMED_REQUEST: the length is checked first,
    and nothing past it is parsed (on the event loop or anywhere), while
    health checks are answered; the largest request a client needs is
    under the limit."""
    pool = WorkPool(workers=1, capacity=2)
    app = GameApp(open_store("memory"), seed_source=lambda: SEED, pool=pool)
    running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(SECRET)), pool=pool)
    options = [("grpc.max_send_message_length", -1)]
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}", options=options) as ch:
            h = Hostile.on(running, app, pool, ch)
            garbage = b"\xff" * (DEFAULT_MAX_MESSAGE_BYTES + 1)
            with pytest.raises(DecodeError):
                game_pb2.LayMeldsRequest.FromString(garbage)
            for service, method in (("GameService", "LayMelds"), ("RulesService", "AnalyzeHand")):
                message = await refused(
                    _raw(h, service, method)(garbage),
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "REQUEST_TOO_LARGE",
                )
                assert str(DEFAULT_MAX_MESSAGE_BYTES) in message

            async def sender() -> None:
                for _ in range(50):
                    with pytest.raises(grpc.aio.AioRpcError):
                        await _raw(h, "RulesService", "AnalyzeHand")(garbage)

            senders = [asyncio.create_task(sender()) for _ in range(4)]
            checks = 0
            while not all(t.done() for t in senders):
                answer = await h.health.Check(health_pb2.HealthCheckRequest())
                assert answer.status == health_pb2.HealthCheckResponse.SERVING
                checks += 1
            await asyncio.gather(*senders)
            assert checks > 0
            largest = largest_analysis()
            assert largest.ByteSize() < DEFAULT_MAX_MESSAGE_BYTES // 2
            # Decoded and judged on its cards (this table's melds are not melds).
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await h.rules.AnalyzeHand(largest)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert info_of(err.value).reason not in ("REQUEST_TOO_LARGE", "MALFORMED_REQUEST")
    finally:
        await running.stop(0)
        await app.close()
        pool.shutdown()


def _methods() -> list[tuple[str, descriptor.MethodDescriptor]]:
    out = []
    for module, service in ((game_pb2, "GameService"), (rules_pb2, "RulesService")):
        for m in module.DESCRIPTOR.services_by_name[service].methods:
            out.append((service, m))
    return out


def _message_class(d: descriptor.Descriptor) -> Any:
    module = game_pb2 if d.file.name.endswith("game.proto") else rules_pb2
    return getattr(module, d.name)


def _fill(msg: Message, flavour: str, name: str) -> Message:
    """``msg`` with every field set the hostile way of ``flavour``: "long"
    (16,000-character strings, the largest numbers), "negative" (the
    smallest numbers, unknown enum values) or "game" (a real game's name,
    the rest as "long")."""
    for f in msg.DESCRIPTOR.fields:
        if f.message_type is not None:
            if f.is_repeated:
                _fill(getattr(msg, f.name).add(), flavour, name)
            else:
                _fill(getattr(msg, f.name), flavour, name)
            continue
        big = flavour != "negative"
        value: Any
        if f.type == descriptor.FieldDescriptor.TYPE_STRING:
            value = name if (f.name == "name" and flavour == "game") else JUNK
        elif f.type == descriptor.FieldDescriptor.TYPE_BOOL:
            value = True
        elif f.type == descriptor.FieldDescriptor.TYPE_ENUM:
            value = 99 if big else -1
        elif f.type == descriptor.FieldDescriptor.TYPE_INT64:
            value = 2**63 - 1 if big else -(2**63)
        else:
            value = 2**31 - 1 if big else -(2**31)
        if f.is_repeated:
            getattr(msg, f.name).extend([value] * 3)
        else:
            setattr(msg, f.name, value)
    return msg


async def _answer(h: Hostile, service: str, m: Any, payload: bytes, token: str) -> Any:
    """The status code and error (None for OK) of one raw call."""
    md = auth(token) if token else None
    try:
        if m.server_streaming:
            stream = _raw(h, service, m.name, streaming=True)(payload, metadata=md, timeout=30)
            async for _ in stream:
                break
            stream.cancel()
        else:
            await _raw(h, service, m.name)(payload, metadata=md, timeout=30)
    except grpc.aio.AioRpcError as err:
        return err.code(), err
    return grpc.StatusCode.OK, None


async def test_every_malformed_request_of_the_probe_gets_a_code_with_error_info(
    hostile: Hostile,
) -> None:
    """Every RPC of GameService and RulesService, sent undecodable bytes,
    an over-size request, an empty request, and requests whose every field
    is hostile (long strings, extreme numbers, bad overrides, bad page
    tokens, unknown enums), with no token, a forged one and a real one:
    each answer has a code and an ErrorInfo, never UNKNOWN or INTERNAL, and
    a short message."""
    h = hostile
    name, tokens = await open_game(h)
    forged = tokens[0][:-4] + "AAAA"
    seen: dict[str, int] = {}
    for service, m in _methods():
        cls = _message_class(m.input_type)
        payloads = {
            "undecodable": b"\xff\xff\xff\xff",
            "truncated": b"\x0a\xff\xff\xff\x0f",
            "over-size": b"\x00" * (LIMIT + 1),
            "empty": b"",
        }
        for flavour in ("long", "negative", "game"):
            payloads[flavour] = _fill(cls(), flavour, name).SerializeToString()
        for label, payload in payloads.items():
            for token in ("", forged, tokens[0]):
                code, err = await _answer(h, service, m, payload, token)
                where = f"{m.name} {label} token={bool(token)}"
                assert code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), (
                    where,
                    err.details() if err else None,
                )
                if err is not None:
                    info_of(err)
                    assert len(err.details() or "") <= SHORT, (where, err.details()[:300])
                    seen[info_of(err).reason] = seen.get(info_of(err).reason, 0) + 1
    assert {"MALFORMED_REQUEST", "REQUEST_TOO_LARGE", "BAD_GAME_NAME"} <= set(seen)


# --- errors quote a short prefix ------------------------------------------------


async def test_errors_quote_at_most_a_short_prefix_of_the_input(hostile: Hostile) -> None:
    """A 16,000-character card, game name, variant or include comes back as
    a short prefix, so the real INVALID_ARGUMENT reaches the client (a whole
    echo would outgrow its metadata limit and turn into another error)."""
    h = hostile
    cases = [
        (
            h.rules.ValidateMeld(rules_pb2.ValidateMeldRequest(cards=[JUNK, "5H", "6H"])),
            "BAD_CARD",
        ),
        (h.rules.AnalyzeHand(rules_pb2.AnalyzeHandRequest(hand=["5H", JUNK])), "BAD_CARD"),
        (
            h.rules.AnalyzeHand(rules_pb2.AnalyzeHandRequest(hand=["5H"], include=JUNK)),
            "BAD_CARD",
        ),
        (h.rules.ValidateMeld(rules_pb2.ValidateMeldRequest(variant=JUNK)), "UNKNOWN_VARIANT"),
        (h.games.GetGame(game_pb2.GetGameRequest(name="games/" + JUNK)), "BAD_GAME_NAME"),
        (
            h.games.CreateGame(
                game_pb2.CreateGameRequest(variant=JUNK, seats=[game_pb2.SeatConfig()] * 2)
            ),
            "UNKNOWN_VARIANT",
        ),
    ]
    for call, reason in cases:
        message = await refused(call, grpc.StatusCode.INVALID_ARGUMENT, reason)
        assert JUNK[:8] in message and JUNK[:64] not in message


# --- bounded memory -------------------------------------------------------------


async def test_the_variant_cache_keeps_at_most_its_bound(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each distinct set of overrides builds a variant; past the bound the
    least recently used goes, and a game whose variant went is served as
    before (its variant is built again)."""
    h = hostile
    servicer = h.server.games
    assert isinstance(servicer, game_servicer.GameServicer)
    messages = servicer.messages
    monkeypatch.setattr(messages, "max_variants", 4)
    messages.variants.clear()
    names = []
    for i in range(12):
        created = await h.games.CreateGame(
            game_pb2.CreateGameRequest(
                variant="rummy",
                overrides=overrides(joker_penalty=i),
                seats=[game_pb2.SeatConfig(player_name="a")] * 2,
            )
        )
        names.append(created.game.name)
        await h.games.GetGame(game_pb2.GetGameRequest(name=created.game.name))
        assert len(messages.variants) <= 4
    assert len(messages.variants) == 4
    first = await h.games.GetGame(game_pb2.GetGameRequest(name=names[0]))
    assert first.view.variant.parameters.joker_penalty == 0
    assert len(messages.variants) == 4


async def test_the_game_lock_table_drops_a_lock_no_one_holds_or_waits_for(
    hostile: Hostile,
) -> None:
    h = hostile
    for i in range(300):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await h.games.GetGame(game_pb2.GetGameRequest(name=f"games/nosuch{i}"))
        assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert len(h.app.cache.locks) == 0
    name, tokens = await open_game(h)
    assert len(h.app.cache.locks) == 0
    game_id = name.partition("/")[2]
    async with h.app.cache.lock(game_id):
        assert len(h.app.cache.locks) == 1
        waiting = asyncio.ensure_future(h.games.GetGame(game_pb2.GetGameRequest(name=name)))
        for _ in range(600):
            if h.app.cache.locks[game_id]._users == 2:
                break
            await asyncio.sleep(0.05)
        assert h.app.cache.locks[game_id]._users == 2 and not waiting.done()
    assert (await waiting).view.name == name
    assert len(h.app.cache.locks) == 0


def test_built_message_caches_keep_at_most_their_limit() -> None:
    """The messages kept built for reuse are keyed in part by what clients
    choose (the melds they lay, the overrides of their games): past its
    limit a cache starts again, so it never holds more than the limit."""
    messages = Messages(max_pieces=10)
    for n in range(95):
        assert messages.card("AS", n).id == n
        assert len(messages.cards) <= 10
    named = types_pb2.Variant(name="rummy")
    variant = GameVariant("rummy:[]", ramino.Variant("rummy"), named, named)
    for rank in "23456789TJQ":
        codes = (f"{rank}S", f"{rank}H", f"{rank}D")
        assert len(messages.hint_meld(variant, codes).cards) == 3
        assert len(messages.melds) <= 10


async def test_a_game_lock_admits_one_holder_first_come_first_served_through_cancellations() -> (
    None
):
    """The lock that replaced ``asyncio.Lock``: one holder at a time, waiters
    served in order, a cancelled waiter (even one cancelled as the lock was
    handed to it) skipped, and the table empty when all are done."""
    from ramino.app.games.cache import GameLock

    table: dict[str, GameLock] = {}

    def lock() -> GameLock:
        found = table.get("g")
        if found is None:
            found = table["g"] = GameLock(table, "g")
        return found

    order: list[int] = []
    holding: list[int] = []
    release = asyncio.Event()

    async def user(i: int) -> None:
        async with lock():
            holding.append(i)
            assert len(holding) == 1
            order.append(i)
            if i == 0:
                await release.wait()
            await asyncio.sleep(0)
            holding.remove(i)

    tasks = [asyncio.ensure_future(user(i)) for i in range(6)]
    for _ in range(3):
        await asyncio.sleep(0)
    assert order == [0] and table["g"]._users == 6
    tasks[2].cancel()  # while waiting
    release.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[2], asyncio.CancelledError)
    assert order == [0, 1, 3, 4, 5] and not holding and not table

    # A waiter cancelled just as the lock is handed to it passes it on.
    held = lock()
    await held.__aenter__()
    first = asyncio.ensure_future(user(10))
    second = asyncio.ensure_future(user(11))
    await asyncio.sleep(0)
    assert held._users == 3
    await held.__aexit__(None, None, None)  # handed to the first waiter...
    first.cancel()  # ...which is cancelled before it runs
    # (a lock left held would hang the second user: the guard turns that into a failure)
    results = await asyncio.wait_for(asyncio.gather(first, second, return_exceptions=True), 60)
    assert isinstance(results[0], asyncio.CancelledError) and results[1] is None
    assert order[-1] == 11 and 10 not in order and not table


def test_every_presets_whole_numbers_lie_within_the_ranges_overrides_may_take() -> None:
    """A preset's own values are overrides the server accepts: no range is
    narrower than a preset (gin's bonuses and wall, every max_turns_per_round)."""
    for preset in ramino.PRESETS:
        values = ramino.Variant(preset).to_dict()
        for name, (low, high) in limits.INT_RANGES.items():
            assert low <= values[name] <= high, (preset, name, values[name])


async def test_max_turns_per_round_is_bounded(hostile: Hostile) -> None:
    for value in (0, limits.MAX_TURNS_PER_ROUND + 1):
        message = await refused(
            hostile.rules.ValidateMeld(
                rules_pb2.ValidateMeldRequest(
                    cards=["AS", "2S", "3S"],
                    variant="rummy",
                    overrides=overrides(max_turns_per_round=value),
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_PARAMETER",
        )
        assert "max_turns_per_round" in message
