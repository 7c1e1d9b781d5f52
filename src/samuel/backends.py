"""Where work fans out: "run these units" on this machine or on a Ray cluster.

Everything Samuel does at scale is many independent units of work (the pairs of a match, slices
of a generation's self-play games, slices of the positions to label), each carrying its own
seeds. A backend runs ``function(shared, unit)`` for every unit and hands the results back in
unit order, so what comes out does not depend on where, or in what order, the units ran:

- :class:`LocalBackend` (``--backend local``, the default) runs them in this process, or with
  ``workers`` above 1 on that many worker processes of this machine (started with ``spawn``).
- :class:`samuel.ray_backend.RayBackend` (``--backend ray``) runs them as Ray tasks; it is the
  only module that imports Ray, an optional extra (``pip install 'samuel[ray]'``).

``shared`` is what every unit needs and is big (a network, a batch of positions): it is sent once
per run (Ray's object store), not once per unit. ``function`` must be a module-level function, so
that it crosses processes by name. Work that numba's threads already spread over this machine's
cores asks :meth:`Backend.parts` how to cut itself: one part on the local backend (the threads
share it, as before), many on a cluster.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Protocol

from samuel.errors import CommandError, SamuelError

BACKENDS = ("local", "ray")


class RunInterrupted(SamuelError, RuntimeError):
    """A backend lost the means to finish a run (Ray's own processes died, a unit failed on
    every retry): the message says what happened, in one line. ``done`` holds the results of
    units 0..k that had finished, in unit order (what ``run`` would have returned had ``after``
    stopped there), and ``total`` the number of units, so that a caller can keep what was done
    (``samuel match`` writes the games played, marked incomplete)."""

    def __init__(self, message: str, done: list, total: int) -> None:
        super().__init__(message)
        self.done = list(done)
        self.total = total


# ``after(done)`` is told the results of units 0..k each time that run grows by one; True stops.
After = Callable[[list], bool]


class Backend(Protocol):
    name: str

    def run(
        self,
        function: Callable[[Any, Any], Any],
        units: Sequence,
        shared: Any = None,
        after: After | None = None,
    ) -> list:
        """``[function(shared, unit) for unit in units]``, however the units are spread.

        With ``after``, each time the results of units 0..k (in unit order, whatever order they
        finish in) grow by one, ``after`` is called with them; if it returns True the remaining
        units are cancelled and those results are returned: an early stop that, too, does not
        depend on where the units ran. A backend that cannot finish the run raises
        :class:`RunInterrupted` with the results of the units finished so far."""
        ...

    def parts(self, count: int) -> list[range]:
        """How to cut ``count`` items of thread-parallel work (self-play games, positions to
        label) into units: ranges that cover 0..count in order."""
        ...


UNITS_PER_CPU = 4  # a slow unit (a long game) holds up the end of a run less
MAX_UNITS = 1024  # the driver hands units out one by one, about a millisecond each (scaling.py)


def unit_count(count: int, cpus: int) -> int:
    """How many units ``count`` items of work become on ``cpus`` CPUs: four a CPU, at most one
    an item, and at most MAX_UNITS, so that on a big cluster handing them out does not take
    longer than playing them (docs/cluster.md, "Scaling")."""
    return max(1, min(count, UNITS_PER_CPU * cpus, MAX_UNITS))


def split(count: int, pieces: int) -> list[range]:
    """``range(count)`` cut into at most ``pieces`` consecutive ranges of near-equal size."""
    pieces = max(1, min(pieces, count))
    size, extra = divmod(count, pieces)
    ranges, start = [], 0
    for index in range(pieces):
        stop = start + size + (1 if index < extra else 0)
        ranges.append(range(start, stop))
        start = stop
    return ranges


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalBackend:
    """This machine: in this process, or on ``workers`` processes (``spawn``: a fresh
    interpreter that loads the compiled kernels from numba's cache; warm the cache in the parent
    first, since parallel cache writes can crash, numba issue #4807)."""

    name = "local"

    def __init__(self, workers: int = 1):
        if workers < 1:
            raise ValueError(f"the number of workers must be at least 1, not {workers}")
        self.workers = workers

    def parts(self, count: int) -> list[range]:
        return [range(count)]  # numba's threads spread it over the cores, as they always did

    def run(self, function, units, shared=None, after=None) -> list:
        done: list = []
        if self.workers == 1 or len(units) <= 1:
            for unit in units:
                done.append(function(shared, unit))
                if after is not None and after(done):
                    break
            return done
        waiting: dict[int, Any] = {}
        executor = ProcessPoolExecutor(
            max_workers=min(self.workers, len(units)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_ignore_interrupts,
        )
        try:
            futures = {
                executor.submit(function, shared, unit): index for index, unit in enumerate(units)
            }
            pending = set(futures)
            stopped = False
            while pending and not stopped:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    waiting[futures[future]] = future.result()
                while len(done) in waiting and not stopped:
                    done.append(waiting.pop(len(done)))
                    stopped = after is not None and after(done)
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
        return done


def check_backend(name: str, address: str | None) -> None:
    """Refuse a backend name Samuel does not know, or an address without Ray."""
    if name not in BACKENDS:
        raise CommandError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
    if address is not None and name != "ray":
        raise CommandError("--ray-address needs --backend ray")


def make_backend(name: str = "local", address: str | None = None, workers: int = 1) -> Backend:
    """The backend ``name`` (``local`` or ``ray``); ``workers`` is the local backend's number of
    processes, or the CPUs of the private Ray instance started when no ``address`` is given."""
    check_backend(name, address)
    if name == "local":
        return LocalBackend(workers)
    from samuel.ray_backend import connect  # Ray is optional: imported only when asked for

    return connect(address, cpus=workers)
