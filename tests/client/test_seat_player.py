"""The SDK's seat player (issue 35) against a real server on a loopback
socket: a move refused for having been overtaken (here made stale on
purpose: the same seat plays it first by a unary call) is told to the
policy with the options it was chosen from, and the player plays the match
to its end from the next options; the view handed to the policy at each
decision is the seat's at the options' version, equal to what GetGame
answers then (the discard pile's top, the card TakeDiscard takes,
included); a refusal that nothing overtook is raised."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

import pytest
from ramino_client import (
    AsyncClient,
    Client,
    Discard,
    GameStatus,
    GameView,
    LegalMoves,
    Move,
    MoveRejected,
    Seat,
    ServiceError,
    StaleVersion,
    play_seat,
    play_seat_async,
)

from .conftest import ThreadServer, choose

STALE_AT = (2, 9, 20)
"""The decisions (counted from 0) at which the first seat's move is made
stale on purpose."""


@pytest.fixture
def seeded() -> ThreadServer:
    s = ThreadServer(seed=20261203)
    s.start()
    yield s  # type: ignore[misc]
    s.close()


@dataclass
class Witness:
    """The first seat's policy, checking each decision against GetGame (by
    a Seat object of its own on the same token) and making the moves of
    ``STALE_AT`` stale by playing them first by a unary call."""

    seat: Seat
    decisions: int = 0
    mismatches: list[tuple[int, GameView | None, GameView]] = field(default_factory=list)
    draws_with_a_discard: int = 0
    staled: list[int] = field(default_factory=list)
    refused: list[tuple[ServiceError, LegalMoves]] = field(default_factory=list)

    def choose(self, legal: LegalMoves, view: GameView | None) -> Move:
        server = self.seat.view()
        if view != server or server.version != legal.version:
            self.mismatches.append((legal.version, view, server))
        if legal.draws and server.discard_top is not None:
            self.draws_with_a_discard += 1
        move = choose(legal)
        assert move is not None
        if self.decisions in STALE_AT:
            self.seat.play(move, expected_version=legal.version)
            self.staled.append(legal.version)
        self.decisions += 1
        return move

    def on_refused(self, error: ServiceError, legal: LegalMoves) -> None:
        self.refused.append((error, legal))

    def check(self) -> None:
        assert not self.mismatches, self.mismatches[:2]
        assert self.decisions > 40 and self.draws_with_a_discard > 20
        assert [legal.version for _, legal in self.refused] == self.staled
        assert len(self.staled) == len(STALE_AT)
        assert all(isinstance(e, StaleVersion) for e, _ in self.refused)
        assert {e.reason for e, _ in self.refused} == {"VERSION_MISMATCH"}


def plain(legal: LegalMoves, view: GameView | None) -> Move:
    move = choose(legal)
    assert move is not None
    return move


def test_a_blocking_player_told_of_its_stale_moves_plays_to_the_end_on_current_views(
    seeded: ThreadServer,
) -> None:
    with Client(seeded.address) as client, Client(seeded.address) as other:
        game = client.create_game("rummy", seats=["ann", "bo"])
        seats = [client.join(game.name, who) for who in ("ann", "bo")]
        witness = Witness(Seat(other, seats[0].name, seats[0].seat, seats[0].token))
        ends: list[GameView | None] = [None, None]
        failures: list[BaseException] = []

        def run(i: int) -> None:
            try:
                if i == 0:
                    ends[0] = play_seat(seats[0], witness.choose, witness.on_refused)
                else:
                    ends[1] = play_seat(seats[1], plain)
            except BaseException as failure:
                failures.append(failure)

        threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not failures, failures
        final = client.get_game(game.name)
        assert final.status == GameStatus.FINISHED
        assert all(v is not None for v in ends)
        witness.check()


async def test_an_asyncio_player_told_of_its_stale_moves_plays_to_the_end_on_current_views(
    seeded: ThreadServer,
) -> None:
    async with AsyncClient(seeded.address) as client:
        game = await client.create_game("rummy", seats=["ann", "bo"])
        seats = [await client.join(game.name, who) for who in ("ann", "bo")]
        with Client(seeded.address) as other:
            # The witness's calls block the loop: the server runs on a thread of its own.
            witness = Witness(Seat(other, seats[0].name, seats[0].seat, seats[0].token))
            ends = await asyncio.wait_for(
                asyncio.gather(
                    play_seat_async(seats[0], witness.choose, witness.on_refused),
                    play_seat_async(seats[1], plain),
                ),
                120,
            )
        assert (await client.get_game(game.name)).status == GameStatus.FINISHED
        assert all(v is not None for v in ends)
        witness.check()


def test_a_refusal_nothing_overtook_is_raised_by_the_player(seeded: ThreadServer) -> None:
    """A policy's illegal move (a discard before drawing) is no race: the
    game waits on the seat, so no new options would come; it is raised."""
    with Client(seeded.address) as client:
        game = client.create_game("rummy", seats=["ann", "bo"])
        seats = [client.join(game.name, who) for who in ("ann", "bo")]
        first = seats[seats[0].view().turn or 0]
        told: list[ServiceError] = []

        def illegal(legal: LegalMoves, view: GameView | None) -> Move:
            assert view is not None and legal.draws
            return Discard(view.hand[0].id)

        with pytest.raises(MoveRejected) as refused:
            play_seat(first, illegal, lambda error, legal: told.append(error))
        assert refused.value.reason not in ("NOT_YOUR_TURN", "MATCH_OVER")
        assert not told
        assert client.get_game(game.name).version == first.last_view.version  # type: ignore[union-attr]
