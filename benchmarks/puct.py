"""PUCT speed: simulations per second of the compiled search (:mod:`samuel.search.puct`) on one
core, for each game, with a random Zero network (speed does not depend on the weights' values).

Warms the kernel up first so that compilation is not timed, then searches the start position
and a few positions of a random game (each search from a fresh tree), best of 3 runs each, and
prints the simulations per second and the nodes per simulation. numba's threads play no part:
the search is one serial kernel.

Run from the repository root::

    .venv/bin/python benchmarks/puct.py [--sims N]    # default 2000 simulations a search
"""

from __future__ import annotations

import argparse

import numpy as np

from samuel.evaluation.networks import random_zero_network
from samuel.games import get_game
from samuel.games.game import Game
from samuel.search.puct import PuctSearch, PuctSettings

RUNS = 3
POSITIONS = 4  # searched positions a game: the start and three from one random game


def positions(rules, seed: int) -> list[Game]:
    """The start and three later positions of one random game, as games (for their history)."""
    rng = np.random.default_rng(seed)
    games = [Game(rules)]
    game = Game(rules)
    while game.outcome is None and len(games) < POSITIONS:
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
        if game.outcome is None and game.ply % 10 == 0:
            copy = Game(rules)
            for move in game.moves:
                copy.play(move)
            games.append(copy)
    return games


def search_once(search: PuctSearch, params: np.ndarray, game: Game, settings: PuctSettings):
    """One search of ``game``'s position from a fresh tree."""
    return search.search(
        params,
        game.rules.encode(game.position),
        game.history_keys(),
        game.window_start,
        settings,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=2000, help="simulations a search")
    args = parser.parse_args()
    settings = PuctSettings(simulations=args.sims)
    print(f"{'game':10} {'position':>8} {'sims/s':>10} {'nodes/sim':>9}")
    for name in ("tigers", "draughts"):
        rules = get_game(name)
        params = random_zero_network(rules.number, 0)
        search = PuctSearch(rules.number, max_nodes=(args.sims + 1) * 200)
        total_sims, total_seconds = 0, 0.0
        for index, game in enumerate(positions(rules, seed=1)):
            search_once(search, params, game, PuctSettings(simulations=10))  # compile
            best = min(
                (search_once(search, params, game, settings) for _ in range(RUNS)),
                key=lambda result: result.seconds,
            )
            total_sims += best.simulations
            total_seconds += best.seconds
            print(
                f"{name:10} {index:>8} {best.simulations_per_second:>10.0f} "
                f"{best.nodes / best.simulations:>9.1f}"
            )
        print(f"{name:10} {'all':>8} {total_sims / total_seconds:>10.0f}")


if __name__ == "__main__":
    main()
