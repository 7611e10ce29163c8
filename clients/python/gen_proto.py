"""Generates the Python code of API v1 from its proto files: the one generator
of both Python packages that carry it.

- the SDK's ``ramino_client.v1`` (the default): run by setup.py at every
  build, and by ``make build``;
- the server's ``ramino.v1`` (``--package ramino.v1 --out service/ramino/v1``):
  run by ``make build`` and ``make wheel``, and by the server's build backend
  (``backend/ramino_build.py``) for ``pip install .``.

protoc names a generated module by its proto's path, so ``ramino/v1/game.proto``
becomes ``ramino.v1.game_pb2`` and imports its siblings as ``from ramino.v1
import ...``: the name of the server's package. For the SDK the modules are
written with those imports (and only those) renamed to ``ramino_client.v1``,
so the SDK never imports, and never shadows, the server's ``ramino`` package.
The descriptors inside are untouched: both packages register the same
``ramino/v1/*.proto`` files, which the protobuf runtime accepts, so the server
and the SDK can share a process.

The modules are generated into a scratch folder beside the output and put in
place by two renames, so a process importing the package meanwhile never
reads a half-written folder. The output is gitignored and never edited.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "src" / "ramino_client" / "v1"
PACKAGE = "ramino_client.v1"
# The repository's proto/, or the copy an sdist carries (see setup.py).
SOURCES = (HERE.parent.parent / "proto", HERE / "proto")
IMPORT = re.compile(r"^from ramino\.v1 import ", re.MULTILINE)


def proto_root() -> Path:
    for root in SOURCES:
        if (root / "ramino" / "v1").is_dir():
            return root
    raise SystemExit(f"ramino: no ramino/v1/*.proto under {' or '.join(map(str, SOURCES))}")


def generate(out: Path = OUT, package: str = PACKAGE, root: Path | None = None) -> None:
    """Writes the modules of ``root``'s ``ramino/v1/*.proto`` into ``out`` as
    the package ``package`` (``ramino.v1`` or ``ramino_client.v1``)."""
    from grpc_tools import protoc  # type: ignore[import-untyped]  # a build requirement

    root = root or proto_root()
    protos = sorted(str(p.relative_to(root)) for p in (root / "ramino" / "v1").glob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".gen-") as scratch:
        generated = Path(scratch) / "protoc"
        generated.mkdir()
        args = [
            "protoc",
            f"-I{root}",
            f"-I{include}",
            f"--python_out={generated}",
            f"--pyi_out={generated}",
            f"--grpc_python_out={generated}",
            *protos,
        ]
        if protoc.main(args) != 0:
            raise SystemExit("ramino: protoc failed on " + " ".join(protos))
        staged = Path(scratch) / "package"
        staged.mkdir()
        for module in sorted((generated / "ramino" / "v1").iterdir()):
            text = IMPORT.sub(f"from {package} import ", module.read_text())
            (staged / module.name).write_text(text)
        docstring = '"""Generated from proto/ramino/v1 by gen_proto.py."""\n'
        (staged / "__init__.py").write_text(docstring)
        old = Path(scratch) / "old"
        if out.exists():
            os.rename(out, old)
        os.rename(staged, out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the package's folder")
    parser.add_argument("--package", default=PACKAGE, help="its import name")
    args = parser.parse_args(argv)
    generate(args.out.resolve(), args.package)


if __name__ == "__main__":
    main()
    sys.exit(0)
