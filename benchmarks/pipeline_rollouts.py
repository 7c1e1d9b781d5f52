"""Rollout labels (samuel.train.rollouts): speed against self-play, and error against the
tablebase. Prints figures; nothing passes or fails.

1. Rollout games per second against self-play games per second (``train.selfplay``), both from
   the start position with the shipped Tigers network at the same depth, epsilon and ply cap.
2. Labelled positions per second at K = 16 and K = 64, on positions from those self-play games.
3. Label error against the tablebase: positions with the hand empty from self-play games (at
   ``--source-depth``, with random opening plies), labelled by K rollouts at ``--depth``, with
   and without variance reduction; mean absolute error and RMSE against the exact value (+1, 0,
   -1, tigers' view), beside the network's static value; ``bias`` is the mean signed error. VR
   rows: the default stratified random plies, and the Weyl lattice (``RolloutConfig.lattice``).
   ``RMS noise``: the RMS difference from reference labels of ``--reference-k`` rollouts (VR,
   other seeds) at the same depth: the part of the error that more rollouts remove (it includes
   the reference's own noise, and for Weyl rows the shift of its mean).
4. Rollouts that end at the tablebase (``rollout_labels(..., table=...)``) near the end of the
   placement: self-play positions (as in 3) with 1 to ``--near-hand`` sheep in hand, whose exact
   value is a full-width search over the placements left with the table at every leaf (the
   compiled search to one ply beyond the hand's end: every line ends in the table or the game's
   end, so its score is exact: ``±(WIN - plies)`` or a draw's 0). Rollout labels with the table
   and without, at each depth and K, VR on and off: error against those exact values, the mean
   plies per rollout game, and the share of games that ended at the table.

    .venv/bin/python benchmarks/pipeline_rollouts.py [--tablebase /work/tb/tablebase]
        [--games 512] [--positions 256] [--tb-positions 100] [--depth 1] [--tb-depths 1,2]
        [--near-positions 100] [--near-hand 4] [--skip 1,2,3]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from samuel.evaluation.networks import load_network, shipped_network
from samuel.games import kernels as games
from samuel.games.tigers.rules import RULES
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.search.alphabeta import WIN_BOUND, Searcher
from samuel.seeds import derive_seed
from samuel.train.rollouts import (
    RolloutConfig,
    _root_results,
    evaluate_positions,
    rollout_labels,
    tablebase_labels,
)
from samuel.train.selfplay import SelfPlaySettings, play_selfplay

GAME = RULES.number
NETWORK = games.EVALUATOR_NETWORK
BENCH = 0xBE7C


def seeds(run: int, count: int) -> np.ndarray:
    return np.array([derive_seed(BENCH, run, i) for i in range(count)], dtype=np.int64)


def played_positions(games_played) -> np.ndarray:
    rows = [
        games_played.positions[g, : games_played.plies[g]] for g in range(len(games_played.plies))
    ]
    return np.concatenate(rows)


def speed(params, args) -> np.ndarray:
    root = RULES.initial_position().encode()
    k = 16
    count = args.games // k * k
    print(
        f"1. games per second from the start, depth {args.depth}, epsilon {args.epsilon}, "
        f"ply cap 200, {numba.get_num_threads()} threads, {count} games each"
    )
    settings = SelfPlaySettings(GAME, NETWORK, params, root, args.depth, 0, args.epsilon, 200)
    play_selfplay(settings, seeds(0, 4))
    warm = RolloutConfig(rollouts=2, depth=args.depth, epsilon=args.epsilon)
    rollout_labels(GAME, NETWORK, params, np.stack([root]), seeds(0, 1), warm)
    started = time.perf_counter()
    played = play_selfplay(settings, seeds(1, count))
    selfplay_seconds = time.perf_counter() - started
    selfplay_rate = count / selfplay_seconds
    plies = int(played.plies.sum())
    print(f"   {'':28} {'games/s':>9} {'plies/s':>10} {'plies/game':>10} {'vs self-play':>12}")
    name = "self-play (play_selfplay)"
    print(
        f"   {name:28} {selfplay_rate:9.0f} {plies / selfplay_seconds:10.0f} "
        f"{plies / count:10.1f} {'100%':>12}"
    )
    states = np.stack([root] * (count // k))
    for reduced in (True, False):
        config = RolloutConfig(
            rollouts=k, depth=args.depth, epsilon=args.epsilon, variance_reduction=reduced
        )
        started = time.perf_counter()
        labels = rollout_labels(GAME, NETWORK, params, states, seeds(2, len(states)), config)
        seconds = time.perf_counter() - started
        rate = labels.games / seconds
        name = f"rollouts, K={k}, VR {'on' if reduced else 'off'}"
        print(
            f"   {name:28} {rate:9.0f} {labels.plies / seconds:10.0f} "
            f"{labels.plies / labels.games:10.1f} {rate / selfplay_rate:11.0%}"
        )
    return played_positions(played)


def labelling(params, positions, args) -> None:
    rng = np.random.default_rng(1)
    chosen = positions[rng.choice(len(positions), min(args.positions, len(positions)), False)]
    print(
        f"\n2. labelled positions per second ({len(chosen)} self-play positions, "
        f"depth {args.depth})"
    )
    print(f"   {'K':>4} {'VR':>4} {'positions/s':>12} {'games/s':>9} {'mean stderr':>12}")
    for k in (16, 64):
        for reduced in (True, False):
            config = RolloutConfig(
                rollouts=k, depth=args.depth, epsilon=args.epsilon, variance_reduction=reduced
            )
            started = time.perf_counter()
            labels = rollout_labels(GAME, NETWORK, params, chosen, seeds(3, len(chosen)), config)
            seconds = time.perf_counter() - started
            print(
                f"   {k:4} {'on' if reduced else 'off':>4} {len(chosen) / seconds:12.1f} "
                f"{labels.games / seconds:9.0f} {labels.stderr.mean():12.3f}"
            )


def tablebase_error(params, args) -> None:
    table = load_tablebase(args.tablebase)
    root = RULES.initial_position().encode()
    settings = SelfPlaySettings(GAME, NETWORK, params, root, args.source_depth, 8, 0.1, 200)
    played = play_selfplay(settings, seeds(4, args.source_games))
    positions = played_positions(played)
    positions = np.unique(positions[positions[:, 2] == 0], axis=0)
    mask, exact = tablebase_labels(table, positions)
    positions, exact = positions[mask], exact[mask].astype(np.float64)
    rng = np.random.default_rng(2)
    pick = rng.choice(len(positions), min(args.tb_positions, len(positions)), replace=False)
    positions, exact = np.ascontiguousarray(positions[pick]), exact[pick]
    wins, draws, losses = (int(np.sum(exact == v)) for v in (1, 0, -1))
    print(
        f"\n3. label error against the tablebase: {len(positions)} positions with the hand "
        f"empty from {args.source_games} self-play games at depth {args.source_depth} "
        f"(exact: {wins} tiger wins, {draws} draws, {losses} losses); epsilon {args.epsilon}"
    )
    print(
        f"   {'labels':30} {'MAE':>7} {'RMSE':>7} {'bias':>7} {'mean stderr':>12} "
        f"{'RMS noise':>9} {'seconds':>8}"
    )
    static = evaluate_positions(GAME, NETWORK, params, positions).astype(np.float64)
    error = static - exact
    print(
        f"   {'static network value':30} {np.abs(error).mean():7.3f} "
        f"{np.sqrt((error**2).mean()):7.3f} {error.mean():7.3f}"
    )
    for depth in args.tb_depths:
        reference = rollout_labels(
            GAME,
            NETWORK,
            params,
            positions,
            seeds(6, len(positions)),
            RolloutConfig(rollouts=args.reference_k, depth=depth, epsilon=args.epsilon),
        ).values.astype(np.float64)
        for k in args.ks:
            for reduced, lattice in ((False, "stratified"), (True, "stratified"), (True, "weyl")):
                config = RolloutConfig(
                    rollouts=k,
                    depth=depth,
                    epsilon=args.epsilon,
                    variance_reduction=reduced,
                    lattice=lattice,
                )
                started = time.perf_counter()
                labels = rollout_labels(
                    GAME, NETWORK, params, positions, seeds(5, len(positions)), config
                )
                seconds = time.perf_counter() - started
                error = labels.values.astype(np.float64) - exact
                name = f"depth {depth}, K={k}, " + (f"VR {lattice}" if reduced else "plain")
                noise = np.sqrt(((labels.values - reference) ** 2).mean())
                print(
                    f"   {name:30} {np.abs(error).mean():7.3f} {np.sqrt((error**2).mean()):7.3f} "
                    f"{error.mean():7.3f} {labels.stderr.mean():12.3f} {noise:9.3f} {seconds:8.1f}"
                )


def exact_values(table, params, positions: np.ndarray) -> np.ndarray:
    """Each position's perfect-play value (tigers' view, +1/0/-1): a search to one ply beyond the
    hand's end, with the table probed below the root, sees only exact leaves."""
    searcher = Searcher(GAME, table_bits=20)
    values = np.empty(len(positions))
    for i, state in enumerate(positions):
        to_empty = 2 * int(state[2]) - 1 + int(state[3])  # plies until the last sheep is placed
        keys = np.array([games.key(GAME, state)], dtype=np.int64)
        found = searcher.search(
            state, keys, 0, NETWORK, params, to_empty + 1, tablebase=table.layers
        )
        if abs(found.score) > WIN_BOUND:
            outcome = 1.0 if found.score > 0 else -1.0
        else:  # every leaf exact and no win: a draw scores exactly 0
            assert found.score == 0.0 and found.depth == to_empty + 1, found
            outcome = 0.0
        values[i] = outcome * games.sign(GAME, state)  # side to move's -> the tigers'
    return values


