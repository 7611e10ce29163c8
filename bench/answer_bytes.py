"""Bytes of a move's answer (a ``MoveResult``) and of a watch event, over a
real server on a loopback port: whole games of two people, each move the
first legal one that keeps the game going (a draw, else a discard). Prints
figures; asserts nothing."""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics

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
    return answers, events, snapshots


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="rummy")
    p.add_argument("--games", type=int, default=3)
    args = p.parse_args()
    # The server's log line per RPC would drown the figures.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    answers, events, snapshots = asyncio.run(play(args.variant, args.games))
    for what, sizes in (
        ("move answer (MoveResult)", answers),
        ("event (GameEvent)", events),
        ("JoinGame view (snapshot)", snapshots),
    ):
        if not sizes:
            print(f"{what:28} n=    0")
            continue
        print(
            f"{what:28} n={len(sizes):5}  mean={statistics.fmean(sizes):7.0f} B"
            f"  p50={statistics.median(sizes):6.0f} B  max={max(sizes):6} B"
        )


if __name__ == "__main__":
    main()
