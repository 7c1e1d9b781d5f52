"""What one request may cost the server: a bounded body, and a bounded queue of searches.

- :class:`BodyLimit` refuses a request body over a limit (413), by its ``Content-Length`` or,
  for a body sent in chunks, as soon as it grows past the limit, before the application reads
  it. It is plain ASGI, so nothing is buffered beyond the limit.
- :class:`SearchQueue` runs searches in worker threads, a bounded number at once, with a
  bounded number waiting for a turn; a search past that is refused at once
  (:class:`ServerBusy`, a 503 with ``Retry-After``) instead of waiting behind the others.
  Nothing else goes through it, so cheap requests never wait behind searches. Quick searches
  and the rest have lanes of their own, and the rest run in threads of lower priority, so a
  quick answer never waits for CPU behind deep ones either.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

T = TypeVar("T")

MAX_BODY_BYTES = 16 * 1024  # the largest useful body (a new game with two long specs) is < 2 kB
RETRY_AFTER_SECONDS = 5  # a running search ends within MAX_SEARCH_SECONDS; most take far less
# How much nicer (in the operating system's sense) the deep lane's threads run than the rest of
# the server: under Linux's scheduler a thread 10 nicer gets about a tenth of a core it shares,
# so 2-ply analyses and timed searches take the CPU the quick ones leave (measured in
# benchmarks/analysis_load.py; docs/web.md, "Load check").
DEEP_NICENESS = 10


class ServerBusy(RuntimeError):
    """Every search slot is taken and as many searches wait already: try again later."""


class BodyLimit:
    """ASGI middleware: a request whose body is over ``max_bytes`` gets a 413, and the
    application never sees it. The body (small, by then) is read before the application runs
    and handed to it whole."""

    def __init__(
        self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, larger: dict[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = dict(larger or {})  # paths that take a larger body: their limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope.get("path", ""), self.max_bytes)
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._too_large(send, limit)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            body += message.get("body", b"")
            if len(body) > limit:  # a chunked body, or more than its Content-Length
                await self._too_large(send, limit)
                return
            if not message.get("more_body", False):
                break
        handed: list[Message] = [{"type": "http.request", "body": bytes(body), "more_body": False}]

        async def replay() -> Message:
            return handed.pop() if handed else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send, limit: int) -> None:
        detail = f"the request body is over {limit} bytes, the most this server reads here"
        content = json.dumps({"detail": detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        headers.append((b"content-length", str(len(content)).encode()))
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": content})


class SearchLane:
    """Searches in threads of the lane's own: at most ``running`` at once, and at most
    ``waiting`` more admitted to wait for a turn. Use it from one event loop only (its count is
    not locked). With ``niceness`` above 0 its threads run that much nicer than the process (on
    Linux, where a thread has its own priority; elsewhere as the process)."""

    def __init__(self, running: int, waiting: int, niceness: int = 0) -> None:
        if running < 1 or waiting < 0 or niceness < 0:
            raise ValueError(
                "a search lane needs a thread, no negative wait and no negative niceness: "
                f"{running}, {waiting}, {niceness}"
            )
        self.running = running
        self.waiting = waiting
        self.niceness = niceness
        self.admitted = 0  # running or waiting now
        self._threads: ThreadPoolExecutor | None = None  # made on first use

    async def run(self, function: Callable[..., T], *args) -> T:
        """``function(*args)`` in a worker thread when one is free; raises :class:`ServerBusy`
        at once if every thread is taken and as many searches wait already. Once started, a
        search runs to its end even if its request is cancelled."""
        if self.admitted >= self.running + self.waiting:
            raise ServerBusy(
                f"the server is busy: {self.running} searches run and {self.waiting} wait; "
                f"try again in {RETRY_AFTER_SECONDS} s"
            )
        if self._threads is None:
            self._threads = ThreadPoolExecutor(
                self.running, "samuel-search", initializer=_nicer, initargs=(self.niceness,)
            )
        self.admitted += 1
        try:
            with anyio.CancelScope(shield=True):
                return await asyncio.wrap_future(self._threads.submit(function, *args))
        finally:
            self.admitted -= 1

    def close(self) -> None:
        """End the lane's threads once their searches end (a later search makes new ones)."""
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=False)


def _nicer(niceness: int) -> None:
    """Run the calling thread ``niceness`` nicer than it is (Linux: this thread alone)."""
    if not niceness or not sys.platform.startswith("linux"):
        return
    me = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, me, os.getpriority(os.PRIO_PROCESS, me) + niceness)
    except OSError:  # refused: the lane still runs, at the process's priority
        pass


class SearchQueue:
    """Two :class:`SearchLane` of the same size: one for quick searches (a few milliseconds:
    shallow, untimed), one for the rest, so a quick search never waits behind deep ones, for a
    thread or (the rest run :data:`DEEP_NICENESS` nicer) for the CPU."""

    def __init__(self, running: int, waiting: int) -> None:
        self.deep = SearchLane(running, waiting, niceness=DEEP_NICENESS)
        self.quick = SearchLane(running, waiting)

    @property
    def admitted(self) -> int:
        """Searches running or waiting now, in both lanes."""
        return self.deep.admitted + self.quick.admitted

    async def run(self, function: Callable[..., T], *args, quick: bool = False) -> T:
        """``function(*args)`` in the quick lane or the deep one (see :meth:`SearchLane.run`)."""
        return await (self.quick if quick else self.deep).run(function, *args)

    def close(self) -> None:
        """End the lanes' threads (see :meth:`SearchLane.close`)."""
        self.deep.close()
        self.quick.close()
