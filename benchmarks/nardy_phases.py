"""How long nardy's games divide among its phases: the positions of self-play games of a network
(one, or one per phase) at long nardy's training defaults, counted by phase (start, middle,
race). A figure for docs/nardy.md ("Phases"), not a test.

    .venv/bin/python benchmarks/nardy_phases.py [--network FILE] [--games 500]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from samuel.evaluation.networks import load_network_or_phases, shipped_network
from samuel.evaluation.phases import position_phases
from samuel.games import get_game
from samuel.games.nardy.board import PHASES
from samuel.train.config import game_defaults
from samuel.train.loop import self_play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", help="weights file (default: the shipped network)")
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    rules = get_game("nardy")
    path = args.network or shipped_network(rules.number)
    params = load_network_or_phases(path, rules.number)
    config = replace(game_defaults("nardy"), games=args.games)
    counts = np.zeros(len(PHASES), dtype=np.int64)
    games = 0
    for part in self_play(params, config, 1):
        for g in range(len(part.plies)):
            n = int(part.plies[g])
            games += 1
            phases = position_phases(rules.number, part.positions[g, :n])
            counts += np.bincount(phases, minlength=len(PHASES))
    print(f"{path}: {games} games of self-play, {counts.sum():,} positions")
    for name, count in zip(PHASES, counts, strict=True):
        print(f"  {name:<7} {count:>8,}  {count / counts.sum():6.1%}  {count / games:6.1f} a game")


if __name__ == "__main__":
    main()
