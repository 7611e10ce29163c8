"""The matching policy, pure: no store, no clock of its own, no task. Given
the waiting tickets, the time and a queue's knobs, it says which tickets meet
(:func:`form`), which seat of a quick-play table a ticket may take
(:func:`table_seat`), how long a ticket may expect to wait, and how wide its
rating window is now; the clauses it reads are :mod:`ramino.app.quick.clauses`.
The matchmaker (:mod:`ramino.app.quick.matchmaker`) runs it.

Rating windows (``docs/matchmaking.md``): a ticket accepts a mate whose
rating differs from its own by at most ``window(wait)`` points, where
``window(wait) = min(window_max, window_base + window_step * floor(wait /
window_interval))``; two tickets may meet when the wider of their two windows
allows it, so the longest waiter is never held back by a newcomer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ramino.app.hosted import HostedGame
from ramino.app.quick.clauses import allows, allows_no_properties
from ramino.app.quick.queues import MatchmakerConfig
from ramino.app.quick.tickets import Ticket

__all__ = ["expected_wait", "form", "table_seat", "window"]


def table_seat(
    game: HostedGame,
    ticket: Ticket,
    waited: float = 0.0,
    prefer_for: float = 0.0,
    scores: Sequence[float] = (),
) -> int | None:
    """The open seat of a quick-play table that ``ticket``, after waiting
    ``waited`` seconds, may take: its first, when the table waits for
    players, has a seat count the ticket accepts, does not seat its player
    already, has a turn timer (as quick play's games have), and the
    ticket's own wishes allow it; else ``None``. A table
    sets no property, so every ticket's properties accept it, but a clause
    that asks for one (a must clause, or a should clause for the queue's
    ``prefer_for``) does not; and the ticket's rating band holds against
    the ``scores`` of the people seated there (the queue's rating window
    does not: who sits at a table is its creator's business, but a
    player's band and clauses are the player's). A party's ticket takes
    one new game with all its players, never a table's seat."""
    open_seats = game.open_seats
    if (
        not open_seats
        or ticket.size > 1
        or game.engine is not None
        or game.ended is not None
        or not ticket.min_seats <= len(game.players) <= ticket.max_seats
        or ticket.player_id in game.player_ids.values()
        or game.header.turn_timer_seconds <= 0  # (one offered before tables needed one)
        or not allows_no_properties(ticket, waited, prefer_for)
        or (ticket.rating_band and any(abs(s - ticket.rating) > ticket.rating_band for s in scores))
    ):
        return None
    return open_seats[0]


def window(wait: float, config: MatchmakerConfig) -> float:
    """The rating difference a ticket accepts after ``wait`` seconds."""
    steps = math.floor(max(0.0, wait) / config.window_interval)
    return min(config.window_max, config.window_base + config.window_step * steps)


def expected_wait(ticket: Ticket, waiting: int, now: float, config: MatchmakerConfig) -> float:
    """Seconds until the ticket's table may start if nobody else comes, from
    how many tickets wait in its queue (``waiting``, itself included): once
    its anchor has waited ``settle`` when the queue holds enough tickets for
    its smallest table, else once bots may fill it; 0 when neither will
    (unknown: it waits for people). An estimate: mates whose properties or
    rating do not fit are counted too."""
    waited = now - ticket.created_at
    if ticket.size + waiting - 1 >= ticket.min_seats:
        return max(0.0, config.settle - waited)
    if ticket.bots and config.bots_after is not None:
        return max(0.0, config.bots_after - waited)
    return 0.0


def _compatible(a: Ticket, b: Ticket, now: float, config: MatchmakerConfig) -> bool:
    if not set(a.players).isdisjoint(b.players):
        return False
    for key, value in a.properties.items():
        if key in b.properties and b.properties[key] != value:
            return False
    if not (
        allows(a, b, now - a.created_at, config.prefer_for)
        and allows(b, a, now - b.created_at, config.prefer_for)
    ):
        return False
    difference = abs(a.rating - b.rating)
    if any(t.rating_band and difference > t.rating_band for t in (a, b)):
        return False
    wider = max(window(now - a.created_at, config), window(now - b.created_at, config))
    return difference <= wider


def form(
    waiting: Sequence[Ticket], now: float, config: MatchmakerConfig
) -> list[tuple[list[Ticket], int]]:
    """Groups of waiting tickets (oldest first) to match now, each with the
    bots that fill it: each ticket is an anchor in its turn and takes the
    oldest compatible tickets that keep a seat count all accept (a party's
    ticket takes a seat for each of its players)."""
    used: set[str] = set()
    groups: list[tuple[list[Ticket], int]] = []
    for anchor in waiting:
        if anchor.ticket_id in used:
            continue
        group, low, high = [anchor], anchor.min_seats, anchor.max_seats
        seated = anchor.size
        for t in waiting:
            if seated >= high:
                break
            if t.ticket_id in used or t is anchor:
                continue
            lo, hi = max(low, t.min_seats), min(high, t.max_seats)
            # A seat count all accept, with room for its players.
            if lo > hi or seated + t.size > hi:
                continue
            if not all(_compatible(t, g, now, config) for g in group):
                continue
            group.append(t)
            low, high = lo, hi
            seated += t.size
        waited = now - anchor.created_at
        bots = 0
        if seated == high or (seated >= low and waited >= config.settle):
            pass
        elif anchor.bots and config.bots_after is not None and waited >= config.bots_after:
            bots = max(0, low - seated)
        else:
            continue
        used.update(t.ticket_id for t in group)
        # Seats in order of arrival (an older ticket may join a later anchor).
        groups.append((sorted(group, key=lambda t: (t.created_at, t.ticket_id)), bots))
    return groups
