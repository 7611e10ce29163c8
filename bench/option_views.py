"""What ``PlayGameStart.option_views`` costs (issue 35): figures only,
nothing asserted.

A seat's policy needs the table its options are for (the discard pile's
top: the card TakeDiscard takes). Either the server pushes the seat's view
with the options (``option_views``) or the client folds the session's
events into the last view it had. This plays whole two-seat rummy matches
on sessions (a server in this process, the memory store, both seats
drawing, laying the melds offered and discarding the hinted card), once
without and once with ``option_views``, and prints side by side: the bytes
the seats were sent per decision (options pushed with moves), the bytes of
the pushed views, and the server's CPU to take and encode one view (timed
apart, over repeats at one seat's turn). A fold costs no byte and no
server CPU; what it cannot do is printed with the figures.

    .venv/bin/python bench/option_views.py [--games 2] [--max-rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

import grpc
import structlog
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc, types_pb2

SECRET = b"bench-option-views-secret-32-bytes!"


@dataclass
class Tally:
    """What the seats of some matches were sent."""

    messages: int = 0
    sent: int = 0
    decisions: int = 0
    view_bytes: int = 0

    def add(self, other: Tally) -> None:
        self.messages += other.messages
        self.sent += other.sent
        self.decisions += other.decisions
        self.view_bytes += other.view_bytes


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def move(options: game_pb2.SeatOptions, request_id: str) -> game_pb2.PlayGameRequest:
    """Melds when offered, else a draw, else the hinted discard (else the first move)."""
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
    if "discard" in kinds:
        card = options.hint.suggested_discard.id
        if not any(m.discard.card_id == card for m in options.moves if m.HasField("discard")):
            card = kinds["discard"].discard.card_id
        return game_pb2.PlayGameRequest(
            discard=game_pb2.DiscardRequest(request_id=request_id, expected_version=v, card_id=card)
        )
    if "take_discard" in kinds:
        return game_pb2.PlayGameRequest(
            take_discard=game_pb2.TakeDiscardRequest(request_id=request_id, expected_version=v)
        )
    raise AssertionError(f"no move for {[m.WhichOneof('move') for m in options.moves]}")


async def seat(
    stub: game_pb2_grpc.GameServiceStub, name: str, token: str, views: bool, prefix: str
) -> Tally:
    """Plays one seat to the end of the match on its session."""
    tally = Tally()
    call: Any = stub.PlayGame(metadata=auth(token))
    start = game_pb2.PlayGameStart(name=name, hints=True, answer_views=True, option_views=views)
    await call.write(game_pb2.PlayGameRequest(start=start))
    made = 0
    while (message := await call.read()) is not grpc.aio.EOF:
        tally.messages += 1
        tally.sent += message.ByteSize()
        kind = message.WhichOneof("payload")
        if kind == "answer":
            result = message.answer.result
            if result.view.status == game_pb2.GAME_STATUS_FINISHED:
                break
            options = result.options
        else:
            if kind == "event" and message.event.HasField("match_ended"):
                break
            options = message.options
            if options.moves and kind != "snapshot":
                tally.decisions += 1
                tally.view_bytes += options.view.ByteSize() if options.HasField("view") else 0
        if options.moves:
            made += 1
            await call.write(move(options, f"{prefix}-{made}"))
    call.cancel()
    return tally


async def match(
    stub: game_pb2_grpc.GameServiceStub, views: bool, index: int, max_rounds: int
) -> Tally:
    overrides = types_pb2.VariantParameters()
    if max_rounds:
        overrides.target_score = 0
        overrides.max_rounds = max_rounds
    created = await stub.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy",
            seats=[game_pb2.SeatConfig(player_name="ann"), game_pb2.SeatConfig(player_name="bo")],
            overrides=overrides,
        )
    )
    name = created.game.name
    tokens = []
    for i, who in enumerate(("ann", "bo")):
        joined = await stub.JoinGame(game_pb2.JoinGameRequest(name=name, seat=i, player_name=who))
        tokens.append(joined.seat_token)
    tally = Tally()
    for one in await asyncio.gather(
        *(seat(stub, name, tokens[i], views, f"g{index}s{i}") for i in (0, 1))
    ):
        tally.add(one)
    return tally


def view_cpu(app: GameApp, servicer: GameServicer, game_id: str, seat: int) -> tuple[float, float]:
    """Microseconds of server CPU to take the seat's view with its options
    (under the game's lock) and to encode it, each timed over repeats."""
    moves = app.moves
    repeats = 2000
    loop = asyncio.get_event_loop()

    async def took(view: bool) -> float:
        began = time.process_time()
        for _ in range(repeats):
            await moves.options_at(game_id, seat, version, True, view)
        return (time.process_time() - began) / repeats * 1e6

    legal = loop.run_until_complete(moves.legal(game_id, seat))
    version = legal.version
    without = loop.run_until_complete(took(False))
    with_view = loop.run_until_complete(took(True))
    options = loop.run_until_complete(moves.options_at(game_id, seat, version, True, True))
    assert options is not None and options.seen is not None
    header = options.seen.header
    plain = type(options)(options.version, options.moves, options.hint, options.turn)
    began = time.process_time()
    for _ in range(repeats):
        servicer.messages.options(header, plain, version, options.turn, game_pb2.SeatOptions())
    encode_plain = time.process_time() - began
    began = time.process_time()
    for _ in range(repeats):
        servicer.messages.options(header, options, version, options.turn, game_pb2.SeatOptions())
    encode_view = time.process_time() - began
    return with_view - without, (encode_view - encode_plain) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="matches played each way")
    parser.add_argument(
        "--max-rounds",
        type=int,
        default=0,
        help="rounds of a match (0: the variant's own, to its target score)",
    )
    args = parser.parse_args()
    logging.disable(logging.INFO)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app = GameApp(open_store("memory"), seed_source=lambda: 20261203)
    servicer = GameServicer(app, TokenIssuer(SECRET))
    loop.run_until_complete(app.start())
    running = loop.run_until_complete(create_server("127.0.0.1:0", servicer))
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    stub = game_pb2_grpc.GameServiceStub(channel)
    tallies = {}
    for views in (False, True):
        tally = Tally()
        for i in range(args.games):
            tally.add(loop.run_until_complete(match(stub, views, i, args.max_rounds)))
        tallies[views] = tally
    game = loop.run_until_complete(
        stub.CreateGame(
            game_pb2.CreateGameRequest(
                variant="rummy",
                seats=[game_pb2.SeatConfig(player_name="a"), game_pb2.SeatConfig(player_name="b")],
            )
        )
    ).game
    for i in (0, 1):
        loop.run_until_complete(
            stub.JoinGame(game_pb2.JoinGameRequest(name=game.name, seat=i, player_name="p"))
        )
    game_id = game.name.partition("/")[2]
    turn = loop.run_until_complete(stub.GetGame(game_pb2.GetGameRequest(name=game.name))).view.turn
    take_us, encode_us = view_cpu(app, servicer, game_id, turn)
    loop.run_until_complete(channel.close())
    loop.run_until_complete(running.stop(0))
    loop.run_until_complete(app.close())
    off, on = tallies[False], tallies[True]
    rounds = f"of {args.max_rounds} round(s)" if args.max_rounds else "to the target score"
    print(f"{args.games} two-seat rummy matches {rounds} each way, both seats on sessions")
    print(f"{'':34} {'fold (no views)':>16} {'option_views':>14}")
    print(f"{'decisions (options pushed)':34} {off.decisions:>16} {on.decisions:>14}")
    print(f"{'messages sent to the seats':34} {off.messages:>16} {on.messages:>14}")
    print(f"{'bytes sent to the seats':34} {off.sent:>16} {on.sent:>14}")
    per_off = off.sent / max(off.decisions, 1)
    per_on = on.sent / max(on.decisions, 1)
    print(f"{'bytes per decision':34} {per_off:>16.0f} {per_on:>14.0f}")
    view = on.view_bytes / max(on.decisions, 1)
    print(f"{'pushed view, bytes per decision':34} {0:>16} {view:>14.0f}")
    print(f"{'server CPU per decision, µs':34} {0:>16} {take_us + encode_us:>14.1f}")
    print(f"  (taking the view under the lock {take_us:.1f} µs, encoding it {encode_us:.1f} µs)")
    print(
        "a fold cannot make, without the rules in the client: a meld's value, joker roles,"
        " closed and pure; the turn's deadline; a resignation's and a pile turned over's effects"
    )


if __name__ == "__main__":
    main()
