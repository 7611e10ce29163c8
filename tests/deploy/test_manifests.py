"""deploy/: every overlay rendered by kustomize, each object validated
strictly against the Kubernetes schemas (offline, kubernetes-validate), and the
properties the operators rely on checked on the rendered objects."""

from __future__ import annotations

import base64
import re
from typing import Any

import kubernetes_validate
import pytest
from ramino.config import entries

from tests.deploy.manifests import (
    KUBERNETES_VERSIONS,
    OVERLAYS,
    Obj,
    config_data,
    container,
    container_env,
    every,
    mounts,
    one,
    pod_labels,
    port_number,
    redis_conf,
    render,
    selects,
    serve_config,
    workloads,
)

CLUSTER_SCOPED = {"Namespace"}
# The variables of the server's container that are not settings of the tree.
NOT_SETTINGS = {"RAMINO_CONFIG", "RAMINO_TOKEN_SECRET"}
# Read only through $(VAR) references in other variables.
REFERENCED_ONLY = {"RAMINO_REDIS_ADDRESS", "RAMINO_REDIS_PASSWORD"}


def server(objects: list[Obj]) -> Obj:
    return one(objects, "Deployment", "ramino")


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
    drain = serve_config(objects).config.server.grace
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
    store = serve_config(objects).config.store.url
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
    settings = serve_config(objects).config.server
    assert port_number(c, "grpc") == settings.port
    assert port_number(c, "metrics") == settings.metrics_port
    assert settings.host == "0.0.0.0"
    annotations = d["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == port_number(c, "metrics")
    assert annotations["prometheus.io/path"] == "/metrics"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_setting_is_one_ramino_serve_reads(overlay: str) -> None:
    """The mounted files resolve (an unknown key or a bad value would be
    refused, as the server refuses them at start), and every variable of
    the container is a setting's, or one the server or Kubernetes reads."""
    objects = render(overlay)
    resolved = serve_config(objects)
    assert [f.name for f in resolved.files][0] == "00-base.toml"
    env = container_env(objects, server(objects), "ramino")
    variables = {e.setting.variable for e in entries()}
    unknown = {k for k in env if k.startswith("RAMINO_")} - variables - NOT_SETTINGS
    unknown -= REFERENCED_ONLY
    assert not unknown, f"variables that ramino serve does not read: {unknown}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_settings_come_from_the_mounted_files(overlay: str) -> None:
    """The image's own defaults (its ENV) would win over the file: the
    Deployment empties them, so the file's host, port and store hold (but
    for the managed Redis's store, given as a variable to carry its
    password)."""
    objects = render(overlay)
    folder = container_env(objects, server(objects), "ramino")["RAMINO_CONFIG"]
    assert mounts(server(objects), "ramino")[folder]["configMap"]["name"].startswith(
        "ramino-config"
    )
    sources = {name: str(source) for name, source in serve_config(objects).sources.items()}
    from_variables = {name: source for name, source in sources.items() if source.startswith("env")}
    if overlay == "prod-managed-redis":
        assert from_variables == {"store.url": "env RAMINO_STORE"}
    else:
        assert not from_variables
    for name in ("server.host", "server.port", "server.grace", "server.metrics_port"):
        assert sources[name].startswith("file "), name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_connections_are_recycled_so_scale_out_rebalances(overlay: str) -> None:
    connections = serve_config(render(overlay)).config.connections
    assert connections.max_connection_age is not None
    assert 0 < connections.max_connection_age <= 3600
    assert connections.max_connection_age_grace is not None
    assert 0 < connections.max_connection_age_grace


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
    assert serve_config(objects).config.store.url.startswith("redis://")


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
    assert serve_config(objects).config.store.url.startswith("sqlite:/")
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
    store = serve_config(objects).config.store.url
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
