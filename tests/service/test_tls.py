"""The server over TLS and mutual TLS, with certificates from a CA the tests
make, reloaded from their files without a restart."""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import ssl
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.api.server import RunningServer, create_server
from ramino.api.tls import ServerTls
from ramino.cli import build_parser
from ramino.serve import server_tls
from ramino.v1 import rules_pb2, rules_pb2_grpc

from tests.support.servers import ServerProcess
from tests.support.tls import Issued, TestCA, serial_of, swap_like_kubernetes


@pytest.fixture
def ca(tmp_path: Path) -> TestCA:
    return TestCA(tmp_path / "ca")


def handshake(port: int, ca: TestCA, pids: Sequence[int] = ()) -> tuple[int, int | None]:
    """The serial of the certificate the server shows a new connection, and
    which of the processes ``pids`` accepted that connection (from /proc)."""
    context = ssl.create_default_context(cafile=str(ca.ca_file))
    context.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            der = tls.getpeercert(binary_form=True)
            owner = accepting_process(port, tls.getsockname()[1], pids) if pids else None
    assert der is not None
    return serial_of(ssl.DER_cert_to_PEM_cert(der).encode()), owner


def served_serial(port: int, ca: TestCA) -> int:
    return handshake(port, ca)[0]


def accepting_process(server_port: int, client_port: int, pids: Sequence[int]) -> int:
    """The process among ``pids`` holding the server's end of the loopback
    connection from ``client_port``."""
    inode = None
    lines = [
        line
        for table in ("tcp", "tcp6")  # gRPC listens on v4-mapped IPv6 sockets
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]
    ]
    for line in lines:
        fields = line.split()
        local, remote = fields[1].split(":")[1], fields[2].split(":")[1]
        if int(local, 16) == server_port and int(remote, 16) == client_port:
            inode = fields[9]
    assert inode is not None, "the server's end of the connection is in /proc/net/tcp*"
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
    raise AssertionError(f"no worker of {pids} holds socket {inode}")


def children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [int(c) for t in tasks for c in (t / "children").read_text().split()]


def credentials(ca: TestCA, client: Issued | None = None) -> grpc.ChannelCredentials:
    if client is None:
        return grpc.ssl_channel_credentials(root_certificates=ca.ca_pem)
    return grpc.ssl_channel_credentials(ca.ca_pem, client.key_pem, client.cert_pem)


async def check(channel: grpc.aio.Channel) -> int:
    """A health check's status; raises the RPC's error."""
    stub = health_pb2_grpc.HealthStub(channel)
    reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
    return int(reply.status)


@pytest.fixture
async def tls_server(ca: TestCA) -> AsyncIterator[tuple[RunningServer, Issued]]:
    leaf = ca.issue("server")
    running = await create_server(
        "127.0.0.1:0", tls=ServerTls(str(leaf.cert_file), str(leaf.key_file))
    )
    yield running, leaf
    await running.stop(0)


async def test_plaintext_client_refused_on_tls_port(tls_server) -> None:
    running, _ = tls_server
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await check(channel)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_tls_client_trusting_the_ca_is_served(tls_server, ca: TestCA) -> None:
    running, leaf = tls_server
    target = f"localhost:{running.port}"
    async with grpc.aio.secure_channel(target, credentials(ca)) as channel:
        assert await check(channel) == health_pb2.HealthCheckResponse.SERVING
        rules = rules_pb2_grpc.RulesServiceStub(channel)
        reply = await rules.ValidateMeld(
            rules_pb2.ValidateMeldRequest(variant="ramino51", cards=["5H", "6H", "7H"]), timeout=5
        )
        assert reply.valid
    assert served_serial(running.port, ca) == leaf.serial


async def test_client_trusting_another_ca_is_refused(tls_server, tmp_path: Path) -> None:
    running, _ = tls_server
    other = TestCA(tmp_path / "other", name="Some other CA")
    async with grpc.aio.secure_channel(f"localhost:{running.port}", credentials(other)) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await check(channel)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE


@pytest.fixture
async def mtls_server(ca: TestCA) -> AsyncIterator[RunningServer]:
    leaf = ca.issue("server")
    running = await create_server(
        "127.0.0.1:0",
        tls=ServerTls(str(leaf.cert_file), str(leaf.key_file), str(ca.ca_file)),
    )
    yield running
    await running.stop(0)


