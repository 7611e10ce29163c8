"""The server's TLS: a certificate and key from files (and a client CA for
mutual TLS), reloaded when the files change, without a restart.

gRPC asks :class:`CertificateFiles` before every new connection's handshake
(``grpc.dynamic_ssl_server_credentials``); it compares the files' identity
(device, inode, size, modification time, through symlinks) with the files it
loaded last and reads them again only when that changed. cert-manager renews
a Secret in place and the kubelet swaps the mounted folder's ``..data``
symlink: the paths stay, their targets change, and the next connection gets
the new certificate. Connections already open keep theirs.

A renewal caught half written (a certificate whose key does not match, a
file cut short) is not served: the previous certificate stays and a warning
says why; the next change of the files is tried again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import grpc
import structlog
from cryptography import x509
from cryptography.hazmat.primitives import serialization

log = structlog.get_logger("ramino.tls")

Stamp = tuple[tuple[int, int, int, int], ...]


class TlsFileError(ValueError):
    """A certificate, key or CA file that cannot be used; the message names it."""


@dataclass(frozen=True)
class ServerTls:
    """Where the server's TLS files are. ``client_ca_file``: mutual TLS, a
    client must present a certificate signed by one of these CAs."""

    cert_file: str
    key_file: str
    client_ca_file: str | None = None

    def paths(self) -> tuple[str, ...]:
        return (self.cert_file, self.key_file) + (
            (self.client_ca_file,) if self.client_ca_file else ()
        )


@dataclass(frozen=True)
class LoadedTls:
    """The files' contents, checked: the chain, its key, the client CAs."""

    chain: bytes
    key: bytes
    client_ca: bytes | None
    serial: int
    not_after: str

    def configuration(self) -> grpc.ServerCertificateConfiguration:
        return grpc.ssl_server_certificate_configuration(
            [(self.key, self.chain)], root_certificates=self.client_ca
        )


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise TlsFileError(f"{what} {path}: cannot be read ({e.strerror or e})") from None


def _certificates(data: bytes, path: str, what: str) -> list[x509.Certificate]:
    try:
        certs = x509.load_pem_x509_certificates(data)
    except ValueError:
        certs = []
    if not certs:
        raise TlsFileError(f"{what} {path}: holds no PEM certificate")
    return certs


def load(tls: ServerTls) -> LoadedTls:
    """The files of ``tls``, read and checked; :class:`TlsFileError` naming
    the file otherwise."""
    chain = _read(tls.cert_file, "--tls-cert-file")
    key = _read(tls.key_file, "--tls-key-file")
    leaf = _certificates(chain, tls.cert_file, "--tls-cert-file")[0]
    try:
        private = serialization.load_pem_private_key(key, password=None)
    except (ValueError, TypeError) as e:
        raise TlsFileError(
            f"--tls-key-file {tls.key_file}: not an unencrypted PEM private key ({e})"
        ) from None
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    pem = serialization.Encoding.PEM
    if private.public_key().public_bytes(pem, spki) != leaf.public_key().public_bytes(pem, spki):
        raise TlsFileError(
            f"--tls-key-file {tls.key_file}: is not the key of the certificate in {tls.cert_file}"
        )
    client_ca = None
    if tls.client_ca_file:
        client_ca = _read(tls.client_ca_file, "--tls-client-ca-file")
        _certificates(client_ca, tls.client_ca_file, "--tls-client-ca-file")
    return LoadedTls(
        chain, key, client_ca, leaf.serial_number, leaf.not_valid_after_utc.isoformat()
    )


def _stamp(paths: tuple[str, ...]) -> Stamp:
    stamps = []
    for path in paths:
        try:
            st = os.stat(path)  # follows the Secret volume's symlinks
        except OSError:
            stamps.append((-1, -1, -1, -1))
            continue
        stamps.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(stamps)


class CertificateFiles:
    """The certificate configuration fetcher of one server: called by gRPC
    before each handshake, it returns a new configuration when the files
    changed, None to keep the current one."""

    def __init__(self, tls: ServerTls) -> None:
        self.tls = tls
        self._lock = threading.Lock()
        self._stamp = _stamp(tls.paths())
        self.loaded = load(tls)

    def __call__(self) -> grpc.ServerCertificateConfiguration | None:
        stamp = _stamp(self.tls.paths())
        if stamp == self._stamp:
            return None
        with self._lock:
            if stamp == self._stamp:
                return None
            self._stamp = stamp  # a bad renewal is tried again on the next change only
            try:
                loaded = load(self.tls)
            except TlsFileError as e:
                log.warning(
                    "tls_reload_refused",
                    error=str(e),
                    serving_serial=f"{self.loaded.serial:x}",
                )
                return None
            log.info(
                "tls_reloaded",
                serial=f"{loaded.serial:x}",
                previous_serial=f"{self.loaded.serial:x}",
                not_after=loaded.not_after,
            )
            self.loaded = loaded
            return loaded.configuration()


def server_credentials(tls: ServerTls) -> tuple[grpc.ServerCredentials, CertificateFiles]:
    """Credentials for ``add_secure_port`` that reload ``tls``'s files, and
    their fetcher. :class:`TlsFileError` when the files cannot be used now."""
    files = CertificateFiles(tls)
    # gRPC documents None as "keep the current configuration"; types-grpcio
    # types the fetcher without it.
    fetcher = cast(Callable[[], grpc.ServerCertificateConfiguration], files)
    credentials = grpc.dynamic_ssl_server_credentials(
        files.loaded.configuration(),
        fetcher,
        require_client_authentication=tls.client_ca_file is not None,
    )
    return credentials, files
