"""A game's state as plain JSON data and back, so that a long game can be
loaded from a snapshot plus the events after it instead of replaying its
whole record. The record stays the truth: a snapshot is a cache of its fold.
"""

from __future__ import annotations

from typing import Any, Final

from ramino import reasons

from tests.engine_reference.codec import event_from_data, to_data
from tests.engine_reference.errors import RecordError
from tests.engine_reference.events import RoundEnded
from tests.engine_reference.state import Seat, State, TableMeld

__all__ = ["SNAPSHOT_FORMAT", "state_to_data", "state_from_data"]

SNAPSHOT_FORMAT: Final = "ramino.snapshot/1"


def state_to_data(state: State) -> dict[str, Any]:
    return {
        "format": SNAPSHOT_FORMAT,
        "seats": [
            {
                "name": s.name,
                "hand": list(s.hand),
                "opened": s.opened,
                "first_laid_turn": s.first_laid_turn,
                "turns": s.turns,
                "resigned": s.resigned,
                "total": s.total,
            }
            for s in state.seats
        ],
        "round": state.round,
        "dealer": state.dealer,
        "first_player": state.first_player,
        "turn": state.turn,
        "phase": state.phase,
        "stock": list(state.stock),
        "discard": list(state.discard),
        "melds": [
            {
                "owner": m.owner,
                "cards": list(m.cards),
                "kind": m.kind,
                "closed": m.closed,
                "jokers": [[card, list(stands)] for card, stands in m.jokers.items()],
                "value": m.value,
            }
            for m in state.melds
        ],
        "rebuilds": state.rebuilds,
        "taken": state.taken,
        "must_open": state.must_open,
        "pending_joker": state.pending_joker,
        "opened_this_turn": state.opened_this_turn,
        "results": [to_data(r) for r in state.results],
        "winners": list(state.winners),
        "version": state.version,
        "knocking": {
            "first_upcard": state.first_upcard,
            "passes": state.passes,
            "repeated": state.repeated,
            "drawn": state.drawn,
            "wall_take": state.wall_take,
            "knocker": state.knocker,
            "knock_melds": state.knock_melds,
            "big_gin": state.big_gin,
            "defender_melded": state.defender_melded,
            "accepted": state.accepted,
        },
    }


def state_from_data(data: Any) -> State:
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        raise RecordError("not a ramino snapshot", reasons.RECORD_FORMAT)
    try:
        k = data.get("knocking") or {}
        if not isinstance(k, dict):
            raise RecordError("a snapshot's knocking entry is an object", reasons.RECORD_FORMAT)
        results = []
        for r in data["results"]:
            event = event_from_data(r)
            if not isinstance(event, RoundEnded):
                raise RecordError(
                    "a snapshot's results are RoundEnded events", reasons.RECORD_FORMAT
                )
            results.append(event)
        return State(
            seats=[
                Seat(
                    name=str(s["name"]),
                    hand=[int(c) for c in s["hand"]],
                    opened=bool(s["opened"]),
                    first_laid_turn=int(s["first_laid_turn"]),
                    turns=int(s["turns"]),
                    resigned=bool(s["resigned"]),
                    total=int(s["total"]),
                )
                for s in data["seats"]
            ],
            round=int(data["round"]),
            dealer=int(data["dealer"]),
            first_player=int(data["first_player"]),
            turn=int(data["turn"]),
            phase=str(data["phase"]),
            stock=[int(c) for c in data["stock"]],
            discard=[int(c) for c in data["discard"]],
            melds=[
                TableMeld(
                    owner=int(m["owner"]),
                    cards=[int(c) for c in m["cards"]],
                    kind=str(m["kind"]),
                    closed=bool(m["closed"]),
                    jokers={int(c): tuple(str(x) for x in stands) for c, stands in m["jokers"]},
                    value=int(m["value"]),
                )
                for m in data["melds"]
            ],
            rebuilds=int(data["rebuilds"]),
            taken=None if data["taken"] is None else int(data["taken"]),
            must_open=bool(data["must_open"]),
            pending_joker=None if data["pending_joker"] is None else int(data["pending_joker"]),
            opened_this_turn=bool(data["opened_this_turn"]),
            results=results,
            winners=tuple(int(w) for w in data["winners"]),
            version=int(data["version"]),
            # Snapshots taken before knocking play have no "knocking" entry.
            first_upcard=bool(k.get("first_upcard", False)),
            passes=int(k.get("passes", 0)),
            repeated=bool(k.get("repeated", False)),
            drawn=bool(k.get("drawn", False)),
            wall_take=bool(k.get("wall_take", False)),
            knocker=None if k.get("knocker") is None else int(k["knocker"]),
            knock_melds=int(k.get("knock_melds", 0)),
            big_gin=bool(k.get("big_gin", False)),
            defender_melded=bool(k.get("defender_melded", False)),
            accepted=bool(k.get("accepted", False)),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise RecordError(f"bad snapshot: {e}", reasons.RECORD_FORMAT) from None
