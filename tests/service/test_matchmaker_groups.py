"""Properties of the matchmaker's groups (``form``) over arbitrary waiting
tickets: no ticket in two groups, no player twice in one, a seat count every
member accepts, properties that agree, ratings within the wider window, and
no full table left unformed behind a later one; a party's ticket takes a
seat for each of its players and is never split; every clause and rating
band of each ticket allows each of its mates."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from ramino.app.quick.clauses import OCCURS, allows, checked_clauses
from ramino.app.quick.policy import form, window
from ramino.app.quick.queues import MatchmakerConfig
from ramino.app.quick.tickets import Ticket

CONFIG = MatchmakerConfig(settle=5.0, bots_after=30.0, prefer_for=20.0)
CLAUSES = st.one_of(
    st.fixed_dictionaries(
        {
            "occur": st.sampled_from(OCCURS),
            "key": st.just("region"),
            "any_of": st.lists(st.sampled_from("ab"), min_size=1, max_size=2),
        }
    ),
    st.fixed_dictionaries(
        {
            "occur": st.sampled_from(OCCURS),
            "key": st.just("ping"),
            "min": st.sampled_from([None, 50.0]),
            "max": st.just(150.0),
        }
    ),
)


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
        leader = f"p{draw(st.integers(0, n))}"
        others = draw(st.lists(st.integers(0, n + 3), max_size=min(2, high - 1), unique=True))
        members = [[f"p{o}", "member"] for o in others if f"p{o}" != leader]
        numbers = draw(st.dictionaries(st.just("ping"), st.integers(0, 200).map(float)))
        clauses = draw(st.lists(CLAUSES, max_size=2))
        out.append(
            Ticket(
                f"q.{i:024d}",
                leader,
                "name",
                "q",
                low,
                high,
                props,
                draw(st.floats(-20, 20)),
                float(draw(st.integers(0, 100))),
                party_id="party" if members else "",
                members=members,
                numbers=numbers,
                clauses=checked_clauses(clauses),
                rating_band=draw(st.sampled_from([0.0, 0.0, 5.0, 20.0])),
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
        players = [p for t in group for p in t.players]
        assert len(set(players)) == len(players)  # no player twice, parties included
        seats = len(players) + bots
        assert all(t.min_seats <= seats <= t.max_seats for t in group)
        for a in group:
            for b in group:
                if a is b:
                    continue
                assert all(b.properties.get(k, v) == v for k, v in a.properties.items())
                wider = max(window(now - a.created_at, CONFIG), window(now - b.created_at, CONFIG))
                assert abs(a.rating - b.rating) <= wider
                assert not a.rating_band or abs(a.rating - b.rating) <= a.rating_band
                assert allows(a, b, now - a.created_at, CONFIG.prefer_for)
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


def party_ticket(i: int, leader: str, *members: str, low: int = 2, high: int = 4) -> Ticket:
    return Ticket(
        f"q.{i:024d}",
        leader,
        leader.title(),
        "q",
        low,
        high,
        {},
        0.0,
        float(i),
        party_id="party" if members else "",
        members=[[m, m.title()] for m in members],
    )


def test_a_party_sits_whole_beside_others_or_waits() -> None:
    party = party_ticket(1, "ann", "bob", "cid", low=4, high=4)
    dan, eve = party_ticket(2, "dan", low=4, high=4), party_ticket(3, "eve", low=4, high=4)
    # Three of the party and one more fill four seats; the fifth waits.
    assert form([party, dan, eve], 10.0, CONFIG) == [([party, dan], 0)]
    # A party of three never takes a table with one seat left for it.
    duo = party_ticket(0, "fay", "gus", low=4, high=4)
    assert form([duo, party], 10.0, CONFIG) == []
    # Past the wait for bots, the seats left go to bots.
    assert form([party], 40.0, CONFIG) == [([party], 1)]


def test_a_player_is_never_seated_twice_by_a_party_and_their_own_ticket() -> None:
    party = party_ticket(1, "ann", "bob", low=3, high=3)
    bob_alone = party_ticket(2, "bob", low=3, high=3)
    cid = party_ticket(3, "cid", low=3, high=3)
    assert form([party, bob_alone, cid], 10.0, CONFIG) == [([party, cid], 0)]
