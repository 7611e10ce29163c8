"""The sqlite store's write-ahead log stays within its stated bound, in bytes
(issue 36, item 6: 20,000 creates used to leave 67 MB, the 64 MiB of
``journal_size_limit``, and reach 81-123 MB on the way, above the
documented 64 MB): the checkpointer catches up from half the bound and cuts
a restarted log back to half of it, writers wait from three quarters, so
the one commit that lands after their check still fits under it."""

from __future__ import annotations

from pathlib import Path

import pytest
from ramino.store.sqlite import WAL_LIMIT, SqliteStore, hold_size, restart_size

from tests.support.sqlite_burst import burst, prepare


def test_the_bound_is_the_limit_and_its_parts_are_below_it() -> None:
    assert WAL_LIMIT == 64 * 1024 * 1024
    assert restart_size(WAL_LIMIT) < hold_size(WAL_LIMIT) < WAL_LIMIT


@pytest.mark.parametrize(("kind", "count"), [("creates", 6000), ("moves", 12000)])
async def test_the_log_never_passes_its_bound_during_a_burst_nor_after_it(
    tmp_path: Path, kind: str, count: int
) -> None:
    """A burst that writes several times the bound: sampled after every
    batch, the log's file is within it, and it is restarted (cut back)
    rather than left at the bound."""
    # A batch of 64 appends commits up to about 0.8 MB at once, checked before it
    # is written: the quarter of the bound above the writers' hold leaves room
    # for it (in the server, a quarter of 64 MiB: ~2,000 moves in one turn).
    limit = 8 * 1024 * 1024
    store = SqliteStore(tmp_path / "games.db", wal_limit=limit)
    assert store.checkpointer is not None
    sizes: list[int] = []
    try:
        await prepare(store, kind)
        await burst(store, kind, count, sizes)
        assert store.checkpointer.restarted >= 2, "the burst never passed the catch-up size"
        assert max(sizes) <= limit, (max(sizes), limit)
        # Once caught up, the file is cut back to half the bound, not left at it.
        assert min(sizes[len(sizes) // 2 :]) <= restart_size(limit)
        assert sizes[-1] <= limit
    finally:
        await store.close()
