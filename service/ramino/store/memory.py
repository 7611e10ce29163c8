"""The in-memory store: for tests and throwaway servers; nothing survives."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence

from ramino.store.base import (
    REQUESTS_KEPT,
    Archive,
    DuplicateRequest,
    Entry,
    GameExists,
    GameNotFound,
    GameSummary,
    Page,
    RequestRecord,
    TailConflict,
    VersionConflict,
    decode_page_token,
    encode_page_token,
)
from ramino.store.local import Leases, Notifier, follow


class MemoryStore:
    shared = False

    def __init__(self, requests_kept: int = REQUESTS_KEPT) -> None:
        self._logs: dict[str, list[str]] = {}
        self._summaries: dict[str, GameSummary] = {}
        # Per game, request id -> record bytes, oldest first.
        self._requests: dict[str, OrderedDict[str, bytes]] = {}
        self._requests_kept = requests_kept
        self._snapshots: dict[str, tuple[int, str]] = {}
        self._notifier = Notifier()
        self._leases = Leases()

    def _log(self, game_id: str) -> list[str]:
        try:
            return self._logs[game_id]
        except KeyError:
            raise GameNotFound(game_id) from None

    async def create(
        self, summary: GameSummary, first: str, request: RequestRecord | None = None
    ) -> None:
        if summary.game_id in self._logs:
            raise GameExists(summary.game_id)
        self._logs[summary.game_id] = [first]
        self._requests[summary.game_id] = OrderedDict()
        if request is not None:
            self._keep(summary.game_id, request)
        summary.version = 1
        self._summaries[summary.game_id] = GameSummary.from_json(summary.to_json())
        self._notifier.notify(summary.game_id)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        entries: Sequence[str],
        summary: GameSummary,
        request: RequestRecord | None = None,
        tail: str | None = None,
    ) -> int:
        log = self._log(game_id)
        if request is not None and request.request_id in self._requests[game_id]:
            first = self._requests[game_id][request.request_id]
            raise DuplicateRequest(game_id, RequestRecord.from_bytes(first))
        if len(log) != expected_version:
            raise VersionConflict(game_id, expected_version, len(log))
        if tail is not None and log[-1] != tail:
            raise TailConflict(game_id, expected_version)
        log.extend(entries)
        if request is not None:
            self._keep(game_id, request)
        summary.version = len(log)
        self._summaries[game_id] = GameSummary.from_json(summary.to_json())
        self._notifier.notify(game_id)
        return len(log)

    def _keep(self, game_id: str, request: RequestRecord) -> None:
        kept = self._requests[game_id]
        kept[request.request_id] = request.to_bytes()
        while len(kept) > self._requests_kept:
            kept.popitem(last=False)

    async def requests_kept(self, game_id: str) -> int:
        """How many request records the game keeps (for tests)."""
        return len(self._requests.get(game_id, ()))

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[Entry]:
        log = self._log(game_id)
        end = len(log) if limit is None else min(len(log), after_version + limit)
        return [Entry(v, log[v - 1]) for v in range(after_version + 1, end + 1)]

    async def version(self, game_id: str) -> int:
        return len(self._log(game_id))

    async def request(self, game_id: str, request_id: str) -> RequestRecord | None:
        kept = self._requests.get(game_id)
        found = None if kept is None else kept.get(request_id)
        return None if found is None else RequestRecord.from_bytes(found)

    def subscribe(self, game_id: str, after_version: int) -> AsyncIterator[Entry]:
        return follow(self.read, self._notifier, game_id, after_version)

    async def list_games(
        self,
        page_size: int,
        page_token: str = "",
        variant: str = "",
        status: str = "",
        open_only: bool = False,
    ) -> Page:
        cursor = decode_page_token(page_token)
        rows = sorted(self._summaries.values(), key=lambda s: (s.created_at, s.game_id))
        rows = [
            s
            for s in rows
            if (cursor is None or (s.created_at, s.game_id) > cursor)
            and (not variant or s.variant == variant)
            and (not status or s.status == status)
            and (not open_only or s.open_seats > 0)
            and not s.extra.get("private")
        ]
        page = rows[:page_size]
        more = len(rows) > page_size
        token = encode_page_token(page[-1].created_at, page[-1].game_id) if more else ""
        return Page([GameSummary.from_json(s.to_json()) for s in page], token)

    async def save_snapshot(self, game_id: str, version: int, data: str) -> None:
        self._log(game_id)
        self._snapshots[game_id] = (version, data)

    async def load_snapshot(self, game_id: str) -> tuple[int, str] | None:
        return self._snapshots.get(game_id)

    async def due_games(self, now: float, limit: int = 100) -> list[str]:
        due = [s for s in self._summaries.values() if s.duty_at is not None and s.duty_at <= now]
        due.sort(key=lambda s: (s.duty_at or 0.0, s.game_id))
        return [s.game_id for s in due[:limit]]

    async def acquire_lease(self, game_id: str, owner: str, ttl: float) -> bool:
        return self._leases.acquire(game_id, owner, ttl, time.monotonic())

    async def release_lease(self, game_id: str, owner: str) -> None:
        self._leases.release(game_id, owner)

    async def expire_finished(self, before: float, archive: Archive | None = None) -> list[str]:
        gone = [
            s.game_id
            for s in self._summaries.values()
            if s.finished_at is not None and s.finished_at < before
        ]
        for game_id in gone:
            if archive is not None:
                await archive(game_id, await self.read(game_id))
            for table in (self._logs, self._summaries, self._snapshots, self._requests):
                table.pop(game_id, None)
        return gone

    async def close(self) -> None:
        pass
