"""Whole games of every variant played to the end through the SDK, bots on
some seats, people on the others driven by the server's legal moves."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time

import pytest
from ramino_client import (
    AcceptLayout,
    AsyncClient,
    AsyncSeat,
    BotLevel,
    Client,
    DrewFromStock,
    Event,
    GameStatus,
    MatchEnded,
    Move,
    MoveRejected,
    PassUpcard,
    RoundEnded,
    RoundStarted,
    Seat,
    SeatJoined,
    Snapshot,
    StaleVersion,
    TurnPhase,
    WatchItem,
)

from .conftest import ThreadServer, choose, consecutive, play_until_finished

# rummy plays to 150 points by default: two rounds keep the test short and
# still cross a round boundary.
OVERRIDES = {"ramino51": {}, "rami51": {}, "rummy": {"target_score": 0, "max_rounds": 2}}


@pytest.mark.parametrize("variant", sorted(OVERRIDES))
def test_one_person_against_two_bots(server: ThreadServer, variant: str) -> None:
    with Client(server.address) as client:
        game = client.create_game(
            variant,
            seats=["ann", BotLevel.GREEDY, BotLevel.RANDOM],
            overrides=OVERRIDES[variant],
        )
        assert game.status is GameStatus.WAITING and game.open_seats == 1
        assert [s.bot for s in game.seats] == [None, BotLevel.GREEDY, BotLevel.RANDOM]
        seat = client.join(game.name, "ann")
        assert seat.seat == 0 and seat.last_view is not None
        assert seat.last_view.status is GameStatus.PLAYING and seat.last_view.hand

        watched: list[WatchItem] = []
        watch = client.watch(game.name)
        follower = threading.Thread(target=lambda: watched.extend(watch))
        follower.start()
        play_until_finished([seat])
        follower.join(timeout=10)
        assert not follower.is_alive(), "the watch did not end with the match"

        view = seat.view()
    assert view.finished and view.winners and view.turn is None
    assert view.phase is TurnPhase.NONE
    assert hashlib.sha256(view.seed.encode()).hexdigest() == view.seed_hash
    assert len(view.rounds) == (2 if variant == "rummy" else 1)
    # A spectator's feed: a snapshot, then every event once, in order, to the end.
    assert isinstance(watched[0], Snapshot) and watched[0].view.seat is None
    assert isinstance(watched[-1], MatchEnded) and watched[-1].version == view.version
    assert consecutive([i.version for i in watched])
    ended = [i for i in watched if isinstance(i, RoundEnded)]
    assert [e.scores for e in ended] == [r.scores for r in view.rounds[-len(ended) :]]
    assert all(i.card is None for i in watched if isinstance(i, DrewFromStock))


async def _drive(seat: AsyncSeat) -> list[WatchItem]:
    """Plays ``seat`` whenever its watch shows something new; returns the feed."""
    feed: list[WatchItem] = []
    async with seat.watch() as watch:
        async for item in watch:
            feed.append(item)
            legal = await seat.legal_moves()
            while (move := choose(legal)) is not None:
                try:
                    result = await seat.play(move, expected_version=legal.version)
                except StaleVersion:
                    legal = await seat.legal_moves()
                    continue
                # While the turn is still this seat's, the result lists its next moves.
                assert (result.legal_moves is not None) == result.view.my_turn
                if result.legal_moves is not None:
                    assert result.legal_moves.version == result.version
                    legal = result.legal_moves
                else:
                    legal = await seat.legal_moves()
    return feed


@pytest.mark.parametrize("variant", sorted(OVERRIDES))
async def test_two_people_and_a_bot_with_asyncio(server: ThreadServer, variant: str) -> None:
    async with AsyncClient(server.address) as client:
        game = await client.create_game(
            variant, seats=["ann", "bob", BotLevel.GREEDY], overrides=OVERRIDES[variant]
        )
        ann = await client.join(game.name, "ann", seat=0)
        bob = await client.join(game.name, "bob")
        assert (ann.seat, bob.seat) == (0, 1)
        feeds = await asyncio.wait_for(asyncio.gather(_drive(ann), _drive(bob)), timeout=60)
        view = await client.get_game(game.name)
        lobby = [g async for g in client.list_games(status=GameStatus.FINISHED)]
    assert view.finished and view.seat is None and not view.hand
    assert game.name in {g.name for g in lobby}
    for seat, feed in zip((ann, bob), feeds, strict=True):
        assert isinstance(feed[0], Snapshot) and feed[0].view.seat == seat.seat
        assert isinstance(feed[-1], MatchEnded)
        assert consecutive([i.version for i in feed])
        events = [i for i in feed if isinstance(i, Event)]
        for e in events:
            if isinstance(e, RoundStarted):
                assert e.hand is not None and len(e.hand) == e.hand_sizes[seat.seat]
            if isinstance(e, DrewFromStock):
                assert (e.card is not None) == (e.seat == seat.seat)


def test_joining_an_open_game_from_the_lobby(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("rami51", seats=["", "", BotLevel.RANDOM])
        open_games = list(client.list_games(open_seats_only=True, variant="rami51"))
        assert [g.name for g in open_games] == [game.name]
        first = client.join(game.game_id, "ann")
        assert first.last_view is not None and first.last_view.status is GameStatus.WAITING
        watch = first.watch(after_version=first.last_view.version)
        second = client.join(game.name, "bob")
        joined = next(watch)
        assert isinstance(joined, SeatJoined) and joined.player_name == "bob"
        assert joined.seat == second.seat == 1
        dealt = next(watch)
        assert isinstance(dealt, RoundStarted) and dealt.hand is not None
        watch.cancel()
        assert list(watch) == []
        assert not list(client.list_games(open_seats_only=True))
        again = client.seat(game.name, second.token)
        assert again.seat == 1 and again.last_view is not None and again.last_view.hand
        play_until_finished([first, second])


def test_the_lobby_is_read_page_after_page(server: ThreadServer) -> None:
    with Client(server.address) as client:
        made = [client.create_game("rummy", seats=["", BotLevel.GREEDY]).name for _ in range(5)]
        client.create_game("rami51", seats=["", BotLevel.GREEDY])
        listed = [g.name for g in client.list_games(variant="rummy", page_size=2)]
    assert listed == made


async def test_the_named_move_methods_of_both_seat_flavours(server: ThreadServer) -> None:
    """Each flavour's ``draw_from_stock`` and ``discard`` (shared by both)
    play the move and answer its result: a value, or a coroutine to await."""
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", "bob"])
        ann = client.join(game.name, "ann", seat=0)
        token = client.join(game.name, "bob", seat=1).token
        assert repr(ann) == f"Seat({game.name!r}, seat=0)"
        async with AsyncClient(server.address) as aclient:
            seats: dict[int, Seat | AsyncSeat] = {0: ann, 1: await aclient.seat(game.name, token)}
            assert repr(seats[1]) == f"AsyncSeat({game.name!r}, seat=1)"
            start = view = ann.view()
            for _ in range(2):
                assert view.turn is not None
                seat = seats[view.turn]
                if isinstance(seat, AsyncSeat):
                    drew = await seat.draw_from_stock(expected_version=view.version)
                    done = await seat.discard(drew.view.hand[0])
                else:
                    drew = seat.draw_from_stock(expected_version=view.version)
                    done = seat.discard(drew.view.hand[0])
                assert drew.version == view.version + 1 and len(drew.view.hand) == 11
                assert done.view.discard_pile[-1] == drew.view.hand[0]
                assert seat.last_view == done.view
                view = done.view
            assert {seats[0].seat, seats[1].seat} == {0, 1}
        assert ann.view().version == start.version + 4


def test_gin_through_the_sdk_knock_defend_and_accept(server: ThreadServer) -> None:
    # Two people play gin through the server: each knocks with the hint's
    # best knock as soon as it has one, passes the first upcard, and as the
    # defender lays off, melds and accepts, all from the server's legal moves.
    seen: set[str] = set()
    with Client(server.address) as client:
        game = client.create_game("gin", seats=["ann", "bob"], overrides={"target_score": 60})
        seats = [client.join(game.name, "ann"), client.join(game.name, "bob")]
        end = time.monotonic() + 60
        while not seats[0].view().finished:
            assert time.monotonic() < end, "the gin match did not finish in time"
            for seat in seats:
                legal = seat.legal_moves()
                if not legal.moves:
                    continue
                hint = legal.hint
                move: Move
                if hint is not None and hint.best_knock is not None:
                    move = hint.best_knock
                    assert move in legal.knocks and move == legal.knocks[0]
                    seen.add("knock")
                elif PassUpcard() in legal.moves:
                    move = PassUpcard()
                    seen.add("pass")
                elif legal.lay_offs or legal.melds:
                    move = (legal.lay_offs or legal.melds)[0]
                    seen.add("defend")
                elif AcceptLayout() in legal.moves:
                    move = AcceptLayout()
                    view = seat.view()
                    assert view.phase is TurnPhase.LAYOFF and view.knocker not in (None, seat.seat)
                    seen.add("accept")
                else:
                    move = choose(legal)  # type: ignore[assignment]
                seat.play(move, expected_version=legal.version)
        view = seats[0].view()
    assert view.winners and max(view.seats[w].total for w in view.winners) >= 60
    assert {r.ending for r in view.rounds} <= {"knock", "gin", "big_gin", "undercut", "drawn"}
    assert {"knock", "pass", "accept"} <= seen


def test_gin_moves_in_another_variant_are_refused_with_a_reason(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        for attempt in (seat.pass_upcard, seat.accept_layout):
            with pytest.raises(MoveRejected) as e:
                attempt()
            assert e.value.reason == "NOT_KNOCKING_PLAY"
        with pytest.raises(MoveRejected) as e:
            seat.knock(seat.view().hand[0].id, [])
        assert e.value.reason == "NOT_KNOCKING_PLAY"
