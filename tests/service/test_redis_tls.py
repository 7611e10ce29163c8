"""The Redis stores over TLS (``rediss://``, ``rediss+cluster://``) against
Debian's redis-server started with ``--tls-port``: the CA, a client
certificate, the server name, and URLs that are refused."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from ramino.store import GameSummary, open_store
from ramino.store.redis import RedisStore, StoreUrl
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.support.redis_server import TlsRedisServer
from tests.support.tls import TestCA


def prefix() -> str:
    return f"test-{uuid.uuid4().hex}:"


async def plays(url: str) -> list[str]:
    """What a store at ``url`` reads back of a game it created and appended to."""
    store = RedisStore(url, prefix=prefix())
    try:
        summary = GameSummary("g", "rummy", "waiting", 1.0, open_seats=1, seats=2)
        await store.create(summary, "e1")
        await store.append("g", 1, ["e2"], summary)
        return [e.data for e in await store.read("g")]
    finally:
        await store.close()


async def refused(url: str, *why: str) -> None:
    """A connection of the store at ``url`` fails, for one of the reasons ``why``.
    (The store itself would keep reconnecting for half a minute, so the
    test tries one connection of its pool, without retries.)"""
    store = RedisStore(url, prefix=prefix())
    try:
        connection = store.client.connection_pool.make_connection()
        connection.retry = Retry(NoBackoff(), 0)
        with pytest.raises(RedisConnectionError) as e:
            await connection.connect()
            await connection.send_command("PING")
            await connection.read_response()
        assert any(reason in str(e.value) for reason in why), str(e.value)
        await connection.disconnect()
    finally:
        await store.close()


async def test_rediss_with_the_ca_plays(redis_tls_server: TlsRedisServer) -> None:
    assert await plays(redis_tls_server.url) == ["e1", "e2"]


async def test_rediss_trusting_other_cas_is_refused(
    redis_tls_server: TlsRedisServer, tmp_path: Path
) -> None:
    other = TestCA(tmp_path / "other", name="Some other CA")
    url = f"rediss://127.0.0.1:{redis_tls_server.port}/0?tls_ca_file={other.ca_file}"
    await refused(url, "CERTIFICATE_VERIFY_FAILED")


async def test_plaintext_redis_on_a_tls_port_is_refused(redis_tls_server: TlsRedisServer) -> None:
    await refused(
        f"redis://127.0.0.1:{redis_tls_server.port}/0",
        "Connection closed by server",
        "Connection reset by peer",
    )


@pytest.fixture
def mutual_redis(tmp_path: Path):
    server = TlsRedisServer(tmp_path / "data", TestCA(tmp_path / "ca"), auth_clients="yes")
    server.start()
    yield server
    server.stop()


async def test_redis_requiring_client_certificates(mutual_redis: TlsRedisServer) -> None:
    port = mutual_redis.port
    # Under TLS 1.3 the client's handshake is done before the server asks for
    # its certificate: the refusal is the server's alert, or the connection
    # reset when the reset overtakes the alert. The same server then serves
    # the same client with a certificate.
    await refused(
        f"rediss://127.0.0.1:{port}/0?{mutual_redis.tls_options()}",
        "CERTIFICATE_REQUIRED",
        "Connection reset by peer",
        "Connection closed by server",
    )
    with_cert = mutual_redis.tls_options(client_certificate=True)
    assert await plays(f"rediss://127.0.0.1:{port}/0?{with_cert}") == ["e1", "e2"]


@pytest.fixture
def named_redis(tmp_path: Path):
    """A TLS Redis whose certificate names only ``redis.games.test``."""
    ca = TestCA(tmp_path / "ca")
    server = TlsRedisServer(tmp_path / "data", ca, hosts=("redis.games.test",))
    server.start()
    yield server
    server.stop()


async def test_server_name_checked_instead_of_the_address(named_redis: TlsRedisServer) -> None:
    url = f"rediss://127.0.0.1:{named_redis.port}/0?{named_redis.tls_options()}"
    await refused(url, "IP address mismatch")  # the certificate is not 127.0.0.1's
    await refused(url + "&tls_server_name=other.games.test", "Hostname mismatch")
    assert await plays(url + "&tls_server_name=redis.games.test") == ["e1", "e2"]


def test_tls_options_parsed_from_a_cluster_url(tmp_path: Path) -> None:
    ca = TestCA(tmp_path)
    cert = ca.issue("client", client=True)
    url = (
        "rediss+cluster://:pw@10.0.0.1:7000,10.0.0.2:7000?wait=1"
        f"&tls_ca_file={ca.ca_file}&tls_cert_file={cert.cert_file}&tls_key_file={cert.key_file}"
        "&tls_server_name=redis.games.test"
    )
    parsed = StoreUrl.parse(url)
    assert parsed.cluster and parsed.nodes == (("10.0.0.1", 7000), ("10.0.0.2", 7000))
    assert parsed.wait == 1 and parsed.password == "pw"
    assert parsed.tls is not None
    assert parsed.tls.ca_file == str(ca.ca_file)
    assert (parsed.tls.cert_file, parsed.tls.key_file) == (str(cert.cert_file), str(cert.key_file))
    assert parsed.tls.server_name == "redis.games.test"
    assert StoreUrl.parse("redis+cluster://10.0.0.1:7000").tls is None
    assert StoreUrl.parse("rediss+cluster://10.0.0.1:7000").tls is not None


def test_a_tls_redis_url_keeps_its_database_and_drops_its_own_options(tmp_path: Path) -> None:
    ca = TestCA(tmp_path)
    parsed = StoreUrl.parse(f"rediss://:pw@db.example:6380/3?tls_ca_file={ca.ca_file}&wait=1")
    assert parsed.redis_url == "redis://:pw@db.example:6380/3"
    assert parsed.tls is not None and parsed.tls.ca_file == str(ca.ca_file)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://127.0.0.1:6379/0?tls_ca_file={ca}", "tls_ca_file needs TLS: use rediss://"),
        ("redis+cluster://127.0.0.1:7000?tls_server_name=x", "tls_server_name needs TLS"),
        ("rediss://127.0.0.1:6379/0?tls_cert_file={ca}", "tls_cert_file and tls_key_file go"),
        ("rediss+cluster://127.0.0.1:7000?tls_key_file={ca}", "tls_cert_file and tls_key_file"),
        ("rediss://127.0.0.1:6379/0?tls_ca_file={missing}", "tls_ca_file: cannot read"),
        ("rediss://127.0.0.1:6379/0?tls_server_name=", "tls_server_name is empty"),
        ("rediss+cluster://127.0.0.1:7000?tls_sni=x", "unknown cluster store option 'tls_sni'"),
        ("rediss+cluster://?tls_ca_file={ca}", "rediss+cluster:// needs at least one HOST:PORT"),
    ],
)
def test_bad_tls_store_urls_refused(tmp_path: Path, url: str, message: str) -> None:
    ca = TestCA(tmp_path)
    with pytest.raises(ValueError) as e:
        open_store(url.format(ca=ca.ca_file, missing=tmp_path / "no-such.pem"))
    assert message in str(e.value)


async def test_rediss_cluster_with_wait_plays(redis_tls_cluster) -> None:
    """``wait=1`` runs WAIT on a plain client of the game's node: over TLS too."""
    assert await plays(redis_tls_cluster.url + "&wait=1") == ["e1", "e2"]


async def test_rediss_cluster_checks_the_server_name_on_every_node(redis_tls_cluster) -> None:
    named = redis_tls_cluster.url + "&tls_server_name=localhost"
    assert await plays(named + "&wait=1") == ["e1", "e2"]
    store = RedisStore(named, prefix=prefix())
    try:
        await store.ping()
        nodes = store.client.get_nodes()  # every node the slot map named
        assert len([n for n in nodes if n.server_type == "primary"]) == 3
        assert all(n.connection_class.server_name == "localhost" for n in nodes)
    finally:
        await store.close()
    wrong = RedisStore(redis_tls_cluster.url + "&tls_server_name=other.games.test", prefix=prefix())
    try:
        (node,) = list(wrong.client.nodes_manager.startup_nodes.values())[:1]
        connection = node.connection_class(**node.connection_kwargs)
        connection.retry = Retry(NoBackoff(), 0)
        with pytest.raises(RedisConnectionError) as e:
            await connection.connect()
        assert "Hostname mismatch" in str(e.value)
        await connection.disconnect()
    finally:
        await wrong.close()
