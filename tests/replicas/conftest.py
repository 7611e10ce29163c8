"""Fixtures of the replica tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redis_cluster import RedisClusterServers


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of its own, for a test that kills one of its primaries."""
    cluster = RedisClusterServers(tmp_path / "redis-cluster", node_timeout_ms=1500)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
