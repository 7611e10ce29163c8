"""The store interface: a game is an append-only log of entries (JSON text),
appended only at the expected version, plus a summary row for the lobby and
the first answer of each request id.

Every store gives the same guarantees:
- ``append`` is atomic and succeeds only when the game is at
  ``expected_version``; otherwise it raises :class:`VersionConflict` and
  writes nothing;
- a request id already seen for the game raises :class:`DuplicateRequest`
  carrying the first :class:`RequestRecord` (whoever sent it: the caller
  compares the record's scope, method and fingerprint), and nothing is written;
- a game keeps the records of its most recent ``REQUESTS_KEPT`` request ids
  (older ones are pruned by the append that goes past the bound), and they
  go with the game when it expires;
- ``subscribe`` yields every entry after a version, in order, with no gap and
  none twice, including entries appended through other processes where the
  store is shared.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from ramino import reasons
from ramino.errors import Interrupted, RaminoError

__all__ = [
    "REQUESTS_KEPT",
    "RequestRecord",
    "Entry",
    "GameSummary",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "ShardUnavailable",
    "VersionConflict",
    "TailConflict",
    "DuplicateRequest",
    "GameExists",
    "GameNotFound",
    "Page",
    "Archive",
    "encode_page_token",
    "decode_page_token",
]


def _rebuilt(
    cls: type[StoreError], message: str, reason: str, fields: dict[str, Any]
) -> StoreError:
    error = cls.__new__(cls)
    RaminoError.__init__(error, message, reason)
    error.__dict__.update(fields)
    return error


class StoreError(RaminoError):
    """Base of the store's errors, under :class:`~ramino.errors.RaminoError`:
    each subclass has its reason; one without is a bug (INTERNAL)."""

    def __init__(self, message: str, reason: str = reasons.INTERNAL) -> None:
        super().__init__(message, reason)

    def __reduce__(self) -> Any:
        fields = {k: v for k, v in self.__dict__.items() if k != "reason"}
        return (_rebuilt, (type(self), str(self), self.reason, fields))


class VersionConflict(StoreError):
    """An append at a version that is not the game's (ABORTED)."""

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"game {game_id} is at version {actual}, not {expected}", reasons.VERSION_MISMATCH
        )
        self.game_id, self.expected, self.actual = game_id, expected, actual


class TailConflict(VersionConflict):
    """An append at the game's version over an entry there that is not the
    one the writer last saw: a write it saw was lost (a Redis failover) and
    another took its place (ABORTED, as any version conflict)."""

    def __init__(self, game_id: str, version: int) -> None:
        StoreError.__init__(
            self,
            f"game {game_id}'s entry at version {version} is not the one this replica saw",
            reasons.VERSION_MISMATCH,
        )
        self.game_id, self.expected, self.actual = game_id, version, version


class StoreUnavailable(StoreError, Interrupted):
    """The store is out of reach once its own retries are spent: not
    acknowledged (UNAVAILABLE; a retry with its request id gets the first
    answer if the write did land)."""

    def __init__(self) -> None:
        super().__init__(
            "the game store is out of reach for now; retry the request with its request id",
            reasons.STORE_UNAVAILABLE,
        )


class ShardUnavailable(StoreUnavailable):
    """The node that serves the game's keys is out of reach and its shard
    has no replica to take its place: only that node's return serves the
    game again, so the call is not held while it is awaited. ``retry_after``:
    the seconds a client should wait before it tries again (sent as
    ``google.rpc.RetryInfo`` and ErrorInfo's ``retry_after_ms``)."""

    def __init__(self, retry_after: float) -> None:
        RaminoError.__init__(
            self,
            "the store's node that holds this game is down and has no replica to take its "
            "place; retry the request with its request id later",
            reasons.SHARD_UNAVAILABLE,
        )
        self.retry_after = retry_after


REQUESTS_KEPT = 256
"""Request records a store keeps per game: the most recent ones."""

