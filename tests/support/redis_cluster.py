"""A real Redis Cluster on loopback: three primaries and a replica each, on
free ports, with their data in a temporary directory; every wait is bounded."""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.support.redis_server import (
    INSTALL_HINT,
    free_port,
    redis_flags,
    redis_tls_flags,
    stop_process,
)
from tests.support.tls import TestCA


@dataclass
class ClusterNodeProcess:
    """One redis-server of the cluster; ``restart`` brings it back with its
    data and node file, so it rejoins (as a replica if it lost its slots)."""

    binary: str
    data_dir: Path
    node_timeout_ms: int
    appendfsync: str
    password: str | None = None
    tls: TestCA | None = None
    """Speak TLS only, to clients, the cluster bus and replicas alike, with a
    certificate of this CA (for 127.0.0.1 and localhost)."""
    port: int = field(default_factory=free_port)
    bus_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        if self.tls is not None:
            return redis.Redis(
                port=self.port,
                socket_timeout=5,
                password=self.password,
                ssl=True,
                ssl_ca_certs=str(self.tls.ca_file),
            )
        return redis.Redis(port=self.port, socket_timeout=5, password=self.password)

    def _tls_flags(self) -> list[str]:
        if self.tls is None:
            return []
        certificate = self.tls.issue(f"node-{self.port}", folder=self.data_dir, peer=True)
        flags = redis_tls_flags(self.port, certificate, self.tls, "no")
        return [*flags, "--tls-cluster", "yes", "--tls-replication", "yes"]

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                self.binary,
                *redis_flags(0 if self.tls else self.port, self.data_dir, self.appendfsync),
                *self._tls_flags(),
                "--cluster-port",
                str(self.bus_port),
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(self.node_timeout_ms),
                # A replica fails over however long it was cut off from its
                # primary: the tests kill primaries on purpose.
                "--cluster-replica-validity-factor",
                "0",
                *(
                    ["--requirepass", self.password, "--masterauth", self.password]
                    if self.password
                    else []
                ),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(lambda: self._pings(), f"redis-server on port {self.port} did not start")

    def _pings(self) -> bool:
        try:
            with self.client() as c:
                return bool(c.ping())
        except redis.RedisError:
            return False

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no goodbye, no last fsync beyond what its policy did."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None

    def info(self, section: str) -> dict[str, str]:
        with self.client() as c:
            return {str(k): str(v) for k, v in c.info(section).items()}

    def command_calls(self) -> dict[str, int]:
        """Command name -> calls served since start (INFO commandstats)."""
        with self.client() as c:
            stats = c.info("commandstats")
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}

    def cluster_nodes(self) -> dict[str, tuple[str, str, bool]]:
        """This node's view of the cluster (CLUSTER NODES): node id -> its
        flags, the id of the primary it replicates ("-" for a primary), and
        whether it serves slots."""
        with self.client() as c:
            found = c.execute_command("CLUSTER", "NODES")
        if isinstance(found, dict):  # redis-py parses it: address -> fields
            return {
                str(v["node_id"]): (
                    str(v["flags"]),
                    str(v.get("master_id") or "-"),
                    bool(v.get("slots")),
                )
                for v in found.values()
            }
        text = found.decode() if isinstance(found, bytes) else str(found)
        view = {}
        for line in text.splitlines():
            fields = line.split()
            if len(fields) >= 8:
                view[fields[0]] = (fields[2], fields[3], len(fields) > 8)
        return view

    def replicas_online(self) -> set[int]:
        """The ports of the replicas this primary has fully synced (INFO
        replication's ``slaveN`` with ``state=online``)."""
        with self.client() as c:
            found = c.info("replication")
        return {
            int(v["port"])
            for k, v in found.items()
            if k.startswith("slave") and k[5:].isdigit() and v.get("state") == "online"
        }

    def node_id(self) -> str:
        with self.client() as c:
            return str(c.execute_command("CLUSTER", "MYID").decode())

    def cluster_info(self) -> dict[str, str]:
        with self.client() as c:
            found = c.execute_command("CLUSTER", "INFO")
        if isinstance(found, dict):
            return {str(k): str(v) for k, v in found.items()}
        text = found.decode() if isinstance(found, bytes) else str(found)
        pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
        return {k: v.strip() for k, v in pairs}


def wait_for(check: object, failure: str, timeout: float = 30.0) -> None:
    """Polls ``check`` until it is true; fails with ``failure`` after ``timeout``."""
    assert callable(check)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise RuntimeError(failure)


