"""``ramino gateway`` over TLS on both sides, with a real Envoy and a real
``ramino serve``: HTTPS toward browsers (gRPC-web through it), and mutual
TLS toward the server, with certificates from a CA the tests make."""

from __future__ import annotations

import http.client
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from ramino.gateway import KUBERNETES_TLS, kubernetes_config, render
from ramino.v1 import game_pb2

from tests.support.gateway import Ended, GatewayProcess, GrpcWebCall
from tests.support.servers import ServerProcess
from tests.support.tls import TestCA

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


def test_the_kubernetes_tls_gateway_config_is_the_one_ramino_gateway_makes() -> None:
    committed = (ROOT / "deploy" / "components" / "tls" / "envoy.yaml").read_text()
    assert committed == render(kubernetes_config(tls=True)), (
        "deploy/components/tls/envoy.yaml is stale: ramino gateway --print-config "
        "--kubernetes --tls > deploy/components/tls/envoy.yaml"
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
    config = tmp_path / "envoy.yaml"
    config.write_text(render(kubernetes_config(tls=True)).replace(KUBERNETES_TLS, str(mount)))
    done = subprocess.run(
        [str(envoy), "--mode", "validate", "-c", str(config), "--disable-hot-restart"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
