"""What both client flavours share: the RPCs with their message types, the
retry policy, seat-token metadata and request building."""

from __future__ import annotations

import json
import random
import secrets
import threading
import uuid
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

import grpc
from google.protobuf.message import Message

from ramino_client import _convert
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client.errors import ServiceError, error_from_rpc
from ramino_client.events import Snapshot, WatchItem, ends_match
from ramino_client.v1 import game_pb2, rules_pb2

Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)
Ch = TypeVar("Ch")
Call = TypeVar("Call")

DEFAULT_TARGET = "localhost:50051"

# The channel's own reconnect backoff starts at 1 s and grows to 2 min; a
# game client wants to be back within a retry's budget once the server is.
CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.keepalive_time_ms", 30_000),
)

DEFAULT_LOAD_BALANCING = "round_robin"


def channel_options(
    load_balancing: str | None, options: Sequence[tuple[str, Any]]
) -> list[tuple[str, Any]]:
    """The channel's options: ours, a service config naming the load-balancing
    policy, then the caller's.

    With ``round_robin`` a target that resolves to several addresses (a
    ``dns:///`` name of a headless Kubernetes Service, or ``ipv4:a:p,b:p``)
    gets a connection to each and spreads the calls over them; ``pick_first``
    (gRPC's default) sends every call down one connection. The name's own
    service config (a DNS TXT record) is not looked up: this one applies.
    """
    opts = list(CHANNEL_OPTIONS)
    if load_balancing is not None:
        config: dict[str, Any] = {"loadBalancingConfig": [{load_balancing: {}}]}
        opts += [
            ("grpc.service_config", json.dumps(config)),
            ("grpc.service_config_disable_resolution", 1),
        ]
    return [*opts, *options]


STREAMS_PER_CONNECTION = 50
"""Streams (watches, sessions, ticket waits) a client puts on one connection
before it opens another. The server refuses a connection's streams past its
``--max-streams-per-connection`` (100 by default) with ``TOO_MANY_STREAMS``;
half of it leaves room for the streams a client has closed and the server
has not yet let go of."""

CONNECTION_ARG = "ramino.connection"
"""The channel argument that numbers a client's extra connections: gRPC
shares one connection between every channel of equal settings in a process,
so channels that differ by it alone get connections of their own."""