class RedisClusterServers:
    """``primaries`` primaries with ``replicas`` replicas each."""

    def __init__(
        self,
        data_dir: Path,
        primaries: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 1500,
        appendfsync: str = "always",
        password: str | None = None,
        tls: TestCA | None = None,
    ) -> None:
        """``tls``: every node speaks TLS only, with certificates of this CA."""
        binary = shutil.which("redis-server")
        cli = shutil.which("redis-cli")
        if binary is None or cli is None:
            raise RuntimeError(INSTALL_HINT)
        self.cli = cli
        self.replicas = replicas
        self.password = password
        self.tls = tls
        self.nodes = [
            ClusterNodeProcess(
                binary, data_dir / f"node{i}", node_timeout_ms, appendfsync, password, tls
            )
            for i in range(primaries * (1 + replicas))
        ]

    @property
    def url(self) -> str:
        credentials = f":{self.password}@" if self.password else ""
        nodes = ",".join(n.address for n in self.nodes)
        if self.tls is not None:
            return f"rediss+cluster://{credentials}{nodes}?tls_ca_file={self.tls.ca_file}"
        return "redis+cluster://" + credentials + nodes

    def start(self) -> None:
        for n in self.nodes:
            n.start()
        subprocess.run(
            [
                self.cli,
                "--cluster",
                "create",
                *(n.address for n in self.nodes),
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
                *(["-a", self.password, "--no-auth-warning"] if self.password else []),
                *(["--tls", "--cacert", str(self.tls.ca_file)] if self.tls else []),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        self.wait_healthy()
        self.wait_synced()

    def wait_synced(self, timeout: float = 60.0) -> None:
        """Until every replica has finished its first sync (its primary lists
        it ``online``, no sync in progress) and every live node sees it as the
        replica of a primary that serves slots: before that, a primary killed
        is never failed over (its replica is not elected)."""

        def synced() -> bool:
            try:
                live = [n for n in self.nodes if n.alive()]
                ids = {n.port: n.node_id() for n in live}
                replicas: dict[str, str] = {}  # replica id -> its primary's id
                for n in live:
                    repl = n.info("replication")
                    if repl.get("role") == "slave":
                        if repl.get("master_link_status") != "up":
                            return False
                        if repl.get("master_sync_in_progress") != "0":
                            return False
                        primary = next(p for p in live if p.port == int(repl["master_port"]))
                        if n.port not in primary.replicas_online():
                            return False
                        replicas[ids[n.port]] = ids[primary.port]
                if len(replicas) != self.replicas * (len(self.nodes) // (1 + self.replicas)):
                    return False
                for n in live:
                    view = n.cluster_nodes()
                    for replica, primary in replicas.items():
                        flags, master, _ = view.get(replica, ("", "", False))
                        if "slave" not in flags or master != primary or not view[primary][2]:
                            return False
                return True
            except (redis.RedisError, KeyError, StopIteration):
                return False

        wait_for(
            synced, "the Redis Cluster's replicas did not all finish their first sync", timeout
        )

    def wait_healthy(self, timeout: float = 60.0) -> None:
        """Until every live node sees the cluster ok with every slot served,
        and every replica's link to its primary is up."""

        def healthy() -> bool:
            try:
                for n in self.nodes:
                    if not n.alive():
                        continue
                    info = n.cluster_info()
                    if info.get("cluster_state") != "ok" or info.get("cluster_slots_ok") != "16384":
                        return False
                    repl = n.info("replication")
                    if repl.get("role") == "slave" and repl.get("master_link_status") != "up":
                        return False
                return True
            except redis.RedisError:
                return False

        wait_for(healthy, "the Redis Cluster did not become healthy", timeout)

    def primaries(self) -> list[ClusterNodeProcess]:
        return [n for n in self.nodes if n.alive() and n.info("replication")["role"] == "master"]

    def slot_ranges(self) -> dict[int, list[tuple[int, int]]]:
        """Primary port -> the slot ranges it serves, as a live node sees it."""
        live = next(n for n in self.nodes if n.alive())
        with live.client() as c:
            shards = c.execute_command("CLUSTER", "SLOTS")
        ranges: dict[int, list[tuple[int, int]]] = {}
        for start, end, primary, *_ in shards:
            ranges.setdefault(int(primary[1]), []).append((int(start), int(end)))
        return ranges

    def primary_of_slot(self, slot: int) -> ClusterNodeProcess:
        for port, ranges in self.slot_ranges().items():
            if any(a <= slot <= b for a, b in ranges):
                return next(n for n in self.nodes if n.port == port)
        raise LookupError(f"no primary serves slot {slot}")

    def wait_promoted(self, killed: ClusterNodeProcess, timeout: float = 60.0) -> None:
        """Until the slots of the killed primary are served by another node."""

        def promoted() -> bool:
            try:
                ranges = self.slot_ranges()
                return (
                    killed.port not in ranges
                    and sum(b - a + 1 for rs in ranges.values() for a, b in rs) == 16384
                )
            except redis.RedisError:
                return False

        wait_for(promoted, f"no replica took over from {killed.address}", timeout)

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()
