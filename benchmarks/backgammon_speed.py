"""Backgammon's speed: perft from the start, plays generated per second against GNU
Backgammon's ``findbestmoves``, and 0-ply evaluations per second against its ``evaluate``, on
the same positions.

perft(3) from the start must be 116,154,993 (the exit status is 1 if it is not). The plays per
second are timed on positions of seeded random games (bar, bear-off and doubles among them), each
roll's plays generated once per round, best of 3 rounds; gnubg's ``findbestmoves`` also scores
every play with its 0-ply network (the bindings offer no way to list plays without it), so its
figure is an upper bound on its generator's time, not its generator alone. An evaluation is
one forward pass of the network (Samuel's 196-64-32-6, random weights: the time does not depend
on them; gnubg's own, bigger network), each position once per round, Samuel's in one compiled
loop, gnubg's one call each from Python (so its figure includes the call), on positions of other
games than the plays' (seed 2), once: gnubg caches its evaluations.

Run from the repository root::

    .venv/bin/python benchmarks/backgammon_speed.py [--depth 3] [--positions 20000]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from samuel.games.backgammon import board, kernels
from samuel.games.backgammon.rules import RULES

PERFT = {1: 447, 2: 202_782, 3: 116_154_993}
ROUNDS = 3


def random_states(count: int, seed: int) -> np.ndarray:
    """States with dice rolled, from seeded random games played to their end."""
    rng = np.random.default_rng(seed)
    states = np.empty((count, board.STATE_WORDS), dtype=np.int64)
    moves = np.empty(board.MAX_PLAYS, dtype=np.int64)
    rolled = np.empty(board.STATE_WORDS, dtype=np.int64)
    child = np.empty(board.STATE_WORDS, dtype=np.int64)
    found = 0
    while found < count:
        state = RULES.initial_position().encode()
        while kernels.result(state) == 127 and found < count:
            high, low = sorted(rng.integers(1, 7, size=2), reverse=True)
            kernels.play_move(state, board.ROLL_FLAG | int(10 * high + low), rolled)
            states[found] = rolled
            found += 1
            n = kernels.generate_plays(rolled, moves)
            kernels.play_move(rolled, int(moves[rng.integers(n)]), child)
            state = child.copy()
    return states


def time_samuel(states: np.ndarray) -> tuple[int, float]:
    moves = np.empty(board.MAX_PLAYS, dtype=np.int64)
    best = float("inf")
    total = 0
    for _ in range(ROUNDS):
        total = 0
        start = time.perf_counter()
        for state in states:
            total += kernels.generate_plays(state, moves)
        best = min(best, time.perf_counter() - start)
    return total, best


def time_gnubg(states: np.ndarray) -> tuple[int, float] | None:
    try:
        import gnubg
    except ImportError:
        return None
    from samuel.games.backgammon.rules import Position

    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 0, 1, 0.0)
    boards = []
    for state in states:
        position = Position.decode(state)
        boards.append(
            ((position.opponent, position.mover), (position.dice.high, position.dice.low))
        )
    best = float("inf")
    total = 0
    for _ in range(ROUNDS):
        total = 0
        start = time.perf_counter()
        for gnubg_board, dice in boards:
            total += max(1, len(gnubg.findbestmoves(gnubg_board, cube, context, dice)))
        best = min(best, time.perf_counter() - start)
    return total, best


def time_evaluations(states: np.ndarray) -> tuple[float, float | None]:
    """Seconds for one 0-ply evaluation of every state, Samuel's (best of ROUNDS) and gnubg's
    (one round; None without it)."""
    from samuel.evaluation.networks import random_network
    from samuel.evaluation.outcomes import outcome_predictions

    params = random_network(RULES.number, 1)
    outcome_predictions(RULES.number, params, states[:2])  # compile (or load)
    ours = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        outcome_predictions(RULES.number, params, states)
        ours = min(ours, time.perf_counter() - start)
    try:
        import gnubg
    except ImportError:
        return ours, None
    from samuel.games.backgammon.rules import Position

    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 0, 1, 0.0)
    boards = []
    for state in states:
        position = Position.decode(state)
        boards.append((position.opponent, position.mover))
    # One round: gnubg keeps an evaluation cache, so a second round would time its look-ups.
    start = time.perf_counter()
    for board_ in boards:
        gnubg.evaluate(board_, cube, context)
    return ours, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, choices=sorted(PERFT))
    parser.add_argument("--positions", type=int, default=20_000)
    args = parser.parse_args()
    start = RULES.initial_position().encode()
    kernels.perft(start, 1)  # compile (or load) before timing
    began = time.perf_counter()
    count = kernels.perft(start, args.depth)
    seconds = time.perf_counter() - began
    ok = count == PERFT[args.depth]
    print(
        f"perft({args.depth}) from the start: {count:,} ({'right' if ok else 'WRONG'}), "
        f"{seconds:.1f} s, {count / seconds / 1e6:.2f} M leaves/s"
    )
    states = random_states(args.positions, seed=1)
    plays, ours = time_samuel(states)
    print(
        f"Samuel: {len(states):,} rolls, {plays:,} plays in {ours:.3f} s: "
        f"{len(states) / ours:,.0f} rolls/s, {plays / ours:,.0f} plays/s"
    )
    gnubg_time = time_gnubg(states)
    if gnubg_time is None:
        print("gnubg is not installed (pip install gnubg): no comparison")
    else:
        theirs, seconds = gnubg_time
        print(
            f"gnubg findbestmoves (plays scored at 0-ply too): {theirs:,} plays in "
            f"{seconds:.3f} s: {len(states) / seconds:,.0f} rolls/s, {theirs / seconds:,.0f} "
            f"plays/s; Samuel is {seconds / ours:.1f}x as fast"
        )
    ours, theirs = time_evaluations(random_states(args.positions, seed=2))
    line = f"0-ply evaluations: Samuel {len(states) / ours:,.0f}/s"
    if theirs is not None:
        line += f", gnubg {len(states) / theirs:,.0f}/s (Samuel {theirs / ours:.1f}x as fast)"
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
