"""The build of ramino-client: ``ramino_client.v1`` is generated (gen_proto.py)
whenever setuptools runs, before it looks for the packages, for a wheel and
an editable install alike; an sdist carries a copy of proto/ramino/v1 to
generate from."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.sdist import sdist

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_proto  # noqa: E402


class Sdist(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        target = Path(base_dir) / "proto" / "ramino" / "v1"
        shutil.copytree(gen_proto.proto_root() / "ramino" / "v1", target, dirs_exist_ok=True)


gen_proto.generate()
setup(cmdclass={"sdist": Sdist})
