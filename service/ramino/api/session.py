"""PlayGame on the transport's side: a session's client messages decoded
into its moves (as the unary moves are: :mod:`ramino.api.commands`, the
same request ids and records), and its items encoded once, after the
game's lock (:class:`SessionEncoder`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ramino import reasons
from ramino.api.auth import SeatClaim
from ramino.api.claims import Claims
from ramino.api.commands import command_of
from ramino.api.errors import ApiError, status_for
from ramino.api.messages import Messages
from ramino.api.requests import MAX_REQUEST_ID, check_request_id, game_id_of, request_record
from ramino.app.games.outcomes import KeptAnswer, LegalMoves
from ramino.app.games.session import MAX_MOVES_QUEUED, Ask, Session, SessionItem
from ramino.app.log import GameCreated
from ramino.errors import RaminoError
from ramino.v1 import game_pb2

__all__ = ["start_of", "resend_of", "read_moves", "SessionEncoder", "options_bytes"]

STATUS_DETAILS = "grpc-status-details-bin"


def start_of(message: game_pb2.PlayGameRequest | None) -> game_pb2.PlayGameStart:
    """The start of a session: its first message, which must be one."""
    if message is None or message.WhichOneof("message") != "start":
        raise ApiError(
            reasons.SESSION_START,
            "the first message of a session is its start (the game's name)",
        )
    return message.start


def resend_of(start: game_pb2.PlayGameStart) -> tuple[str, ...]:
    """The request ids a reopened session's start names as about to be
    sent again (see :class:`Session`): at most ``MAX_MOVES_QUEUED`` (the
    answers a session holds unsent), each a request id, none twice."""
    resend = tuple(start.resend)
    wrong = None
    if len(resend) > MAX_MOVES_QUEUED:
        wrong = f"resend names {len(resend)} request ids, at most {MAX_MOVES_QUEUED}"
    elif any(not r or len(r) > MAX_REQUEST_ID for r in resend):
        wrong = f"resend names an empty request id or one over {MAX_REQUEST_ID} characters"
    elif len(set(resend)) != len(resend):
        wrong = "resend names a request id twice"
    if wrong is not None:
        raise ApiError(reasons.SESSION_RESEND, wrong)
    return resend


async def read_moves(
    requests: AsyncIterator[game_pb2.PlayGameRequest],
    session: Session,
    claim: SeatClaim,
    claims: Claims,
) -> None:
    """Hands each move the client sends to ``session``: a move refused
    for its fields is answered in its place (the session stays open),
    among them a move without a request id (``SESSION_REQUEST_ID``, its
    answer's id empty: nothing is played, so that every answer to a
    played move is matched by its id, not by its place); an ask
    (``PlayGameAsk``) is handed on in its place among them; a message that
    is no move (another start) or does not decode ends the session with
    its error."""
    scope = claims.seat_scope(claim)
    try:
        async for message in requests:
            kind = message.WhichOneof("message")
            if kind is None or kind == "start":
                raise ApiError(
                    reasons.SESSION_START,
                    "a session is started once, by its first message; the others are moves",
                )
            request: Any = getattr(message, kind)
            if kind == "ask":
                await session.ask(
                    Ask(
                        request.hints if request.HasField("hints") else None,
                        request.answer_views if request.HasField("answer_views") else None,
                        request.snapshot,
                    )
                )
                continue
            request_id = request.request_id
            try:
                check_request_id(request_id)
                if not request_id:
                    raise ApiError(
                        reasons.SESSION_REQUEST_ID,
                        "a move on a session needs a request_id: its answer carries it",
                    )
                if request.name and game_id_of(request.name) != session.game_id:
                    raise ApiError(
                        reasons.SESSION_GAME,
                        f"this session plays games/{session.game_id}, not {request.name}",
                    )
                command = command_of(request)
            except RaminoError as refused:
                await session.refuse(request_id[:128], refused)
                continue
            # Named as its unary call is, so that a retry there or here
            # matches the request id's record.
            request.name = f"games/{session.game_id}"
            record = request_record(request, type(command).__name__, scope)
            expected = request.expected_version if request.HasField("expected_version") else None
            await session.play(request_id, command, expected, record)
    except RaminoError as error:
        session.fail(error)
        return
    await session.done()


def options_bytes(
    messages: Messages,
    header: GameCreated,
    legal: LegalMoves,
    response: type[Any],
    hints: bool = True,
) -> bytes:
    """A ``response`` (PlayGameResponse or WatchGameResponse: the same
    field number) holding only ``options`` (with their hint when
    ``hints``), serialized: joined to an event's bytes, it is the same
    message with its options."""
    msg = response()
    messages.options(header, legal, legal.version, legal.turn, msg.options, hints)
    data: bytes = msg.SerializeToString()
    return data


class SessionEncoder:
    """The one encoder of a session's messages for one game."""

    def __init__(self, messages: Messages, header: GameCreated) -> None:
        self.messages = messages
        self.header = header

    def message(self, item: SessionItem) -> game_pb2.PlayGameResponse | bytes:
        """The PlayGameResponse of ``item``; an event's comes as bytes (the
        watch's, with the options joined)."""
        hints = item.hints
        if item.payload:
            if item.options is None:
                return item.payload
            return item.payload + self.options(item.options, hints)
        msg = game_pb2.PlayGameResponse(version=item.version)
        if item.game is not None:
            self.messages.view(item.game, with_deck=True, into=msg.snapshot)
        answer = item.answer
        if answer is not None:
            out = msg.answer
            out.request_id = answer.request_id
            if answer.error is not None:
                status = status_for(answer.error)
                if status is None:
                    raise answer.error  # a bug, not a refusal: INTERNAL
                for key, value in status.trailing_metadata:
                    if key == STATUS_DETAILS:
                        out.error.MergeFromString(value)
            elif isinstance(answer.outcome, KeptAnswer):
                out.result.MergeFromString(answer.outcome.data)
            elif answer.outcome is not None:
                self.messages.move_result(answer.outcome, out.result, hints)
        if item.options is not None:
            legal = item.options
            self.messages.options(self.header, legal, legal.version, legal.turn, msg.options, hints)
        return msg

    def options(self, legal: LegalMoves, hints: bool = True) -> bytes:
        return options_bytes(self.messages, self.header, legal, game_pb2.PlayGameResponse, hints)
