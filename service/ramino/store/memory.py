"""The in-memory store: for tests and throwaway servers; nothing survives."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence

from ramino.store.base import (
    Archive,
    DuplicateRequest,
    Entry,
    GameExists,
    GameNotFound,
    GameSummary,
    Page,
    VersionConflict,
    decode_page_token,
    encode_page_token,
)
from ramino.store.local import Leases, Notifier, follow


class MemoryStore:
    shared = False

    def __init__(self) -> None:
        self._logs: dict[str, list[str]] = {}
        self._summaries: dict[str, GameSummary] = {}
        self._requests: dict[tuple[str, str], bytes] = {}
        self._snapshots: dict[str, tuple[int, str]] = {}
        self._notifier = Notifier()
        self._leases = Leases()

    def _log(self, game_id: str) -> list[str]:
        try:
            return self._logs[game_id]
        except KeyError:
            raise GameNotFound(game_id) from None

    async def create(self, summary: GameSummary, first: str) -> None:
        if summary.game_id in self._logs:
            raise GameExists(summary.game_id)
        self._logs[summary.game_id] = [first]
        summary.version = 1
        self._summaries[summary.game_id] = GameSummary.from_json(summary.to_json())
        self._notifier.notify(summary.game_id)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        entries: Sequence[str],
        summary: GameSummary,
        request_id: str | None = None,
        response: bytes = b"",
    ) -> int:
        log = self._log(game_id)
        if request_id and (game_id, request_id) in self._requests:
            raise DuplicateRequest(game_id, request_id, self._requests[game_id, request_id])
        if len(log) != expected_version:
            raise VersionConflict(game_id, expected_version, len(log))
        log.extend(entries)
        if request_id:
            self._requests[game_id, request_id] = response
        summary.version = len(log)
        self._summaries[game_id] = GameSummary.from_json(summary.to_json())
        self._notifier.notify(game_id)
        return len(log)

    async def read(self, game_id: str, after_version: int = 0) -> list[Entry]:
        log = self._log(game_id)
        return [Entry(v, log[v - 1]) for v in range(after_version + 1, len(log) + 1)]

    async def version(self, game_id: str) -> int:
        return len(self._log(game_id))

    async def request(self, game_id: str, request_id: str) -> bytes | None:
        return self._requests.get((game_id, request_id))

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
            for table in (self._logs, self._summaries, self._snapshots):
                table.pop(game_id, None)
            for key in [k for k in self._requests if k[0] == game_id]:
                del self._requests[key]
        return gone

    async def close(self) -> None:
        pass
