"""``ramino serve --config FILE`` and ``ramino config show`` (issue 48): one
configuration tree is the source of the flags, the ``RAMINO_*`` variables
and the file; a flag wins over a variable, a variable over the file, the
file over the default; a key the tree does not know, or a value of the
wrong type, is refused naming the file's line; a small file serves; every
flag and variable of before keeps its name and meaning; the README's tables
are the tree's."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from ramino import cli
from ramino.config import ConfigError, entries, markdown, resolve
from ramino.config.flags import configured
from ramino.config.load import key_lines, line_of
from ramino.config.render import BEGIN, END
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.support.redis_server import free_port, stop_process

ROOT = Path(__file__).resolve().parents[1]
QUEUES = str(ROOT / "tests" / "vectors" / "config" / "queues.json")

# Every flag of `ramino serve` before the configuration tree, its variable,
# a value it takes as text, that value parsed, and where it lands now.
BEFORE: list[tuple[str, str | None, str, object, str]] = [
    ("--host", "RAMINO_HOST", "0.0.0.0", "0.0.0.0", "server.host"),
    ("--port", "RAMINO_PORT", "6001", 6001, "server.port"),
    ("--store", "RAMINO_STORE", "memory", "memory", "store.url"),
    ("--workers", "RAMINO_WORKERS", "2", 2, "server.workers"),
    ("--metrics-port", "RAMINO_METRICS_PORT", "9090", 9090, "server.metrics_port"),
    ("--grace", "RAMINO_GRACE_SECONDS", "2.5", 2.5, "server.grace"),
    (
        "--max-connection-age",
        "RAMINO_MAX_CONNECTION_AGE",
        "300",
        300.0,
        "connections.max_connection_age",
    ),
    (
        "--max-connection-age-grace",
        "RAMINO_MAX_CONNECTION_AGE_GRACE",
        "30",
        30.0,
        "connections.max_connection_age_grace",
    ),
    ("--max-connections", "RAMINO_MAX_CONNECTIONS", "900", 900, "connections.max_connections"),
    (
        "--max-connections-per-address",
        "RAMINO_MAX_CONNECTIONS_PER_ADDRESS",
        "0",
        0,
        "connections.max_connections_per_address",
    ),
    (
        "--max-connections-per-prefix",
        "RAMINO_MAX_CONNECTIONS_PER_PREFIX",
        "12",
        12,
        "connections.max_connections_per_prefix",
    ),
    (
        "--connection-prefix-ipv4",
        "RAMINO_CONNECTION_PREFIX_IPV4",
        "30",
        30,
        "connections.connection_prefix_ipv4",
    ),
    (
        "--connection-prefix-ipv6",
        "RAMINO_CONNECTION_PREFIX_IPV6",
        "48",
        48,
        "connections.connection_prefix_ipv6",
    ),
    (
        "--max-connection-idle",
        "RAMINO_MAX_CONNECTION_IDLE",
        "0",
        0.0,
        "connections.max_connection_idle",
    ),
    ("--keepalive-time", "RAMINO_KEEPALIVE_TIME", "5", 5.0, "connections.keepalive_time"),
    ("--keepalive-timeout", "RAMINO_KEEPALIVE_TIMEOUT", "2", 2.0, "connections.keepalive_timeout"),
    ("--max-message-bytes", "RAMINO_MAX_MESSAGE_BYTES", "4096", 4096, "limits.max_message_bytes"),
    ("--work-threads", "RAMINO_WORK_THREADS", "2", 2, "limits.work_threads"),
    ("--work-capacity", "RAMINO_WORK_CAPACITY", "8", 8, "limits.work_capacity"),
    ("--bot-delay", "RAMINO_BOT_DELAY", "0.3", 0.3, "bots.delay"),
    ("--bot-time-ms", "RAMINO_BOT_TIME_MS", "hard=7", {"hard": 7.0}, "bots.time_ms"),
    ("--finished-retention", "RAMINO_FINISHED_RETENTION", "60", 60.0, "store.finished_retention"),
    ("--archive", "RAMINO_ARCHIVE", "/tmp/archive", "/tmp/archive", "store.archive"),
    (
        "--max-watchers-per-game",
        "RAMINO_MAX_WATCHERS_PER_GAME",
        "9",
        9,
        "streams.max_watchers_per_game",
    ),
    (
        "--max-streams-per-seat",
        "RAMINO_MAX_STREAMS_PER_SEAT",
        "3",
        3,
        "streams.max_streams_per_seat",
    ),
    (
        "--max-streams-per-connection",
        "RAMINO_MAX_STREAMS_PER_CONNECTION",
        "7",
        7,
        "streams.max_streams_per_connection",
    ),
    ("--max-streams", "RAMINO_MAX_STREAMS", "500", 500, "streams.max_streams"),
    (
        "--max-streams-per-address",
        "RAMINO_MAX_STREAMS_PER_ADDRESS",
        "0",
        0,
        "streams.max_streams_per_address",
    ),
    (
        "--max-streams-per-prefix",
        "RAMINO_MAX_STREAMS_PER_PREFIX",
        "0",
        0,
        "streams.max_streams_per_prefix",
    ),
    ("--watch-queue", "RAMINO_WATCH_QUEUE", "64", 64, "streams.watch_queue"),
    (
        "--watch-queue-bytes",
        "RAMINO_WATCH_QUEUE_BYTES",
        "65536",
        65536,
        "streams.watch_queue_bytes",
    ),
    ("--watch-lag", "RAMINO_WATCH_LAG", "0.5", 0.5, "streams.watch_lag"),
    ("--spectator-interval", "RAMINO_SPECTATOR_INTERVAL", "0.2", 0.2, "streams.spectator_interval"),
    (
        "--spectator-messages",
        "RAMINO_SPECTATOR_MESSAGES",
        "100",
        100.0,
        "streams.spectator_messages",
    ),
    ("--abandon-after", "RAMINO_ABANDON_AFTER", "0", 0.0, "limits.abandon_after"),
    (
        "--player-token-secret-file",
        "RAMINO_PLAYER_TOKEN_SECRET_FILE",
        "/run/secret",
        "/run/secret",
        "player_tokens.secret_file",
    ),
    (
        "--player-token-public-key",
        "RAMINO_PLAYER_TOKEN_PUBLIC_KEY",
        "/run/key.pem",
        "/run/key.pem",
        "player_tokens.public_key",
    ),
    ("--quick-bots-after", "RAMINO_QUICK_BOTS_AFTER", "0", 0.0, "quick.bots_after"),
    ("--quick-ticket-ttl", "RAMINO_QUICK_TICKET_TTL", "60", 60.0, "quick.ticket_ttl"),
    ("--quick-ticket-grace", "RAMINO_QUICK_TICKET_GRACE", "1.5", 1.5, "quick.ticket_grace"),
    ("--quick-max-tickets", "RAMINO_QUICK_MAX_TICKETS", "2", 2, "quick.max_tickets"),
    (
        "--quick-window",
        "RAMINO_QUICK_WINDOW",
        "5,5,20,100",
        (5.0, 5.0, 20.0, 100.0),
        "quick.window",
    ),
    ("--quick-settle", "RAMINO_QUICK_SETTLE", "2", 2.0, "quick.settle"),
    ("--quick-turn-timer", "RAMINO_QUICK_TURN_TIMER", "90", 90, "quick.turn_timer"),
    ("--quick-party-size", "RAMINO_QUICK_PARTY_SIZE", "6", 6, "quick.party_size"),
    ("--quick-queues", "RAMINO_QUICK_QUEUES", QUEUES, {"gin": {"settle": 1}}, "quick.queues"),
    ("--quick-invitation-ttl", "RAMINO_QUICK_INVITATION_TTL", "30", 30.0, "quick.invitation_ttl"),
    ("--player-token-issuer", "RAMINO_PLAYER_TOKEN_ISSUER", "host", "host", "player_tokens.issuer"),
    (
        "--player-token-audience",
        "RAMINO_PLAYER_TOKEN_AUDIENCE",
        "games",
        "games",
        "player_tokens.audience",
    ),
    ("--tls-cert-file", "RAMINO_TLS_CERT_FILE", "/tls/crt", "/tls/crt", "tls.cert_file"),
    ("--tls-key-file", "RAMINO_TLS_KEY_FILE", "/tls/key", "/tls/key", "tls.key_file"),
    (
        "--tls-client-ca-file",
        "RAMINO_TLS_CLIENT_CA_FILE",
        "/tls/ca",
        "/tls/ca",
        "tls.client_ca_file",
    ),
    ("--health-port", "RAMINO_HEALTH_PORT", "50052", 50052, "server.health_port"),
    ("--log-level", "RAMINO_LOG_LEVEL", "debug", "debug", "server.log_level"),
    ("--allow-bot-games", "RAMINO_ALLOW_BOT_GAMES", "1", True, "bots.allow_bot_games"),
    ("--test-seed", None, "7", 7, "server.test_seed"),
]


@pytest.fixture(autouse=True)
def no_ramino_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' own environment says nothing to the server."""
    for name in list(os.environ):
        if name.startswith("RAMINO_"):
            monkeypatch.delenv(name)


