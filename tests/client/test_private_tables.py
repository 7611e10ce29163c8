"""The Python SDK's private and rated tables (issue 34): ``create_game(...,
private=True)`` gives an invite code, ``join_invite`` takes a seat with it
(or with its link), ``ramino play --invite CODE`` plays that seat; a code
that opens nothing is ``NotFound`` with its reason."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator

import pytest
from ramino.api.auth import PlayerVerifier
from ramino_client import (
    AsyncClient,
    BotLevel,
    Client,
    NotFound,
    invite_code_of,
    invite_link,
    play,
)
from rich.console import Console

from .conftest import ThreadServer
from .test_identity import PLAYER_SECRET, player_token


def test_a_friend_joins_a_private_game_by_its_link(server: ThreadServer) -> None:
    with Client(server.address) as ann, Client(server.address) as bob:
        game = ann.create_game("rummy", seats=["", ""], private=True)
        assert game.private and game.invite_code and game.spectators_disabled
        assert [g.name for g in ann.list_games()] == []
        link = invite_link("https://play.example/ramino/", game.invite_code)
        assert link == f"https://play.example/ramino/#invite={game.invite_code}"
        mine = ann.join_invite(game.invite_code, "Ann")
        theirs = bob.join_invite(link, "Bob")
        assert (mine.seat, theirs.seat) == (0, 1) and theirs.name == game.name
        # Dealt: the code opens nothing now.
        with pytest.raises(NotFound) as err:
            Client(server.address).join_invite(game.invite_code, "Cid")
        assert err.value.reason == "INVITE_NOT_VALID"


def test_a_wrong_code_is_not_found(server: ThreadServer) -> None:
    with Client(server.address) as eve:
        game = eve.create_game("rummy", seats=["", ""], private=True)
        assert game.invite_code is not None
        with pytest.raises(NotFound) as err:
            eve.join_invite(game.invite_code[:-1], "Eve")
        assert err.value.reason == "INVITE_NOT_VALID"
        public = eve.create_game("rummy", seats=["", ""])
        assert public.invite_code is None and not public.private


async def test_the_asyncio_client_joins_by_invite(server: ThreadServer) -> None:
    async with AsyncClient(server.address) as ann:
        game = await ann.create_game("rummy", seats=["", BotLevel.GREEDY], private=True)
        assert game.invite_code is not None
        seat = await ann.join_invite(game.invite_code, "Ann")
        assert seat.seat == 0 and seat.last_view.status.value == "playing"


def test_invite_codes_are_read_from_links() -> None:
    code = "0123456789abcdef.AbC-d_ef"
    for text in (
        code,
        f" {code} ",
        invite_link("https://x.example/", code),
        f"https://x.example/?invite={code}",
        f"https://x.example/?a=1&invite={code}&b=2",
    ):
        assert invite_code_of(text) == code


@pytest.fixture
def players_server() -> Iterator[ThreadServer]:
    s = ThreadServer(players=PlayerVerifier.from_secret(PLAYER_SECRET))
    s.start()
    yield s
    s.close()


def test_a_rated_private_game(players_server: ThreadServer) -> None:
    address = players_server.address
    with (
        Client(address, player_token=player_token("ann")) as ann,
        Client(address, player_token=player_token("bob")) as bob,
    ):
        game = ann.create_game(
            "rummy", seats=["", ""], private=True, rated=True, turn_timer_seconds=60
        )
        assert game.rated and game.private and game.invite_code is not None
        ann.join_invite(game.invite_code, "Ann")
        bob.join_invite(game.invite_code, "Bob")
        summary = ann.create_game(
            "rummy", seats=["", ""], rated=True, quick_play=True, turn_timer_seconds=60
        )
        assert summary.rated and summary.quick_play and not summary.private
        listed = [(g.name, g.rated, g.quick_play) for g in ann.list_games()]
        assert listed == [(summary.name, True, True)]


def test_ramino_play_invite_takes_the_seat(
    server: ThreadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Client(server.address) as ann:
        game = ann.create_game("rummy", seats=["", BotLevel.GREEDY], private=True)
    assert game.invite_code is not None
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    link = invite_link("http://localhost:8080/", game.invite_code)
    args = parser.parse_args(["--server", server.address, "--invite", link, "--name", "bob"])
    monkeypatch.setattr("sys.stdin", io.StringIO("q\ny\n"))
    monkeypatch.setenv("RAMINO_LANG", "en")  # the words asserted below
    out = io.StringIO()
    assert play.run(args, Console(file=out, width=100)) == 0
    text = out.getvalue()
    assert f"Joined {game.name} by its invite: you are seat 0." in text
    assert "You resign." in text and "Game over" in text
