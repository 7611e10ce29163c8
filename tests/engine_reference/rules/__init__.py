"""The rules: a command checked against the state becomes events, and the state
after them may call for more (a reshuffle, the end of a round, the next deal,
the end of the match).

:func:`decide` never changes the state; it raises :class:`IllegalMove` or
:class:`MalformedCommand` or returns the events of the command.
:func:`follow_up` returns the events the state itself calls for, one step at a
time, until it returns nothing. Every rule reads variant parameters only.

One module per phase, as a phase's rules are read in one place: ``turn``
(whose turn, which phase decides), ``shape`` (a command's fields), ``draw``,
``meld`` (opening, melds, lay-offs, joker swaps), ``discard``, ``gin``
(knocking play), ``round`` (the round's lifecycle) and ``scoring``.
"""

from tests.engine_reference.rules.discard import undiscardable
from tests.engine_reference.rules.draw import can_take_discard
from tests.engine_reference.rules.gin import knock_deadwood, wall_knock_possible
from tests.engine_reference.rules.meld import joker_meld
from tests.engine_reference.rules.round import Setup, follow_up
from tests.engine_reference.rules.scoring import final_totals, match_winners, round_scores
from tests.engine_reference.rules.turn import decide

__all__ = [
    "Setup",
    "decide",
    "follow_up",
    "round_scores",
    "match_winners",
    "final_totals",
    "can_take_discard",
    "undiscardable",
    "joker_meld",
    "wall_knock_possible",
    "knock_deadwood",
]
