"""``ramino serve``: flags, with ``RAMINO_*`` environment variables as defaults."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

import structlog

from ramino.api.auth import (
    PlayerVerifier,
    TokenIssuer,
    configured_secret,
    load_secret,
    refuse_shared_secret,
)
from ramino.api.game_servicer import GameServicer
from ramino.api.server import ServerConfig, serve
from ramino.api.tls import ServerTls, TlsFileError
from ramino.api.tls import load as load_tls
from ramino.app import GameApp, Limits
from ramino.bots.search import set_level_times
from ramino.engine.deck import SEED_LIMIT
from ramino.errors import excerpt
from ramino.logs import configure
from ramino.logs import flush as flush_logs
from ramino.pool import WorkPool
from ramino.store import open_store
from ramino.workers import supervise, workers_refused


def _env(name: str, default: str) -> str:
    return os.environ.get(f"RAMINO_{name}", default)


def _bot_times(text: str) -> dict[str, float]:
    from ramino.bots.search import parse_times

    try:
        return parse_times(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the gRPC game server")
    p.add_argument(
        "--host", default=_env("HOST", "127.0.0.1"), help="address to bind [RAMINO_HOST]"
    )
    p.add_argument("--port", type=int, default=int(_env("PORT", "50051")), help="[RAMINO_PORT]")
    p.add_argument(
        "--store",
        default=_env("STORE", "sqlite:var/ramino.db"),
        help=(
            "memory | sqlite:PATH | redis://HOST:PORT/DB | "
            "redis+cluster://HOST:PORT[,HOST:PORT...]; rediss:// and rediss+cluster:// "
            "over TLS (?tls_ca_file=F&tls_cert_file=F&tls_key_file=F&tls_server_name=N) "
            "[RAMINO_STORE]"
        ),
    )
    p.add_argument(
        "--workers",
        type=int,
        default=int(_env("WORKERS", "1")),
        help="server processes sharing the port (SO_REUSEPORT); more than 1 needs a "
        "store shared across processes: redis:// or redis+cluster:// [RAMINO_WORKERS]",
    )
    metrics = _env("METRICS_PORT", "")
    p.add_argument(
        "--metrics-port",
        type=int,
        default=int(metrics) if metrics else None,
        help="serve Prometheus metrics on this port; with --workers N, worker i "
        "(from 0) on this port + i [RAMINO_METRICS_PORT]",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=float(_env("GRACE_SECONDS", "10")),
        help="drain seconds on SIGTERM [RAMINO_GRACE_SECONDS]",
    )
    age = _env("MAX_CONNECTION_AGE", "")
    p.add_argument(
        "--max-connection-age",
        type=float,
        default=float(age) if age else None,
        help="seconds after which a client is asked to reconnect, so connections "
        "rebalance over new replicas (default: never) [RAMINO_MAX_CONNECTION_AGE]",
    )
    age_grace = _env("MAX_CONNECTION_AGE_GRACE", "")
    p.add_argument(
        "--max-connection-age-grace",
        type=float,
        default=float(age_grace) if age_grace else None,
        help="seconds calls may go on past the connection's age; a watch then "
        "resumes on a new connection (default: no limit) [RAMINO_MAX_CONNECTION_AGE_GRACE]",
    )
    connections = _env("MAX_CONNECTIONS", "")
    p.add_argument(
        "--max-connections",
        type=int,
        default=int(connections) if connections else None,
        help="client connections at once; more are closed as they are accepted (default: "
        "the open file limit, raised to its hard limit at start, less 256) "
        "[RAMINO_MAX_CONNECTIONS]",
    )
    p.add_argument(
        "--max-connections-per-address",
        type=int,
        default=int(_env("MAX_CONNECTIONS_PER_ADDRESS", "256")),
        help="client connections at once from one address; the newest past it are closed "
        "within half a second; 0 for no limit [RAMINO_MAX_CONNECTIONS_PER_ADDRESS]",
    )
    p.add_argument(
        "--max-message-bytes",
        type=int,
        default=int(_env("MAX_MESSAGE_BYTES", str(16 * 1024))),
        help="largest request, refused by its length before it is decoded (RESOURCE_EXHAUSTED "
        "REQUEST_TOO_LARGE) [RAMINO_MAX_MESSAGE_BYTES]",
    )
    threads, capacity = _env("WORK_THREADS", ""), _env("WORK_CAPACITY", "")
    p.add_argument(
        "--work-threads",
        type=int,
        default=int(threads) if threads else None,
        help="threads for meld searches (default: cores, at most 4) [RAMINO_WORK_THREADS]",
    )
    p.add_argument(
        "--work-capacity",
        type=int,
        default=int(capacity) if capacity else None,
        help="searches admitted at once before SERVER_BUSY (default: 16 a thread) "
        "[RAMINO_WORK_CAPACITY]",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=float(_env("BOT_DELAY", "0")),
        help="seconds a bot waits before each move (for people watching) [RAMINO_BOT_DELAY]",
    )
    p.add_argument(
        "--bot-time-ms",
        type=_bot_times,
        default=_bot_times(_env("BOT_TIME_MS", "")),
        metavar="LEVEL=MS,...",
        help="time a decision of the searching bots, e.g. hard=20,expert=100 "
        "(the defaults) [RAMINO_BOT_TIME_MS]",
    )
    retention = _env("FINISHED_RETENTION", "")
    p.add_argument(
        "--finished-retention",
        type=float,
        default=float(retention) if retention else None,
        help="seconds a finished game is kept, then expired (default: kept) "
        "[RAMINO_FINISHED_RETENTION]",
    )
    p.add_argument(
        "--archive",
        default=_env("ARCHIVE", "") or None,
        help="folder where expired games' logs are written first (default: deleted) "
        "[RAMINO_ARCHIVE]",
    )
    p.add_argument(
        "--max-watchers-per-game",
        type=int,
        default=int(_env("MAX_WATCHERS_PER_GAME", "1000")),
        help="open spectators' WatchGame streams of one game in this server (the seats' "
        "own are not counted); more are RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS) "
        "[RAMINO_MAX_WATCHERS_PER_GAME]",
    )
    p.add_argument(
        "--max-streams-per-seat",
        type=int,
        default=int(_env("MAX_STREAMS_PER_SEAT", "16")),
        help="open WatchGame streams of one seat of a game in this server; more are "
        "RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS) [RAMINO_MAX_STREAMS_PER_SEAT]",
    )
    p.add_argument(
        "--max-streams-per-connection",
        type=int,
        default=int(_env("MAX_STREAMS_PER_CONNECTION", "100")),
        help="open WatchGame streams of one client connection; more are "
        "RESOURCE_EXHAUSTED (TOO_MANY_STREAMS) [RAMINO_MAX_STREAMS_PER_CONNECTION]",
    )
    p.add_argument(
        "--watch-queue",
        type=int,
        default=int(_env("WATCH_QUEUE", "1024")),
        help="events a watch stream may fall behind before it is ended with "
        "RESOURCE_EXHAUSTED (WATCHER_TOO_SLOW) [RAMINO_WATCH_QUEUE]",
    )
    p.add_argument(
        "--watch-queue-bytes",
        type=int,
        default=int(_env("WATCH_QUEUE_BYTES", str(256 * 1024))),
        help="bytes of events a watch stream may fall behind before it is ended "
        "(WATCHER_TOO_SLOW) [RAMINO_WATCH_QUEUE_BYTES]",
    )
    p.add_argument(
        "--watch-lag",
        type=float,
        default=float(_env("WATCH_LAG", "1")),
        help="seconds an event may wait for a watch stream that takes none (a client "
        "that stopped reading) before it is ended (WATCHER_TOO_SLOW) [RAMINO_WATCH_LAG]",
    )
    p.add_argument(
        "--spectator-interval",
        type=float,
        default=float(_env("SPECTATOR_INTERVAL", "0.1")),
        help="seconds between two messages to a spectator's watch stream that takes "
        "batches (batch_events), at least: every event since comes in one "
        "[RAMINO_SPECTATOR_INTERVAL]",
    )
    p.add_argument(
        "--spectator-messages",
        type=float,
        default=float(_env("SPECTATOR_MESSAGES", "2000")),
        help="messages a second this server sends the spectators that take batches, in "
        "all, at most; past it their interval grows [RAMINO_SPECTATOR_MESSAGES]",
    )
    p.add_argument(
        "--allow-bot-games",
        action=argparse.BooleanOptionalAction,
        default=_env("ALLOW_BOT_GAMES", "") in ("1", "true", "yes"),
        help="host games whose seats are all bots (tests, demos); refused with "
        "ALL_BOT_GAME otherwise [RAMINO_ALLOW_BOT_GAMES=1]",
    )
    p.add_argument(
        "--abandon-after",
        type=float,
        default=float(_env("ABANDON_AFTER", "3600")),
        help="seconds after which a game where no person acted (joined or played a "
        "move of their own) is ended as abandoned; 0 for never [RAMINO_ABANDON_AFTER]",
    )
    p.add_argument(
        "--player-token-secret-file",
        default=_env("PLAYER_TOKEN_SECRET_FILE", "") or None,
        help="know players: verify the host's HS256 player tokens with the secret in this "
        "file (or RAMINO_PLAYER_TOKEN_SECRET) [RAMINO_PLAYER_TOKEN_SECRET_FILE]",
    )
    p.add_argument(
        "--player-token-public-key",
        default=_env("PLAYER_TOKEN_PUBLIC_KEY", "") or None,
        help="know players: verify the host's RS256/ES256 player tokens with this PEM "
        "public key file [RAMINO_PLAYER_TOKEN_PUBLIC_KEY]",
    )
    p.add_argument(
        "--player-token-issuer",
        default=_env("PLAYER_TOKEN_ISSUER", "") or None,
        help="the iss a player token must carry [RAMINO_PLAYER_TOKEN_ISSUER]",
    )
    p.add_argument(
        "--player-token-audience",
        default=_env("PLAYER_TOKEN_AUDIENCE", "") or None,
        help="the aud a player token must carry [RAMINO_PLAYER_TOKEN_AUDIENCE]",
    )
    p.add_argument(
        "--tls-cert-file",
        default=_env("TLS_CERT_FILE", "") or None,
        help="serve TLS with this PEM certificate chain (reloaded when the file changes; "
        "needs --tls-key-file) [RAMINO_TLS_CERT_FILE]",
    )
    p.add_argument(
        "--tls-key-file",
        default=_env("TLS_KEY_FILE", "") or None,
        help="the PEM private key of --tls-cert-file [RAMINO_TLS_KEY_FILE]",
    )
    p.add_argument(
        "--tls-client-ca-file",
        default=_env("TLS_CLIENT_CA_FILE", "") or None,
        help="mutual TLS: refuse clients without a certificate signed by a CA in this "
        "PEM file [RAMINO_TLS_CLIENT_CA_FILE]",
    )
    health_port = _env("HEALTH_PORT", "")
    p.add_argument(
        "--health-port",
        type=int,
        default=int(health_port) if health_port else None,
        help="also serve grpc.health.v1 alone, in plaintext, on this port: for "
        "probes that cannot speak TLS (the kubelet's gRPC probes) [RAMINO_HEALTH_PORT]",
    )
    p.add_argument(
        "--test-seed",
        type=test_seed,
        default=None,
        metavar="N",
        help="TEST MODE, never for real play: deal every game from seed N, so its cards "
        "are known in advance (conformance tests); the games are marked fixed_deal. "
        "Off unless given (no environment variable turns it on)",
    )
    p.add_argument("--log-level", default=_env("LOG_LEVEL", "info"))
    p.set_defaults(func=run)


def test_seed(text: str) -> int:
    """The value of ``--test-seed``: a seed of the engine, 0 to 2**256 - 1."""
    try:
        seed = int(text, 10)
    except ValueError:
        seed = -1
    if not 0 <= seed < SEED_LIMIT:
        raise argparse.ArgumentTypeError(
            f"a test seed is an integer from 0 to 2**256 - 1, not {excerpt(text)}"
        )
    return seed


def player_verifier(args: argparse.Namespace) -> PlayerVerifier | None:
    """The verifier of the host's player tokens the flags (and the
    environment) configure; None when the server does not know players."""
    secret = os.environ.get("RAMINO_PLAYER_TOKEN_SECRET", "").encode()
    if args.player_token_secret_file:
        secret = Path(args.player_token_secret_file).read_bytes().strip()
    issuer, audience = args.player_token_issuer, args.player_token_audience
    if secret and args.player_token_public_key:
        raise SystemExit("ramino serve: give a player token secret or a public key, not both")
    if args.player_token_public_key:
        pem = Path(args.player_token_public_key).read_bytes()
        return PlayerVerifier.from_public_key(pem, issuer, audience)
    if secret:
        players = PlayerVerifier.from_secret(secret, issuer, audience)
        try:
            refuse_shared_secret(configured_secret(), players)
        except ValueError as refused:
            raise SystemExit(f"ramino serve: {refused}") from None
        return players
    return None


def server_tls(args: argparse.Namespace) -> ServerTls | None:
    """The TLS files the flags (and the environment) name, checked now so that
    a bad file stops the server before it serves; None for plaintext."""
    cert, key, client_ca = args.tls_cert_file, args.tls_key_file, args.tls_client_ca_file
    if not cert and not key:
        if client_ca:
            raise SystemExit(
                "ramino serve: --tls-client-ca-file needs --tls-cert-file and --tls-key-file"
            )
        return None
    if not cert or not key:
        missing = "--tls-key-file" if cert else "--tls-cert-file"
        raise SystemExit(f"ramino serve: TLS needs both files: {missing} is missing")
    tls = ServerTls(cert, key, client_ca)
    try:
        load_tls(tls)
    except TlsFileError as e:
        raise SystemExit(f"ramino serve: {e}") from None
    return tls


def run(args: argparse.Namespace) -> int:
    refused = workers_refused(args.store, args.workers)
    if refused is not None:
        raise SystemExit(refused)
    server_tls(args)  # a bad certificate is refused before any worker starts
    if args.workers > 1 and args.port == 0:
        raise SystemExit("ramino serve: --workers needs a fixed --port (0 would give each its own)")
    players = player_verifier(args)  # a bad key file is refused before any worker starts
    if args.workers > 1:
        configure(args.log_level)
        return supervise(args, run_worker)
    run_server(args, players, None)
    return 0


def run_worker(args: argparse.Namespace, index: int) -> None:
    """Worker ``index`` of ``ramino serve --workers N`` (in its own process)."""
    run_server(args, player_verifier(args), index)


def run_server(
    args: argparse.Namespace, players: PlayerVerifier | None, worker: int | None
) -> None:
    """The server, alone or as worker ``worker`` sharing its port with the others."""
    configure(
        args.log_level, fields=None if worker is None else {"worker": worker, "pid": os.getpid()}
    )
    metrics_port = args.metrics_port
    if worker is not None and metrics_port:
        metrics_port += worker
    config = ServerConfig(
        host=args.host,
        port=args.port,
        store=args.store,
        metrics_port=metrics_port,
        grace_seconds=args.grace,
        max_message_bytes=args.max_message_bytes,
        work_threads=args.work_threads,
        work_capacity=args.work_capacity,
        max_connection_age=args.max_connection_age,
        max_connection_age_grace=args.max_connection_age_grace,
        reuse_port=worker is not None,
        tls=server_tls(args),
        health_port=args.health_port,
        max_connections=args.max_connections,
        max_connections_per_address=args.max_connections_per_address or None,
    )

    if args.test_seed is not None:
        structlog.get_logger("ramino.serve").warning(
            "TEST MODE: every game is dealt from the fixed seed given by --test-seed; "
            "its deals are known in advance and its games are marked fixed_deal: "
            "not for real play",
            test_seed=args.test_seed,
        )

    async def main() -> None:
        limits = Limits(
            max_watchers_per_game=args.max_watchers_per_game,
            max_streams_per_seat=args.max_streams_per_seat,
            watch_queue=args.watch_queue,
            watch_queue_bytes=args.watch_queue_bytes,
            watch_lag=args.watch_lag,
            spectator_interval=args.spectator_interval,
            spectator_messages=args.spectator_messages,
            allow_bot_games=args.allow_bot_games,
            abandon_after=args.abandon_after,
        )
        set_level_times(args.bot_time_ms)
        pool = WorkPool(config.work_threads, config.work_capacity)
        app = GameApp(
            open_store(config.store),
            bot_delay=args.bot_delay,
            limits=limits,
            pool=pool,
            test_seed=args.test_seed,
        )
        await app.start(args.finished_retention, args.archive)
        servicer = GameServicer(
            app,
            TokenIssuer(load_secret()),
            players,
            max_streams_per_connection=args.max_streams_per_connection,
        )
        try:
            await serve(config, servicer, pool)
        finally:
            pool.shutdown()

    try:
        asyncio.run(main())
    finally:
        flush_logs()
