"""Self-play speed: games per second with 1 and with 2 workers (numba threads).

The games are the training loop's (``samuel.train.loop.self_play``) with ``samuel train``'s
settings for the game (Tigers & Sheep's: depth 3, 10 random opening plies, epsilon 0.05, ply cap
200; backgammon's: depth 1, no random moves, ply cap 600): the network from random weights
(seed 0x5EED), seeds from (generation, game). The same games are played on every thread count.

    .venv/bin/python benchmarks/selfplay.py [--games 500] [--depth N] [--game tigers]
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numba
import numpy as np

from samuel.evaluation.networks import random_network
from samuel.games import get_game
from samuel.train.config import RANDOM_WEIGHTS_SEED, game_defaults
from samuel.train.loop import self_play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--depth", type=int, help="search depth (the game's training depth)")
    parser.add_argument("--game", default="tigers", help="the game to play (tigers)")
    args = parser.parse_args()
    params = random_network(get_game(args.game).number, RANDOM_WEIGHTS_SEED)
    defaults = game_defaults(args.game)
    depth = defaults.depth if args.depth is None else args.depth
    config = dataclasses.replace(defaults, games=args.games, depth=depth)
    warm_up = dataclasses.replace(config, games=4)
    self_play(params, warm_up, 1)  # compile or load the kernels
    print(f"{'workers':>7} {'games':>6} {'plies':>7} {'seconds':>8} {'games/s':>8} {'speed-up':>8}")
    first = None
    for workers in range(1, numba.config.NUMBA_NUM_THREADS + 1):
        numba.set_num_threads(workers)
        started = time.perf_counter()
        parts = self_play(params, config, 1)
        seconds = time.perf_counter() - started
        plies = int(np.sum([p.plies.sum() for p in parts]))
        first = first or seconds
        print(
            f"{workers:7d} {args.games:6d} {plies:7d} {seconds:8.2f} {args.games / seconds:8.1f} "
            f"{first / seconds:7.2f}x"
        )


if __name__ == "__main__":
    main()
