"""``ramino config``: ``show`` prints what ``ramino serve`` would run with
and where each value came from; ``markdown`` prints the README's tables."""

from __future__ import annotations

import argparse
import sys

from ramino.config.flags import add_flags, configured
from ramino.config.load import ConfigError
from ramino.config.render import markdown, show


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("config", help="ramino serve's settings: where each comes from")
    actions = p.add_subparsers(dest="config_command", required=True)
    shown = actions.add_parser(
        "show",
        help="every setting ramino serve would run with, and where it came from "
        "(default, file:line, env VAR, flag); takes serve's flags",
    )
    add_flags(shown)
    shown.set_defaults(func=_show)
    made = actions.add_parser("markdown", help="the README's tables of settings")
    made.set_defaults(func=_markdown)


def _show(args: argparse.Namespace) -> int:
    try:
        resolved = configured(args)
    except ConfigError as refused:
        print(f"ramino config: {refused}", file=sys.stderr)
        return 2
    sys.stdout.write(show(resolved))
    return 0


def _markdown(args: argparse.Namespace) -> int:
    sys.stdout.write(markdown())
    return 0