class _OpenStreams:
    """The streams open on each connection of the process, as the SDK counts
    them: by the channels' settings and the connection's number. Clients of
    equal settings share gRPC's connections, so they share these counts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the blocking client's calls end in gRPC's threads
        self._open: dict[tuple[Hashable, int], int] = {}

    def take(self, settings: Hashable, most: int) -> int:
        """The first connection of these settings with fewer than ``most``
        streams open (counting from 0, the clients' first), its stream
        counted."""
        with self._lock:
            number = 0
            while self._open.get((settings, number), 0) >= most:
                number += 1
            self._open[(settings, number)] = self._open.get((settings, number), 0) + 1
            return number

    def give_back(self, settings: Hashable, number: int) -> None:
        with self._lock:
            key = (settings, number)
            left = self._open.get(key, 1) - 1
            if left > 0:
                self._open[key] = left
            else:
                self._open.pop(key, None)

    def count(self, settings: Hashable) -> dict[int, int]:
        """The streams open on each connection of these settings."""
        with self._lock:
            return {n: k for (s, n), k in self._open.items() if s == settings}


OPEN_STREAMS = _OpenStreams()


class StreamChannels(Generic[Ch]):
    """Where a client's streams go: the first connection (its unary calls')
    until it holds ``most`` streams, then the next, opened when first needed,
    so that no connection reaches the server's per-connection limit
    (``--max-streams-per-connection``) however many seats a process plays.

    A connection is counted by the whole process (:data:`OPEN_STREAMS`), as
    gRPC shares it; a stream's place is taken when it is opened and given
    back when gRPC ends it. A client given its own channel (``channel=``)
    puts every stream on it: its settings are not known."""

    def __init__(
        self,
        first: Ch,
        make: Callable[[Sequence[tuple[str, Any]]], Ch] | None,
        options: Sequence[tuple[str, Any]],
        settings: Hashable,
        most: int,
    ) -> None:
        """``make`` opens a channel with these options (None: only ``first``);
        ``settings`` names what makes two clients' channels share
        connections (their target, options and credentials)."""
        if most < 1:
            raise ValueError(f"streams_per_connection must be at least 1, not {most}")
        self._channels: list[Ch] = [first]
        self._lock = threading.Lock()  # the blocking client opens streams from many threads
        self._make = make
        self._options = list(options)
        self.settings = settings
        self.most = most

    def open(
        self, start: Callable[[Ch], Call], on_end: Callable[[Call, Callable[[], None]], None]
    ) -> Call:
        """The stream ``start`` opens on the channel whose connection has
        room, its place given back through ``on_end`` (which registers the
        function to call when the stream ends)."""
        if self._make is None:
            return start(self._channels[0])
        number = OPEN_STREAMS.take(self.settings, self.most)
        once = threading.Lock()

        def give_back() -> None:
            if once.acquire(blocking=False):
                OPEN_STREAMS.give_back(self.settings, number)

        try:
            with self._lock:
                while number >= len(self._channels):
                    extra = len(self._channels)
                    self._channels.append(self._make([*self._options, (CONNECTION_ARG, extra)]))
                channel = self._channels[number]
            call = start(channel)
        except BaseException:
            give_back()
            raise
        on_end(call, give_back)
        return call

    @property
    def channels(self) -> tuple[Ch, ...]:
        """Every channel opened, the first included (to close them)."""
        return tuple(self._channels)


def channel_settings(
    target: str, options: Sequence[tuple[str, Any]], credentials: object | None
) -> Hashable:
    """What makes gRPC share a connection between two channels: their target,
    options and credentials (the same object: gRPC compares them so)."""
    return (target, repr(list(options)), None if credentials is None else id(credentials))


@dataclass(frozen=True, slots=True)
class Rpc(Generic[Req, Resp]):
    """One method of a service with its message types."""

    path: str
    request: type[Req]
    response: type[Resp]

    def serialize(self, request: Req) -> bytes:
        return request.SerializeToString()

    def deserialize(self, data: bytes) -> Resp:
        return self.response.FromString(data)


def _game(method: str, req: type[Req], resp: type[Resp]) -> Rpc[Req, Resp]:
    return Rpc(f"/ramino.v1.GameService/{method}", req, resp)


def _rules(method: str, req: type[Req], resp: type[Resp]) -> Rpc[Req, Resp]:
    return Rpc(f"/ramino.v1.RulesService/{method}", req, resp)


g = game_pb2
CREATE_GAME = _game("CreateGame", g.CreateGameRequest, g.CreateGameResponse)
JOIN_GAME = _game("JoinGame", g.JoinGameRequest, g.JoinGameResponse)
GET_GAME = _game("GetGame", g.GetGameRequest, g.GetGameResponse)
LIST_GAMES = _game("ListGames", g.ListGamesRequest, g.ListGamesResponse)
WATCH_GAME = _game("WatchGame", g.WatchGameRequest, g.WatchGameResponse)
CANCEL_GAME = _game("CancelGame", g.CancelGameRequest, g.CancelGameResponse)
GET_LEGAL_MOVES = _game("GetLegalMoves", g.GetLegalMovesRequest, g.GetLegalMovesResponse)
DRAW_FROM_STOCK = _game("DrawFromStock", g.DrawFromStockRequest, g.DrawFromStockResponse)
TAKE_DISCARD = _game("TakeDiscard", g.TakeDiscardRequest, g.TakeDiscardResponse)
TURN_OVER = _game(
    "TurnOverDiscardPile", g.TurnOverDiscardPileRequest, g.TurnOverDiscardPileResponse
)
LAY_MELDS = _game("LayMelds", g.LayMeldsRequest, g.LayMeldsResponse)
LAY_OFF = _game("LayOff", g.LayOffRequest, g.LayOffResponse)
SWAP_JOKER = _game("SwapJoker", g.SwapJokerRequest, g.SwapJokerResponse)
DISCARD = _game("Discard", g.DiscardRequest, g.DiscardResponse)
RESIGN = _game("Resign", g.ResignRequest, g.ResignResponse)
PASS_UPCARD = _game("PassUpcard", g.PassUpcardRequest, g.PassUpcardResponse)
KNOCK = _game("Knock", g.KnockRequest, g.KnockResponse)
ACCEPT_LAYOUT = _game("AcceptLayout", g.AcceptLayoutRequest, g.AcceptLayoutResponse)
VALIDATE_MELD = _rules(
    "ValidateMeld", rules_pb2.ValidateMeldRequest, rules_pb2.ValidateMeldResponse
)
ANALYZE_HAND = _rules("AnalyzeHand", rules_pb2.AnalyzeHandRequest, rules_pb2.AnalyzeHandResponse)
LIST_VARIANTS = _rules(
    "ListVariants", rules_pb2.ListVariantsRequest, rules_pb2.ListVariantsResponse
)
LIST_BOT_LEVELS = _rules(
    "ListBotLevels", rules_pb2.ListBotLevelsRequest, rules_pb2.ListBotLevelsResponse
)


class MoveResponse(Protocol):
    """Every move RPC answers ``{MoveResult result = 1}``."""

    @property
    def result(self) -> game_pb2.MoveResult: ...


RETRYABLE_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
"""The codes after which a call is made again: UNAVAILABLE (the server
restarting, a dropped connection) and CANCELLED, which this client never
causes on its own calls: a server that stops (a rolling update) cancels the
calls it had received but not yet started. Every call is safe to repeat:
reads, and writes with their ``request_id``."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How calls are retried on UNAVAILABLE or a server's CANCELLED
    (:data:`RETRYABLE_CODES`). Mutating calls keep their ``request_id`` across
    retries, so the server applies a move once and answers a retry with its
    first answer."""

    attempts: int = 10
    """Tries in all, the first included; a watch counts failures in a row."""
    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0
    jitter: float = 0.2
    """Each delay is randomised by up to this fraction, either way."""

    def delays(self) -> Iterator[float]:
        """The waits before the 2nd, 3rd ... attempts."""
        delay = self.initial_backoff
        for _ in range(max(self.attempts - 1, 0)):
            yield delay * (1 + random.uniform(-self.jitter, self.jitter))
            delay = min(delay * self.multiplier, self.max_backoff)


DEFAULT_RETRY = RetryPolicy()
NO_RETRY = RetryPolicy(attempts=1)


CardRef = int | m.Card
"""A card by its id, or a :class:`~ramino_client.models.Card` that has one."""


def card_id(card: CardRef) -> int:
    if isinstance(card, m.Card):
        if card.id is None:
            raise ValueError(f"{card.code} has no id: only cards of a game can be played")
        return card.id
    return int(card)


CALLER_KEY = "ramino-caller-key"
PLAYER_TOKEN_KEY = "ramino-player-token"


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return () if token is None else (("authorization", f"Bearer {token}"),)


def identity(caller_key: str | None, player_token: str | None) -> tuple[tuple[str, str], ...]:
    """The metadata a client sends on every call: its own caller key (which
    scopes its request ids on CreateGame and JoinGame), and the player token
    of the host's auth, when it has one."""
    out: list[tuple[str, str]] = []
    if caller_key:
        out.append((CALLER_KEY, caller_key))
    if player_token:
        out.append((PLAYER_TOKEN_KEY, player_token))
    return tuple(out)


