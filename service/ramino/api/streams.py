"""A server stream's end, said even to a client that reads nothing.

A watch or a session whose client stops reading fills its flow-control
window: its last send waits in the transport and the handler's task waits
on it, so an end the stream raises itself never goes out. gRPC sends a
call's status (HTTP/2 trailers) after the messages already handed to it,
whatever the window: :class:`StreamEnder` sends it from outside the
handler's task (``abort`` from a task of its own, beside the waiting
send), naming the version of the last message handed on (which the client
gets first), then cancels the handler's task so that its stream frees its
places. Merely cancelling that task would end the call with no status at
all: the client would read what was in flight, then wait for good.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import grpc

from ramino.api.errors import status_for
from ramino.api.interceptors import Context
from ramino.app.games.fanout import Resume

__all__ = ["StreamEnder"]


class StreamEnder:
    """One server stream's end from outside its task (a
    :data:`ramino.app.games.watch.StreamEnd`): the handler tells it each message's
    version as it hands the message to gRPC (:meth:`handed`)."""

    __slots__ = ("_context", "_task", "_endings", "version", "ended")

    def __init__(
        self, context: Context, after_version: int | None, endings: set[asyncio.Task[Any]]
    ) -> None:
        self._context = context
        self._task = asyncio.current_task()
        self._endings = endings
        self.version = after_version or 0
        """The version of the last message handed to gRPC (before any: the
        version the stream started after)."""
        self.ended = False

    def handed(self, version: int) -> None:
        """A message at ``version`` is handed to gRPC (the client gets it
        before any status)."""
        self.version = version

    def __call__(self, resume: Resume) -> None:
        """Ends the call now with the status of ``resume(version)``."""
        task = self._task
        if self.ended or task is None or task.done() or self._context.done():
            return
        self.ended = True
        status = status_for(resume(self.version))
        assert status is not None, "a stream's end is an expected error"
        # The code the call's log line and metrics count (an abort does not
        # set it; the handler's task is cancelled before its own end).
        self._context.set_code(status.code)
        ending = asyncio.create_task(self._abort(status), name="stream end")
        self._endings.add(ending)
        ending.add_done_callback(self._endings.discard)
        task.cancel()

    async def _abort(self, status: grpc.Status) -> None:
        # Returns once the status is written (the client read what came
        # before it) or the call is gone (the client cancelled, the
        # connection closed, the server stopped).
        with contextlib.suppress(grpc.aio.AbortError, Exception):
            await self._context.abort_with_status(status)
