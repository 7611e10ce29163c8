"""The Python SDK's quick play against ``ramino serve`` (a process that knows
players): two players' tickets meet, each gets its own seat; the loser's and
the winner's ratings, the leaderboard, the history and the game's record."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import jwt
import pytest
from ramino_client import AsyncClient, Client, InvalidArgument, NotFound, Seat, quick
from ramino_client.quick import CANCELLED, MATCHED, SEARCHING

from tests.client.conftest import PATIENT, ProcessServer

PLAYER_SECRET = b"sdk-tests-player-token-secret-32-bytes!!"


def token(player: str) -> str:
    now = int(time.time())
    return jwt.encode({"sub": player, "iat": now, "exp": now + 600}, PLAYER_SECRET, "HS256")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ProcessServer]:
    secret = tmp_path / "player-secret"
    secret.write_bytes(PLAYER_SECRET)
    server = ProcessServer(
        "memory", tmp_path / "serve.log", extra=["--player-token-secret-file", str(secret)]
    )
    server.start()
    with Client(server.address, player_token=token("probe"), retry=PATIENT) as probe:
        probe.quick.rating("rummy")  # up once it answers
    yield server
    server.stop()


async def test_two_players_meet_and_are_rated(served: ProcessServer) -> None:
    async def play(player: str) -> tuple[list[str], object]:
        async with AsyncClient(served.address, player_token=token(player)) as client:
            states = []
            seat = None
            async for update in client.quick.submit("rummy", player.title(), min_seats=2):
                states.append(update.state)
                if update.state == SEARCHING:
                    assert update.queue_size >= 1
                if update.state == MATCHED:
                    seat = await client.seat(update.game, update.seat_token)
                    [other] = update.opponents
                    assert other.player in {"ann", "bob"} - {player} and other.bot is None
                    assert other.player_name == other.player.title() and other.rating == 0.0
            assert seat is not None
            return states, (seat.name, seat.seat, seat.token)

    (ann_states, ann), (bob_states, bob) = await asyncio.gather(play("ann"), play("bob"))
    assert ann_states[0] == SEARCHING and ann_states[-1] == MATCHED
    assert bob_states[-1] == MATCHED
    assert ann[0] == bob[0] and {ann[1], bob[1]} == {0, 1}  # type: ignore[index]
    with Client(served.address, player_token=token("bob")) as client:
        seat = client.seat(bob[0], bob[2])  # type: ignore[index]
        seat.resign()
        rating, rank = client.quick.rating("rummy")
        assert rank == 2 and rating.games == 1 and rating.mu < 25
        page = client.quick.leaderboard("rummy", page_size=10)
        assert [e.player for e in page.entries] == ["ann", "bob"] and page.caller_rank == 2
        (game,) = client.quick.games()
        assert game.game == bob[0] and game.rated  # type: ignore[index]
        assert game.rating_before is not None and game.rating_after is not None
        record = client.quick.record(game.game)
        assert hashlib.sha256(record.seed.encode()).hexdigest() == record.seed_hash


def test_a_ticket_cancelled_and_another_players_ticket(served: ProcessServer) -> None:
    with Client(served.address, player_token=token("ann")) as ann:
        updates = ann.quick.submit("rummy", "Ann", min_seats=3, max_seats=3)
        first = next(updates)
        assert first.state == SEARCHING
        with Client(served.address, player_token=token("mallory")) as mallory:
            with pytest.raises(NotFound):
                mallory.quick.cancel(first.ticket)
        assert ann.quick.cancel(first.ticket).state == CANCELLED
        assert [u.state for u in updates][-1] == CANCELLED


def test_ramino_play_quick_takes_the_seat_it_finds(served: ProcessServer) -> None:
    import argparse
    import io
    import threading

    from ramino_client import play
    from rich.console import Console

    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    args = parser.parse_args(
        ["--server", served.address, "--quick", "--seats", "2-2", "--variant", "rummy"]
    )
    args.player_token = token("cid")
    out = io.StringIO()
    found: list[object] = []

    def bob() -> None:
        with Client(served.address, player_token=token("dan")) as client:
            found.append(client.quick.play("rummy", "Dan", min_seats=2, max_seats=2))

    other = threading.Thread(target=bob)
    other.start()
    with Client(served.address, player_token=args.player_token) as client:
        seat = play._quick_seat(client, args, "Cid", Console(file=out))
        assert seat.last_view.seat == seat.seat
    other.join(timeout=30)
    assert found and "Searching for a rummy table of 2 to 2" in out.getvalue()
    assert "waiting" in out.getvalue()
    assert "you are seat" in out.getvalue() and "against Dan (0.0)" in out.getvalue()
    args.player_token = None
    with Client(served.address) as anonymous, pytest.raises(SystemExit, match="player token"):
        play._quick_seat(anonymous, args, "Cid", Console(file=out))


def served_on_file(tmp_path: Path) -> ProcessServer:
    """A server whose tickets outlive it (sqlite), with a grace long enough
    for a restart."""
    secret = tmp_path / "player-secret"
    secret.write_bytes(PLAYER_SECRET)
    return ProcessServer(
        f"sqlite:{tmp_path / 'games.db'}",
        tmp_path / "serve.log",
        extra=["--player-token-secret-file", str(secret), "--quick-ticket-grace", "60"],
    )


async def live_tickets(address: str, player: str) -> tuple[str, ...]:
    async with AsyncClient(address, player_token=token(player)) as client:
        return tuple(t.ticket for t in await client.quick.tickets())


async def test_play_resumes_its_ticket_after_the_server_goes_away(tmp_path: Path) -> None:
    """Ann's stream breaks (her server is killed, then started again): her
    play submits again under its request id, follows the same ticket, and is
    seated with Bob; she never holds two tickets."""
    server = served_on_file(tmp_path)
    server.start()
    try:
        with Client(server.address, player_token=token("probe"), retry=PATIENT) as probe:
            probe.quick.rating("rummy")
        async with AsyncClient(server.address, player_token=token("ann")) as ann:
            playing = asyncio.create_task(ann.quick.play("rummy", "Ann", min_seats=2))
            listed: tuple[str, ...] = ()
            for _ in range(500):
                listed = await live_tickets(server.address, "ann")
                if listed:
                    break
                await asyncio.sleep(0.02)
            (first,) = listed
            server.kill()
            server.start()
            with Client(server.address, player_token=token("probe"), retry=PATIENT) as probe:
                probe.quick.rating("rummy")
            assert await live_tickets(server.address, "ann") == (first,)
            async with AsyncClient(server.address, player_token=token("bob")) as bob:
                bob_seat = await bob.quick.play("rummy", "Bob", min_seats=2)
            ann_seat = await asyncio.wait_for(playing, 60)
            assert ann_seat.name == bob_seat.name and {ann_seat.seat, bob_seat.seat} == {0, 1}
            assert await live_tickets(server.address, "ann") == ()
    finally:
        server.stop()


def test_play_never_raises_without_its_ticket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never comes back: play gives up after its resumes with
    TicketNotSeated, naming the ticket and its request id, which a later
    play (or watch, or cancel) takes up."""
    monkeypatch.setattr(quick, "RESUMES", 2)
    server = served_on_file(tmp_path)
    server.start()
    try:
        with Client(server.address, player_token=token("probe"), retry=PATIENT) as probe:
            probe.quick.rating("rummy")
        with Client(server.address, player_token=token("ann")) as ann:
            updates = ann.quick.submit("rummy", "Ann", min_seats=3, request_id="press-1")
            first = next(updates)
            updates.close()

            def kill_soon() -> None:
                time.sleep(0.5)
                server.kill()

            killer = threading.Thread(target=kill_soon)
            killer.start()
            with pytest.raises(quick.TicketNotSeated) as err:
                ann.quick.play("rummy", "Ann", min_seats=3, request_id="press-1")
            killer.join()
            assert err.value.ticket == first.ticket and err.value.request_id == "press-1"
            assert err.value.state == ""
        server.start()
        with Client(server.address, player_token=token("ann"), retry=PATIENT) as ann:
            assert [t.ticket for t in ann.quick.tickets()] == [first.ticket]
            assert ann.quick.cancel(err.value.ticket).state == CANCELLED
    finally:
        server.stop()


