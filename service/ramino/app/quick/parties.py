"""Parties: players who queue as one ticket and sit in one game.

A leader creates a party and invites players by their player id; each
invitation names one player, may be accepted once, and expires after
``invitation_ttl``. A player who accepts joins (up to ``party_size`` players,
the leader included). The leader queues the party: one ticket, the leader's,
that carries the members and takes a seat for each
(:meth:`~ramino.app.quick.matchmaker.Matchmaker.submit`); the matchmaker seats them
together in one game, rated as usual. While that ticket is live nobody joins
and the party does not queue again. A member who leaves, or a leader who
leaves (which disbands the party), ends a waiting ticket of the party first
(cancelled: its streams end, nobody is seated); the leader's or a member's
CancelTicket ends it as any ticket.

A player is in one party at a time: the store holds, in one atomic step
per player (:meth:`~ramino.store.tickets.TicketStore.hold_party`), the party
a player is held for, taken before the player creates or joins one and
given back when they leave; a hold for a party the player is not in (gone,
disbanded, left, or a join that never wrote it, past ``HOLD_SETTLE``) is
stale, and replaced. A party's ticket counts against the ticket bound of
each of its players (:meth:`~ramino.store.tickets.TicketStore.submit`).

A party lives in the ticket store (memory, sqlite, Redis) and each change
writes it whole over the version it was read at
(:meth:`~ramino.store.tickets.TicketStore.put_party`): two replicas changing
one party at once never both succeed, and the loser reads it again and
decides again. The ticket is written before the party names it, so a member
who leaves meanwhile is seen: the party's write finds the members changed,
and the new ticket is cancelled (PARTY_CHANGED).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ramino import reasons
from ramino.app.names import checked_name
from ramino.app.quick.matchmaker import Matchmaker
from ramino.app.quick.queues import MatchmakerConfig, QueueSpec
from ramino.app.quick.tickets import Party, Ticket, party_of, ticket_of
from ramino.errors import BadRequest, Busy, NotFound, NotPermitted, PartyStateError
from ramino.store.tickets import (
    ACTIVE,
    CANCELLED,
    WAITING,
    Invitation,
    PartyMember,
    new_ticket_id,
)

__all__ = ["MAX_PLAYER_ID", "Parties", "Wishes"]

WRITE_TRIES = 8
"""Times a change of a party is decided again after another writer's came first."""
MAX_PLAYER_ID = 128
"""The longest player id an invitation names."""
KEPT_INVITATIONS = 32
"""Invitations a party keeps (the open ones, then the latest used or expired)."""
HOLD_SETTLE = 30.0
"""Seconds a player's hold for a party they are not in yet stands (a join
or a creation between its hold and its write); past it, the hold is stale."""
_ID_CHARS = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Wishes:
    """A ticket's matching grammar (:mod:`ramino.app.quick.clauses`), as asked."""

    numbers: dict[str, float] = field(default_factory=dict)
    clauses: list[dict[str, Any]] = field(default_factory=list)
    rating_band: float = 0.0