def serve_args(*flags: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["serve", *flags])


def value_at(config: object, name: str) -> object:
    section, key = name.split(".")
    return getattr(getattr(config, section), key)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --- every flag and variable of before ------------------------------------


def test_the_tree_holds_every_flag_of_before_and_no_other() -> None:
    tree = {e.setting.flag: (e.setting.variable, e.name) for e in entries()}
    assert tree == {flag: (env, name) for flag, env, _, _, name in BEFORE}


@pytest.mark.parametrize(("flag", "env", "text", "parsed", "name"), BEFORE)
def test_every_flag_and_variable_of_before_sets_its_setting(
    flag: str, env: str | None, text: str, parsed: object, name: str
) -> None:
    argv = [flag] if isinstance(parsed, bool) else [flag, text]
    resolved = configured(serve_args(*argv), environ={})
    assert value_at(resolved.config, name) == parsed
    assert str(resolved.sources[name]) == f"flag {flag}"
    assert getattr(serve_args(*argv), flag.removeprefix("--").replace("-", "_")) == parsed
    if env is not None:
        resolved = configured(serve_args(), environ={env: text})
        assert value_at(resolved.config, name) == parsed
        assert str(resolved.sources[name]) == f"env {env}"


def test_every_help_names_its_variable_once_and_its_flag_is_the_trees() -> None:
    parser = cli.build_parser()
    text = parser._subparsers._group_actions[0].choices["serve"].format_help()  # type: ignore[union-attr]
    for flag, env, *_ in BEFORE:
        assert flag in text
        if env is not None:
            assert text.count(f"[{env}]") == 1, env