def new_caller_key() -> str:
    return secrets.token_urlsafe(32)


def new_request_id() -> str:
    return str(uuid.uuid4())


SeatSpec = str | m.BotLevel | None
"""A seat asked for at creation: a person's name (``""`` or ``None`` for
anyone), or a bot level."""


def seat_config(spec: SeatSpec) -> game_pb2.SeatConfig:
    if isinstance(spec, m.BotLevel):
        return game_pb2.SeatConfig(bot=_convert.BOT_VALUES[spec])
    return game_pb2.SeatConfig(player_name=spec or "")


def create_game_request(
    variant: str,
    seats: Sequence[SeatSpec],
    overrides: Mapping[str, Any] | None,
    turn_timer_seconds: int,
    request_id: str,
    spectators_disabled: bool = False,
    private: bool = False,
    rated: bool = False,
    quick_play: bool = False,
) -> game_pb2.CreateGameRequest:
    return game_pb2.CreateGameRequest(
        variant=variant,
        overrides=_convert.parameters_message(overrides),
        seats=[seat_config(s) for s in seats],
        turn_timer_seconds=turn_timer_seconds,
        request_id=request_id,
        spectators_disabled=spectators_disabled,
        visibility=game_pb2.VISIBILITY_PRIVATE if private else game_pb2.VISIBILITY_PUBLIC,
        rated=rated,
        quick_play=quick_play,
    )


