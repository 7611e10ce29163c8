"""Bytes of a move's answer (a ``MoveResult``) and of a watch event, over a
real server on a loopback port: whole games of two people, each move the
first legal one that keeps the game going (a draw, else a discard). Prints
figures; asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
from typing import Any

import grpc
import structlog
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc


async def play(variant: str, games: int) -> tuple[list[int], list[int], list[int]]:
    app = GameApp(open_store("memory"), seed_source=lambda: 7)
    running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(b"b" * 32)))
    answers: list[int] = []
    events: list[int] = []
    snapshots: list[int] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        for _ in range(games):
            seats = [game_pb2.SeatConfig(player_name="p")] * 2
            created = await stub.CreateGame(
                game_pb2.CreateGameRequest(variant=variant, seats=seats)
            )
            name = created.game.name
            tokens = []
            for i in range(2):
                joined = await stub.JoinGame(
                    game_pb2.JoinGameRequest(name=name, seat=i, player_name=f"p{i}")
                )
                tokens.append(joined.seat_token)
                snapshots.append(joined.view.ByteSize())
            for _ in range(400):
                view = (await stub.GetGame(game_pb2.GetGameRequest(name=name))).view
                if view.status != game_pb2.GAME_STATUS_PLAYING or not view.HasField("turn"):
                    break
                md = (("authorization", f"Bearer {tokens[view.turn]}"),)
                legal = await stub.GetLegalMoves(
                    game_pb2.GetLegalMovesRequest(name=name), metadata=md
                )
                kinds = {m.WhichOneof("move"): m for m in legal.moves}
                if "draw_from_stock" in kinds:
                    drawn = game_pb2.DrawFromStockRequest(name=name)
                    result = (await stub.DrawFromStock(drawn, metadata=md)).result
                elif "discard" in kinds:
                    card = legal.hint.suggested_discard.id
                    discard = game_pb2.DiscardRequest(name=name, card_id=card)
                    result = (await stub.Discard(discard, metadata=md)).result
                else:
                    break
                answers.append(result.ByteSize())
                events.extend(e.ByteSize() for e in result.events)
    await running.stop(0)
    await app.close()
    return answers, events, snapshots


async def session_bytes(variant: str, games: int, asked: bool) -> tuple[list[int], list[int]]:
    """Bytes a session sends a move: both seats on PlayGame sessions (``asked``:
    asking for hints and answer views, as the SDKs do; else for neither), each
    drawing from the stock and discarding the card drawn, 60 moves a game;
    the mover's answers and the other seat's messages (events with options)."""
    app = GameApp(open_store("memory"), seed_source=lambda: 7)
    running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(b"b" * 32)))
    answers: list[int] = []
    pushed: list[int] = []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        for _ in range(games):
            seats = [game_pb2.SeatConfig(player_name="p")] * 2
            name = (
                await stub.CreateGame(game_pb2.CreateGameRequest(variant=variant, seats=seats))
            ).game.name
            tokens = [
                (
                    await stub.JoinGame(
                        game_pb2.JoinGameRequest(name=name, seat=i, player_name=f"p{i}")
                    )
                ).seat_token
                for i in range(2)
            ]
            version = (await stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version
            await asyncio.gather(
                *(
                    _seat(stub, name, tokens[i], asked, version + 60, answers, pushed)
                    for i in range(2)
                )
            )
    await running.stop(0)
    await app.close()
    return answers, pushed


async def _seat(
    stub: Any,
    name: str,
    token: str,
    asked: bool,
    until: int,
    answers: list[int],
    pushed: list[int],
) -> None:
    call = stub.PlayGame(metadata=(("authorization", f"Bearer {token}"),))
    prefix = f"{token[-8:]}-"  # a game's request ids are its seats' together
    start = game_pb2.PlayGameStart(name=name, hints=asked, answer_views=asked)
    await call.write(game_pb2.PlayGameRequest(start=start))
    last, n = 0, 0
    while last < until:
        message = await call.read()
        kind = message.WhichOneof("payload")
        last = max(last, message.version)
        if kind == "answer":
            if message.answer.HasField("error"):
                raise RuntimeError(f"a move was refused: {message.answer.error.message}")
            answers.append(message.ByteSize())
            options = message.answer.result.options
        elif kind == "snapshot":
            options = message.options
        else:
            pushed.append(message.ByteSize())
            options = message.options
        if not options.moves or last >= until:
            continue
        n += 1
        v = options.version
        kinds = [m.WhichOneof("move") for m in options.moves]
        if "draw_from_stock" in kinds:
            move = game_pb2.PlayGameRequest(
                draw_from_stock=game_pb2.DrawFromStockRequest(
                    request_id=f"{prefix}{n}", expected_version=v
                )
            )
        else:
            card = [m.discard.card_id for m in options.moves if m.HasField("discard")][-1]
            move = game_pb2.PlayGameRequest(
                discard=game_pb2.DiscardRequest(
                    request_id=f"{prefix}{n}", expected_version=v, card_id=card
                )
            )
        await call.write(move)
    call.cancel()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="rummy")
    p.add_argument("--games", type=int, default=3)
    args = p.parse_args()
    # The server's log line per RPC would drown the figures.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    async def all_of() -> tuple[Any, ...]:
        # One event loop for all: grpc.aio keeps to the first it runs on.
        return (
            await play(args.variant, args.games),
            await session_bytes(args.variant, args.games, False),
            await session_bytes(args.variant, args.games, True),
        )

    (answers, events, snapshots), (lean, lean_pushed), (asked, asked_pushed) = asyncio.run(all_of())
    for what, sizes in (
        ("move answer (MoveResult)", answers),
        ("event (GameEvent)", events),
        ("JoinGame view (snapshot)", snapshots),
        ("session answer, asking hints and views (the SDKs', the old default)", asked),
        ("session answer, asking neither (the default)", lean),
        ("session push to the other seat, asking both", asked_pushed),
        ("session push to the other seat, asking neither", lean_pushed),
    ):
        if not sizes:
            print(f"{what:70} n=    0")
            continue
        print(
            f"{what:70} n={len(sizes):5}  mean={statistics.fmean(sizes):7.0f} B"
            f"  p50={statistics.median(sizes):6.0f} B  max={max(sizes):6} B"
        )


if __name__ == "__main__":
    main()
