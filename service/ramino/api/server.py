"""The ``ramino serve`` server: grpc.aio with health, reflection, metrics,
structured logs, and a graceful drain on SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from ramino.api.connections import (
    IDLE_SECONDS,
    ConnectionGuard,
    Keepalive,
    call_options,
    connection_options,
    default_max_connections,
    default_max_connections_per_prefix,
    raise_file_limit,
)
from ramino.api.game_servicer import GameServicer
from ramino.api.interceptors import DEFAULT_MAX_MESSAGE_BYTES, ServiceInterceptor, transport_limit
from ramino.api.rules_servicer import RulesServicer
from ramino.api.stream_budget import (
    StreamBudget,
    default_max_streams,
    default_stream_shares,
    memory_limit,
)
from ramino.api.tls import CertificateFiles, ServerTls, server_credentials
from ramino.bots.search import LEVEL_BUDGETS, Budget
from ramino.pool import WorkPool
from ramino.v1 import game_pb2, game_pb2_grpc, match_pb2, match_pb2_grpc, rules_pb2, rules_pb2_grpc

log = structlog.get_logger("ramino.server")

SERVICES = (
    game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name,
    rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name,
    match_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name,
)


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    store: str = "sqlite:var/ramino.db"
    metrics_port: int | None = None
    grace_seconds: float = 10.0
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    token_lifetime: int = 7 * 24 * 3600
    work_threads: int | None = None
    """Threads of the work pool for meld searches (default: cores, at most 4)."""
    work_capacity: int | None = None
    """Heavy calls admitted at once before SERVER_BUSY (default: 16 a thread)."""
    max_connection_age: float | None = None
    """Seconds after which the server asks a client to reconnect (GOAWAY), so
    that connections spread over replicas added since; ``None``: never."""
    max_connection_age_grace: float | None = None
    """Seconds calls may still run on a connection past its age (a watch
    stream then ends UNAVAILABLE and the client resumes); ``None``: no limit."""
    reuse_port: bool = False
    """Bind with ``SO_REUSEPORT``, so that the worker processes of one
    ``ramino serve --workers N`` share the port (off: a port in use is an error)."""
    tls: ServerTls | None = None
    """Serve TLS (mutual TLS with a client CA) from these files, reloaded
    when they change; ``None``: plaintext."""
    health_port: int | None = None
    """Also serve grpc.health.v1 alone, in plaintext, on this port (the
    kubelet's gRPC probes cannot speak TLS); ``None``: no such port."""
    max_connections: int | None = None
    """Connections at once in total (``None``: the file limit less
    ``RESERVED_FILES``)."""
    max_connections_per_address: int | None = 256
    """Connections at once from one client address (``None``: no limit)."""
    max_connections_per_prefix: int | None = None
    """Connections at once from one network (``connection_prefixes``);
    ``None``: a quarter of ``max_connections``, at least the per-address
    limit; 0: no limit."""
    connection_prefixes: tuple[int, int] = (24, 64)
    """The prefix lengths of a network, IPv4 and IPv6."""
    max_connection_idle: float | None = IDLE_SECONDS
    """Seconds a connection with no call open is kept (``None``: for ever)."""
    keepalive: Keepalive = field(default_factory=Keepalive)
    max_streams: int | None = None
    """Streams open at once in the server (``None``: from the memory it may
    use, see :func:`~ramino.api.stream_budget.default_max_streams`)."""
    max_streams_per_address: int | None = None
    """Streams open at once from one client address (``None``: an eighth of
    ``max_streams``; 0: no limit)."""
    max_streams_per_prefix: int | None = None
    """Streams open at once from one network (``connection_prefixes``;
    ``None``: a quarter of ``max_streams``, at least the per-address limit;
    0: no limit)."""
    processes: int = 1
    """Server processes sharing the machine's memory (``--workers``): the
    default stream budget is each one's part of it."""
    bot_budgets: Mapping[str, Budget] = field(default_factory=lambda: dict(LEVEL_BUDGETS))
    """The searching bot levels' budgets, told by ``ListBotLevels``
    (:func:`~ramino.bots.search.level_budgets`)."""
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    games: GameServicer | None = None
    tls: CertificateFiles | None = None
    """The fetcher that reloads the TLS files (None: plaintext)."""
    health_server: grpc.aio.Server | None = None
    """The plaintext server of health alone (``health_port``), if any."""
    health_port: int | None = None
    guard: ConnectionGuard | None = None
    streams: StreamBudget | None = None

    async def stop(self, grace: float) -> None:
        """Mark every service NOT_SERVING, then stop accepting and drain."""
        for name in ("", *SERVICES):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        if self.games is not None:
            self.games.drain()
        await self.server.stop(grace)
        if self.health_server is not None:
            await self.health_server.stop(0)
        if self.guard is not None:
            self.guard.stop()
        if self.games is not None:
            await self.games.close()


async def create_server(
    address: str,
    games: GameServicer | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    pool: WorkPool | None = None,
    max_connection_age: float | None = None,
    max_connection_age_grace: float | None = None,
    reuse_port: bool = False,
    tls: ServerTls | None = None,
    health_address: str | None = None,
    max_connections: int | None = None,
    max_connections_per_address: int | None = None,
    matches: match_pb2_grpc.MatchServiceServicer | None = None,
    max_connections_per_prefix: int | None = None,
    connection_prefixes: tuple[int, int] = (24, 64),
    max_connection_idle: float | None = None,
    keepalive: Keepalive | None = None,
    streams: StreamBudget | None = None,
    bot_budgets: Mapping[str, Budget] = LEVEL_BUDGETS,
) -> RunningServer:
    """A started server bound to ``address`` (port 0 picks a free one).
    Requests over ``max_message_bytes`` are RESOURCE_EXHAUSTED
    (``REQUEST_TOO_LARGE``) by their length, before they are decoded;
    gRPC's own limit is set above it. With
    ``reuse_port`` other processes may bind the same port (``SO_REUSEPORT``)
    and the kernel spreads new connections over them. With ``tls`` the port
    speaks TLS only (a plaintext client fails its handshake), from files
    reloaded when they change (:mod:`ramino.api.tls`). ``health_address``:
    a second, plaintext port that serves the same health service and
    nothing else, for probes that cannot speak TLS. At most
    ``max_connections`` connections are accepted at once, at most
    ``max_connections_per_address`` from one client address and
    ``max_connections_per_prefix`` from one network (its first
    ``connection_prefixes`` bits, IPv4 and IPv6; see
    :mod:`ramino.api.connections`); ``None``: no limit. A connection with no
    call open for ``max_connection_idle`` seconds is closed (``None``:
    never); ``keepalive``: the HTTP/2 ping policy (``None``: gRPC's). Both
    ports get the timeouts. ``matches``: the MatchService (quick play), on
    servers that know players. ``streams``: the stream budget every stream
    of the main port takes a slot of (:mod:`ramino.api.stream_budget`;
    ``None``: none). ``bot_budgets``: the searching bot levels' budgets
    that ``ListBotLevels`` tells (the app's duties play with the same)."""
    options: list[tuple[str, int]] = [
        ("grpc.max_receive_message_length", transport_limit(max_message_bytes)),
        # Answers (a snapshot, a watch's batch of events) are not bounded by
        # what a request may be.
        ("grpc.max_send_message_length", max(4 * max_message_bytes, 4 << 20)),
        ("grpc.so_reuseport", 1 if reuse_port else 0),
        *connection_options(max_connections, max_connection_idle, keepalive),
        *call_options(),
    ]
    if max_connection_age is not None:
        options.append(("grpc.max_connection_age_ms", round(max_connection_age * 1000)))
    if max_connection_age_grace is not None:
        options.append(("grpc.max_connection_age_grace_ms", round(max_connection_age_grace * 1000)))
    server = grpc.aio.server(
        interceptors=[ServiceInterceptor(max_message_bytes, streams)], options=options
    )
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(pool, bot_budgets), server)
    if games is not None:
        game_pb2_grpc.add_GameServiceServicer_to_server(games, server)
    if matches is not None:
        match_pb2_grpc.add_MatchServiceServicer_to_server(matches, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*SERVICES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    files = None
    if tls is None:
        port = server.add_insecure_port(address)
    else:
        credentials, files = server_credentials(tls)
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise OSError(f"cannot bind {address}")
    health_server, health_port = None, None
    if health_address is not None:
        health_server = grpc.aio.server(
            options=[
                ("grpc.so_reuseport", 1 if reuse_port else 0),
                *connection_options(None, max_connection_idle, keepalive),
            ]
        )
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, health_server)
        health_port = health_server.add_insecure_port(health_address)
        if health_port == 0:
            raise OSError(f"cannot bind {health_address}")
    guard = None
    if max_connections_per_address is not None or max_connections_per_prefix is not None:
        guard = ConnectionGuard(
            port,
            max_connections_per_address,
            per_prefix=max_connections_per_prefix,
            ipv4_prefix=connection_prefixes[0],
            ipv6_prefix=connection_prefixes[1],
        )
        guard.start()
    await server.start()
    if health_server is not None:
        await health_server.start()
    for name in ("", *SERVICES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(
        server,
        port,
        health_servicer,
        games,
        tls=files,
        health_server=health_server,
        health_port=health_port,
        guard=guard,
        streams=streams,
    )


async def serve(
    config: ServerConfig,
    games: GameServicer | None,
    pool: WorkPool | None = None,
    matches: match_pb2_grpc.MatchServiceServicer | None = None,
) -> None:
    """Runs until SIGTERM or SIGINT, then drains for ``grace_seconds``."""
    file_limit = raise_file_limit()
    max_connections = config.max_connections or default_max_connections(file_limit)
    per_prefix = config.max_connections_per_prefix
    if per_prefix is None:
        per_prefix = default_max_connections_per_prefix(
            max_connections, config.max_connections_per_address
        )
    max_streams = config.max_streams or default_max_streams(memory_limit(), config.processes)
    streams_per_address, streams_per_prefix = default_stream_shares(
        max_streams, config.max_streams_per_address, config.max_streams_per_prefix
    )
    streams = StreamBudget(
        max_streams, streams_per_address, streams_per_prefix, *config.connection_prefixes
    )
    if config.metrics_port is not None:
        metrics, _ = start_http_server(config.metrics_port, addr=config.host)
        log.info("metrics", port=metrics.server_port)
    running = await create_server(
        f"{config.host}:{config.port}",
        games,
        max_message_bytes=config.max_message_bytes,
        pool=pool,
        max_connection_age=config.max_connection_age,
        max_connection_age_grace=config.max_connection_age_grace,
        reuse_port=config.reuse_port,
        tls=config.tls,
        health_address=None
        if config.health_port is None
        else f"{config.host}:{config.health_port}",
        max_connections=max_connections,
        max_connections_per_address=config.max_connections_per_address,
        matches=matches,
        max_connections_per_prefix=per_prefix or None,
        connection_prefixes=config.connection_prefixes,
        max_connection_idle=config.max_connection_idle,
        keepalive=config.keepalive,
        streams=streams,
        bot_budgets=config.bot_budgets,
    )
    log.info(
        "serving",
        host=config.host,
        port=running.port,
        store=config.store,
        tls="off" if config.tls is None else "mutual" if config.tls.client_ca_file else "on",
        health_port=running.health_port,
        max_connections=max_connections,
        max_connections_per_address=config.max_connections_per_address,
        max_connections_per_prefix=per_prefix or None,
        connection_prefixes="/{}, /{}".format(*config.connection_prefixes),
        max_connection_idle=config.max_connection_idle,
        keepalive=[config.keepalive.time, config.keepalive.timeout],
        max_streams=max_streams,
        max_streams_per_address=streams_per_address,
        max_streams_per_prefix=streams_per_prefix,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("draining", grace_seconds=config.grace_seconds)
    await running.stop(config.grace_seconds)
    log.info("stopped")
