"""The configuration tree of ``ramino serve``: one section a group of
flags, one field a setting. A field's default, flag, variable and help are
written here once; ``ramino serve --help``, ``ramino config show`` and the
README's tables are made from them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field

from ramino.app.quick.queues import GRACE
from ramino.config import kinds
from ramino.config.setting import Entry, entries_of, setting
from ramino.engine.deck import SEED_LIMIT

_seconds = kinds.number("S")
_above_zero = kinds.seconds(above_zero=True)
_zero_or_more = kinds.seconds()
_count = kinds.whole("N")
_file = kinds.text("FILE")


@dataclass(frozen=True, slots=True)
class Server:
    """Where the server listens, how it runs and stops."""

    host: str = setting("127.0.0.1", "--host", kinds.text("HOST"), "address to bind")
    port: int = setting(50051, "--port", kinds.whole("PORT"), "port to bind")
    workers: int = setting(
        1,
        "--workers",
        _count,
        "server processes sharing the port (SO_REUSEPORT); more than 1 needs a "
        "store shared across processes: redis:// or redis+cluster://",
    )
    metrics_port: int | None = setting(
        None,
        "--metrics-port",
        kinds.whole("PORT"),
        "serve Prometheus metrics on this port; with --workers N, worker i "
        "(from 0) on this port + i",
    )
    health_port: int | None = setting(
        None,
        "--health-port",
        kinds.whole("PORT"),
        "also serve grpc.health.v1 alone, in plaintext, on this port: for "
        "probes that cannot speak TLS (the kubelet's gRPC probes)",
    )
    grace: float = setting(
        10.0, "--grace", _seconds, "drain seconds on SIGTERM", env="GRACE_SECONDS"
    )
    log_level: str = setting("info", "--log-level", kinds.text("LEVEL"), "debug, info, warning")
    test_seed: int | None = setting(
        None,
        "--test-seed",
        kinds.ranged("a test seed is an integer from 0 to 2**256 - 1", 0, SEED_LIMIT - 1),
        "TEST MODE, never for real play: deal every game from seed N, so its cards "
        "are known in advance (conformance tests); the games are marked fixed_deal. "
        "Off unless given (no environment variable or file turns it on)",
        env=None,
        in_file=False,
    )


@dataclass(frozen=True, slots=True)
class Limits:
    """Work the server takes on, and how long games are kept."""

    max_message_bytes: int = setting(
        16 * 1024,
        "--max-message-bytes",
        _count,
        "largest request, refused by its length before it is decoded (RESOURCE_EXHAUSTED "
        "REQUEST_TOO_LARGE)",
    )
    work_threads: int | None = setting(
        None, "--work-threads", _count, "threads for meld searches (default: cores, at most 4)"
    )
    work_capacity: int | None = setting(
        None,
        "--work-capacity",
        _count,
        "searches admitted at once before SERVER_BUSY (default: 16 a thread)",
    )
    abandon_after: float = setting(
        3600.0,
        "--abandon-after",
        _seconds,
        "seconds after which a game where no person acted (joined or played a "
        "move of their own) is ended as abandoned (a rated game in play is not: "
        "its seats that stopped playing forfeit, no sooner than two of its turn "
        "timers); 0 for never",
    )


@dataclass(frozen=True, slots=True)
class Connections:
    """Client connections: how many, from where, how long."""

    max_connections: int | None = setting(
        None,
        "--max-connections",
        _count,
        "client connections at once; more are closed as they are accepted (default: "
        "the open file limit, raised to its hard limit at start, less 256)",
    )
    max_connections_per_address: int = setting(
        256,
        "--max-connections-per-address",
        _count,
        "client connections at once from one address; the newest past it are closed "
        "within half a second; 0 for no limit",
    )
    max_connections_per_prefix: int | None = setting(
        None,
        "--max-connections-per-prefix",
        _count,
        "client connections at once from one network (an IPv4 /24, an IPv6 /64: "
        "--connection-prefix-ipv4, --connection-prefix-ipv6); past it the newest of its "
        "busiest address are closed within half a second (default: a quarter of "
        "--max-connections, at least --max-connections-per-address); 0 for no limit",
    )
    connection_prefix_ipv4: int = setting(
        24,
        "--connection-prefix-ipv4",
        kinds.ranged("an IPv4 prefix length is 0 to 32", 0, 32, "BITS"),
        "leading bits of an IPv4 client address that make its network, for "
        "--max-connections-per-prefix",
    )
    connection_prefix_ipv6: int = setting(
        64,
        "--connection-prefix-ipv6",
        kinds.ranged("an IPv6 prefix length is 0 to 128", 0, 128, "BITS"),
        "leading bits of an IPv6 client address that make its network, for "
        "--max-connections-per-prefix",
    )
    max_connection_age: float | None = setting(
        None,
        "--max-connection-age",
        _seconds,
        "seconds after which a client is asked to reconnect, so connections "
        "rebalance over new replicas (default: never)",
    )
    max_connection_age_grace: float | None = setting(
        None,
        "--max-connection-age-grace",
        _seconds,
        "seconds calls may go on past the connection's age; a watch then "
        "resumes on a new connection (default: no limit)",
    )
    max_connection_idle: float = setting(
        60.0,
        "--max-connection-idle",
        _zero_or_more,
        "seconds a connection with no call open is kept, then closed with a GOAWAY (a "
        "client reconnects on its next call; an open stream, however quiet, is a call); "
        "0 for never",
    )
    keepalive_time: float = setting(
        60.0,
        "--keepalive-time",
        _above_zero,
        "seconds a connection may be silent before the server pings it; one that does "
        "not answer within --keepalive-timeout is closed, its streams ended (clients may "
        "ping every 10 s, with or without calls)",
    )
    keepalive_timeout: float = setting(
        20.0,
        "--keepalive-timeout",
        _above_zero,
        "seconds the server waits for the answer to its ping",
    )


@dataclass(frozen=True, slots=True)
class Streams:
    """Streams (WatchGame, PlayGame sessions, ticket streams): how many, and
    how far one may fall behind."""

    max_streams: int | None = setting(
        None,
        "--max-streams",
        _count,
        "streams open at once in this server (WatchGame, PlayGame sessions, quick-play "
        "ticket streams alike); more are RESOURCE_EXHAUSTED (SERVER_STREAMS_FULL) "
        "(default: half the memory the server may use, its cgroup's limit or else the "
        "machine's, at 48 KiB a stream, split among --workers)",
    )
    max_streams_per_address: int | None = setting(
        None,
        "--max-streams-per-address",
        _count,
        "streams open at once from one client address; more are RESOURCE_EXHAUSTED "
        "(TOO_MANY_CLIENT_STREAMS) (default: an eighth of --max-streams); 0 for no limit",
    )
    max_streams_per_prefix: int | None = setting(
        None,
        "--max-streams-per-prefix",
        _count,
        "streams open at once from one network (--connection-prefix-ipv4, "
        "--connection-prefix-ipv6); more are RESOURCE_EXHAUSTED (TOO_MANY_CLIENT_STREAMS) "
        "(default: a quarter of --max-streams, at least --max-streams-per-address); 0 for "
        "no limit",
    )
    max_streams_per_connection: int = setting(
        100,
        "--max-streams-per-connection",
        _count,
        "open streams (WatchGame and PlayGame sessions alike) of one client "
        "connection; more are RESOURCE_EXHAUSTED (TOO_MANY_STREAMS). The SDKs "
        "open another connection past 50 of their own",
    )
    max_streams_per_seat: int = setting(
        16,
        "--max-streams-per-seat",
        _count,
        "open WatchGame streams of one seat of a game in this server; more are "
        "RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS)",
    )
    max_watchers_per_game: int = setting(
        1000,
        "--max-watchers-per-game",
        _count,
        "open spectators' WatchGame streams of one game in this server (the seats' "
        "own are not counted); more are RESOURCE_EXHAUSTED (TOO_MANY_WATCHERS)",
    )
    watch_queue: int = setting(
        1024,
        "--watch-queue",
        _count,
        "events a watch stream may fall behind before it is ended with "
        "RESOURCE_EXHAUSTED (WATCHER_TOO_SLOW)",
    )
    watch_queue_bytes: int = setting(
        256 * 1024,
        "--watch-queue-bytes",
        _count,
        "bytes of events a watch stream may fall behind before it is ended (WATCHER_TOO_SLOW)",
    )
    watch_lag: float = setting(
        1.0,
        "--watch-lag",
        _seconds,
        "seconds an event may wait for a watch stream or session that takes none (a "
        "client that stopped reading) before it is ended (WATCHER_TOO_SLOW, its status "
        "sent after what was in flight, even to a client whose window is full)",
    )
    spectator_interval: float = setting(
        0.1,
        "--spectator-interval",
        _seconds,
        "seconds between two messages to a spectator's watch stream that takes "
        "batches (batch_events), at least: every event since comes in one",
    )
    spectator_messages: float = setting(
        2000.0,
        "--spectator-messages",
        kinds.number("N"),
        "messages a second this server sends its spectators in all, about at most: "
        "past it the interval of those that take batches grows, and those that did "
        "not ask for batches (batch_events unset) are sent batches too",
    )


@dataclass(frozen=True, slots=True)
class Store:
    """Where games are kept, and for how long."""

    url: str = setting(
        "sqlite:var/ramino.db",
        "--store",
        kinds.text("URL"),
        "memory | sqlite:PATH | redis://HOST:PORT/DB | "
        "redis+cluster://HOST:PORT[,HOST:PORT...]; rediss:// and rediss+cluster:// "
        "over TLS (?tls_ca_file=F&tls_cert_file=F&tls_key_file=F&tls_server_name=N)",
    )
    finished_retention: float | None = setting(
        None,
        "--finished-retention",
        _seconds,
        "seconds a finished game is kept, then expired (default: kept)",
    )
    archive: str | None = setting(
        None,
        "--archive",
        kinds.text("DIR"),
        "folder where expired games' logs are written first (default: deleted)",
    )


@dataclass(frozen=True, slots=True)
class Bots:
    """The server's bots."""

    delay: float = setting(
        0.0, "--bot-delay", _seconds, "seconds a bot waits before each move (for people watching)"
    )
    time_ms: dict[str, float] | None = setting(
        None,
        "--bot-time-ms",
        kinds.bot_times(),
        "time a decision of the searching bots, e.g. hard=20,expert=100 (the defaults)",
    )
    allow_bot_games: bool = setting(
        False,
        "--allow-bot-games",
        kinds.switch(),
        "host games whose seats are all bots (tests, demos); refused with "
        "ALL_BOT_GAME otherwise",
    )


