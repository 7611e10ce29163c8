"""The configuration as text: ``ramino config show`` (every value and where
it came from, as TOML one could keep) and the README's tables of settings."""

from __future__ import annotations

import json
import math
import re

from ramino.config.load import Resolved
from ramino.config.tree import entries, section_doc, sections

BEGIN = "<!-- begin: ramino config markdown -->"
END = "<!-- end: ramino config markdown -->"
"""The comments around the README's generated block."""

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_value(value: object) -> str:
    """``value`` written as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{toml_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"no TOML for {value!r}")


def toml_key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key)


def show(resolved: Resolved) -> str:
    """Every setting, section by section, with where its value came from; a
    value that is not set (its default is to work it out, or none) is a
    comment."""
    out: list[str] = []
    if resolved.files:
        out.append("# files: " + ", ".join(str(f) for f in resolved.files))
    for name, _ in sections():
        section = getattr(resolved.config, name)
        rows: list[tuple[str, str]] = []
        for entry in (e for e in entries() if e.section == name):
            value = getattr(section, entry.key)
            text = f"# {entry.key} is not set"
            if value is not None:
                text = f"{entry.key} = {toml_value(value)}"
                if not entry.setting.in_file:
                    text = f"# {text} (a flag only)"
            rows.append((text, str(resolved.sources[entry.name])))
        width = max(len(t) for t, _ in rows)
        if out:
            out.append("")
        out.append(f"[{name}]")
        out.extend(f"{t.ljust(width)}  # {source}" for t, source in rows)
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The README's tables: one a section, one row a setting (its key, flag,
    variable, default and meaning)."""
    out = [
        BEGIN,
        "<!-- made by `ramino config markdown` from service/ramino/config/tree.py; "
        "tests/test_config.py fails when it is stale -->",
    ]
    for name, cls in sections():
        out += ["", f"`[{name}]`: {section_doc(cls)}", ""]
        out += ["| key | flag | variable | default | meaning |", "|---|---|---|---|---|"]
        for entry in (e for e in entries() if e.section == name):
            s = entry.setting
            key = f"`{entry.key}`" if s.in_file else "(flag only)"
            variable = f"`{s.variable}`" if s.variable else "none"
            default = "" if entry.default is None else f"`{toml_value(entry.default)}`"
            out.append(f"| {key} | `{s.flag}` | {variable} | {_cell(default)} | {_cell(s.help)} |")
    out += ["", END]
    return "\n".join(out) + "\n"
