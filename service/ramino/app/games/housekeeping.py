"""Housekeeping: finished games expire from the store after the retention
time, archived first when asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import structlog

from ramino import tasks
from ramino.app.games.cache import GameCache
from ramino.store import Entry

log = structlog.get_logger("ramino.app")


class Housekeeping:
    """The expiry of the store's finished games."""

    def __init__(
        self, cache: GameCache, retention: float | None = None, archive_dir: str | None = None
    ) -> None:
        """With ``retention`` seconds, finished games expire (archived as
        ``archive_dir/{game}.jsonl`` first when given) once started."""
        self._t = cache
        self.retention = retention
        self.archive_dir = archive_dir
        self._janitor: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        await tasks.stop([self._janitor])

    async def start(self) -> None:
        """Starts the expiry of finished games, if they expire."""
        if self.retention is not None and self._janitor is None:
            self._janitor = asyncio.create_task(self._expire(self.retention, self.archive_dir))

    async def _expire(self, retention: float, archive_dir: str | None) -> None:
        archive = None
        if archive_dir is not None:
            folder = Path(archive_dir)
            folder.mkdir(parents=True, exist_ok=True)

            async def write(game_id: str, entries: list[Entry]) -> None:
                lines = "".join(e.data + "\n" for e in entries)
                (folder / f"{game_id}.jsonl").write_text(lines)

            archive = write
        while True:
            try:
                gone = await self._t.store.expire_finished(self._t.clock() - retention, archive)
                self._t.life.expired(gone)
                if gone:
                    log.info(
                        "finished games expired", count=len(gone), archived=archive is not None
                    )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("expiry failed")
            await asyncio.sleep(min(30.0, max(retention / 4, 0.05)))
