"""A kubelet and a Deployment controller on loopback, for the rehearsal.

A pod here is a local process started from a rendered workload the way a
kubelet would start its container: the image's entrypoint (deploy/Dockerfile)
or the container's ``command``, then ``args``; the environment from
``envFrom`` ConfigMaps, then ``env`` (values with ``$(VAR)`` expanded,
Secrets given by the operator); volumes as folders of a temporary directory.
Being one machine, the pod network is mapped: the pod's address is 127.0.0.1,
each containerPort a free loopback port (a variable, or a value of a mounted
TOML file, whose value is the port's number is rewritten to it), and a
Service's DNS name with its port is the loopback address of the pod behind
it. The probes are polled as written (startup until it succeeds, then
readiness and liveness, each with its period, timeout and thresholds; gRPC
health for ``grpc``, a connection for
``tcpSocket``, the command for ``exec``); termination is SIGTERM, then
SIGKILL when ``terminationGracePeriodSeconds`` has passed.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.deploy.manifests import DEPLOY, Obj, one, port_number
from tests.support.redis_server import free_port

LOOPBACK = "127.0.0.1"


def image_entrypoint(dockerfile: Path = DEPLOY / "Dockerfile") -> list[str]:
    """ENTRYPOINT of the image's last stage, in exec form."""
    entrypoint: list[str] = []
    for line in dockerfile.read_text().splitlines():
        if line.startswith("FROM "):
            entrypoint = []
        elif line.startswith("ENTRYPOINT "):
            entrypoint = json.loads(line.removeprefix("ENTRYPOINT "))
    if not entrypoint:
        raise AssertionError("the image has no ENTRYPOINT in exec form")
    return entrypoint


@dataclass
class Network:
    """Service names and ports of the cluster, as loopback addresses."""

    services: dict[str, str] = field(default_factory=dict)
    """``name:port`` -> ``127.0.0.1:local``."""

    def rewrite(self, value: str) -> str:
        for name, local in self.services.items():
            value = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", local, value)
        return value


@dataclass
class Probe:
    kind: str
    target: Any
    service: str
    period: float
    timeout: float
    failures: int
    successes: int
    initial_delay: float

    @classmethod
    def of(cls, spec: Obj | None, container: Obj) -> Probe | None:
        if spec is None:
            return None
        if "grpc" in spec:
            kind, target = "grpc", spec["grpc"]["port"]
            service = spec["grpc"].get("service", "")
        elif "tcpSocket" in spec:
            kind, target, service = "tcp", port_number(container, spec["tcpSocket"]["port"]), ""
        elif "exec" in spec:
            kind, target, service = "exec", spec["exec"]["command"], ""
        else:
            raise AssertionError(f"probe kind not rehearsed: {spec}")
        return cls(
            kind,
            target,
            service,
            float(spec.get("periodSeconds", 10)),
            float(spec.get("timeoutSeconds", 1)),
            int(spec.get("failureThreshold", 3)),
            int(spec.get("successThreshold", 1)),
            float(spec.get("initialDelaySeconds", 0)),
        )


