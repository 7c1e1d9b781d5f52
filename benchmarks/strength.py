"""A quick strength check between two players: paired games from random openings.

Every opening (``--opening-plies`` random moves from the start, seeded by the pair number) is
played twice, each player taking each side once. Prints the score with a normal-approximation
95% range (the match issue brings the full report: Elo, LOS, pentanomial counts, SPRT).

    .venv/bin/python benchmarks/strength.py classic:depth=4 classic:depth=2 --games 100
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter

import numpy as np

from samuel.games.game import Game
from samuel.games.tigers.rules import RULES
from samuel.players import make_player


def play_pair(first: str, second: str, pair: int, opening_plies: int, ply_cap: int):
    """The two games of one opening; yields (side of ``first``, result for ``first``, game)."""
    rng = np.random.default_rng([pair, 0x0BE1])
    opening = Game(RULES)
    for _ in range(opening_plies):
        moves = opening.legal_moves()
        if not moves:
            break
        opening.play(moves[int(rng.integers(len(moves)))])
    for first_side in RULES.sides:
        other_side = RULES.sides[1 - RULES.sides.index(first_side)]
        players = {first_side: make_player(first, RULES, seed=2 * pair),
                   other_side: make_player(second, RULES, seed=2 * pair + 1)}
        game = Game(RULES, ply_cap=ply_cap)
        for move in opening.moves:
            game.play(move)
        while game.outcome is None:
            side = RULES.sides[RULES.side_to_move(game.position)]
            game.play(players[side].choose_move(game))
        sign = 1 if first_side == RULES.sides[0] else -1
        yield first_side, game.outcome.result * sign, game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--games", type=int, default=100, help="games, an even number (100)")
    parser.add_argument("--opening-plies", type=int, default=4)
    parser.add_argument("--ply-cap", type=int, default=200)
    args = parser.parse_args()
    started = time.perf_counter()
    points = []
    by_side: Counter = Counter()
    endings: Counter = Counter()
    for pair in range(args.games // 2):
        for side, result, game in play_pair(args.first, args.second, pair, args.opening_plies,
                                            args.ply_cap):
            points.append((result + 1) / 2)
            by_side[side] += (result + 1) / 2
            endings[game.outcome.termination.value] += 1
    n = len(points)
    score = sum(points) / n
    spread = 1.96 * float(np.std(points)) / math.sqrt(n)
    print(f"{args.first} vs {args.second}: {sum(points):g}/{n} = {100 * score:.1f}% "
          f"(95% range {100 * max(0.0, score - spread):.1f}% to "
          f"{100 * min(1.0, score + spread):.1f}%)")
    for side in RULES.sides:
        print(f"  as {side}: {by_side[side]:g}/{n // 2}")
    for ending, count in endings.most_common():
        print(f"  {ending}: {count}")
    print(f"  {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
