"""The session loop of ``ramino-play``: it only wires the parts together.
A thread follows the seat's watch into a queue; the loop takes the latest
view, tells the events (:mod:`.render`), and on the person's turn reads a
line, reads it into a command (:mod:`.commands`) and sends the move."""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable

from rich.console import Console, RenderableType
from rich.markup import escape

from ramino_client.errors import MoveRejected, ServiceError, StaleVersion
from ramino_client.events import (
    DrewFromStock,
    Event,
    JokerSwapped,
    RoundEnded,
    Snapshot,
    TookDiscard,
    WatchItem,
)
from ramino_client.models import Card, GameView
from ramino_client.moves import LegalMoves, Move, MoveResult
from ramino_client.play import commands, render
from ramino_client.play.commands import Action, Numbering, Refused
from ramino_client.play.words import t
from ramino_client.sync import Seat, Watch


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
        self.numbering = Numbering()
        """The numbers of the hand and the table as last shown."""
        self.legal: LegalMoves | None = None
        self._shown_version = -1
        self._waiting_note: str | None = None
        self.fresh: set[int] = set()
        """Cards that came to the hand this turn, shown highlighted."""
        self._learn(self.view)

    @property
    def seen(self) -> render.Seen:
        return render.Seen(self.view, self.seat.seat, self.cards)

    def _print(self, items: Iterable[RenderableType | None]) -> None:
        for item in items:
            if item is not None:
                self.console.print(item)

    # --- the loop -----------------------------------------------------------

    def run(self) -> int:
        watch = self.seat.watch(after_version=self.view.version)
        follower = threading.Thread(target=self._follow, args=(watch,), daemon=True)
        follower.start()
        self.console.print(render.intro(self.seen))
        try:
            return self._loop()
        except (KeyboardInterrupt, EOFError):
            self.console.print()
            self._goodbye()
            return 0
        except ServiceError as e:
            self.console.print(
                t("lostServer", message=escape(e.message or e.reason), reason=e.reason)
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
                self._print(render.final(self.seen))
                return 0
            if self.view.my_turn:
                if not self._turn():
                    return 0
                continue
            note = render.waiting(self.seen)
            if note is not None and note != self._waiting_note:
                self.console.print(note)
                self._waiting_note = note
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
                self.console.print(t("lostFeed", error=escape(str(item))))
                return False
            if item is None:  # the match is over: the feed has ended
                self.watched = max(self.watched, self.view.version)
            elif isinstance(item, Snapshot):
                self._learn(item.view)
                self.watched = item.version
            elif item.version > self.watched:
                if any(c not in self.cards for c in render.event_cards(item)):
                    self._refresh()  # the cards are in the view now, or never again
                self._tell(item)
                self.watched = item.version
        return True

    def _tell(self, e: Event) -> None:
        text = render.event_text(self.seen, e)
        if text:
            self.console.print(text)
        if isinstance(e, RoundEnded):
            self._refresh()
            # The last round's scores are part of the final table.
            v = self.view
            last = v.finished and bool(v.rounds) and v.rounds[-1].round == e.round
            self._print(render.round_scores(self.seen, e, table=not last))

    def _refresh(self) -> None:
        if self.view.finished:
            return
        self.view = self.seat.view()
        self._learn(self.view)

    def _learn(self, view: GameView) -> None:
        for c in view.visible_cards():
            if c.id is not None:
                self.cards[c.id] = c

    # --- the person's turn --------------------------------------------------

    def _board(self) -> None:
        self._waiting_note = None
        self.numbering = render.numbering(self.view)
        self._print(render.board(self.seen, self.legal, self.fresh))

    def _turn(self) -> bool:
        """One prompt; False when the person quits."""
        if self._shown_version != self.view.version:
            if self.legal is None or self.legal.version != self.view.version:
                self.legal = self.seat.legal_moves()
            self._board()
            self._shown_version = self.view.version
        _flush_typeahead()
        try:
            line = self._read(render.prompt(self.view, self.legal))
        except EOFError:
            self.console.print()
            self._goodbye()
            return False
        try:
            command = commands.parse(line, self.numbering, self.legal)
        except Refused as e:
            self.console.print(f"[yellow]{escape(str(e))}[/yellow]")
            return True
        match command:
            case None:
                return True
            case Action.QUIT:
                return self._quit()
            case Action.HELP:
                self.console.print(render.help_text())
            case Action.BOARD:
                self._board()
            case Action.HINTS:
                shown = render.hints(self.seen, self.legal, self.numbering, full=True)
                self._print([shown])
            case move:
                self._send(move)
        return True

    def _send(self, move: Move) -> None:
        try:
            result = self.seat.play(move, expected_version=self.view.version)
        except StaleVersion:
            self.console.print(t("movedOn"))
            self._refresh()
            self._shown_version = -1
            return
        except MoveRejected as e:
            self.console.print(t("refused", message=escape(e.message or e.reason), reason=e.reason))
            return
        except ServiceError as e:
            self.console.print(
                t("serverNo", message=escape(e.message or e.reason), reason=e.reason)
            )
            return
        self._moved(result)

    def _moved(self, result: MoveResult) -> None:
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

    # --- leaving --------------------------------------------------------------

    def _quit(self) -> bool:
        if self.view.finished:
            return False
        try:
            answer = self._read(t("resignAsk")).strip().lower()
        except EOFError:
            answer = ""
        if answer not in t("resignYes").split():
            return True
        try:
            result = self.seat.resign()
        except ServiceError as e:
            self.console.print(t("resignFailed", message=escape(e.message), reason=e.reason))
            return True
        self.view = result.view
        self._learn(result.view)
        self._sync()
        if self.view.finished:
            self._print(render.final(self.seen))
        else:
            self.console.print(t("goesOn"))
        return False

    def _goodbye(self) -> None:
        if self.view.finished:
            return
        # One line, so that the command can be copied whole.
        self.console.print(render.come_back(self.view, self.seat.token), soft_wrap=True)


def _flush_typeahead() -> None:
    """Drops what was typed while others played, so it is not taken as a move."""
    if not sys.stdin.isatty():
        return
    try:
        import termios

        termios.tcflush(sys.stdin, termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):
        pass
