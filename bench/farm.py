"""A bot farm in one process (issue 35): figures only, nothing asserted.

``ramino serve`` (memory store, its default limits: 100 streams a
connection) and, in this process, one :class:`~ramino_client.AsyncClient`
that creates ``--games`` two-seat games, joins both seats of each, and plays
every seat on its own PlayGame session from the options the server pushes
(``AsyncSession.play``, as ``play_seat_async`` does; a simple policy: draw,
meld, lay off, the hinted discard), every game to its end. It prints games
finished, moves, refusals, sessions reopened, moves/s, the server's CPU a
move and the connections the client opened.

Beside it, the baseline: the same number of sessions opened on one
connection, as the SDK did before it spread its streams (a client whose
``streams_per_connection`` is past the server's limit), each reading its
first update; the refusals (``TOO_MANY_STREAMS``) are counted and nothing
is played.

``--sdk go`` plays the same farm with the Go SDK instead
(``clients/go/cmd/ramino-farm``, built here with ``go build``: one Go
process, one client, ``bot.PlaySession`` on every seat); ``--sdk both``
runs the two, each against a server of its own.

    .venv/bin/python bench/farm.py                        # 500 games, 1,000 seats
    .venv/bin/python bench/farm.py --sdk both
    .venv/bin/python bench/farm.py --games 100 --variant ramino51 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import load
from ramino_client import (
    AsyncClient,
    AsyncSeat,
    Discard,
    DrawFromStock,
    GameStatus,
    GameView,
    LegalMoves,
    Move,
    ServiceError,
    TakeDiscard,
    TurnOverDiscardPile,
)

GO_SDK = Path(__file__).resolve().parent.parent / "clients" / "go"


def choose(legal: LegalMoves, view: GameView | None) -> Move:
    """Draw (the stock first), meld what the server proposes, lay off, then
    the hinted discard."""
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
    return legal.moves[0]


@dataclass
class Farm:
    """What one run of the farm did."""

    sessions: int = 0
    games_finished: int = 0
    moves: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    connections: int = 0
    reopened: int = 0


@dataclass(frozen=True)
class Spec:
    games: int
    variant: str
    rounds: int

    @property
    def overrides(self) -> dict[str, int]:
        """A match of ``rounds`` rounds, whatever the scores."""
        return {"max_rounds": self.rounds, "target_score": 0}


async def seats_of(client: AsyncClient, spec: Spec) -> list[AsyncSeat]:
    """Both seats of ``spec.games`` new two-person games, created ten at a time."""
    games = spec.games

    async def one() -> list[AsyncSeat]:
        game = await client.create_game(spec.variant, ["ann", "bo"], overrides=spec.overrides)
        return [await client.join(game.name, who) for who in ("ann", "bo")]

    seats: list[AsyncSeat] = []
    for start in range(0, games, 10):
        for pair in await asyncio.gather(*(one() for _ in range(min(10, games - start)))):
            seats += pair
    return seats


async def baseline(address: str, spec: Spec) -> Farm:
    """The sessions of ``spec.games`` games on one connection, each read once."""
    async with AsyncClient(address, streams_per_connection=1 << 30) as client:
        seats = await seats_of(client, spec)
        sessions = [seat.session() for seat in seats]
        out = Farm(sessions=len(sessions))

        async def first(i: int) -> None:
            try:
                await anext(sessions[i])
            except ServiceError as e:
                out.refusals[e.reason] += 1

        await asyncio.gather(*(first(i) for i in range(len(sessions))))
        out.connections = len(client._streams.channels)
        for session in sessions:
            await session.close()
        return out


async def farm(address: str, server_pid: int, spec: Spec) -> Farm:
    """Every seat of ``spec.games`` games played to the end on its session."""
    async with AsyncClient(address) as client:
        seats = await seats_of(client, spec)
        out = Farm(sessions=len(seats))

        def counted(legal: LegalMoves, view: GameView | None) -> Move:
            out.moves += 1
            return choose(legal, view)

        async def play(seat: AsyncSeat) -> None:
            # play_seat_async's own steps, the session kept to count its reopenings
            async with seat.session() as session:
                try:
                    await session.play(counted)
                except ServiceError as e:
                    out.refusals[e.reason] += 1
                out.reopened += session.reconnects

        cpu0, client0, t0 = load.tree_cpu(server_pid), time.process_time(), time.perf_counter()
        await asyncio.gather(*(play(seat) for seat in seats))
        out.seconds = time.perf_counter() - t0
        out.server_cpu = load.tree_cpu(server_pid) - cpu0
        out.client_cpu = time.process_time() - client0
        out.connections = len(client._streams.channels)
        names = sorted({seat.name for seat in seats})
        views = await asyncio.gather(*(client.get_game(name) for name in names))
        out.games_finished = sum(v.status == GameStatus.FINISHED for v in views)
        return out


def report(games: int, before: Farm | None, after: Farm) -> None:
    """The two runs side by side, a row a figure."""

    def refused(f: Farm) -> str:
        total = sum(f.refusals.values())
        reasons = ", ".join(f"{k} {v}" for k, v in f.refusals.items())
        return f"{total} ({reasons})" if total else "0"

    def per_move(seconds: float, f: Farm) -> str:
        return f"{1000 * seconds / f.moves:.2f} ms" if f.moves else "-"

    def cells(f: Farm) -> list[str]:
        return [
            f"{f.sessions:,}",
            f"{f.connections}",
            refused(f),
            f"{f.reopened}" if f.moves else "-",
            f"{f.games_finished} of {games}",
            f"{f.moves:,}",
            f"{f.seconds:.1f} s",
            f"{f.moves / f.seconds:,.0f}" if f.seconds else "-",
            per_move(f.server_cpu, f),
            per_move(f.client_cpu, f),
        ]

    names = [
        "sessions (seats)",
        "connections the client opened",
        "sessions refused",
        "sessions reopened",
        "games played to their end",
        "moves",
        "wall time",
        "moves/s",
        "server CPU a move",
        "client CPU a move",
    ]
    columns = [
        ["", *names],
        ["one connection (before)", *(cells(before) if before else ["-"] * len(names))],
        ["spread (this SDK)", *cells(after)],
    ]
    widths = [max(map(len, c)) for c in columns]
    for i in range(len(names) + 1):
        first, *rest = (c[i] for c in columns)
        print(
            "  ".join(
                [
                    first.ljust(widths[0]),
                    *(x.rjust(w) for x, w in zip(rest, widths[1:], strict=True)),
                ]
            )
        )
    if before:
        print("(before: the sessions opened and read once, nothing played)")


def go_farm(procs: load.Processes, spec: Spec) -> None:
    """The Go SDK's farm (``cmd/ramino-farm``) against a server of its own."""
    binary = procs.dir / "ramino-farm"
    subprocess.run(["go", "build", "-o", str(binary), "./cmd/ramino-farm"], cwd=GO_SDK, check=True)
    (server,) = load.start_servers(procs, "memory", 1, "warning", "farm-go")
    argv = [
        str(binary), "-server", server.address, "-server-pid", str(server.process.pid),
        "-games", str(spec.games), "-variant", spec.variant, "-rounds", str(spec.rounds),
    ]  # fmt: skip
    subprocess.run(argv, check=True)
    procs.stop(server.process)


async def main_async(args: argparse.Namespace) -> None:
    procs = load.Processes(keep=False)
    spec = Spec(args.games, args.variant, args.rounds)
    try:
        if args.sdk in ("python", "both"):
            (server,) = load.start_servers(procs, "memory", 1, "warning", "farm")
            before = None if args.no_baseline else await baseline(server.address, spec)
            after = await farm(server.address, server.process.pid, spec)
            print(
                f"{spec.games} two-seat {spec.variant} games of {spec.rounds} round(s), "
                "every seat on its own session, one Python process:"
            )
            report(spec.games, before, after)
            procs.stop(server.process)
        if args.sdk in ("go", "both"):
            go_farm(procs, spec)
    finally:
        procs.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=500)
    p.add_argument("--variant", default="rummy")
    p.add_argument("--rounds", type=int, default=1, help="rounds a match (max_rounds)")
    p.add_argument("--no-baseline", action="store_true", help="skip the one-connection run")
    p.add_argument("--sdk", choices=("python", "go", "both"), default="python")
    asyncio.run(main_async(p.parse_args()))


if __name__ == "__main__":
    main()
