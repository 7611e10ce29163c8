"""The rules engine: a pure, deterministic state machine over variant
parameters (RULES.md sections 4 and 5).

::

    from ramino.engine import Game, DrawFromStock, Discard
    game = Game.new("ramino51", ["ann", "bob"], seed=42)
    events = game.apply(1, DrawFromStock())  # raises IllegalMove: NOT_YOUR_TURN
    game.view(0)                             # what seat 0 may see
    game.legal_moves(0)                      # what seat 0 may do now
    game.hint(0)                             # what seat 0 would do well to do
    text = game.record.to_json()             # the record; Game.from_record(...) replays it

No clock, no I/O, no randomness but the seeded shuffle of ``ramino._core``.
"""

from ramino import reasons
from ramino.engine.codec import command_from_data, event_from_data, to_data
from ramino.engine.commands import (
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
from ramino.engine.deck import reshuffle_seed, round_seed, stack_deck
from ramino.engine.errors import IllegalMove, InvalidSetup, MalformedCommand, RecordError
from ramino.engine.events import (
    EVENT_TYPES,
    RESIGNATIONS,
    SCORE_PART_KINDS,
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
    MeldDescription,
    MeldJoker,
    MeldsLaid,
    PassedUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    ScorePart,
    StockReshuffled,
    TookDiscard,
    project,
)
from ramino.engine.game import Game, trial_deal
from ramino.engine.hint import Hint
from ramino.engine.record import FORMAT_VERSION, Record
from ramino.engine.seen import Seen, see_event, see_view
from ramino.engine.views import MeldView, SeatView, Standing, View

__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "FORMAT_VERSION",
    "RESIGNATIONS",
    "SCORE_PART_KINDS",
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
    "MeldDescription",
    "MeldJoker",
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
    "ScorePart",
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
    "trial_deal",
    "to_data",
]
