"""The store's values and errors that the application hands the transport
unchanged (a game's summary, a request's record, a ticket, a rating, a
history entry, the errors a call may end in), named here so that the
transport (``ramino.api``) never imports the store: it sees only what the
application gives it (``tests/service/test_layers.py`` holds it to that)."""

from __future__ import annotations

from ramino.store import (
    GameExists,
    GameNotFound,
    GameSummary,
    RequestRecord,
    StoreError,
    VersionConflict,
)
from ramino.store.base import fingerprint
from ramino.store.ratings import HistoryEntry, Rating
from ramino.store.tickets import (
    CANCELLED,
    EXPIRED,
    MATCHED,
    Invitation,
    Party,
    PartyMember,
    Ticket,
    TicketExists,
)

__all__ = [
    "CANCELLED",
    "EXPIRED",
    "MATCHED",
    "GameExists",
    "GameNotFound",
    "GameSummary",
    "HistoryEntry",
    "Invitation",
    "Party",
    "PartyMember",
    "Rating",
    "RequestRecord",
    "StoreError",
    "Ticket",
    "TicketExists",
    "VersionConflict",
    "fingerprint",
]
