"""The build of ramino-client: ``ramino_client.v1`` is generated (gen_proto.py)
whenever setuptools runs, before it looks for the packages, for a wheel and
an editable install alike; an sdist carries a copy of proto/ramino/v1 (and google/rpc) to
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
        for folder in (("ramino", "v1"), ("google", "rpc")):  # google.rpc.Status: PlayGame
            target = Path(base_dir, "proto", *folder)
            shutil.copytree(Path(gen_proto.proto_root(), *folder), target, dirs_exist_ok=True)


gen_proto.generate()
setup(cmdclass={"sdist": Sdist})
