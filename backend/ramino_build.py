"""The server's PEP 517 build backend: maturin's, after generating ramino.v1.

maturin runs no code generator, and ``ramino.v1`` (the gRPC code generated
from proto/, gitignored) must be in the wheel, so ``pip install .`` from a
clean checkout would build a server that cannot start. This backend
generates it (as ``make proto-server`` does) before it hands each hook to
maturin. The Makefile and deploy/Dockerfile call maturin directly, after
``make proto-server``.
"""

from __future__ import annotations

import shutil
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
    """service/ramino/v1 from proto/ramino/v1/*.proto (kept as it is when
    there is no proto/ to generate from)."""
    from grpc_tools import protoc  # type: ignore[import-untyped]

    proto = ROOT / "proto"
    if not (proto / "ramino" / "v1").is_dir():
        return
    out = ROOT / "service"
    shutil.rmtree(out / "ramino" / "v1", ignore_errors=True)
    files = sorted(str(p.relative_to(proto)) for p in (proto / "ramino" / "v1").glob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    args = [
        "protoc",
        f"-I{proto}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("ramino: protoc failed on " + " ".join(files))
    (out / "ramino" / "v1" / "__init__.py").touch()


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
