"""``ramino-play`` (and the server's ``ramino play``, which runs it): play a
game against bots from the terminal, through the server, with the Python SDK.
Installed by the ``play`` extra of ramino-client, which brings rich.

A line-oriented loop: when it is your turn the board is shown (your hand
sorted and grouped by suit with short numbers, the table melds, the discard
pile, the stock, the scores) and you type a command; while the others play,
their moves are printed as the game's watch stream brings them. The client
knows no rules: what is legal and what the hints say come from the server.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ramino_client import (
    BotLevel,
    Card,
    Client,
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    End,
    Event,
    GameEnded,
    GameStatus,
    GameView,
    JokerSwapped,
    Knock,
    Knocked,
    LaidOff,
    LayoutAccepted,
    LegalMoves,
    MatchEnded,
    Meld,
    MeldsLaid,
    MoveRejected,
    MoveResult,
    PassedUpcard,
    PassUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    Seat,
    SeatJoined,
    SeatReclaimed,
    SeatTimedOut,
    ServiceError,
    Snapshot,
    StaleVersion,
    StockReshuffled,
    Suit,
    TableMeld,
    TookDiscard,
    TurnOverDiscardPile,
    TurnPhase,
    Watch,
    WatchItem,
    sort_cards,
)

HELP = """\
[bold]Commands[/bold] (cards by their number in your hand, or by code like [cyan]KD[/cyan], \
[cyan]10h[/cyan], [cyan]jk[/cyan]):
  [cyan]d[/cyan]                        draw from the stock
  [cyan]t[/cyan]                        take the top card of the discard pile
  [cyan]u[/cyan]                        turn the discard pile over (when the stock is empty)
  [cyan]m 1 2 3 / 4 5 6[/cyan]          lay melds (a run in ascending order)
  [cyan]o <card> <meld> \\[start|end][/cyan]  lay a card off on a table meld
  [cyan]s <card> <meld> \\[joker][/cyan]     give a card for a table meld's joker
  [cyan]x <card>[/cyan]                 discard (ends your turn)
  gin: [cyan]p[/cyan] pass the upcard · [cyan]k[/cyan] knock (the best knock) · \
