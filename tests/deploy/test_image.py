"""deploy/Dockerfile, checked and reproduced without a container engine: its
stages read as written, the build context it gets (.dockerignore), and its
build done by hand: the wheel from the same `make wheel`, installed into a
fresh virtualenv as the runtime stage installs it, and served from there the
way the image's ENTRYPOINT, CMD, ENV and WORKDIR say."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino_client import AsyncClient

from tests.deploy.manifests import DEPLOY, ROOT, container, one, port_number, render
from tests.deploy.players import consecutive, play_game
from tests.support.redis_server import free_port

DOCKERFILE = DEPLOY / "Dockerfile"
BUILD_TOOLS = ("apt-get", "make", "cargo", "rustc", "rustup", "gcc", "cc ", "maturin")

Instruction = tuple[str, str]


def stages() -> list[list[Instruction]]:
    """The Dockerfile's stages, each a list of (INSTRUCTION, arguments)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    result: list[list[Instruction]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        op, _, args = line.partition(" ")
        if op == "FROM":
            result.append([])
        result[-1].append((op, " ".join(args.split())))
    return result


def args_of(stage: list[Instruction], op: str) -> list[str]:
    return [a for o, a in stage if o == op]


def runtime_env(stage: list[Instruction]) -> dict[str, str]:
    env: dict[str, str] = {}
    for args in args_of(stage, "ENV"):
        for pair in shlex.split(args):
            key, _, value = pair.partition("=")
            env[key] = value
    return env


def test_the_image_builds_the_wheel_with_the_make_target_the_tests_use() -> None:
    build, runtime = stages()
    assert args_of(build, "FROM")[0].endswith(" AS build")
    (make,) = [a for a in args_of(build, "RUN") if " make wheel" in a or a.startswith("make wheel")]
    wheel_dir = re.search(r"make wheel WHEEL_DIR=(\S+)", make)[1]  # type: ignore[index]
    (install,) = [a for a in args_of(runtime, "RUN") if "pip install" in a]
    assert f"from=build,source={wheel_dir}," in install
    assert re.search(r"pip install --no-cache-dir /wheels/\*\.whl", install)


def test_the_runtime_stage_is_slim_unprivileged_and_serves() -> None:
    _, runtime = stages()
    (base,) = args_of(runtime, "FROM")
    assert re.fullmatch(r"python:3\.11-slim-\w+ AS runtime", base)
    for run in args_of(runtime, "RUN"):
        assert not any(tool in run for tool in BUILD_TOOLS), run
    assert args_of(runtime, "COPY") == []  # the wheel comes in by a bind mount, not a layer
    (user,) = args_of(runtime, "USER")
    uid, gid = (int(x) for x in user.split(":"))
    assert uid > 0 and gid > 0
    assert json.loads(args_of(runtime, "ENTRYPOINT")[0]) == ["ramino"]
    assert json.loads(args_of(runtime, "CMD")[0]) == ["serve"]
    # The Deployment runs the image as its USER, with its CMD, on its ports.
    for overlay in ("dev", "prod"):
        d = one(render(overlay), "Deployment", "ramino")
        pod = d["spec"]["template"]["spec"]["securityContext"]
        assert (pod["runAsUser"], pod["runAsGroup"]) == (uid, gid)
        c = container(d, "ramino")
        assert "command" not in c and c["args"] == ["serve"]
        exposed = {int(p) for p in args_of(runtime, "EXPOSE")[0].split()}
        assert exposed == {port_number(c, "grpc"), port_number(c, "metrics")}
    env = runtime_env(runtime)
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"  # the root filesystem is read-only
    (workdir,) = args_of(runtime, "WORKDIR")
    assert env["RAMINO_STORE"] == f"sqlite:{workdir}/ramino.db"


def _ignore_patterns() -> list[tuple[bool, re.Pattern[str]]]:
    patterns = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        glob = line.removeprefix("!").strip("/")
        regex = "".join(
            ".*" if part == "**" else re.escape(part).replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
            for part in re.split(r"(\*\*)", glob)
        )
        patterns.append((keep, re.compile(regex)))
    return patterns


