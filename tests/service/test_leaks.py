"""Nothing hidden ever leaves the server: across whole games, no response or
event sent to a seat or a spectator names a card hidden in another seat's
hand or in the stock, and the seed stays secret until the game ends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from ramino.engine import (
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Event,
    JokerSwapped,
    Knocked,
    LaidOff,
    MeldsLaid,
    RoundEnded,
    RoundStarted,
    StockReshuffled,
    TookDiscard,
    event_from_data,
)
from ramino.v1 import game_pb2

from .conftest import SEED, Harness, auth, play_one, seated_game

CARD_FIELDS = {
    "card",
    "cards",
    "card_id",
    "card_ids",
    "joker",
    "joker_id",
    "upcard",
    "kept",
    "kept_card_id",
    "discard_card_id",
    "hand",
    "hands",
    "stock",
    "melds",
}


def card_ids(obj: Any, card_field: bool = False) -> Iterator[int]:
    if isinstance(obj, dict):
        if "code" in obj:  # a Card message
            if "id" in obj:
                yield int(obj["id"])
            return
        for key, value in obj.items():
            if key in ("value", "deadwood", "jokers"):
                continue  # a meld's value, its jokers' places, a knock's total: never cards
            yield from card_ids(value, card_field or key in CARD_FIELDS)
    elif isinstance(obj, list):
        for value in obj:
            yield from card_ids(value, card_field)
    elif isinstance(obj, int | float) and not isinstance(obj, bool) and card_field:
        yield int(obj)


class Secrets:
    """Which cards each seat may not see, after each version, replayed from
    the full record."""

    def __init__(self) -> None:
        self.hidden: dict[int, int] = {}
        self.stock: set[int] = set()
        self.by_version: dict[int, tuple[dict[int, int], frozenset[int]]] = {}

    def apply(self, version: int, e: Event) -> None:
        match e:
            case RoundStarted():
                self.hidden = {c: seat for seat, hand in enumerate(e.hands) for c in hand or ()}
                self.stock = set(e.stock or ())
            case DrewFromStock():
                assert e.card is not None
                self.hidden[e.card] = e.seat
                self.stock.discard(e.card)
            case StockReshuffled():
                self.stock = set(e.stock or ())
            case DiscardPileTurnedOver():
                self.stock = set()
            case TookDiscard() | Discarded() | LaidOff():
                self.hidden.pop(e.card, None)
            case JokerSwapped():
                self.hidden.pop(e.card, None)
            case MeldsLaid():
                for meld in e.melds:
                    for c in meld:
                        self.hidden.pop(c, None)
            case Knocked():
                if e.discard is not None:
                    self.hidden.pop(e.discard, None)
                for meld in e.melds:
                    for c in meld:
                        self.hidden.pop(c, None)
            case RoundEnded():
                self.hidden = {}
        self.by_version[version] = (dict(self.hidden), frozenset(self.stock))

    def leaks(self, version: int, viewer: int | None, ids: set[int]) -> set[int]:
        hidden, stock = self.by_version[version]
        return {c for c in ids if c in stock or (c in hidden and hidden[c] != viewer)}


async def collect_watch(
    h: Harness, name: str, token: str | None, out: list[tuple[int, Message]]
) -> None:
    md = auth(token) if token else None
    async for item in h.stub.WatchGame(game_pb2.WatchGameRequest(name=name), metadata=md):
        out.append((item.version, item))
        if item.HasField("event") and item.event.WhichOneof("event") == "match_ended":
            return
        if item.HasField("snapshot") and item.snapshot.status == game_pb2.GAME_STATUS_FINISHED:
            return


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy", "gin"])
async def test_no_message_names_a_hidden_card_or_the_seed(harness: Harness, variant: str) -> None:
    h = harness
    # Two people and a bot; gin is for two players: two people.
    name, tokens = await seated_game(h, variant, 2, bots=0 if variant == "gin" else 1)
    sent: dict[int | None, list[tuple[int, Message]]] = {0: [], 1: [], None: []}
    watchers = [
        asyncio.create_task(collect_watch(h, name, tokens[s] if s is not None else None, sent[s]))
        for s in (0, 1, None)
    ]
    for _ in range(5000):
        view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        sent[None].append((view.version, view))
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            break
        if view.HasField("turn") and view.turn < 2:
            seat = view.turn
            mine = (
                await h.stub.GetGame(
                    game_pb2.GetGameRequest(name=name), metadata=auth(tokens[seat])
                )
            ).view
            sent[seat].append((mine.version, mine))
            result = await play_one(h, name, tokens[seat])
            if result is not None:
                sent[seat].append((result.view.version, result.view))
                sent[seat].extend((e.version, e) for e in result.events)
        else:
            await asyncio.sleep(0.002)
    assert view.status == game_pb2.GAME_STATUS_FINISHED
    await asyncio.wait_for(asyncio.gather(*watchers), 10)

    secrets = Secrets()
    for entry in await h.app.store.read(name.split("/")[1]):
        data = json.loads(entry.data)
        if data["kind"] == "engine":
            secrets.apply(entry.version, event_from_data(data["event"]))
        elif secrets.by_version:
            secrets.by_version[entry.version] = secrets.by_version[entry.version - 1]
        else:
            secrets.by_version[entry.version] = ({}, frozenset())
    final = max(secrets.by_version)
    checked = 0
    for viewer, messages in sent.items():
        assert messages, viewer
        for version, message in messages:
            data = MessageToDict(message, preserving_proto_field_name=True)
            leaked = secrets.leaks(version, viewer, set(card_ids(data)))
            assert not leaked, (viewer, version, leaked, data)
            if version < final:
                assert str(SEED) not in json.dumps(data), (viewer, version)
            checked += 1
    assert checked > 100
