"""``ramino serve``: the server, run with the configuration its flags,
``RAMINO_*`` variables and ``--config`` file give (:mod:`ramino.config`)."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

import structlog

from ramino.api.auth import (
    PlayerVerifier,
    TokenIssuer,
    configured_secret,
    load_secret,
    refuse_shared_secret,
    server_secret,
)
from ramino.api.connections import Keepalive
from ramino.api.game_servicer import GameServicer
from ramino.api.match_servicer import MatchServicer
from ramino.api.server import ServerConfig, serve
from ramino.api.tls import ServerTls, TlsFileError
from ramino.api.tls import load as load_tls
from ramino.app import GameApp, Limits
from ramino.app.games.cache import RATED_ABANDON_TIMERS, rated_abandon_after
from ramino.app.quick.queues import MatchmakerConfig
from ramino.bots.search import level_budgets
from ramino.config import ConfigError, ServeConfig, add_flags, configured, entries
from ramino.config.kinds import Kind
from ramino.logs import configure
from ramino.logs import flush as flush_logs
from ramino.pool import WorkPool
from ramino.store import open_store
from ramino.workers import supervise, workers_refused

# The value flags that have a variable, as (flag, kind, default, help), and the
# flags whose variable is not the flag's name in capitals: both made from the
# configuration tree (ramino.config.tree), for those who list the flags.
FLAGS: tuple[tuple[str, Kind[Any], object, str], ...] = tuple(
    (e.setting.flag, e.setting.kind, e.default, e.setting.help)
    for e in entries()
    if e.setting.env is not None and not isinstance(e.default, bool)
)
ENV_NAMES = {
    e.setting.flag: e.setting.env
    for e in entries()
    if e.setting.env is not None
    and e.setting.env != e.setting.flag.removeprefix("--").replace("-", "_").upper()
}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the gRPC game server")
    add_flags(p)
    p.set_defaults(func=run)


def configuration(args: argparse.Namespace | ServeConfig) -> ServeConfig:
    """What a parsed ``ramino serve`` runs with: its flags, the environment
    and its ``--config`` file; refused as ``ramino serve: ...``."""
    if isinstance(args, ServeConfig):
        return args
    try:
        return configured(args).config
    except ConfigError as refused:
        raise SystemExit(f"ramino serve: {refused}") from None


def player_verifier(args: argparse.Namespace | ServeConfig) -> PlayerVerifier | None:
    """The verifier of the host's player tokens the configuration gives;
    None when the server does not know players."""
    tokens = configuration(args).player_tokens
    secret = os.environ.get("RAMINO_PLAYER_TOKEN_SECRET", "").encode()
    if tokens.secret_file:
        secret = Path(tokens.secret_file).read_bytes().strip()
    issuer, audience = tokens.issuer, tokens.audience
    if secret and tokens.public_key:
        raise SystemExit("ramino serve: give a player token secret or a public key, not both")
    if tokens.public_key:
        pem = Path(tokens.public_key).read_bytes()
        return PlayerVerifier.from_public_key(pem, issuer, audience)
    if secret:
        players = PlayerVerifier.from_secret(secret, issuer, audience)
        try:
            refuse_shared_secret(configured_secret(), players)
        except ValueError as refused:
            raise SystemExit(f"ramino serve: {refused}") from None
        return players
    return None


def server_tls(args: argparse.Namespace | ServeConfig) -> ServerTls | None:
    """The TLS files the configuration names, checked now so that a bad
    file stops the server before it serves; None for plaintext."""
    tls = configuration(args).tls
    cert, key, client_ca = tls.cert_file, tls.key_file, tls.client_ca_file
    if not cert and not key:
        if client_ca:
            raise SystemExit(
                "ramino serve: --tls-client-ca-file needs --tls-cert-file and --tls-key-file"
            )
        return None
    if not cert or not key:
        missing = "--tls-key-file" if cert else "--tls-cert-file"
        raise SystemExit(f"ramino serve: TLS needs both files: {missing} is missing")
    files = ServerTls(cert, key, client_ca)
    try:
        load_tls(files)
    except TlsFileError as e:
        raise SystemExit(f"ramino serve: {e}") from None
    return files


def rated_abandon_note(abandon_after: float, quick: MatchmakerConfig | None) -> str | None:
    """What the startup log says when ``--abandon-after`` would abandon a
    rated game in play before its turn timer acts (``quick``: the quick-play
    configuration of a server that knows players, hence rates games; None
    for one that rates nothing): how the server resolves it. None when
    there is nothing to say."""
    if quick is None or abandon_after <= 0:
        return None
    timer = max(quick.rated_turn_timers())
    waits = rated_abandon_after(abandon_after, timer)
    if waits <= abandon_after:
        return None
    return (
        f"--abandon-after {abandon_after:g} s is shorter than {RATED_ABANDON_TIMERS} turn "
        f"timers of a rated game ({timer} s in the rated queues): a rated game in play is "
        f"abandoned no sooner than {RATED_ABANDON_TIMERS} of its turn timers after a person "
        f"last acted ({waits:g} s in the rated queues), so the timer acts first, and its "
        "abandonment is a forfeit of the seats that stopped playing, rated (docs/ratings.md)"
    )


def matchmaker_config(config: ServeConfig) -> MatchmakerConfig:
    """Quick play's configuration from the ``[quick]`` section."""
    quick = config.quick
    base, step, interval, most = quick.window
    return MatchmakerConfig(
        max_tickets_per_player=quick.max_tickets,
        ticket_ttl=quick.ticket_ttl,
        grace=quick.ticket_grace,
        bots_after=quick.bots_after or None,
        window_base=base,
        window_step=step,
        window_interval=interval,
        window_max=most,
        settle=quick.settle,
        turn_timer_seconds=quick.turn_timer,
        party_size=quick.party_size,
        invitation_ttl=quick.invitation_ttl,
        queues=quick.queues or {},
    )


