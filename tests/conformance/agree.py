"""The comparison of the runners' transcripts (README.md, "Agreement")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

LANGUAGES = ("python", "typescript", "go", "kotlin")
"""Python first: the others are compared with it."""


def required_languages(text: str) -> set[str]:
    """The languages named by ``RAMINO_CONFORMANCE_LANGS`` (space or comma separated)."""
    return {x for x in re.split(r"[\s,]+", text) if x}


def disagreements(
    root: Path, scenarios: Sequence[tuple[str, str]], required: Iterable[str]
) -> tuple[list[str], list[str]]:
    """The languages compared, and every way their transcripts under
    ``root/LANG/`` disagree; ``scenarios`` are (name, sha256) pairs."""
    problems: list[str] = []
    required = set(required)
    for lang in sorted(required - set(LANGUAGES)):
        problems.append(f"RAMINO_CONFORMANCE_LANGS names an unknown language {lang!r}")
    present = [lang for lang in LANGUAGES if (root / lang).is_dir()]
    for lang in LANGUAGES:
        if lang in required and lang not in present:
            problems.append(f"{lang}: no transcripts in {root / lang} (its runner did not run)")
    if "python" not in present:
        return present, problems
    names = {name for name, _ in scenarios}
    for lang in present:
        files = {p.stem for p in (root / lang).glob("*.txt")}
        problems += [f"{lang}: no transcript of {n}" for n in sorted(names - files)]
        problems += [f"{lang}: a transcript of no scenario: {n}" for n in sorted(files - names)]
    for name, sha in scenarios:
        reference = root / "python" / f"{name}.txt"
        if not reference.exists():
            continue
        want = reference.read_bytes()
        for lang in present:
            path = root / lang / f"{name}.txt"
            if not path.exists():
                continue
            got = path.read_bytes()
            lines = got.decode("utf-8", "replace").split("\n")
            if len(lines) < 2 or lines[1] != f"scenario {name} sha256={sha}":
                problems.append(f"{lang}/{name}: stale (written for another version of it)")
            elif lang != "python" and got != want:
                where = first_difference(want, got)
                problems.append(f"{lang}/{name}: differs from python: {where}")
    return present, problems


def first_difference(want: bytes, got: bytes) -> str:
    a, b = want.decode("utf-8", "replace").split("\n"), got.decode("utf-8", "replace").split("\n")
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"line {i + 1}: python {x[:200]!r}, here {y[:200]!r}"
    return f"python has {len(a)} lines, here {len(b)}"
