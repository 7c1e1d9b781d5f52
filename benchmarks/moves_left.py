"""The moves-left head in the search (``docs/moves-left.md``): does the engine win faster and lose
slower with ``moves_left=on``, at the same strength?

Four parts; the last three are each run with the network's plain search (``FILE.bin:depth=D``)
and with the head's nudge (``FILE.bin:depth=D,moves_left=on``, plus ``--ml`` settings):

0. **The head itself** (``head``). How well the head knows the plies left where the table
   knows them exactly: positions with the hand empty from ``--head-games`` self-play games of
   the network (depth D, 10 random opening plies, then 5% random moves, as ``samuel train``
   plays), deduplicated, that the table says are decided; by side to move and winner, the head's
   mean absolute error beside a constant guess's (the median), and the rank correlation
   (Spearman's rho) between its estimate and the table's distance.
1. **Against the tablebase** (``tablebase``). Seeded random Tigers & Sheep positions with the
   hand empty (4 tigers and 16 to 20 sheep on random points, either side to move) that the table
   says are won, or lost, for the side to move in at least ``--min-plies`` plies (shorter ones
   the search sees to the end by itself). The engine plays the side to move; ``perfect`` (the
   table, ``perfect:depth=1``) the other, to the end or ``--ply-cap`` plies (a draw, as is a
   third occurrence). Won positions: the engine's wins, draws and losses, the share converted,
   and for those converted the plies taken minus the table's optimum (mean, median, 90th
   percentile) and that excess relative to the optimum; then the mean excess of both engines
   over the wins both converted, the fair comparison, with the 95% range of the paired
   difference. Lost positions: the same, with the plies
   survived short of the optimum. Each side the engine played is reported apart.
2. **Against classic** (``classic``). A match against ``classic:depth=D``: the average plies of
   the games the engine won and of those it lost (lc0's table), and its score with the 95% range.
3. **Strength** (``sprt``). An SPRT (elo0=-10, elo1=0) of the head's search against the plain
   search, up to ``--sprt-games`` games: H1 accepted means "no weaker than 10 Elo" (H1 says the
   head's search is 0 Elo stronger, H0 that it is 10 weaker).

Positions, openings and every player's seeds come from ``--seed``; the figures do not depend on
``--workers``. Example (the table is big: mapping it takes a moment, each worker again)::

    .venv/bin/python benchmarks/moves_left.py --net runs/ml/latest.bin \\
        --tablebase tablebase --positions 200 --games 200 --depth 3 --workers 8
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from samuel.games import get_game
from samuel.games.game import Game
from samuel.games.tigers.rules import Position
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.match.head_to_head import play_match
from samuel.match.play import play_game
from samuel.match.sprt import Sprt
from samuel.players import PlayerSpecError, make_player
from samuel.seeds import derive_seed

PARTS = ("head", "tablebase", "classic", "sprt")
HEAD_GAME_STREAM = 0x4EAD  # the head part's self-play seeds
SIDE_NAMES = {True: "tigers", False: "sheep"}
POSITION_STREAM = 0x7AB1E  # keeps the positions' seeds apart from the players'
PLAYER_STREAM = 0x9A7E


@dataclass(frozen=True)
class Task:
    """One game from a table position: plain data, so that it crosses processes."""

    position: str  # in notation
    engine: str  # the engine's spec; it plays the side to move
    defender: str  # the table's spec; it plays the other side
    seed: int
    ply_cap: int


@dataclass(frozen=True)
class Played:
    engine_points: float  # 1 the engine won, 0.5 a draw (repetition, the cap), 0 it lost
    plies: int


def play_from(task: Task) -> Played:
    """Play the engine (to move) against the defender from the task's position."""
    rules = get_game("tigers")
    start = rules.parse_position(task.position)
    engine_side = rules.sides[rules.side_to_move(start)]
    players = {
        side: make_player(
            task.engine if side == engine_side else task.defender,
            rules,
            seed=derive_seed(task.seed, n, PLAYER_STREAM),
        )
        for n, side in enumerate(rules.sides)
    }
    game = play_game(rules, players, start=start, ply_cap=task.ply_cap)
    view = 1 if rules.side_to_move(start) == 0 else -1  # the result is the first side's
    return Played((1 + view * game.outcome.result) / 2, game.ply)


