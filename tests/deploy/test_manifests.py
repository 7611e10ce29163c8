"""deploy/: every overlay rendered by kustomize, each object validated
strictly against the Kubernetes schemas (offline, kubernetes-validate), and the
properties the operators rely on checked on the rendered objects."""

from __future__ import annotations

import base64
import re
from typing import Any

import kubernetes_validate
import pytest
from ramino import cli

from tests.deploy.manifests import (
    KUBERNETES_VERSIONS,
    OVERLAYS,
    Obj,
    config_data,
    container,
    every,
    mounts,
    one,
    pod_labels,
    port_number,
    redis_conf,
    render,
    selects,
    workloads,
)

CLUSTER_SCOPED = {"Namespace"}
# The settings a ConfigMap may give `ramino serve`, and the argument each sets.
SERVE_SETTINGS = {
    "RAMINO_HOST": "host",
    "RAMINO_PORT": "port",
    "RAMINO_STORE": "store",
    "RAMINO_METRICS_PORT": "metrics_port",
    "RAMINO_GRACE_SECONDS": "grace",
    "RAMINO_MAX_CONNECTION_AGE": "max_connection_age",
    "RAMINO_MAX_CONNECTION_AGE_GRACE": "max_connection_age_grace",
    "RAMINO_MAX_MESSAGE_BYTES": "max_message_bytes",
    "RAMINO_BOT_DELAY": "bot_delay",
    "RAMINO_FINISHED_RETENTION": "finished_retention",
    "RAMINO_ARCHIVE": "archive",
    "RAMINO_LOG_LEVEL": "log_level",
    "RAMINO_MAX_STREAMS_PER_ADDRESS": "max_streams_per_address",
    "RAMINO_MAX_STREAMS_PER_PREFIX": "max_streams_per_prefix",
}
# Read only through $(VAR) references in other variables.
REFERENCED_ONLY = {"RAMINO_REDIS_ADDRESS"}


def server(objects: list[Obj]) -> Obj:
    return one(objects, "Deployment", "ramino")


def server_env(objects: list[Obj]) -> dict[str, str]:
    """What the server container's environment says, sources unresolved
    (envFrom first; env entries override, as the kubelet does)."""
    d = server(objects)
    env: dict[str, str] = dict(config_data(objects, d, "ramino"))
    for e in container(d, "ramino").get("env", []):
        env[e["name"]] = e.get("value", "<from " + ",".join(e.get("valueFrom", {})) + ">")
    return env


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_overlay_renders_and_validates_strictly(overlay: str, version: str) -> None:
    objects = render(overlay)
    assert len(objects) >= 9
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)


