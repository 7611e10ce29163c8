"""Games played through the Python SDK: a person's seat played by a simple
policy against a server-side bot, and a spectator following every event."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from ramino_client import (
    AsyncClient,
    AsyncSeat,
    AsyncWatch,
    BotLevel,
    Event,
    Snapshot,
    WatchItem,
)
from ramino_client.models import GameView
from ramino_client.moves import (
    Discard,
    DrawFromStock,
    LegalMoves,
    Move,
    TakeDiscard,
    TurnOverDiscardPile,
)

VARIANT = "ramino51"


def choose(legal: LegalMoves) -> Move | None:
    """Draw from the stock, lay what the server proposes, lay off, then
    discard the hinted card."""
    for kind in (DrawFromStock, TurnOverDiscardPile, TakeDiscard):
        for move in legal.draws:
            if isinstance(move, kind):
                return move
    if legal.melds:
        return legal.melds[0]
    if legal.lay_offs:
        return legal.lay_offs[0]
    if legal.discards:
        hint = legal.hint.suggested_discard if legal.hint else None
        if hint is not None and hint.id in {d.card_id for d in legal.discards}:
            return Discard(hint.id)
        return legal.discards[0]
    return legal.moves[0] if legal.moves else None


@dataclass
class GameRun:
    """One game: what the spectator saw and how many moves the person made."""

    name: str = ""
    seen: list[WatchItem] = field(default_factory=list)
    moves: int = 0
    spectator_reconnects: int = 0
    seat_reconnects: int = 0
    finished: bool = False
    spectator: AsyncWatch | None = None


async def play_seat(seat: AsyncSeat, run: GameRun) -> None:
    """Plays the seat's turns on its session, from the options the server
    pushes, until the match ends."""

    def counted(legal: LegalMoves, _view: GameView | None) -> Move:
        move = choose(legal)
        assert move is not None, legal
        run.moves += 1
        return move

    async with seat.session() as session:
        await session.play(counted)
        run.seat_reconnects = session.reconnects


async def spectate(client: AsyncClient, name: str, run: GameRun, started: asyncio.Event) -> None:
    async with client.watch(name) as watch:
        run.spectator = watch
        async for item in watch:
            run.seen.append(item)
            started.set()
        run.spectator_reconnects = watch.reconnects


async def play_game(
    client: AsyncClient,
    variant: str = VARIANT,
    join_when: Callable[[AsyncWatch], bool] | None = None,
    runs: list[GameRun] | None = None,
) -> GameRun:
    """A game of a person (this client) against the greedy bot, watched
    from its creation by a spectator; the person joins (and the game starts)
    once ``join_when`` holds of the spectator's watch. The game is added to
    ``runs`` as it begins."""
    run = GameRun()
    if runs is not None:
        runs.append(run)
    game = await client.create_game(variant, seats=["ann", BotLevel.GREEDY])
    run.name = game.name
    started = asyncio.Event()
    spectator = asyncio.create_task(spectate(client, game.name, run, started))
    await started.wait()
    while join_when is not None and not join_when(run.spectator):  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
    seat = await client.join(game.name, "ann")
    await play_seat(seat, run)
    await spectator
    run.finished = (await client.get_game(game.name)).finished
    return run


def consecutive(items: list[WatchItem]) -> bool:
    """A snapshot, then each event once, versions one apart."""
    if not items or not isinstance(items[0], Snapshot):
        return False
    versions = [i.version for i in items]
    return all(isinstance(i, Event) for i in items[1:]) and versions == list(
        range(versions[0], versions[0] + len(versions))
    )
