"""The configuration ``ramino serve`` runs with, from its four sources:
a flag over a ``RAMINO_*`` variable over the file over the default.

The file is TOML, read by the standard library; ``--config`` names one
file, or a folder whose ``*.toml`` files are read in the order of their
names, a later file's key over an earlier one's (a Kubernetes ConfigMap
mounted as a folder, one file each from the base and its components). A
key the tree does not know, or a value of the wrong type, is refused naming
the file, the line and the key: tomllib gives no lines, so they are found
by reading the text for the table headers and the keys."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramino.config.setting import Entry
from ramino.config.tree import ServeConfig, entries, sections


class ConfigError(ValueError):
    """A configuration ``ramino serve`` refuses to start with: the message
    names the file and line, the variable or the flag, and the key."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a value came from."""

    kind: str
    """``default``, ``file``, ``env`` or ``flag``."""
    where: str = ""
    """The file and line, the variable or the flag."""

    def __str__(self) -> str:
        return self.kind if not self.where else f"{self.kind} {self.where}"


DEFAULT = Source("default")


@dataclass(frozen=True, slots=True)
class Resolved:
    """The configuration and, for each ``section.key``, where its value came from."""

    config: ServeConfig
    sources: Mapping[str, Source]
    files: tuple[Path, ...]


# --- finding a key's line in the TOML text ---------------------------------

_PART = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*""")


def _parts(dotted: str) -> list[str] | None:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]``; None when it is no dotted key."""
    parts: list[str] = []
    pos = 0
    while True:
        m = _PART.match(dotted, pos)
        if m is None:
            return None
        token = m[1]
        parts.append(token[1:-1] if token[0] in "\"'" else token)
        pos = m.end()
        if pos == len(dotted):
            return parts
        if dotted[pos] != ".":
            return None
        pos += 1


def key_lines(text: str) -> list[tuple[tuple[str, ...], int]]:
    """Every table header and key of a TOML text, as its full dotted path
    and its line (from 1), in order. A line within a multi-line string is
    skipped; an inline table counts as its key's line."""
    found: list[tuple[tuple[str, ...], int]] = []
    table: list[str] = []
    in_string = ""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if in_string:
            if stripped.count(in_string) % 2 == 1:
                in_string = ""
            continue
        if not stripped or stripped.startswith("#"):
            continue
        header = re.match(r"^\[\[?(.+?)\]\]?\s*(#.*)?$", stripped)
        if header is not None:
            parts = _parts(header[1])
            if parts is not None:
                table = parts
                found.append((tuple(table), number))
            continue
        key, sep, value = stripped.partition("=")
        parts = _parts(key) if sep else None
        if parts is not None:
            found.append((tuple(table + parts), number))
        for quotes in ('"""', "'''"):
            if value.count(quotes) % 2 == 1:
                in_string = quotes
    return found


def line_of(lines: list[tuple[tuple[str, ...], int]], *path: str) -> int | None:
    """The first line of ``path`` or of something under it."""
    for found, number in lines:
        if found[: len(path)] == path:
            return number
    return None


# --- reading the files -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class _FileValue:
    value: Any
    where: str


def config_files(path: Path) -> tuple[Path, ...]:
    """The file, or the ``*.toml`` files of the folder in the order of their names."""
    if path.is_dir():
        files = tuple(sorted(p for p in path.glob("*.toml") if not p.name.startswith(".")))
        if not files:
            raise ConfigError(f"{path}: a folder with no *.toml file")
        return files
    if not path.exists():
        raise ConfigError(f"{path}: no such file")
    return (path,)


def _read_file(path: Path) -> dict[str, _FileValue]:
    """``section.key`` -> its checked value and ``path:line``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as bad:
        raise ConfigError(f"{path}: cannot be read: {bad}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as bad:
        raise ConfigError(f"{path}: not TOML: {bad}") from None
    lines = key_lines(text)

    def at(*key: str) -> str:
        line = line_of(lines, *key)
        return f"{path}:{line}" if line is not None else str(path)

    known = dict(sections())
    by_key = {(e.section, e.key): e for e in entries()}
    out: dict[str, _FileValue] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(
                f"{at(section)}: {section!r} is outside any section: a setting goes in "
                f"its section ({', '.join(f'[{name}]' for name in known)})"
            )
        if section not in known:
            raise ConfigError(
                f"{at(section)}: unknown section [{section}] (the sections: " f"{', '.join(known)})"
            )
        for key, value in table.items():
            entry = by_key.get((section, key))
            if entry is None or not entry.setting.in_file:
                keys = [e.key for e in entries() if e.section == section and e.setting.in_file]
                raise ConfigError(
                    f"{at(section, key)}: unknown key {key!r} in [{section}] (its keys: "
                    f"{', '.join(keys)})"
                )
            try:
                checked = entry.setting.kind.from_toml(value)
            except ValueError as bad:
                raise ConfigError(f"{at(section, key)}: [{section}] {key}: {bad}") from None
            out[entry.name] = _FileValue(checked, at(section, key))
    return out


# --- the four sources ------------------------------------------------------


def resolve(
    config: str | Path | None,
    environ: Mapping[str, str],
    given: Mapping[str, object] | None = None,
) -> Resolved:
    """The configuration of ``config`` (a file, a folder of them, or None),
    ``environ``'s ``RAMINO_*`` variables (an empty one counts as unset) and
    ``given``, the flags given on the command line by their ``dest``,
    already parsed."""
    given = given or {}
    files = config_files(Path(config)) if config else ()
    from_files: dict[str, _FileValue] = {}
    for path in files:
        from_files.update(_read_file(path))
    values: dict[str, dict[str, Any]] = {name: {} for name, _ in sections()}
    sources: dict[str, Source] = {}
    for entry in entries():
        value, source = _value(entry, from_files, environ, given)
        values[entry.section][entry.key] = value
        sources[entry.name] = source
    built = {name: cls(**values[name]) for name, cls in sections()}
    return Resolved(ServeConfig(**built), sources, files)


def _value(
    entry: Entry,
    from_files: Mapping[str, _FileValue],
    environ: Mapping[str, str],
    given: Mapping[str, object],
) -> tuple[Any, Source]:
    s = entry.setting
    if s.dest in given:
        return given[s.dest], Source("flag", s.flag)
    variable = s.variable
    if variable is not None and environ.get(variable):
        try:
            return s.kind.from_text(environ[variable]), Source("env", variable)
        except ValueError as bad:
            raise ConfigError(f"{variable} (for {s.flag}): {bad}") from None
    if entry.name in from_files:
        found = from_files[entry.name]
        return found.value, Source("file", found.where)
    return entry.default, DEFAULT
