"""CountedSlots, the one counter behind every stream limit (issue 35): each
key holds at most its limit, refused with the count it holds; a slot given
back (however the stream ends) frees it; keys count apart; the table keeps
only keys with open streams."""

from __future__ import annotations

import pytest
from ramino.errors import Busy
from ramino.slots import CountedSlots


def refused(held: int) -> Busy:
    return Busy(f"{held} open", "TOO_MANY_STREAMS")


def test_a_key_is_refused_past_its_limit_with_the_count_it_holds() -> None:
    slots: CountedSlots[str] = CountedSlots()
    for _ in range(3):
        slots.take("peer", 3, refused)
    with pytest.raises(Busy, match="3 open"):
        slots.take("peer", 3, refused)
    assert slots.count("peer") == 3  # the refusal took nothing


def test_a_slot_given_back_frees_its_place_and_an_emptied_key_is_forgotten() -> None:
    slots: CountedSlots[str] = CountedSlots()
    slots.take("peer", 1, refused)
    slots.give_back("peer")
    assert slots.count("peer") == 0 and len(slots) == 0
    slots.take("peer", 1, refused)  # free again
    assert slots.count("peer") == 1


def test_keys_count_apart() -> None:
    slots: CountedSlots[tuple[str, int | None]] = CountedSlots()
    slots.take(("g", None), 1, refused)
    slots.take(("g", 0), 1, refused)  # a seat is not a spectator
    slots.take(("h", None), 1, refused)
    with pytest.raises(Busy):
        slots.take(("g", None), 1, refused)
    assert len(slots) == 3


def test_a_with_block_gives_its_slot_back_however_it_ends() -> None:
    slots: CountedSlots[str] = CountedSlots()
    with pytest.raises(RuntimeError), slots.slot("peer", 1, refused):
        assert slots.count("peer") == 1
        raise RuntimeError("the stream failed")
    assert slots.count("peer") == 0 and len(slots) == 0
    with pytest.raises(Busy), slots.slot("peer", 0, refused):
        pass  # a limit of 0 refuses before the block runs
    assert len(slots) == 0


def test_counts_gives_every_key_holding_a_slot_as_a_copy() -> None:
    slots: CountedSlots[str] = CountedSlots()
    slots.take("a", 3, ValueError)
    slots.take("a", 3, ValueError)
    slots.take("b", 3, ValueError)
    seen = slots.counts()
    assert seen == {"a": 2, "b": 1}
    seen["a"] = 0
    slots.give_back("b")
    assert slots.counts() == {"a": 2}
