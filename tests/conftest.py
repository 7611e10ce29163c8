"""Shared fixtures: a real Redis server for the tests that need one; the
Hypothesis profiles: derandomized in CI (``CI`` set), random locally, a
failure printing how to reproduce it either way; and the marks that split the
suite (``make test`` runs every test, ``make check`` the ones not slow)."""

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

TESTS = Path(__file__).resolve().parent
PACKAGING = {"deploy/test_image.py", "deploy/test_pip_install.py", "client/test_install.py"}
"""Tests that build and install packages (a wheel, ``pip install .`` of the
checkout, the SDK into a fresh virtualenv): ``make test-packaging`` runs them
before every other test, since a build writes the checkout's generated code."""
SLOW = (
    "bench/",
    "client/",
    "conformance/",
    "deploy/",
    "gateway/",
    "replicas/",
    "engine/test_engine_soak.py",
    "engine/test_gin_openspiel.py",
    "engine/test_engine_stateful.py",
    "service/test_leaks.py",
    "service/test_lost_writes.py",
    "service/test_redis_cluster_store.py",
)
"""Tests of whole processes (servers, gateways, SDK runners, Redis Cluster
failovers, installs) and the longest property runs, by path below tests/,
besides every test on a Redis Cluster (``redis-cluster`` in its name): ``make
check`` leaves them to ``make test``."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(TESTS).as_posix()
        if where in PACKAGING:
            item.add_marker(pytest.mark.packaging)
        if where in PACKAGING or where.startswith(SLOW) or "redis-cluster" in item.name:
            item.add_marker(pytest.mark.slow)


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
