"""GameService over a real server: lobby, seats, moves, and every error path
with its status code, each leaving the game unchanged."""

from __future__ import annotations

import grpc
import pytest
from ramino.api.auth import TokenIssuer
from ramino.engine import stack_deck
from ramino.v1 import game_pb2, types_pb2

from .conftest import (
    CALLER,
    SECRET,
    Harness,
    auth,
    draw_again_later,
    play_one,
    reason_of,
    seated_game,
)


async def expect_error(call: object, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    assert err.value.code() == code, err.value.details()
    assert reason_of(err.value) == reason


async def version_of(h: Harness, name: str) -> int:
    return (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version


async def test_create_join_and_the_deal(harness: Harness) -> None:
    h = harness
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy",
            seats=[
                game_pb2.SeatConfig(player_name="ann"),
                game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_RANDOM),
            ],
        )
    )
    game = created.game
    assert (
        game.status == game_pb2.GAME_STATUS_WAITING
        and game.open_seats == 1
        and len(game.seed_hash) == 64
    )
    lobby = await h.stub.ListGames(game_pb2.ListGamesRequest(open_seats_only=True))
    assert [g.name for g in lobby.games] == [game.name]
    joined = await h.stub.JoinGame(game_pb2.JoinGameRequest(name=game.name, player_name="ann"))
    assert joined.seat == 0 and joined.view.status == game_pb2.GAME_STATUS_PLAYING
    assert len(joined.view.hand) == 10 and all(c.HasField("id") for c in joined.view.hand)
    assert not (await h.stub.ListGames(game_pb2.ListGamesRequest(open_seats_only=True))).games
    await expect_error(
        h.stub.JoinGame(game_pb2.JoinGameRequest(name=game.name, player_name="bob")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_OPEN_SEAT",
    )
    spectator = (await h.stub.GetGame(game_pb2.GetGameRequest(name=game.name))).view
    assert (
        not spectator.hand and not spectator.HasField("seat") and spectator.seats[0].hand_size == 10
    )


async def test_a_create_retried_with_its_request_id_returns_the_same_game(harness: Harness) -> None:
    request = game_pb2.CreateGameRequest(
        variant="rami51", seats=[game_pb2.SeatConfig(player_name="a")] * 2, request_id="create-1"
    )
    first = await harness.stub.CreateGame(request, metadata=CALLER)
    again = await harness.stub.CreateGame(request, metadata=CALLER)
    assert first.game.name == again.game.name
    assert len((await harness.stub.ListGames(game_pb2.ListGamesRequest())).games) == 1


async def test_tokens_missing_forged_expired_and_for_another_game(harness: Harness) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    other, _ = await seated_game(h, "rummy", 2)
    before = await version_of(h, name)
    draw = game_pb2.DrawFromStockRequest(name=name)
    await expect_error(h.stub.DrawFromStock(draw), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    forged = TokenIssuer(b"another-secret-of-at-least-32-bytes!!").issue(name.split("/")[1], 0)
    await expect_error(
        h.stub.DrawFromStock(draw, metadata=auth(forged)),
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_INVALID",
    )
    expired = TokenIssuer(SECRET, lifetime=60).issue(name.split("/")[1], 0, now=1_000_000)
    await expect_error(
        h.stub.DrawFromStock(draw, metadata=auth(expired)),
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_EXPIRED",
    )
    await expect_error(
        h.stub.DrawFromStock(draw, metadata=(("authorization", "Basic abc"),)),
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_INVALID",
    )
    await expect_error(
        h.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=other), metadata=auth(tokens[0])),
        grpc.StatusCode.PERMISSION_DENIED,
        "WRONG_GAME",
    )
    assert await version_of(h, name) == before


async def test_stale_versions_are_aborted_and_change_nothing(harness: Harness) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[1]))).view
    seat = view.turn
    await expect_error(
        h.stub.DrawFromStock(
            game_pb2.DrawFromStockRequest(name=name, expected_version=view.version - 1),
            metadata=auth(tokens[seat]),
        ),
        grpc.StatusCode.ABORTED,
        "VERSION_MISMATCH",
    )
    assert await version_of(h, name) == view.version


@pytest.mark.parametrize("at_version", [False, True], ids=["any version", "at a version"])
async def test_a_retried_request_id_returns_the_first_answer_and_applies_once(
    harness: Harness, at_version: bool
) -> None:
    # With an expected version, the retry's version is stale by then.
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    md = auth(tokens[view.turn])
    request = game_pb2.DrawFromStockRequest(name=name, request_id="draw-1")
    if at_version:
        request.expected_version = view.version
    first = await h.stub.DrawFromStock(request, metadata=md)
    again = await h.stub.DrawFromStock(request, metadata=md)
    assert first == again
    assert await version_of(h, name) == view.version + 1
    assert len(first.result.view.hand) == 11


