"""A certificate authority made by the tests (the ``cryptography`` package):
server and client certificates signed by it, written as PEM files."""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HOSTS = ("localhost", "127.0.0.1")


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _san(hosts: tuple[str, ...]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@dataclass
class Issued:
    """A certificate and its key, as PEM files."""

    cert_file: Path
    key_file: Path
    serial: int

    @property
    def cert_pem(self) -> bytes:
        return self.cert_file.read_bytes()

    @property
    def key_pem(self) -> bytes:
        return self.key_file.read_bytes()


class TestCA:
    """A self-signed CA in ``folder`` (``ca.pem``) that signs leaf certificates."""

    __test__ = False  # not a pytest test class

    def __init__(self, folder: Path, name: str = "Ramino test CA") -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self._cert = (
            x509.CertificateBuilder()
            .subject_name(_name(name))
            .issuer_name(_name(name))
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(self._key, hashes.SHA256())
        )
        self.ca_file = folder / "ca.pem"
        self.ca_file.write_bytes(self.ca_pem)

    @property
    def ca_pem(self) -> bytes:
        return self._cert.public_bytes(serialization.Encoding.PEM)

    def issue(
        self,
        name: str,
        hosts: tuple[str, ...] = HOSTS,
        client: bool = False,
        folder: Path | None = None,
        peer: bool = False,
    ) -> Issued:
        """A certificate for ``hosts`` (a server's; ``client``: a client's;
        ``peer``: both, for a Redis Cluster node, which is a client of the
        other nodes' bus), written as ``NAME.pem`` and ``NAME-key.pem`` in
        ``folder``."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        serial = x509.random_serial_number()
        usages = [ExtendedKeyUsageOID.CLIENT_AUTH if client else ExtendedKeyUsageOID.SERVER_AUTH]
        if peer:
            usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(name))
            .issuer_name(self._cert.subject)
            .public_key(key.public_key())
            .serial_number(serial)
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
            .add_extension(_san(hosts), critical=False)
        )
        cert = builder.sign(self._key, hashes.SHA256())
        out = folder or self.folder
        out.mkdir(parents=True, exist_ok=True)
        cert_file, key_file = out / f"{name}.pem", out / f"{name}-key.pem"
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(_pem_key(key))
        return Issued(cert_file, key_file, serial)


def serial_of(pem: bytes) -> int:
    return x509.load_pem_x509_certificate(pem).serial_number


def swap_like_kubernetes(mount: Path, issued: Issued, generation: str) -> None:
    """Puts ``issued`` into ``mount`` the way the kubelet updates a Secret
    volume: the files are written into a new ``..DATE`` folder, then the
    ``..data`` symlink is swapped to it in one rename; ``tls.crt`` and
    ``tls.key`` are symlinks through ``..data``."""
    folder = mount / f"..{generation}"
    folder.mkdir(parents=True)
    (folder / "tls.crt").write_bytes(issued.cert_pem)
    (folder / "tls.key").write_bytes(issued.key_pem)
    link = mount / "..data_tmp"
    link.symlink_to(folder.name)
    os.replace(link, mount / "..data")
    for name in ("tls.crt", "tls.key"):
        if not (mount / name).is_symlink():
            (mount / name).symlink_to(f"..data/{name}")


def write_set(out: Path) -> None:
    """The certificates the SDKs' TLS tests use, written into ``out``: the CA
    (``ca/ca.pem``), ``server`` for localhost, ``named`` for
    ramino.games.test, ``client`` for mutual TLS, and ``stranger``, a client
    certificate of another CA (``other/ca.pem``)."""
    ca = TestCA(out / "ca")
    ca.issue("server", folder=out)
    ca.issue("named", hosts=("ramino.games.test",), folder=out)
    ca.issue("client", client=True, folder=out)
    TestCA(out / "other", name="Another CA").issue("stranger", client=True, folder=out)


if __name__ == "__main__":
    # python -m tests.support.tls FOLDER (from the repository's root): for the
    # SDKs' tests in other languages.
    import sys

    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.support.tls FOLDER")
    write_set(Path(sys.argv[1]))