@dataclass(frozen=True, slots=True)
class Quick:
    """Quick play (on servers that know players: [player_tokens])."""

    bots_after: float = setting(
        30.0,
        "--quick-bots-after",
        _seconds,
        "quick play (on servers that know players): seconds a ticket waits before "
        "bots fill its game up to its smallest seat count; 0 for never",
    )
    ticket_ttl: float = setting(
        300.0, "--quick-ticket-ttl", _seconds, "quick play: seconds a ticket waits at most"
    )
    ticket_grace: float = setting(
        GRACE,
        "--quick-ticket-grace",
        _above_zero,
        "quick play: seconds a waiting ticket outlives the last stream that followed it "
        "(a reconnect within it keeps it; then any replica's matchmaker cancels it)",
    )
    max_tickets: int = setting(
        3, "--quick-max-tickets", _count, "quick play: tickets a player may hold at once"
    )
    window: tuple[float, float, float, float] = setting(
        (3.0, 3.0, 10.0, 60.0),
        "--quick-window",
        kinds.window(),
        "quick play: the rating window schedule: BASE points of difference accepted "
        "at once, STEP more every INTERVAL seconds of waiting, at most MAX",
    )
    settle: float = setting(
        5.0,
        "--quick-settle",
        _zero_or_more,
        "quick play: seconds a table that could start (its smallest seat count reached) "
        "waits for more players",
    )
    turn_timer: int = setting(
        60,
        "--quick-turn-timer",
        kinds.ranged("a turn timer is 0 to 86400 seconds", 0, 24 * 3600, "S"),
        "quick play: the turn timer of its games, seconds",
    )
    party_size: int = setting(
        4,
        "--quick-party-size",
        kinds.ranged("a party holds 2 to 6 players", 2, 6),
        "quick play: the most players a party holds, its leader included (2 to 6)",
    )
    invitation_ttl: float = setting(
        300.0,
        "--quick-invitation-ttl",
        _above_zero,
        "quick play: seconds an invitation to a party may be accepted",
    )
    queues: dict[str, dict[str, float]] | None = setting(
        None,
        "--quick-queues",
        kinds.queues(),
        "quick play: some queues' own window schedule, settle time, turn timer and "
        "bots-after, by variant or variant/rated: a JSON file "
        '{"gin/rated": {"settle": 10}}, or in the file [quick.queues."gin/rated"] '
        "settle = 10 (docs/matchmaking.md)",
    )


