"""The Python SDK of Ramino: a typed client of the gRPC API.

Blocking::

    from ramino.client import BotLevel, Client

    with Client("localhost:50051") as client:
        game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        for item in seat.watch():
            ...

and the same surface for asyncio in :class:`AsyncClient`. The client holds no
rules: it sends moves, and the server's answers come back as frozen
dataclasses (views, cards, melds, events); refusals as :class:`ServiceError`
subclasses carrying the server's reason.
"""

from ramino.client._wire import CardRef, RetryPolicy, SeatSpec
from ramino.client.aio import AsyncClient, AsyncRules, AsyncSeat, AsyncWatch
from ramino.client.errors import (
    AlreadyExists,
    InvalidArgument,
    MoveRejected,
    NotFound,
    PermissionDenied,
    ServiceError,
    StaleVersion,
    Unauthenticated,
    Unavailable,
)
from ramino.client.events import (
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Event,
    GameCreated,
    JokerSwapped,
    LaidOff,
    MatchEnded,
    MeldsLaid,
    Resigned,
    RoundEnded,
    RoundStarted,
    SeatJoined,
    SeatReclaimed,
    SeatTimedOut,
    Snapshot,
    StockReshuffled,
    TookDiscard,
    UnknownEvent,
    WatchItem,
)
from ramino.client.models import (
    BotLevel,
    Card,
    Deadwood,
    End,
    GameStatus,
    GameSummary,
    GameView,
    HandAnalysis,
    Hint,
    JokerRole,
    JokerSwapTarget,
    LayOffTarget,
    LobbySeat,
    Meld,
    MeldCheck,
    MeldKind,
    Opening,
    RoundScores,
    SeatInfo,
    Suit,
    TableMeld,
    TurnPhase,
    VariantInfo,
    group_by_suit,
    sort_cards,
)
from ramino.client.moves import (
    AcceptLayout,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    LegalMoves,
    Move,
    MoveResult,
    PassUpcard,
    Resign,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino.client.sync import Client, Rules, Seat, Watch

__all__ = [
    # clients
    "Client",
    "Seat",
    "Rules",
    "Watch",
    "AsyncClient",
    "AsyncSeat",
    "AsyncRules",
    "AsyncWatch",
    "RetryPolicy",
    "SeatSpec",
    "CardRef",
    # errors
    "ServiceError",
    "InvalidArgument",
    "MoveRejected",
    "StaleVersion",
    "NotFound",
    "AlreadyExists",
    "Unauthenticated",
    "PermissionDenied",
    "Unavailable",
    # values
    "BotLevel",
    "Card",
    "Deadwood",
    "End",
    "GameStatus",
    "GameSummary",
    "GameView",
    "HandAnalysis",
    "Hint",
    "JokerRole",
    "JokerSwapTarget",
    "LayOffTarget",
    "LobbySeat",
    "Meld",
    "MeldCheck",
    "MeldKind",
    "Opening",
    "RoundScores",
    "SeatInfo",
    "Suit",
    "TableMeld",
    "TurnPhase",
    "VariantInfo",
    "group_by_suit",
    "sort_cards",
    # moves
    "Move",
    "DrawFromStock",
    "TakeDiscard",
    "TurnOverDiscardPile",
    "LayMelds",
    "LayOff",
    "SwapJoker",
    "PassUpcard",
    "Knock",
    "AcceptLayout",
    "Discard",
    "Resign",
    "LegalMoves",
    "MoveResult",
    # events
    "Event",
    "GameCreated",
    "SeatJoined",
    "SeatTimedOut",
    "SeatReclaimed",
    "RoundStarted",
    "DrewFromStock",
    "TookDiscard",
    "DiscardPileTurnedOver",
    "StockReshuffled",
    "MeldsLaid",
    "LaidOff",
    "JokerSwapped",
    "Discarded",
    "Resigned",
    "RoundEnded",
    "MatchEnded",
    "UnknownEvent",
    "Snapshot",
    "WatchItem",
]