# --- precedence and sources ------------------------------------------------


def test_a_flag_wins_over_a_variable_over_the_file_over_the_default(tmp_path: Path) -> None:
    config = write(
        tmp_path / "ramino.toml",
        '[server]\nport = 7001\ngrace = 4\nhost = "0.0.0.0"\n\n[store]\nurl = "memory"\n',
    )
    environ = {"RAMINO_PORT": "7002", "RAMINO_GRACE_SECONDS": "5"}
    resolved = configured(serve_args("--config", str(config), "--grace", "6"), environ)
    server = resolved.config.server
    assert (server.port, server.grace, server.host, server.workers) == (7002, 6.0, "0.0.0.0", 1)
    assert resolved.config.store.url == "memory"
    assert {name: str(resolved.sources[name]) for name in ("server.port", "server.grace")} == {
        "server.port": "env RAMINO_PORT",
        "server.grace": "flag --grace",
    }
    assert str(resolved.sources["server.host"]) == f"file {config}:4"
    assert str(resolved.sources["store.url"]) == f"file {config}:7"
    assert str(resolved.sources["server.workers"]) == "default"


def test_an_empty_variable_counts_as_unset_and_the_file_holds(tmp_path: Path) -> None:
    config = write(tmp_path / "ramino.toml", "[store]\narchive = 'kept'\n")
    resolved = resolve(config, {"RAMINO_ARCHIVE": ""})
    assert resolved.config.store.archive == "kept"


def test_ramino_config_names_the_file_and_a_flag_names_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write(tmp_path / "first.toml", "[server]\nport = 1\n")
    second = write(tmp_path / "second.toml", "[server]\nport = 2\n")
    monkeypatch.setenv("RAMINO_CONFIG", str(first))
    assert configured(serve_args()).config.server.port == 1
    assert configured(serve_args("--config", str(second))).config.server.port == 2