def table_positions(table, count: int, seed: int, min_plies: int) -> dict:
    """``count`` positions won and ``count`` lost for the side to move (each in at least
    ``min_plies`` plies), with the table's plies: ``{(won, tiger_to_move): [(position, plies)]}``.
    Drawn and finished positions are skipped."""
    rules = get_game("tigers")
    rng = np.random.default_rng([seed, POSITION_STREAM])
    found: dict = {}
    won = lost = 0
    while won < count or lost < count:
        sheep = int(rng.integers(16, 21))  # 0 to 4 captured: the game not yet won
        points = [int(p) for p in rng.permutation(25)]
        position = Position(
            sum(1 << p for p in points[:4]),
            sum(1 << p for p in points[4 : 4 + sheep]),
            0,
            bool(rng.integers(2)),
        )
        if Game(rules, start=position).outcome is not None:
            continue
        outcome, plies = table.value(position)
        if outcome == 0 or plies < min_plies:
            continue
        if (outcome > 0 and won >= count) or (outcome < 0 and lost >= count):
            continue
        won, lost = won + (outcome > 0), lost + (outcome < 0)
        found.setdefault((outcome > 0, position.tiger_to_move), []).append((position, plies))
    return found


def run(tasks: Sequence[Task], workers: int) -> list[Played]:
    if workers <= 1 or len(tasks) <= 1:
        return [play_from(task) for task in tasks]
    context = multiprocessing.get_context("spawn")  # fresh interpreters load numba's cache
    with ProcessPoolExecutor(min(workers, len(tasks)), mp_context=context) as pool:
        return list(pool.map(play_from, tasks, chunksize=1))


def figures(values: Sequence[float]) -> str:
    if not values:
        return "-"
    v = np.asarray(values, dtype=float)
    return f"{v.mean():.1f} / {np.median(v):.1f} / {np.percentile(v, 90):.1f}"


def mean(values: Sequence[float]) -> str:
    return f"{np.mean(values):.1f}" if values else "-"


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}% ({part}/{whole})" if whole else "-"


def tablebase_part(args, engines: dict[str, str]) -> None:
    table = load_tablebase(args.tablebase)
    positions = table_positions(table, args.positions, args.seed, args.min_plies)
    defender = f"perfect:depth=1,tablebase={_quote(args.tablebase)}"
    rules = get_game("tigers")
    first = next(iter(positions.values()))[0][0]
    for spec in (*engines.values(), defender):  # compile (or load) the kernels here first
        make_player(spec, rules).choose_move(Game(rules, start=first))
    print(
        f"## Against the tablebase: {args.positions} won and {args.positions} lost positions "
        f"(at least {args.min_plies} plies), seed {args.seed}; defender `{defender}`, "
        f"ply cap {args.ply_cap}"
    )
    rows: dict[bool, list[str]] = {True: [], False: []}
    converted: dict[str, dict[tuple, int]] = {}  # engine -> (group, n) -> plies of a won game
    for name, engine in engines.items():
        for key, group in sorted(positions.items(), reverse=True):
            won, tiger_to_move = key
            tasks = [
                Task(str(position), engine, defender, derive_seed(args.seed, n), args.ply_cap)
                for n, (position, _) in enumerate(group)
            ]
            played = run(tasks, args.workers)
            # converted wins (the excess: plies taken beyond the optimum), or losses (the
            # shortfall: plies short of the optimum)
            ended = [
                (p.plies, best)
                for p, (_, best) in zip(played, group, strict=True)
                if p.engine_points == (1 if won else 0)
            ]
            if won:
                converted.setdefault(name, {}).update(
                    {(key, n): p.plies for n, p in enumerate(played) if p.engine_points == 1}
                )
            gaps = [plies - best if won else best - plies for plies, best in ended]
            ratios = [gap / best for gap, (_, best) in zip(gaps, ended, strict=True)]
            relative = f"{100 * np.mean(ratios):.0f}%" if ended else "-"
            means = (
                f"{np.mean([p for p, _ in ended]):.1f} ({np.mean([b for _, b in ended]):.1f})"
                if ended
                else "-"
            )
            points = [p.engine_points for p in played]
            results = " / ".join(str(points.count(x)) for x in (1.0, 0.5, 0.0))
            rows[won].append(
                f"| {name} | {SIDE_NAMES[tiger_to_move]} | {len(group)} | {results} | "
                f"{percent(len(ended), len(group))} | {figures(gaps)} | {relative} | {means} |"
            )
    for won, what, gap in ((True, "Converted", "taken beyond"), (False, "Lost", "short of")):
        print()
        print(
            f"| Engine | Side | {'Won' if won else 'Lost'} positions | W / D / L | {what} | "
            f"Plies {gap} the optimum: mean / median / p90 | Relative to the optimum | "
            "Mean plies (optimum) |"
        )
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(rows[won]))
    # The fair comparison of speed: the wins both engines converted.
    plain, head = (converted.get(name, {}) for name in engines)
    both = sorted(set(plain) & set(head))
    optimum = {
        (key, n): best for key, group in positions.items() for n, (_, best) in enumerate(group)
    }
    print()
    if both:
        excess = [np.mean([c[k] - optimum[k] for k in both]) for c in (plain, head)]
        # Paired: each won position's plies without the head minus with it; the 95% range of
        # their mean (normal approximation), as a share of the plain engine's mean excess.
        saved = np.array([plain[k] - head[k] for k in both], dtype=float)
        half = 1.96 * saved.std(ddof=1) / np.sqrt(len(both)) if len(both) > 1 else np.nan
        closer = "-"
        if excess[0] > 0:
            low, mid, high = (
                100 * x / excess[0]
                for x in (saved.mean() - half, saved.mean(), saved.mean() + half)
            )
            closer = f"{mid:.0f}% (95% range {low:.0f}% to {high:.0f}%)"
        print(
            f"Wins both converted ({len(both)}): mean plies beyond the optimum {excess[0]:.2f} "
            f"without the head, {excess[1]:.2f} with it: {closer} closer to the optimum."
        )
        print()


