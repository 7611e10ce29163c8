"""``ramino serve``: flags, with ``RAMINO_*`` environment variables as defaults."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
from collections.abc import Callable
from pathlib import Path

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
from ramino.app.matchmaker import GRACE, MatchmakerConfig
from ramino.app.table import RATED_ABANDON_TIMERS, rated_abandon_after
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


def _prefix_length(maximum: int, family: str) -> Callable[[str], int]:
    """The type of a flag that is a prefix length of ``family``: 0 to ``maximum``."""

    def length(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = -1
        if not 0 <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"an {family} prefix length is 0 to {maximum}, not {excerpt(text)}"
            )
        return value

    return length


def _seconds(text: str) -> float:
    """A number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"a number of seconds, 0 or more, not {excerpt(text)}")
    return value


def _bot_times(text: str) -> dict[str, float]:
    from ramino.bots.search import parse_times

    try:
        return parse_times(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _positive_seconds(text: str) -> float:
    """A number of seconds, more than 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, not {excerpt(text)}")
    return value


def _window(text: str) -> tuple[float, float, float, float]:
    """A rating window schedule: BASE,STEP,INTERVAL,MAX."""
    parts = text.split(",")
    try:
        base, step, interval, most = (float(p) for p in parts)
        MatchmakerConfig(
            window_base=base, window_step=step, window_interval=interval, window_max=most
        )
    except ValueError as bad:
        raise argparse.ArgumentTypeError(
            f"a rating window schedule is BASE,STEP,INTERVAL,MAX (e.g. 3,3,10,60), not "
            f"{excerpt(text)}" + (f": {bad}" if len(parts) == 4 else "")
        ) from None
    return base, step, interval, most


def _turn_timer(text: str) -> int:
    """A turn timer: 0 to 86400 seconds."""
    try:
        value = int(text, 10)
    except ValueError:
        value = -1
    if not 0 <= value <= 24 * 3600:
        raise argparse.ArgumentTypeError(f"a turn timer is 0 to 86400 seconds, not {excerpt(text)}")
    return value


def _party_size(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = 0
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a party holds 2 to 6 players, not {excerpt(text)}")
    return value


def _queues_file(path: str) -> dict[str, dict[str, float]]:
    """Some queues' own knobs, from a JSON file (``docs/matchmaking.md``)."""
    try:
        with open(path, encoding="utf-8") as f:
            queues = json.load(f)
    except (OSError, ValueError) as bad:
        raise argparse.ArgumentTypeError(f"{path}: {bad}") from None
    if not isinstance(queues, dict) or not all(isinstance(v, dict) for v in queues.values()):
        raise argparse.ArgumentTypeError(
            f'{path}: an object of queues, each an object of knobs: {{"gin/rated": '
            '{"settle": 10}}'
        )
    try:
        MatchmakerConfig(queues=queues)
    except ValueError as bad:
        raise argparse.ArgumentTypeError(f"{path}: {bad}") from None
    return queues


# The flags of ``ramino serve`` that take a value: (flag, type, default, help).
# Each one's default is read from RAMINO_<FLAG> (the flag in capitals, or the
# name in ENV_NAMES) when that is set, and its help ends with that name.
FLAGS: tuple[tuple[str, type | Callable[[str], object], object, str], ...] = (
    ("--host", str, "127.0.0.1", "address to bind"),
    ("--port", int, 50051, ""),
    (
        "--store",
        str,
        "sqlite:var/ramino.db",
        "memory | sqlite:PATH | redis://HOST:PORT/DB | "
        "redis+cluster://HOST:PORT[,HOST:PORT...]; rediss:// and rediss+cluster:// "
        "over TLS (?tls_ca_file=F&tls_cert_file=F&tls_key_file=F&tls_server_name=N)",
    ),
    (
        "--workers",
        int,
        1,
        "server processes sharing the port (SO_REUSEPORT); more than 1 needs a "
        "store shared across processes: redis:// or redis+cluster://",
    ),
    (
        "--metrics-port",
        int,
        None,
        "serve Prometheus metrics on this port; with --workers N, worker i "
        "(from 0) on this port + i",
    ),
    ("--grace", float, 10.0, "drain seconds on SIGTERM"),
    (
        "--max-connection-age",
        float,
        None,
        "seconds after which a client is asked to reconnect, so connections "
        "rebalance over new replicas (default: never)",
    ),
    (
        "--max-connection-age-grace",
        float,
        None,
        "seconds calls may go on past the connection's age; a watch then "
        "resumes on a new connection (default: no limit)",
    ),
    (
        "--max-connections",
        int,
        None,
        "client connections at once; more are closed as they are accepted (default: "
        "the open file limit, raised to its hard limit at start, less 256)",
    ),
    (
        "--max-connections-per-address",
        int,
        256,
        "client connections at once from one address; the newest past it are closed "
        "within half a second; 0 for no limit",
    ),
    (
        "--max-connections-per-prefix",
        int,
        None,
        "client connections at once from one network (an IPv4 /24, an IPv6 /64: "
        "--connection-prefix-ipv4, --connection-prefix-ipv6); past it the newest of its "
        "busiest address are closed within half a second (default: a quarter of "
        "--max-connections, at least --max-connections-per-address); 0 for no limit",
    ),
    (
        "--connection-prefix-ipv4",
        _prefix_length(32, "IPv4"),
        24,
        "leading bits of an IPv4 client address that make its network, for "
        "--max-connections-per-prefix",
    ),
    (
        "--connection-prefix-ipv6",
        _prefix_length(128, "IPv6"),
        64,
        "leading bits of an IPv6 client address that make its network, for "
        "--max-connections-per-prefix",
    ),
    (
        "--max-connection-idle",
        _seconds,
        60.0,
        "seconds a connection with no call open is kept, then closed with a GOAWAY (a "
        "client reconnects on its next call; an open stream, however quiet, is a call); "
        "0 for never",
    ),
    (
        "--keepalive-time",
        _positive_seconds,
        60.0,
        "seconds a connection may be silent before the server pings it; one that does "
        "not answer within --keepalive-timeout is closed, its streams ended (clients may "
        "ping every 10 s, with or without calls)",
    ),
    (
        "--keepalive-timeout",
        _positive_seconds,
        20.0,
        "seconds the server waits for the answer to its ping",
    ),
    (
        "--max-message-bytes",
        int,
        16 * 1024,
        "largest request, refused by its length before it is decoded (RESOURCE_EXHAUSTED "
        "REQUEST_TOO_LARGE)",
    ),
    ("--work-threads", int, None, "threads for meld searches (default: cores, at most 4)"),
    (
        "--work-capacity",
        int,
        None,
        "searches admitted at once before SERVER_BUSY (default: 16 a thread)",
    ),
    ("--bot-delay", float, 0.0, "seconds a bot waits before each move (for people watching)"),
    (
        "--bot-time-ms",
        _bot_times,
        None,
        "time a decision of the searching bots, e.g. hard=20,expert=100 (the defaults)",
    ),
    (
        "--finished-retention",
        float,
        None,
        "seconds a finished game is kept, then expired (default: kept)",
    ),
    (
        "--archive",
        str,
        None,
        "folder where expired games' logs are written first (default: deleted)",
    ),
    (
        "--max-watchers-per-game",
        int,
        1000,
        "open spectators' WatchGame streams of one game in this server (the seats' "
        "own are not counted); more are RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS)",
    ),
    (
        "--max-streams-per-seat",
        int,
        16,
        "open WatchGame streams of one seat of a game in this server; more are "
        "RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS)",
    ),
    (
        "--max-streams-per-connection",
        int,
        100,
        "open streams (WatchGame and PlayGame sessions alike) of one client "
        "connection; more are RESOURCE_EXHAUSTED (TOO_MANY_STREAMS). The SDKs "
        "open another connection past 50 of their own",
    ),
    (
        "--max-streams",
        int,
        None,
        "streams open at once in this server (WatchGame, PlayGame sessions, quick-play "
        "ticket streams alike); more are RESOURCE_EXHAUSTED (SERVER_STREAMS_FULL) "
        "(default: half the memory the server may use, its cgroup's limit or else the "
        "machine's, at 48 KiB a stream, split among --workers)",
    ),
    (
        "--max-streams-per-address",
        int,
        None,
        "streams open at once from one client address; more are RESOURCE_EXHAUSTED "
        "(TOO_MANY_CLIENT_STREAMS) (default: an eighth of --max-streams); 0 for no limit",
    ),
    (
        "--max-streams-per-prefix",
        int,
        None,
        "streams open at once from one network (--connection-prefix-ipv4, "
        "--connection-prefix-ipv6); more are RESOURCE_EXHAUSTED (TOO_MANY_CLIENT_STREAMS) "
        "(default: a quarter of --max-streams, at least --max-streams-per-address); 0 for "
        "no limit",
    ),
    (
        "--watch-queue",
        int,
        1024,
        "events a watch stream may fall behind before it is ended with "
        "RESOURCE_EXHAUSTED (WATCHER_TOO_SLOW)",
    ),
    (
        "--watch-queue-bytes",
        int,
        256 * 1024,
        "bytes of events a watch stream may fall behind before it is ended " "(WATCHER_TOO_SLOW)",
    ),
    (
        "--watch-lag",
        float,
        1.0,
        "seconds an event may wait for a watch stream or session that takes none (a "
        "client that stopped reading) before it is ended (WATCHER_TOO_SLOW, its status "
        "sent after what was in flight, even to a client whose window is full)",
    ),
    (
        "--spectator-interval",
        float,
        0.1,
        "seconds between two messages to a spectator's watch stream that takes "
        "batches (batch_events), at least: every event since comes in one",
    ),
    (
        "--spectator-messages",
        float,
        2000.0,
        "messages a second this server sends its spectators in all, about at most: "
        "past it the interval of those that take batches grows, and those that did "
        "not ask for batches (batch_events unset) are sent batches too",
    ),
    (
        "--abandon-after",
        float,
        3600.0,
        "seconds after which a game where no person acted (joined or played a "
        "move of their own) is ended as abandoned (a rated game in play is not: "
        "its seats that stopped playing forfeit, no sooner than two of its turn "
        "timers); 0 for never",
    ),
    (
        "--player-token-secret-file",
        str,
        None,
        "know players: verify the host's HS256 player tokens with the secret in this "
        "file (or RAMINO_PLAYER_TOKEN_SECRET)",
    ),
    (
        "--player-token-public-key",
        str,
        None,
        "know players: verify the host's RS256/ES256 player tokens with this PEM "
        "public key file",
    ),
    (
        "--quick-bots-after",
        float,
        30.0,
        "quick play (on servers that know players): seconds a ticket waits before "
        "bots fill its game up to its smallest seat count; 0 for never",
    ),
    ("--quick-ticket-ttl", float, 300.0, "quick play: seconds a ticket waits at most"),
    (
        "--quick-ticket-grace",
        _positive_seconds,
        GRACE,
        "quick play: seconds a waiting ticket outlives the last stream that followed it "
        "(a reconnect within it keeps it; then any replica's matchmaker cancels it)",
    ),
    ("--quick-max-tickets", int, 3, "quick play: tickets a player may hold at once"),
    (
        "--quick-window",
        _window,
        (3.0, 3.0, 10.0, 60.0),
        "quick play: the rating window schedule: BASE points of difference accepted "
        "at once, STEP more every INTERVAL seconds of waiting, at most MAX (default 3,3,10,60)",
    ),
    (
        "--quick-settle",
        _seconds,
        5.0,
        "quick play: seconds a table that could start (its smallest seat count reached) "
        "waits for more players",
    ),
    ("--quick-turn-timer", _turn_timer, 60, "quick play: the turn timer of its games, seconds"),
    (
        "--quick-party-size",
        _party_size,
        4,
        "quick play: the most players a party holds, its leader included (2 to 6)",
    ),
    (
        "--quick-invitation-ttl",
        _positive_seconds,
        300.0,
        "quick play: seconds an invitation to a party may be accepted",
    ),
    (
        "--quick-queues",
        _queues_file,
        None,
        "quick play: a JSON file of some queues' own window schedule, settle time, turn "
        'timer and bots-after, by variant or variant/rated: {"gin/rated": {"settle": 10}} '
        "(docs/matchmaking.md)",
    ),
    ("--player-token-issuer", str, None, "the iss a player token must carry"),
    ("--player-token-audience", str, None, "the aud a player token must carry"),
    (
        "--tls-cert-file",
        str,
        None,
        "serve TLS with this PEM certificate chain (reloaded when the file changes; "
        "needs --tls-key-file)",
    ),
    ("--tls-key-file", str, None, "the PEM private key of --tls-cert-file"),
    (
        "--tls-client-ca-file",
        str,
        None,
        "mutual TLS: refuse clients without a certificate signed by a CA in this PEM file",
    ),
    (
        "--health-port",
        int,
        None,
        "also serve grpc.health.v1 alone, in plaintext, on this port: for "
        "probes that cannot speak TLS (the kubelet's gRPC probes)",
    ),
    ("--log-level", str, "info", ""),
)

# Flags whose environment variable is not the flag's own name.
ENV_NAMES = {"--grace": "GRACE_SECONDS"}

# Flags shown with a placeholder other than their name in capitals.
METAVARS = {
    "--bot-time-ms": "LEVEL=MS,...",
    "--quick-window": "BASE,STEP,INTERVAL,MAX",
    "--quick-queues": "FILE",
}


def add_flag(
    p: argparse.ArgumentParser,
    flag: str,
    kind: type | Callable[[str], object],
    default: object,
    text: str,
) -> None:
    """One value flag whose default an environment variable may set (an empty
    one counts as unset)."""
    env = ENV_NAMES.get(flag, flag.removeprefix("--").replace("-", "_").upper())
    given = _env(env, "")
    value = kind(given) if given else default
    where = f"[RAMINO_{env}]"
    p.add_argument(
        flag,
        type=kind,
        default=value,
        metavar=METAVARS.get(flag),
        help=f"{text} {where}" if text else where,
    )


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the gRPC game server")
    for flag in FLAGS:
        add_flag(p, *flag)
    p.add_argument(
        "--allow-bot-games",
        action=argparse.BooleanOptionalAction,
        default=_env("ALLOW_BOT_GAMES", "") in ("1", "true", "yes"),
        help="host games whose seats are all bots (tests, demos); refused with "
        "ALL_BOT_GAME otherwise [RAMINO_ALLOW_BOT_GAMES=1]",
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
        max_connections_per_prefix=args.max_connections_per_prefix,
        connection_prefixes=(args.connection_prefix_ipv4, args.connection_prefix_ipv6),
        max_connection_idle=args.max_connection_idle or None,
        keepalive=Keepalive(time=args.keepalive_time, timeout=args.keepalive_timeout),
        max_streams=args.max_streams,
        max_streams_per_address=args.max_streams_per_address,
        max_streams_per_prefix=args.max_streams_per_prefix,
        processes=args.workers,
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
        set_level_times(args.bot_time_ms or {})
        pool = WorkPool(config.work_threads, config.work_capacity)
        quick = None
        if players is not None:  # quick play needs verified players
            quick = MatchmakerConfig(
                max_tickets_per_player=args.quick_max_tickets,
                ticket_ttl=args.quick_ticket_ttl,
                grace=args.quick_ticket_grace,
                bots_after=args.quick_bots_after or None,
                window_base=args.quick_window[0],
                window_step=args.quick_window[1],
                window_interval=args.quick_window[2],
                window_max=args.quick_window[3],
                settle=args.quick_settle,
                turn_timer_seconds=args.quick_turn_timer,
                party_size=args.quick_party_size,
                invitation_ttl=args.quick_invitation_ttl,
                queues=args.quick_queues or {},
            )
        note = rated_abandon_note(args.abandon_after, quick)
        if note is not None:
            structlog.get_logger("ramino.serve").warning(note, abandon_after=args.abandon_after)
        token_secret = load_secret()
        app = GameApp(
            open_store(config.store),
            bot_delay=args.bot_delay,
            limits=limits,
            pool=pool,
            test_seed=args.test_seed,
            matchmaker=quick,
            secret=server_secret(token_secret),
        )
        await app.start(args.finished_retention, args.archive)
        servicer = GameServicer(
            app,
            TokenIssuer(token_secret),
            players,
            max_streams_per_connection=args.max_streams_per_connection,
            connection_prefixes=(args.connection_prefix_ipv4, args.connection_prefix_ipv6),
        )
        matches = None
        if players is not None and app.quick is not None:
            matches = MatchServicer(app.quick, servicer.tokens, players)
        try:
            await serve(config, servicer, pool, matches)
        finally:
            pool.shutdown()

    try:
        asyncio.run(main())
    finally:
        flush_logs()
