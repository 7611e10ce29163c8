"""A real GameService server on a loopback port, and helpers to drive it."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import grpc
import pytest
import structlog
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import RunningServer, create_server
from ramino.app import GameApp
from ramino.logs import configure
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc

SECRET = b"test-secret-of-at-least-thirty-two-bytes"
SEED = 20261129
CALLER = (("ramino-caller-key", "the-test-caller-s-own-random-key"),)
"""The metadata of an anonymous caller's own key (for request ids on
CreateGame and JoinGame)."""


@dataclass
class Harness:
    server: RunningServer
    app: GameApp
    tokens: TokenIssuer
    stub: game_pb2_grpc.GameServiceStub


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """The JSON lines logged while the test runs."""
    out = io.StringIO()
    configure("info", json=True, stream=out, cache=False)
    yield out
    structlog.reset_defaults()


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    tokens = TokenIssuer(SECRET)
    async with GameApp(open_store("memory"), seed_source=lambda: SEED) as app:
        running = await create_server("127.0.0.1:0", GameServicer(app, tokens))
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
        await running.stop(0)


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def reason_of(err: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(err)
    assert status is not None, err
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "ramino.v1"
    return info.reason


async def seated_game(
    h: Harness, variant: str, people: int, bots: int = 0, decks: list[list[int]] | None = None
) -> tuple[str, list[str]]:
    """A game with ``people`` joined seats (then ``bots`` greedy bots): its
    name and the people's tokens, by seat."""
    seats = [game_pb2.SeatConfig(player_name=f"p{i}") for i in range(people)]
    seats += [game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY) for _ in range(bots)]
    if decks is None:
        created = await h.stub.CreateGame(game_pb2.CreateGameRequest(variant=variant, seats=seats))
        name = created.game.name
    else:
        from ramino.app import SeatSpec

        game = await h.app.create(
            variant,
            {},
            [SeatSpec(s.player_name, "greedy" if s.bot else None) for s in seats],
            decks=decks,
        )
        name = f"games/{game.game_id}"
    tokens = []
    for i in range(people):
        joined = await h.stub.JoinGame(
            game_pb2.JoinGameRequest(name=name, seat=i, player_name=f"p{i}")
        )
        tokens.append(joined.seat_token)
    return name, tokens


async def draw_again_later(
    h: Harness, name: str, tokens: list[str], request_id: str
) -> tuple[game_pb2.DrawFromStockResponse, game_pb2.DrawFromStockRequest, game_pb2.GameView]:
    """The seat to move draws with ``request_id`` and discards, the other
    seat draws and discards: the first answer, that draw's request (legal
    again now) and the mover's view, back at its draw."""
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    mover, other = view.turn, 1 - view.turn
    draw = game_pb2.DrawFromStockRequest(name=name, request_id=request_id)
    first = await h.stub.DrawFromStock(draw, metadata=auth(tokens[mover]))
    drew = first
    for seat in (mover, other):
        if seat == other:
            drew = await h.stub.DrawFromStock(
                game_pb2.DrawFromStockRequest(name=name), metadata=auth(tokens[seat])
            )
        card = drew.result.view.hand[0].id
        await h.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=card), metadata=auth(tokens[seat])
        )
    before = (
        await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[mover]))
    ).view
    assert before.turn == mover and before.phase == game_pb2.TURN_PHASE_DRAW
    return first, draw, before


async def play_one(h: Harness, name: str, token: str) -> game_pb2.MoveResult | None:
    """One move chosen from the legal moves: melds, lay-offs, a draw, the
    hinted discard. None when it is not this seat's turn."""
    legal = await h.stub.GetLegalMoves(
        game_pb2.GetLegalMovesRequest(name=name), metadata=auth(token)
    )
    if not legal.moves:
        return None
    kinds = {m.WhichOneof("move"): m for m in legal.moves}
    md = auth(token)
    v = legal.version
    if "knock" in kinds:  # gin: the best knock is listed first
        k = kinds["knock"].knock
        knock = game_pb2.KnockRequest(name=name, expected_version=v, melds=k.melds)
        if k.HasField("discard_card_id"):
            knock.discard_card_id = k.discard_card_id
        return (await h.stub.Knock(knock, metadata=md)).result
    if "lay_melds" in kinds:
        r = await h.stub.LayMelds(
            game_pb2.LayMeldsRequest(
                name=name, expected_version=v, melds=kinds["lay_melds"].lay_melds.melds
            ),
            metadata=md,
        )
        return r.result
    if "lay_off" in kinds:
        m = kinds["lay_off"].lay_off
        r2 = await h.stub.LayOff(
            game_pb2.LayOffRequest(
                name=name, expected_version=v, card_id=m.card_id, meld_index=m.meld_index, end=m.end
            ),
            metadata=md,
        )
        return r2.result
    for draw in ("draw_from_stock", "turn_over_discard_pile", "take_discard"):
        if draw in kinds:
            request = {"name": name, "expected_version": v}
            if draw == "draw_from_stock":
                return (
                    await h.stub.DrawFromStock(
                        game_pb2.DrawFromStockRequest(**request), metadata=md
                    )
                ).result
            if draw == "turn_over_discard_pile":
                return (
                    await h.stub.TurnOverDiscardPile(
                        game_pb2.TurnOverDiscardPileRequest(**request), metadata=md
                    )
                ).result
            return (
                await h.stub.TakeDiscard(game_pb2.TakeDiscardRequest(**request), metadata=md)
            ).result
    discards = [m.discard.card_id for m in legal.moves if m.WhichOneof("move") == "discard"]
    if discards:
        card = (
            legal.hint.suggested_discard.id
            if legal.hint.suggested_discard.id in discards
            else discards[0]
        )
        return (
            await h.stub.Discard(
                game_pb2.DiscardRequest(name=name, expected_version=v, card_id=card), metadata=md
            )
        ).result
    if "accept_layout" in kinds:
        return (
            await h.stub.AcceptLayout(
                game_pb2.AcceptLayoutRequest(name=name, expected_version=v), metadata=md
            )
        ).result
    if "pass_upcard" in kinds:
        return (
            await h.stub.PassUpcard(
                game_pb2.PassUpcardRequest(name=name, expected_version=v), metadata=md
            )
        ).result
    first = legal.moves[0]
    kind = first.WhichOneof("move")
    if kind == "swap_joker":
        s = first.swap_joker
        return (
            await h.stub.SwapJoker(
                game_pb2.SwapJokerRequest(
                    name=name,
                    expected_version=v,
                    card_id=s.card_id,
                    meld_index=s.meld_index,
                    joker_id=s.joker_id,
                ),
                metadata=md,
            )
        ).result
    raise AssertionError(f"no move to make among {legal.moves}")
