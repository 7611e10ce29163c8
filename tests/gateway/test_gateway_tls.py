"""``ramino gateway`` over TLS on both sides, with a real Envoy and a real
``ramino serve``: HTTPS toward browsers (gRPC-web through it), and mutual
TLS toward the server, with certificates from a CA the tests make."""

from __future__ import annotations

import http.client
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from ramino.gateway import (
    KUBERNETES_CONFIG,
    KUBERNETES_TLS,
    kubernetes_config,
    kubernetes_tls,
    render,
    secret_files,
)
from ramino.v1 import game_pb2

from tests.support.gateway import Ended, GatewayProcess, GrpcWebCall
from tests.support.servers import ServerProcess
from tests.support.tls import TestCA, serial_of, swap_like_kubernetes

ROOT = Path(__file__).resolve().parents[2]
OK = grpc.StatusCode.OK.value[0]
UNAVAILABLE = grpc.StatusCode.UNAVAILABLE.value[0]


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> TestCA:
    return TestCA(tmp_path_factory.mktemp("gateway-ca"))


@pytest.fixture(scope="module")
def server(ca: TestCA, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """``ramino serve`` under mutual TLS: only clients with a certificate of the CA."""
    leaf = ca.issue("server")
    ready = ca.issue("ready", client=True)
    s = ServerProcess(
        "memory",
        tmp_path_factory.mktemp("gateway-tls-server") / "server.log",
        extra_args=[
            "--tls-cert-file",
            str(leaf.cert_file),
            "--tls-key-file",
            str(leaf.key_file),
            "--tls-client-ca-file",
            str(ca.ca_file),
        ],
        credentials=grpc.ssl_channel_credentials(ca.ca_pem, ready.key_pem, ready.cert_pem),
    )
    s.start()
    yield s
    s.stop()


def tls_gateway(server: ServerProcess, ca: TestCA, log: Path, client_cert: bool) -> GatewayProcess:
    listener = ca.issue("gateway")
    flags = [
        "--tls-cert-file",
        str(listener.cert_file),
        "--tls-key-file",
        str(listener.key_file),
        "--upstream-ca-file",
        str(ca.ca_file),
        "--upstream-server-name",
        "localhost",
    ]
    if client_cert:
        toward_server = ca.issue("gateway-client", client=True)
        flags += [
            "--upstream-cert-file",
            str(toward_server.cert_file),
            "--upstream-key-file",
            str(toward_server.key_file),
        ]
    g = GatewayProcess(server.address, log, *flags)
    g.start()
    return g


@pytest.fixture
def gateway(server: ServerProcess, ca: TestCA, tmp_path: Path) -> Iterator[GatewayProcess]:
    g = tls_gateway(server, ca, tmp_path / "gateway.log", client_cert=True)
    yield g
    g.stop()


def browser(ca: TestCA) -> ssl.SSLContext:
    """A browser that trusts the tests' CA."""
    return ssl.create_default_context(cafile=str(ca.ca_file))


def create(gateway: GatewayProcess, ca: TestCA) -> tuple[Ended | bytes, GrpcWebCall]:
    call = GrpcWebCall(
        gateway.port,
        "CreateGame",
        game_pb2.CreateGameRequest(
            variant="rummy", seats=[game_pb2.SeatConfig(player_name=n) for n in ("ada", "bo")]
        ),
        tls=browser(ca),
    )
    return call.next(), call


def test_grpc_web_over_https_reaches_the_server_over_mutual_tls(
    gateway: GatewayProcess, ca: TestCA
) -> None:
    first, call = create(gateway, ca)
    try:
        assert isinstance(first, bytes), first
        created = game_pb2.CreateGameResponse.FromString(first)
        assert created.game.name.startswith("games/")
        ended = call.next()
        assert isinstance(ended, Ended) and ended.status == OK, ended
    finally:
        call.close()
    # a watch through both TLS hops delivers its first message
    watch = GrpcWebCall(
        gateway.port,
        "WatchGame",
        game_pb2.WatchGameRequest(name=created.game.name, snapshot=True),
        tls=browser(ca),
    )
    try:
        snapshot = watch.next()
        assert isinstance(snapshot, bytes), snapshot
        assert game_pb2.WatchGameResponse.FromString(snapshot).HasField("snapshot")
    finally:
        watch.close()


def test_plain_http_is_refused_on_the_https_listener(gateway: GatewayProcess) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=10)
    try:
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            connection.request("POST", "/ramino.v1.RulesService/ListVariants", b"")
            connection.getresponse().read()
    finally:
        connection.close()


def test_a_browser_not_trusting_the_ca_is_refused(gateway: GatewayProcess, tmp_path: Path) -> None:
    other = TestCA(tmp_path / "other", name="Some other CA")
    with pytest.raises(ssl.SSLCertVerificationError):
        GrpcWebCall(
            gateway.port,
            "CreateGame",
            game_pb2.CreateGameRequest(variant="rummy"),
            tls=browser(other),
        )


