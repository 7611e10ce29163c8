"""The rendered prod overlay rehearsed on loopback (tests/deploy/kubelet.py):
Redis with its rendered configuration, the server's replicas as the
Deployment starts them, then a rolling update by the Deployment's strategy
while games (a person's seat played through the SDK against a bot) and their
spectators run through one client balancing round_robin over every replica."""

from __future__ import annotations

import asyncio
import re
import secrets
import shutil
import sys
import traceback
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis
from ramino.config import resolve
from ramino.v1 import game_pb2
from ramino_client import AsyncClient, MatchEnded, Snapshot

from tests.deploy.kubelet import LOOPBACK, Network, Pod, RollingUpdate
from tests.deploy.manifests import Obj, one, pod_labels, redis_conf, render, selects
from tests.deploy.players import GameRun, consecutive, play_game

LANES = 6
# The operator's Secret (deploy/README.md): every replica gets the same key.
SECRETS = {"ramino-token": {"secret": secrets.token_urlsafe(48)}}


def executable(name: str) -> str:
    """The image's programs: this checkout's `ramino`, the machine's redis."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed (`make test` installs redis-server)")
    return found


class Cluster:
    def __init__(self, root: Path) -> None:
        self.objects = render("prod")
        self.root = root
        self.network = Network()
        self.pods: list[Pod] = []

    def pod(self, name: str, workload: Obj) -> Pod:
        pod = Pod(name, workload, self.objects, self.root, self.network, SECRETS, executable)
        self.pods.append(pod)
        return pod

    async def start_redis(self) -> Pod:
        statefulset = one(self.objects, "StatefulSet", "ramino-redis")
        pod = self.pod("ramino-redis-0", statefulset)
        (port,) = pod.ports.values()
        # The pod's network and volume, where its config names them, on
        # loopback: redis.conf as mounted, with those three lines rewritten.
        conf_file = Path(pod.argv[1])
        local = {
            "port": str(port),
            "bind": LOOPBACK,
            "dir": pod.local_path(redis_conf(self.objects)["dir"]),
        }
        lines = []
        for line in conf_file.read_text().splitlines():
            key = line.partition(" ")[0]
            lines.append(f"{key} {local[key]}" if key in local else line)
        conf_file.write_text("\n".join(lines) + "\n")
        for svc in (o for o in self.objects if o["kind"] == "Service"):
            if selects({"matchLabels": svc["spec"]["selector"]}, pod_labels(statefulset)):
                for p in svc["spec"]["ports"]:
                    name = f"{svc['metadata']['name']}:{p['port']}"
                    self.network.services[name] = f"{LOOPBACK}:{port}"
        pod.start()
        await asyncio.wait_for(pod.ready.wait(), 30)
        return pod

    async def stop(self) -> None:
        await asyncio.gather(*(p.terminate() for p in self.pods))


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        await c.stop()


def rpcs_served(pod: Pod) -> float:
    """GameService calls this replica counted, from its metrics port."""
    url = f"http://{LOOPBACK}:{pod.port(9090)}/metrics"
    with urllib.request.urlopen(url, timeout=5) as r:
        text = r.read().decode()
    methods = game_pb2.DESCRIPTOR.services_by_name["GameService"].methods_by_name
    total = 0.0
    for line in text.splitlines():
        if m := re.match(r'ramino_rpcs_total\{.*method="(?:[\w./]*/)?(\w+)".*\} (\S+)', line):
            total += float(m[2]) if m[1] in methods else 0.0
    return total


async def lane(client: AsyncClient, rollout_done: asyncio.Event, runs: list[GameRun]) -> None:
    """Games one after another until the rollout is over."""
    while True:
        await play_game(client, runs=runs)
        if rollout_done.is_set():
            return


async def under_way(runs: list[GameRun], lanes: list[asyncio.Task[None]]) -> None:
    """Until every lane's game has moves."""
    while sum(run.moves > 0 for run in runs) < len(lanes):
        if any(lane.done() for lane in lanes):
            return  # failed early: the results say why
        await asyncio.sleep(0.05)


async def test_a_rolling_update_of_prod_fails_no_call_and_loses_no_event(
    cluster: Cluster,
) -> None:
    redis_pod = await cluster.start_redis()
    with redis.Redis(port=redis_pod.ports[6379], decode_responses=True) as r:
        settings = r.config_get("appendonly", "appendfsync", "maxmemory-policy")
    assert settings == {
        "appendonly": "yes",
        "appendfsync": "always",
        "maxmemory-policy": "noeviction",
    }

    deployment = one(cluster.objects, "Deployment", "ramino")
    replicas = deployment["spec"]["replicas"]
    old = [cluster.pod(f"ramino-old-{i}", deployment) for i in range(replicas)]
    # The new ReplicaSet's pods get their addresses now, so that one target
    # names every pod this test will run (a headless Service's DNS answer,
    # as it would be over the rollout); round_robin uses the ready ones.
    new = [cluster.pod(f"ramino-new-{i}", deployment) for i in range(replicas)]
    for pod in old:
        pod.start()
    await asyncio.wait_for(asyncio.gather(*(p.ready.wait() for p in old)), 60)
    store = f"redis://{LOOPBACK}:{redis_pod.ports[6379]}/0"
    for p in old:  # the store of the mounted file, as the pod has it
        assert resolve(p.env["RAMINO_CONFIG"], p.env).config.store.url == store

    target = "ipv4:" + ",".join(p.address for p in old + new)
    runs: list[GameRun] = []
    rollout_done = asyncio.Event()
    async with AsyncClient(target) as client:
        lanes = [asyncio.create_task(lane(client, rollout_done, runs)) for _ in range(LANES)]
        await asyncio.wait_for(under_way(runs, lanes), 60)
        rolled = await asyncio.wait_for(RollingUpdate(deployment, new.__getitem__).run(old), 90)
        rollout_done.set()
        results = await asyncio.wait_for(asyncio.gather(*lanes, return_exceptions=True), 90)

        failures = [r for r in results if isinstance(r, BaseException)]
        assert not failures, "".join(traceback.format_exception(failures[0]))
        for run in runs:
            assert run.finished, run.name
            assert consecutive(run.seen), run.name
            assert isinstance(run.seen[-1], MatchEnded)
            # What the spectator saw is the game's whole log, read afresh.
            snapshot = run.seen[0]
            assert isinstance(snapshot, Snapshot)
            replay = [e async for e in client.watch(run.name, snapshot.version)]
            assert replay == run.seen[1:], run.name
        # Streams were open on the replicas that went away, and resumed:
        # the spectators' watches and the seats' sessions both.
        assert sum(run.spectator_reconnects for run in runs) > 0
        assert sum(run.seat_reconnects for run in runs) > 0

    assert rolled == new
    for pod in old:
        # Drained in time (a lost cancellation once kept one for ever: ramino.tasks).
        assert (pod.exit_code, pod.killed) == (0, False), f"{pod.name}:\n{pod.tail()}"
    for pod in old + new:
        assert pod.restarts == 0, pod.name
    for pod in new:
        assert pod.ready.is_set()
        assert rpcs_served(pod) > 0, pod.name  # the client balanced onto it
