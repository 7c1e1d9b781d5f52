"""Gradient-tuning speed: one full-batch gradient iteration (error and gradient over every
position) of ``samuel tune``, in positions and in non-zero features per second per thread.

The seed's Leorik did 725,000 positions in 9 ms on 12 threads: about 6.7 million positions per
second per thread, each with about 64 non-zero features (two for each piece on the board of its
tapered piece-square tables), so about 430 million non-zero features per second per thread. The
work of an iteration grows with the non-zero features, so that is the fair comparison. The
positions are real ones, from classic self-play (a data file from ``samuel selfplay``, or 300
games played here at depth 2), repeated to ``--positions`` rows; the features, with the
piece-square tables unless ``--no-tables``, are computed once, outside the timing, as ``samuel
tune`` does.

    .venv/bin/python benchmarks/tune_speed.py [--positions 1000000] [--data FILE.npz] [--no-tables]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from samuel.games.tigers.classic import load_weights
from samuel.tune import gradient as G
from samuel.tune.config import SelfPlayDataConfig
from samuel.tune.dataset import load_positions, make_positions

LEORIK = 725_000 / 0.009 / 12  # positions per second per thread
LEORIK_FEATURES = 64  # non-zero features a position: two for each of about 32 pieces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1_000_000)
    parser.add_argument("--data", help="labelled positions (samuel selfplay); else play 300 games")
    parser.add_argument("--repeats", type=int, default=20, help="iterations timed (best taken)")
    parser.add_argument(
        "--no-tables", dest="tables", action="store_false", help="the named features alone"
    )
    args = parser.parse_args()
    if args.data:
        data = load_positions(args.data, "tigers")  # the figures are Tigers & Sheep's
    else:
        data = make_positions(SelfPlayDataConfig(games=300, player="classic:depth=2"))
    rows = np.resize(np.arange(len(data)), args.positions)
    states, target = data.states[rows], G.result_targets(data.results[rows])
    features = G.sparse_features(states, tables=args.tables)
    weights = np.zeros(features.feature_count)
    weights[: len(load_weights())] = load_weights()
    per_position = len(features.index) / len(features)
    print(
        f"{len(features):,} positions ({len(data):,} distinct, repeated), "
        f"{per_position:.2f} non-zero features each ({features.feature_count} features)"
    )
    G.error_gradient(features, target, weights, 0.5)  # compile (or load) the kernel
    cores = numba.config.NUMBA_NUM_THREADS
    for threads in sorted({1, cores}):
        numba.set_num_threads(threads)
        times = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            G.error_gradient(features, target, weights, 0.5)
            times.append(time.perf_counter() - started)
        best, median = min(times), float(np.median(times))
        rate = len(features) / best / threads
        nonzero = len(features.index) / best / threads
        leorik = LEORIK * LEORIK_FEATURES
        print(
            f"{threads} thread(s): one iteration {1000 * best:.1f} ms (median "
            f"{1000 * median:.1f} ms), {len(features) / best / 1e6:.1f} M positions/s, "
            f"{rate / 1e6:.1f} M per thread ({rate / LEORIK:.2f} x Leorik's "
            f"{LEORIK / 1e6:.1f} M); {nonzero / 1e6:.0f} M non-zero features/s per thread "
            f"({nonzero / leorik:.2f} x Leorik's {leorik / 1e6:.0f} M)"
        )


if __name__ == "__main__":
    main()
