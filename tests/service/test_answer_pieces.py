"""What a move's answer is made of, made cheaper and still the same: legal
moves and the hint are computed once per state of a game and seat (a move's
answer and a GetLegalMoves after it share one computation, which must equal
a fresh one, and every move makes a new one), and a view's cards, melds and
rounds, and the legal moves, are joined from their encoded pieces, equal to
messages built one by one."""

from __future__ import annotations

from typing import Any

import ramino
from ramino.api import convert
from ramino.api.messages import Messages, legal_move
from ramino.app import GameApp, HostedGame, SeatSpec
from ramino.app.games.outcomes import LegalMoves, MoveOutcome, legal_moves, seen_game
from ramino.engine import Command, Discard, DrawFromStock, LayMelds, TakeDiscard
from ramino.store.memory import MemoryStore
from ramino.v1 import game_pb2

SEED = 20261130


MESSAGES = Messages()


def encoded(game: HostedGame, legal: LegalMoves) -> bytes:
    """What the transport sends of ``legal`` (pieces of the core have no
    equality of their own)."""
    response = game_pb2.GetLegalMovesResponse(version=legal.version)
    MESSAGES.legal(game.public_header(), legal, response, response.hint)
    return response.SerializeToString(deterministic=True)


def fresh(game: HostedGame, seat: int) -> LegalMoves:
    assert game.engine is not None
    return legal_moves(game, seat, game.engine.view(seat))


def pick(legal: LegalMoves) -> Command:
    """Melds first, then a draw, then the hinted discard."""
    commands = [m for m, _ in legal.moves]
    for kind in (LayMelds, DrawFromStock, TakeDiscard):
        for m in commands:
            if isinstance(m, kind):
                return m
    discards = [m for m in commands if isinstance(m, Discard)]
    assert legal.hint is not None and discards
    hinted = legal.hint.discard[1]
    return next((m for m in discards if m.card == hinted), discards[0])


async def seated_game(app: GameApp) -> str:
    game = await app.create("rummy", {}, [SeatSpec("ann", None), SeatSpec("bo", None)])
    for seat, who in enumerate(("ann", "bo")):
        await app.join(game.game_id, seat, who)
    return game.game_id


async def test_cached_legal_moves_equal_a_fresh_computation_and_every_move_renews_them() -> None:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED, run_duties=False)
    game_id = await seated_game(app)
    answered = openings = 0
    for _ in range(120):
        game = await app.load(game_id)
        if game.status == "finished":
            break
        assert game.engine is not None and game.engine.turn is not None
        seat = game.engine.turn
        legal = await app.legal(game_id, seat)
        assert legal.version == game.version
        assert encoded(game, legal) == encoded(game, fresh(game, seat))
        again = await app.legal(game_id, seat)
        assert again is legal  # served from the cache, not computed again
        other = await app.legal(game_id, 1 - seat)  # the other seat: its own entry
        assert encoded(game, other) == encoded(game, fresh(game, 1 - seat))

        outcome: Any = await app.move(game_id, seat, pick(legal), None, None)
        assert isinstance(outcome, MoveOutcome)
        after = await app.load(game_id)
        assert after.version > legal.version
        if outcome.legal is not None:
            answered += 1
            # The answer's legal moves are those of the new state, and what a
            # GetLegalMoves right after the move gets, computed once.
            assert outcome.legal.version == after.version
            assert encoded(after, outcome.legal) == encoded(after, fresh(after, seat))
            assert await app.legal(game_id, seat) is outcome.legal
            # The answer's moves, joined from their kept encodings, and its
            # hint, built in place, are those of the messages built one by one.
            result = MESSAGES.move_response(outcome, game_pb2.DrawFromStockResponse).result
            assert list(result.legal_moves) == [legal_move(*m) for m in outcome.legal.moves]
            assert outcome.legal.hint is not None
            info = MESSAGES.game_variant(after.public_header())
            assert result.hint == hint_one_by_one(info, outcome.legal.hint)
            openings += outcome.legal.hint.opening is not None
        else:
            renewed = await app.legal(game_id, seat)
            assert renewed is not legal and renewed.version == after.version
            assert encoded(after, renewed) == encoded(after, fresh(after, seat))
    assert answered > 10  # draws leave the turn with the mover: their answers carry them
    assert openings > 0


