"""The store's values and errors that the application hands the transport
unchanged (a game's summary, a request's record, a history entry and the
rating records in it and in a board's entries, a party's members, the
errors a call may end in), named here so that the transport
(``ramino.api``) never imports the store: it sees only what the application
gives it (``tests/service/test_layers.py`` holds it to that). A ticket, a
party and a rating are the application's own (``ramino.app.quick.tickets``,
``ramino.app.quick.ratings``), made from the store's records there."""

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
from ramino.store.ratings import HistoryEntry, RatingRecord
from ramino.store.tickets import (
    CANCELLED,
    EXPIRED,
    MATCHED,
    Invitation,
    PartyMember,
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
    "PartyMember",
    "RatingRecord",
    "RequestRecord",
    "StoreError",
    "TicketExists",
    "VersionConflict",
    "fingerprint",
]
