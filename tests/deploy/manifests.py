"""The rendered manifests of deploy/: every overlay built by kustomize (from
kubectl, or the kustomize binary `make kustomize` installs), as dicts."""

from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml
from ramino.config import Resolved, resolve

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
OVERLAYS = ("dev", "prod", "prod-managed-redis")
# The oldest and newest Kubernetes minor the manifests are validated against
# (native gRPC probes are GA from 1.27; matchLabelKeys in spreads from 1.27).
KUBERNETES_VERSIONS = ("1.29.0", "1.37.0")

Obj = dict[str, Any]


def kustomize_command() -> list[str]:
    if kubectl := shutil.which("kubectl"):
        return [kubectl, "kustomize"]
    for candidate in (ROOT / ".venv" / "bin" / "kustomize", shutil.which("kustomize")):
        if candidate and Path(candidate).exists():
            return [str(candidate), "build"]
    raise RuntimeError("neither kubectl nor kustomize found: run `make kustomize`")


@functools.cache
def _render(overlay: str) -> str:
    result = subprocess.run(
        [*kustomize_command(), str(DEPLOY / "overlays" / overlay)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"kustomize failed on overlays/{overlay}: {result.stderr}")
    return result.stdout


def render(overlay: str) -> list[Obj]:
    """The overlay's objects, each a fresh copy."""
    return [doc for doc in yaml.safe_load_all(_render(overlay)) if doc]


def one(objects: list[Obj], kind: str, name: str | None = None) -> Obj:
    found = [
        o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def every(objects: list[Obj], kind: str) -> list[Obj]:
    return [o for o in objects if o["kind"] == kind]


def container(workload: Obj, name: str) -> Obj:
    for c in workload["spec"]["template"]["spec"]["containers"]:
        if c["name"] == name:
            return dict(c)
    raise AssertionError(f"no container {name} in {workload['metadata']['name']}")


def selects(selector: Obj, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels and matchExpressions) against labels."""
    for key, value in selector.get("matchLabels", {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions", []):
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def pod_labels(workload: Obj) -> dict[str, str]:
    return dict(workload["spec"]["template"]["metadata"]["labels"])


def workloads(objects: list[Obj]) -> list[Obj]:
    return [o for o in objects if o["kind"] in ("Deployment", "StatefulSet")]


def config_data(objects: list[Obj], workload: Obj, container_name: str) -> dict[str, str]:
    """The variables a container gets from its envFrom ConfigMaps."""
    data: dict[str, str] = {}
    for source in container(workload, container_name).get("envFrom", []):
        ref = source["configMapRef"]["name"]
        data.update(one(objects, "ConfigMap", ref)["data"])
    return data


def port_number(c: Obj, port: int | str) -> int:
    """A port by number or by the container's name for it."""
    if isinstance(port, int):
        return port
    for p in c["ports"]:
        if p["name"] == port:
            return int(p["containerPort"])
    raise AssertionError(f"container {c['name']} has no port named {port}")


def mounts(workload: Obj, name: str) -> dict[str, Obj]:
    """mountPath -> the volume mounted there."""
    pod = workload["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for t in workload["spec"].get("volumeClaimTemplates", []):
        volumes[t["metadata"]["name"]] = {"persistentVolumeClaim": t}
    return {m["mountPath"]: volumes[m["name"]] for m in container(workload, name)["volumeMounts"]}


def redis_conf(objects: list[Obj]) -> dict[str, str]:
    redis = one(objects, "StatefulSet", "ramino-redis")
    c = container(redis, "redis")
    config_path = c["command"][1]
    mounted = mounts(redis, "redis")
    folder, _, file = config_path.rpartition("/")
    source = one(objects, "ConfigMap", mounted[folder]["configMap"]["name"])
    settings: dict[str, str] = {}
    for line in source["data"][file].splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition(" ")
            settings[key] = value.strip()
    return settings


def image_env(dockerfile: Path = DEPLOY / "Dockerfile") -> dict[str, str]:
    """The variables the image's last stage sets (its ENV)."""
    env: dict[str, str] = {}
    for line in re.sub(r"\\\n", " ", dockerfile.read_text()).splitlines():
        if line.startswith("FROM "):
            env = {}
        elif line.startswith("ENV "):
            for pair in shlex.split(line.removeprefix("ENV ")):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def container_env(objects: list[Obj], workload: Obj, name: str) -> dict[str, str]:
    """The variables a container runs with, as the kubelet gives them: the
    image's ENV, then envFrom ConfigMaps, then env (a value from a Secret
    as ``<secret>``, ``$(VAR)`` left as written)."""
    env = image_env() | config_data(objects, workload, name)
    for e in container(workload, name).get("env", []):
        env[e["name"]] = e.get("value", "<secret>")
    return env


def serve_config(objects: list[Obj], workload_name: str = "ramino") -> Resolved:
    """What `ramino serve` in the workload's container runs with: the files of
    the ConfigMap mounted where RAMINO_CONFIG names, and its variables."""
    workload = one(objects, "Deployment", workload_name)
    env = container_env(objects, workload, "ramino")
    volume = mounts(workload, "ramino")[env["RAMINO_CONFIG"]]
    files = one(objects, "ConfigMap", volume["configMap"]["name"])["data"]
    folder = Path(tempfile.mkdtemp(prefix="ramino-config-"))
    for key, text in files.items():
        (folder / key).write_text(text)
    try:
        return resolve(folder, env)
    finally:
        shutil.rmtree(folder)