def test_a_folder_is_read_in_name_order_a_later_file_over_an_earlier(tmp_path: Path) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    write(folder / "00-base.toml", '[server]\nport = 1\nlog_level = "info"\n')
    write(folder / "50-store.toml", '[store]\nurl = "memory"\n')
    write(folder / "90-dev.toml", '\n[server]\nlog_level = "debug"\n')
    write(folder / "notes.txt", "[nonsense\n")
    resolved = resolve(folder, {})
    assert resolved.files == tuple(
        folder / n for n in ("00-base.toml", "50-store.toml", "90-dev.toml")
    )
    server = resolved.config.server
    assert (server.port, server.log_level, resolved.config.store.url) == (1, "debug", "memory")
    assert str(resolved.sources["server.log_level"]) == f"file {folder / '90-dev.toml'}:3"


def test_the_quick_play_queues_come_from_the_toml_or_its_json_file(tmp_path: Path) -> None:
    config = write(
        tmp_path / "ramino.toml",
        "[quick]\nwindow = [5, 5, 20, 100]\n\n"
        '[quick.queues."gin/rated"]\nsettle = 10\nturn_timer_seconds = 30\n',
    )
    quick = resolve(config, {}).config.quick
    assert quick.window == (5.0, 5.0, 20.0, 100.0)
    assert quick.queues == {"gin/rated": {"settle": 10, "turn_timer_seconds": 30}}
    queues = write(tmp_path / "queues.json", '{"gin": {"settle": 1}}')
    config = write(tmp_path / "other.toml", f'[quick]\nqueues = "{queues}"\n')
    assert resolve(config, {}).config.quick.queues == {"gin": {"settle": 1}}
    environ = {"RAMINO_QUICK_QUEUES": str(queues)}
    assert configured(serve_args("--config", str(config)), environ).config.quick.queues == {
        "gin": {"settle": 1}
    }


def test_config_show_prints_every_value_and_where_it_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path / "ramino.toml", '[server]\nhost = "0.0.0.0"\n[bots]\ndelay = 0.5\n')
    monkeypatch.setenv("RAMINO_PORT", "7002")
    assert cli.main(["config", "show", "--config", str(config), "--watch-lag", "3"]) == 0
    lines = {line.split("=")[0].strip(): line for line in capsys.readouterr().out.splitlines()}
    assert lines["host"].endswith(f"# file {config}:2")
    assert lines["port"].endswith("# env RAMINO_PORT") and "7002" in lines["port"]
    assert lines["delay"].endswith(f"# file {config}:4") and "0.5" in lines["delay"]
    assert lines["watch_lag"].endswith("# flag --watch-lag") and "3.0" in lines["watch_lag"]
    assert lines["workers"].endswith("# default")
    shown = sum(1 for line in lines.values() if line.rstrip().endswith(("default", "RAMINO_PORT")))
    assert shown >= len(list(entries())) - 3


def test_config_show_refuses_what_serve_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path / "ramino.toml", "[server]\nport = 'x'\n")
    assert cli.main(["config", "show", "--config", str(config)]) == 2
    assert f"{config}:2: [server] port: a whole number, not 'x'" in capsys.readouterr().err


# --- refusals --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ('[server]\nhost = "h"\n\n# a port\nprot = 5\n', 5, "unknown key 'prot' in [server]"),
        ("[server]\nport = 1\n[servr]\nport = 1\n", 3, "unknown section [servr]"),
        ("port = 1\n", 1, "'port' is outside any section"),
        ("[server]\ntest_seed = 5\n", 2, "unknown key 'test_seed' in [server]"),
        (
            '[store]\nurl = "memory"\n[streams]\n  watch_queue = "big"\n',
            4,
            "[streams] watch_queue: a whole number, not 'big'",
        ),
        ("[server]\nport = 1.5\n", 2, "[server] port: a whole number, not '1.5'"),
        ("[bots]\nallow_bot_games = 1\n", 2, "[bots] allow_bot_games: true or false, not '1'"),
        ("[store]\nurl = 5\n", 2, "[store] url: a string, not '5'"),
        ("[quick]\nwindow = [1, 2]\n", 2, "BASE,STEP,INTERVAL,MAX"),
        ("[quick]\nparty_size = 9\n", 2, "a party holds 2 to 6 players, not '9'"),
        ("[connections]\nkeepalive_time = 0\n", 2, "a number of seconds above 0, not '0'"),
        ('\n[quick.queues.gin]\nsettle = "x"\n', 2, "queue 'gin': settle is a number"),
        ("[bots]\ntime_ms = { nobody = 3 }\n", 2, "LEVEL one of hard, expert"),
        ('server.port = "x"\n', 1, "[server] port: a whole number"),
    ],
)
def test_a_bad_key_or_value_is_refused_naming_the_files_line(
    tmp_path: Path, text: str, line: int, says: str
) -> None:
    config = write(tmp_path / "ramino.toml", text)
    with pytest.raises(ConfigError) as refused:
        resolve(config, {})
    assert str(refused.value).startswith(f"{config}:{line}: "), refused.value
    assert says in str(refused.value)


