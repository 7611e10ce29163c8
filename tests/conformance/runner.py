"""The Python runner of the conformance suite (README.md is its specification).

Every scenario of ``scenarios/`` is replayed through the Python SDK's
asyncio client (its call layer: the seat token in the metadata, request ids,
retries on UNAVAILABLE, typed errors carrying the ``ErrorInfo`` reason, and
its WatchGame stream) against a live ``ramino serve --test-seed``, or, for
the scenarios of quick play and parties, through one client per player (its
player token) against a second server that knows players; each step's
response is turned into protobuf JSON, normalized, checked against the
scenario's expectations and written to the scenario's transcript.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2  # noqa: F401 (an answer's ErrorInfo, printed from its Any)
from ramino_client import AsyncClient, ServiceError, _wire, quick
from ramino_client.errors import error_from_rpc
from ramino_client.v1 import game_pb2, game_pb2_grpc, match_pb2

HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios"
TRANSCRIPTS = HERE / "transcripts"
SUITE = json.loads((HERE / "suite.json").read_text())
FORMAT_VERSION = 1
FORGED_TOKEN = "forged.conformance.token"
WATCH_TIMEOUT = 10.0
PLAYER_TOKEN_SECRET = HERE / "player-token.secret"
PLAYER_TOKEN_EXP = 4102444800
"""A player token's ``exp`` (2100-01-01): the same token from every runner."""
STEP_FIELDS = frozenset(
    {
        "op",
        "game",
        "as",
        "args",
        "watch",
        "session",
        "count",
        "resume",
        "expect",
        "ticket",
        "party",
    }
)
TOKEN_KEYS = frozenset({"seatToken", "creatorToken"})
TIME_KEYS = frozenset({"createTime", "turnDeadline", "submitTime", "expireTime"})
NUMBER_KEYS = frozenset({"ratingWindow", "expectedWait", "rating"})
"""Doubles (their JSON differs by language; a wait or window by the clock)."""
SECRET_KEYS = {"inviteCode": "<invite>", "invitation": "<invitation>"}

UNARY: dict[str, _wire.Rpc[Any, Any]] = {
    "create": _wire.CREATE_GAME,
    "join": _wire.JOIN_GAME,
    "get_game": _wire.GET_GAME,
    "legal_moves": _wire.GET_LEGAL_MOVES,
    "draw_from_stock": _wire.DRAW_FROM_STOCK,
    "take_discard": _wire.TAKE_DISCARD,
    "turn_over_discard_pile": _wire.TURN_OVER,
    "lay_melds": _wire.LAY_MELDS,
    "lay_off": _wire.LAY_OFF,
    "swap_joker": _wire.SWAP_JOKER,
    "discard": _wire.DISCARD,
    "resign": _wire.RESIGN,
    "pass_upcard": _wire.PASS_UPCARD,
    "knock": _wire.KNOCK,
    "accept_layout": _wire.ACCEPT_LAYOUT,
    "cancel_game": _wire.CANCEL_GAME,
    "join_invite": _wire.JOIN_GAME,
}
MATCH_UNARY: dict[str, _wire.Rpc[Any, Any]] = {
    "ticket_cancel": quick.CANCEL_TICKET,
    "ticket_list": quick.LIST_TICKETS,
    "party_create": quick.CREATE_PARTY,
    "party_invite": quick.INVITE_TO_PARTY,
    "party_join": quick.JOIN_PARTY,
    "party_get": quick.GET_PARTY,
}
TICKET_OPS = frozenset({"ticket_submit", "ticket_watch", "ticket_wait"})
FINAL_STATES = frozenset({"TICKET_STATE_MATCHED", "TICKET_STATE_EXPIRED", "TICKET_STATE_CANCELLED"})
# The calls that change something carry a request id (the SDK's own when the
# scenario gives none).
WITH_REQUEST_ID = frozenset(UNARY) - {"get_game", "legal_moves", "cancel_game", "join_invite"}
WATCH_OPS = frozenset({"watch_open", "watch_next", "watch_close"})
SESSION_OPS = frozenset(
    {"session_open", "session_send", "session_next", "session_close", "session_end"}
)
ON_A_STREAM = frozenset(
    {"watch_next", "watch_close", "session_send", "session_next", "session_close", "session_end"}
)
"""The ops whose game and caller are those of the stream they act on."""


