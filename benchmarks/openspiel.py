"""Samuel beside OpenSpiel (issue 17, item 4): the same search in both, and a tournament.

``--part alphabeta``: Samuel's alpha-beta (``classic`` evaluation) and OpenSpiel's
``minimax.alpha_beta_search`` with the same evaluation at its leaves (the ``spiel-ab`` player),
on the same positions at the same depth: whether they find the same best score, and how many
positions a second each visits (Samuel: its search's node count; OpenSpiel: the states its
search plays an action into, counted in the adapter). Positions come from random openings of
``--plies`` plies (seeded), Tigers & Sheep by default, where an action is a move.

``--part tournament``: ``net``, ``classic`` and ``hybrid`` (at ``--depth``; ``--engines`` picks
some) and OpenSpiel's MCTS at each of ``--sims`` simulations play a round robin (``samuel
tournament``), with ratings; ``classic`` is the anchor at 0.

    PYTHONPATH=src .venv/bin/python benchmarks/openspiel.py --part alphabeta --depth 3
    PYTHONPATH=src .venv/bin/python benchmarks/openspiel.py --part tournament --sims 100,1000 \\
        --games 4
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from samuel.games import get_game
from samuel.games.game import Game
from samuel.games.kernels import EVALUATOR_CLASSIC
from samuel.players import make_player
from samuel.search.alphabeta import WIN, WIN_BOUND, Searcher
from samuel.spiel import game as spiel_game

PARTS = ("alphabeta", "tournament")


def positions(rules, count: int, plies: int, seed: int) -> list[Game]:
    """``count`` games after ``plies`` random plies each (none over), from ``seed``."""
    chooser = random.Random(seed)
    found = []
    while len(found) < count:
        game = Game(rules, ply_cap=200)
        for _ in range(plies):
            moves = rules.legal_moves(game.position)
            if game.outcome is not None or not moves:
                break
            game.play(chooser.choice(moves))
        if game.outcome is None:
            found.append(game)
    return found


class CountingActions:
    """Counts the actions applied to the adapter's states while it is on."""

    def __init__(self) -> None:
        self.count = 0
        self._original = spiel_game.SamuelState._apply_action

    def __enter__(self) -> CountingActions:
        original = self._original

        def counted(state, action):
            self.count += 1
            return original(state, action)

        spiel_game.SamuelState._apply_action = counted
        return self

    def __exit__(self, *_exc) -> None:
        spiel_game.SamuelState._apply_action = self._original


def part_alphabeta(args) -> None:
    rules = get_game(args.game)
    games = positions(rules, args.positions, args.plies, args.seed)
    params = rules.classic_weights()
    player = make_player(f"spiel-ab:depth={args.depth}", rules)
    player.choose_move(games[0])  # OpenSpiel's imports and Samuel's kernels, outside the timing
    rows, same = [], 0
    for game in games:
        searcher = Searcher(rules.number)  # a fresh table for every position
        keys = game.history_keys()
        result = searcher.search(
            rules.encode(game.position),
            keys,
            game.window_start,
            EVALUATOR_CLASSIC,
            params,
            args.depth,
        )
        with CountingActions() as counter:
            started = time.perf_counter()
            player.choose_move(game)
            spiel_seconds = time.perf_counter() - started
        spiel_score = player.last_value * WIN
        forced = abs(result.score) > WIN_BOUND or abs(player.last_value) >= 1.0
        agree = abs(spiel_score - result.score) < 1e-3 or (
            forced and (result.score > 0) == (player.last_value > 0)
        )
        same += agree
        rows.append((result, spiel_score, counter.count, spiel_seconds, agree))
    print(
        f"## Alpha-beta at depth {args.depth}: {rules.title}, {len(games)} positions after "
        f"{args.plies} random plies (seed {args.seed}), classic evaluation in both"
    )
    print(f"  same best score: {same} of {len(games)} (a forced result: the same sign)")
    samuel_rate = sum(r[0].nodes for r in rows) / sum(r[0].seconds for r in rows)
    spiel_rate = sum(r[2] for r in rows) / sum(r[3] for r in rows)
    print(
        f"  {'search':<34} {'positions':>10} {'seconds':>9} {'positions/s':>12} {'median ms':>10}"
    )
    print(
        f"  {'Samuel (compiled, tables, order)':<34} {sum(r[0].nodes for r in rows):>10,} "
        f"{sum(r[0].seconds for r in rows):>9.3f} {samuel_rate:>12,.0f} "
        f"{1000 * statistics.median(r[0].seconds for r in rows):>10.2f}"
    )
    print(
        f"  {'OpenSpiel (Python alpha-beta)':<34} {sum(r[2] for r in rows):>10,} "
        f"{sum(r[3] for r in rows):>9.3f} {spiel_rate:>12,.0f} "
        f"{1000 * statistics.median(r[3] for r in rows):>10.2f}"
    )
    print(
        f"  Samuel / OpenSpiel: {samuel_rate / spiel_rate:,.1f}x the positions a second, "
        f"{sum(r[3] for r in rows) / sum(r[0].seconds for r in rows):,.0f}x less time a search"
    )
    if same < len(games):
        print("  positions where they differ (Samuel's score, OpenSpiel's):")
        for game, (result, spiel_score, *_rest, agree) in zip(games, rows, strict=True):
            if not agree:
                text = rules.format_position(game.position)
                print(f"    {text}: {result.score:+.3f} {spiel_score:+.3f}")


def part_tournament(args) -> None:
    from samuel.match.report import format_tournament_report
    from samuel.match.tournament import play_tournament

    engines = [f"{name}:depth={args.depth}" for name in args.engines.split(",") if name]
    engines += [f"spiel-mcts:sims={sims}" for sims in args.sims]
    started = time.perf_counter()
    result = play_tournament(
        engines,
        args.games,
        seed=args.seed,
        workers=args.workers,
        game=args.game,
        anchor=f"classic:depth={args.depth}",
        progress=True,
    )
    print(f"## Tournament: {args.games} games a pairing, seed {args.seed}")
    print(format_tournament_report(result))
    print(f"  {time.perf_counter() - started:.0f} s on {args.workers} workers")


def numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="alphabeta", help=f"of {', '.join(PARTS)} (alphabeta)")
    parser.add_argument("--game", default="tigers", help="the game (tigers)")
    parser.add_argument("--depth", type=int, default=3, help="search depth (3)")
    parser.add_argument("--positions", type=int, default=30, help="positions to search (30)")
    parser.add_argument("--plies", type=int, default=12, help="random plies before each (12)")
    parser.add_argument("--seed", type=int, default=17, help="openings and players (17)")
    parser.add_argument("--sims", type=numbers, default=[100, 1000, 10000], help="MCTS sims")
    parser.add_argument("--games", type=int, default=4, help="games a pairing, even (4)")
    parser.add_argument(
        "--engines", default="net,classic,hybrid", help="Samuel's engines (net,classic,hybrid)"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    for part in args.part.split(","):
        if part not in PARTS:
            parser.error(f"unknown part {part!r}: choose from {', '.join(PARTS)}")
        {"alphabeta": part_alphabeta, "tournament": part_tournament}[part](args)
        print()


if __name__ == "__main__":
    main()