def test_a_party_plays_together_through_the_sdk(served: ProcessServer) -> None:
    with (
        Client(served.address, player_token=token("ann")) as ann,
        Client(served.address, player_token=token("bob")) as bob,
    ):
        party = ann.quick.create_party("Ann")
        invitation = ann.quick.invite_to_party(party.name, "bob")
        assert invitation.player == "bob" and invitation.party == party.name
        joined = bob.quick.join_party(party.name, invitation.invitation, "Bob")
        assert [m.player for m in joined.members] == ["bob"]
        found: list[Seat] = []
        member = threading.Thread(target=lambda: found.append(bob.quick.party_play(party.name)))
        member.start()
        seat = ann.quick.play("rummy", "Ann", min_seats=2, max_seats=2, party=party.name)
        member.join(timeout=30)
        [bob_seat] = found
        assert bob_seat.name == seat.name and {seat.seat, bob_seat.seat} == {0, 1}
        assert ann.quick.get_party(party.name).ticket
        # The party's last game, once finished, is not taken again.
        bob_seat.resign()
        with pytest.raises(quick.TicketNotSeated):
            bob.quick.party_play(party.name, timeout=1.0)
        bob.quick.leave_party(party.name)
        assert ann.quick.get_party(party.name).members == ()


def test_ramino_play_quick_party_leads_and_joins(served: ProcessServer) -> None:
    import argparse
    import io
    import re

    from ramino_client import play
    from rich.console import Console

    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    common = ["--server", served.address, "--quick", "--seats", "2-2", "--variant", "rummy"]
    lead = parser.parse_args([*common, "--party", "--with", "dan"])
    lead.player_token = token("cid")
    said = io.StringIO()
    found: list[Seat] = []

    def dan() -> None:
        for _ in range(300):
            invited = re.search(r"--party (\S+) --invitation (\S+)", said.getvalue())
            if invited:
                break
            time.sleep(0.05)
        assert invited
        args = parser.parse_args([*common, "--party", invited[1], "--invitation", invited[2]])
        args.player_token = token("dan")
        with Client(served.address, player_token=args.player_token) as client:
            found.append(play._quick_seat(client, args, "Dan", Console(file=io.StringIO())))

    member = threading.Thread(target=dan)
    member.start()
    with Client(served.address, player_token=lead.player_token) as client:
        seat = play._quick_seat(client, lead, "Cid", Console(file=said, width=400))
    member.join(timeout=30)
    [dan_seat] = found
    assert dan_seat.name == seat.name and {seat.seat, dan_seat.seat} == {0, 1}
    assert "Dan joined." in said.getvalue()
    lonely = parser.parse_args([*common, "--party"])
    lonely.player_token = token("cid")
    with Client(served.address) as client, pytest.raises(SystemExit, match="--with"):
        play._quick_seat(client, lonely, "Cid", Console(file=said))


async def test_the_matching_grammar_through_the_sdk(served: ProcessServer) -> None:
    eu_only = quick.MatchClause("must", "region", any_of=("eu",))
    low_ping = quick.MatchClause("must", "ping", max=80.0)

    async def play(player: str, **options: object) -> str:
        async with AsyncClient(served.address, player_token=token(player)) as client:
            async for update in client.quick.submit("rummy", player.title(), **options):  # type: ignore[arg-type]
                if update.final:
                    return update.game
        return ""

    ann, bob = await asyncio.gather(
        play("ann", clauses=[eu_only, low_ping], rating_band=10.0),
        play("bob", properties={"region": "eu"}, numeric_properties={"ping": 20.0}),
    )
    assert ann and ann == bob
    with Client(served.address, player_token=token("cid")) as cid:
        with pytest.raises(InvalidArgument) as err:
            next(cid.quick.submit("rummy", "Cid", clauses=[quick.MatchClause("must", "ping")]))
        assert err.value.reason == "BAD_MATCH_CLAUSE" and "clause 0" in err.value.message
