"""How the blocking client is made of the asyncio one: a private event loop
on a thread of its own, where each blocking call runs its asyncio twin's
coroutine and waits for its answer.

:class:`~ramino_client.Client` owns one :class:`Loop`, on which its
:class:`~ramino_client.AsyncClient` lives; its seats, rules, quick play,
watches and sessions are blocking faces (:class:`Twin`) of the asyncio
ones, each call made by :func:`blocking` and each stream read by
:class:`Iterate`. An answer is the async call's own value and an error its
own exception object, so both flavours answer and fail alike. Closing the
client closes the asyncio one and ends the loop's thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar

A = TypeVar("A")
P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
Face = TypeVar("Face", bound="Twin[Any]")

Closing = Callable[[], Coroutine[Any, Any, object]]
"""What ends an asyncio object (a stream's cancel, a client's close), called on the loop."""

CLOSED = "Cannot invoke RPC on closed channel!"
"""The ``ValueError`` of a call to a closed client (gRPC's blocking channel says so)."""


class Loop:
    """An event loop run by a daemon thread of its own, for one blocking
    client: any thread runs coroutines on it (:meth:`run`) until it is
    closed (:meth:`close`), which ends the thread."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._lock = threading.RLock()  # a finalizer may run while its thread holds it
        self._closed = False
        self._closing: Closing | None = None
        self._error: BaseException | None = None
        self._ending: set[asyncio.Task[object]] = set()  # settle()'s, held until done
        self._thread = threading.Thread(target=self._serve, name="ramino-client", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        try:
            self._loop.run_forever()  # until close() stops it
            self._loop.run_until_complete(self._wind_up())
        finally:
            self._loop.close()

    async def _wind_up(self) -> None:
        try:
            if self._closing is not None:
                await self._closing()
        except Exception as error:  # handed to the thread that closed the client
            self._error = error
        # What is left (a call another thread waits for, a stream dropped
        # unfinished) is cancelled: its caller is told the client is closed.
        this = asyncio.current_task()
        while left := [t for t in asyncio.all_tasks() if t is not this]:
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)
        await self._loop.shutdown_asyncgens()
        await self._loop.shutdown_default_executor()

    def _here(self) -> bool:
        return threading.current_thread() is self._thread

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Runs ``coro`` on the loop and waits for its answer, or raises its
        exception; interrupted (Ctrl-C), the coroutine is cancelled.
        ``ValueError`` once the loop is closed."""
        with self._lock:
            if self._closed or self._here():
                coro.close()
                if self._closed:
                    raise ValueError(CLOSED)
                raise RuntimeError("a blocking call of the client from its own event loop")
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            if self._closed:
                raise ValueError(CLOSED) from None
            raise
        except BaseException:
            future.cancel()  # a KeyboardInterrupt while waiting: the call stops too
            raise

    def settle(self, end: Closing, *, wait: bool = True) -> None:
        """Runs ``end()`` on the loop (a stream's cancel or close): waits for
        it unless ``wait`` is false or this is the loop's own thread (a
        finalizer); nothing once the loop is closed, which ended every
        stream with its client."""
        with self._lock:
            if self._closed:
                return
            if not wait or self._here():
                self._loop.call_soon_threadsafe(self._start, end)
                return
        try:
            self.run(end())
        except ValueError:
            if not self._closed:
                raise

    def _start(self, end: Closing) -> None:
        task = self._loop.create_task(end())
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    def close(self, closing: Closing | None = None) -> None:
        """Refuses every new call, runs ``closing()`` (the client's close),
        cancels what is left and ends the thread, waiting for it (but on the
        loop's own thread, where a finalizer may call it); an error of
        ``closing`` is raised here. Closing again does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed, self._closing = True, closing
            self._loop.call_soon_threadsafe(self._loop.stop)
        if not self._here():
            self._thread.join()
            error, self._error = self._error, None
            if error is not None:
                raise error


class Twin(Generic[A]):
    """The blocking face of the asyncio object ``_async``, whose coroutines
    run on ``_loop`` (see :func:`blocking`)."""

    _async: A
    _loop: Loop


def blocking(
    method: Callable[Concatenate[A, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[Face, P], R]:
    """The blocking method of ``method``, an async method of ``A``: the same
    parameters and answer, run on the twin's loop; its docstring is the
    async method's."""

    @functools.wraps(method)
    def wait(self: Face, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._loop.run(method(self._async, *args, **kwargs))

    return wait


def blocking_iter(
    method: Callable[Concatenate[A, P], AsyncGenerator[R, None]],
) -> Callable[Concatenate[Face, P], Iterator[R]]:
    """The blocking method of ``method``, an async generator method of
    ``A``: the same parameters, its items as a blocking iterator (see
    :class:`Iterate`)."""

    @functools.wraps(method)
    def items(self: Face, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[R]:
        generator = method(self._async, *args, **kwargs)
        return Iterate(self._loop, generator, generator.aclose)

    return items


class _Ended:
    """What :func:`_next` answers at the end of an async iterator (a
    coroutine's StopAsyncIteration cannot cross to another thread's ``next``)."""


_ENDED = _Ended()


async def _next(items: AsyncIterator[T]) -> T | _Ended:
    try:
        return await anext(items)
    except StopAsyncIteration:
        return _ENDED


class Iterate(Iterator[T]):
    """A blocking iterator over an async one run on a loop: each ``next``
    waits for the async one's next item. Ended (``with``'s end, or dropped
    unfinished: a loop left early), it ends the async one with ``end`` (its
    ``aclose``, a stream's cancel), which cancels the stream."""

    def __init__(self, loop: Loop, items: AsyncIterator[T], end: Closing) -> None:
        self._loop = loop
        self._items = items
        self._end = end
        # Not a method of self: the finalizer must not keep self alive.
        self._dropped = weakref.finalize(self, loop.settle, end, wait=False)
        self._dropped.atexit = False

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> T:
        item = self._loop.run(_next(self._items))
        if isinstance(item, _Ended):
            raise StopIteration
        return item

    def close(self) -> None:
        """Ends the async iterator, as a generator's ``close``, from any
        thread (a ``next`` waiting in another ends); nothing once the client
        is closed."""
        self._dropped.detach()
        self._loop.settle(self._end)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