async def test_a_request_retried_when_its_move_is_legal_again_applies_nothing(
    harness: Harness,
) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    first, draw, before = await draw_again_later(h, name, tokens, "draw-once")
    mover = before.turn
    again = await h.stub.DrawFromStock(draw, metadata=auth(tokens[mover]))
    assert again == first
    after = (
        await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[mover]))
    ).view
    assert after == before
    fresh = await h.stub.DrawFromStock(
        game_pb2.DrawFromStockRequest(name=name, request_id="draw-twice"),
        metadata=auth(tokens[mover]),
    )
    assert fresh.result.view.version == before.version + 1
    assert len(fresh.result.view.hand) == len(before.hand) + 1


async def test_malformed_requests_are_invalid_argument_and_change_nothing(harness: Harness) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    md = auth(tokens[view.turn])
    await h.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md)
    before = await version_of(h, name)
    cases = [
        (
            h.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=5000), metadata=md),
            "BAD_CARD_ID",
        ),
        (
            h.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=60), metadata=md),
            "UNKNOWN_CARD",
        ),
        (h.stub.LayMelds(game_pb2.LayMeldsRequest(name=name), metadata=md), "EMPTY_MELD"),
        (
            h.stub.LayMelds(
                game_pb2.LayMeldsRequest(name=name, melds=[game_pb2.MeldCardIds(card_ids=[])]),
                metadata=md,
            ),
            "EMPTY_MELD",
        ),
        (
            h.stub.LayMelds(
                game_pb2.LayMeldsRequest(
                    name=name, melds=[game_pb2.MeldCardIds(card_ids=list(range(400)))]
                ),
                metadata=md,
            ),
            "TOO_MANY_CARDS",
        ),
        (h.stub.GetGame(game_pb2.GetGameRequest(name="gamez/1")), "BAD_GAME_NAME"),
        (h.stub.ListGames(game_pb2.ListGamesRequest(page_token="%%%")), "BAD_PAGE_TOKEN"),
        (
            h.stub.CreateGame(
                game_pb2.CreateGameRequest(variant="poker", seats=[game_pb2.SeatConfig()] * 2)
            ),
            "UNKNOWN_VARIANT",
        ),
        (
            h.stub.CreateGame(
                game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()])
            ),
            "PLAYER_COUNT",
        ),
    ]
    for call, reason in cases:
        await expect_error(call, grpc.StatusCode.INVALID_ARGUMENT, reason)
    assert await version_of(h, name) == before


async def test_huge_messages_are_refused_and_change_nothing(harness: Harness) -> None:
    """Within the server's 16 KiB limit a huge request is INVALID_ARGUMENT;
    beyond it RESOURCE_EXHAUSTED (REQUEST_TOO_LARGE)."""
    name, tokens = await seated_game(harness, "rummy", 2)
    before = await version_of(harness, name)
    big = game_pb2.LayMeldsRequest(name=name, melds=[game_pb2.MeldCardIds(card_ids=[1] * 10_000)])
    await expect_error(
        harness.stub.LayMelds(big, metadata=auth(tokens[0])),
        grpc.StatusCode.INVALID_ARGUMENT,
        "TOO_MANY_CARDS",
    )
    huge = game_pb2.LayMeldsRequest(name=name, melds=[game_pb2.MeldCardIds(card_ids=[1] * 20_000)])
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await harness.stub.LayMelds(huge, metadata=auth(tokens[0]))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(err.value) == "REQUEST_TOO_LARGE"
    assert await version_of(harness, name) == before


async def test_unknown_games_are_not_found(harness: Harness) -> None:
    await expect_error(
        harness.stub.GetGame(game_pb2.GetGameRequest(name="games/feedbeef")),
        grpc.StatusCode.NOT_FOUND,
        "GAME_NOT_FOUND",
    )


