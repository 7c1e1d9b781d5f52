"""A Samuel backgammon player against GNU Backgammon, and GNU Backgammon's judgement of its play.

Plays N games (pairs of two, the same seeded dice for both games of a pair, Samuel on each side
once: ``samuel match``'s duplicate dice) of a Samuel player spec against a gnubg spec, then has
gnubg at 2 plies (cubeless money equity, its "normal" move filter: ``judge.py``) rate every play
Samuel made where the roll gave a choice. Prints Samuel's points per game (a gammon 2, a
backgammon 3) with a 95% range (normal approximation over the pairs), its mean error per
decision with a choice in millipoints (gnubg's error rate per unforced move), its share of
blunders (error above 0.080), and the time the games and the judging took. Needs ``pip install
'samuel[gnubg]'``.

Run from the repository root::

    .venv/bin/python benchmarks/backgammon_judged.py [--games 100] [--samuel classic:depth=1]
        [--gnubg gnubg:ply=0] [--ply 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import time

from samuel.games import get_game
from samuel.games.backgammon.judge import BLUNDER, Decision, PlayerReport, judge
from samuel.games.backgammon.rules import Play
from samuel.match.play import play_game
from samuel.match.runner import dice, player_seed
from samuel.players import make_player

SAMUEL = "samuel"


def play(samuel: str, gnubg: str, games: int, seed: int) -> tuple[list[int], list[Decision]]:
    """Samuel's points in each game (won less lost), and every play it made."""
    rules = get_game("backgammon")
    points: list[int] = []
    decisions: list[Decision] = []
    for number in range(games):
        pair, game_number = divmod(number, 2)
        ours = rules.sides[game_number]  # Samuel takes X in a pair's first game, O in its second
        players = {
            side: make_player(
                samuel if side == ours else gnubg,
                rules,
                seed=player_seed(seed, pair, game_number, index),
            )
            for index, side in enumerate(rules.sides)
        }
        game = play_game(rules, players, dice=dice(seed, pair))
        sign = 1 if game_number == 0 else -1  # an outcome's score is X's
        points.append(sign * game.outcome.score)
        for position, move in zip(game.positions, game.moves, strict=False):
            if isinstance(move, Play) and rules.sides[rules.side_to_move(position)] == ours:
                decisions.append(Decision(position, move, SAMUEL))
    return points, decisions


def points_range(points: list[int]) -> tuple[float, float]:
    """The mean points a game and the half-width of its 95% range, from the pairs (the two
    games of a pair share their dice, so they are not independent; a normal approximation)."""
    pairs = [sum(points[i : i + 2]) / 2 for i in range(0, len(points), 2)]
    mean = sum(pairs) / len(pairs)
    if len(pairs) < 2:
        return mean, math.inf
    spread = math.sqrt(sum((p - mean) ** 2 for p in pairs) / (len(pairs) - 1))
    return mean, 1.96 * spread / math.sqrt(len(pairs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games (100; pairs of two)")
    parser.add_argument("--samuel", default="classic:depth=1", help="Samuel's player spec")
    parser.add_argument("--gnubg", default="gnubg:ply=0", help="its opponent (gnubg:ply=0)")
    parser.add_argument("--ply", type=int, default=2, help="the judge's plies (2)")
    parser.add_argument("--seed", type=int, default=0, help="the dice's and players' seed (0)")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error("--games is an even number, at least 2: the games are played in pairs")

    started = time.perf_counter()
    points, decisions = play(args.samuel, args.gnubg, args.games, args.seed)
    played = time.perf_counter() - started
    started = time.perf_counter()
    report = PlayerReport(SAMUEL, tuple(judge(decisions, args.ply)))
    judged = time.perf_counter() - started

    n = len(points)
    mean, margin = points_range(points)
    print(f"{args.samuel} against {args.gnubg}, {n} games (seed {args.seed})")
    print(
        f"points per game      {mean:+.3f}  (95% range {mean - margin:+.3f} to "
        f"{mean + margin:+.3f})"
    )
    print(
        f"error per decision   {report.mean:.1f} millipoints ({report.decisions} decisions "
        f"with a choice of {len(decisions)} plays, gnubg {args.ply}-ply)"
    )
    print(
        f"blunders             {100 * report.blunder_share:.1f}% (error > {BLUNDER:.3f}: "
        f"{report.blunders})"
    )
    print(f"time                 {played:.1f} s playing, {judged:.1f} s judging")


if __name__ == "__main__":
    main()
