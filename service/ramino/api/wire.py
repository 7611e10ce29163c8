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
from typing import Any

VARINT, LENGTH_DELIMITED = 0, 2


_ONE_BYTE = [bytes((i,)) for i in range(0x80)]


def varint(n: int) -> bytes:
    if n < 0x80:
        return _ONE_BYTE[n]
    if n < 0x4000:
        return bytes((n & 0x7F | 0x80, n >> 7))
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """``payload`` (a serialized message or a string) as field ``number``."""
    return varint(number << 3 | LENGTH_DELIMITED) + varint(len(payload)) + payload


def int_field(number: int, value: int) -> bytes:
    """An integer field (int32 or int64): a negative one as its 64-bit two's complement."""
    return varint(number << 3 | VARINT) + varint(value if value >= 0 else value + (1 << 64))


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

    def get_keyed(self, key: Hashable, *args: Any) -> bytes:
        """The piece kept under ``key``, built by ``make(*args)`` when
        missing: for arguments too large to keep as the key (a variant)."""
        found = self._items.get(key)
        if found is None:
            if len(self._items) >= self._limit:
                self._items.clear()
            found = self._items[key] = self._make(*args)
        return found

    def __len__(self) -> int:
        return len(self._items)
