"""The store's URL (``redis://``, ``redis+cluster://``, over TLS
``rediss://`` and ``rediss+cluster://``) and its TLS options."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit, urlunsplit

from redis.asyncio import RedisCluster
from redis.asyncio.connection import SSLConnection

from ramino.store.redis.keys import DEFAULT_BUCKETS
from ramino.store.redis.retry import guarded

TLS_OPTIONS = ("tls_ca_file", "tls_cert_file", "tls_key_file", "tls_server_name")
"""The URL options of a store over TLS."""


class _NamedTlsConnection(SSLConnection):
    """A TLS connection that checks the server's certificate against a
    fixed name (and sends it as SNI) instead of the address it dials: a
    cluster's nodes announce addresses, the certificate names the service."""

    server_name = ""

    def _connection_arguments(self) -> Any:
        return {**super()._connection_arguments(), "server_hostname": self.server_name}


@dataclass(frozen=True, slots=True)
class RedisTls:
    """TLS toward Redis, from the URL's options: ``tls_ca_file`` (the CAs
    that sign the server's certificate; the system's by default),
    ``tls_cert_file`` and ``tls_key_file`` (a client certificate, for a
    Redis that asks for one), ``tls_server_name`` (the name the server's
    certificate must carry; the host dialled by default). The server's
    certificate is always verified."""

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    server_name: str | None = None

    @classmethod
    def from_query(cls, query: dict[str, list[str]], scheme: str) -> RedisTls | None:
        """The TLS options popped from ``query``; None for a plaintext scheme."""
        given = {name: query.pop(name)[-1] for name in TLS_OPTIONS if name in query}
        if not scheme.startswith("rediss"):
            if given:
                name = sorted(given)[0]
                raise ValueError(
                    f"store option {name} needs TLS: use rediss:// or rediss+cluster://"
                )
            return None
        for name, value in given.items():
            if not value:
                raise ValueError(f"store option {name} is empty")
        tls = cls(
            given.get("tls_ca_file"),
            given.get("tls_cert_file"),
            given.get("tls_key_file"),
            given.get("tls_server_name"),
        )
        if (tls.cert_file is None) != (tls.key_file is None):
            raise ValueError("store options tls_cert_file and tls_key_file go together")
        for name, path in (
            ("tls_ca_file", tls.ca_file),
            ("tls_cert_file", tls.cert_file),
            ("tls_key_file", tls.key_file),
        ):
            if path is not None and not os.access(path, os.R_OK):
                raise ValueError(f"store option {name}: cannot read {path[:200]!r}")
        return tls

    def ssl_options(self) -> dict[str, Any]:
        """redis-py's ``ssl_*`` options of a TLS connection."""
        return {
            "ssl_ca_certs": self.ca_file,
            "ssl_certfile": self.cert_file,
            "ssl_keyfile": self.key_file,
            "ssl_cert_reqs": "required",
            "ssl_check_hostname": True,
        }

    def connection_class(self) -> type[SSLConnection]:
        """The class of a connection over this TLS (:func:`.retry.guarded`,
        as every connection of the store)."""
        if self.server_name is None:
            return guarded(SSLConnection)
        name = {"server_name": self.server_name}
        return guarded(type("NamedTlsConnection", (_NamedTlsConnection,), name))

    def redis_options(self) -> dict[str, Any]:
        """The options of a ``Redis`` client (one server) over this TLS."""
        return {"connection_class": self.connection_class(), **self.ssl_options()}

    def cluster(self, cluster: RedisCluster) -> RedisCluster:
        """``cluster`` (made with ``ssl=True`` and :meth:`ssl_options`) with
        its connections named: RedisCluster has no option for the class of
        its connections, and makes its nodes' from ``connection_kwargs``."""
        if self.server_name is not None:
            named = self.connection_class()
            cluster.connection_kwargs["connection_class"] = named
            for node in cluster.nodes_manager.startup_nodes.values():
                node.connection_class = named
        return cluster


@dataclass(frozen=True, slots=True)
class StoreUrl:
    """A parsed store URL: the nodes (cluster) or the URL for redis-py
    (one Redis), and this store's own options."""

    cluster: bool
    redis_url: str = ""
    nodes: tuple[tuple[str, int], ...] = ()
    wait: int = 0
    wait_timeout: float = 10.0
    buckets: int = DEFAULT_BUCKETS
    username: str | None = None
    password: str | None = None
    tls: RedisTls | None = None

    @classmethod
    def parse(cls, url: str) -> StoreUrl:
        parts = urlsplit(url)
        query = parse_qs(parts.query, keep_blank_values=True)
        tls = RedisTls.from_query(query, parts.scheme)
        own: dict[str, int] = {}
        for name in ("wait", "wait_timeout_ms", "buckets"):
            if name in query:
                value = query.pop(name)[-1]
                if not value.isdigit():
                    raise ValueError(
                        f"store option {name} must be a whole number, not {value[:20]!r}"
                    )
                own[name] = int(value)
        wait = own.get("wait", 0)
        wait_timeout = own.get("wait_timeout_ms", 10000) / 1000
        buckets = own.get("buckets", DEFAULT_BUCKETS)
        if parts.scheme in ("redis+cluster", "rediss+cluster"):
            if query:
                raise ValueError(f"unknown cluster store option {sorted(query)[0][:20]!r}")
            if buckets < 1:
                raise ValueError("store option buckets must be at least 1")
            hosts = parts.netloc.rpartition("@")[2]
            nodes = []
            for hostport in filter(None, hosts.split(",")):
                host, sep, port = hostport.rpartition(":")
                if not sep or not host or not port.isdigit():
                    raise ValueError(f"a cluster node is HOST:PORT, not {hostport[:40]!r}")
                nodes.append((host, int(port)))
            if not nodes:
                raise ValueError(f"{parts.scheme}:// needs at least one HOST:PORT")
            return cls(
                True,
                nodes=tuple(nodes),
                wait=wait,
                wait_timeout=wait_timeout,
                buckets=buckets,
                username=unquote(parts.username) if parts.username else None,
                password=unquote(parts.password) if parts.password else None,
                tls=tls,
            )
        rest = urlencode([(k, v) for k, vs in query.items() for v in vs])
        # TLS is set up by this store (RedisTls), so redis-py gets redis://
        plain = urlunsplit(parts._replace(scheme="redis", query=rest))
        return cls(False, redis_url=plain, wait=wait, wait_timeout=wait_timeout, buckets=0, tls=tls)