def test_a_gateway_without_a_client_certificate_is_refused_by_the_server(
    server: ServerProcess, ca: TestCA, tmp_path: Path
) -> None:
    g = tls_gateway(server, ca, tmp_path / "gateway.log", client_cert=False)
    try:
        ended, call = create(g, ca)
        call.close()
        assert isinstance(ended, Ended) and ended.status == UNAVAILABLE, ended
    finally:
        g.stop()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tls-cert-file", "{ca}"], "--tls-cert-file and --tls-key-file go together"),
        (
            ["--upstream-cert-file", "{ca}", "--upstream-key-file", "{ca}"],
            "need --upstream-ca-file",
        ),
        (["--upstream-server-name", "ramino-grpc"], "need --upstream-ca-file"),
        (["--upstream-ca-file", "{missing}"], "--upstream-ca-file {missing}: cannot be read"),
    ],
)
def test_bad_tls_flags_refused(ca: TestCA, tmp_path: Path, flags: list[str], message: str) -> None:
    files = {"ca": ca.ca_file, "missing": tmp_path / "no-such.pem"}
    done = subprocess.run(
        [sys.executable, "-m", "ramino", "gateway", *(f.format(**files) for f in flags)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert message.format(**files) in done.stderr


def kubernetes_files() -> dict[str, str]:
    files = {"envoy.yaml": render(kubernetes_config(tls=True))}
    files.update({n: render(body) for n, body in secret_files(*kubernetes_tls()).items()})
    return files


def test_the_kubernetes_tls_gateway_config_is_the_one_ramino_gateway_makes() -> None:
    files = kubernetes_files()
    assert len(files) == 4
    for name, made in files.items():
        committed = (ROOT / "deploy" / "components" / "tls" / name).read_text()
        assert committed == made, (
            f"deploy/components/tls/{name} is stale: ramino gateway --write-config "
            "deploy/components/tls --kubernetes --tls"
        )


def test_envoy_accepts_the_kubernetes_tls_config(ca: TestCA, tmp_path: Path) -> None:
    """Envoy reads the certificates when it loads a config: the mounted
    Secrets' files are made here, where the config names them."""
    mount = tmp_path / "tls"
    for secret in ("gateway", "upstream"):
        issued = ca.issue(secret, folder=tmp_path / "issued")
        (mount / secret).mkdir(parents=True)
        (mount / secret / "tls.crt").write_bytes(issued.cert_pem)
        (mount / secret / "tls.key").write_bytes(issued.key_pem)
        (mount / secret / "ca.crt").write_bytes(ca.ca_pem)
    envoy = ROOT / ".venv" / "bin" / "envoy"
    folder = tmp_path / "envoy"
    folder.mkdir()
    for name, text in kubernetes_files().items():
        text = text.replace(KUBERNETES_TLS, str(mount)).replace(KUBERNETES_CONFIG, str(folder))
        (folder / name).write_text(text)
    config = folder / "envoy.yaml"
    done = subprocess.run(
        [str(envoy), "--mode", "validate", "-c", str(config), "--disable-hot-restart"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_renewed_browser_certificate_is_served_without_a_restart(
    server: ServerProcess, ca: TestCA, tmp_path: Path
) -> None:
    """The listener's certificate in a folder updated the way the kubelet
    updates a Secret volume (a new ``..data``): a new connection gets the
    renewed one from the same Envoy, and gRPC-web still goes through."""
    mount = tmp_path / "mount"
    first = ca.issue("first", folder=tmp_path / "issued")
    swap_like_kubernetes(mount, first, "2026_12_01_first")
    toward_server = ca.issue("gateway-client", client=True, folder=tmp_path / "issued")
    g = GatewayProcess(
        server.address,
        tmp_path / "gateway.log",
        "--tls-cert-file",
        str(mount / "tls.crt"),
        "--tls-key-file",
        str(mount / "tls.key"),
        "--upstream-ca-file",
        str(ca.ca_file),
        "--upstream-server-name",
        "localhost",
        "--upstream-cert-file",
        str(toward_server.cert_file),
        "--upstream-key-file",
        str(toward_server.key_file),
    )
    g.start()
    try:
        assert served_serial(g.port, ca) == first.serial
        renewed = ca.issue("renewed", folder=tmp_path / "issued")
        swap_like_kubernetes(mount, renewed, "2026_12_01_renewed")
        deadline = time.monotonic() + 30
        while served_serial(g.port, ca) != renewed.serial:  # Envoy reloads on its own loop
            assert time.monotonic() < deadline, "the renewed certificate was never served"
            time.sleep(0.05)
        ended, call = create(g, ca)
        call.close()
        assert isinstance(ended, bytes), ended
    finally:
        g.stop()


def served_serial(port: int, ca: TestCA) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with browser(ca).wrap_socket(raw, server_hostname="localhost") as tls:
            der = tls.getpeercert(binary_form=True)
    assert der is not None
    return serial_of(ssl.DER_cert_to_PEM_cert(der).encode())