_RECORD_MAGIC = b"RQ1"


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """The first answer to a request id, with who asked and what.

    ``scope`` names the caller (a seat of the game, or an anonymous caller's
    hashed key, or a player), ``method`` the RPC, and ``fingerprint`` the
    request itself (see :func:`fingerprint`): a retry is answered from the
    record only when all three match."""

    request_id: str
    scope: str
    method: str
    fingerprint: str
    response: bytes = b""

    def matches(self, other: RequestRecord) -> bool:
        """Whether ``other`` is a retry of this record's request."""
        return (self.scope, self.method, self.fingerprint) == (
            other.scope,
            other.method,
            other.fingerprint,
        )

    def to_bytes(self) -> bytes:
        head = orjson.dumps([self.request_id, self.scope, self.method, self.fingerprint])
        return _RECORD_MAGIC + head + b"\n" + self.response

    @classmethod
    def from_bytes(cls, data: bytes) -> RequestRecord:
        """The record of :meth:`to_bytes`. Bytes kept by an older server (a
        bare answer) become a record with an empty scope, which matches no
        caller: such a request id is refused, never answered."""
        if data.startswith(_RECORD_MAGIC):
            head, sep, response = data[len(_RECORD_MAGIC) :].partition(b"\n")
            if sep:
                try:
                    request_id, scope, method, print_ = orjson.loads(head)
                    return cls(str(request_id), str(scope), str(method), str(print_), response)
                except (orjson.JSONDecodeError, ValueError, TypeError):
                    pass
        return cls("", "", "", "", data)


def fingerprint(serialized: bytes) -> str:
    """The fingerprint of a request: SHA-256 (hex) of its deterministic
    serialization with its request id cleared."""
    return hashlib.sha256(serialized).hexdigest()


class DuplicateRequest(StoreError):
    def __init__(self, game_id: str, record: RequestRecord) -> None:
        super().__init__(f"a request id was already used in game {game_id}")
        self.game_id, self.record = game_id, record


class GameExists(StoreError):
    def __init__(self, game_id: str) -> None:
        super().__init__(game_id, reasons.GAME_EXISTS)
        self.game_id = game_id


class GameNotFound(StoreError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id}", reasons.GAME_NOT_FOUND)
        self.game_id = game_id


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a game's log; versions count from 1."""

    version: int
    data: str


@dataclass(slots=True)
class GameSummary:
    """What the lobby lists of a game, kept beside its log."""

    game_id: str
    variant: str
    status: str
    created_at: float
    open_seats: int = 0
    seats: int = 0
    version: int = 0
    duty_at: float | None = None
    """When a server-side duty (a bot's move, a turn timer) is next due."""
    finished_at: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return orjson.dumps(
            {
                "game_id": self.game_id,
                "variant": self.variant,
                "status": self.status,
                "created_at": self.created_at,
                "open_seats": self.open_seats,
                "seats": self.seats,
                "version": self.version,
                "duty_at": self.duty_at,
                "finished_at": self.finished_at,
                "extra": self.extra,
            },
            option=orjson.OPT_SORT_KEYS,
        ).decode()

    @classmethod
    def from_json(cls, text: str) -> GameSummary:
        try:
            data = orjson.loads(text)  # (several times faster than json's)
        except orjson.JSONDecodeError:
            data = json.loads(text)  # what orjson refuses and json reads: NaN, huge numbers
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Page:
    games: list[GameSummary]
    next_page_token: str


MAX_PAGE_TOKEN = 200
"""Longest page token a store makes (a timestamp and a game id) with room to spare."""


