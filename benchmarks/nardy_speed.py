"""Long nardy's speed: perft from the start, plays generated per second, and self-play games per
second on 1 and 2 workers (numba threads).

perft from the start must give the rules' reference counts (perft(4) = 2,411,418; the exit status
is 1 if it does not). ``--reference`` counts it in the plain reference the tests hold the compiled
game against too (``tests/reference/nardy_rules.py``, written apart from it from the rules; about
8 minutes at depth 4, so the tests count it to depth 3 only).

The plays per second are the compiled generator's alone (``kernels.generate_plays``), timed on the
positions of seeded random games played to their end (the start, blocks, bearing off and doubles
among them), each roll's plays generated once per round, best of 3 rounds. The self-play games are
the training loop's (``samuel.train.loop.self_play``) with ``samuel train --game nardy``'s settings,
the network from random weights (seed 0x5EED), seeds from (generation, game): the same games on each
thread count, as ``benchmarks/selfplay.py`` plays them.

Run from the repository root::

    .venv/bin/python benchmarks/nardy_speed.py [--depth 4] [--positions 20000] [--games 100]
        [--quick] [--reference]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numba
import numpy as np

from samuel.evaluation.networks import random_network
from samuel.games.nardy import board, kernels
from samuel.games.nardy.rules import RULES
from samuel.train.config import RANDOM_WEIGHTS_SEED, game_defaults
from samuel.train.loop import self_play

PERFT = {1: 22, 2: 484, 3: 35_387, 4: 2_411_418}  # the rules' reference counts
ROUNDS = 3
UNFINISHED = 127  # kernels.result of a game still going


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
        while kernels.result(state) == UNFINISHED and found < count:
            high, low = sorted(rng.integers(1, 7, size=2), reverse=True)
            kernels.play_move(state, board.ROLL_FLAG | int(10 * high + low), rolled)
            states[found] = rolled
            found += 1
            n = kernels.generate_plays(rolled, moves)  # a pass is one play
            kernels.play_move(rolled, int(moves[rng.integers(n)]), child)
            state = child.copy()
    return states


def time_generator(states: np.ndarray) -> tuple[int, float]:
    """The plays of every state, and the best round's seconds."""
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


def time_self_play(games: int, workers: int) -> None:
    """Self-play games per second on 1 to ``workers`` threads, one line each."""
    params = random_network(RULES.number, RANDOM_WEIGHTS_SEED)
    config = dataclasses.replace(game_defaults(RULES.name), games=games)
    self_play(params, dataclasses.replace(config, games=2), 1)  # compile or load the kernels
    print(f"{'workers':>7} {'games':>6} {'plies':>7} {'seconds':>8} {'games/s':>8} {'speed-up':>8}")
    first = None
    for threads in range(1, workers + 1):
        numba.set_num_threads(threads)
        started = time.perf_counter()
        parts = self_play(params, config, 1)
        seconds = time.perf_counter() - started
        plies = int(np.sum([p.plies.sum() for p in parts]))
        first = first or seconds
        print(
            f"{threads:7d} {games:6d} {plies:7d} {seconds:8.2f} {games / seconds:8.1f} "
            f"{first / seconds:7.2f}x"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, choices=sorted(PERFT), help="perft depth (4)")
    parser.add_argument("--positions", type=int, help="rolled positions timed (20,000)")
    parser.add_argument("--games", type=int, help="self-play games per thread count (100)")
    parser.add_argument("--quick", action="store_true", help="small figures, a smoke test")
    parser.add_argument(
        "--reference", action="store_true", help="perft in the tests' plain reference too"
    )
    args = parser.parse_args()
    depth = args.depth or (3 if args.quick else 4)
    positions = args.positions or (2_000 if args.quick else 20_000)
    games = args.games or (10 if args.quick else 100)
    workers = min(2, numba.config.NUMBA_NUM_THREADS)

    start = RULES.initial_position().encode()
    kernels.perft(start, 1)  # compile (or load) before timing
    began = time.perf_counter()
    count = kernels.perft(start, depth)
    seconds = time.perf_counter() - began
    ok = count == PERFT[depth]
    print(
        f"perft({depth}) from the start: {count:,} ({'right' if ok else 'WRONG'}), "
        f"{seconds:.2f} s, {count / seconds / 1e6:.2f} M leaves/s"
    )
    if args.reference:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' reference
        from tests.reference import nardy_rules

        began = time.perf_counter()
        count = nardy_rules.perft(nardy_rules.START, depth)
        seconds = time.perf_counter() - began
        ok = ok and count == PERFT[depth]
        right = "right" if count == PERFT[depth] else "WRONG"
        print(f"the reference's perft({depth}): {count:,} ({right}), {seconds:.1f} s")
    states = random_states(positions, seed=1)
    plays, seconds = time_generator(states)
    print(
        f"generator: {len(states):,} rolls, {plays:,} plays in {seconds:.3f} s: "
        f"{len(states) / seconds:,.0f} rolls/s, {plays / seconds:,.0f} plays/s"
    )
    time_self_play(games, workers)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