def near_the_table(params, args) -> None:
    table = load_tablebase(args.tablebase)
    root = RULES.initial_position().encode()
    settings = SelfPlaySettings(GAME, NETWORK, params, root, args.source_depth, 8, 0.1, 200)
    played = play_selfplay(settings, seeds(7, args.source_games))
    positions = played_positions(played)
    near = (positions[:, 2] >= 1) & (positions[:, 2] <= args.near_hand)
    positions = np.unique(positions[near], axis=0)
    results = np.empty(len(positions), dtype=np.int64)
    _root_results(GAME, positions, results)
    positions = positions[results == games.NOT_OVER]  # decided ones get exact labels anyway
    rng = np.random.default_rng(3)
    pick = rng.choice(len(positions), min(args.near_positions, len(positions)), replace=False)
    positions = np.ascontiguousarray(positions[np.sort(pick)])
    started = time.perf_counter()
    exact = exact_values(table, params, positions)
    exact_seconds = time.perf_counter() - started
    wins, draws, losses = (int(np.sum(exact == v)) for v in (1, 0, -1))
    hands = np.bincount(positions[:, 2], minlength=args.near_hand + 1)[1:].tolist()
    print(
        f"\n4. rollouts ending at the tablebase: {len(positions)} positions with "
        f"1-{args.near_hand} sheep in hand (by hand: {hands}) from {args.source_games} "
        f"self-play games at depth {args.source_depth}; exact values by full-width search "
        f"to the table in {exact_seconds:.1f} s ({wins} tiger wins, {draws} draws, "
        f"{losses} losses); epsilon {args.epsilon}"
    )
    print(
        f"   {'labels':34} {'MAE':>7} {'RMSE':>7} {'bias':>7} {'mean stderr':>12} "
        f"{'plies/game':>10} {'at table':>8} {'seconds':>8}"
    )
    static = evaluate_positions(GAME, NETWORK, params, positions).astype(np.float64)
    error = static - exact
    print(
        f"   {'static network value':34} {np.abs(error).mean():7.3f} "
        f"{np.sqrt((error**2).mean()):7.3f} {error.mean():7.3f}"
    )
    for with_table in (True, False):  # compile first: the seconds are the labelling's
        warm = RolloutConfig(rollouts=2, depth=1, epsilon=args.epsilon)
        rollout_labels(
            GAME, NETWORK, params, positions[:1], seeds(9, 1), warm, table if with_table else None
        )
    for depth in args.tb_depths:
        for with_table in (True, False):
            for k in args.ks:
                for reduced in (True, False):
                    config = RolloutConfig(
                        rollouts=k, depth=depth, epsilon=args.epsilon, variance_reduction=reduced
                    )
                    started = time.perf_counter()
                    labels = rollout_labels(
                        GAME,
                        NETWORK,
                        params,
                        positions,
                        seeds(9, len(positions)),
                        config,
                        table if with_table else None,
                    )
                    seconds = time.perf_counter() - started
                    error = labels.values.astype(np.float64) - exact
                    name = (
                        f"depth {depth}, K={k}, VR {'on' if reduced else 'off'}, "
                        f"{'table' if with_table else 'no table'}"
                    )
                    print(
                        f"   {name:34} {np.abs(error).mean():7.3f} "
                        f"{np.sqrt((error**2).mean()):7.3f} {error.mean():7.3f} "
                        f"{labels.stderr.mean():12.3f} {labels.plies / labels.games:10.1f} "
                        f"{labels.tabled.sum() / labels.games:8.0%} {seconds:8.1f}",
                        flush=True,
                    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tablebase", default="tablebase", help="the full table (samuel tablebase build)"
    )
    parser.add_argument("--games", type=int, default=512, help="games in part 1")
    parser.add_argument("--positions", type=int, default=256, help="positions in part 2")
    parser.add_argument("--tb-positions", type=int, default=100, help="positions in part 3")
    parser.add_argument("--source-games", type=int, default=200, help="self-play games, part 3")
    parser.add_argument("--depth", type=int, default=1, help="parts 1 and 2's search depth")
    parser.add_argument(
        "--tb-depths",
        type=lambda text: [int(d) for d in text.split(",")],
        default=[1, 2],
        help="part 3's rollout depths (comma-separated)",
    )
    parser.add_argument("--source-depth", type=int, default=2, help="part 3's self-play depth")
    parser.add_argument("--epsilon", type=float, default=0.05)
    parser.add_argument(
        "--reference-k", type=int, default=256, help="part 3: rollouts of the reference labels"
    )
    parser.add_argument(
        "--ks",
        type=lambda text: [int(k) for k in text.split(",")],
        default=[4, 16, 64],
        help="K values of part 3 (comma-separated)",
    )
    parser.add_argument("--near-positions", type=int, default=100, help="positions in part 4")
    parser.add_argument(
        "--near-hand", type=int, default=4, help="part 4: at most this many sheep in hand"
    )
    parser.add_argument("--skip", default="", help="parts to skip, e.g. 3 or 1,2,3")
    args = parser.parse_args()
    params = load_network(shipped_network(GAME), GAME)
    skip = set(args.skip.split(","))
    positions = speed(params, args) if "1" not in skip or "2" not in skip else None
    if "2" not in skip:
        labelling(params, positions, args)
    if "3" not in skip:
        tablebase_error(params, args)
    if "4" not in skip:
        near_the_table(params, args)


if __name__ == "__main__":
    main()
