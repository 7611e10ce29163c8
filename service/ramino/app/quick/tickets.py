"""A quick-play ticket and a party as quick play and the transport see them.

The ticket store keeps their records (:class:`~ramino.store.tickets.TicketRecord`,
:class:`~ramino.store.tickets.PartyRecord`: plain data, serialised as
written) and knows nothing of these. A :class:`Ticket` is its record with
what the application asks of it (the seats it takes, where each of its
players sits); a :class:`Party` likewise. Going down, one is its record
already; coming up, :func:`ticket_of` and :func:`party_of` make one from
the store's answer, the only place the application does. Their fields are
the record's, listed once (a second list would be a copy that says
nothing), and a value equals a record with the same fields.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ramino.store.tickets import PartyRecord, TicketRecord

__all__ = ["Party", "Ticket", "party_of", "ticket_of"]

_TICKET_FIELDS = tuple(f.name for f in fields(TicketRecord))
_PARTY_FIELDS = tuple(f.name for f in fields(PartyRecord))


@dataclass(frozen=True, slots=True, eq=False)
class Ticket(TicketRecord):
    """One player's wish to play, in one queue: its own seat, and its
    party's members' when it queues a party."""

    @property
    def size(self) -> int:
        """The seats it takes."""
        return 1 + len(self.members)

    def seat_of(self, player_id: str) -> int:
        """The seat of one of its players once matched (-1 before)."""
        if player_id == self.player_id or self.seat < 0:
            return self.seat
        for (member, _), seat in zip(self.members, self.member_seats, strict=True):
            if member == player_id:
                return seat
        return -1


@dataclass(frozen=True, slots=True, eq=False)
class Party(PartyRecord):
    """Players who queue as one ticket (its leader's) and sit in one game."""

    @property
    def players(self) -> list[str]:
        """Its leader, then its members in the order they joined."""
        return [self.leader.player_id, *(m.player_id for m in self.members)]

    @property
    def size(self) -> int:
        return 1 + len(self.members)


def ticket_of(record: TicketRecord) -> Ticket:
    """The ticket of the store's record."""
    if isinstance(record, Ticket):  # the memory store answers what it was given
        return record
    return Ticket(**{name: getattr(record, name) for name in _TICKET_FIELDS})


def party_of(record: PartyRecord) -> Party:
    """The party of the store's record."""
    if isinstance(record, Party):
        return record
    return Party(**{name: getattr(record, name) for name in _PARTY_FIELDS})