@dataclass(frozen=True, slots=True)
class PlayerTokens:
    """Players known from the host's tokens (secrets stay in variables or files)."""

    secret_file: str | None = setting(
        None,
        "--player-token-secret-file",
        _file,
        "know players: verify the host's HS256 player tokens with the secret in this "
        "file (or RAMINO_PLAYER_TOKEN_SECRET)",
    )
    public_key: str | None = setting(
        None,
        "--player-token-public-key",
        _file,
        "know players: verify the host's RS256/ES256 player tokens with this PEM "
        "public key file",
    )
    issuer: str | None = setting(
        None, "--player-token-issuer", kinds.text("ISS"), "the iss a player token must carry"
    )
    audience: str | None = setting(
        None, "--player-token-audience", kinds.text("AUD"), "the aud a player token must carry"
    )


@dataclass(frozen=True, slots=True)
class Tls:
    """TLS of the gRPC port."""

    cert_file: str | None = setting(
        None,
        "--tls-cert-file",
        _file,
        "serve TLS with this PEM certificate chain (reloaded when the file changes; "
        "needs --tls-key-file)",
    )
    key_file: str | None = setting(
        None, "--tls-key-file", _file, "the PEM private key of --tls-cert-file"
    )
    client_ca_file: str | None = setting(
        None,
        "--tls-client-ca-file",
        _file,
        "mutual TLS: refuse clients without a certificate signed by a CA in this PEM file",
    )


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """Everything ``ramino serve`` is told, by section."""

    server: Server = field(default_factory=Server)
    limits: Limits = field(default_factory=Limits)
    connections: Connections = field(default_factory=Connections)
    streams: Streams = field(default_factory=Streams)
    store: Store = field(default_factory=Store)
    bots: Bots = field(default_factory=Bots)
    quick: Quick = field(default_factory=Quick)
    player_tokens: PlayerTokens = field(default_factory=PlayerTokens)
    tls: Tls = field(default_factory=Tls)


def sections() -> Iterator[tuple[str, type]]:
    """``(name, class)`` of every section, in the tree's order."""
    for f in dataclasses.fields(ServeConfig):
        cls = f.default_factory
        assert isinstance(cls, type)
        yield f.name, cls


def entries() -> Iterator[Entry]:
    """Every setting, section by section."""
    for name, cls in sections():
        yield from entries_of(name, cls)


def section_doc(cls: type) -> str:
    return (cls.__doc__ or "").strip()
