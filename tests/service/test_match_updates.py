"""What a ticket's updates tell besides its state: MATCHED names the
opponents with their ratings (a party's other members among them), and a
searching update the size of the ticket's queue and the wait expected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from ramino.app.quick.queues import MatchmakerConfig
from ramino.store import open_store
from ramino.v1 import game_pb2, match_pb2

from tests.service.conftest import auth
from tests.service.test_match_api import FAST, Quick, player, serving, submit, until_final
from tests.service.test_parties import party_of, watch


@pytest.fixture
async def wide() -> AsyncIterator[Quick]:
    """Quick play whose windows accept any rating at once."""
    async for q in serving(open_store("memory"), replace(FAST, window_base=60.0)):
        yield q


async def score(q: Quick, who: str) -> float:
    found = await q.match.GetRating(
        match_pb2.GetRatingRequest(variant="rummy"), metadata=player(who)
    )
    return found.rating.score


async def matched(q: Quick, *who: str, **fields: object) -> list[match_pb2.TicketUpdate]:
    streams = [submit(q, w, **fields) for w in who]
    return [updates[-1] for updates in await asyncio.gather(*map(until_final, streams))]


async def test_matched_names_the_opponents_with_their_ratings(wide: Quick) -> None:
    # A first rated game (Bob resigns) gives Ann and Bob scores apart.
    ann, bob = await matched(wide, "ann", "bob")
    assert [(o.seat, o.player, o.player_name, o.rating) for o in ann.opponents] == [
        (bob.seat, "bob", "Bob", 0.0)
    ]
    await wide.games.Resign(
        game_pb2.ResignRequest(name=bob.game), metadata=auth(bob.seat_token) + player("bob")
    )
    scores = {who: await score(wide, who) for who in ("ann", "bob")}
    assert scores["ann"] > scores["bob"]
    ann, bob = await matched(wide, "ann", "bob")
    [to_ann] = bob.opponents
    [to_bob] = ann.opponents
    assert (to_ann.player, to_ann.player_name, to_ann.seat) == ("ann", "Ann", ann.seat)
    assert to_ann.rating == pytest.approx(scores["ann"])
    assert to_bob.rating == pytest.approx(scores["bob"])


async def test_matched_names_a_partys_members_and_the_bots() -> None:
    config = replace(FAST, bots_after=0.0, settle=0.0)
    async for q in serving(open_store("memory"), config):
        party = await party_of(q, "ann", "bob")
        [ann] = await matched(q, "ann", party=party.name, min_seats=3, max_seats=3)
        bob = (await until_final(watch(q, "bob", ann.ticket)))[-1]
        assert [(o.player, o.bot) for o in ann.opponents] == [
            ("bob", game_pb2.BOT_LEVEL_UNSPECIFIED),
            ("", game_pb2.BOT_LEVEL_GREEDY),
        ]
        assert [o.player for o in bob.opponents] == ["ann", ""]
        assert [o.seat for o in bob.opponents] == [0, 2] and bob.seat == 1


async def test_a_searching_update_tells_the_queue_size_and_the_wait_expected() -> None:
    config = replace(FAST, settle=30.0, bots_after=60.0)
    async for q in serving(open_store("memory"), config):
        ann = submit(q, "ann", min_seats=2, max_seats=3)
        first = (await ann.read()).update  # type: ignore[attr-defined]
        # Alone: the table starts once bots may fill it.
        assert first.state == match_pb2.TICKET_STATE_SEARCHING
        assert first.queue_size == 1 and 30.0 < first.expected_wait <= 60.0
        bob = submit(q, "bob", min_seats=2, max_seats=3)
        second = (await bob.read()).update  # type: ignore[attr-defined]
        # Two of a smallest table of two: it starts once the settle time is over.
        assert second.queue_size == 2 and 0.0 < second.expected_wait <= 30.0
        # A queue without bots, alone: unknown.
        cid = submit(q, "cid", min_seats=2, max_seats=3, without_bots=True)
        third = (await cid.read()).update  # type: ignore[attr-defined]
        assert third.queue_size == 1 and third.expected_wait == 0.0
        for s in (ann, bob, cid):
            s.cancel()  # type: ignore[attr-defined]


async def test_a_queue_uses_its_own_knobs_over_the_matchmakers() -> None:
    """Rated rummy starts a table at once, with its own window and turn
    timer; unrated rummy keeps the matchmaker's settle time."""
    knobs = {"settle": 0, "turn_timer_seconds": 7, "window_base": 12}
    config = replace(FAST, settle=100.0, queues={"rummy/rated": knobs})
    async for q in serving(open_store("memory"), config):
        waits, firsts = [], []
        for who in ("cid", "dan"):  # one after the other: Dan's sees Cid's
            waits.append(submit(q, who, rated=False, max_seats=3))
            firsts.append((await waits[-1].read()).update)  # type: ignore[attr-defined]
        assert firsts[0].rating_window == 3.0 and 0 < firsts[1].expected_wait <= 100.0
        ann, bob = await matched(q, "ann", "bob", max_seats=3)
        assert ann.game == bob.game
        view = await q.games.GetGame(
            game_pb2.GetGameRequest(name=ann.game), metadata=auth(ann.seat_token) + player("ann")
        )
        assert view.view.turn_timer_seconds == 7
        eve = submit(q, "eve", min_seats=3, max_seats=3)
        assert (await eve.read()).update.rating_window == 12.0  # type: ignore[attr-defined]
        for s in (*waits, eve):
            s.cancel()  # type: ignore[attr-defined]


def test_a_queues_knobs_are_its_variants_then_its_ratings() -> None:
    config = MatchmakerConfig(
        settle=5.0,
        queues={"gin": {"settle": 1, "bots_after": 0}, "gin/rated": {"settle": 2}},
    )
    rated, unrated = config.for_queue("gin", True), config.for_queue("gin", False)
    assert (rated.settle, rated.bots_after) == (2.0, None)  # bots_after 0: never
    assert (unrated.settle, unrated.bots_after) == (1.0, None)
    assert config.for_queue("rummy", True) is config