def classic_part(args, engines: dict[str, str]) -> None:
    opponent = f"classic:depth={args.depth}"
    print(f"## Against `{opponent}`: {args.games} games each, seed {args.seed}")
    print()
    print("| Engine | Score (95% range) | W / D / L | Mean plies in won games | in lost games |")
    print("|---|---|---|---|---|")
    for name, engine in engines.items():
        result = play_match(engine, opponent, args.games, seed=args.seed, workers=args.workers)
        won, lost = [], []
        for pair in result.pairs:
            for game in pair.games:
                if game.first_points == 1:
                    won.append(len(game.moves))
                elif game.first_points == 0:
                    lost.append(len(game.moves))
        s = result.statistics
        print(
            f"| {name} `{engine}` | {100 * s.score:.1f}% ({100 * s.score_low:.1f}–"
            f"{100 * s.score_high:.1f}%) | {s.wins} / {s.draws} / {s.losses} | "
            f"{mean(won)} | {mean(lost)} |",
            flush=True,
        )
    print()


def sprt_part(args, engines: dict[str, str]) -> None:
    plain, head = engines.values()
    test = Sprt(elo0=-10.0, elo1=0.0)
    result = play_match(
        head, plain, args.sprt_games, seed=args.seed, workers=args.workers, sprt=test
    )
    s = result.statistics
    decision = {
        "H0": "H0 (weaker by 10 Elo or more)",
        "H1": "H1 (as strong: no weaker than 10 Elo)",
    }.get(result.sprt.decision, f"none after {args.sprt_games} games")
    print(f"## Strength: SPRT ({test}) of `{head}` against `{plain}`")
    print()
    print(
        f"{result.games} games: score {100 * s.score:.1f}% ({100 * s.score_low:.1f}–"
        f"{100 * s.score_high:.1f}%), Elo {s.elo + 0.0:+.0f} ± {s.elo_error:.0f}, "
        f"W / D / L {s.wins} / {s.draws} / {s.losses}; LLR {result.sprt.llr:.2f} "
        f"[{test.lower:.2f}, {test.upper:.2f}]; accepted: {decision}"
    )