def game_name(game: str) -> str:
    """``games/{id}`` from a name or a bare id."""
    return game if game.startswith("games/") else f"games/{game}"


def join_request(
    game: str, player_name: str, seat: int | None, request_id: str
) -> game_pb2.JoinGameRequest:
    request = game_pb2.JoinGameRequest(
        name=game_name(game), player_name=player_name, request_id=request_id
    )
    if seat is not None:
        request.seat = seat
    return request


def join_invite_request(
    invite_code: str, player_name: str, seat: int | None, request_id: str
) -> game_pb2.JoinGameRequest:
    request = game_pb2.JoinGameRequest(
        invite_code=invite_code_of(invite_code), player_name=player_name, request_id=request_id
    )
    if seat is not None:
        request.seat = seat
    return request


INVITE_FRAGMENT = "invite="
"""How a link carries an invite code: ``BASE#invite=CODE`` (or ``?invite=``)."""


def invite_link(base_url: str, invite_code: str) -> str:
    """The link that opens a private game's invite: ``base_url#invite=CODE``
    (the web page joins the game it opens; ``ramino play --invite`` takes
    the link or the code)."""
    return f"{base_url.split('#', 1)[0]}#{INVITE_FRAGMENT}{invite_code}"


def invite_code_of(code_or_link: str) -> str:
    """The invite code in ``code_or_link``: a code as it is, or the code of a
    link made by :func:`invite_link` (``#invite=`` or ``?invite=``)."""
    text = code_or_link.strip()
    for mark in ("#", "?", "&"):
        at = text.find(mark + INVITE_FRAGMENT)
        if at >= 0:
            return text[at + 1 + len(INVITE_FRAGMENT) :].split("&", 1)[0]
    return text


def validate_meld_request(
    cards: str | Sequence[str], variant: str, overrides: Mapping[str, Any] | None
) -> rules_pb2.ValidateMeldRequest:
    return rules_pb2.ValidateMeldRequest(
        variant=variant,
        overrides=_convert.parameters_message(overrides),
        cards=_convert.cards_text(cards),
    )


def analyze_hand_request(
    hand: str | Sequence[str],
    variant: str,
    table: Sequence[str | Sequence[str]],
    include: str | None,
    overrides: Mapping[str, Any] | None,
) -> rules_pb2.AnalyzeHandRequest:
    return rules_pb2.AnalyzeHandRequest(
        variant=variant,
        overrides=_convert.parameters_message(overrides),
        hand=_convert.cards_text(hand),
        table=[rules_pb2.MeldCodes(cards=_convert.cards_text(x)) for x in table],
        include=include or "",
    )


def list_games_request(
    page_size: int,
    page_token: str,
    variant: str | None,
    open_seats_only: bool,
    status: m.GameStatus | None,
) -> game_pb2.ListGamesRequest:
    return game_pb2.ListGamesRequest(
        page_size=page_size,
        page_token=page_token,
        variant=variant or "",
        open_seats_only=open_seats_only,
        status=_convert.STATUS_VALUES.get(status or m.GameStatus.UNSPECIFIED),
    )


def watch_request(
    name: str, after_version: int | None, snapshot: bool
) -> game_pb2.WatchGameRequest:
    # Spectators are sent their events several to a message: fewer messages
    # for the server to send when many watch (split by Resume).
    request = game_pb2.WatchGameRequest(name=name, snapshot=snapshot, batch_events=True)
    if after_version is not None:
        request.after_version = after_version
    return request


