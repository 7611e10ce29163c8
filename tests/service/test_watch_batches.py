"""Spectators' events several to a message (``batch_events``, issue 20):
at most one message per stream per interval, carrying every event since,
in order, made once for every such stream; seats and spectators that did
not ask are sent one event a message; a resume repeats nothing. A real
server on a loopback socket."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from ramino.api.events import watch_events
from ramino.app import Limits
from ramino.app.log import LogEvent
from ramino.engine import Seen
from ramino.errors import Busy
from ramino.v1 import game_pb2

from .conftest import auth, play_one
from .test_hostile_streams import handed_out, rest, serving, two_people, watch


def flat(items: Sequence[game_pb2.WatchGameResponse]) -> list[tuple[int, str]]:
    """The events of a watch's messages, batches opened, with their versions."""
    out = []
    for item in items:
        kind = item.WhichOneof("payload")
        if kind == "events":
            assert item.events.events and item.version == item.events.events[-1].version
            out += [(e.version, e.WhichOneof("event")) for e in item.events.events]
        elif kind == "event":
            out.append((item.version, item.event.WhichOneof("event")))
    return out


async def moves(s: Any, name: str, tokens: list[str], count: int) -> None:
    """``count`` moves, each by the seat whose turn it is."""
    for _ in range(count):
        for token in tokens:
            if await play_one(s.h, name, token) is not None:
                break


async def test_a_spectator_that_takes_batches_gets_every_event_in_order_in_few_messages() -> None:
    # An interval longer than the test: after the first event (sent at once,
    # the game having been quiet) the rest is held until the game ends.
    async with serving(Limits(spectator_interval=3600)) as s:
        stub = s.h.stub
        made: Counter[int] = Counter()

        def counting(entries: Sequence[tuple[int, Seen[LogEvent], int | None]]) -> bytes:
            made[len(entries)] += 1
            return watch_events(entries)

        s.servicer.encode_events = counting
        name, tokens, creator = await two_people(stub)
        batched = [watch(stub, name, batch_events=True) for _ in range(5)]
        plain = [watch(stub, name), watch(stub, name, tokens[0], batch_events=True)]
        firsts = [await stream.read() for stream in batched + plain]
        assert all(first.HasField("snapshot") for first in firsts)
        start = firsts[0].version
        await moves(s, name, tokens, 12)
        await stub.CancelGame(game_pb2.CancelGameRequest(name=name), metadata=auth(creator))
        end = await s.h.app.store.version(name.split("/")[1])
        expected = None
        for stream in batched:
            items = await rest(stream)
            assert [i.WhichOneof("payload") for i in items] == ["events", "events"]
            assert len(items[0].events.events) == 1
            got = flat(items)
            assert [v for v, _ in got] == list(range(start + 1, end + 1))
            assert got[-1][1] == "game_ended"
            expected = expected or [i.SerializeToString() for i in items]
            assert [i.SerializeToString() for i in items] == expected
        # Each batch was made once for the five streams.
        assert made == Counter({1: 1, end - start - 1: 1})
        # A spectator that did not ask, and a seat (batches are for spectators),
        # get one event a message, the same events.
        for stream in plain:
            items = await rest(stream)
            assert [i.WhichOneof("payload") for i in items] == ["event"] * (end - start)
            assert [v for v, _ in flat(items)] == list(range(start + 1, end + 1))


async def test_a_quiet_game_sends_each_event_at_once_and_a_resume_comes_in_one_batch() -> None:
    async with serving(Limits(spectator_interval=0.0)) as s:
        stub = s.h.stub
        name, tokens, creator = await two_people(stub)
        live = watch(stub, name, batch_events=True)
        start = (await live.read()).version
        for _ in range(3):
            await moves(s, name, tokens, 1)
            version = await s.h.app.store.version(name.split("/")[1])
            item = await live.read()
            # With no interval to wait for, each event goes out as it comes.
            assert flat([item]) and item.version == version
        live.cancel()
        await moves(s, name, tokens, 6)
        middle = start + 2
        resumed = watch(stub, name, after_version=middle, batch_events=True)
        first = await resumed.read()
        now = await s.h.app.store.version(name.split("/")[1])
        # What happened since the resume point, read from the store: one message.
        assert first.WhichOneof("payload") == "events"
        assert [v for v, _ in flat([first])] == list(range(middle + 1, now + 1))
        await stub.CancelGame(game_pb2.CancelGameRequest(name=name), metadata=auth(creator))
        rest_items = await rest(resumed)
        assert [v for v, _ in flat([first, *rest_items])] == list(range(middle + 1, now + 2))
        finished = watch(stub, name, after_version=start, batch_events=True)
        items = await rest(finished)
        assert [v for v, _ in flat(items)] == list(range(start + 1, now + 2))
        assert len(items) == 1


async def test_a_batching_spectator_that_falls_behind_is_ended_and_resumes_exactly() -> None:
    async with serving(Limits(spectator_interval=0.0, watch_queue=2)) as s:
        stub = s.h.stub
        name, tokens, creator = await two_people(stub)
        app = s.h.app
        stream = app.watch(
            name.split("/")[1], None, None, False, s.servicer.encode_event, watch_events
        )
        start = (await anext(stream)).version
        await moves(s, name, tokens, 1)
        taken = await anext(stream)  # handed to the transport, as gRPC would be
        assert taken.version == start + 1
        await moves(s, name, tokens, 4)  # four batches of one: more than the queue holds
        await handed_out(app, taken.version + 4)
        with pytest.raises(Busy) as caught:
            while True:
                await anext(stream)
        assert caught.value.reason == "WATCHER_TOO_SLOW"
        assert str(caught.value).endswith(f"after_version={taken.version}")
        resumed = watch(stub, name, after_version=taken.version, batch_events=True)
        first = await resumed.read()
        assert flat([first])[0][0] == taken.version + 1
        resumed.cancel()
        await stub.CancelGame(game_pb2.CancelGameRequest(name=name), metadata=auth(creator))
