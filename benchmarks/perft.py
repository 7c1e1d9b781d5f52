"""Perft speed: our numba kernel against the same bitboard algorithm in plain C (perft.c).

Compiles ``perft.c`` with gcc into a temporary directory, warms the numba perft up at a small
depth so that compilation is not timed, then times perft from the start position in both, best
of 3 runs each, and prints the counts (which must agree: the exit status is 1 if they do not),
the seconds, million leaf nodes per second and the time ratio numba/C.

Run from the repository root::

    .venv/bin/python benchmarks/perft.py [--depth N]    # default depth 7
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from build_c import build_c  # benchmarks/ is on the path when a benchmark runs

SOURCE = Path(__file__).with_name("perft.c")
RUNS = 3


def time_c(binary: str, depth: int) -> tuple[int, float]:
    """Best of RUNS; the program times itself, so process start-up is not counted."""
    results = []
    for _ in range(RUNS):
        out = subprocess.run([binary, str(depth)], capture_output=True, text=True, check=True)
        _, count, seconds = out.stdout.split()
        results.append((int(count), float(seconds)))
    return results[0][0], max(min(seconds for _, seconds in results), 1e-9)


def time_numba(depth: int) -> tuple[int, float]:
    from samuel.games.tigers.board import SHEEP, START_TIGERS
    from samuel.games.tigers.kernels import perft

    perft(START_TIGERS, 0, SHEEP, 0, 3)  # compile (or load) outside the timing
    best, count = float("inf"), 0
    for _ in range(RUNS):
        start = time.perf_counter()
        count = perft(START_TIGERS, 0, SHEEP, 0, depth)
        best = min(best, time.perf_counter() - start)
    return count, max(best, 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=7)
    depth = parser.parse_args().depth
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_c(SOURCE, tmp)
        rows = [("numba", *time_numba(depth)), ("C", *time_c(binary, depth))]

    print(f"{'':6} {'depth':>5} {'count':>12} {'seconds':>9} {'M leaves/s':>11}")
    for name, count, seconds in rows:
        print(f"{name:6} {depth:5} {count:12} {seconds:9.4f} {count / seconds / 1e6:11.1f}")
    (_, numba_count, numba_s), (_, c_count, c_s) = rows
    print(f"numba/C time ratio: {numba_s / c_s:.2f}")
    if numba_count != c_count:
        print(f"COUNTS DIFFER: numba {numba_count}, C {c_count}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
