"""``ramino-play``: play a game against bots from the terminal, through the
server, with the Python SDK. The ``play`` extra of ramino-client installs it
with rich; the server's ``ramino play`` runs the same command.

A line-oriented loop: when it is your turn the board is shown (your hand
sorted and grouped by suit with short numbers, the table melds, the discard
pile, the stock, the scores) and you type a command; while the others play,
their moves are printed as the game's watch stream brings them. The client
knows no rules: what is legal and what the hints say come from the server.

Small modules: :mod:`.commands` reads a typed line into a move and
:mod:`.render` draws what the screen shows, both pure functions;
:mod:`.words` holds every word in English, Italian and Ukrainian;
:mod:`.session` is the loop that wires them to the seat; this module reads
the command line, chooses the language and takes the seat.
"""

from __future__ import annotations

import argparse
import getpass
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ramino_client.errors import ServiceError
from ramino_client.models import BotLevel
from ramino_client.play import words
from ramino_client.play.commands import Refused, bots, overrides
from ramino_client.play.words import level, t
from ramino_client.quick import PARTY_LOOK
from ramino_client.sync import Client, Seat

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["DESCRIPTION", "add_arguments", "add_parser", "main", "run"]

DESCRIPTION = (
    "Start a game against bots on a Ramino server (or join one) and play it with the keyboard."
)
NEEDS_RICH = (
    "ramino-play needs the play extra of ramino-client (rich): " "pip install 'ramino-client[play]'"
)


def _env(name: str, default: str) -> str:
    return os.environ.get(f"RAMINO_{name}", default)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``play`` as a subcommand (the server's ``ramino play``)."""
    p = sub.add_parser(
        "play", help="play a game against bots in the terminal", description=DESCRIPTION
    )
    add_arguments(p)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        default=_env("SERVER", "localhost:50051"),
        metavar="HOST:PORT",
        help="the server [RAMINO_SERVER; default localhost:50051]",
    )
    p.add_argument("--variant", default="ramino51", help="ramino51, rami51, rummy or gin")
    p.add_argument(
        "--bots",
        default="greedy",
        help="the bots you play against, by level, e.g. greedy,random (default: greedy)",
    )
    p.add_argument(
        "--levels",
        action="store_true",
        help="list the server's bot levels (how each plays, its time, its rating) and quit",
    )
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument("--game", default=None, help="join this game (games/ID) instead of starting one")
    p.add_argument("--seat", type=int, default=None, help="with --game: the seat to take")
    p.add_argument("--token", default=None, help="with --game: come back to your seat")
    p.add_argument(
        "--invite",
        default=None,
        metavar="CODE",
        help="join the private game of this invite code (or its link) a friend shared",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="PARAM=VALUE",
        help="override a variant parameter (JSON value), e.g. --set max_rounds=3",
    )
    p.add_argument(
        "--turn-timer", type=int, default=0, help="seconds per turn before a bot plays it"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="quick play: wait for a game with other players of your level (needs a "
        "player token: --player-token or RAMINO_PLAYER_TOKEN)",
    )
    p.add_argument(
        "--seats",
        default="2-4",
        metavar="MIN-MAX",
        help="with --quick: the table sizes you accept (default 2-4)",
    )
    p.add_argument("--unrated", action="store_true", help="with --quick: a game that rates no one")
    p.add_argument(
        "--party",
        nargs="?",
        const="new",
        default=None,
        metavar="parties/ID",
        help="with --quick: play with friends. Alone: lead a new party, invite the players "
        "of --with, wait until they join, then queue together; with a party's name and "
        "--invitation: join it and take your seat when its leader queues",
    )
    p.add_argument(
        "--with",
        dest="with_players",
        action="append",
        default=[],
        metavar="PLAYER",
        help="with --party: a player to invite (their player id), once per player",
    )
    p.add_argument(
        "--invitation", default=None, help="with --party parties/ID: the invitation you were sent"
    )
    p.add_argument(
        "--lang",
        choices=words.LANGS,
        default=None,
        help="the language of the words: en, it or uk [RAMINO_LANG; default: the system's "
        "language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) if it is one of them, else en]",
    )
    p.add_argument(
        "--player-token",
        default=_env("PLAYER_TOKEN", "") or None,
        help="your player token of the host (a server that knows players) [RAMINO_PLAYER_TOKEN]",
    )
    p.set_defaults(func=run)


def main(argv: Sequence[str] | None = None) -> int:
    """``ramino-play``, the console script (also ``python -m ramino_client.play``)."""
    parser = argparse.ArgumentParser(prog="ramino-play", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace, console: Console | None = None) -> int:
    """Takes a seat as the arguments say, then plays it until the person leaves."""
    try:
        from rich.console import Console
        from rich.markup import escape

        from ramino_client.play.session import Session
    except ImportError as e:
        if e.name is None or not e.name.startswith("rich"):
            raise
        raise SystemExit(NEEDS_RICH) from None
    console = console or Console(highlight=False)
    words.set_lang(words.choose(getattr(args, "lang", None)))
    try:
        levels = bots(args.bots)
    except Refused as e:
        raise SystemExit(f"ramino-play: {e}") from None
    with Client(args.server, player_token=args.player_token) as client:
        if args.levels:
            return _list_levels(client, console)
        try:
            seat = _take_seat(client, args, levels, console)
        except ServiceError as e:
            console.print(t("cannotStart", message=escape(e.message or e.reason), reason=e.reason))
            return 1
        except KeyboardInterrupt:
            return 130
        return Session(seat, console).run()