def encode_page_token(created_at: float, game_id: str) -> str:
    """An opaque cursor: the last game of a page, as URL-safe base64 of JSON."""
    raw = json.dumps([created_at, game_id]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def decode_page_token(token: str) -> tuple[float, str] | None:
    """The cursor of a page token; ``None`` for the first page. Raises
    ``ValueError`` (whose message does not quote the token) on any token this
    store did not make: too long, not base64, not JSON, not a finite time and
    a game id."""
    if not token:
        return None
    bad = ValueError("bad page token: pass the next_page_token of a previous page")
    if len(token) > MAX_PAGE_TOKEN or not token.isascii():
        raise bad
    try:
        cursor = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, TypeError, RecursionError):
        raise bad from None
    if not (isinstance(cursor, list) and len(cursor) == 2):
        raise bad
    created_at, game_id = cursor
    if (
        isinstance(created_at, bool)
        or not isinstance(created_at, int | float)
        or not isinstance(game_id, str)
        or len(game_id) > 64
    ):
        raise bad
    try:
        when = float(created_at)
    except OverflowError:
        raise bad from None
    if not math.isfinite(when):
        raise bad
    return when, game_id


class Store(Protocol):
    """What the application needs of a store (memory, sqlite, redis)."""

    shared: bool
    """True where other processes append to the same games (redis): a game
    kept in memory must then be brought up to date before each use. Where
    this process is the only writer, the copy it keeps is the latest."""

    async def create(
        self, summary: GameSummary, first: str, request: RequestRecord | None = None
    ) -> None:
        """A new game whose log starts with ``first`` (version 1), with the
        record of the request that created it when given."""
        ...

    async def append(
        self,
        game_id: str,
        expected_version: int,
        entries: Sequence[str],
        summary: GameSummary,
        request: RequestRecord | None = None,
        tail: str | None = None,
    ) -> int:
        """Appends ``entries`` after ``expected_version`` and replaces the
        summary, atomically, keeping ``request``'s record (its request id must
        be new to the game: else :class:`DuplicateRequest`); returns the new
        version. ``tail``: the text of the entry at ``expected_version`` as
        the writer last saw it; a store with other writers (``shared``)
        then appends only over that same entry, else :class:`TailConflict`
        (a write it saw was lost, and another took its place)."""
        ...

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[Entry]:
        """The entries after ``after_version``, in order; with ``limit`` (at
        least 1), the first ``limit`` of them at most: a long log read a page
        at a time."""
        ...

    async def version(self, game_id: str) -> int: ...

    async def request(self, game_id: str, request_id: str) -> RequestRecord | None:
        """The record of ``request_id`` in the game, if it was applied (and
        not pruned since)."""
        ...

    async def requests_kept(self, game_id: str) -> int:
        """How many request records the game keeps (at most ``REQUESTS_KEPT``)."""
        ...

    def subscribe(self, game_id: str, after_version: int) -> AsyncIterator[Entry]:
        """Every entry after ``after_version``, then each new one as it lands."""
        ...

    async def list_games(
        self,
        page_size: int,
        page_token: str = "",
        variant: str = "",
        status: str = "",
        open_only: bool = False,
    ) -> Page:
        """A page of the lobby, oldest first: never a private game (whose
        summary's ``extra`` has ``private``)."""
        ...

    async def save_snapshot(self, game_id: str, version: int, data: str) -> None: ...

    async def load_snapshot(self, game_id: str) -> tuple[int, str] | None: ...

    async def due_games(self, now: float, limit: int = 100) -> list[str]:
        """Games with a duty due at or before ``now``, soonest first."""
        ...

    async def acquire_lease(self, game_id: str, owner: str, ttl: float) -> bool:
        """Takes or renews the game's duty lease for ``owner`` for ``ttl``
        seconds; False while another owner holds it."""
        ...

    async def release_lease(self, game_id: str, owner: str) -> None: ...

    async def expire_finished(self, before: float, archive: Archive | None = None) -> list[str]:
        """Removes the games finished before ``before`` (after handing each
        game's entries to ``archive``); returns their ids."""
        ...

    async def close(self) -> None: ...


Archive = Callable[[str, list[Entry]], Awaitable[None]]