class Parties:
    """Parties over the matchmaker's ticket store."""

    def __init__(self, matchmaker: Matchmaker, clock: Callable[[], float]) -> None:
        self.matchmaker = matchmaker
        self._tickets = matchmaker.tickets
        self._clock = clock

    @property
    def _config(self) -> MatchmakerConfig:
        return self.matchmaker.config

    async def create(self, player_id: str, name: str) -> Party:
        """A new party led by ``player_id``, sitting under ``name``."""
        if not player_id:
            raise BadRequest("a party needs a verified player", reasons.PLAYER_REQUIRED)
        name = checked_name(name)
        party_id = secrets.token_hex(12)
        await self._hold(player_id, party_id)
        try:
            now = self._clock()
            party = Party(
                party_id,
                PartyMember(player_id, name),
                (),
                (),
                now,
                now + self._config.party_ttl,
            )
            written = await self._tickets.put_party(party, now)
            assert written, "a new party's id is random"
        except BaseException:
            await self._tickets.release_party(player_id, party_id)
            raise
        return party

    async def _hold(self, player_id: str, party_id: str) -> None:
        """Holds the player for ``party_id``, their one party, in the store
        (IN_ANOTHER_PARTY while they are in another, or about to be: held
        for it less than ``HOLD_SETTLE`` ago); a stale hold is replaced."""
        stale = ""
        for _ in range(WRITE_TRIES):
            now = self._clock()
            held, since = await self._tickets.hold_party(player_id, party_id, now, stale)
            if held == party_id:
                return
            other = await self._read(held)
            if other is not None and (player_id in other.players or since > now - HOLD_SETTLE):
                raise PartyStateError(
                    "you are in another party (a player is in one at a time): leave it first",
                    reasons.IN_ANOTHER_PARTY,
                )
            stale = held
        raise _changed()

    async def get(self, player_id: str, party_id: str) -> Party:
        """The party, to its leader and members; unknown to anyone else."""
        party = await self._read(party_id)
        if party is None or player_id not in party.players:
            raise NotFound("no such party of yours", reasons.PARTY_NOT_FOUND)
        return party

    async def _read(self, party_id: str) -> Party | None:
        if len(party_id) != 24 or not set(party_id) <= _ID_CHARS:
            return None
        party = await self._tickets.party(party_id, self._clock())
        return None if party is None or party.disbanded else party_of(party)

    async def _write(self, party: Party) -> Party | None:
        """``party`` written over the version it was read at, kept for
        ``party_ttl`` from now; ``None`` when another writer came first."""
        now = self._clock()
        changed = replace(party, version=party.version + 1, expires_at=now + self._config.party_ttl)
        return changed if await self._tickets.put_party(changed, now) else None

    async def _led(self, player_id: str, party_id: str) -> Party:
        party = await self.get(player_id, party_id)
        if party.leader.player_id != player_id:
            raise NotPermitted(
                "only the party's leader invites players and queues the party",
                reasons.PARTY_LEADER_ONLY,
            )
        return party

    async def _queued(self, party: Party) -> Ticket | None:
        """The party's live ticket (waiting, or being seated), if any."""
        if not party.ticket_id:
            return None
        ticket = await self._tickets.ticket(party.ticket_id)
        return ticket_of(ticket) if ticket is not None and ticket.state in ACTIVE else None

    async def invite(self, player_id: str, party_id: str, invitee: str) -> Invitation:
        """An invitation of ``invitee`` to the leader's party, replacing an
        open one of the same player: its id is what the leader sends them."""
        if (
            not invitee
            or len(invitee) > MAX_PLAYER_ID
            or not invitee.isprintable()
            or invitee == player_id
        ):
            raise BadRequest(
                f"an invitation names another player: 1 to {MAX_PLAYER_ID} printable characters",
                reasons.BAD_INVITEE,
            )
        for _ in range(WRITE_TRIES):
            party = await self._led(player_id, party_id)
            if invitee in party.players:
                raise BadRequest("that player is in the party already", reasons.BAD_INVITEE)
            now = self._clock()
            kept = [i for i in party.invitations if i.player_id != invitee or i.used]
            open_ = [i for i in kept if not i.used and i.expires_at > now]
            if len(open_) >= 2 * self._config.party_size:
                raise Busy(
                    f"a party holds at most {2 * self._config.party_size} open invitations",
                    reasons.TOO_MANY_INVITATIONS,
                )
            invitation = Invitation(
                secrets.token_hex(16), invitee, now + self._config.invitation_ttl
            )
            closed = [i for i in kept if i not in open_]
            room = max(0, KEPT_INVITATIONS - len(open_) - 1)
            closed = closed[-room:] if room else []
            if await self._write(replace(party, invitations=(*closed, *open_, invitation))):
                return invitation
        raise _changed()

    async def join(self, player_id: str, party_id: str, invitation_id: str, name: str) -> Party:
        """The party, joined by the player its invitation names (once, before
        it expires); a member's second join answers the party."""
        name = checked_name(name)
        held = False  # for this party, which the player is not in yet
        try:
            for _ in range(WRITE_TRIES):
                party = await self._read(party_id)
                if party is None:
                    raise NotFound("no such party", reasons.PARTY_NOT_FOUND)
                if player_id in party.players:
                    return party
                invitation = next(
                    (
                        i
                        for i in party.invitations
                        if i.invitation_id == invitation_id and i.player_id == player_id
                    ),
                    None,
                )
                if invitation is None:
                    raise NotPermitted("no invitation of yours to this party", reasons.NOT_INVITED)
                if invitation.used:
                    raise PartyStateError(
                        "this invitation was accepted before: ask the leader for another",
                        reasons.INVITATION_USED,
                    )
                if invitation.expires_at <= self._clock():
                    raise PartyStateError(
                        "this invitation has expired: ask the leader for another",
                        reasons.INVITATION_EXPIRED,
                    )
                if party.size >= self._config.party_size:
                    raise PartyStateError(
                        f"a party holds at most {self._config.party_size} players",
                        reasons.PARTY_FULL,
                    )
                if await self._queued(party) is not None:
                    raise PartyStateError(
                        "the party is queued: join once its ticket ends", reasons.PARTY_QUEUED
                    )
                if not held:
                    await self._hold(player_id, party_id)
                    held = True
                used = tuple(
                    replace(i, used=True) if i is invitation else i for i in party.invitations
                )
                joined = replace(
                    party,
                    members=(*party.members, PartyMember(player_id, name)),
                    invitations=used,
                )
                if (written := await self._write(joined)) is not None:
                    return written
            raise _changed()
        except BaseException:
            if held:  # the player did not join: nor are they held for it
                await self._tickets.release_party(player_id, party_id)
            raise

    async def leave(self, player_id: str, party_id: str) -> None:
        """The player leaves the party (its leader disbands it), a waiting
        ticket of the party cancelled first: nobody is seated for it."""
        for _ in range(WRITE_TRIES):
            party = await self.get(player_id, party_id)
            queued = await self._queued(party)
            if queued is not None and queued.state == WAITING:
                await self._tickets.end(queued.ticket_id, CANCELLED, self._clock())
            if player_id == party.leader.player_id:
                gone = replace(party, disbanded=True)
                left = party.players
            else:
                gone = replace(
                    party, members=tuple(m for m in party.members if m.player_id != player_id)
                )
                left = [player_id]
            if await self._write(gone):
                # (A replica that dies before this leaves holds for a
                # party they are not in: stale, replaced by their next.)
                for player in left:
                    await self._tickets.release_party(player, party_id)
                return
        raise _changed()

    async def submit(
        self,
        player_id: str,
        name: str,
        spec: QueueSpec,
        min_seats: int,
        max_seats: int,
        properties: dict[str, str],
        request_id: str,
        party_id: str,
        wishes: Wishes | None = None,
    ) -> Ticket:
        """The party's ticket, submitted by its leader (a retry of the same
        request id answers the ticket it made)."""
        party = await self._led(player_id, party_id)
        queued = await self._queued(party)
        retry = bool(request_id) and party.ticket_id == new_ticket_id(
            spec.key, player_id, request_id
        )
        if queued is not None and not retry:
            raise PartyStateError(
                "the party is queued already: cancel its ticket first", reasons.PARTY_QUEUED
            )
        w = wishes or Wishes()
        ticket = await self.matchmaker.submit(
            player_id,
            name,
            spec,
            min_seats,
            max_seats,
            properties,
            request_id,
            party,
            w.numbers,
            w.clauses,
            w.rating_band,
        )
        for _ in range(WRITE_TRIES):
            now = await self._read(party_id)
            if now is not None and now.ticket_id == ticket.ticket_id:
                return ticket
            if (
                now is None
                or now.members != party.members
                or (now.ticket_id != party.ticket_id and await self._queued(now) is not None)
            ):
                await self._tickets.end(ticket.ticket_id, CANCELLED, self._clock())
                raise _changed()
            if await self._write(replace(now, ticket_id=ticket.ticket_id)):
                return ticket
        await self._tickets.end(ticket.ticket_id, CANCELLED, self._clock())
        raise _changed()


def _changed() -> PartyStateError:
    return PartyStateError(
        "the party changed while this was decided: look at it again and retry",
        reasons.PARTY_CHANGED,
    )
