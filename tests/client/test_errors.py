"""The SDK's exceptions carry the server's reasons; mutating calls retry with
the same request id; expected versions are sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from ramino_client import (
    AsyncClient,
    BotLevel,
    Client,
    DrawFromStock,
    InvalidArgument,
    MoveRejected,
    NotFound,
    PermissionDenied,
    RetryPolicy,
    Seat,
    ServiceError,
    StaleVersion,
    TurnPhase,
    Unauthenticated,
    Unavailable,
)

from .conftest import ThreadServer, free_port

FAST = RetryPolicy(attempts=3, initial_backoff=0.01, max_backoff=0.02)


def two_people(client: Client, variant: str = "ramino51") -> tuple[Seat, Seat]:
    """A game of two people: (the seat whose turn it is, the other)."""
    game = client.create_game(variant, seats=["ann", "bob"])
    ann, bob = client.join(game.name, "ann"), client.join(game.name, "bob")
    view = ann.view()
    return (ann, bob) if view.turn == ann.seat else (bob, ann)


def test_refused_moves_carry_the_rules_reason(server: ThreadServer) -> None:
    with Client(server.address) as client:
        on_turn, waiting = two_people(client)
        with pytest.raises(MoveRejected) as refused:
            waiting.draw_from_stock()
        assert refused.value.reason == "NOT_YOUR_TURN"
        assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
        assert refused.value.domain == "ramino.v1" and refused.value.message
        # ramino51: the first player starts with an extra card and no draw.
        assert on_turn.view().phase is TurnPhase.PLAY
        with pytest.raises(MoveRejected) as again:
            on_turn.draw_from_stock()
        assert again.value.reason in ("ALREADY_DREW", "FIRST_TURN_HAS_NO_DRAW")


def test_a_stale_expected_version_is_refused(server: ThreadServer) -> None:
    with Client(server.address) as client:
        on_turn, _ = two_people(client)
        view = on_turn.view()
        card = view.sorted_hand()[0]
        with pytest.raises(StaleVersion) as stale:
            on_turn.discard(card, expected_version=view.version - 1)
        assert stale.value.reason == "VERSION_MISMATCH"
        assert (stale.value.expected, stale.value.actual) == (view.version - 1, view.version)
        assert on_turn.view().version == view.version
        result = on_turn.discard(card, expected_version=view.version)
        assert result.view.version > view.version and card not in result.view.hand


def test_lookups_and_tokens(server: ThreadServer) -> None:
    with Client(server.address) as client:
        on_turn, waiting = two_people(client)
        with pytest.raises(NotFound) as missing:
            client.get_game("games/nosuchgame")
        assert missing.value.reason == "GAME_NOT_FOUND"
        with pytest.raises(Unauthenticated) as forged:
            client.seat(on_turn.name, "not-a-token")
        assert forged.value.reason == "TOKEN_INVALID"
        other = client.create_game("rummy", seats=["carol", BotLevel.GREEDY])
        intruder = Seat(client, other.name, 0, on_turn.token)
        with pytest.raises(PermissionDenied) as denied:
            intruder.legal_moves()
        assert denied.value.reason == "WRONG_GAME"
        with pytest.raises(InvalidArgument) as bad:
            on_turn.lay_melds([[]])
        assert bad.value.reason == "EMPTY_MELD" and isinstance(bad.value, ValueError)
        with pytest.raises(InvalidArgument):
            client.create_game("ramino51", seats=[])
        back = client.seat(waiting.game_id, waiting.token)
        assert back.seat == waiting.seat


class LoseFirstAnswer(grpc.UnaryUnaryClientInterceptor):
    """Lets the first call of ``method`` reach the server, then reports
    UNAVAILABLE as if the answer had been lost on the way back."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.request_ids: list[str] = []

    def intercept_unary_unary(
        self, continuation: Callable[[Any, Any], Any], details: Any, request: Any
    ) -> Any:
        outcome = continuation(details, request)
        if details.method.endswith(self.method):
            self.request_ids.append(request.request_id)
            if len(self.request_ids) == 1:
                outcome.result()  # the server has applied it
                raise LostAnswer()
        return outcome