def move_call(
    move: mv.Move, name: str, request_id: str, expected_version: int | None
) -> tuple[Rpc[Any, Any], Message]:
    """The RPC and request that make ``move`` (its response is a MoveResponse)."""
    common: dict[str, Any] = {"name": name, "request_id": request_id}
    if expected_version is not None:
        common["expected_version"] = expected_version
    match move:
        case mv.DrawFromStock():
            return DRAW_FROM_STOCK, g.DrawFromStockRequest(**common)
        case mv.TakeDiscard():
            return TAKE_DISCARD, g.TakeDiscardRequest(**common)
        case mv.TurnOverDiscardPile():
            return TURN_OVER, g.TurnOverDiscardPileRequest(**common)
        case mv.LayMelds(melds=melds):
            ids = [g.MeldCardIds(card_ids=list(x)) for x in melds]
            return LAY_MELDS, g.LayMeldsRequest(melds=ids, **common)
        case mv.LayOff(card_id=card_id, meld_index=meld_index, end=end):
            request = g.LayOffRequest(
                card_id=card_id,
                meld_index=meld_index,
                end=_convert.end_value(m.End.parse(end)),
                **common,
            )
            return LAY_OFF, request
        case mv.SwapJoker(card_id=card_id, meld_index=meld_index, joker_id=joker_id):
            request_swap = g.SwapJokerRequest(
                card_id=card_id, meld_index=meld_index, joker_id=joker_id, **common
            )
            return SWAP_JOKER, request_swap
        case mv.Discard(card_id=card_id):
            return DISCARD, g.DiscardRequest(card_id=card_id, **common)
        case mv.Resign():
            return RESIGN, g.ResignRequest(**common)
        case mv.PassUpcard():
            return PASS_UPCARD, g.PassUpcardRequest(**common)
        case mv.Knock(discard_card_id=dropped, melds=melds):
            knock = g.KnockRequest(melds=[g.MeldCardIds(card_ids=list(x)) for x in melds], **common)
            if dropped is not None:
                knock.discard_card_id = dropped
            return KNOCK, knock
        case mv.AcceptLayout():
            return ACCEPT_LAYOUT, g.AcceptLayoutRequest(**common)
    raise TypeError(f"not a move: {move!r}")


def melds_of(melds: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(c) for c in x) for x in melds)


def order(item: WatchItem, last: int | None) -> Literal["next", "seen", "gap"]:
    """Where a watched item falls after the last version yielded: the next
    one (or a snapshot, always taken), one already yielded, or past a gap."""
    if isinstance(item, Snapshot) or last is None or item.version == last + 1:
        return "next"
    return "seen" if item.version <= last else "gap"


class Resume:
    """Where a watch stands, kept by both flavours of it: what to ask for on
    each (re)connection, and which items received are the ones to yield."""

    def __init__(
        self, name: str, after_version: int | None, snapshot: bool, stop_at_end: bool
    ) -> None:
        self.name = name
        self.after_version = after_version
        self.snapshot = snapshot
        self.stop_at_end = stop_at_end
        self.last_version: int | None = None
        self.ended = False
        """Whether the last item yielded ended the match."""
        self._batch: deque[game_pb2.WatchGameResponse] = deque()
        """The events of a batch received, after the one taken."""

    def request(self) -> game_pb2.WatchGameRequest:
        """The request that goes on after the last item yielded (the first:
        from ``after_version``, with a snapshot when asked)."""
        self._batch.clear()  # what was not yielded comes again
        if self.last_version is None:
            return watch_request(self.name, self.after_version, self.snapshot)
        return watch_request(self.name, self.last_version, False)

    def take(
        self, response: game_pb2.WatchGameResponse
    ) -> tuple[Literal["next", "seen", "gap"], WatchItem]:
        """The item received with its :func:`order`; a ``next`` one counts
        as yielded. Of a batch, the first event: the others are
        :meth:`queued`."""
        if response.WhichOneof("payload") == "events" and response.events.events:
            self._batch.extend(
                game_pb2.WatchGameResponse(version=e.version, event=e)
                for e in response.events.events
            )
            response = self._batch.popleft()
        item = _convert.watch_item(response)
        where = order(item, self.last_version)
        if where == "next":
            self.last_version = item.version
            self.ended = ends_match(item)
        return where, item

    def queued(self) -> game_pb2.WatchGameResponse | None:
        """The next event of a batch received, if any is left."""
        return self._batch.popleft() if self._batch else None

    @property
    def done(self) -> bool:
        """The match has ended and the watch stops there."""
        return self.stop_at_end and self.ended


def stream_lost(error: grpc.RpcError | None) -> ServiceError:
    """The error a watch ends with when its retries are spent."""
    if error is not None:
        return error_from_rpc(error)
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE", "stream closed")
