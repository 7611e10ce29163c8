"""One setting of ``ramino serve``: a field of a section of the
configuration tree whose metadata names its flag, its ``RAMINO_*``
variable, its help and its kind. Everything that lists settings (the
parser, ``ramino config show``, the README's tables) reads them from here."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ramino.config.kinds import Kind

KEY = "ramino.setting"
"""The key of a field's metadata that holds its :class:`Setting`."""


@dataclass(frozen=True, slots=True)
class Setting:
    flag: str
    """``--port``."""
    kind: Kind[Any]
    help: str
    env: str | None
    """The variable's name after ``RAMINO_``; None: the setting has none."""
    in_file: bool = True
    """False for a setting the file may not give (the test mode's seed)."""

    @property
    def variable(self) -> str | None:
        return None if self.env is None else f"RAMINO_{self.env}"

    @property
    def dest(self) -> str:
        """The attribute of the parsed command line."""
        return self.flag.removeprefix("--").replace("-", "_")


def setting(
    default: Any,
    flag: str,
    kind: Kind[Any],
    help: str,
    env: str | None = "",
    in_file: bool = True,
) -> Any:
    """A field of a section: its default and its setting. ``env`` empty:
    the flag's name in capitals; None: no variable."""
    if env == "":
        env = flag.removeprefix("--").replace("-", "_").upper()
    meta = Setting(flag, kind, help, env, in_file)
    return dataclasses.field(default=default, metadata={KEY: meta})


@dataclass(frozen=True, slots=True)
class Entry:
    """A setting where it sits in the tree: ``[section]`` ``key``."""

    section: str
    key: str
    setting: Setting
    default: Any

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"


def entries_of(section: str, cls: type) -> Iterator[Entry]:
    for f in dataclasses.fields(cls):
        yield Entry(section, f.name, f.metadata[KEY], f.default)
