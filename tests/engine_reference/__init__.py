"""The frozen reference of the differential proof (issue 31): the Python rules
engine exactly as ``service/ramino/engine`` was (at commit 758753b) before its
rules moved into the Rust kernel (``core_rs/ramino-core/src/game``, bound as
``ramino._core.GameKernel``). Do not edit it: it is the specification that
``tests/engine/differential.py`` plays thousands of games against, command by
command (acceptance or refusal with its reason and detail, events, state,
legal moves, hint, scores). Retire it once the golden vectors of
``tests/vectors/games/`` (the corpus of those games, inputs and expected
outputs) stand alone.

What changed from the live engine of that day:

- imports of ``ramino.engine.X`` read ``tests.engine_reference.X``, sorted
  again (it still imports ``ramino`` for the kernel's searches,
  ``ramino.reasons`` and ``ramino.errors``: its own error classes stand under
  the same ``ramino.errors`` roots, with the same reasons);
- one defect fixed, as the kernel fixes it: :func:`moves.hand_melds` iterated
  ``set(names)``, whose order follows Python's string hashing, so the order of
  gin's defender's ``LayMelds`` moves changed from one process to the next; it
  now goes through the ranks in the order ``A23456789TJQK`` and the suits in
  the order ``SHDC``.

The live engine's own docstring follows.

The rules engine: a pure, deterministic state machine over variant
parameters (RULES.md sections 4 and 5).

::

    from tests.engine_reference import Game, DrawFromStock, Discard
    game = Game.new("ramino51", ["ann", "bob"], seed=42)
    events = game.apply(1, DrawFromStock())  # raises IllegalMove: NOT_YOUR_TURN
    game.view(0)                             # what seat 0 may see
    game.legal_moves(0)                      # what seat 0 may do now
    game.hint(0)                             # what seat 0 would do well to do
    text = game.record.to_json()             # the record; Game.from_record(...) replays it

No clock, no I/O, no randomness but the seeded shuffle of ``ramino._core``.
"""

from ramino import reasons

from tests.engine_reference.codec import command_from_data, event_from_data, to_data
from tests.engine_reference.commands import (
    COMMAND_TYPES,
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    Resign,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from tests.engine_reference.deck import reshuffle_seed, round_seed, stack_deck
from tests.engine_reference.errors import IllegalMove, InvalidSetup, MalformedCommand, RecordError
from tests.engine_reference.events import (
    EVENT_TYPES,
    RESIGNATIONS,
    STOCK_EXHAUSTED,
    TURN_LIMIT,
    WENT_OUT,
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Event,
    JokerSwapped,
    Knocked,
    LaidOff,
    LayoutAccepted,
    MatchEnded,
    MeldsLaid,
    PassedUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    StockReshuffled,
    TookDiscard,
    project,
)
from tests.engine_reference.game import Game
from tests.engine_reference.hint import Hint
from tests.engine_reference.record import FORMAT_VERSION, Record
from tests.engine_reference.seen import Seen, see_event, see_view
from tests.engine_reference.views import MeldView, SeatView, Standing, View

__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "FORMAT_VERSION",
    "RESIGNATIONS",
    "TURN_LIMIT",
    "STOCK_EXHAUSTED",
    "WENT_OUT",
    "Command",
    "Discard",
    "DiscardPileTurnedOver",
    "Discarded",
    "DrawFromStock",
    "DrewFromStock",
    "Event",
    "Game",
    "Hint",
    "IllegalMove",
    "InvalidSetup",
    "JokerSwapped",
    "LaidOff",
    "LayMelds",
    "LayOff",
    "MalformedCommand",
    "MatchEnded",
    "MeldView",
    "MeldsLaid",
    "Record",
    "RecordError",
    "Resign",
    "Resigned",
    "PassUpcard",
    "Knock",
    "AcceptLayout",
    "PassedUpcard",
    "Knocked",
    "LayoutAccepted",
    "RoundEnded",
    "RoundStarted",
    "SeatView",
    "Standing",
    "StockReshuffled",
    "SwapJoker",
    "TakeDiscard",
    "TookDiscard",
    "TurnOverDiscardPile",
    "View",
    "command_from_data",
    "event_from_data",
    "project",
    "Seen",
    "see_event",
    "see_view",
    "reasons",
    "reshuffle_seed",
    "round_seed",
    "stack_deck",
    "to_data",
]
