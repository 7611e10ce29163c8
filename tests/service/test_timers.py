"""Turn timers: a seat that lets its turn run out has it played by the greedy
bot and is marked timed out until it acts again."""

from __future__ import annotations

import asyncio

from ramino.v1 import game_pb2

from .conftest import Harness, auth, play_one


async def test_a_seat_whose_timer_runs_out_is_played_by_the_greedy_bot_until_it_acts(
    harness: Harness,
) -> None:
    h = harness
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy",
            seats=[game_pb2.SeatConfig(player_name="ann"), game_pb2.SeatConfig(player_name="bob")],
            turn_timer_seconds=1,
        )
    )
    name = created.game.name
    tokens = [
        (await h.stub.JoinGame(game_pb2.JoinGameRequest(name=name, player_name=p))).seat_token
        for p in ("ann", "bob")
    ]
    start = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    sleeper = start.turn
    assert start.turn_deadline.seconds > 0
    # Nobody moves: within a few seconds the sleeper's turn has been played.
    for _ in range(60):
        await asyncio.sleep(0.1)
        view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        if view.turn != sleeper:
            break
    assert view.turn != sleeper and view.version > start.version
    assert view.seats[sleeper].timed_out
    assert (
        view.seats[sleeper].hand_size == start.seats[sleeper].hand_size
    )  # drew one, discarded one
    # The other seat plays its turn; the sleeper then takes over again.
    other = view.turn
    while view.turn == other:
        await play_one(h, name, tokens[other])
        view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    assert view.turn == sleeper
    await play_one(h, name, tokens[sleeper])
    after = (
        await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[0]))
    ).view
    assert not after.seats[sleeper].timed_out


def test_a_timed_out_seat_draws_then_discards_the_card_the_hint_names() -> None:
    from ramino.app.games.duties import timeout_move
    from ramino.bots import make_bot
    from ramino.engine import Discard, DrawFromStock, Game

    for variant in ("ramino51", "rami51", "rummy", "gin"):
        game = Game.new(variant, ["ann", "bob"], seed=44)
        bots = [make_bot("greedy", 1), make_bot("greedy", 2)]
        played = 0
        for _ in range(120):
            if game.finished:
                break
            seat = game.state.turn
            move = timeout_move(game, seat, bots[seat])
            if game.state.phase == "draw" and DrawFromStock() in game.legal_moves(seat):
                assert move == DrawFromStock()
            if isinstance(move, Discard):
                hint = game.hint(seat)
                assert hint is not None and move == Discard(hint.discard)
                played += 1
            game.apply(seat, move)
        assert played > 5, variant