class ScenarioError(Exception):
    """The scenario file itself is malformed (not a disagreement with the server)."""


class Mismatch(Exception):
    """An expectation of the scenario was not met."""


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path
    data: dict[str, Any]
    sha256: str


def scenarios() -> list[Scenario]:
    """Every scenario of the suite, in file-name order."""
    if SUITE.get("formatVersion") != FORMAT_VERSION:
        raise ScenarioError(f"suite.json: unknown formatVersion {SUITE.get('formatVersion')!r}")
    found = []
    for path in sorted(SCENARIOS.glob("*.json"), key=lambda p: p.name.encode()):
        raw = path.read_bytes()
        found.append(Scenario(path.stem, path, json.loads(raw), hashlib.sha256(raw).hexdigest()))
    return found


def canonical(value: Any) -> str:
    """The canonical JSON of README.md ("The transcript")."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def player_token(player: str, secret: bytes) -> str:
    """The player token of README.md ("Players"): an HS256 JWT, byte for byte
    the same from every runner."""

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    header = b64(b'{"alg":"HS256","typ":"JWT"}')
    claims = b64(f'{{"sub":"{player}","exp":{PLAYER_TOKEN_EXP}}}'.encode())
    signed = f"{header}.{claims}"
    return f"{signed}.{b64(hmac.digest(secret, signed.encode(), 'sha256'))}"


def proto_json(message: Message) -> Any:
    """``message`` in protobuf JSON, fields without presence always printed."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def normalize(value: Any, game_labels: dict[str, str]) -> Any:
    """Tokens, times, doubles and secrets replaced, names by their labels
    (``game_labels``: a name to the label it is printed as, e.g. a game's
    ``games/<id>`` to ``g``, a ticket's ``tickets/<id>`` to ``tickets/t1``)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in TOKEN_KEYS:
                out[k] = "<token>"
            elif k in TIME_KEYS:
                out[k] = "<time>"
            elif k in NUMBER_KEYS and isinstance(v, int | float):
                out[k] = "<number>"
            elif k in SECRET_KEYS and isinstance(v, str) and v:
                out[k] = SECRET_KEYS[k]
            else:
                out[k] = normalize(v, game_labels)
        refusal = out.get("error") if "requestId" in out else None
        if isinstance(refusal, dict) and "message" in refusal:
            # A session's refused answer (a google.rpc.Status): its text is
            # never compared, as no unary error's is.
            refusal["message"] = "<message>"
        return out
    if isinstance(value, list):
        return [normalize(v, game_labels) for v in value]
    if isinstance(value, str) and value in game_labels:
        label = game_labels[value]
        return label if "/" in label else f"games/{label}"
    return value


KIND_BESIDE = ("version", "seat", "turn", "options")
"""The members beside an object's kind: a GameEvent's version, seat and
turn after it, a watch message's version and the seat's options."""


def kind_of(value: dict[str, Any], path: str) -> Any:
    keys = [k for k in value if k not in KIND_BESIDE]
    if not keys and "options" in value:
        return "options"  # a session's message of options alone
    if len(keys) != 1:
        raise Mismatch(f"{path}: @kind of an object with members {sorted(keys)}")
    if keys[0] == "event" and isinstance(value["event"], dict):
        return kind_of(value["event"], path)
    return keys[0]


def evaluate(value: Any, path: str) -> Any:
    """The value ``path`` (README.md, "Paths") gives on ``value``."""
    return _walk(value, path.split("."), path)


def _walk(value: Any, segments: Sequence[str], path: str) -> Any:
    for i, seg in enumerate(segments):
        if value is None:
            return None
        if seg == "*":
            if not isinstance(value, list):
                raise Mismatch(f"{path}: '*' of a non-array")
            return [_walk(v, segments[i + 1 :], path) for v in value]
        if seg == "#":
            if not isinstance(value, list):
                raise Mismatch(f"{path}: '#' of a non-array")
            value = len(value)
        elif seg == "@kind":
            if not isinstance(value, dict):
                raise Mismatch(f"{path}: '@kind' of a non-object")
            value = kind_of(value, path)
        elif seg.lstrip("-").isdigit():
            if not isinstance(value, list):
                raise Mismatch(f"{path}: index {seg} of a non-array")
            index = int(seg)
            value = value[index] if -len(value) <= index < len(value) else None
        else:
            if not isinstance(value, dict):
                raise Mismatch(f"{path}: field {seg!r} of a non-object")
            value = value.get(seg)
    return value


def same(a: Any, b: Any) -> bool:
    """JSON equality: the same type (a bool is no number), the same members."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@dataclass