def run(args: argparse.Namespace) -> int:
    config = configuration(args)  # an unknown key or a bad value stops it here
    refused = workers_refused(config.store.url, config.server.workers)
    if refused is not None:
        raise SystemExit(refused)
    server_tls(config)  # a bad certificate is refused before any worker starts
    if config.server.workers > 1 and config.server.port == 0:
        raise SystemExit("ramino serve: --workers needs a fixed --port (0 would give each its own)")
    players = player_verifier(config)  # a bad key file is refused before any worker starts
    if config.server.workers > 1:
        configure(config.server.log_level)
        # Each worker runs with this configuration, not the file as it is when it starts.
        return supervise(
            argparse.Namespace(workers=config.server.workers, config=config), run_worker
        )
    run_server(config, players, None)
    return 0


def run_worker(args: argparse.Namespace, index: int) -> None:
    """Worker ``index`` of ``ramino serve --workers N`` (in its own process)."""
    config: ServeConfig = args.config
    run_server(config, player_verifier(config), index)


def run_server(config: ServeConfig, players: PlayerVerifier | None, worker: int | None) -> None:
    """The server, alone or as worker ``worker`` sharing its port with the others."""
    server, connections, streams = config.server, config.connections, config.streams
    configure(
        server.log_level, fields=None if worker is None else {"worker": worker, "pid": os.getpid()}
    )
    metrics_port = server.metrics_port
    if worker is not None and metrics_port:
        metrics_port += worker
    prefixes = (connections.connection_prefix_ipv4, connections.connection_prefix_ipv6)
    transport = ServerConfig(
        host=server.host,
        port=server.port,
        store=config.store.url,
        metrics_port=metrics_port,
        grace_seconds=server.grace,
        max_message_bytes=config.limits.max_message_bytes,
        work_threads=config.limits.work_threads,
        work_capacity=config.limits.work_capacity,
        max_connection_age=connections.max_connection_age,
        max_connection_age_grace=connections.max_connection_age_grace,
        reuse_port=worker is not None,
        tls=server_tls(config),
        health_port=server.health_port,
        max_connections=connections.max_connections,
        max_connections_per_address=connections.max_connections_per_address or None,
        max_connections_per_prefix=connections.max_connections_per_prefix,
        connection_prefixes=prefixes,
        max_connection_idle=connections.max_connection_idle or None,
        keepalive=Keepalive(time=connections.keepalive_time, timeout=connections.keepalive_timeout),
        max_streams=streams.max_streams,
        max_streams_per_address=streams.max_streams_per_address,
        max_streams_per_prefix=streams.max_streams_per_prefix,
        processes=server.workers,
        bot_budgets=level_budgets(config.bots.time_ms),
    )

    if server.test_seed is not None:
        structlog.get_logger("ramino.serve").warning(
            "TEST MODE: every game is dealt from the fixed seed given by --test-seed; "
            "its deals are known in advance and its games are marked fixed_deal: "
            "not for real play",
            test_seed=server.test_seed,
        )

    async def main() -> None:
        limits = Limits(
            max_watchers_per_game=streams.max_watchers_per_game,
            max_streams_per_seat=streams.max_streams_per_seat,
            watch_queue=streams.watch_queue,
            watch_queue_bytes=streams.watch_queue_bytes,
            watch_lag=streams.watch_lag,
            spectator_interval=streams.spectator_interval,
            spectator_messages=streams.spectator_messages,
            allow_bot_games=config.bots.allow_bot_games,
            abandon_after=config.limits.abandon_after,
        )
        pool = WorkPool(transport.work_threads, transport.work_capacity)
        # quick play needs verified players
        quick = matchmaker_config(config) if players is not None else None
        note = rated_abandon_note(config.limits.abandon_after, quick)
        if note is not None:
            structlog.get_logger("ramino.serve").warning(
                note, abandon_after=config.limits.abandon_after
            )
        token_secret = load_secret()
        app = GameApp(
            open_store(transport.store),
            bot_delay=config.bots.delay,
            limits=limits,
            pool=pool,
            test_seed=server.test_seed,
            matchmaker=quick,
            secret=server_secret(token_secret),
            bot_budgets=transport.bot_budgets,
            retention=config.store.finished_retention,
            archive_dir=config.store.archive,
        )
        try:
            async with app:
                servicer = GameServicer(
                    app,
                    TokenIssuer(token_secret),
                    players,
                    max_streams_per_connection=streams.max_streams_per_connection,
                    connection_prefixes=prefixes,
                )
                matches = None
                if players is not None and app.quick is not None:
                    matches = MatchServicer(app.quick, servicer.tokens, players)
                await serve(transport, servicer, pool, matches)
        finally:
            pool.shutdown()

    try:
        asyncio.run(main())
    finally:
        flush_logs()
