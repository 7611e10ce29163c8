"""Shared fixtures: a real Redis server for the tests that need one; and the
Hypothesis profiles: derandomized in CI (``CI`` set), random locally, a
failure printing how to reproduce it either way."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer, TlsRedisServer
from tests.support.tls import TestCA

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsRedisServer]:
    """A redis-server that speaks TLS only, its certificate from a CA of the
    tests (client certificates optional)."""
    folder = Path(tmp_path_factory.mktemp("redis-tls"))
    server = TlsRedisServer(folder / "data", TestCA(folder / "ca"), auth_clients="optional")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_tls_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterServers]:
    """A Redis Cluster whose nodes speak TLS only (clients, bus, replication),
    with certificates of a CA of the tests, and a password."""
    folder = Path(tmp_path_factory.mktemp("redis-tls-cluster"))
    cluster = RedisClusterServers(
        folder / "nodes", password="cluster-tls-password", tls=TestCA(folder / "ca")
    )
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


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
