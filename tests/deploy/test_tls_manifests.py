"""deploy/components/tls through the overlay prod-tls: rendered by kustomize,
Kubernetes' own objects validated strictly, cert-manager's checked for what
the servers and the gateway rely on (each Secret they mount is a
Certificate's, signed by an Issuer of the render or the named public one,
for the names they are dialled by and the usage they are put to)."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from ramino.gateway import (
    KUBERNETES_CONFIG,
    KUBERNETES_SERVER_NAME,
    KUBERNETES_TLS,
    kubernetes_config,
    kubernetes_tls,
    secret_files,
)
from ramino.gateway import render as render_envoy

from tests.deploy.manifests import (
    KUBERNETES_VERSIONS,
    Obj,
    container,
    every,
    mounts,
    one,
    port_number,
    render,
    serve_config,
)

OVERLAY = "prod-tls"
CERT_MANAGER = "cert-manager.io/v1"


def objects() -> list[Obj]:
    return render(OVERLAY)


def certificate_of_secret(objs: list[Obj], secret: str) -> Obj:
    found = [c for c in every(objs, "Certificate") if c["spec"]["secretName"] == secret]
    assert len(found) == 1, f"one Certificate keeps the Secret {secret}"
    return found[0]


def secret_at(workload: Obj, name: str, folder: str) -> str:
    volume = mounts(workload, name)[folder]
    assert "secret" in volume, f"{folder} is a Secret volume"
    return str(volume["secret"]["secretName"])


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_the_tls_overlay_renders_and_kubernetes_objects_validate_strictly(version: str) -> None:
    objs = objects()
    builtin = [o for o in objs if o["apiVersion"] != CERT_MANAGER]
    assert len(builtin) >= 9
    for obj in builtin:
        kubernetes_validate.validate(obj, version, strict=True)
    assert {o["kind"] for o in objs if o["apiVersion"] == CERT_MANAGER} == {"Certificate", "Issuer"}


def test_every_certificate_names_an_issuer_of_the_render_or_the_public_one() -> None:
    objs = objects()
    issuers = {i["metadata"]["name"] for i in every(objs, "Issuer")}
    for cert in every(objs, "Certificate"):
        spec = cert["spec"]
        assert set(spec) <= {
            "secretName",
            "duration",
            "renewBefore",
            "commonName",
            "dnsNames",
            "isCA",
            "privateKey",
            "usages",
            "issuerRef",
        }, cert["metadata"]["name"]
        ref = spec["issuerRef"]
        assert ref["group"] == "cert-manager.io"
        if ref["kind"] == "Issuer":
            assert ref["name"] in issuers, ref
        else:
            assert ref == {
                "name": "letsencrypt",
                "kind": "ClusterIssuer",
                "group": "cert-manager.io",
            }
    ca_issuer = one(objs, "Issuer", "ramino-ca")
    assert certificate_of_secret(objs, ca_issuer["spec"]["ca"]["secretName"])["spec"]["isCA"]


def test_the_servers_serve_mutual_tls_from_the_mounted_certificate() -> None:
    objs = objects()
    server = one(objs, "Deployment", "ramino")
    tls = serve_config(objs).config.tls
    folder = "/etc/ramino/tls/server"
    assert tls.cert_file == f"{folder}/tls.crt"
    assert tls.key_file == f"{folder}/tls.key"
    assert tls.client_ca_file == f"{folder}/ca.crt"
    cert = certificate_of_secret(objs, secret_at(server, "ramino", folder))
    assert "server auth" in cert["spec"]["usages"]
    assert KUBERNETES_SERVER_NAME in cert["spec"]["dnsNames"]
    for service in every(objs, "Service"):
        if service["metadata"]["name"] in ("ramino", "ramino-grpc"):
            name = service["metadata"]["name"]
            assert f"{name}.{service['metadata']['namespace']}.svc" in cert["spec"]["dnsNames"]


def test_the_probes_use_the_plaintext_health_port() -> None:
    objs = objects()
    server = one(objs, "Deployment", "ramino")
    c = container(server, "ramino")
    health = serve_config(objs).config.server.health_port
    assert port_number(c, "health") == health != port_number(c, "grpc")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["grpc"]["port"] == health, probe
    assert c["readinessProbe"]["grpc"]["service"] == "ramino.v1.GameService"


def test_the_gateway_serves_https_and_reaches_the_servers_with_its_client_certificate() -> None:
    objs = objects()
    gateway = one(objs, "Deployment", "ramino-gateway")
    mounted = mounts(gateway, "envoy")
    config_map = one(objs, "ConfigMap", mounted[KUBERNETES_CONFIG]["configMap"]["name"])
    files = config_map["data"]
    assert files["envoy.yaml"] == render_envoy(kubernetes_config(tls=True))
    secrets = secret_files(*kubernetes_tls())
    assert set(files) == {"envoy.yaml", *secrets}
    component = Path(__file__).parents[2] / "deploy/components/tls"
    for name, text in files.items():
        assert text == (component / name).read_text(), name
    browsers = certificate_of_secret(objs, secret_at(gateway, "envoy", f"{KUBERNETES_TLS}/gateway"))
    assert "server auth" in browsers["spec"]["usages"]
    upstream = certificate_of_secret(
        objs, secret_at(gateway, "envoy", f"{KUBERNETES_TLS}/upstream")
    )
    assert "client auth" in upstream["spec"]["usages"]
    server_cert = certificate_of_secret(objs, "ramino-grpc-tls")
    assert upstream["spec"]["issuerRef"] == server_cert["spec"]["issuerRef"]
    # Envoy's secret files are in the ConfigMap, and watch mounted Secrets' folders
    envoy = yaml.safe_load(files["envoy.yaml"])
    sources = _values(envoy, "path_config_source")
    assert len(sources) == 3
    for source in sources:
        folder, _, name = source["path"].rpartition("/")
        assert folder == KUBERNETES_CONFIG and name in files, source
        assert "secret" in mounted[source["watched_directory"]["path"]], source
    # every certificate file the secret files name is a key of a mounted Secret
    named = [f["filename"] for n in secrets for f in _values(yaml.safe_load(files[n]), "")]
    assert len(named) == 5
    for path in named:
        folder, _, key = path.rpartition("/")
        assert "secret" in mounted[folder] and key in ("tls.crt", "tls.key", "ca.crt"), path


def _values(node: object, key: str) -> list[dict[str, str]]:
    """Every value under ``key`` in a config (``""``: every dict with a
    ``filename``)."""
    if isinstance(node, dict):
        if key:
            found = [node[key]] if key in node else []
        else:
            found = [node] if "filename" in node else []
        return found + [f for v in node.values() for f in _values(v, key)]
    if isinstance(node, list):
        return [f for v in node for f in _values(v, key)]
    return []
