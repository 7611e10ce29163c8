"""Generates ``ramino_client.v1`` from the proto files of API v1.

protoc names a generated module by its proto's path, so ``ramino/v1/game.proto``
becomes ``ramino.v1.game_pb2`` and imports its siblings as ``from ramino.v1
import ...``: the name of the server's package. The modules are generated into
a scratch folder and written into ``src/ramino_client/v1/`` with those imports
(and only those) renamed to ``ramino_client.v1``, so the SDK never imports, and
never shadows, the server's ``ramino`` package. The descriptors inside are
untouched: both packages register the same ``ramino/v1/*.proto`` files, which
the protobuf runtime accepts, so the server and the SDK can share a process.

Run by setup.py at every build and by ``make proto``; ``python gen_proto.py``
by hand. The output is gitignored and never edited.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "src" / "ramino_client" / "v1"
# The repository's proto/, or the copy an sdist carries (see setup.py).
SOURCES = (HERE.parent.parent / "proto", HERE / "proto")
IMPORT = re.compile(r"^from ramino\.v1 import ", re.MULTILINE)


def proto_root() -> Path:
    for root in SOURCES:
        if (root / "ramino" / "v1").is_dir():
            return root
    raise SystemExit(f"ramino-client: no ramino/v1/*.proto under {' or '.join(map(str, SOURCES))}")


def generate() -> None:
    from grpc_tools import protoc  # type: ignore[import-untyped]  # a build requirement

    root = proto_root()
    protos = sorted(str(p.relative_to(root)) for p in (root / "ramino" / "v1").glob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    with tempfile.TemporaryDirectory() as scratch:
        args = [
            "protoc",
            f"-I{root}",
            f"-I{include}",
            f"--python_out={scratch}",
            f"--pyi_out={scratch}",
            f"--grpc_python_out={scratch}",
            *protos,
        ]
        if protoc.main(args) != 0:
            raise SystemExit("ramino-client: protoc failed on " + " ".join(protos))
        shutil.rmtree(OUT, ignore_errors=True)
        OUT.mkdir(parents=True)
        for module in sorted((Path(scratch) / "ramino" / "v1").iterdir()):
            text = IMPORT.sub("from ramino_client.v1 import ", module.read_text())
            (OUT / module.name).write_text(text)
    (OUT / "__init__.py").write_text('"""Generated from proto/ramino/v1 by gen_proto.py."""\n')


if __name__ == "__main__":
    generate()
    sys.exit(0)
