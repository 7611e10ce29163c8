"""The SDK over TLS: ``credentials`` made with the CA that signed the
server's certificate (and a client certificate under mutual TLS), against a
server with certificates from a CA the tests make."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from ramino.api.tls import ServerTls
from ramino_client import (
    AsyncClient,
    BotLevel,
    Client,
    GameEnded,
    RetryPolicy,
    Unavailable,
    WatchItem,
)

from tests.support.tls import Issued, TestCA

from .conftest import ThreadServer, consecutive, play_turn

ONCE = RetryPolicy(attempts=1)


@pytest.fixture
def ca(tmp_path: Path) -> TestCA:
    return TestCA(tmp_path / "ca")


def start(ca: TestCA, mutual: bool) -> ThreadServer:
    leaf = ca.issue("server")
    client_ca = str(ca.ca_file) if mutual else None
    server = ThreadServer(tls=ServerTls(str(leaf.cert_file), str(leaf.key_file), client_ca))
    server.start()
    return server


@pytest.fixture
def tls_server(ca: TestCA) -> Iterator[ThreadServer]:
    server = start(ca, mutual=False)
    yield server
    server.close()


@pytest.fixture
def mtls_server(ca: TestCA) -> Iterator[ThreadServer]:
    server = start(ca, mutual=True)
    yield server
    server.close()


def credentials(ca: TestCA, client: Issued | None = None) -> grpc.ChannelCredentials:
    if client is None:
        return grpc.ssl_channel_credentials(root_certificates=ca.ca_pem)
    return grpc.ssl_channel_credentials(ca.ca_pem, client.key_pem, client.cert_pem)


def test_a_game_over_tls_with_the_ca(tls_server: ThreadServer, ca: TestCA) -> None:
    target = f"localhost:{tls_server.port}"
    with Client(target, credentials=credentials(ca)) as client:
        game = client.create_game("rummy", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        turns, deadline = 0, time.monotonic() + 30
        while turns < 3 and not seat.view().finished:
            assert time.monotonic() < deadline, "the bot answers each turn"
            turns += play_turn(seat)  # False while the bot plays
        view = seat.view()
    assert view.finished or view.version > 6


def test_plaintext_client_cannot_reach_a_tls_server(tls_server: ThreadServer) -> None:
    with Client(tls_server.address, retry=ONCE, timeout=5) as client:
        with pytest.raises(Unavailable):
            client.rules.validate_meld(["5H", "6H", "7H"], "rummy")


async def test_asyncio_client_watches_over_mutual_tls(
    mtls_server: ThreadServer, ca: TestCA
) -> None:
    ann = ca.issue("ann", client=True)
    target = f"localhost:{mtls_server.port}"
    async with AsyncClient(target, credentials=credentials(ca, ann)) as client:
        game = await client.create_game("rummy", seats=["ann", BotLevel.GREEDY])
        seat = await client.join(game.name, "ann")

        async def follow() -> list[WatchItem]:
            return [item async for item in seat.watch(after_version=0)]

        feed = asyncio.create_task(follow())
        await client.cancel_game(game.name, game.creator_token)
        items = await asyncio.wait_for(feed, timeout=30)
    versions = [item.version for item in items]
    assert versions[0] == 1 and consecutive(versions)
    assert isinstance(items[-1], GameEnded) and items[-1].reason == "cancelled"


async def test_mutual_tls_refuses_a_client_without_a_certificate(
    mtls_server: ThreadServer, ca: TestCA
) -> None:
    target = f"localhost:{mtls_server.port}"
    async with AsyncClient(target, credentials=credentials(ca), retry=ONCE, timeout=5) as client:
        with pytest.raises(Unavailable):
            await client.rules.validate_meld(["5H", "6H", "7H"], "rummy")


def test_mutual_tls_refuses_a_certificate_of_another_ca(
    mtls_server: ThreadServer, ca: TestCA, tmp_path: Path
) -> None:
    stranger = TestCA(tmp_path / "other", name="Some other CA").issue("mallory", client=True)
    target = f"localhost:{mtls_server.port}"
    with Client(target, credentials=credentials(ca, stranger), retry=ONCE, timeout=5) as client:
        with pytest.raises(Unavailable):
            client.rules.validate_meld(["5H", "6H", "7H"], "rummy")
