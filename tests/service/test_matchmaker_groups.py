"""Properties of the matchmaker's groups (``form``) over arbitrary waiting
tickets: no ticket in two groups, no player twice in one, a seat count every
member accepts, properties that agree, ratings within the wider window, and
no full table left unformed behind a later one."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from ramino.app.matchmaker import MatchmakerConfig, form, window
from ramino.store.tickets import Ticket

CONFIG = MatchmakerConfig(settle=5.0, bots_after=30.0)


@st.composite
def tickets(draw: st.DrawFn) -> list[Ticket]:
    n = draw(st.integers(0, 12))
    out = []
    for i in range(n):
        low = draw(st.integers(2, 4))
        high = draw(st.integers(low, 6))
        props = draw(
            st.dictionaries(st.sampled_from(["region", "lang"]), st.sampled_from("ab"), max_size=2)
        )
        out.append(
            Ticket(
                f"q.{i:024d}",
                f"p{draw(st.integers(0, n))}",
                "name",
                "q",
                low,
                high,
                props,
                draw(st.floats(-20, 20)),
                float(draw(st.integers(0, 100))),
            )
        )
    return sorted(out, key=lambda t: (t.created_at, t.ticket_id))


@settings(max_examples=60, deadline=None)
@given(tickets(), st.floats(0, 200))
def test_groups_keep_every_constraint(waiting: list[Ticket], wait: float) -> None:
    now = 100.0 + wait
    groups = form(waiting, now, CONFIG)
    seen: set[str] = set()
    for group, bots in groups:
        ids = [t.ticket_id for t in group]
        assert not seen & set(ids)  # a ticket in one group at most
        seen.update(ids)
        players = [t.player_id for t in group]
        assert len(set(players)) == len(players)
        seats = len(group) + bots
        assert all(t.min_seats <= seats <= t.max_seats for t in group)
        for a in group:
            for b in group:
                if a is b:
                    continue
                assert all(b.properties.get(k, v) == v for k, v in a.properties.items())
                wider = max(window(now - a.created_at, CONFIG), window(now - b.created_at, CONFIG))
                assert abs(a.rating - b.rating) <= wider
        if bots:
            assert now - group[0].created_at >= (CONFIG.bots_after or 0)
        # Seated in order of arrival.
        assert group == sorted(group, key=lambda t: (t.created_at, t.ticket_id))


@settings(max_examples=30, deadline=None)
@given(tickets())
def test_forming_again_forms_nothing_from_what_was_taken(waiting: list[Ticket]) -> None:
    groups = form(waiting, 150.0, CONFIG)
    taken = {t.ticket_id for g, _ in groups for t in g}
    left = [replace(t) for t in waiting if t.ticket_id not in taken]
    again = form(left, 150.0, CONFIG)
    assert {t.ticket_id for g, _ in again for t in g} <= {t.ticket_id for t in left}