def test_strict_validation_refuses_an_unknown_field() -> None:
    """The check above is worth something: a misspelt field is refused."""
    d = server(render("prod"))
    d["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {"periodSeconds": 1}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(d, KUBERNETES_VERSIONS[-1], strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_is_in_the_overlays_namespace(overlay: str) -> None:
    objects = render(overlay)
    namespace = one(objects, "Namespace")
    labels = namespace["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"
    for obj in objects:
        if obj["kind"] not in CLUSTER_SCOPED:
            assert obj["metadata"]["namespace"] == namespace["metadata"]["name"], obj["kind"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_server_probes_are_native_grpc_on_the_health_service(overlay: str) -> None:
    c = container(server(render(overlay)), "ramino")
    grpc_port = port_number(c, "grpc")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["grpc"]["port"] == grpc_port, probe
        assert set(c[probe]) - {"grpc"} <= {
            "periodSeconds",
            "timeoutSeconds",
            "failureThreshold",
            "successThreshold",
            "initialDelaySeconds",
        }
    # Ready while the game service serves; the server turns it NOT_SERVING on SIGTERM.
    assert c["readinessProbe"]["grpc"]["service"] == "ramino.v1.GameService"
    assert c["startupProbe"]["grpc"]["service"] == "ramino.v1.GameService"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_termination_grace_is_longer_than_the_servers_drain(overlay: str) -> None:
    objects = render(overlay)
    drain = float(server_env(objects)["RAMINO_GRACE_SECONDS"])
    spec = server(objects)["spec"]["template"]["spec"]
    assert spec["terminationGracePeriodSeconds"] > drain


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_liveness_tolerates_a_whole_termination(overlay: str) -> None:
    """A draining server answers NOT_SERVING: its liveness probe must not
    kill it before the grace period is over."""
    d = server(render(overlay))
    live = container(d, "ramino")["livenessProbe"]
    tolerated = live["periodSeconds"] * live["failureThreshold"]
    assert tolerated > d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_runs_locked_down_with_requests_and_limits(overlay: str) -> None:
    objects = render(overlay)
    assert workloads(objects)
    for w in workloads(objects):
        pod = w["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] > 0
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        assert pod["automountServiceAccountToken"] is False
        for c in pod["containers"]:
            sc = c["securityContext"]
            assert sc["runAsNonRoot"] is True
            assert sc["readOnlyRootFilesystem"] is True
            assert sc["allowPrivilegeEscalation"] is False
            assert sc["capabilities"] == {"drop": ["ALL"]}
            for kind in ("requests", "limits"):
                assert set(c["resources"][kind]) == {"cpu", "memory"}, (c["name"], kind)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_read_only_server_writes_only_to_volumes(overlay: str) -> None:
    objects = render(overlay)
    mounted = mounts(server(objects), "ramino")
    assert "emptyDir" in mounted["/tmp"]
    store = server_env(objects)["RAMINO_STORE"]
    if store.startswith("sqlite:"):
        path = store.removeprefix("sqlite:")
        owner = [m for m in mounted if path.startswith(m + "/")]
        assert owner and "persistentVolumeClaim" in mounted[owner[0]]
        claim = mounted[owner[0]]["persistentVolumeClaim"]["claimName"]
        one(objects, "PersistentVolumeClaim", claim)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ports_are_named_and_agree_with_the_settings(overlay: str) -> None:
    objects = render(overlay)
    d = server(objects)
    c = container(d, "ramino")
    env = server_env(objects)
    assert port_number(c, "grpc") == int(env["RAMINO_PORT"])
    assert port_number(c, "metrics") == int(env["RAMINO_METRICS_PORT"])
    assert env["RAMINO_HOST"] == "0.0.0.0"
    annotations = d["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == port_number(c, "metrics")
    assert annotations["prometheus.io/path"] == "/metrics"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_setting_is_one_ramino_serve_reads(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = render(overlay)
    data = config_data(objects, server(objects), "ramino")
    unknown = set(data) - set(SERVE_SETTINGS) - REFERENCED_ONLY
    assert not unknown, f"settings that ramino serve does not read: {unknown}"
    for key, value in data.items():
        monkeypatch.setenv(key, value)
    args = cli.build_parser().parse_args(["serve"])
    for key, value in data.items():
        if key in SERVE_SETTINGS:
            parsed = getattr(args, SERVE_SETTINGS[key])
            assert str(parsed) == value or parsed == float(value), key


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_connections_are_recycled_so_scale_out_rebalances(overlay: str) -> None:
    env = server_env(render(overlay))
    assert 0 < float(env["RAMINO_MAX_CONNECTION_AGE"]) <= 3600
    assert 0 < float(env["RAMINO_MAX_CONNECTION_AGE_GRACE"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_token_key_comes_from_a_secret(overlay: str) -> None:
    objects = render(overlay)
    env = {e["name"]: e for e in container(server(objects), "ramino")["env"]}
    ref = env["RAMINO_TOKEN_SECRET"]["valueFrom"]["secretKeyRef"]
    assert "optional" not in ref or ref["optional"] is False
    secrets = {s["metadata"]["name"]: s for s in every(objects, "Secret")}
    if overlay == "dev":
        # dev generates its own key; it must be long enough for the server.
        value = base64.b64decode(secrets[ref["name"]]["data"][ref["key"]])
        assert len(value) >= 32
    else:
        # production keys are made by the operator, never rendered from git.
        assert not secrets


@pytest.mark.parametrize("overlay", ["prod", "prod-managed-redis"])
def test_production_runs_three_or_more_replicas_and_autoscales(overlay: str) -> None:
    objects = render(overlay)
    d = server(objects)
    assert d["spec"]["replicas"] >= 3
    hpa = one(objects, "HorizontalPodAutoscaler", "ramino")
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        "apps/v1",
        "Deployment",
        "ramino",
    )
    assert hpa["spec"]["minReplicas"] == d["spec"]["replicas"]
    assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]
    cpu = [m for m in hpa["spec"]["metrics"] if m["resource"]["name"] == "cpu"]
    assert cpu and 0 < cpu[0]["resource"]["target"]["averageUtilization"] <= 100
    # The HPA's utilization is of the request: there has to be one.
    assert container(d, "ramino")["resources"]["requests"]["cpu"]
    assert server_env(objects)["RAMINO_STORE"].startswith("redis://")


@pytest.mark.parametrize("overlay", ["prod", "prod-managed-redis"])
def test_the_rolling_update_never_drops_below_the_wanted_count(overlay: str) -> None:
    strategy = server(render(overlay))["spec"]["strategy"]
    assert strategy["type"] == "RollingUpdate"
    assert strategy["rollingUpdate"]["maxUnavailable"] == 0
    assert strategy["rollingUpdate"]["maxSurge"] >= 1


@pytest.mark.parametrize("overlay", ["prod", "prod-managed-redis"])
def test_the_disruption_budget_covers_the_servers_and_lets_a_drain_through(overlay: str) -> None:
    objects = render(overlay)
    d = server(objects)
    pdb = one(objects, "PodDisruptionBudget", "ramino")
    assert selects(pdb["spec"]["selector"], pod_labels(d))
    replicas = one(objects, "HorizontalPodAutoscaler")["spec"]["minReplicas"]
    if "maxUnavailable" in pdb["spec"]:
        assert 1 <= pdb["spec"]["maxUnavailable"] < replicas
    else:
        assert 1 <= pdb["spec"]["minAvailable"] < replicas


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_servers_spread_across_nodes(overlay: str) -> None:
    d = server(render(overlay))
    spreads = d["spec"]["template"]["spec"]["topologySpreadConstraints"]
    by_key = {s["topologyKey"]: s for s in spreads}
    node = by_key["kubernetes.io/hostname"]
    assert node["maxSkew"] == 1
    assert selects(node["labelSelector"], pod_labels(d))


def test_dev_runs_one_replica_on_sqlite_on_a_volume() -> None:
    objects = render("dev")
    d = server(objects)
    assert d["spec"]["replicas"] == 1
    # The ReadWriteOnce volume and sqlite take one pod at a time.
    assert d["spec"]["strategy"] == {"type": "Recreate"}
    assert server_env(objects)["RAMINO_STORE"].startswith("sqlite:/")
    assert not every(objects, "HorizontalPodAutoscaler")
    assert not every(objects, "PodDisruptionBudget")
    assert not every(objects, "StatefulSet")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_service_selects_pods_and_their_ports(overlay: str) -> None:
    objects = render(overlay)
    for svc in every(objects, "Service"):
        # A Service's selector is a plain map: as matchLabels.
        matched = [
            w
            for w in workloads(objects)
            if selects({"matchLabels": svc["spec"]["selector"]}, pod_labels(w))
        ]
        assert len(matched) == 1, svc["metadata"]["name"]
        c = matched[0]["spec"]["template"]["spec"]["containers"][0]
        for p in svc["spec"]["ports"]:
            assert port_number(c, p["targetPort"]) == p["port"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_a_headless_service_serves_client_side_round_robin(overlay: str) -> None:
    objects = render(overlay)
    headless = one(objects, "Service", "ramino-grpc")
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"]["publishNotReadyAddresses"] is False
    assert [p["name"] for p in headless["spec"]["ports"]] == ["grpc"]
    assert selects({"matchLabels": headless["spec"]["selector"]}, pod_labels(server(objects)))


def _allows(policy: Obj, labels: dict[str, str], port: str) -> bool:
    """Whether an ingress rule of the policy lets a pod with these labels
    (in the same namespace) reach the named port."""
    for rule in policy["spec"].get("ingress", []):
        ports = [p["port"] for p in rule.get("ports", [])]
        if ports and port not in ports:
            continue
        peers = rule.get("from")
        if not peers:
            return True
        for peer in peers:
            if "ipBlock" in peer:
                continue
            if "podSelector" in peer and selects(peer["podSelector"], labels):
                return True
    return False


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_let_clients_reach_ramino(overlay: str) -> None:
    objects = render(overlay)
    policy = one(objects, "NetworkPolicy", "ramino")
    server_pods = pod_labels(server(objects))
    assert selects(policy["spec"]["podSelector"], server_pods)
    for w in workloads(objects):
        if w["metadata"]["name"] != "ramino":
            assert not selects(policy["spec"]["podSelector"], pod_labels(w))
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert _allows(policy, {"app": "any-client"}, "grpc")
    assert not _allows(policy, {"app": "any-client"}, "metrics")
    assert _allows(policy, {"app.kubernetes.io/name": "prometheus"}, "metrics")


def test_only_ramino_reaches_redis() -> None:
    objects = render("prod")
    redis = one(objects, "StatefulSet", "ramino-redis")
    policy = one(objects, "NetworkPolicy", "ramino-redis")
    assert selects(policy["spec"]["podSelector"], pod_labels(redis))
    assert not selects(policy["spec"]["podSelector"], pod_labels(server(objects)))
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert _allows(policy, pod_labels(server(objects)), "redis")
    assert not _allows(policy, {"app": "any-client"}, "redis")
    assert not _allows(policy, pod_labels(redis), "redis")
    for rule in policy["spec"]["ingress"]:
        assert rule["from"] and all(set(peer) == {"podSelector"} for peer in rule["from"])


def test_redis_appends_every_write_fsynced_on_a_persistent_volume() -> None:
    objects = render("prod")
    conf = redis_conf(objects)
    assert conf["appendonly"] == "yes"
    assert conf["appendfsync"] == "always"
    assert conf["maxmemory-policy"] == "noeviction"
    redis = one(objects, "StatefulSet", "ramino-redis")
    assert container(redis, "redis")["command"][0] == "redis-server"
    assert "persistentVolumeClaim" in mounts(redis, "redis")[conf["dir"]]
    claim = redis["spec"]["volumeClaimTemplates"][0]["spec"]
    assert claim["accessModes"] == ["ReadWriteOnce"]
    # The server's store is this Redis, through its Service.
    store = server_env(objects)["RAMINO_STORE"]
    host, port = re.fullmatch(r"redis://([^:/]+):(\d+)/\d+", store).groups()  # type: ignore[union-attr]
    svc = one(objects, "Service", host)
    assert selects({"matchLabels": svc["spec"]["selector"]}, pod_labels(redis))
    assert int(port) in [p["port"] for p in svc["spec"]["ports"]]
    assert redis["spec"]["serviceName"] == host


def test_the_managed_redis_overlay_replaces_the_component() -> None:
    objects = render("prod-managed-redis")
    assert not every(objects, "StatefulSet")
    policies = [p["metadata"]["name"] for p in every(objects, "NetworkPolicy")]
    assert policies == ["ramino", "ramino-gateway"]
    env: list[dict[str, Any]] = container(server(objects), "ramino")["env"]
    names = [e["name"] for e in env]
    store = env[names.index("RAMINO_STORE")]["value"]
    defined = set(config_data(objects, server(objects), "ramino"))
    # Each $(VAR) is defined before RAMINO_STORE, or Kubernetes leaves it as is.
    for ref in re.findall(r"\$\((\w+)\)", store):
        assert ref in defined or names.index(ref) < names.index("RAMINO_STORE"), ref
    assert store.startswith("redis://:$(RAMINO_REDIS_PASSWORD)@")
    password = env[names.index("RAMINO_REDIS_PASSWORD")]["valueFrom"]["secretKeyRef"]
    assert password == {"name": "ramino-redis-auth", "key": "password"}
