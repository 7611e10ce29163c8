"""What a person types at ``ramino-play``'s prompt, read into a move or a
request to show something: pure functions of the line, the numbers last
shown and the server's legal moves (no server, no terminal).

Cards are named by their number in the hand as shown, or by code (``KD``,
``10h``, ``jk``: the first copy not already named); table melds by their
number as shown. What is refused is said in the current language
(:mod:`.words`).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from ramino_client.models import BotLevel, Card, End, TableMeld
from ramino_client.moves import (
    AcceptLayout,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    LegalMoves,
    Move,
    PassUpcard,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino_client.play.words import count, t


class Refused(Exception):
    """A command that cannot be sent as typed; the message says why."""


class Action(enum.Enum):
    """A command answered without the server."""

    QUIT = "quit"
    HELP = "help"
    BOARD = "board"
    HINTS = "hints"


Command: TypeAlias = Action | Move
"""A line read: something to show or do here, or a move to send."""


@dataclass(frozen=True)
class Numbering:
    """The numbers of the cards and melds as last shown (1-based on screen)."""

    hand: Sequence[Card] = ()
    table: Sequence[TableMeld] = ()


ACTIONS = {
    **dict.fromkeys(("q", "quit", "resign"), Action.QUIT),
    **dict.fromkeys(("?", "help"), Action.HELP),
    **dict.fromkeys(("b", "board"), Action.BOARD),
    **dict.fromkeys(("h", "hint", "hints"), Action.HINTS),
}


def parse(line: str, shown: Numbering, legal: LegalMoves | None) -> Command | None:
    """The command of a typed line (``None`` for a blank one).

    Raises :class:`Refused` for a line that names no command or names
    cards or melds that are not there."""
    word, _, rest = line.strip().partition(" ")
    if not word:
        return None
    word = word.lower()
    if word in ACTIONS:
        return ACTIONS[word]
    args = rest.split()
    if word in ("d", "draw"):
        return DrawFromStock()
    if word in ("t", "take"):
        return TakeDiscard()
    if word in ("u", "turn"):
        return TurnOverDiscardPile()
    if word in ("p", "pass"):
        return PassUpcard()
    if word in ("a", "accept"):
        return AcceptLayout()
    if word in ("m", "meld"):
        return LayMelds(tuple(tuple(m) for m in melds(" ".join(args), shown.hand, legal)))
    if word in ("o", "layoff"):
        if len(args) not in (2, 3):
            raise Refused(t("cmd.layOffHow"))
        card = cards(args[:1], shown.hand)[0]
        meld = table_meld(args[1], shown.table)
        return LayOff(card, meld.index, end(card, meld, args[2] if len(args) == 3 else None, legal))
    if word in ("s", "swap"):
        if len(args) not in (2, 3):
            raise Refused(t("cmd.swapHow"))
        card = cards(args[:1], shown.hand)[0]
        meld = table_meld(args[1], shown.table)
        return SwapJoker(card, meld.index, joker(meld, args[2] if len(args) == 3 else None))
    if word in ("k", "knock"):
        return knock(args, shown.hand, legal)
    if word in ("x", "discard"):
        if len(args) != 1:
            raise Refused(t("cmd.discardWhich"))
        return Discard(cards(args, shown.hand)[0])
    raise Refused(t("cmd.unknown", word=repr(word)))


def cards(words: Sequence[str], hand: Sequence[Card]) -> list[int]:
    """Card ids for numbers of the hand as shown, or codes (first unused copy)."""
    used: list[int] = []
    for w in words:
        if w.isdigit():
            n = int(w)
            if not 1 <= n <= len(hand):
                raise Refused(t("cmd.noCardNumber", n=n, count=len(hand)))
            card = hand[n - 1]
        else:
            try:
                code = Card.from_code(w).code
            except ValueError:
                raise Refused(t("cmd.notACard", word=repr(w))) from None
            copies = [c for c in hand if c.code == code and c.id not in used]
            if not copies:
                raise Refused(t("cmd.noSuchCard", word=w))
            card = copies[0]
        if card.id is None:
            raise Refused(t("cmd.noId", card=card.symbol))
        if card.id in used:
            raise Refused(t("cmd.twice", card=card.symbol))
        used.append(card.id)
    return used


def melds(text: str, hand: Sequence[Card], legal: LegalMoves | None) -> list[list[int]]:
    """Melds separated by ``/`` (or ``|`` or ``,``), each in the order of a
    meld the server proposed with the same cards, if any (so a joker or a
    high ace need not be typed in place)."""
    groups = [g.split() for g in text.replace("|", "/").replace(",", "/").split("/")]
    groups = [g for g in groups if g]
    if not groups:
        raise Refused(t("cmd.meldWhich"))
    ids = cards([w for g in groups for w in g], hand)
    out: list[list[int]] = []
    for g in groups:
        out.append(ids[: len(g)])
        ids = ids[len(g) :]
    return [server_order(m, legal) for m in out]


def server_order(meld: list[int], legal: LegalMoves | None) -> list[int]:
    """The order of a meld the server proposed with the same cards, or ``meld``."""
    for move in legal.melds if legal else ():
        for proposed in move.melds:
            if sorted(proposed) == sorted(meld):
                return list(proposed)
    return meld


def table_meld(word: str, table: Sequence[TableMeld]) -> TableMeld:
    if not word.isdigit() or not 1 <= int(word) <= len(table):
        if not table:
            raise Refused(t("cmd.noMeldYet"))
        raise Refused(t("cmd.noMeld", word=word, count=len(table)))
    return table[int(word) - 1]


def end(card: int, meld: TableMeld, word: str | None, legal: LegalMoves | None) -> End:
    """The end typed, else the one end the server allows that lay-off at,
    else the last."""
    if word is not None:
        try:
            return End.parse(word)
        except ValueError:
            raise Refused(t("cmd.end")) from None
    ends = {
        lo.end
        for lo in (legal.lay_offs if legal else ())
        if lo.card_id == card and lo.meld_index == meld.index
    }
    return ends.pop() if len(ends) == 1 else End.LAST


def joker(meld: TableMeld, word: str | None) -> int:
    """The meld's joker by its number among the meld's jokers (may be left
    out when it has one)."""
    jokers = [c.id for c in meld.meld.cards if c.joker and c.id is not None]
    if not jokers:
        raise Refused(t("cmd.noJoker"))
    if word is None:
        if len(jokers) > 1:
            raise Refused(t("cmd.whichJoker", jokers=count("jokers", len(jokers)), n=len(jokers)))
        return jokers[0]
    if not word.isdigit() or not 1 <= int(word) <= len(jokers):
        raise Refused(t("cmd.jokerNumber", n=len(jokers)))
    return jokers[int(word) - 1]


def knock(args: Sequence[str], hand: Sequence[Card], legal: LegalMoves | None) -> Knock:
    """``k``: the best knock; ``k <card>``: the best knock discarding that
    card; ``k <card> <melds>``: that discard and those melds."""
    knocks = legal.knocks if legal is not None else ()
    if not args:
        if not knocks:
            raise Refused(t("cmd.cannotKnock"))
        return knocks[0]
    dropped = cards(args[:1], hand)[0]
    if len(args) == 1:
        for k in knocks:
            if k.discard_card_id == dropped:
                return k
        raise Refused(t("cmd.noKnock"))
    laid = melds(" ".join(args[1:]), hand, legal)
    if any(dropped in m for m in laid):
        raise Refused(t("cmd.knockTwice"))
    return Knock(dropped, tuple(tuple(m) for m in laid))


def bots(text: str) -> list[BotLevel]:
    """``--bots``: bot levels separated by commas."""
    levels = []
    for word in text.replace(" ", "").split(","):
        if not word:
            continue
        try:
            levels.append(BotLevel(word.lower()))
        except ValueError:
            choices = ", ".join(b.value for b in BotLevel)
            raise Refused(t("cmd.unknownBot", word=repr(word), choices=choices)) from None
    return levels


def overrides(items: Sequence[str] | None) -> dict[str, Any]:
    """``--set PARAM=VALUE``: the value read as JSON, else as a string."""
    out: dict[str, Any] = {}
    for item in items or ():
        key, _, raw = item.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out