async def test_mutual_tls_refuses_a_client_without_a_certificate(
    mtls_server: RunningServer, ca: TestCA
) -> None:
    target = f"localhost:{mtls_server.port}"
    async with grpc.aio.secure_channel(target, credentials(ca)) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await check(channel)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_mutual_tls_refuses_a_client_certificate_of_another_ca(
    mtls_server: RunningServer, ca: TestCA, tmp_path: Path
) -> None:
    stranger = TestCA(tmp_path / "other", name="Some other CA").issue("mallory", client=True)
    target = f"localhost:{mtls_server.port}"
    async with grpc.aio.secure_channel(target, credentials(ca, stranger)) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await check(channel)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_mutual_tls_serves_a_client_certificate_of_the_ca(
    mtls_server: RunningServer, ca: TestCA
) -> None:
    client = ca.issue("ann", client=True)
    target = f"localhost:{mtls_server.port}"
    async with grpc.aio.secure_channel(target, credentials(ca, client)) as channel:
        assert await check(channel) == health_pb2.HealthCheckResponse.SERVING


async def test_renewed_certificate_served_to_a_new_connection(ca: TestCA) -> None:
    first = ca.issue("server")
    tls = ServerTls(str(first.cert_file), str(first.key_file))
    running = await create_server("127.0.0.1:0", tls=tls)
    try:
        target = f"localhost:{running.port}"
        async with grpc.aio.secure_channel(target, credentials(ca)) as kept:
            assert await check(kept) == health_pb2.HealthCheckResponse.SERVING
            assert served_serial(running.port, ca) == first.serial
            renewed = ca.issue("server")  # the same files, rewritten in place
            assert renewed.serial != first.serial
            assert served_serial(running.port, ca) == renewed.serial
            # the connection opened before the renewal goes on
            assert await check(kept) == health_pb2.HealthCheckResponse.SERVING
        async with grpc.aio.secure_channel(target, credentials(ca)) as fresh:
            assert await check(fresh) == health_pb2.HealthCheckResponse.SERVING
    finally:
        await running.stop(0)


async def test_renewal_through_a_kubernetes_symlink_swap(ca: TestCA, tmp_path: Path) -> None:
    mount = tmp_path / "mount"
    first = ca.issue("gen1", folder=tmp_path / "issued")
    swap_like_kubernetes(mount, first, "2026_12_01_first")
    running = await create_server(
        "127.0.0.1:0", tls=ServerTls(str(mount / "tls.crt"), str(mount / "tls.key"))
    )
    try:
        assert served_serial(running.port, ca) == first.serial
        second = ca.issue("gen2", folder=tmp_path / "issued")
        swap_like_kubernetes(mount, second, "2026_12_01_second")
        assert served_serial(running.port, ca) == second.serial
    finally:
        await running.stop(0)


async def test_renewal_caught_half_written_keeps_the_served_certificate(
    ca: TestCA, tmp_path: Path
) -> None:
    first = ca.issue("server")
    running = await create_server(
        "127.0.0.1:0", tls=ServerTls(str(first.cert_file), str(first.key_file))
    )
    try:
        other = ca.issue("other")
        first.cert_file.write_bytes(other.cert_pem)  # the new certificate, the old key
        assert served_serial(running.port, ca) == first.serial
        assert running.tls is not None and running.tls.loaded.serial == first.serial
        first.key_file.write_bytes(other.key_pem)  # the renewal completes
        assert served_serial(running.port, ca) == other.serial
    finally:
        await running.stop(0)


def serve_args(*flags: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *flags])


def test_tls_flags_default_from_the_environment(
    ca: TestCA, monkeypatch: pytest.MonkeyPatch
) -> None:
    leaf = ca.issue("server")
    monkeypatch.setenv("RAMINO_TLS_CERT_FILE", str(leaf.cert_file))
    monkeypatch.setenv("RAMINO_TLS_KEY_FILE", str(leaf.key_file))
    monkeypatch.setenv("RAMINO_TLS_CLIENT_CA_FILE", str(ca.ca_file))
    assert server_tls(serve_args()) == ServerTls(
        str(leaf.cert_file), str(leaf.key_file), str(ca.ca_file)
    )


