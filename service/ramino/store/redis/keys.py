"""Where a game's keys and the indexes live (the layout of the package's
docstring): one Redis, or a Cluster's buckets sharing a hash tag."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

PARTS = ("meta", "log", "req", "reqs", "snap")
"""A game's lasting keys (the lease and the expiry claim come and go)."""
INDEXES = ("games", "duties", "finished")
DEFAULT_BUCKETS = 64


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a game's keys and the indexes live."""

    prefix: str
    buckets: int = 0
    """0: one Redis, the original layout; else how many index shards."""

    def bucket(self, game_id: str) -> int:
        return zlib.crc32(game_id.encode()) % self.buckets if self.buckets else 0

    def key(self, game_id: str, part: str) -> str:
        if not self.buckets:
            return f"{self.prefix}g:{{{game_id}}}:{part}"
        return f"{{{self.prefix}b{self.bucket(game_id)}}}:g:{game_id}:{part}"

    def channel(self, game_id: str) -> str:
        """The game's feed channel (sharded pub/sub: in the slot of its keys)."""
        return self.key(game_id, "feed")

    def index(self, name: str, bucket: int = 0) -> str:
        if not self.buckets:
            return f"{self.prefix}{name}"
        return f"{{{self.prefix}b{bucket}}}:{name}"

    def game_index(self, name: str, game_id: str) -> str:
        return self.index(name, self.bucket(game_id))

    @property
    def all_buckets(self) -> range:
        return range(max(self.buckets, 1))