def test_serve_refuses_at_start_naming_the_key_and_line(tmp_path: Path) -> None:
    config = write(tmp_path / "ramino.toml", '[store]\nurl = "memory"\nretention = 5\n')
    done = subprocess.run(
        [sys.executable, "-m", "ramino", "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        env=clean_environment(),
        timeout=60,
    )
    assert done.returncode != 0
    assert f"ramino serve: {config}:3: unknown key 'retention' in [store]" in done.stderr


def test_a_bad_variable_or_file_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"RAMINO_PORT \(for --port\): a whole number, not 'x'"):
        resolve(None, {"RAMINO_PORT": "x"})
    with pytest.raises(ConfigError, match="not TOML"):
        resolve(write(tmp_path / "bad.toml", "[server\n"), {})
    with pytest.raises(ConfigError, match="no such file"):
        resolve(tmp_path / "missing.toml", {})


def test_key_lines_follow_headers_dotted_keys_and_skip_multiline_strings() -> None:
    text = (
        "# top\n"
        "[server]\n"
        'host = """\n'
        "port = 1\n"
        '"""\n'
        "port = 2\n"
        "[quick.queues.'gin/rated']\n"
        "settle = 1\n"
        "store.url = 'memory'\n"
    )
    lines = key_lines(text)
    assert line_of(lines, "server", "port") == 6
    assert line_of(lines, "quick", "queues") == 7
    assert line_of(lines, "quick", "queues", "gin/rated", "settle") == 8
    assert line_of(lines, "quick", "queues", "gin/rated", "store", "url") == 9


# --- a small file serves ---------------------------------------------------


def clean_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RAMINO_")}


@pytest.fixture
def small_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    port = free_port()
    config = write(
        tmp_path / "ramino.toml",
        f'[server]\nhost = "127.0.0.1"\nport = {port}\n[store]\nurl = "memory"\n',
    )
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "ramino", "serve", "--config", str(config)],
            env=clean_environment(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield f"127.0.0.1:{port}", process, log
    finally:
        stop_process(process)


def test_the_smallest_file_serves(
    small_server: tuple[str, subprocess.Popen[bytes], Path],
) -> None:
    address, process, log = small_server
    with grpc.insecure_channel(address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        while True:
            assert process.poll() is None, log.read_text()
            try:
                listed = stub.ListGames(game_pb2.ListGamesRequest(), wait_for_ready=True, timeout=2)
                break
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e
    assert list(listed.games) == []


# --- the README's tables are the tree's -------------------------------------


def test_the_readmes_tables_of_settings_are_made_from_the_tree() -> None:
    readme = (ROOT / "README.md").read_text()
    begin, end = readme.index(BEGIN), readme.index(END) + len(END) + 1
    assert readme[begin:end] == markdown(), "README.md is stale: run `ramino config markdown`"


def test_the_markdown_lists_every_setting_with_its_flag_and_variable() -> None:
    made = markdown()
    for flag, env, *_ in BEFORE:
        assert f"`{flag}`" in made
        assert env is None or f"`{env}`" in made


def test_the_configuration_imports_no_transport_and_no_store() -> None:
    """The tree is data: it knows the values the layers take, not the layers
    that serve (serve.py maps it onto them)."""
    from tests.service.test_layers import PACKAGE, imports

    for path in sorted((PACKAGE / "config").glob("*.py")):
        for name in imports(path):
            assert not name.startswith(("grpc", "ramino.api", "ramino.store")), (path, name)