[cyan]k <card>[/cyan] knock discarding that card · [cyan]k <card> 1 2 3 / 4 5 6[/cyan] \
knock with those melds · [cyan]a[/cyan] accept the layout (the defender, after laying off)
  [cyan]h[/cyan]                        hints: what you can meld, lay off, discard
  [cyan]b[/cyan]                        show the board again
  [cyan]q[/cyan]                        resign and quit
  [cyan]?[/cyan]                        this help"""

_SUIT_STYLE = {Suit.HEARTS: "bold red", Suit.DIAMONDS: "bold red"}


class _Refused(Exception):
    """A command that cannot be sent as typed."""


def _env(name: str, default: str) -> str:
    return os.environ.get(f"RAMINO_{name}", default)


DESCRIPTION = (
    "Start a game against bots on a Ramino server (or join one) and play it with the keyboard."
)


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
    p.add_argument("--variant", default="ramino51", help="ramino51, rami51 or rummy")
    p.add_argument(
        "--bots",
        default="greedy",
        help="the bots you play against, by level, e.g. greedy,random (default: greedy)",
    )
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument("--game", default=None, help="join this game (games/ID) instead of starting one")
    p.add_argument("--seat", type=int, default=None, help="with --game: the seat to take")
    p.add_argument("--token", default=None, help="with --game: come back to your seat")
    p.add_argument(
        "--set",
        action="append",
        metavar="PARAM=VALUE",
        help="override a variant parameter (JSON value), e.g. --set max_rounds=3",
    )
    p.add_argument(
        "--turn-timer", type=int, default=0, help="seconds per turn before a bot plays it"
    )
    p.set_defaults(func=run)


def _overrides(items: Sequence[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or ():
        key, _, raw = item.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _bots(text: str) -> list[BotLevel]:
    levels = []
    for word in text.replace(" ", "").split(","):
        if not word:
            continue
        try:
            levels.append(BotLevel(word.lower()))
        except ValueError:
            choices = ", ".join(b.value for b in BotLevel)
            raise SystemExit(f"ramino-play: unknown bot {word!r} (choose from {choices})") from None
    return levels


def run(args: argparse.Namespace, console: Console | None = None) -> int:
    console = console or Console(highlight=False)
    name = args.name or _default_name()
    with Client(args.server) as client:
        try:
            seat = _take_seat(client, args, name, console)
        except ServiceError as e:
            console.print(
                f"[red]Cannot start:[/red] {escape(e.message or e.reason)} [dim]({e.reason})[/dim]"
            )
            return 1
        except KeyboardInterrupt:
            return 130
        return Session(seat, console).run()


def _default_name() -> str:
    try:
        return getpass.getuser() or "you"
    except (KeyError, OSError):
        return "you"


def _take_seat(client: Client, args: argparse.Namespace, name: str, console: Console) -> Seat:
    if args.game and args.token:
        return client.seat(args.game, args.token)
    if args.game:
        return client.join(args.game, name, args.seat)
    bots = _bots(args.bots)
    if not bots:
        raise SystemExit("ramino-play: name at least one bot with --bots")
    game = client.create_game(
        args.variant,
        seats=[name, *bots],
        overrides=_overrides(args.set),
        turn_timer_seconds=args.turn_timer,
    )
    console.print(
        f"Started [bold]{game.name}[/bold] ({game.variant}) against "
        + ", ".join(b.value for b in bots)
        + f" on {escape(args.server)}."
    )
    return client.join(game.name, name)


@dataclass
class _Numbering:
    """The numbers of the cards and melds as last shown."""

    hand: list[Card]
    table: list[TableMeld]


class Session:
    """One person playing one seat."""

    def __init__(
        self,
        seat: Seat,
        console: Console,
        read: Callable[[str], str] | None = None,
    ) -> None:
        self.seat = seat
        self.console = console
        self._read = read or (lambda prompt: console.input(prompt))
        self.cards: dict[int, Card] = {}
        self.view: GameView = seat.last_view or seat.view()
        self.watched = self.view.version
        """The version of the last event told."""
        self.items: queue.Queue[WatchItem | BaseException | None] = queue.Queue()
        self.numbering = _Numbering([], [])
        self.legal: LegalMoves | None = None
        self._shown_version = -1
        self._waiting_note = ""
        self.fresh: set[int] = set()
        """Cards that came to the hand this turn, shown highlighted."""
        self._learn(self.view)

    # --- the loop -----------------------------------------------------------

    def run(self) -> int:
        watch = self.seat.watch(after_version=self.view.version)
        follower = threading.Thread(target=self._follow, args=(watch,), daemon=True)
        follower.start()
        self._intro()
        try:
            return self._loop()
        except (KeyboardInterrupt, EOFError):
            self.console.print()
            self._goodbye()
            return 0
        except ServiceError as e:
            self.console.print(
                f"[red]Lost the server:[/red] {escape(e.message or e.reason)} "
                f"[dim]({e.reason})[/dim]"
            )
            self._goodbye()
            return 1
        finally:
            watch.cancel()
            follower.join(timeout=2)

    def _follow(self, watch: Watch) -> None:
        try:
            for item in watch:
                self.items.put(item)
        except BaseException as e:  # handed to the main thread, which reports it
            self.items.put(e)
        self.items.put(None)

    def _loop(self) -> int:
        while True:
            if not self._sync():
                return 1
            if self.view.finished:
                self._final()
                return 0
            if self.view.my_turn:
                if not self._turn():
                    return 0
                continue
            self._announce_wait()
            if not self._pump(timeout=1.0):
                return 1

    def _sync(self) -> bool:
        """Takes the latest view, and tells every event up to it (the feed may
        lag the view a little: the story is told in the feed's order)."""
        self._refresh()
        deadline = time.monotonic() + 5.0
        while self.watched < self.view.version:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if not self._pump(timeout=left):
                return False
        return True

    def _pump(self, timeout: float) -> bool:
        """Tells what the feed brings within ``timeout`` seconds; False when
        the feed has failed."""
        try:
            first = self.items.get(timeout=timeout)
        except queue.Empty:
            return True
        batch = [first]
        while True:
            try:
                batch.append(self.items.get_nowait())
            except queue.Empty:
                break
        for item in batch:
            if isinstance(item, BaseException):
                self.console.print(f"[red]Lost the game's feed:[/red] {escape(str(item))}")
                return False
            if item is None:  # the match is over: the feed has ended
                self.watched = max(self.watched, self.view.version)
            elif isinstance(item, Snapshot):
                self._learn(item.view)
                self.watched = item.version
            elif item.version > self.watched:
                if any(c not in self.cards for c in _card_ids(item)):
                    self._refresh()  # the cards are in the view now, or never again
                self._tell(item)
                self.watched = item.version
        return True

    def _refresh(self) -> None:
        if self.view.finished:
            return
        self.view = self.seat.view()
        self._learn(self.view)

    def _learn(self, view: GameView) -> None:
        for c in view.visible_cards():
            if c.id is not None:
                self.cards[c.id] = c

    # --- your turn ----------------------------------------------------------

    def _turn(self) -> bool:
        """One prompt; False when the person quits."""
        if self._shown_version != self.view.version:
            if self.legal is None or self.legal.version != self.view.version:
                self.legal = self.seat.legal_moves()
            self._board()
            self._shown_version = self.view.version
        self._flush_typeahead()
        try:
            line = self._read(self._prompt()).strip()
        except EOFError:
            self.console.print()
            self._goodbye()
            return False
        if not line:
            return True
        word, _, rest = line.partition(" ")
        word = word.lower()
        if word in ("q", "quit", "resign"):
            return self._quit()
        if word in ("?", "help"):
            self.console.print(HELP)
            return True
        if word in ("b", "board"):
            self._board()
            return True
        if word in ("h", "hint", "hints"):
            self._hints(full=True)
            return True
        try:
            result = self._command(word, rest.split())
        except _Refused as e:
            self.console.print(f"[yellow]{escape(str(e))}[/yellow]")
            return True
        except StaleVersion:
            self.console.print("[yellow]The game moved on meanwhile; here it is now.[/yellow]")
            self._refresh()
            self._shown_version = -1
            return True
        except MoveRejected as e:
            self.console.print(
                f"[red]Refused:[/red] {escape(e.message or e.reason)} [dim]({e.reason})[/dim]"
            )
            return True
        except ServiceError as e:
            self.console.print(
                f"[red]The server said no:[/red] {escape(e.message or e.reason)} "
                f"[dim]({e.reason})[/dim]"
            )
            return True
        if result is not None:
            for event in result.events:
                if isinstance(event, DrewFromStock | TookDiscard) and event.card is not None:
                    self.fresh.add(event.card)
                elif isinstance(event, JokerSwapped):
                    self.fresh.add(event.joker)
            if not result.view.my_turn:
                self.fresh.clear()
            self._learn(result.view)
            self.view = result.view
            if result.legal_moves is not None:
                self.legal = result.legal_moves
        return True

    def _command(self, word: str, args: list[str]) -> MoveResult | None:
        v = self.view.version
        seat = self.seat
        if word in ("d", "draw"):
            return seat.draw_from_stock(expected_version=v)
        if word in ("t", "take"):
            return seat.take_discard(expected_version=v)
        if word in ("u", "turn"):
            return seat.play(TurnOverDiscardPile(), expected_version=v)
        if word in ("m", "meld"):
            return seat.lay_melds(self._melds(" ".join(args)), expected_version=v)
        if word in ("o", "layoff"):
            if len(args) not in (2, 3):
                raise _Refused("Lay off how? o <card> <meld> [start|end], e.g. o 4 2")
            card = self._cards(args[:1])[0]
            meld = self._meld(args[1])
            end = self._end(card, meld, args[2] if len(args) == 3 else None)
            return seat.lay_off(card, meld.index, end, expected_version=v)
        if word in ("s", "swap"):
            if len(args) not in (2, 3):
                raise _Refused("Swap how? s <card> <meld> [joker], e.g. s 4 2")
            card = self._cards(args[:1])[0]
            meld = self._meld(args[1])
            joker = self._joker(meld, args[2] if len(args) == 3 else None)
            return seat.swap_joker(card, meld.index, joker, expected_version=v)
        if word in ("p", "pass"):
            return seat.play(PassUpcard(), expected_version=v)
        if word in ("k", "knock"):
            return seat.play(self._knock(args), expected_version=v)
        if word in ("a", "accept"):
            return seat.accept_layout(expected_version=v)
        if word in ("x", "discard"):
            if len(args) != 1:
                raise _Refused("Discard which card? x <card>, e.g. x 7")
            return seat.discard(self._cards(args)[0], expected_version=v)
        raise _Refused(f"Unknown command {word!r}; type ? for help.")

    def _knock(self, args: list[str]) -> Knock:
        """``k``: the best knock; ``k <card>``: the best knock discarding that
        card; ``k <card> <melds>``: that discard and those melds."""
        knocks = self.legal.knocks if self.legal is not None else ()
        if not args:
            if not knocks:
                raise _Refused("You cannot knock now: your unmatched cards total too much.")
            return knocks[0]
        dropped = self._cards(args[:1])[0]
        if len(args) == 1:
            for k in knocks:
                if k.discard_card_id == dropped:
                    return k
            raise _Refused("No knock discarding that card; k alone knocks at best.")
        melds = self._melds(" ".join(args[1:]))
        return Knock(dropped, tuple(tuple(m) for m in melds))

    # --- reading what was typed ---------------------------------------------

    def _cards(self, words: list[str]) -> list[int]:
        """Card ids for numbers of the hand as shown, or codes (first unused copy)."""
        hand = self.numbering.hand
        used: list[int] = []
        for w in words:
            if w.isdigit():
                n = int(w)
                if not 1 <= n <= len(hand):
                    raise _Refused(f"No card {n} in your hand (1 to {len(hand)}).")
                card = hand[n - 1]
            else:
                try:
                    code = Card.from_code(w).code
                except ValueError:
                    raise _Refused(f"{w!r} is neither a card number nor a card like KD.") from None
                copies = [c for c in hand if c.code == code and c.id not in used]
                if not copies:
                    raise _Refused(f"No {w} in your hand.")
                card = copies[0]
            assert card.id is not None
            if card.id in used:
                raise _Refused(f"{card.symbol} is named twice.")
            used.append(card.id)
        return used

    def _melds(self, text: str) -> list[list[int]]:
        groups = [g.split() for g in text.replace("|", "/").replace(",", "/").split("/")]
        groups = [g for g in groups if g]
        if not groups:
            raise _Refused("Meld which cards? m 1 2 3 / 4 5 6")
        ids = self._cards([w for g in groups for w in g])
        melds: list[list[int]] = []
        for g in groups:
            melds.append(ids[: len(g)])
            ids = ids[len(g) :]
        return [self._server_order(m) for m in melds]

    def _server_order(self, meld: list[int]) -> list[int]:
        """The order of a meld the server proposed with the same cards, if any
        (so a joker or a high ace need not be typed in place)."""
        for move in self.legal.melds if self.legal else ():
            for proposed in move.melds:
                if sorted(proposed) == sorted(meld):
                    return list(proposed)
        return meld

    def _meld(self, word: str) -> TableMeld:
        table = self.numbering.table
        if not word.isdigit() or not 1 <= int(word) <= len(table):
            if not table:
                raise _Refused("There is no meld on the table yet.")
            raise _Refused(f"No meld {word} on the table (1 to {len(table)}).")
        return table[int(word) - 1]

    def _end(self, card: int, meld: TableMeld, word: str | None) -> End:
        if word is not None:
            try:
                return End.parse(word)
            except ValueError:
                raise _Refused("The end is start or end.") from None
        ends = {
            lo.end
            for lo in (self.legal.lay_offs if self.legal else ())
            if lo.card_id == card and lo.meld_index == meld.index
        }
        return ends.pop() if len(ends) == 1 else End.LAST

    def _joker(self, meld: TableMeld, word: str | None) -> int:
        jokers = [c.id for c in meld.meld.cards if c.joker and c.id is not None]
        if not jokers:
            raise _Refused("That meld has no joker.")
        if word is None:
            if len(jokers) > 1:
                raise _Refused(
                    f"That meld has {len(jokers)} jokers: say which, 1 to {len(jokers)}."
                )
            return jokers[0]
        if not word.isdigit() or not 1 <= int(word) <= len(jokers):
            raise _Refused(f"Say which joker of the meld, 1 to {len(jokers)}.")
        return jokers[int(word) - 1]

    # --- showing --------------------------------------------------------------

    def _player(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        if seat == self.seat.seat:
            return "you"
        return escape(self.view.seats[seat].label)

    def _card(self, card_id: int | None) -> str:
        card = self.cards.get(card_id) if card_id is not None else None
        return _styled(card) if card is not None else "a card"

    def _code_of(self, card_id: int) -> str:
        card = self.cards.get(card_id)
        return card.code if card is not None else ""

    def _ids(self, ids: Sequence[int]) -> str:
        return " ".join(self._card(i) for i in ids)

    def _intro(self) -> None:
        v = self.view
        self.console.print(
            f"You are [bold]{escape(v.seats[self.seat.seat].label)}[/bold], seat "
            f"{self.seat.seat} of {v.name} ({v.variant.name}). Type [cyan]?[/cyan] for help."
        )

    def _announce_wait(self) -> None:
        """Says once what the game waits for."""
        v = self.view
        if v.status is GameStatus.WAITING:
            open_seats = sum(1 for s in v.seats if not s.taken)
            note = (
                f"Waiting for {open_seats} more player(s); they join with: "
                f"[cyan]ramino-play --game {v.name}[/cyan]"
            )
        elif v.turn is not None:
            note = f"[dim]… {self._player(v.turn)} to play[/dim]"
        else:
            return
        if note != self._waiting_note:
            self.console.print(note)
            self._waiting_note = note

    def _board(self) -> None:
        v = self.view
        self._waiting_note = ""
        c = self.console
        c.rule(f"Round {v.round} · {v.variant.name} · {v.name}")
        # Where any meld opens (no threshold), "opened" says nothing.
        opening = bool(v.variant.parameters.get("open_threshold", 0))
        columns = ["", "seat", "player", "cards", *(["opened"] if opening else []), "total"]
        seats = Table(box=None, padding=(0, 1), show_edge=False)
        for col in columns:
            seats.add_column(col, justify="right" if col in ("cards", "total") else "left")
        for s in v.seats:
            name = escape(s.label) + (" (you)" if s.seat == self.seat.seat else "")
            if s.bot is not None and s.bot.value not in s.label:
                name += f" [dim]({s.bot.value} bot)[/dim]"
            if s.resigned:
                name += " [dim](resigned)[/dim]"
            opened = ["yes" if s.opened else "no"] if opening else []
            seats.add_row(
                "▶" if s.seat == v.turn else "",
                str(s.seat),
                name,
                str(s.hand_size),
                *opened,
                str(s.total),
            )
        c.print(seats)
        numbered = list(v.table)
        if numbered:
            c.print("[bold]Table[/bold]")
            melds = Table.grid(padding=(0, 2))
            melds.add_column(justify="right", style="cyan")
            melds.add_column()
            melds.add_column(style="dim")
            for i, t in enumerate(numbered, 1):
                owner = "you" if t.owner == self.seat.seat else escape(v.seats[t.owner].label)
                melds.add_row(
                    f"  {i}", _meld_text(t.meld), f"{t.meld.kind.value} {t.meld.value}, {owner}"
                )
            c.print(melds)
        else:
            c.print("[bold]Table[/bold] [dim]no melds yet[/dim]")
        top = v.discard_top
        pile = (
            f"{_styled(top)} [dim]({_count(len(v.discard_pile), 'card')})[/dim]" if top else "empty"
        )
        stock = _count(v.stock_size, "card")
        c.print(f"[bold]Discard pile[/bold] {pile}    [bold]Stock[/bold] {stock}")
        hand = list(v.sorted_hand())
        self.numbering = _Numbering(hand, numbered)
        c.print(f"[bold]Your hand[/bold] ({len(hand)} cards)")
        n = 1
        for suit, cards in v.hand_by_suit().items():
            line = Text("  ")
            line.append(suit.symbol if suit is not None else "★", style=_suit_style(suit))
            for card in cards:
                line.append(f"  {n}:", style="dim")
                fresh = " reverse" if card.id in self.fresh else ""
                line.append(card.symbol, style=_suit_style(card.suit) + fresh)
                n += 1
            c.print(line)
        self._hints(full=False)

    def _hints(self, full: bool) -> None:
        legal = self.legal
        if legal is None or not self.view.my_turn:
            return
        index = {c.id: i for i, c in enumerate(self.numbering.hand, 1)}
        tables = {t.index: i for i, t in enumerate(self.numbering.table, 1)}

        def nums(ids: Sequence[int]) -> str:
            return " ".join(str(index.get(i, "?")) for i in ids)

        lines: list[str] = []
        for move in legal.melds[: 3 if full else 1]:
            cmd = "m " + " / ".join(nums(m) for m in move.melds)
            what = " | ".join(self._ids(m) for m in move.melds)
            value = f", {move.value} points" if move.value else ""
            lines.append(f"meld: [cyan]{cmd}[/cyan]  ({what}{value})")
        for lo in legal.lay_offs[: 6 if full else 2]:
            end = " start" if lo.end is End.FIRST else ""
            cmd = f"o {nums([lo.card_id])} {tables.get(lo.meld_index, '?')}{end}"
            lines.append(f"lay off: [cyan]{cmd}[/cyan]  ({self._card(lo.card_id)})")
        for sw in legal.swaps[: 4 if full else 1]:
            cmd = f"s {nums([sw.card_id])} {tables.get(sw.meld_index, '?')}"
            lines.append(f"swap: [cyan]{cmd}[/cyan]  ({self._card(sw.card_id)} for the joker)")
        hint = legal.hint
        if hint is not None and hint.best_knock is not None:
            k = hint.best_knock
            drop = "" if k.discard_card_id is None else f" {nums([k.discard_card_id])}"
            what = " | ".join(self._ids(m) for m in k.melds) or "no melds"
            lines.append(f"knock: [cyan]k{drop}[/cyan]  ({what}; {k.deadwood} unmatched)")
        if hint is not None and hint.suggested_discard is not None and legal.discards:
            d = hint.suggested_discard
            same = [x.card_id for x in legal.discards if self._code_of(x.card_id) == d.code]
            if same:
                pick = d.id if d.id in same else same[0]
                lines.append(f"discard: [cyan]x {nums([pick])}[/cyan]  ({_styled(d)})")
        if full and hint is not None and hint.min_deadwood is not None:
            dw = hint.min_deadwood
            melds = " | ".join(_meld_text(m) for m in dw.melds) or "none"
            left = " ".join(_styled(c) for c in sort_cards(dw.deadwood)) or "nothing"
            lines.append(f"best split: {melds}; left over: {left} ({dw.value} points)")
        if full and not legal.melds and self.view.phase is TurnPhase.PLAY:
            me = self.view.me
            if me is not None and not me.opened:
                lines.append("you cannot open yet")
        if lines:
            self.console.print("[bold]Hints[/bold]  " + ("\n        ".join(lines)))
        elif full:
            self.console.print("[dim]No hints: nothing to meld or lay off.[/dim]")

    def _prompt(self) -> str:
        v = self.view
        legal = self.legal
        if v.phase is TurnPhase.LAYOFF:
            return (
                "Defend: [cyan]o[/cyan] lay off · [cyan]m[/cyan] meld · [cyan]a[/cyan] accept · "
                "[cyan]h[/cyan] hints [dim](? help)[/dim] > "
            )
        if v.phase is TurnPhase.DRAW:
            options = []
            kinds = {type(m).__name__ for m in (legal.moves if legal else ())}
            if "DrawFromStock" in kinds:
                options.append("[cyan]d[/cyan] draw")
            if "TakeDiscard" in kinds and v.discard_top is not None:
                options.append(f"[cyan]t[/cyan] take {_styled(v.discard_top)}")
            if "TurnOverDiscardPile" in kinds:
                options.append("[cyan]u[/cyan] turn the pile over")
            if "PassUpcard" in kinds:
                options.append("[cyan]p[/cyan] pass")
            choices = " · ".join(options) or "draw"
            return f"Your turn: {choices}  [dim](? help)[/dim] > "
        if v.variant.parameters.get("knocking"):
            knock = " · [cyan]k[/cyan] knock" if legal is not None and legal.knocks else ""
            return (
                f"Play: [cyan]x[/cyan] discard{knock} · [cyan]h[/cyan] hints "
                "[dim](? help)[/dim] > "
            )
        return (
            "Play: [cyan]m[/cyan] meld · [cyan]o[/cyan] lay off · [cyan]s[/cyan] swap · "
            "[cyan]x[/cyan] discard · [cyan]h[/cyan] hints [dim](? help)[/dim] > "
        )

    def _tell(self, e: Event) -> None:
        text = self._event_text(e)
        if text:
            self.console.print(text)
        if isinstance(e, RoundEnded):
            self._refresh()
            # The last round's scores are part of the final table.
            last = self.view.finished and self.view.rounds and self.view.rounds[-1].round == e.round
            self._round_scores(e, table=not last)

    def _event_text(self, e: Event) -> str | None:
        who = _capital(self._player(e.seat))
        you = e.seat == self.seat.seat

        def verb(yours: str, theirs: str) -> str:
            return yours if you else theirs

        match e:
            case DrewFromStock(card=card):
                drawn = f" {self._card(card)}" if you and card is not None else ""
                return f"{who} {verb('draw', 'draws')}{drawn} from the stock."
            case TookDiscard(card=card):
                return f"{who} {verb('take', 'takes')} {self._card(card)} from the pile."
            case DiscardPileTurnedOver():
                return f"{who} {verb('turn', 'turns')} the discard pile over."
            case StockReshuffled(stock_size=size):
                return f"The discard pile is shuffled into a new stock of {size} cards."
            case MeldsLaid(melds=melds, opening=opening):
                shown = " | ".join(self._ids(m) for m in melds)
                action = verb("open with", "opens with") if opening else verb("lay", "lays")
                return f"{who} {action} {shown}."
            case LaidOff(card=card, meld=meld):
                return (
                    f"{who} {verb('lay', 'lays')} off {self._card(card)} "
                    f"on meld {self._meld_number(meld)}."
                )
            case JokerSwapped(card=card, meld=meld):
                return (
                    f"{who} {verb('give', 'gives')} {self._card(card)} for the "
                    f"joker of meld {self._meld_number(meld)}."
                )
            case Discarded(card=card):
                return f"{who} {verb('discard', 'discards')} {self._card(card)}."
            case Resigned():
                return f"{who} {verb('resign', 'resigns')}."
            case PassedUpcard():
                return f"{who} {verb('pass', 'passes')} on the upcard."
            case Knocked(melds=melds, deadwood=deadwood):
                shown = " | ".join(self._ids(m) for m in melds) or "no melds"
                if deadwood:
                    how = verb("knock", "knocks") + f" with {deadwood} unmatched"
                else:
                    how = verb("go", "goes") + " gin"
                return f"{who} {how}: {shown}."
            case LayoutAccepted():
                return f"{who} {verb('accept', 'accepts')} the layout."
            case RoundStarted(round=number, first_player=first):
                return f"[bold]Round {number}[/bold] is dealt; {self._player(first)} to play first."
            case SeatJoined(player_name=name):
                return f"{escape(name)} takes seat {e.seat}."
            case SeatTimedOut():
                return f"{who} ran out of time: a bot plays that turn."
            case SeatReclaimed():
                return None
            case MatchEnded():
                return None
            case GameEnded(reason=reason):
                return f"[bold]The game has ended[/bold] before its match: {escape(reason)}."
        return None

    def _meld_number(self, index: int) -> str:
        for i, t in enumerate(self.view.table, 1):
            if t.index == index:
                return str(i)
        return str(index + 1)

    def _round_scores(self, e: RoundEnded, table: bool) -> None:
        if e.ending == "went_out" and e.winner is not None:
            how = f"{self._player(e.winner)} went out"
        elif e.ending == "stock_exhausted":
            how = "the stock ran out"
        elif e.ending == "resignations":
            how = "everyone else resigned"
        else:
            how = e.ending.replace("_", " ")
        self.console.print(f"[bold]Round {e.round} is over:[/bold] {how}.")
        if not table:
            return
        scores = Table(box=None, padding=(0, 2))
        scores.add_column("player")
        scores.add_column("this round", justify="right")
        scores.add_column("total", justify="right", style="bold")
        totals = {s.seat: s.total for s in self.view.seats}
        for s, score in zip(self.view.seats, e.scores, strict=False):
            name = "you" if s.seat == self.seat.seat else escape(s.label)
            scores.add_row(name, str(score), str(totals.get(s.seat, "")))
        self.console.print(scores)

    def _final(self) -> None:
        v = self.view
        c = self.console
        c.rule("Game over")
        table = Table(box=None, padding=(0, 2))
        table.add_column("player")
        for r in v.rounds:
            table.add_column(f"round {r.round}", justify="right")
        table.add_column("total", justify="right", style="bold")
        for s in v.seats:
            name = "you" if s.seat == self.seat.seat else escape(s.label)
            scores = [str(r.scores[s.seat]) if s.seat < len(r.scores) else "" for r in v.rounds]
            table.add_row(name, *scores, str(s.total))
        c.print(table)
        if v.winners:
            names = " and ".join(self._player(w) for w in v.winners)
            verb = "win" if v.winners == (self.seat.seat,) else "wins"
            c.print(f"[bold green]{names.capitalize()} {verb} the match.[/bold green]")
        if v.seed:
            c.print(f"[dim]Seed {v.seed} (published hash {v.seed_hash[:16]}…)[/dim]")

    # --- leaving --------------------------------------------------------------

    def _quit(self) -> bool:
        if self.view.finished:
            return False
        try:
            answer = self._read("Resign and leave the game? \\[y/N] ").strip().lower()
        except EOFError:
            answer = ""
        if answer not in ("y", "yes"):
            return True
        try:
            result = self.seat.resign()
        except ServiceError as e:
            self.console.print(f"[red]Could not resign:[/red] {escape(e.message)} ({e.reason})")
            return True
        self.view = result.view
        self._learn(result.view)
        self._sync()
        if self.view.finished:
            self._final()
        else:
            self.console.print("The game goes on without you.")
        return False

    def _goodbye(self) -> None:
        v = self.view
        if v.finished:
            return
        self.console.print(
            f"Left without resigning. Come back with: [cyan]ramino-play --game {v.name} "
            f"--token {self.seat.token}[/cyan]",
            soft_wrap=True,  # one line, so that the command can be copied whole
        )

    def _flush_typeahead(self) -> None:
        """Drops what was typed while others played, so it is not taken as a move."""
        if not sys.stdin.isatty():
            return
        try:
            import termios

            termios.tcflush(sys.stdin, termios.TCIFLUSH)
        except (ImportError, OSError, ValueError):
            pass


def _card_ids(e: Event) -> list[int]:
    """The cards an event names."""
    match e:
        case DrewFromStock(card=card) if card is not None:
            return [card]
        case TookDiscard(card=card) | Discarded(card=card) | LaidOff(card=card):
            return [card]
        case JokerSwapped(card=card, joker=joker):
            return [card, joker]
        case MeldsLaid(melds=melds):
            return [c for m in melds for c in m]
    return []


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _symbol(code: str) -> str:
    try:
        return Card.from_code(code).symbol
    except ValueError:
        return code


def _suit_style(suit: Suit | None) -> str:
    if suit is None:
        return "bold magenta"
    return _SUIT_STYLE.get(suit, "bold")


def _styled(card: Card) -> str:
    return f"[{_suit_style(card.suit)}]{card.symbol}[/]"


def _meld_text(meld: Meld) -> str:
    parts = []
    roles = {j.index: j.stands_for for j in meld.jokers}
    for i, card in enumerate(meld.cards):
        text = _styled(card)
        stands = roles.get(i)
        if card.joker and stands and len(stands) == 1:
            text += f"[dim]={_symbol(stands[0])}[/dim]"
        parts.append(text)
    return " ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """``ramino-play``, the console script (also ``python -m ramino_client.play``)."""
    parser = argparse.ArgumentParser(prog="ramino-play", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
