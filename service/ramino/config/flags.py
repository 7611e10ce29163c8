"""The flags of ``ramino serve``, made from the tree: one a setting, each
with its ``RAMINO_*`` variable named in its help, and ``--config FILE``.

A flag's parsed default is its variable's value, or else its default, as
it always was, so that a caller reading the parsed namespace sees what the
command line and the environment say; the file comes in when
:func:`configured` resolves the four sources, knowing which flags were
really given (each flag's action notes that it was)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ramino.config.kinds import Kind
from ramino.config.load import Resolved, resolve
from ramino.config.setting import Entry
from ramino.config.tree import entries

GIVEN = "ramino_given_flags"
"""The attribute of the parsed namespace that holds the dests of the flags given."""


def _note(namespace: argparse.Namespace, dest: str) -> None:
    given: set[str] = getattr(namespace, GIVEN, set())
    given.add(dest)
    setattr(namespace, GIVEN, given)


class _Store(argparse.Action):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        _note(namespace, self.dest)


class _Switch(argparse.BooleanOptionalAction):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        super().__call__(parser, namespace, values, option_string)
        _note(namespace, self.dest)


def argument_type(kind: Kind[Any]) -> Callable[[str], Any]:
    """``kind`` read from a flag: argparse says the flag and the message."""

    def parse(text: str) -> Any:
        try:
            return kind.from_text(text)
        except ValueError as bad:
            raise argparse.ArgumentTypeError(str(bad)) from None

    parse.__name__ = kind.what
    return parse


def as_text(value: object) -> str:
    """A default as its flag would take it: ``3,3,10,60``."""
    if isinstance(value, tuple):
        return ",".join(f"{v:g}" for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value).replace("%", "%%")


def env_default(entry: Entry, environ: Mapping[str, str]) -> Any:
    """The entry's variable's value when it is set and valid, else its default
    (a bad one is refused, naming the variable, when the sources are resolved)."""
    variable = entry.setting.variable
    if variable is not None and environ.get(variable):
        try:
            return entry.setting.kind.from_text(environ[variable])
        except ValueError:
            pass
    return entry.default


def add_flags(p: argparse.ArgumentParser, environ: Mapping[str, str] | None = None) -> None:
    """``--config`` and one flag a setting of the tree."""
    environ = os.environ if environ is None else environ
    p.add_argument(
        "--config",
        metavar="FILE",
        default=environ.get("RAMINO_CONFIG") or None,
        help="a TOML file of settings (or a folder of *.toml files, read in name order); "
        "a flag wins over a variable, a variable over the file (docs/configuration.md) "
        "[RAMINO_CONFIG]",
    )
    for entry in entries():
        s = entry.setting
        help = s.help
        if entry.default is not None and not isinstance(entry.default, bool):
            help = f"{help} (default: {as_text(entry.default)})"
        if s.variable is not None:
            help = f"{help} [{s.variable}]"
        if isinstance(entry.default, bool):
            p.add_argument(s.flag, action=_Switch, default=env_default(entry, environ), help=help)
            continue
        p.add_argument(
            s.flag,
            action=_Store,
            type=argument_type(s.kind),
            default=env_default(entry, environ),
            metavar=s.kind.metavar,
            help=help,
        )


def given(args: argparse.Namespace) -> dict[str, object]:
    """The flags given on the command line, by dest, parsed."""
    return {dest: getattr(args, dest) for dest in getattr(args, GIVEN, set())}


def configured(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Resolved:
    """The configuration of a parsed ``ramino serve`` (or ``ramino config
    show``) command line: its flags, ``environ`` (the process's), its file."""
    environ = os.environ if environ is None else environ
    return resolve(getattr(args, "config", None), environ, given(args))
