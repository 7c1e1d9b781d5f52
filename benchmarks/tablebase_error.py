"""How well classic weights predict the truth: the error of ``sigmoid(K x eval)`` against the
tablebase's exact values (tigers win 1, draw 0.5, sheep win 0) on the Tigers & Sheep positions
of a data set with the hand empty, where the truth is known.

First, for each data set, how its games' results compare with the exact values on those rows:
the labels the first tuner fitted. Then each weights file is scored at the ``K`` that suits it
best on the distinct positions (so a file is not penalised for its scale), and at ``--k`` if
given. A tuner whose error against the table rises
while its error against the games' results falls has learned the data's noise, not the game.

    .venv/bin/python benchmarks/tablebase_error.py --data tuning/selfplay-classic-d3.npz \\
        --tablebase /work/tb/tablebase classic tuning/gradient.json
"""

from __future__ import annotations

import argparse

import numpy as np

from samuel.games.tigers.classic import load_weights
from samuel.tune import gradient as G
from samuel.tune.dataset import load_positions, unique_positions
from samuel.tune.gradient import result_targets
from samuel.tune.labels import tablebase_targets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, nargs="+", help="samuel selfplay files")
    parser.add_argument("--tablebase", required=True, help="the tablebase folder")
    parser.add_argument("--k", type=float, help="also score every file at this K")
    parser.add_argument("weights", nargs="+", help="weights files ('classic': the hand-written)")
    args = parser.parse_args()
    print("data set: rows with the hand empty, mean result, mean exact value, result = exact")
    for path in args.data:
        data = load_positions(path, "tigers")
        known, exact = tablebase_targets(args.tablebase, data.states)
        result = result_targets(data.results)[known]
        print(
            f"  {path}: {known.sum():,}, {result.mean():.3f}, {exact[known].mean():.3f}, "
            f"{np.mean(result == exact[known]):.1%}"
        )
    states = np.concatenate([load_positions(path, "tigers").states for path in args.data])
    known, exact = tablebase_targets(args.tablebase, states)
    states, exact = unique_positions(states[known], exact[known])
    features = G.sparse_features(states, tables=True)
    print(
        f"{len(states):,} distinct positions with the hand empty; tigers win "
        f"{np.mean(exact == 1):.1%}, draw {np.mean(exact == 0.5):.1%}, sheep win "
        f"{np.mean(exact == 0):.1%}"
    )
    print(f"{'weights':40s} {'best K':>8s} {'error':>8s}" + (f" {'at K':>8s}" if args.k else ""))
    for name in args.weights:
        weights = load_weights(None if name == "classic" else name)
        weights = np.concatenate([weights, np.zeros(features.feature_count - len(weights))])
        k = G.fit_scale(features, exact, weights)
        line = f"{name:40s} {k:8.4f} {G.mean_squared_error(features, exact, weights, k):8.5f}"
        if args.k:
            line += f" {G.mean_squared_error(features, exact, weights, args.k):8.5f}"
        print(line)


if __name__ == "__main__":
    main()
