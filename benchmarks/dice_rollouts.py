"""Rollout labels for backgammon (samuel.train.dice_rollouts): how much the dice's variance
reduction saves, and how fast rollouts run. Prints figures; nothing passes or fails.

Positions: ``--positions`` positions with dice to roll, not decided, drawn (seeded) from
``--games`` self-play games of the shipped network at 0 ply (seeded dice and tie-breaks).

1. Variance reduction at equal K (``--ks``): each position labelled ``--repeats`` times with
   independent seeds, by antithetic + quasi-random dice and by plain random dice (and by each of
   the two alone with ``--each``), the rollouts at ``--ply`` and truncated after ``--truncate``
   plies (0: played out). ``SE formula``: the labels' own standard error, the root mean square
   over positions and repeats (from pair means with antithetic pairs, from games otherwise:
   with stratified first rolls it overstates the error). ``SE seeds``: the spread of a
   position's equity over the repeats (standard deviation, ddof 1), the root mean square over
   positions: the error the label really has. ``ratio``: plain's ``SE seeds`` over this row's.
   With ``--gnubg``: each label's mean absolute error against GNU Backgammon's 2-ply cubeless
   equity of the position (that error mixes the rollout's noise, the champion's play and the
   network's leaf values), and the shipped network's own 0-ply equity's. With ``--luck``, a row
   of antithetic + quasi-random dice with each roll's luck subtracted (``luck=True``) too.
2. Throughput: rollout games per second from those positions, played to the end and truncated
   after ``--truncate`` plies, on 1 and 2 threads, at 0, 1 and 2 ply (``--speed-games`` games
   at 0 ply, a tenth of it at 1 ply, a 360th at 2 ply; four times as many truncated), with the
   plies per game; with ``--luck``, with each roll's luck taken too (a tenth of the games at 0
   and 1 ply).
3. The production loop's labelling throughput from those rates: labels an hour at K = 1296 on
   this machine's 2 threads, and the time to label the seed's 11 million positions on one such
   machine and on Ray clusters of 10 and 100 (the labelling units share out whole, so the time
   divides by the machines; the store's writes are far below its measured rates).

Run from the repository root::

    .venv/bin/python benchmarks/dice_rollouts.py [--positions 60] [--games 30] [--truncate 10]
        [--ks 36,144,1296] [--repeats 4] [--ply 0] [--gnubg] [--each] [--luck]
        [--speed-games 720] [--skip 1,2]
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numba
import numpy as np

from samuel.evaluation.networks import load_network, shipped_network
from samuel.evaluation.outcomes import outcome_predictions
from samuel.games import kernels as games
from samuel.games.backgammon.board import ROLL_FLAG
from samuel.games.backgammon.rules import RULES, Position
from samuel.search.plied import PliedSearcher
from samuel.seeds import derive_seed
from samuel.train.dice_rollouts import DiceRolloutConfig, dice_rollout_labels

GAME = RULES.number
NETWORK = games.EVALUATOR_NETWORK
BENCH = 0xD1CE
PLAIN, BOTH = "none", "antithetic+stratified"
LUCK = BOTH + "+luck"


def seeds(run: int, count: int) -> np.ndarray:
    return np.array([derive_seed(BENCH, run, i) for i in range(count)], dtype=np.int64)


def selfplay_positions(params: np.ndarray, games_played: int, count: int) -> np.ndarray:
    """``count`` positions with dice to roll, not decided, from seeded self-play games of
    ``params`` at 0 ply (numpy's generator, seeded, rolls the dice; the search breaks ties)."""
    rng = np.random.default_rng(BENCH)
    searcher = PliedSearcher(GAME)
    rolled, child = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
    found = []
    for number in range(games_played):
        state = RULES.initial_position().encode()
        for ply in range(1000):
            if Position.decode(state).winner() is not None:
                break
            found.append(state.copy())
            high, low = sorted(rng.integers(1, 7, size=2), reverse=True)
            games.play(GAME, state, ROLL_FLAG | int(10 * high + low), rolled)
            seed = derive_seed(BENCH, number, ply)
            move = searcher.search(rolled, NETWORK, params, 0, seed=seed).best_move
            games.play(GAME, rolled, move, child)
            state = child.copy()
    chosen = rng.choice(len(found), size=min(count, len(found)), replace=False)
    return np.ascontiguousarray(np.stack(found)[np.sort(chosen)])


def gnubg_equities(states: np.ndarray) -> np.ndarray:
    """GNU Backgammon's 2-ply cubeless equity of each position, in X's (the first player's)
    view."""
    from samuel.games.backgammon.gnubg_bridge import Evaluator

    judge = Evaluator(plies=2)
    out = []
    for state in states:
        position = Position.decode(state)
        equity = judge._gnubg_chances(position)[5]  # the side on roll's
        out.append(equity if position.x_to_move else -equity)
    return np.array(out)


def network_equities(params: np.ndarray, states: np.ndarray) -> np.ndarray:
    chances = outcome_predictions(GAME, params, states).astype(np.float64)
    return chances[:, :3].sum(axis=1) - chances[:, 3:].sum(axis=1)


def variance(params: np.ndarray, states: np.ndarray, args) -> None:
    reductions = [BOTH, PLAIN]
    if args.each:
        reductions[1:1] = ["antithetic", "stratified"]
    if args.luck:
        reductions.insert(0, LUCK)
    judge = gnubg_equities(states) if args.gnubg else None
    print(
        f"1. variance reduction: {len(states)} positions, {args.repeats} repeats, ply "
        f"{args.ply}, truncated after {args.truncate or 'no'} plies, "
        f"{numba.get_num_threads()} threads"
    )
    if judge is not None:
        error = np.abs(network_equities(params, states) - judge).mean()
        print(f"   the network's 0-ply equity: mean absolute error {error:.4f} against gnubg 2-ply")
    header = f"   {'K':>5} {'dice':27} {'SE formula':>10} {'SE seeds':>9} {'ratio':>6}"
    header += f" {'MAE gnubg':>9}" if judge is not None else ""
    print(header + f" {'games/s':>8}")
    for k in args.ks:
        rows = {}
        for reduction in reductions:
            config = DiceRolloutConfig(
                rollouts=k,
                ply=args.ply,
                truncate_plies=args.truncate,
                variance_reduction=reduction.removesuffix("+luck"),
                luck=reduction == LUCK,
            )
            equities, stderrs, played, seconds = [], [], 0, 0.0
            for repeat in range(args.repeats):
                started = time.perf_counter()
                labels = dice_rollout_labels(
                    GAME, NETWORK, params, states, seeds(100 + repeat, len(states)), config
                )
                seconds += time.perf_counter() - started
                played += labels.games
                equities.append(labels.equity)
                stderrs.append(labels.stderr)
            equities = np.stack(equities)
            spread = float(np.sqrt((equities.std(axis=0, ddof=1) ** 2).mean()))
            formula = float(np.sqrt((np.stack(stderrs) ** 2).mean()))
            rows[reduction] = (formula, spread, equities, played / seconds)
        for reduction in reductions:
            formula, spread, equities, rate = rows[reduction]
            ratio = rows[PLAIN][1] / spread
            line = f"   {k:5} {reduction:27} {formula:10.4f} {spread:9.4f} {ratio:6.2f}"
            if judge is not None:
                line += f" {np.abs(equities - judge).mean():9.4f}"
            print(line + f" {rate:8.0f}", flush=True)


def speed(params: np.ndarray, states: np.ndarray, args) -> dict:
    """Print the rates; return them, games a second by (ply, truncated, luck, threads)."""
    print("\n2. rollout games per second, antithetic + quasi-random dice")
    print(
        f"   {'ply':>3} {'truncated':>9} {'luck':>4} {'threads':>7} {'games':>6} "
        f"{'games/s':>8} {'plies/game':>10}"
    )
    most = numba.config.NUMBA_NUM_THREADS
    rates = {}
    for ply in (0, 1, 2):
        for truncate, luck in ((0, False), (args.truncate, False), *([(0, True)] * args.luck)):
            # each ply costs some 10 to 40 times the one below; luck 20 times at 0 ply
            count = args.speed_games // (1, 10, 360)[ply] // (10 if luck and ply < 2 else 1)
            if truncate:
                count *= 4  # a truncated game is a few times shorter
            k = 36 if ply == 0 and not luck else 2
            rows = max(1, count // k)
            roots = np.ascontiguousarray(np.resize(states, (rows, states.shape[1])))
            config = DiceRolloutConfig(rollouts=k, ply=ply, luck=luck, truncate_plies=truncate)
            warm = dataclasses.replace(config, rollouts=2, truncate_plies=2)
            dice_rollout_labels(GAME, NETWORK, params, roots[:1], seeds(1, 1), warm)
            for threads in (1, 2):
                if threads > most:
                    continue
                numba.set_num_threads(threads)
                started = time.perf_counter()
                labels = dice_rollout_labels(
                    GAME, NETWORK, params, roots, seeds(2, len(roots)), config
                )
                seconds = time.perf_counter() - started
                rates[ply, truncate, luck, threads] = labels.games / seconds
                print(
                    f"   {ply:3} {truncate or 'no':>9} {'yes' if luck else 'no':>4} {threads:7} "
                    f"{labels.games:6} {labels.games / seconds:8.1f} "
                    f"{labels.plies / labels.games:10.1f}",
                    flush=True,
                )
            numba.set_num_threads(most)
    return rates


SEED_POSITIONS = 11_000_000  # the seed's store of positions to label
LABEL_K = 1296  # the seed's rollouts a label


def projection(rates: dict) -> None:
    """Labels an hour at K = 1296 on this machine (its two cores), and the hours to label the
    seed's 11 million positions on it and on Ray clusters of 10 and 100 such machines."""
    print(
        f"\n3. labels at K = {LABEL_K} (antithetic + quasi-random dice, no luck), this machine's "
        "2 threads; the seed's 11 million positions on 1, 10 and 100 such machines, each "
        "labelling its own units (the work is position by position: it shares out whole)"
    )
    print(
        f"   {'ply':>3} {'truncated':>9} {'labels/hour':>11} {'1 machine':>14} "
        f"{'10 machines':>14} {'100 machines':>14}"
    )

    def span(hours: float) -> str:
        if hours < 48:
            return f"{hours:.1f} h"
        if hours < 24 * 365 * 2:
            return f"{hours / 24:.0f} days"
        return f"{hours / 24 / 365:.0f} years"

    for (ply, truncate, luck, threads), rate in sorted(rates.items()):
        if luck or threads != 2:
            continue
        per_hour = rate * 3600 / LABEL_K
        hours = SEED_POSITIONS / per_hour
        print(
            f"   {ply:3} {truncate or 'no':>9} {per_hour:11.1f} {span(hours):>14} "
            f"{span(hours / 10):>14} {span(hours / 100):>14}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60, help="positions (60)")
    parser.add_argument("--games", type=int, default=30, help="self-play games to draw from (30)")
    parser.add_argument("--truncate", type=int, default=10, help="plies before the leaf (10)")
    parser.add_argument("--ks", default="36,144,1296", help="rollouts per position (36,144,1296)")
    parser.add_argument("--repeats", type=int, default=4, help="labels per position (4)")
    parser.add_argument("--ply", type=int, default=0, help="the rollouts' ply (0)")
    parser.add_argument("--gnubg", action="store_true", help="the error against gnubg 2-ply")
    parser.add_argument("--each", action="store_true", help="antithetic and stratified alone")
    parser.add_argument("--luck", action="store_true", help="a row with each roll's luck taken")
    parser.add_argument("--speed-games", type=int, default=720, help="games at 0 ply (720)")
    parser.add_argument("--skip", default="", help="parts to skip (1,2)")
    args = parser.parse_args()
    args.ks = [int(k) for k in args.ks.split(",")]
    skip = {int(part) for part in args.skip.split(",") if part}
    if args.repeats < 2:
        parser.error("--repeats must be at least 2: the spread over seeds needs two labels")
    params = load_network(shipped_network(GAME), GAME)
    started = time.perf_counter()
    states = selfplay_positions(params, args.games, args.positions)
    print(
        f"{len(states)} positions from {args.games} self-play games "
        f"({time.perf_counter() - started:.1f} s)\n"
    )
    if 1 not in skip:
        variance(params, states, args)
    if 2 not in skip:
        projection(speed(params, states, args))


if __name__ == "__main__":
    main()