async def test_engine_rejections_are_failed_precondition_with_their_reason(
    harness: Harness,
) -> None:
    """A stacked ramino51 deal (seat 1 plays first, 15 cards) reaches the
    engine's rules through the API; each refusal changes nothing."""
    h = harness
    first = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H 3H"
    second = "4H 6H 8H TD QD 2C 4C 6C 8C TC QC KD 9D 7D"
    deck = stack_deck("ramino51", [first, second], stock="AH AD")
    name, tokens = await seated_game(h, "ramino51", 2, decks=[deck])
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[0]))).view
    starter = view.turn
    other = 1 - starter
    md, md_other = auth(tokens[starter]), auth(tokens[other])
    hand = {c.code: c.id for c in view.hand} if view.seat == starter else None
    if hand is None:
        v2 = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md)).view
        hand = {c.code: c.id for c in v2.hand}
    assert len(hand) == 15
    before = view.version
    fp = grpc.StatusCode.FAILED_PRECONDITION
    await expect_error(
        h.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md_other),
        fp,
        "NOT_YOUR_TURN",
    )
    await expect_error(
        h.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md),
        fp,
        "FIRST_TURN_HAS_NO_DRAW",
    )
    await expect_error(
        h.stub.LayMelds(
            game_pb2.LayMeldsRequest(
                name=name,
                melds=[game_pb2.MeldCardIds(card_ids=[hand[c] for c in ("AS", "2S", "3S")])],
            ),
            metadata=md,
        ),
        fp,
        "OPENING_BELOW_THRESHOLD",
    )
    await expect_error(
        h.stub.LayMelds(
            game_pb2.LayMeldsRequest(
                name=name,
                melds=[game_pb2.MeldCardIds(card_ids=[hand[c] for c in ("AS", "3S", "2S")])],
            ),
            metadata=md,
        ),
        fp,
        "INVALID_MELD",
    )
    all_spades = [hand[c] for c in "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS".split()]
    await expect_error(
        h.stub.LayOff(
            game_pb2.LayOffRequest(name=name, card_id=hand["2H"], meld_index=0), metadata=md
        ),
        fp,
        "NOT_OPENED",
    )
    assert await version_of(h, name) == before
    opened = await h.stub.LayMelds(
        game_pb2.LayMeldsRequest(name=name, melds=[game_pb2.MeldCardIds(card_ids=all_spades)]),
        metadata=md,
    )
    assert opened.result.view.table[0].meld.value > 51
    await expect_error(
        h.stub.LayOff(
            game_pb2.LayOffRequest(
                name=name, card_id=hand["2H"], meld_index=0, end=types_pb2.END_LAST
            ),
            metadata=md,
        ),
        fp,
        "NO_LAYOFF_ON_OPENING_TURN",
    )
    await expect_error(
        h.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=all_spades[0]), metadata=md),
        fp,
        "CARD_NOT_IN_HAND",
    )
    after_open = await version_of(h, name)
    done = await h.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=hand["3H"]), metadata=md)
    assert done.result.view.version == after_open + 1
    await expect_error(
        h.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=hand["2H"]), metadata=md),
        fp,
        "NOT_YOUR_TURN",
    )
    other_view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md_other)).view
    await expect_error(
        h.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=other_view.hand[0].id), metadata=md_other
        ),
        fp,
        "MUST_DRAW_FIRST",
    )
    # Taking the discard is free on a player's first turn, but not to discard it back.
    taken = await h.stub.TakeDiscard(game_pb2.TakeDiscardRequest(name=name), metadata=md_other)
    assert len(taken.result.view.hand) == 15
    await expect_error(
        h.stub.Discard(game_pb2.DiscardRequest(name=name, card_id=hand["3H"]), metadata=md_other),
        fp,
        "CANNOT_DISCARD_TAKEN_CARD",
    )
    await expect_error(
        h.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md_other),
        fp,
        "ALREADY_DREW",
    )


async def test_full_games_with_people_and_bots_finish(harness: Harness) -> None:
    h = harness
    for variant in ("ramino51", "rami51", "rummy"):
        name, tokens = await seated_game(h, variant, 2, bots=1)
        for _ in range(3000):
            view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                break
            if view.HasField("turn") and view.turn < 2:
                await play_one(h, name, tokens[view.turn])
            else:
                await asyncio_sleep()
        assert view.status == game_pb2.GAME_STATUS_FINISHED, variant
        assert view.seed and view.winners


async def asyncio_sleep() -> None:
    import asyncio

    await asyncio.sleep(0.005)


async def test_a_move_result_lists_the_movers_next_legal_moves(harness: Harness) -> None:
    h = harness
    name, tokens = await seated_game(h, "ramino51", 2)
    checked = {"listed": 0, "passed": 0}
    for _ in range(400):
        view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            break
        seat = view.turn
        md = auth(tokens[seat])
        result = await play_one(h, name, tokens[seat])
        assert result is not None
        asked = await h.stub.GetLegalMoves(game_pb2.GetLegalMovesRequest(name=name), metadata=md)
        assert asked.version == result.view.version
        if result.view.HasField("turn") and result.view.turn == seat:
            checked["listed"] += 1
            assert list(result.legal_moves) == list(asked.moves) and asked.moves
            assert result.hint == asked.hint and result.HasField("hint")
        else:
            checked["passed"] += 1
            assert not result.legal_moves and not result.HasField("hint")
        seen = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md)).view
        # A move's answer leaves out what never changes in a game: the deck
        # and the variant's parameters (its name stays).
        del seen.deck[:]
        seen.variant.ClearField("parameters")
        seen.variant.ClearField("deck_size")
        assert result.view == seen
    assert checked["listed"] > 10 and checked["passed"] > 10, checked