class Pod:
    """One replica: its process, its probes, its termination."""

    def __init__(
        self,
        name: str,
        workload: Obj,
        objects: list[Obj],
        root: Path,
        network: Network,
        secrets: dict[str, dict[str, str]],
        executables: Callable[[str], str],
    ) -> None:
        self.name = name
        spec = workload["spec"]["template"]["spec"]
        (self.container,) = spec["containers"]
        self.grace = float(spec.get("terminationGracePeriodSeconds", 30))
        self.dir = root / name
        self.dir.mkdir(parents=True)
        self.log = self.dir / "log"
        self.ports = {p["containerPort"]: free_port() for p in self.container["ports"]}
        self.network = network
        self.volumes = self._volumes(workload, objects)
        for folder in self.volumes.values():
            for toml in folder.glob("*.toml"):
                toml.write_text(self._local_toml(toml.read_text()))
        self.env = self._env(objects, network, secrets)
        c = self.container
        argv = [*(c.get("command") or image_entrypoint()), *c.get("args", [])]
        self.argv = [executables(argv[0]), *(self.local_path(a) for a in argv[1:])]
        self.startup = Probe.of(c.get("startupProbe"), c)
        self.readiness = Probe.of(c.get("readinessProbe"), c)
        self.liveness = Probe.of(c.get("livenessProbe"), c)
        self.process: subprocess.Popen[bytes] | None = None
        self.ready = asyncio.Event()
        self.terminating = False
        self.restarts = 0
        self.killed = False
        self.exit_code: int | None = None
        self._probing: asyncio.Task[None] | None = None

    # --- the pod's world ---------------------------------------------------

    def _volumes(self, workload: Obj, objects: list[Obj]) -> dict[str, Path]:
        """mountPath -> a folder of this pod (ConfigMaps written out as files)."""
        spec = workload["spec"]["template"]["spec"]
        sources = {v["name"]: v for v in spec.get("volumes", [])}
        mounts: dict[str, Path] = {}
        for m in self.container.get("volumeMounts", []):
            folder = self.dir / "volumes" / m["name"]
            folder.mkdir(parents=True, exist_ok=True)
            source = sources.get(m["name"], {})
            mounts[m["mountPath"]] = folder
            if "configMap" in source:
                data = one(objects, "ConfigMap", source["configMap"]["name"])["data"]
                for key, text in data.items():
                    (folder / key).write_text(text)
        return mounts

    def _local_toml(self, text: str) -> str:
        """A mounted TOML file with its values as :meth:`_local` makes a
        variable's: ``port = 50051`` to the local port, strings rewritten."""
        lines = []
        for line in text.splitlines():
            m = re.fullmatch(r"(\s*[\w.-]+\s*=\s*)(\d+|\"[^\"]*\")(\s*(#.*)?)", line)
            if m is not None:
                value = m[2]
                if value.startswith('"'):
                    value = json.dumps(self._local(json.loads(value)))
                else:
                    value = self._local(value)
                line = m[1] + value + m[3]
            lines.append(line)
        return "\n".join(lines) + "\n"

    def _local(self, value: str) -> str:
        """A value of the pod's world on this machine."""
        if value == "0.0.0.0":
            return LOOPBACK
        if value.isdigit() and int(value) in self.ports:
            return str(self.ports[int(value)])
        return self.local_path(self.network.rewrite(value))

    def local_path(self, value: str) -> str:
        """A path inside the container as the folder mounted there."""
        for mount, folder in sorted(self.volumes.items(), key=lambda kv: -len(kv[0])):
            if value == mount or value.startswith(mount + "/"):
                return str(folder) + value[len(mount) :]
        return value

    def _env(
        self, objects: list[Obj], network: Network, secrets: dict[str, dict[str, str]]
    ) -> dict[str, str]:
        env: dict[str, str] = {}
        for source in self.container.get("envFrom", []):
            env.update(one(objects, "ConfigMap", source["configMapRef"]["name"])["data"])
        for e in self.container.get("env", []):
            if "value" in e:
                env[e["name"]] = re.sub(r"\$\((\w+)\)", lambda m: env.get(m[1], m[0]), e["value"])
            elif ref := e["valueFrom"].get("secretKeyRef"):
                env[e["name"]] = secrets[ref["name"]][ref["key"]]
            elif ref := e["valueFrom"].get("configMapKeyRef"):
                env[e["name"]] = one(objects, "ConfigMap", ref["name"])["data"][ref["key"]]
            else:
                raise AssertionError(f"env source not rehearsed: {e}")
        local = {key: self._local(value) for key, value in env.items()}
        if "/tmp" in self.volumes:
            local["TMPDIR"] = str(self.volumes["/tmp"])
        return local

    def port(self, container_port: int) -> int:
        return self.ports[container_port]

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port(port_number(self.container, 'grpc'))}"

    # --- life --------------------------------------------------------------

    def start(self) -> None:
        base = {k: v for k, v in os.environ.items() if not k.startswith("RAMINO_")}
        with self.log.open("ab") as out:
            out.write(f"$ {shlex.join(self.argv)}\n".encode())
            self.process = subprocess.Popen(
                self.argv,
                env={**base, **self.env},
                cwd=self.dir,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._probing = asyncio.create_task(self._probe_loop(), name=f"probes of {self.name}")

    async def _check(self, probe: Probe) -> bool:
        if self.process is None or self.process.poll() is not None:
            return False
        try:
            if probe.kind == "grpc":
                address = f"{LOOPBACK}:{self.port(probe.target)}"
                async with grpc.aio.insecure_channel(address) as channel:
                    r = await health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(service=probe.service),
                        timeout=probe.timeout,
                    )
                return bool(r.status == health_pb2.HealthCheckResponse.SERVING)
            if probe.kind == "tcp":
                conn = asyncio.open_connection(LOOPBACK, self.port(probe.target))
                _, writer = await asyncio.wait_for(conn, probe.timeout)
                writer.close()
                return True
            return await self._exec(probe)
        except (grpc.RpcError, OSError, TimeoutError):
            return False

    async def _exec(self, probe: Probe) -> bool:
        """The probe's command; for redis-cli, the container's localhost
        port is this pod's port."""
        argv = list(probe.target)
        if argv[0] == "redis-cli":
            (port,) = self.ports.values()
            argv[1:1] = ["-p", str(port)]
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), probe.timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return False
        return proc.returncode == 0 and not out.startswith(b"LOADING")

    async def _probe_loop(self) -> None:
        if self.startup is not None:
            await asyncio.sleep(self.startup.initial_delay)
            failures = 0
            while not await self._check(self.startup):
                failures += 1
                if failures >= self.startup.failures:
                    await self._restart("startup probe failed")
                    return
                await asyncio.sleep(self.startup.period)
        await asyncio.gather(self._readiness(), self._liveness())

    async def _readiness(self) -> None:
        probe = self.readiness
        if probe is None:
            self.ready.set()
            return
        await asyncio.sleep(probe.initial_delay)
        ok = bad = 0
        while True:
            if await self._check(probe):
                ok, bad = ok + 1, 0
                if ok >= probe.successes:
                    self.ready.set()
            else:
                ok, bad = 0, bad + 1
                if bad >= probe.failures:
                    self.ready.clear()
            await asyncio.sleep(probe.period)

    async def _liveness(self) -> None:
        probe = self.liveness
        if probe is None:
            return
        await asyncio.sleep(probe.initial_delay)
        bad = 0
        while not self.terminating:
            await asyncio.sleep(probe.period)
            if self.terminating:
                return
            bad = 0 if await self._check(probe) else bad + 1
            if bad >= probe.failures:
                await self._restart("liveness probe failed")
                return

    async def _restart(self, why: str) -> None:
        """What the kubelet does on a failed startup or liveness probe."""
        self.restarts += 1
        with self.log.open("ab") as out:
            out.write(f"kubelet: {why}, restarting\n".encode())
        self.ready.clear()
        await self._stop_process()
        self.start()

    async def _stop_process(self) -> None:
        """SIGTERM, and SIGKILL after the grace period."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        for _ in range(math.ceil(self.grace / 0.05)):
            if process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        else:
            self.killed = True
            with self.log.open("ab") as out:
                out.write(f"kubelet: {self.grace:g} s after SIGTERM, SIGKILL\n".encode())
            process.kill()
        self.exit_code = await asyncio.to_thread(process.wait)

    def tail(self, lines: int = 15) -> str:
        """The last ``lines`` of the pod's log, for a failure's message."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    async def terminate(self) -> None:
        """Out of the endpoints, then the process stopped."""
        self.terminating = True
        self.ready.clear()
        if self._probing is not None:
            self._probing.cancel()
        await self._stop_process()


