"""The transcripts of every runner present agree byte for byte with
Python's (README.md, "Agreement"); the runners that
``RAMINO_CONFORMANCE_LANGS`` names must be present."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.conformance.agree import disagreements, required_languages
from tests.conformance.runner import TRANSCRIPTS, scenarios

PAIRS = [(s.name, s.sha256) for s in scenarios()]


def test_transcripts_of_every_runner_agree(python_run: dict[str, str | None]) -> None:
    required = required_languages(os.environ.get("RAMINO_CONFORMANCE_LANGS", "python"))
    present, problems = disagreements(TRANSCRIPTS, PAIRS, required | {"python"})
    assert "python" in present
    assert problems == []
    print("conformance transcripts compared:", " ".join(present))


def copy_python(python_run: dict[str, str | None], root: Path, lang: str) -> Path:
    shutil.copytree(TRANSCRIPTS / "python", root / "python")
    return Path(shutil.copytree(TRANSCRIPTS / "python", root / lang))


def test_a_required_runner_without_transcripts_fails(
    python_run: dict[str, str | None], tmp_path: Path
) -> None:
    copy_python(python_run, tmp_path, "go")
    _, problems = disagreements(tmp_path, PAIRS, {"python", "go", "typescript"})
    assert problems == [
        f"typescript: no transcripts in {tmp_path / 'typescript'} (its runner did not run)"
    ]


def test_a_differing_transcript_fails(python_run: dict[str, str | None], tmp_path: Path) -> None:
    go = copy_python(python_run, tmp_path, "go")
    name = PAIRS[0][0]
    text = (go / f"{name}.txt").read_text()
    (go / f"{name}.txt").write_text(text.replace('"handSize":', '"handSize" :', 1))
    _, problems = disagreements(tmp_path, PAIRS, {"python"})
    assert len(problems) == 1 and problems[0].startswith(f"go/{name}: differs from python: line")


def test_a_stale_or_missing_transcript_fails(
    python_run: dict[str, str | None], tmp_path: Path
) -> None:
    ts = copy_python(python_run, tmp_path, "typescript")
    first, second = PAIRS[0][0], PAIRS[1][0]
    path = ts / f"{first}.txt"
    path.write_text(path.read_text().replace("sha256=", "sha256=0", 1))
    (ts / f"{second}.txt").unlink()
    (ts / "99-gone.txt").write_text("format 1\n")
    _, problems = disagreements(tmp_path, PAIRS, {"python"})
    assert problems == [
        f"typescript: no transcript of {second}",
        "typescript: a transcript of no scenario: 99-gone",
        f"typescript/{first}: stale (written for another version of it)",
    ]
