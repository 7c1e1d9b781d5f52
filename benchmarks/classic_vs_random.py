"""The classic engine against random moves in every game: a floor under the search's strength.

A fair match (paired games from random openings, each player on each side once a pair, as
``samuel match`` plays it) of ``classic`` at a small depth against ``random``, for each game,
printed with the score's 95% range and each side's score. Far above 90% on both sides is what a
working search and evaluation give; a fall there points at a broken search long before a subtler
strength match would.

    .venv/bin/python benchmarks/classic_vs_random.py [--games 200] [--depth 3]
"""

from __future__ import annotations

import argparse
import time

from samuel.games import descriptors
from samuel.match.head_to_head import play_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games a game (200)")
    parser.add_argument("--depth", type=int, default=3, help="classic's depth (3)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (2)")
    args = parser.parse_args()
    print(f"classic:depth={args.depth} against random, {args.games} games a game")
    for name, game in descriptors().items():
        started = time.perf_counter()
        result = play_match(
            f"classic:depth={args.depth}",
            "random",
            games=args.games,
            game=name,
            workers=args.workers,
        )
        s = result.statistics
        sides = ", ".join(
            f"as {side} {100 * result.by_side[side].score:.1f}%" for side in game.sides
        )
        print(
            f"{game.title:18} score {100 * s.score:5.1f}% (95% range {100 * s.score_low:.1f}% to "
            f"{100 * s.score_high:.1f}%), {sides}; {time.perf_counter() - started:.1f} s"
        )


if __name__ == "__main__":
    main()
