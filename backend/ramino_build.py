"""The server's PEP 517 build backend: maturin's, after generating ramino.v1.

maturin runs no code generator, and ``ramino.v1`` (the gRPC code generated
from proto/, gitignored) must be in the wheel, so ``pip install .`` from a
clean checkout would build a server that cannot start. This backend
generates it (with clients/python/gen_proto.py, as ``make build`` does)
before it hands each hook to maturin. The Makefile and deploy/Dockerfile call
maturin directly, after generating it the same way.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import maturin  # type: ignore[import-untyped]
from maturin import (
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

ROOT = Path(__file__).resolve().parent.parent


def generate() -> None:
    """service/ramino/v1 from proto/ramino/v1/*.proto, by the one generator of
    both Python packages (clients/python/gen_proto.py); kept as it is when
    there is no proto/ to generate from."""
    if not (ROOT / "proto" / "ramino" / "v1").is_dir():
        return
    sys.path.insert(0, str(ROOT / "clients" / "python"))
    try:
        import gen_proto
    finally:
        sys.path.pop(0)
    gen_proto.generate(ROOT / "service" / "ramino" / "v1", "ramino.v1", ROOT / "proto")


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    generate()
    name: str = maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
    return name


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    generate()
    name: str = maturin.build_editable(wheel_directory, config_settings, metadata_directory)
    return name
