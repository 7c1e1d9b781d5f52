"""Start-up cost of the numba kernels: compiling on a fresh clone, and loading from the cache.

Each measurement is a fresh ``python -c`` subprocess, timed from start to exit, with
``NUMBA_CACHE_DIR`` pointing at one new temporary directory:

* cold: the cache is empty, so every kernel that a depth-3 perft from the start and a depth-3
  classic search use is compiled (the cost of a fresh clone's first run);
* warm: the same command again, now loading those kernels from the cache (best of 3);
* ``import samuel.games.tigers`` alone, warm (best of 3);
* ``import numba`` alone, the floor under all of these (best of 3);
* whole commands as a user runs them, the median of 5: ``samuel --help`` (no NumPy, no numba)
  and ``samuel perft 1`` with its kernels cached.

Run from the repository root::

    .venv/bin/python benchmarks/startup.py
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOAD = """
from samuel.search.alphabeta import Searcher
from samuel.games.tigers import Position, classic
from samuel.games.game import Game
from samuel.games import get_game
from samuel.games.tigers.board import SHEEP, START_TIGERS
from samuel.games.tigers.kernels import perft
assert perft(START_TIGERS, 0, SHEEP, 0, 3) == 5052
g = Game(get_game('tigers'))
Searcher(0).search(g.position.encode(), g.history_keys(), g.window_start, 0,
                   classic.load_weights(), 3)
"""


def command(args: list[str], cache: str, runs: int = 5) -> tuple[float, str]:
    """Median wall time of ``runs`` runs of ``samuel ARGS`` (``python -m samuel.cli``), and
    ``ok`` or why the last one failed."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "samuel.cli", *args], env=env, capture_output=True, text=True
        )
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            return statistics.median(times), f"exit {done.returncode}"
    return statistics.median(times), "ok"


def run(code: str, cache: str, runs: int = 1) -> tuple[float, str]:
    """Best wall time of ``runs`` subprocesses, and ``ok`` or why the last one failed."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if done.returncode < 0:
            return best, f"killed by {signal.Signals(-done.returncode).name}"
        if done.returncode > 0:
            return best, f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1]}"
    return best, "ok"


def main() -> int:
    with tempfile.TemporaryDirectory() as cache:
        rows = [
            ("cold: perft(3) + search(3), empty cache", *run(WORKLOAD, cache)),
            ("warm: perft(3) + search(3), cached", *run(WORKLOAD, cache, 3)),
            ("warm: import samuel.games.tigers", *run("import samuel.games.tigers", cache, 3)),
            ("import numba", *run("import numba", cache, 3)),
            ("samuel --help (median of 5)", *command(["--help"], cache)),
            ("samuel perft 1, cached (median of 5)", *command(["perft", "1"], cache)),
        ]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'subprocess':{width}} {'seconds':>8}  status")
    for name, seconds, status in rows:
        print(f"{name:{width}} {seconds:8.2f}  {status}")
    return 0 if all(status == "ok" for _, _, status in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