class RollingUpdate:
    """A Deployment's rollout from one set of pods to a new one, by its
    strategy: up to replicas + maxSurge pods at a time, never fewer than
    replicas - maxUnavailable ready."""

    def __init__(self, deployment: Obj, new_pod: Callable[[int], Pod]) -> None:
        spec = deployment["spec"]
        self.replicas = int(spec["replicas"])
        strategy = spec["strategy"]
        assert strategy["type"] == "RollingUpdate"
        rolling = strategy.get("rollingUpdate", {})
        self.surge = _scaled(rolling.get("maxSurge", "25%"), self.replicas, math.ceil)
        self.unavailable = _scaled(rolling.get("maxUnavailable", "25%"), self.replicas, math.floor)
        if self.surge == 0 and self.unavailable == 0:
            raise AssertionError("maxSurge and maxUnavailable cannot both be 0")
        self.new_pod = new_pod

    async def run(self, old: list[Pod]) -> list[Pod]:
        old = list(old)
        new: list[Pod] = []
        stopping: list[asyncio.Task[None]] = []
        while True:
            while len(new) < self.replicas and len(old) + len(new) < self.replicas + self.surge:
                pod = self.new_pod(len(new))
                pod.start()
                new.append(pod)
            ready = sum(p.ready.is_set() for p in old + new)
            while old and ready - old[-1].ready.is_set() >= self.replicas - self.unavailable:
                pod = old.pop()
                ready -= pod.ready.is_set()
                stopping.append(asyncio.create_task(pod.terminate()))
            if not old and all(p.ready.is_set() for p in new):
                break
            waiting = [asyncio.create_task(p.ready.wait()) for p in new if not p.ready.is_set()]
            if waiting:
                _, pending = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                for t in pending:
                    t.cancel()
            else:
                await asyncio.sleep(0.1)
        await asyncio.gather(*stopping)
        return new


def _scaled(value: int | str, replicas: int, rounding: Callable[[float], int]) -> int:
    if isinstance(value, int):
        return value
    return int(rounding(replicas * int(value.rstrip("%")) / 100))
