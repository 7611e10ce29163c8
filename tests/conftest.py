"""Shared fixtures: a real Redis server for the tests that need one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterServers]:
    """A Redis Cluster of three primaries with a replica each, shared by the
    tests that only read and write (tests that kill nodes start their own).
    Its nodes ask for a password, so the store's URL carries one."""
    cluster = RedisClusterServers(
        Path(tmp_path_factory.mktemp("redis-cluster")), password="cluster-test-password"
    )
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