class LostAnswer(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection reset"


def test_a_lost_answer_is_retried_with_the_same_request_id(server: ThreadServer) -> None:
    lose = LoseFirstAnswer("/DrawFromStock")
    channel = grpc.intercept_channel(grpc.insecure_channel(server.address), lose)
    with Client(channel=channel, retry=FAST) as client:
        game = client.create_game("rummy", seats=["ann", "bob"])
        ann, bob = client.join(game.name, "ann"), client.join(game.name, "bob")
        seat = ann if ann.view().turn == ann.seat else bob
        before = seat.view()
        result = seat.draw_from_stock(expected_version=before.version)
        after = seat.view()
    assert len(lose.request_ids) == 2 and lose.request_ids[0] == lose.request_ids[1]
    assert len(lose.request_ids[0]) == 36  # a uuid4
    # Applied once: one card more, one event, and the first answer again.
    assert len(after.hand) == len(before.hand) + 1
    assert after.version == before.version + 1 == result.view.version
    assert [e.type for e in result.events] == ["DrewFromStock"]


def test_create_and_join_are_idempotent_by_request_id(server: ThreadServer) -> None:
    with Client(server.address) as client:
        first = client.create_game("rami51", seats=["", BotLevel.GREEDY], request_id="create-1")
        again = client.create_game("rami51", seats=["", BotLevel.GREEDY], request_id="create-1")
        assert again.name == first.name
        ann = client.join(first.name, "ann", request_id="join-1")
        same = client.join(first.name, "ann", request_id="join-1")
        assert same.seat == ann.seat
        result = ann.play(DrawFromStock(), request_id="draw-1") if ann.view().my_turn else None
        if result is not None:
            replay = ann.play(DrawFromStock(), request_id="draw-1")
            assert replay.view.version == result.view.version


def test_unavailable_after_the_retries() -> None:
    with Client(f"127.0.0.1:{free_port()}", retry=FAST, timeout=2) as client:
        with pytest.raises(Unavailable) as down:
            client.get_game("games/anything")
    assert isinstance(down.value, ServiceError)
    assert down.value.code is grpc.StatusCode.UNAVAILABLE


async def test_async_errors_are_the_same(server: ThreadServer) -> None:
    async with AsyncClient(server.address) as client:
        with pytest.raises(NotFound):
            await client.get_game("games/nosuchgame")
        game = await client.create_game("ramino51", seats=["ann", "bob"])
        ann = await client.join(game.name, "ann")
        bob = await client.join(game.name, "bob")
        waiting = bob if (await ann.view()).turn == ann.seat else ann
        with pytest.raises(MoveRejected) as refused:
            await waiting.take_discard()
        assert refused.value.reason == "NOT_YOUR_TURN"
        with pytest.raises(Unauthenticated):
            await client.seat(game.name, "forged")


async def test_async_unavailable_after_the_retries() -> None:
    async with AsyncClient(f"127.0.0.1:{free_port()}", retry=FAST, timeout=2) as client:
        with pytest.raises(Unavailable):
            await client.rules.list_variants()


def test_rules_helpers(server: ThreadServer) -> None:
    with Client(server.address) as client:
        run = client.rules.validate_meld("QH KH AH", "ramino51")
        assert run.valid and run.meld is not None and run.meld.value == 30
        assert run.meld.codes == ("QH", "KH", "AH") and run.meld.kind.value == "run"
        wrong = client.rules.validate_meld(["QH", "KH", "AH"], "rummy")
        assert not wrong.valid and wrong.reason == "ACE_HIGH_NOT_ALLOWED"
        high = client.rules.validate_meld("QH KH AH", "rummy", overrides={"ace_high": True})
        assert high.valid
        analysis = client.rules.analyze_hand(
            "AS 2S 3S QH KH AH JK TD TC", "ramino51", table=["5D 6D 7D"]
        )
        assert analysis.best_opening is not None and analysis.best_opening.value >= 51
        assert analysis.min_deadwood.value == 0 and analysis.penalty > 0
        assert {lo.card.code for lo in analysis.lay_offs} <= {"JK", "4D", "8D"}
        variants = {v.name: v for v in client.rules.list_variants()}
        assert set(variants) == {"ramino51", "rami51", "rummy", "gin"}
        assert variants["ramino51"].parameters["open_threshold"] == 51
        with pytest.raises(InvalidArgument):
            client.rules.validate_meld("QH KH ZZ")


async def test_list_bot_levels_names_every_level_weakest_first_with_its_rating(
    server: ThreadServer,
) -> None:
    """The levels a person picks from, as both clients give them: the SDK's
    BotLevel of each, weakest first, its sentence, the server's time a
    decision for the searching levels, and its rating (mu - 3 sigma)."""
    with Client(server.address) as client:
        levels = client.rules.list_bot_levels()
    assert [b.level for b in levels] == [
        BotLevel.EASY,
        BotLevel.MEDIUM,
        BotLevel.HARD,
        BotLevel.EXPERT,
    ]
    for b in levels:
        assert b.description
        assert b.rating == pytest.approx(b.rating_mu - 3 * b.rating_sigma)
        assert (b.time_ms > 0) == (b.level in (BotLevel.HARD, BotLevel.EXPERT))
    async with AsyncClient(server.address) as aclient:
        assert await aclient.rules.list_bot_levels() == levels
