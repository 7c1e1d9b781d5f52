"""The server's search lanes: a bounded number of searches at once, the rest refused at once,
and the deep lane's threads nicer than the rest of the server, so that quick answers keep the
CPU they need while 2-ply analyses and timed searches run beside them."""

from __future__ import annotations

import os
import sys
import threading

import anyio
import pytest

from samuel.web.limits import DEEP_NICENESS, SearchQueue, ServerBusy


def _priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own priority")
def test_deep_searches_run_nicer_than_quick_ones() -> None:
    queue = SearchQueue(2, 2)

    async def both() -> tuple[int, int]:
        return await queue.run(_priority), await queue.run(_priority, quick=True)

    own = _priority()
    try:
        deep, quick = anyio.run(both)
        assert quick == own
        assert deep == min(19, own + DEEP_NICENESS)
        assert _priority() == own  # the caller's thread is left as it was
    finally:
        queue.close()


def test_a_lane_refuses_past_its_threads_and_waiting_room_and_recovers() -> None:
    queue = SearchQueue(1, 1)
    release = threading.Event()

    async def crowd() -> list[str]:
        results: list[str] = []

        async def one(name: str) -> None:
            try:
                results.append(await queue.run(lambda: release.wait(30) and name))
            except ServerBusy as busy:
                results.append(f"busy: {busy}")

        async with anyio.create_task_group() as group:
            for name in ("first", "second", "third"):
                group.start_soon(one, name)
                await anyio.sleep(0.05)
            await anyio.sleep(0.1)
            release.set()
        results.append(await queue.run(lambda: "after"))  # room again once they ended
        return results

    try:
        results = anyio.run(crowd)
    finally:
        queue.close()
    assert results[0].startswith("busy: the server is busy: 1 searches run and 1 wait")
    assert sorted(results[1:3]) == ["first", "second"] and results[3] == "after"
    assert queue.admitted == 0