async def test_a_reloaded_game_computes_its_legal_moves_again() -> None:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED, run_duties=False)
    game_id = await seated_game(app)
    game = await app.load(game_id)
    assert game.engine is not None and game.engine.turn is not None
    seat = game.engine.turn
    first = await app.legal(game_id, seat)
    app.cache.forget(game_id)  # what a failed append does: the state is folded again
    reloaded = await app.load(game_id)
    assert reloaded is not game and reloaded.legal is None
    second = await app.legal(game_id, seat)
    assert second is not first
    assert encoded(reloaded, second) == encoded(game, first)


def hint_one_by_one(info: Any, hint: Any) -> game_pb2.Hint:
    """A Hint built message by message."""
    expected = game_pb2.Hint()
    if hint.opening is not None:
        expected.best_opening.value = hint.opening.value
        for m in hint.opening.melds:
            expected.best_opening.melds.append(MESSAGES.hint_meld(info, tuple(m)))
    expected.min_deadwood.value = hint.deadwood.value
    for m in hint.deadwood.melds:
        expected.min_deadwood.melds.append(MESSAGES.hint_meld(info, tuple(m)))
    for c in hint.deadwood.deadwood:
        expected.min_deadwood.deadwood.append(convert.card(c, None))
    expected.suggested_discard.CopyFrom(convert.card(*hint.discard))
    return expected


def pieces_one_by_one(game: HostedGame, viewer: int) -> game_pb2.GameView:
    """The repeated fields of ``viewer``'s GameView built message by message."""
    assert game.engine is not None
    view = game.engine.view(viewer)
    info = MESSAGES.game_variant(game.public_header())
    deck = view.deck
    expected = game_pb2.GameView()
    for r in view.results:
        scores = expected.rounds.add(round=r.round, scores=list(r.scores), ending=r.ending)
        if r.winner is not None:
            scores.winner = r.winner
        for seat in r.parts:
            parts = scores.parts.add()
            for p in seat:
                kind = game_pb2.ScorePartKind.Value(f"SCORE_PART_KIND_{p.kind.upper()}")
                part = parts.parts.add(kind=kind, points=p.points, base=p.base, factor=p.factor)
                if p.seat is not None:
                    part.seat = p.seat
    expected.hand.extend(convert.card(deck[c], c) for c in view.hand or ())
    for m in view.melds:
        meld = convert.meld(ramino.validate_meld([deck[c] for c in m.cards], info.variant), m.cards)
        expected.table.add(index=m.index, owner=m.owner, meld=meld)
    expected.discard_pile.extend(convert.card(deck[c], c) for c in view.discard_pile)
    return expected


async def test_view_pieces_joined_from_their_encodings_equal_those_built_one_by_one() -> None:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED, run_duties=False)
    game_id = await seated_game(app)
    seen = {"rounds": 0, "table": 0, "discard_pile": 0}
    for _ in range(400):
        game = await app.load(game_id)
        if game.status == "finished":
            break
        assert game.engine is not None and game.engine.turn is not None
        for viewer in (0, 1):
            msg = MESSAGES.view(seen_game(game, viewer))
            expected = pieces_one_by_one(game, viewer)
            for field in ("rounds", "hand", "table", "discard_pile"):
                assert list(getattr(msg, field)) == list(getattr(expected, field)), field
            for r in msg.rounds:
                # Each round's scores come explained (issue 43).
                assert [sum(p.points for p in seat.parts) for seat in r.parts] == list(r.scores)
            for field in seen:
                seen[field] = max(seen[field], len(getattr(msg, field)))
        seat = game.engine.turn
        await app.move(game_id, seat, pick(await app.legal(game_id, seat)), None, None)
    assert seen["rounds"] >= 1 and seen["table"] >= 2 and seen["discard_pile"] >= 5, seen
