"""The shape of a command, checked before the state: card ids of the deck,
meld indexes, ends; and the errors every phase raises."""

from __future__ import annotations

from ramino import reasons as r

from tests.engine_reference.commands import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from tests.engine_reference.context import Rules
from tests.engine_reference.errors import IllegalMove, MalformedCommand

__all__ = ["illegal", "malformed", "card_id", "in_hand", "shape"]


def illegal(reason: str, message: str, detail: str | None = None) -> IllegalMove:
    return IllegalMove(message, reason, detail)


def malformed(reason: str, message: str) -> MalformedCommand:
    return MalformedCommand(message, reason)


def card_id(value: object, rules: Rules) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise malformed(r.BAD_FIELD, f"a card id is an integer, got {value!r}")
    if not 0 <= value < rules.deck_size:
        raise malformed(r.UNKNOWN_CARD, f"no card {value} in a deck of {rules.deck_size}")
    return value


def _index(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise malformed(r.BAD_FIELD, f"{what} is a non-negative integer, got {value!r}")
    return value


def in_hand(hand: list[int], card: int) -> None:
    if card not in hand:
        raise illegal(r.CARD_NOT_IN_HAND, f"card {card} is not in your hand")


def _meld_ids(melds: object, rules: Rules, allow_none: bool = False) -> tuple[tuple[int, ...], ...]:
    if not isinstance(melds, list | tuple) or (not melds and not allow_none):
        raise malformed(r.NO_MELDS, "lay at least one meld")
    out: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for meld in melds:
        if not isinstance(meld, list | tuple):
            raise malformed(r.BAD_FIELD, f"a meld is a list of card ids, got {meld!r}")
        ids = tuple(card_id(c, rules) for c in meld)
        for c in ids:
            if c in seen:
                raise malformed(r.DUPLICATE_CARD, f"card {c} is given twice")
            seen.add(c)
        out.append(ids)
    return tuple(out)


def shape(command: Command, rules: Rules) -> Command:
    """``command`` with its fields checked (card ids in the deck, meld
    indexes, ends), or :class:`MalformedCommand`."""
    if isinstance(command, DrawFromStock | TakeDiscard | TurnOverDiscardPile):
        return command
    if isinstance(command, PassUpcard | AcceptLayout):
        return command
    if isinstance(command, Knock):
        return Knock(
            None if command.discard is None else card_id(command.discard, rules),
            _meld_ids(command.melds, rules, allow_none=True),
        )
    if isinstance(command, Discard):
        return Discard(card_id(command.card, rules))
    if isinstance(command, LayOff):
        if command.end not in ("start", "end"):
            raise malformed(r.BAD_END, f"end is 'start' or 'end', got {command.end!r}")
        return LayOff(card_id(command.card, rules), _index(command.meld, "meld"), command.end)
    if isinstance(command, SwapJoker):
        return SwapJoker(
            card_id(command.card, rules),
            _index(command.meld, "meld"),
            card_id(command.joker, rules),
        )
    if isinstance(command, LayMelds):
        return LayMelds(_meld_ids(command.melds, rules))
    raise malformed(r.UNKNOWN_COMMAND, f"not a command: {command!r}")
