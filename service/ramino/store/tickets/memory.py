"""Tickets in this process's memory (tests, the memory store)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace

from ramino.store.tickets.base import (
    ACTIVE,
    ENDED_KEPT,
    MATCHING,
    WAITING,
    Changes,
    Match,
    PartyRecord,
    TicketExists,
    TicketRecord,
    TicketRequestReused,
    followed_at,
    matched,
    over_bound,
)

__all__ = ["MemoryTickets"]


@dataclass
class _Queue:
    tickets: dict[str, TicketRecord] = field(default_factory=dict)
    matches: dict[str, Match] = field(default_factory=dict)
    in_play: dict[str, float] = field(default_factory=dict)
    tables: dict[str, float] = field(default_factory=dict)


class MemoryTickets:
    """Tickets in this process's memory (tests, the memory store): every
    method runs in one step of the event loop."""

    def __init__(self) -> None:
        self._queues: dict[str, _Queue] = {}
        self._tickets: dict[str, TicketRecord] = {}
        self._touched: dict[str, float] = {}
        self._requests: dict[tuple[str, str], str] = {}
        """(player, request id) -> the ticket id it made."""
        self._changes = Changes()
        self._parties: dict[str, PartyRecord] = {}
        self._holds: dict[str, tuple[str, float]] = {}
        """player -> the party they are held for, and since when."""

    def _prune(self, now: float) -> None:
        old = [
            t.ticket_id
            for t in self._tickets.values()
            if t.state not in ACTIVE and t.ended_at < now - ENDED_KEPT
        ]
        for tid in old:
            gone = self._tickets.pop(tid)
            self._touched.pop(tid, None)
            if gone.request_id:
                self._requests.pop((gone.player_id, gone.request_id), None)

    async def submit(self, ticket: TicketRecord, limit: int) -> TicketRecord:
        key = (ticket.player_id, ticket.request_id)
        first = self._tickets.get(self._requests.get(key, "")) if ticket.request_id else None
        if first is not None:
            if first.fingerprint != ticket.fingerprint:
                raise TicketRequestReused()
            return first
        if ticket.ticket_id in self._tickets:
            raise TicketExists(ticket.ticket_id)
        over_bound(ticket, {p: await self.active(p) for p in ticket.players}, limit)
        self._prune(ticket.created_at)
        self._tickets[ticket.ticket_id] = ticket
        self._queues.setdefault(ticket.queue, _Queue()).tickets[ticket.ticket_id] = ticket
        if ticket.request_id:
            self._requests[key] = ticket.ticket_id
        return ticket

    async def live(self, player_id: str) -> list[TicketRecord]:
        found = [
            t for t in self._tickets.values() if t.player_id == player_id and t.state in ACTIVE
        ]
        return sorted(found, key=lambda t: (t.created_at, t.ticket_id))

    async def ticket(self, ticket_id: str) -> TicketRecord | None:
        return self._tickets.get(ticket_id)

    async def waiting(self, queue: str) -> list[TicketRecord]:
        q = self._queues.get(queue)
        found = [] if q is None else [t for t in q.tickets.values() if t.state == WAITING]
        return sorted(found, key=lambda t: (t.created_at, t.ticket_id))

    async def waiting_count(self, queue: str) -> int:
        q = self._queues.get(queue)
        return 0 if q is None else len(q.tickets)

    async def queues(self) -> list[str]:
        return sorted(
            name for name, q in self._queues.items() if q.tickets or q.matches or q.in_play
        )

    def _set(self, ticket: TicketRecord) -> None:
        self._tickets[ticket.ticket_id] = ticket
        q = self._queues[ticket.queue]
        if ticket.state == WAITING:
            q.tickets[ticket.ticket_id] = ticket
        else:
            q.tickets.pop(ticket.ticket_id, None)

    def _followed_at(self, ticket: TicketRecord) -> float:
        return followed_at(ticket, self._touched.get(ticket.ticket_id, 0.0))

    async def claim(self, match: Match, followed_since: float | None = None) -> bool:
        tickets = [self._tickets.get(t) for t in match.ticket_ids]
        if any(t is None or t.state != WAITING or t.queue != match.queue for t in tickets):
            return False
        for t in tickets:
            assert t is not None
            if followed_since is not None and self._followed_at(t) < followed_since:
                return False
        for t in tickets:
            assert t is not None
            self._set(replace(t, state=MATCHING, match_id=match.match_id))
        self._queues[match.queue].matches[match.match_id] = match
        return True

    async def forming(self, queue: str) -> list[Match]:
        q = self._queues.get(queue)
        return [] if q is None else sorted(q.matches.values(), key=lambda m: m.created_at)

    async def release(self, match: Match) -> bool:
        q = self._queues.get(match.queue)
        if q is None or q.matches.pop(match.match_id, None) is None:
            return False
        for tid in match.ticket_ids:
            self._set(replace(self._tickets[tid], state=WAITING, match_id=""))
        self._changes.tell(match.queue, match.ticket_ids)
        return True

    async def complete(self, match: Match, game_id: str, now: float) -> bool:
        q = self._queues.get(match.queue)
        if q is None or q.matches.pop(match.match_id, None) is None:
            return False
        for tid in match.ticket_ids:
            self._set(matched(self._tickets[tid], match, game_id, now))
        self._changes.tell(match.queue, match.ticket_ids)
        if match.rated:
            q.in_play[game_id] = now
        return True

    async def in_play(self, queue: str, before: float, limit: int) -> list[str]:
        q = self._queues.get(queue)
        games = [] if q is None else [(at, g) for g, at in q.in_play.items() if at < before]
        return [g for _, g in sorted(games)[:limit]]

    async def looked_at(self, queue: str, game_id: str, now: float | None) -> None:
        q = self._queues.get(queue)
        if q is None or game_id not in q.in_play:
            return
        if now is None:
            del q.in_play[game_id]
        else:
            q.in_play[game_id] = now

    async def offer_table(self, queue: str, game_id: str, at: float) -> None:
        self._queues.setdefault(queue, _Queue()).tables.setdefault(game_id, at)

    async def tables(self, queue: str, limit: int) -> list[str]:
        q = self._queues.get(queue)
        offered = [] if q is None else sorted((at, g) for g, at in q.tables.items())
        return [g for _, g in offered[:limit]]

    async def withdraw_table(self, queue: str, game_id: str) -> None:
        q = self._queues.get(queue)
        if q is not None:
            q.tables.pop(game_id, None)

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> TicketRecord | None:
        t = self._tickets.get(ticket_id)
        if t is None or t.state != WAITING:
            return t
        if unfollowed_since is not None and self._followed_at(t) >= unfollowed_since:
            return t
        ended = replace(t, state=state, ended_at=now)
        self._set(ended)
        self._changes.tell(t.queue, [ticket_id])
        return ended

    def changes(self, queue: str) -> AsyncIterator[list[str]]:
        return self._changes.follow(queue)

    async def party(self, party_id: str, now: float) -> PartyRecord | None:
        found = self._parties.get(party_id)
        return found if found is not None and found.expires_at > now else None

    async def put_party(self, party: PartyRecord, now: float) -> bool:
        held = await self.party(party.party_id, now)
        if (0 if held is None else held.version) != party.version - 1:
            return False
        for gone in [p for p, v in self._parties.items() if v.expires_at <= now]:
            del self._parties[gone]
        self._parties[party.party_id] = party
        return True

    async def active(self, player_id: str) -> int:
        return sum(
            1 for t in self._tickets.values() if t.state in ACTIVE and player_id in t.players
        )

    async def hold_party(
        self, player_id: str, party_id: str, now: float, replacing: str = ""
    ) -> tuple[str, float]:
        held = self._holds.get(player_id)
        if held is None or held[0] in (party_id, replacing):
            held = self._holds[player_id] = (party_id, now)
        return held

    async def release_party(self, player_id: str, party_id: str) -> None:
        if self._holds.get(player_id, ("",))[0] == party_id:
            del self._holds[player_id]

    async def touch(self, ticket_id: str, now: float) -> None:
        if ticket_id in self._tickets:
            self._touched[ticket_id] = now

    async def touched(self, ticket_id: str) -> float:
        return self._touched.get(ticket_id, 0.0)

    async def touched_many(self, ticket_ids: Sequence[str]) -> list[float]:
        return [self._touched.get(tid, 0.0) for tid in ticket_ids]

    async def close(self) -> None:
        pass