def in_context(path: str) -> bool:
    """Whether a path of the repository is sent to the build (Docker's rules:
    the last pattern matching the path or a folder above it decides)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    sent = True
    for keep, pattern in _ignore_patterns():
        if any(pattern.fullmatch(p) for p in prefixes):
            sent = keep
    return sent


def test_the_build_context_holds_what_the_build_copies_and_nothing_else() -> None:
    build, _ = stages()
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for args in args_of(build, "COPY"):
        *sources, _ = args.split()
        for source in sources:
            files = [f for f in tracked if f == source or f.startswith(source + "/")]
            assert files, source
            assert all(in_context(f) for f in files), source
    for path in (
        ".git/HEAD",
        ".venv/bin/python",
        "target/release/libx.so",
        "var/ramino.db",
        "node_modules/x/index.js",
        "tests/conftest.py",
        "deploy/Dockerfile",
        "service/ramino/v1/game_pb2.py",
        "service/ramino/__pycache__/cli.cpython-311.pyc",
        "service/ramino/_core.abi3.so",
    ):
        assert not in_context(path), path
    assert in_context("service/ramino/cli.py") and in_context("core_rs/ramino-py/src/lib.rs")


async def _serving(address: str, process: subprocess.Popen[bytes]) -> None:
    while process.poll() is None:
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                r = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service="ramino.v1.GameService"), timeout=1
                )
            if r.status == health_pb2.HealthCheckResponse.SERVING:
                return
        except grpc.RpcError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError(f"the server exited with {process.returncode}")


async def test_the_wheel_from_make_serves_and_plays_from_a_fresh_virtualenv(
    tmp_path: Path,
) -> None:
    # The build stage: `make wheel`, as the Dockerfile runs it.
    wheels = tmp_path / "wheels"
    subprocess.run(["make", "wheel", f"WHEEL_DIR={wheels}"], cwd=ROOT, check=True)
    (wheel,) = wheels.glob("ramino-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "ramino/v1/game_pb2.py" in names and "ramino/v1/game_pb2_grpc.py" in names
    assert any(re.fullmatch(r"ramino/_core\..*so", n) for n in names)

    # The runtime stage: a fresh Python with the wheel alone.
    venv = tmp_path / "venv"
    python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, str(wheel)], check=True)
    _, runtime = stages()
    (workdir,) = args_of(runtime, "WORKDIR")
    home = tmp_path / "workdir"
    home.mkdir()
    env = {key: value.replace(workdir, str(home)) for key, value in runtime_env(runtime).items()}
    port = free_port()
    env |= {"RAMINO_HOST": "127.0.0.1", "RAMINO_PORT": str(port)}
    env["RAMINO_TOKEN_SECRET"] = "image-test-secret-of-at-least-32-bytes"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RAMINO_", "PYTHON"))}
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import ramino.v1.game_pb2 as m; print(m.__file__)"],
        cwd=home,
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where  # not this checkout's service/
    # The terminal client is the SDK's (ramino-client[play]), not the server's.
    play = subprocess.run(
        [str(venv / "bin" / "ramino"), "play"], cwd=home, env=clean, capture_output=True, text=True
    )
    assert play.returncode == 2 and "pip install 'ramino-client[play]'" in play.stderr

    entrypoint = json.loads(args_of(runtime, "ENTRYPOINT")[0])
    cmd = json.loads(args_of(runtime, "CMD")[0])
    argv = [str(venv / "bin" / entrypoint[0]), *entrypoint[1:], *cmd]
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            argv, cwd=home, env={**clean, **env}, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        await asyncio.wait_for(_serving(f"127.0.0.1:{port}", process), 60)
        async with AsyncClient(f"127.0.0.1:{port}") as client:
            run = await asyncio.wait_for(play_game(client), 120)
        assert run.finished and run.moves > 0
        assert consecutive(run.seen)
        assert (home / "ramino.db").exists()  # the image's default store, in its WORKDIR
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(process.wait, 30)
    assert code == 0
