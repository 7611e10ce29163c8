"""Quick-play tickets and the matches made of them, kept in the store so
that every replica matches the same queues.

A ticket is *waiting* until a match claims it (*matching*), then *matched*
once its game exists; or it ends *cancelled* or *expired* while waiting.
Every store gives the same guarantees:

- :meth:`TicketStore.claim` moves all of a match's tickets from waiting to
  matching in one atomic step, or none (a ticket already claimed, cancelled
  or expired): a ticket is in at most one match, so it never yields two
  seats;
- a match stays in the store (:meth:`TicketStore.forming`) from its claim
  until :meth:`TicketStore.complete` marks its tickets matched, so a replica
  that dies in between leaves it for the next replica to finish (its game is
  created under the match's id, all its seats bound at creation: see
  ``ramino.app.quick.matchmaker``);
- a player holds at most ``limit`` waiting or matching tickets at once
  (:class:`TooManyTickets`);
- waiting tickets are listed oldest first (by submission time, then id);
- a ticket is *followed* while a stream on some replica notes so in the store
  (:meth:`TicketStore.touch`); its last-followed time is the last such note,
  or its submission time if none came. A claim or an end given a time checks
  the tickets' last-followed times against it in the same atomic step, so a
  stream that notes a ticket at that moment is never lost (see
  :func:`followed_at`).

A ticket's id starts with its queue (``QUEUE.RANDOM``), so a store finds a
ticket's queue from its id alone (on Redis, the hash slot of its keys).

Laid out as the game store: the records and the protocol in
:mod:`~ramino.store.tickets.base`, one module per backend beside it. The
application's ``Ticket`` and ``Party`` are made from the records
(``ramino.app.quick.tickets``).
"""

from __future__ import annotations

from collections.abc import Callable

from ramino.store.beside import beside
from ramino.store.tickets.base import (
    ACTIVE,
    CANCELLED,
    ENDED_KEPT,
    EXPIRED,
    MATCHED,
    MATCHING,
    WAITING,
    Invitation,
    Match,
    MatchSeat,
    PartyMember,
    PartyRecord,
    TicketExists,
    TicketRecord,
    TicketRequestReused,
    TicketStore,
    TooManyTickets,
    followed_at,
    new_ticket_id,
    queue_of,
)
from ramino.store.tickets.memory import MemoryTickets
from ramino.store.tickets.sqlite import SqliteTickets

__all__ = [
    "ACTIVE",
    "CANCELLED",
    "ENDED_KEPT",
    "EXPIRED",
    "MATCHED",
    "MATCHING",
    "WAITING",
    "Invitation",
    "Match",
    "MatchSeat",
    "MemoryTickets",
    "PartyMember",
    "PartyRecord",
    "SqliteTickets",
    "TicketExists",
    "TicketRecord",
    "TicketRequestReused",
    "TicketStore",
    "TooManyTickets",
    "followed_at",
    "new_ticket_id",
    "queue_of",
    "tickets_beside",
]


def tickets_beside(store: object) -> TicketStore:
    """The ticket store beside a game store (:func:`~ramino.store.beside.beside`)."""
    from ramino.store.redis import RedisStore
    from ramino.store.tickets.redis import RedisTickets

    memory: Callable[[], TicketStore] = MemoryTickets
    if isinstance(store, RedisStore):  # its blocking client for the changes' reads
        return RedisTickets(store.client, store.layout.prefix, store.blocking)
    return beside(store, memory, SqliteTickets, RedisTickets)
