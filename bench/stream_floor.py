"""grpc.aio's own floor for a stream exchange (issue 32): figures only,
nothing asserted.

A bare ``grpc.aio`` server (no interceptor, no log line, no game) with one
bidirectional method that writes back each message it reads: what a
session's message exchange costs the server before Ramino does anything.
``bench/vs_boardgameio.py`` runs it in the same run as the sessions and
prints the server's CPU an exchange (one message read and one written)
beside a session move's (which reads one message and writes two: the
mover's answer and the other seat's event).

    .venv/bin/python bench/stream_floor.py --serve 50051        # the server
    .venv/bin/python bench/stream_floor.py --client 127.0.0.1:50051 --streams 128
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc

METHOD = "/floor.Echo/Chat"
MESSAGE = bytes(range(96))
"""About the size of a session's move or event."""


async def serve(port: int) -> None:
    async def chat(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        async for message in requests:
            yield message

    handler = grpc.method_handlers_generic_handler(
        "floor.Echo", {"Chat": grpc.stream_stream_rpc_method_handler(chat)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"listening on {port}", flush=True)
    await server.wait_for_termination()


async def drive(target: str, streams: int, seconds: float, warmup: float, channels: int) -> None:
    """``streams`` closed loops (a message out, its echo back), spread over
    ``channels`` connections; prints the measured window and exchanges as JSON."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    opened = [grpc.aio.insecure_channel(target, options=options) for _ in range(channels)]
    counting = False
    done = 0
    stop = asyncio.Event()

    async def loop(channel: grpc.aio.Channel) -> None:
        nonlocal done
        call: Any = channel.stream_stream(METHOD)()
        while not stop.is_set():
            await call.write(MESSAGE)
            await call.read()
            if counting:
                done += 1
        await call.done_writing()

    tasks = [asyncio.create_task(loop(opened[i % channels])) for i in range(streams)]
    await asyncio.sleep(warmup)
    counting = True
    t0 = time.time()
    await asyncio.sleep(seconds)
    counting = False
    t1 = time.time()
    exchanges = done
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in opened:
        await channel.close()
    print(json.dumps({"t0": t0, "t1": t1, "exchanges": exchanges}), flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--serve", type=int, help="serve the echo on this port")
    p.add_argument("--client", help="drive the echo at host:port")
    p.add_argument("--streams", type=int, default=128)
    p.add_argument("--channels", type=int, default=2, help="connections the streams share")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    args = p.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve))
    elif args.client:
        asyncio.run(drive(args.client, args.streams, args.seconds, args.warmup, args.channels))
    else:
        p.error("--serve PORT or --client HOST:PORT")


if __name__ == "__main__":
    main()
