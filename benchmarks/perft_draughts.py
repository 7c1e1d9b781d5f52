"""Draughts perft speed: our numba kernel against the same bitboard algorithm in plain C
(perft_draughts.c), in the same run, beside Aart Bik's published figure.

Compiles ``perft_draughts.c`` with gcc into a temporary directory, loads (or compiles) the numba
perft at a small depth so that compilation is not timed, then times perft from the start in
both, best of ``--runs`` runs each, and prints the counts (which must agree with each other and,
to depth 12, with docs/rules-draughts.md: the exit status is 1 if not), the seconds, million leaves
per second, the time ratio numba/C, and our time beside Bik's 8.4 s for perft(12) (2.2 GHz Core 2
Duo, bulk counting at the leaves, as ours).

Times are the process's CPU time (``time.process_time`` here, ``CLOCK_PROCESS_CPUTIME_ID`` in C),
so that a machine shared with other work still gives comparable figures; both are one thread.

Run from the repository root::

    .venv/bin/python benchmarks/perft_draughts.py [--depth N] [--runs R]   # default 12, 1
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from build_c import build_c  # benchmarks/ is on the path when a benchmark runs

SOURCE = Path(__file__).with_name("perft_draughts.c")
# Aart Bik's published counts for English checkers (docs/rules-draughts.md gives 1-10 and 12).
PUBLISHED = {10: 18_391_564, 11: 85_242_128, 12: 388_623_673}
BIK_PERFT_12_SECONDS = 8.4  # 2.2 GHz Core 2 Duo, bulk counting


def time_c(binary: str, depth: int, runs: int) -> tuple[int, float]:
    """Best of ``runs``; the program times itself, so process start-up is not counted."""
    results = []
    for _ in range(runs):
        out = subprocess.run([binary, str(depth)], capture_output=True, text=True, check=True)
        _, count, seconds = out.stdout.split()
        results.append((int(count), float(seconds)))
    return results[0][0], max(min(seconds for _, seconds in results), 1e-9)


def time_numba(depth: int, runs: int) -> tuple[int, float]:
    from samuel.games.draughts.board import START_BLACK, START_WHITE
    from samuel.games.draughts.kernels import perft

    perft(START_BLACK, START_WHITE, 0, 1, 4)  # compile (or load) outside the timing
    best, count = float("inf"), 0
    for _ in range(runs):
        start = time.process_time()
        count = perft(START_BLACK, START_WHITE, 0, 1, depth)
        best = min(best, time.process_time() - start)
    return count, max(best, 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--runs", type=int, default=1)
    arguments = parser.parse_args()
    depth, runs = arguments.depth, arguments.runs
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_c(SOURCE, tmp)
        rows = [("numba", *time_numba(depth, runs)), ("C", *time_c(binary, depth, runs))]

    print(f"{'':6} {'depth':>5} {'count':>12} {'CPU s':>9} {'M leaves/s':>11}")
    for name, count, seconds in rows:
        print(f"{name:6} {depth:5} {count:12} {seconds:9.3f} {count / seconds / 1e6:11.1f}")
    (_, numba_count, numba_s), (_, c_count, c_s) = rows
    print(f"numba/C time ratio: {numba_s / c_s:.2f} (target: at most 2)")
    if depth == 12:
        print(
            f"perft(12): numba {numba_s:.2f} s, C {c_s:.2f} s; Aart Bik's published "
            f"{BIK_PERFT_12_SECONDS} s on a 2.2 GHz Core 2 Duo"
        )
    failed = numba_count != c_count
    if failed:
        print(f"COUNTS DIFFER: numba {numba_count}, C {c_count}", file=sys.stderr)
    if depth in PUBLISHED and numba_count != PUBLISHED[depth]:
        print(f"NOT THE PUBLISHED COUNT {PUBLISHED[depth]}", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