class Stream:
    """A watch (``call`` a WatchGame call) or a session (a PlayGame call)."""

    call: Any
    caller: str
    game: str
    last_version: str | None = None
    open: bool = True


@dataclass
class TicketStream:
    """A player's SubmitTicket or WatchTicket call and the last update read."""

    call: Any
    last: Any


@dataclass
class Replay:
    """One scenario's run: what the runner remembers between steps.

    ``client`` calls the scenario's server; ``player`` gives the client of
    a player of the server that knows players (made once per player)."""

    client: AsyncClient
    scenario: Scenario
    player: Callable[[str], AsyncClient] | None = None
    games: dict[str, dict[str, str]] = field(default_factory=dict)
    seats: dict[str, dict[str, str]] = field(default_factory=dict)
    watches: dict[str, Stream] = field(default_factory=dict)
    sessions: dict[str, Stream] = field(default_factory=dict)
    tickets: dict[str, str] = field(default_factory=dict)
    parties: dict[str, str] = field(default_factory=dict)
    invitations: dict[tuple[str, str], str] = field(default_factory=dict)
    ticket_streams: dict[tuple[str, str], TicketStream] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    @property
    def labels(self) -> dict[str, str]:
        found = {g["name"]: label for label, g in self.games.items()}
        for kind, bound in (("tickets", self.tickets), ("parties", self.parties)):
            for label, name in reversed(list(bound.items())):  # the first label wins
                found[name] = f"{kind}/{label}"
        return found

    def game_name(self, label: str) -> str:
        if label not in self.games:
            raise ScenarioError(f"no game labelled {label!r} yet")
        return self.games[label]["name"]

    def token(self, caller: str, game: str) -> str | None:
        if caller == "spectator":
            return None
        if caller == "forged":
            return FORGED_TOKEN
        if caller == "creator":
            return self.games[game]["creator"]
        if caller not in self.seats:
            raise ScenarioError(f"no seat labelled {caller!r} yet")
        return self.seats[caller]["token"]

    async def run(self) -> str | None:
        """Replays the scenario; the failure, or None."""
        s = self.scenario
        self.lines += [f"format {FORMAT_VERSION}", f"scenario {s.name} sha256={s.sha256}"]
        try:
            for i, step in enumerate(s.data["steps"]):
                try:
                    await self.step(i, step)
                except Mismatch as e:
                    self.lines.append(f"FAILED {e}")
                    return f"step {i} ({step.get('op')}): {e}"
            return None
        finally:
            for w in self.watches.values():
                if w.open:
                    w.call.cancel()
            for session in self.sessions.values():
                if session.open:
                    session.call.cancel()
            for t in self.ticket_streams.values():
                t.call.cancel()

    async def step(self, index: int, step: dict[str, Any]) -> None:
        unknown = set(step) - STEP_FIELDS
        if unknown:
            raise ScenarioError(f"step {index}: unknown fields {sorted(unknown)}")
        op = step["op"]
        game = step.get("game", "g")
        caller = step.get("as", "spectator")
        if op in ON_A_STREAM:
            stream = self.stream_of(op, step)
            game, caller = stream.game, stream.caller
        self.lines.append(f"step {index} {op} {game} {caller}")
        expect = step.get("expect", {})
        try:
            response = await self.call(op, game, caller, step)
        except ServiceError as e:
            code = e.code.name
            self.lines.append(f"error {code} {e.reason}")
            wanted = expect.get("error")
            if wanted is None:
                raise Mismatch(f"expected success, got {code} {e.reason}: {e.message}") from None
            if (wanted["code"], wanted["reason"]) != (code, e.reason):
                raise Mismatch(
                    f"expected {wanted['code']} {wanted['reason']}, got {code} {e.reason}"
                ) from None
            return
        normalized = normalize(response, self.labels)
        self.lines.append(f"ok {canonical(normalized)}")
        if "error" in expect:
            wanted = expect["error"]
            raise Mismatch(f"expected {wanted['code']} {wanted['reason']}, got success")
        for fact in expect.get("facts", []):
            got = evaluate(normalized, fact["path"])
            self.lines.append(f"fact {fact['path']} {canonical(got)}")
            if not same(got, fact["equals"]):
                raise Mismatch(
                    f"{fact['path']}: expected {canonical(fact['equals'])}, got {canonical(got)}"
                )

    async def call(self, op: str, game: str, caller: str, step: dict[str, Any]) -> Any:
        args = dict(step.get("args", {}))
        if op in WATCH_OPS:
            return await self.watch(op, game, caller, step, args)
        if op in SESSION_OPS:
            return await self.session(op, game, caller, step, args)
        if op in TICKET_OPS:
            return await self.ticket(op, game, caller, step, args)
        if op in MATCH_UNARY:
            return await self.match(op, caller, step, args)
        if op == "list_games":
            return await self.list_games(args)
        rpc = UNARY.get(op)
        if rpc is None:
            raise ScenarioError(f"unknown op {op!r}")
        if op == "join_invite":
            args.setdefault("inviteCode", self.games[game]["invite"])
        elif op != "create":
            args["name"] = self.game_name(game)
        if op in WITH_REQUEST_ID and "requestId" not in args:
            args["requestId"] = _wire.new_request_id()
        request = json_format.ParseDict(args, rpc.request())
        token = None if op in ("create", "join", "join_invite") else self.token(caller, game)
        response = await self.client.call(rpc, request, token)
        if op == "create":
            # The creator token is remembered before normalization hides it.
            bound = self.games.get(game)
            if bound is not None and bound["name"] != response.game.name:
                raise Mismatch(f"create {game!r} again made another game (a retry makes none)")
            self.games[game] = {
                "name": response.game.name,
                "creator": response.creator_token,
                "invite": response.invite_code,
            }
        elif op in ("join", "join_invite"):
            self.seats[caller] = {"game": game, "token": response.seat_token}
        return proto_json(response)

    async def list_games(self, args: dict[str, Any]) -> Any:
        """Every page of ListGames, only the scenario's own games kept."""
        mine = self.labels
        games: list[Any] = []
        args = {"pageSize": 100, **args}
        while True:
            request = json_format.ParseDict(args, game_pb2.ListGamesRequest())
            page = await self.client.call(_wire.LIST_GAMES, request)
            games += [proto_json(g) for g in page.games if g.name in mine]
            if not page.next_page_token:
                return {"games": games}
            args["pageToken"] = page.next_page_token

    def player_client(self, caller: str) -> AsyncClient:
        if self.player is None:
            raise ScenarioError(f"{caller!r}: players are known only on the server of players")
        return self.player(caller)

    async def match(self, op: str, caller: str, step: dict[str, Any], args: dict[str, Any]) -> Any:
        """A unary call of MatchService as the player ``caller``."""
        rpc = MATCH_UNARY[op]
        if op == "ticket_cancel":
            args["ticket"] = self.ticket_name(step)
        elif op != "ticket_list" and op != "party_create":
            args["party"] = self.party_name(step)
        if op == "party_join" and "invitation" not in args:
            args["invitation"] = self.invitations.get((step["party"], caller), "")
        request = json_format.ParseDict(args, rpc.request())
        response = await self.player_client(caller).call(rpc, request)
        if op == "party_create":
            self.parties[step["party"]] = response.party.name
        elif op == "party_invite":
            self.invitations[(step["party"], request.player)] = response.invitation
        return proto_json(response)

    def ticket_name(self, step: dict[str, Any]) -> str:
        if step.get("ticket") not in self.tickets:
            raise ScenarioError(f"no ticket labelled {step.get('ticket')!r}")
        return self.tickets[step["ticket"]]

    def party_name(self, step: dict[str, Any]) -> str:
        if step.get("party") not in self.parties:
            raise ScenarioError(f"no party labelled {step.get('party')!r}")
        return self.parties[step["party"]]

    async def ticket(
        self, op: str, game: str, caller: str, step: dict[str, Any], args: dict[str, Any]
    ) -> Any:
        """A ticket's stream as the player ``caller``: opened by SubmitTicket
        or WatchTicket (its first update read), read to its final update."""
        label = step.get("ticket")
        if not isinstance(label, str):
            raise ScenarioError(f"{op}: no ticket label")
        client = self.player_client(caller)
        if op == "ticket_wait":
            stream = self.ticket_streams.get((label, caller))
            if stream is None:
                raise ScenarioError(f"ticket {label!r} has no stream of {caller!r}")
            update = stream.last
            while match_pb2.TicketState.Name(update.state) not in FINAL_STATES:
                update = stream.last = await self.read_update(stream.call, label)
            if update.game:
                bound = self.games.get(game)
                if bound is not None and bound["name"] != update.game:
                    raise Mismatch(f"ticket {label!r} seated in another game than {game!r}")
                self.games[game] = {"name": update.game, "creator": "", "invite": ""}
                self.seats[caller] = {"game": game, "token": update.seat_token}
            return {"update": proto_json(update)}
        if op == "ticket_submit":
            if "party" in step:
                args["party"] = self.party_name(step)
            rpc: _wire.Rpc[Any, Any] = quick.SUBMIT_TICKET
        else:
            args["ticket"] = self.ticket_name(step)
            rpc = quick.WATCH_TICKET
        request = json_format.ParseDict(args, rpc.request())
        call = client.open_stream(
            lambda channel: channel.unary_stream(
                rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
            )(request, metadata=client._identity)
        )
        before = self.ticket_streams.pop((label, caller), None)
        if before is not None:
            before.call.cancel()
        try:
            update = await self.read_update(call, label)
        except BaseException:
            call.cancel()  # a refusal has ended it, a timeout has not
            raise
        self.ticket_streams[(label, caller)] = TicketStream(call, update)
        self.tickets.setdefault(label, update.ticket)
        return {"ticket": update.ticket}

    async def read_update(self, call: Any, label: str) -> Any:
        try:
            got = await asyncio.wait_for(call.read(), WATCH_TIMEOUT)
        except grpc.RpcError as e:
            raise error_from_rpc(e) from e
        except TimeoutError:
            raise Mismatch(f"ticket {label!r}: no update within {WATCH_TIMEOUT} s") from None
        if got is grpc.aio.EOF:
            raise Mismatch(f"ticket {label!r}: the stream ended")
        return got.update

    def stream_of(self, op: str, step: dict[str, Any]) -> Stream:
        streams = self.sessions if op.startswith("session_") else self.watches
        key = "session" if op.startswith("session_") else "watch"
        label = step.get(key)
        if label not in streams:
            raise ScenarioError(f"no {key} labelled {label!r}")
        return streams[label]

    async def watch(
        self, op: str, game: str, caller: str, step: dict[str, Any], args: dict[str, Any]
    ) -> Any:
        label = step["watch"]
        if op == "watch_open":
            if "resume" in step:
                last = self.watches[step["resume"]].last_version
                if last is None:
                    raise ScenarioError(f"watch {step['resume']!r} read nothing to resume after")
                args["afterVersion"] = last
            args["name"] = self.game_name(game)
            request = json_format.ParseDict(args, game_pb2.WatchGameRequest())
            call = self.client.stream(request, self.token(caller, game))
            self.watches[label] = Stream(call, caller, game)
            return {}
        w = self.watches[label]
        if op == "watch_close":
            w.call.cancel()
            w.open = False
            return {}
        messages = []
        for _ in range(int(step["count"])):
            try:
                got = await asyncio.wait_for(w.call.read(), WATCH_TIMEOUT)
            except grpc.RpcError as e:
                raise error_from_rpc(e) from e
            except TimeoutError:
                raise Mismatch(f"watch {label!r}: no message within {WATCH_TIMEOUT} s") from None
            if got is grpc.aio.EOF:
                raise Mismatch(f"watch {label!r}: the stream ended")
            assert isinstance(got, game_pb2.WatchGameResponse)
            messages.append(proto_json(got))
            w.last_version = messages[-1]["version"]
        return {"messages": messages}

    async def session(
        self, op: str, game: str, caller: str, step: dict[str, Any], args: dict[str, Any]
    ) -> Any:
        label = step["session"]
        if op == "session_open":
            if "resume" in step:
                before = self.sessions.get(step["resume"])
                if before is None or before.last_version is None:
                    raise ScenarioError(f"session {step['resume']!r} read nothing to resume after")
                args["afterVersion"] = before.last_version
            args["name"] = self.game_name(game)
            start = game_pb2.PlayGameRequest(
                start=json_format.ParseDict(args, game_pb2.PlayGameStart())
            )
            # The generated stub's bidi call, on the SDK's channel, with the
            # metadata the SDK sends (token, caller key).
            stub = game_pb2_grpc.GameServiceStub(self.client._channel)
            token = self.token(caller, game)
            call = stub.PlayGame(metadata=_wire.auth(token) + self.client._identity)
            await call.write(start)
            self.sessions[label] = Stream(call, caller, game)
            return {}
        s = self.sessions[label]
        if op == "session_send":
            move = json_format.ParseDict(args, game_pb2.PlayGameRequest())
            if move.WhichOneof("message") in (None, "start"):
                raise ScenarioError("session_send: args must hold one move")
            await s.call.write(move)
            return {}
        if op == "session_close":
            s.call.cancel()
            s.open = False
            return {}
        if op == "session_end":
            await s.call.done_writing()
        messages = []
        count = int(step["count"]) if op == "session_next" else None
        while count is None or len(messages) < count:
            try:
                got = await asyncio.wait_for(s.call.read(), WATCH_TIMEOUT)
            except grpc.RpcError as e:
                s.open = False
                raise error_from_rpc(e) from e
            except TimeoutError:
                raise Mismatch(f"session {label!r}: no message within {WATCH_TIMEOUT} s") from None
            if got is grpc.aio.EOF:
                if count is None:
                    break
                raise Mismatch(f"session {label!r}: the stream ended")
            assert isinstance(got, game_pb2.PlayGameResponse)
            messages.append(proto_json(got))
            s.last_version = messages[-1]["version"]
        if op == "session_end":
            s.open = False
            code = await s.call.code()
            if code != grpc.StatusCode.OK:
                raise Mismatch(f"session {label!r}: ended with {code.name}, not OK")
        return {"messages": messages}


