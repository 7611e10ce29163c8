"""``ramino serve``: flags, with ``RAMINO_*`` environment variables as defaults."""

from __future__ import annotations

import argparse
import asyncio
import os

from ramino.api.auth import TokenIssuer, load_secret
from ramino.api.game_servicer import GameServicer
from ramino.api.server import ServerConfig, serve
from ramino.app import GameApp
from ramino.logs import configure
from ramino.store import open_store


def _env(name: str, default: str) -> str:
    return os.environ.get(f"RAMINO_{name}", default)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the gRPC game server")
    p.add_argument(
        "--host", default=_env("HOST", "127.0.0.1"), help="address to bind [RAMINO_HOST]"
    )
    p.add_argument("--port", type=int, default=int(_env("PORT", "50051")), help="[RAMINO_PORT]")
    p.add_argument(
        "--store",
        default=_env("STORE", "sqlite:var/ramino.db"),
        help="memory | sqlite:PATH | redis://HOST:PORT/DB [RAMINO_STORE]",
    )
    metrics = _env("METRICS_PORT", "")
    p.add_argument(
        "--metrics-port",
        type=int,
        default=int(metrics) if metrics else None,
        help="serve Prometheus metrics on this port [RAMINO_METRICS_PORT]",
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
        "--max-message-bytes", type=int, default=int(_env("MAX_MESSAGE_BYTES", str(1 << 20)))
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=float(_env("BOT_DELAY", "0")),
        help="seconds a bot waits before each move (for people watching) [RAMINO_BOT_DELAY]",
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
    p.add_argument("--log-level", default=_env("LOG_LEVEL", "info"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    configure(args.log_level)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        store=args.store,
        metrics_port=args.metrics_port,
        grace_seconds=args.grace,
        max_message_bytes=args.max_message_bytes,
        max_connection_age=args.max_connection_age,
        max_connection_age_grace=args.max_connection_age_grace,
    )

    async def main() -> None:
        app = GameApp(open_store(config.store), bot_delay=args.bot_delay)
        await app.start(args.finished_retention, args.archive)
        await serve(config, GameServicer(app, TokenIssuer(load_secret())))

    asyncio.run(main())
    return 0
