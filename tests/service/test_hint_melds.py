"""The hint names melds to lay whether or not the seat has opened: before,
the best opening; after, the melds of the least deadwood, which the seat
can lay as they are."""

from __future__ import annotations

from typing import Any

from ramino.app import GameApp, SeatSpec
from ramino.app.games.outcomes import LegalMoves
from ramino.engine import Command, Discard, DrawFromStock, LayMelds
from ramino.store.memory import MemoryStore

SEED = 20261130


def keep_melds(legal: LegalMoves, opened: bool) -> Command:
    """Opens when it can, then only draws and discards the hinted card, so
    that melds gather in the hand after opening."""
    commands = [m for m, _ in legal.moves]
    if not opened:
        lay = next((m for m in commands if isinstance(m, LayMelds)), None)
        if lay is not None:
            return lay
    draw = next((m for m in commands if isinstance(m, DrawFromStock)), None)
    if draw is not None:
        return draw
    assert legal.hint is not None
    discards = [m for m in commands if isinstance(m, Discard)]
    return next((m for m in discards if m.card == legal.hint.discard[1]), discards[0])


def ids_of(melds: list[list[str]], hand: list[int], deck: Any) -> tuple[tuple[int, ...], ...]:
    """The hand's card ids of melds named by code (a deck may hold a code twice)."""
    free = list(hand)
    out = []
    for meld in melds:
        ids = []
        for code in meld:
            card = next(c for c in free if deck[c] == code)
            free.remove(card)
            ids.append(card)
        out.append(tuple(ids))
    return tuple(out)


async def test_after_opening_the_hint_names_the_melds_in_the_hand_and_they_can_be_laid() -> None:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED, run_duties=False)
    game = await app.create("ramino51", {}, [SeatSpec("ann", None), SeatSpec("bo", None)])
    for seat, who in enumerate(("ann", "bo")):
        await app.join(game.game_id, seat, who)
    checked = 0
    for _ in range(600):
        hosted = await app.load(game.game_id)
        if hosted.status == "finished" or hosted.engine is None or hosted.engine.turn is None:
            break
        seat = hosted.engine.turn
        view = hosted.engine.view(seat)
        opened = view.seats[seat].opened
        legal = await app.legal(game.game_id, seat)
        hint = legal.hint
        can_lay = any(isinstance(m, LayMelds) for m, _ in legal.moves)
        if opened and can_lay and hint is not None and hint.deadwood.melds:
            # Opened, in the play phase, melds in the hand: the hint names them.
            assert hint.opening is not None
            named = sorted(map(sorted, hint.opening.melds))
            assert named == sorted(map(sorted, hint.deadwood.melds))
            assert hint.opening.value > 0
            lay = LayMelds(ids_of(hint.opening.melds, list(view.hand or ()), view.deck))
            before = hosted.version
            await app.move(game.game_id, seat, lay, None, None)
            after = await app.load(game.game_id)
            assert after.version > before  # the engine took them as they are
            checked += 1
            if checked >= 3:
                break
            continue
        await app.move(game.game_id, seat, keep_melds(legal, opened), None, None)
    assert checked >= 1