async def replay_all(
    target: str,
    chosen: Sequence[Scenario],
    out: Path,
    client_factory: Callable[..., AsyncClient],
    players_target: str | None = None,
) -> dict[str, str | None]:
    """Replays ``chosen`` against ``target`` (a scenario with ``"server":
    "players"`` against ``players_target``), writing ``out/NAME.txt`` each;
    the failure of each scenario (None when it passed)."""
    failures: dict[str, str | None] = {}
    secret = PLAYER_TOKEN_SECRET.read_bytes().strip()
    player_clients: dict[str, AsyncClient] = {}

    def player(label: str) -> AsyncClient:
        """The player's client (``""``: one without a player token)."""
        if players_target is None:
            raise ScenarioError("no server of players was started")
        if label not in player_clients:
            token = player_token(label, secret) if label else None
            player_clients[label] = client_factory(players_target, player_token=token)
        return player_clients[label]

    async with client_factory(target) as client:
        for scenario in chosen:
            on_players = scenario.data.get("server", "games") == "players"
            replay = Replay(player("") if on_players else client, scenario, player)
            try:
                failures[scenario.name] = await replay.run()
            except ScenarioError as e:
                replay.lines.append(f"FAILED malformed scenario: {e}")
                failures[scenario.name] = f"malformed scenario: {e}"
            (out / f"{scenario.name}.txt").write_text("\n".join(replay.lines) + "\n")
    for c in player_clients.values():
        await c.close()
    return failures
