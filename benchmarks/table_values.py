"""How well networks' values (the network alone, no search) tell Tigers & Sheep positions apart,
judged by the tablebase, on the positions with the hand empty of match records.

For each network and each side to move: how many of the positions are lost, drawn and won for
that side; how well its value orders drawn above lost and won above drawn (the AUC: the chance
that a random position of the better class gets the higher value; 0.5 is chance, 1 perfect);
the mean value in each class. Then, in the drawn positions where the side to move has a move
that loses (*exposed*: docs/zero-journal.md), how often the move to the child the network
values best for the mover loses (a one-ply search with the network alone). The tigers' losing
moves are mostly short tactics, which one ply of a good value avoids; the sheep's mostly lose
much later.

    .venv/bin/python benchmarks/table_values.py --tablebase tablebase --records R1 R2 -- \\
        src/samuel/nn/shipped.bin src/samuel/nn/shipped-zero.bin

Value networks and Zero networks both work (a Zero network's value head). Needs a built
tablebase (``samuel tablebase build``).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.evaluation.networks import load_network, load_zero_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.record import read_records, replay
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.nn.shape import POLICY
from samuel.nn.weights import read_network

sys.path.insert(0, "benchmarks")
from decided import network_value, tigers_value  # noqa: E402

TIGERS = get_game("tigers").number


def record_positions(paths: list[str]) -> list:
    """The distinct positions with the hand empty in the records, in the order first met."""
    seen = {}
    for path in paths:
        for record in read_records(path):
            for position in replay(record).positions:
                if not position.sheep_in_hand:
                    seen.setdefault(tuple(position.encode()), position)
    return list(seen.values())


def evaluator(path: str):
    """A function giving the network's value of a position, for the tigers."""
    if read_network(path).network.has(POLICY):
        params = load_zero_network(path, TIGERS)
        return lambda position: network_value(params, position)
    params = load_network(path, TIGERS)
    size = evaluators.scratch_size(TIGERS, games.EVALUATOR_NETWORK, params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    return lambda position: float(
        evaluation.network_value(TIGERS, params, position.encode(), scratch, active)
    )


def auc(better: list[float], worse: list[float]) -> float:
    """The chance that a value from ``better`` is above one from ``worse`` (ties count half)."""
    if not better or not worse:
        return float("nan")
    ranks = _ranks(np.concatenate([better, worse]))
    n, m = len(better), len(worse)
    return float((ranks[:n].sum() - n * (n + 1) / 2) / (n * m))


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties given their mean rank."""
    _, which, counts = np.unique(values, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)  # the highest rank of each distinct value
    return (last - (counts - 1) / 2)[which]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tablebase", default="tablebase", help="the tablebase folder")
    parser.add_argument("--records", nargs="+", required=True, help="samuel match --records files")
    parser.add_argument("networks", nargs="+", help="weights files (value or Zero networks)")
    args = parser.parse_args()
    table = load_tablebase(args.tablebase)
    positions = record_positions(args.records)
    truth = [tigers_value(table, p) for p in positions]  # for the tigers
    exposed = []  # (position, [(child, outcome for the mover)])
    for position, value in zip(positions, truth, strict=True):
        if value != 0:
            continue
        moves = table.move_values(position)
        if len(moves) > 1 and min(outcome for _, outcome, _ in moves) < 0:
            exposed.append((position, [(position.play(m), o) for m, o, _ in moves]))
    print(f"{len(positions)} positions with the hand empty, {len(exposed)} of them exposed")
    print(f"{'network':<34} {'to move':<7} {'lost/drawn/won':>18} {'drawn>lost':>10} "
          f"{'won>drawn':>9} {'mean value: lost, drawn, won':>29}")  # fmt: skip
    for path in args.networks:
        value = evaluator(path)
        for side, name in ((1, "tigers"), (0, "sheep")):
            view = 1 if side else -1  # the mover's view of a value for the tigers
            classes = {-1: [], 0: [], 1: []}
            for position, exact in zip(positions, truth, strict=True):
                if position.tiger_to_move == side:
                    classes[exact * view].append(value(position) * view)
            counts = "/".join(str(len(classes[c])) for c in (-1, 0, 1))
            means = ", ".join(
                f"{np.mean(classes[c]):+.2f}" if classes[c] else "-" for c in (-1, 0, 1)
            )
            print(f"{path:<34} {name:<7} {counts:>18} {auc(classes[0], classes[-1]):>10.3f} "
                  f"{auc(classes[1], classes[0]):>9.3f} {means:>29}")  # fmt: skip
        losing = {1: 0, 0: 0}
        total = {1: 0, 0: 0}
        for position, children in exposed:
            view = 1 if position.tiger_to_move else -1
            _, outcome = max(children, key=lambda child: value(child[0]) * view)
            total[position.tiger_to_move] += 1
            losing[position.tiger_to_move] += outcome < 0
        print(
            f"{'':<34} one ply with the value loses in the exposed positions: tigers "
            f"{losing[1]} of {total[1]} ({100 * losing[1] / max(1, total[1]):.1f}%), sheep "
            f"{losing[0]} of {total[0]} ({100 * losing[0] / max(1, total[0]):.1f}%)"
        )


if __name__ == "__main__":
    main()