def _default_name() -> str:
    try:
        return getpass.getuser() or "you"
    except (KeyError, OSError):
        return "you"


def _take_seat(
    client: Client, args: argparse.Namespace, levels: list[BotLevel], console: Console
) -> Seat:
    from rich.markup import escape

    name = args.name or _default_name()
    if args.game and args.token:
        return client.seat(args.game, args.token)
    if args.game:
        return client.join(args.game, name, args.seat)
    if args.invite:
        seat = client.join_invite(args.invite, name, args.seat)
        console.print(t("joinedInvite", game=seat.name, seat=seat.seat))
        return seat
    if args.quick:
        return _quick_seat(client, args, name, console)
    if not levels:
        raise SystemExit(t("needBot"))
    game = client.create_game(
        args.variant,
        seats=[name, *levels],
        overrides=overrides(args.set),
        turn_timer_seconds=args.turn_timer,
    )
    ratings = _ratings(client)
    against = ", ".join(
        t("botRating", level=level(b.value), rating=f"{ratings[b]:.1f}")
        if b in ratings
        else level(b.value)
        for b in levels
    )
    console.print(
        t("started", game=game.name, variant=game.variant, bots=against, server=escape(args.server))
    )
    return client.join(game.name, name)


def _ratings(client: Client) -> dict[BotLevel, float]:
    """Each level's rating on the server's scale; none from a server that
    does not list its levels (an older one)."""
    try:
        return {info.level: info.rating for info in client.rules.list_bot_levels()}
    except ServiceError:
        return {}


def _list_levels(client: Client, console: Console) -> int:
    """``--levels``: the server's bot levels as a table, weakest first."""
    from rich.markup import escape
    from rich.table import Table

    try:
        infos = client.rules.list_bot_levels()
    except ServiceError as e:
        console.print(t("levels.cannot", message=escape(e.message or e.reason)))
        return 1
    table = Table(
        t("levels.level"),
        t("levels.rating"),
        t("levels.time"),
        t("levels.how"),
        title=t("levels.title"),
    )
    for info in infos:
        time = f"{info.time_ms:g} ms" if info.time_ms else "-"
        table.add_row(info.level.value, f"{info.rating:.1f}", time, escape(info.description))
    console.print(table)
    console.print(t("levels.note"))
    return 0


def _seat_range(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise SystemExit(t("seatsRange", text=repr(text))) from None


def _quick_seat(client: Client, args: argparse.Namespace, name: str, console: Console) -> Seat:
    """A seat found by quick play, telling the wait as it goes."""
    from rich.markup import escape

    if not args.player_token:
        raise SystemExit(t("quick.needToken"))
    low, high = _seat_range(args.seats)
    party = ""
    if args.party and args.party != "new":
        if not args.invitation:
            raise SystemExit(t("quick.needInvitation"))
        return _party_seat(client, args, name, console)
    if args.party:
        party = _lead_party(client, args, name, console)
    for update in client.quick.submit(
        args.variant,
        name,
        min_seats=low,
        max_seats=high,
        rated=not args.unrated,
        overrides=overrides(args.set),
        party=party,
    ):
        if update.state == "matched":
            against = ", ".join(
                t("quick.botOpponent", name=escape(o.player_name), level=level(o.bot.value))
                if o.bot
                else f"{escape(o.player_name)} ({o.rating:.1f})"
                for o in update.opponents
            )
            if against:
                console.print(
                    t("quick.foundAgainst", game=update.game, seat=update.seat, against=against)
                )
            else:
                console.print(t("quick.found", game=update.game, seat=update.seat))
            return client.seat(update.game, update.seat_token)
        if update.final:
            raise SystemExit(t("quick.ended", state=update.state))
        wait = t("quick.wait", s=f"{update.expected_wait:.0f}") if update.expected_wait else ""
        console.print(
            t(
                "quick.searching",
                variant=args.variant,
                low=low,
                high=high,
                window=f"{update.rating_window:g}",
                waiting=update.queue_size,
                wait=wait,
            )
        )
    raise SystemExit(t("quick.endedPlain"))


def _lead_party(client: Client, args: argparse.Namespace, name: str, console: Console) -> str:
    """A new party, each player of ``--with`` invited (the line each one
    runs is printed) and waited for; its name."""
    from rich.markup import escape

    if not args.with_players:
        raise SystemExit(t("party.needWith"))
    party = client.quick.create_party(name)
    for player in args.with_players:
        invitation = client.quick.invite_to_party(party.name, player)
        command = (
            f"ramino play --quick --variant {args.variant} --party {party.name} "
            f"--invitation {invitation.invitation}"
        )
        console.print(t("party.invited", player=escape(player), command=command))
    joined: set[str] = set()
    while joined != set(args.with_players):
        time.sleep(PARTY_LOOK)
        members = {m.player: m.player_name for m in client.quick.get_party(party.name).members}
        for player in sorted(members.keys() - joined):
            console.print(t("party.joined", name=escape(members[player])))
        joined = set(members) & set(args.with_players)
    return party.name


def _party_seat(client: Client, args: argparse.Namespace, name: str, console: Console) -> Seat:
    """The seat of a member of ``--party``, once its leader's ticket is matched."""
    from rich.markup import escape

    party = client.quick.join_party(args.party, args.invitation, name)
    console.print(t("party.joinedLeader", leader=escape(party.leader.player_name)))
    seat = client.quick.party_play(party.name)
    console.print(t("quick.found", game=seat.name, seat=seat.seat))
    return seat
