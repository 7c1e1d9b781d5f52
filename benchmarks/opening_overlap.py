"""Are a match's openings new? Count those whose position can also be reached in another number
of plies, the lengths other runs drew their openings at.

Every position reachable from the start in exactly ``--against`` plies is listed (all of them,
by walking every move sequence), and each opening of the match (``--plies`` random plies from
``--seed``, pair by pair, as ``samuel match`` draws them) is looked up among them. A match whose
openings are all absent from those lists started no game from a position that a run with
openings of those lengths could have used to choose anything. The side to move is part of the
position, so lengths of different parity never meet; the count checks the rest.

    .venv/bin/python benchmarks/opening_overlap.py --game draughts --plies 6 --seed 424242 \\
        --pairs 100 --against 3,4,5
"""

from __future__ import annotations

import argparse

from samuel.games import get_game
from samuel.games.base import GameRules
from samuel.games.game import Game
from samuel.match.openings import OpeningConfig, opening_moves

MOST_PLIES = 7  # 8 plies of draughts are 1,369,731 sequences: too many to walk here


def reachable(rules: GameRules, plies: int) -> set:
    """Every position (by its text) reached from the start by exactly ``plies`` legal moves,
    the game not over at any of them (openings never end a game)."""
    found = set()
    game = Game(rules)

    def walk(depth: int) -> None:
        if depth == plies:
            found.add(rules.format_position(game.position))
            return
        for move in game.legal_moves():
            game.play(move)
            if game.outcome is None:
                walk(depth + 1)
            game.undo()

    walk(0)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tigers")
    parser.add_argument("--plies", type=int, required=True, help="the match's opening length")
    parser.add_argument("--seed", type=int, required=True, help="the match's seed")
    parser.add_argument("--pairs", type=int, required=True, help="the match's pairs (games / 2)")
    parser.add_argument("--against", required=True, help="other lengths, e.g. 3,4,5")
    args = parser.parse_args()
    rules = get_game(args.game)
    config = OpeningConfig(args.plies, args.plies)
    openings = set()
    for pair in range(args.pairs):
        game = Game(rules)
        for move in opening_moves(rules, config, args.seed, pair):
            game.play(move)
        openings.add(rules.format_position(game.position))
    print(
        f"{rules.title}: {args.pairs} openings of {args.plies} plies from seed {args.seed}, "
        f"{len(openings)} distinct positions"
    )
    for plies in sorted({int(text) for text in args.against.split(",")}):
        if not 0 <= plies <= MOST_PLIES:
            parser.error(f"--against: lengths from 0 to {MOST_PLIES}")
        others = reachable(rules, plies)
        shared = len(openings & others)
        print(f"  reachable in {plies} plies: {len(others):7d} positions; shared: {shared}")


if __name__ == "__main__":
    main()
