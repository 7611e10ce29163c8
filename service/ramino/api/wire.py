"""Messages joined from serialized pieces.

A move's answer carries the mover's whole view, and most of a view (the cards
of the hand and of the discard pile, the table's melds, the variant) is the
same from one move to the next. Serializing those pieces once and joining the
bytes is several times cheaper than building the messages again: on the wire
a message is the concatenation of its fields, a repeated field's items in
order, so the joined bytes are exactly what serializing the whole message
would give (up to the order of fields, which protobuf leaves free)."""

from __future__ import annotations

from collections.abc import Callable, Hashable

LENGTH_DELIMITED = 2


def varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """``payload`` (a serialized message or a string) as field ``number``."""
    return varint(number << 3 | LENGTH_DELIMITED) + varint(len(payload)) + payload


class Pieces:
    """Serialized pieces by key, each built once by ``make``; cleared when it
    grows past ``limit`` (the pieces of a game in play come back on the next
    move, so a cleared cache fills again at once)."""

    def __init__(self, make: Callable[..., bytes], limit: int = 50_000) -> None:
        self._make = make
        self._limit = limit
        self._items: dict[Hashable, bytes] = {}

    def get(self, *key: Hashable) -> bytes:
        found = self._items.get(key)
        if found is None:
            if len(self._items) >= self._limit:
                self._items.clear()
            found = self._items[key] = self._make(*key)
        return found

    def __len__(self) -> int:
        return len(self._items)