def head_part(args) -> None:
    from samuel.evaluation.moves_left import plies_left_estimate
    from samuel.evaluation.networks import load_network
    from samuel.games import kernels
    from samuel.nn.shape import PLIES, without_head
    from samuel.train.rollouts import tablebase_distances
    from samuel.train.selfplay import SelfPlaySettings, play_selfplay

    rules = get_game("tigers")
    game = rules.number
    network = load_network(args.net, game)
    table = load_tablebase(args.tablebase)
    seeds = np.array(
        [derive_seed(args.seed, HEAD_GAME_STREAM, g) for g in range(args.head_games)], np.int64
    )
    root = rules.encode(rules.initial_position())
    value = without_head(network, PLIES)
    settings = SelfPlaySettings(
        game, kernels.EVALUATOR_NETWORK, value, root, args.depth, 10, 0.05, 200
    )
    played = play_selfplay(settings, seeds)
    states = np.concatenate([played.positions[g, : played.plies[g]] for g in range(len(seeds))])
    states = np.unique(states[states[:, 2] == 0], axis=0)  # the hand empty, each once
    _, values, plies = tablebase_distances(table, states)
    decided = ~np.isnan(plies)
    states, values, plies = states[decided], values[decided], plies[decided]
    estimates = np.array([plies_left_estimate(game, network, s) for s in states])
    print(
        f"## The head against the table: {len(states)} decided positions with the hand empty "
        f"from {args.head_games} self-play games (depth {args.depth}), seed {args.seed}"
    )
    print()
    print(
        "| To move | Winner | Positions | Table's plies: mean | Head's error (plies) | "
        "Constant guess's error | Rank correlation |"
    )
    print("|---|---|---|---|---|---|---|")
    for tiger_to_move in (1, 0):
        for winner in (1, -1):
            chosen = (states[:, 3] == tiger_to_move) & (values == winner)
            if not chosen.any():
                continue
            truth, guess = plies[chosen], estimates[chosen]
            constant = np.abs(truth - np.median(truth)).mean()
            print(
                f"| {SIDE_NAMES[bool(tiger_to_move)]} | {SIDE_NAMES[winner > 0]} | "
                f"{int(chosen.sum())} | {truth.mean():.1f} | {np.abs(guess - truth).mean():.1f} | "
                f"{constant:.1f} | {_spearman(guess, truth):.2f} |"
            )
    print()


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation (ties ranked by order; enough for a figure)."""
    if len(a) < 2:
        return float("nan")
    ranks = [np.argsort(np.argsort(x, kind="stable")) for x in (a, b)]
    return float(np.corrcoef(*ranks)[0, 1])


def _quote(text: str) -> str:
    """A path as a spec writes it (in double quotes when it holds a separator)."""
    return f'"{text}"' if any(c in text for c in ',:"=') else text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", required=True, help="a network with the moves-left head")
    parser.add_argument("--tablebase", default="tablebase", help="the tablebase (tablebase)")
    parser.add_argument("--positions", type=int, default=100, help="won and lost ones each (100)")
    parser.add_argument("--games", type=int, default=200, help="games against classic (200)")
    parser.add_argument("--sprt-games", type=int, default=1000, help="the SPRT's most (1000)")
    parser.add_argument("--depth", type=int, default=3, help="both engines' and classic's (3)")
    parser.add_argument("--ml", default="", help="moves-left options, e.g. ml_threshold=0.9")
    parser.add_argument("--min-plies", type=int, default=6, help="the shortest optimum (6)")
    parser.add_argument("--ply-cap", type=int, default=200, help="from a table position (200)")
    parser.add_argument("--head-games", type=int, default=300, help="for the head part (300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"of {', '.join(PARTS)} (all)")
    args = parser.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    net = _quote(args.net)
    ml = f",{args.ml}" if args.ml else ""
    engines = {
        "plain": f"{net}:depth={args.depth}",
        "moves left": f"{net}:depth={args.depth},moves_left=on{ml}",
    }
    rules = get_game("tigers")
    for spec in engines.values():
        try:
            make_player(spec, rules)  # a bad spec or a network without the head stops here
        except PlayerSpecError as error:
            parser.error(str(error))
    print(f"Network {args.net}; engines: " + ", ".join(f"`{s}`" for s in engines.values()))
    print()
    if "head" in parts:
        head_part(args)
    if "tablebase" in parts:
        tablebase_part(args, engines)
    if "classic" in parts:
        classic_part(args, engines)
    if "sprt" in parts:
        sprt_part(args, engines)


if __name__ == "__main__":
    main()
