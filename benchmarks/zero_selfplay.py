"""Samuel Zero's self-play speed: games per second with 1 and with 2 workers (numba threads).

The games are the Zero trainer's (``samuel.train.zero_loop.zero_self_play``): the network from
random weights (seed 0x2E80), PUCT with ``--sims`` simulations a move, Dirichlet noise 0.25,
temperature 1 for the first 20 plies, ply cap 200, seeds from (run seed, generation, game). The
same games are played on every thread count (the table's plies say so).

    .venv/bin/python benchmarks/zero_selfplay.py [--games 100] [--sims 100] [--game tigers]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from samuel.evaluation.networks import random_zero_network
from samuel.games import get_game
from samuel.train.zero_config import ZERO_WEIGHTS_SEED, ZeroConfig
from samuel.train.zero_loop import zero_self_play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--game", default="tigers", help="the game to play (tigers)")
    args = parser.parse_args()
    params = random_zero_network(get_game(args.game).number, ZERO_WEIGHTS_SEED)
    config = ZeroConfig(game=args.game, games=args.games, simulations=args.sims)
    zero_self_play(params, ZeroConfig(game=args.game, games=2, simulations=4), 1)  # compile
    print(
        f"{'workers':>7} {'games':>6} {'plies':>7} {'seconds':>8} {'games/s':>8} "
        f"{'sims/s':>9} {'speed-up':>8}"
    )
    first = None
    for workers in range(1, min(2, numba.config.NUMBA_NUM_THREADS) + 1):
        numba.set_num_threads(workers)
        started = time.perf_counter()
        parts = zero_self_play(params, config, 1)
        seconds = time.perf_counter() - started
        plies = int(np.sum([p.plies.sum() for p in parts]))
        first = first or seconds
        print(
            f"{workers:7d} {args.games:6d} {plies:7d} {seconds:8.2f} {args.games / seconds:8.2f} "
            f"{plies * args.sims / seconds:9.0f} {first / seconds:7.2f}x"
        )


if __name__ == "__main__":
    main()