def test_no_tls_flags_is_plaintext(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CERT_FILE", "KEY_FILE", "CLIENT_CA_FILE"):
        monkeypatch.delenv(f"RAMINO_TLS_{name}", raising=False)
    assert server_tls(serve_args()) is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tls-cert-file", "{cert}"], "--tls-key-file is missing"),
        (["--tls-key-file", "{key}"], "--tls-cert-file is missing"),
        (["--tls-client-ca-file", "{ca}"], "--tls-client-ca-file needs --tls-cert-file"),
        (
            ["--tls-cert-file", "{missing}", "--tls-key-file", "{key}"],
            "--tls-cert-file {missing}: cannot be read",
        ),
        (
            ["--tls-cert-file", "{key}", "--tls-key-file", "{key}"],
            "--tls-cert-file {key}: holds no PEM certificate",
        ),
        (
            ["--tls-cert-file", "{cert}", "--tls-key-file", "{cert}"],
            "--tls-key-file {cert}: not an unencrypted PEM",
        ),
        (["--tls-cert-file", "{cert}", "--tls-key-file", "{other_key}"], "is not the key of"),
        (
            ["--tls-cert-file", "{cert}", "--tls-key-file", "{key}"]
            + ["--tls-client-ca-file", "{key}"],
            "--tls-client-ca-file {key}: holds no PEM certificate",
        ),
    ],
)
def test_unusable_tls_files_refused_at_start(
    ca: TestCA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], message: str
) -> None:
    for name in ("CERT_FILE", "KEY_FILE", "CLIENT_CA_FILE"):
        monkeypatch.delenv(f"RAMINO_TLS_{name}", raising=False)
    leaf, other = ca.issue("server"), ca.issue("other")
    files = {
        "cert": leaf.cert_file,
        "key": leaf.key_file,
        "ca": ca.ca_file,
        "other_key": other.key_file,
        "missing": tmp_path / "no-such.pem",
    }
    with pytest.raises(SystemExit) as e:
        server_tls(serve_args(*(f.format(**files) for f in flags)))
    assert message.format(**files) in str(e.value)
    assert str(e.value).startswith("ramino serve: ")


def test_serve_with_workers_over_tls_reloads_in_every_worker(
    ca: TestCA, tmp_path: Path, redis_server
) -> None:
    """``ramino serve --workers 2`` with the TLS flags: every worker serves
    TLS only, and every worker serves the renewed certificate."""
    leaf = ca.issue("server")
    server = ServerProcess(
        redis_server.url,
        tmp_path / "serve.log",
        workers=2,
        extra_args=["--tls-cert-file", str(leaf.cert_file), "--tls-key-file", str(leaf.key_file)],
        credentials=credentials(ca),
    )
    server.start()
    try:
        with grpc.insecure_channel(server.address) as plain:
            stub = health_pb2_grpc.HealthStub(plain)
            with pytest.raises(grpc.RpcError) as e:
                stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        assert server.process is not None
        processes = children(server.process.pid)  # the 2 workers, and spawn's resource tracker
        renewed = ca.issue("server")
        served: dict[int | None, set[int]] = {}
        for _ in range(200):  # the kernel spreads new connections at random
            serial, pid = handshake(server.port, ca, processes)
            served.setdefault(pid, set()).add(serial)
            if len(served) == 2:
                break
        assert len(served) == 2, "two workers accepted connections"
        assert list(served.values()) == [{renewed.serial}] * 2
    finally:
        server.stop()


async def test_the_health_port_answers_probes_in_plaintext_and_nothing_else(ca: TestCA) -> None:
    """The kubelet's gRPC probes cannot speak TLS: a plaintext port serves
    health alone, with the TLS port's statuses (a drain shows there too)."""
    leaf = ca.issue("server")
    running = await create_server(
        "127.0.0.1:0",
        tls=ServerTls(str(leaf.cert_file), str(leaf.key_file), str(ca.ca_file)),
        health_address="127.0.0.1:0",
    )
    try:
        assert running.health_port not in (None, running.port)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.health_port}") as probe:
            assert await check(probe) == health_pb2.HealthCheckResponse.SERVING
            rules = rules_pb2_grpc.RulesServiceStub(probe)
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await rules.ValidateMeld(
                    rules_pb2.ValidateMeldRequest(variant="rummy", cards=["5H", "6H", "7H"]),
                    timeout=5,
                )
            assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
            game = "ramino.v1.GameService"
            await running.health.set(game, health_pb2.HealthCheckResponse.NOT_SERVING)
            stub = health_pb2_grpc.HealthStub(probe)
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=game), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        await running.stop(0)
