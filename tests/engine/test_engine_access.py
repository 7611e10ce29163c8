"""Who may act in a game or look at it (``ramino.engine.access``): one
function per rule, used by every path (moves, legal moves, views, watches)."""

from __future__ import annotations

import pytest
from ramino import reasons
from ramino.engine.access import check_seat, check_spectator
from ramino.errors import NotPermitted


@pytest.mark.parametrize("seat", [-1, 2, 7])
def test_access_a_seat_the_game_does_not_have_is_refused(seat: int) -> None:
    with pytest.raises(NotPermitted) as e:
        check_seat(seat, 2)
    assert e.value.reason == reasons.NO_SUCH_SEAT


def test_access_every_seat_of_the_game_is_taken() -> None:
    for seat in range(4):
        check_seat(seat, 4)


def test_access_a_spectator_of_a_game_without_spectators_is_refused() -> None:
    with pytest.raises(NotPermitted) as e:
        check_spectator(None, True)
    assert e.value.reason == reasons.SPECTATING_DISABLED
    check_spectator(0, True)  # its seats may still look
    check_spectator(None, False)
