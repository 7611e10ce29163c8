"""``ramino serve``: flags, with ``RAMINO_*`` environment variables as defaults."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

import structlog

from ramino.api.auth import PlayerVerifier, TokenIssuer, load_secret
from ramino.api.game_servicer import GameServicer
from ramino.api.server import ServerConfig, serve
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
            "redis+cluster://HOST:PORT[,HOST:PORT...] [RAMINO_STORE]"
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
    p.add_argument(
        "--max-message-bytes",
        type=int,
        default=int(_env("MAX_MESSAGE_BYTES", str(1 << 20))),
        help="largest request; larger ones are RESOURCE_EXHAUSTED [RAMINO_MAX_MESSAGE_BYTES]",
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
        help="open WatchGame streams of one game in this server; more are "
        "RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS) [RAMINO_MAX_WATCHERS_PER_GAME]",
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
        return PlayerVerifier.from_secret(secret, issuer, audience)
    return None


def run(args: argparse.Namespace) -> int:
    refused = workers_refused(args.store, args.workers)
    if refused is not None:
        raise SystemExit(refused)
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
            watch_queue=args.watch_queue,
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
