"""``ramino serve``'s flags: each value flag's default comes from its
``RAMINO_*`` variable (an empty one counts as unset), its help names that
variable, and a flag given on the command line wins over the environment."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from ramino import serve


def parse(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve.add_parser(parser.add_subparsers())
    return parser.parse_args(["serve", *flags])


def env_name(flag: str) -> str:
    return serve.ENV_NAMES.get(flag, flag.removeprefix("--").replace("-", "_").upper())


def test_every_value_flag_names_its_environment_variable_in_its_help() -> None:
    parser = argparse.ArgumentParser()
    serve.add_parser(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    helps = {s: a.help for a in sub._actions for s in a.option_strings}
    for flag, *_ in serve.FLAGS:
        assert (helps[flag] or "").endswith(f"[RAMINO_{env_name(flag)}]"), flag


def test_the_defaults_without_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for flag, *_ in serve.FLAGS:
        monkeypatch.delenv(f"RAMINO_{env_name(flag)}", raising=False)
    args = parse()
    assert (args.host, args.port, args.grace, args.metrics_port) == ("127.0.0.1", 50051, 10.0, None)
    assert (args.max_message_bytes, args.watch_queue_bytes) == (16 * 1024, 256 * 1024)
    assert args.bot_time_ms is None and args.archive is None and args.log_level == "info"


def test_the_environment_sets_defaults_and_the_command_line_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAMINO_PORT", "6001")
    monkeypatch.setenv("RAMINO_GRACE_SECONDS", "2.5")
    monkeypatch.setenv("RAMINO_BOT_TIME_MS", "hard=7")
    monkeypatch.setenv("RAMINO_ARCHIVE", "")  # empty: unset
    args = parse()
    assert (args.port, args.grace, args.bot_time_ms, args.archive) == (
        6001,
        2.5,
        {"hard": 7.0},
        None,
    )
    assert parse("--port", "6002", "--bot-time-ms", "expert=9").port == 6002
    assert parse("--bot-time-ms", "expert=9").bot_time_ms == {"expert": 9.0}


def test_a_bad_value_on_the_command_line_is_refused_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parse("--bot-time-ms", "nobody=3")
    assert "--bot-time-ms" in capsys.readouterr().err


def test_a_ticket_grace_is_a_number_of_seconds_above_zero(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert parse("--quick-ticket-grace", "1.5").quick_ticket_grace == 1.5
    for bad in ("0", "-2", "nan", "inf", "soon"):
        with pytest.raises(SystemExit):
            parse("--quick-ticket-grace", bad)
        err = capsys.readouterr().err
        assert "--quick-ticket-grace" in err and "above 0" in err, bad


def test_the_connection_flags_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for flag, *_ in serve.FLAGS:
        monkeypatch.delenv(f"RAMINO_{env_name(flag)}", raising=False)
    args = parse()
    assert (args.max_connections_per_address, args.max_connections_per_prefix) == (256, None)
    assert (args.connection_prefix_ipv4, args.connection_prefix_ipv6) == (24, 64)
    assert (args.max_connection_idle, args.keepalive_time, args.keepalive_timeout) == (
        60.0,
        60.0,
        20.0,
    )
    monkeypatch.setenv("RAMINO_CONNECTION_PREFIX_IPV6", "48")
    monkeypatch.setenv("RAMINO_MAX_CONNECTION_IDLE", "0")
    args = parse("--connection-prefix-ipv4", "30", "--max-connections-per-prefix", "0")
    assert (args.connection_prefix_ipv4, args.connection_prefix_ipv6) == (30, 48)
    assert (args.max_connections_per_prefix, args.max_connection_idle) == (0, 0.0)


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--connection-prefix-ipv4", "33", "an IPv4 prefix length is 0 to 32, not '33'"),
        ("--connection-prefix-ipv6", "/64", "an IPv6 prefix length is 0 to 128, not '/64'"),
        ("--max-connection-idle", "-1", "a number of seconds, 0 or more, not '-1'"),
        ("--keepalive-time", "0", "a number of seconds above 0, not '0'"),
        ("--keepalive-timeout", "nan", "a number of seconds above 0, not 'nan'"),
    ],
)
def test_a_bad_connection_flag_is_refused_by_name_and_why(
    flag: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse(flag, value)
    assert f"argument {flag}: {says}" in capsys.readouterr().err


def test_the_quick_play_queue_flags_and_their_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for flag, *_ in serve.FLAGS:
        monkeypatch.delenv(f"RAMINO_{env_name(flag)}", raising=False)
    args = parse()
    assert args.quick_window == (3.0, 3.0, 10.0, 60.0) and args.quick_settle == 5.0
    assert (args.quick_turn_timer, args.quick_party_size, args.quick_queues) == (60, 4, None)
    queues = tmp_path / "queues.json"
    queues.write_text(json.dumps({"gin/rated": {"settle": 10, "turn_timer_seconds": 30}}))
    monkeypatch.setenv("RAMINO_QUICK_WINDOW", "5,5,20,100")
    monkeypatch.setenv("RAMINO_QUICK_SETTLE", "2")
    monkeypatch.setenv("RAMINO_QUICK_QUEUES", str(queues))
    args = parse("--quick-turn-timer", "90", "--quick-party-size", "6")
    assert args.quick_window == (5.0, 5.0, 20.0, 100.0) and args.quick_settle == 2.0
    assert (args.quick_turn_timer, args.quick_party_size) == (90, 6)
    assert args.quick_queues == {"gin/rated": {"settle": 10, "turn_timer_seconds": 30}}


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--quick-window", "3,3,10", "BASE,STEP,INTERVAL,MAX"),
        ("--quick-window", "3,3,0,60", "interval above 0"),
        ("--quick-window", "9,3,10,6", "max at least base"),
        ("--quick-settle", "-1", "0 or more"),
        ("--quick-turn-timer", "99999", "0 to 86400"),
        ("--quick-party-size", "7", "2 to 6"),
        ("--quick-invitation-ttl", "0", "above 0"),
    ],
)
def test_a_bad_quick_play_flag_is_refused_by_name(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, says: str
) -> None:
    with pytest.raises(SystemExit):
        parse(flag, value)
    err = capsys.readouterr().err
    assert flag in err and says in err, err


@pytest.mark.parametrize(
    ("queues", "says"),
    [
        ("[1]", "an object of queues"),
        ("{", "queues.json"),
        ('{"nosuch": {"settle": 1}}', "no variant 'nosuch'"),
        ('{"gin/ranked": {"settle": 1}}', "VARIANT/rated"),
        ('{"gin": {"patience": 1}}', "unknown knob 'patience'"),
        ('{"gin": {"settle": "soon"}}', "settle is a number"),
        ('{"gin": {"turn_timer_seconds": 1.5}}', "whole number"),
        ('{"gin/rated": {"window_interval": 0}}', "queue 'gin/rated'"),
    ],
)
def test_a_bad_queues_file_is_refused_naming_what_is_wrong(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, queues: str, says: str
) -> None:
    path = tmp_path / "queues.json"
    path.write_text(queues)
    with pytest.raises(SystemExit):
        parse("--quick-queues", str(path))
    err = capsys.readouterr().err
    assert "--quick-queues" in err and says in err, err


def test_the_streams_per_connection_help_names_sessions_and_the_sdks_share() -> None:
    """--max-streams-per-connection counts PlayGame sessions as well as
    WatchGame streams (issue 35), and the SDKs keep below it."""
    parser = argparse.ArgumentParser()
    serve.add_parser(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    helps = {s: a.help for a in sub._actions for s in a.option_strings}
    text = helps["--max-streams-per-connection"] or ""
    assert "WatchGame and PlayGame sessions alike" in text
    assert "TOO_MANY_STREAMS" in text and "The SDKs open another connection past 50" in text
