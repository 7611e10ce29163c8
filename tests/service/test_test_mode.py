"""``ramino serve --test-seed N``: the test mode of the conformance suite.

Off unless asked for; when on, it says so in the log, deals every game from
the seed N (two servers deal the same hands), and marks every game it
creates ``fixed_deal`` in the lobby, the view and the GameCreated event."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ramino import serve
from ramino.app.log import Header, SeatSpec
from ramino_client import Client

from tests.support.servers import ServerProcess


def serve_args(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    serve.add_parser(sub)
    return parser.parse_args(["serve", *flags])


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for s in started:
        s.stop()


def start(servers: list[ServerProcess], tmp_path: Path, *flags: str) -> ServerProcess:
    server = ServerProcess(
        "memory", tmp_path / f"server{len(servers)}.log", log_level="info", extra_args=flags
    )
    servers.append(server)
    server.start()
    return server


def deal(server: ServerProcess, variant: str = "ramino51") -> tuple[bool, list[list[str]], str]:
    """A two-seat game, both seats taken: its mark, each seat's hand, its seed hash."""
    with Client(server.address) as client:
        game = client.create_game(variant, seats=["", ""])
        seats = [client.join(game.name, name) for name in ("ann", "bob")]
        views = [seat.view() for seat in seats]
        assert all(v.fixed_deal == game.fixed_deal for v in views)
        return game.fixed_deal, [[c.code for c in v.hand] for v in views], game.seed_hash


def test_test_mode_is_off_by_default(servers: list[ServerProcess], tmp_path: Path) -> None:
    assert serve_args().test_seed is None
    server = start(servers, tmp_path)
    marks, hands, hashes = zip(*(deal(server) for _ in range(2)), strict=True)
    assert marks == (False, False)
    assert hashes[0] != hashes[1] and hands[0] != hands[1]
    assert "TEST MODE" not in server.log.read_text()


def test_test_mode_is_logged_and_marks_every_game(
    servers: list[ServerProcess], tmp_path: Path
) -> None:
    server = start(servers, tmp_path, "--test-seed", "13")
    lines = [json.loads(x) for x in server.log.read_text().splitlines() if x.startswith("{")]
    warned = [x for x in lines if x["event"].startswith("TEST MODE")]
    assert len(warned) == 1
    assert warned[0]["level"] == "warning" and warned[0]["test_seed"] == 13
    assert "fixed seed" in warned[0]["event"] and "not for real play" in warned[0]["event"]
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["", ""])
        assert game.fixed_deal
        assert all(g.fixed_deal for g in client.list_games())
        seat = client.join(game.name, "ann")
        assert seat.view().fixed_deal and client.get_game(game.name).fixed_deal
        first = next(iter(client.watch(game.name, after_version=0)))
        assert first.type == "GameCreated" and first.fixed_deal


def test_two_servers_with_the_same_test_seed_deal_the_same_hands(
    servers: list[ServerProcess], tmp_path: Path
) -> None:
    one, two = (start(servers, tmp_path, "--test-seed", "77") for _ in range(2))
    other = start(servers, tmp_path, "--test-seed", "78")
    for variant in ("ramino51", "gin"):
        a, b, c = deal(one, variant), deal(two, variant), deal(other, variant)
        assert a[0] and b[0] and c[0]
        assert a[1] == b[1] and len(a[1][0]) > 0
        assert a[2] == b[2]  # the same seed, so the same published hash
        assert c[1] != a[1]
    # Every game of a server gets the seed: its second game is dealt alike.
    assert deal(one)[1] == deal(two)[1] == deal(one)[1]


@pytest.mark.parametrize("bad", ["-1", "x13", str(2**256)])
def test_a_bad_test_seed_is_refused(bad: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "ramino", "serve", "--port", "0", "--test-seed", bad],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert "a test seed is an integer from 0 to 2**256 - 1" in run.stderr


def test_the_fixed_deal_mark_is_kept_in_the_log_header() -> None:
    header = Header("g1", "rummy", {}, (SeatSpec("", None),), 13, 0, 1.0, fixed_deal=True)
    assert Header.from_data(header.to_data()).fixed_deal
    fair = Header("g2", "rummy", {}, (SeatSpec("", None),), 13, 0, 1.0)
    assert "fixed_deal" not in fair.to_data()
    assert not Header.from_data(fair.to_data()).fixed_deal
