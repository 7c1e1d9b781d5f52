"""Hot-path speed of two source trees, before and after a change, side by side.

Measures, for each tree (``--before``, by default ``/tmp/before/src``, and ``--after``, by
default ``src``), on both games: perft leaves/s from the start; alpha-beta nodes/s from the start
at a fixed depth with the classic evaluation and with the shipped network, and at one depth with
random value networks of 64-32 and (only a tree whose networks carry their shape) 256-128 hidden
units; self-play games/s (the training loop's, on 2 numba threads); training samples/s of our
network (no PyTorch); and PUCT simulations/s (as ``benchmarks/puct.py`` searches). Each tree
runs in fresh subprocesses with the tree first on ``PYTHONPATH`` (each prints the ``samuel`` it
imported), in rounds that alternate before, after, before, after...; a figure is the best
(highest rate) of its rounds. Every kernel is called once, untimed, before it is timed, and each
tree first runs one untimed warm-up subprocess, which compiles its kernels into numba's cache
(minutes, the first time a tree's sources are seen).

The table gives each figure's rate before and after and their ratio (after / before), with the
machine's load average beside it: the machine may be shared, so read low ratios against it. A
figure only one tree measures (the 256-128 network: a tree from before networks carried their
shape builds 64-32 ones only) shows ``-`` for the other; a second table sets each tree's 256-128
nodes/s beside its 64-32 network's. The work counts (perft leaves, alpha-beta nodes, self-play
plies, PUCT nodes) must be the same in every run of both trees: a difference means the two trees
do not compute the same thing, is printed loudly, and makes the exit status 1. Otherwise the
exit status is 0, whatever the speeds.

Times are wall-clock seconds of the timed call only (the search's own clock for alpha-beta and
PUCT), except draughts perft, which ``benchmarks/perft_draughts.py`` times in CPU seconds.
Self-play and training run on 2 numba threads. Training samples are made once, by the first
tree's warm-up, and both trees train on them.

Run from the repository root (about 3 minutes on 2 cores with warm caches, plus a few minutes a
tree whose kernels are not yet cached; ``--rounds 6`` or more still fits in 10; ``--quick``: one
round of small figures, a smoke test, about a minute)::

    .venv/bin/python benchmarks/interface_speed.py [--before DIR] [--after DIR] [--rounds 3]
        [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GAMES = ("tigers", "draughts")
EVALUATORS = ("classic", "net")  # player names: samuel.players.make_player
SELFPLAY_THREADS = 2
BATCH_SIZE = 256
NETWORK_SEED = 0x5EED  # the random value networks' (both sizes')
NARROW, WIDE = (64, 32), (256, 128)  # their hidden layers: every trained network's, and wider
# How much work each figure does, per game where it differs: each takes about 0.5-2 s here (2
# cores) at the default sizes. "warm" is the warm-up subprocess's (it only compiles and loads).
SIZES = {
    "default": {
        "perft": {"tigers": 7, "draughts": 11},  # 339,123,476 and 85,242,128 leaves
        "alphabeta": {
            ("tigers", "classic"): 10,
            ("tigers", "net"): 9,
            ("draughts", "classic"): 16,
            ("draughts", "net"): 14,
        },
        "networks": {"tigers": 6, "draughts": 10},  # the random 64-32 and 256-128 networks
        "selfplay": {"games": 400, "depth": 2},
        "training": {"samples": 65536, "epochs": 12},
        "puct": {"sims": 10000},
    },
    "quick": {
        "perft": {"tigers": 6, "draughts": 9},
        "alphabeta": {
            ("tigers", "classic"): 8,
            ("tigers", "net"): 7,
            ("draughts", "classic"): 13,
            ("draughts", "net"): 12,
        },
        "networks": {"tigers": 5, "draughts": 8},
        "selfplay": {"games": 50, "depth": 2},
        "training": {"samples": 8192, "epochs": 4},
        "puct": {"sims": 2000},
    },
    "warm": {
        "perft": {"tigers": 4, "draughts": 4},
        "alphabeta": {key: 2 for key in [(g, e) for g in GAMES for e in EVALUATORS]},
        "networks": {"tigers": 2, "draughts": 2},
        "selfplay": {"games": 4, "depth": 2},
        "training": {"samples": 4 * BATCH_SIZE, "epochs": 1},
        "puct": {"sims": 20},
    },
}


# ----------------------------------------------------------------------------------------------
# The child: every measurement, in the tree that PYTHONPATH names.


def number_of(rules) -> int:
    """The game's number: ``rules.number``, or ``kernel_id`` in a tree from before its rename
    (2026-12-06), so that the benchmark can measure such a tree too."""
    return rules.number if hasattr(rules, "number") else rules.kernel_id


def networks_module():
    """The tree's module of network loading: ``samuel.evaluation.networks``, or in a tree from
    before the evaluation layer (2026-12-06), ``samuel.games.networks``."""
    try:
        from samuel.evaluation import networks
    except ModuleNotFoundError:
        from samuel.games import networks
    return networks


def random_networks(game: int) -> list[tuple[tuple[int, ...], object]]:
    """``(hidden layers, network)`` of the random value networks the tree can build: the 64-32
    one in any tree (a flat parameter array before networks carried their shape, an array with
    its plan after), and the 256-128 one only where ``random_network`` takes the widths."""
    import inspect

    random_network = networks_module().random_network
    found = [(NARROW, random_network(game, NETWORK_SEED))]
    if "hidden" in inspect.signature(random_network).parameters:
        found.append((WIDE, random_network(game, NETWORK_SEED, hidden=WIDE)))
    return found


def network_figure(name: str, hidden: tuple[int, ...], depth: int) -> str:
    return f"alpha-beta {name} random {'-'.join(map(str, hidden))} d{depth}"


def use_the_trees_own_benchmarks() -> None:
    """Put the measured tree's own ``benchmarks/`` first on the path, so that each tree is timed
    by its own benchmark code (perft.py, puct.py, training_speed.py), which calls its own API."""
    tree = Path(os.environ["PYTHONPATH"].split(os.pathsep)[0])
    folder = tree.parent / "benchmarks"
    if folder.is_dir():
        sys.path.insert(0, str(folder))


def measure(sizes: dict, data: Path) -> list[dict]:
    """Every figure once (each kernel called untimed first): a row each, with its work count
    (None where no count is checked), the work done and the seconds it took."""
    import numba
    import numpy as np
    import perft as perft_tigers  # benchmarks/ is sys.path[0] in the child
    import perft_draughts
    import puct
    import training_speed

    from samuel.games import get_game
    from samuel.games.game import Game
    from samuel.games.kernels import EVALUATOR_NETWORK
    from samuel.players import make_player
    from samuel.search.alphabeta import Searcher
    from samuel.search.puct import PuctSearch, PuctSettings
    from samuel.train.buffer import Samples
    from samuel.train.config import RANDOM_WEIGHTS_SEED, TrainConfig
    from samuel.train.loop import self_play

    random_network = networks_module().random_network
    random_zero_network = networks_module().random_zero_network

    numba.set_num_threads(min(SELFPLAY_THREADS, numba.config.NUMBA_NUM_THREADS))
    rows = []

    def row(figure: str, unit: str, count, work: float, seconds: float) -> None:
        rows.append(
            {"figure": figure, "unit": unit, "count": count, "work": work, "seconds": seconds}
        )

    # perft: the benchmarks' own timing (each warms its kernel up first; best of its runs)
    depth = sizes["perft"]["tigers"]
    count, seconds = perft_tigers.time_numba(depth)
    row(f"perft tigers d{depth}", "leaves/s", count, count, seconds)
    depth = sizes["perft"]["draughts"]
    count, seconds = perft_draughts.time_numba(depth, 2)  # best of 2, in CPU seconds
    row(f"perft draughts d{depth}", "leaves/s", count, count, seconds)

    # alpha-beta from the start, each search with fresh tables (so the same nodes every time)
    for name in GAMES:
        rules = get_game(name)
        game = Game(rules)
        root, keys = rules.encode(game.position), game.history_keys()
        for evaluator_name in EVALUATORS:
            # the player's evaluation, as `samuel analyse --player classic|net` searches with
            player = make_player(evaluator_name, rules)
            depth = sizes["alphabeta"][(name, evaluator_name)]
            for searched in (2, depth):  # the first compiles (or loads) outside the timing
                result = Searcher(number_of(rules)).search(
                    root, keys, game.window_start, player.evaluator, player.params, searched
                )
            figure = f"alpha-beta {name} {evaluator_name} d{depth}"
            row(figure, "nodes/s", result.nodes, result.nodes, result.seconds)

    # alpha-beta with random value networks of two widths, at one depth (nodes/s side by side)
    for name in GAMES:
        rules = get_game(name)
        game = Game(rules)
        root, keys = rules.encode(game.position), game.history_keys()
        depth = sizes["networks"][name]
        for hidden, params in random_networks(number_of(rules)):
            for searched in (2, depth):  # the first compiles (or loads) outside the timing
                result = Searcher(number_of(rules)).search(
                    root, keys, game.window_start, EVALUATOR_NETWORK, params, searched
                )
            figure = network_figure(name, hidden, depth)
            row(figure, "nodes/s", result.nodes, result.nodes, result.seconds)

    # self-play: the training loop's games (as benchmarks/selfplay.py plays them)
    games, depth = sizes["selfplay"]["games"], sizes["selfplay"]["depth"]
    for name in GAMES:
        params = random_network(number_of(get_game(name)), RANDOM_WEIGHTS_SEED)
        self_play(params, TrainConfig(game=name, games=4, depth=depth), 1)  # compile or load
        started = time.perf_counter()
        parts = self_play(params, TrainConfig(game=name, games=games, depth=depth), 1)
        seconds = time.perf_counter() - started
        plies = int(np.sum([p.plies.sum() for p in parts]))
        row(
            f"self-play {name} d{depth} x{games} {numba.get_num_threads()}t",
            "games/s",
            plies,
            games,
            seconds,
        )

    # training: benchmarks/training_speed.py's own timing of our network (it warms up first)
    for name in GAMES:
        with np.load(data / f"{name}.npz") as arrays:
            samples = Samples(arrays["states"], arrays["targets"])
        samples = samples.take(np.arange(min(len(samples), sizes["training"]["samples"])))
        epochs = sizes["training"]["epochs"]
        rate = training_speed.ours(name, samples, BATCH_SIZE, epochs)
        work = epochs * len(samples)
        row(f"training {name} {len(samples)}x{epochs}", "samples/s", None, work, work / rate)

    # PUCT: benchmarks/puct.py's positions and search, best of its runs per position
    settings = PuctSettings(simulations=sizes["puct"]["sims"])
    for name in GAMES:
        rules = get_game(name)
        params = random_zero_network(number_of(rules), 0)
        search = PuctSearch(number_of(rules), max_nodes=(settings.simulations + 1) * 200)
        sims, seconds, nodes = 0, 0.0, 0
        for game in puct.positions(rules, seed=1):
            puct.search_once(search, params, game, PuctSettings(simulations=10))  # compile
            best = min(
                (puct.search_once(search, params, game, settings) for _ in range(puct.RUNS)),
                key=lambda result: result.seconds,
            )
            sims, seconds, nodes = (
                sims + best.simulations,
                seconds + best.seconds,
                nodes + best.nodes,
            )
        row(f"PUCT {name} {settings.simulations} sims", "sims/s", nodes, sims, seconds)
    return rows


def make_samples(data: Path, count: int) -> None:
    """Each game's training samples (training_speed.py's: self-play of the untrained network),
    made once, by the first tree, so that both trees train on the same ones."""
    import numpy as np
    import training_speed

    for name in GAMES:
        path = data / f"{name}.npz"
        if not path.exists():
            samples = training_speed.self_play_samples(name, count)
            np.savez(path, states=samples.states, targets=samples.targets)


def child(args: argparse.Namespace) -> None:
    use_the_trees_own_benchmarks()
    import samuel

    data = Path(args.data)
    if args.child == "warm":
        make_samples(data, max(SIZES[args.sizes]["training"]["samples"], 4 * BATCH_SIZE))
        sizes = SIZES["warm"]
    else:
        sizes = SIZES[args.sizes]
    rows = measure(sizes, data)
    print(json.dumps({"samuel": samuel.__file__, "rows": rows}))


# ----------------------------------------------------------------------------------------------
# The parent: warm-ups, alternating rounds, the table.


def run_child(tree: Path, mode: str, sizes: str, data: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    command = [sys.executable, __file__, "--child", mode, "--sizes", sizes, "--data", str(data)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {mode} run of {tree} failed (exit status {done.returncode})")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(result["samuel"]).resolve().is_relative_to(tree):
        raise SystemExit(f"{tree}: the child imported samuel from {result['samuel']}")
    return result


def print_network_widths(best: dict, depths: dict) -> None:
    """Each tree's alpha-beta nodes/s with the 256-128 network beside its 64-32 network's (the
    same search, depth and seed; the node counts differ, as the two networks' values do)."""
    print(f"\nalpha-beta with random value networks: nodes/s, {'-'.join(map(str, WIDE))} "
          f"beside {'-'.join(map(str, NARROW))}")  # fmt: skip
    print(f"{'tree':6} {'game':8} {'depth':>5} {'64-32':>13} {'256-128':>13} {'wide/narrow':>12}")
    for side in ("before", "after"):
        for name, depth in depths.items():
            narrow = best.get((side, network_figure(name, NARROW, depth)))
            wide = best.get((side, network_figure(name, WIDE, depth)))
            if narrow is None:
                continue
            shown = f"{wide:13,.0f}" if wide is not None else f"{'-':>13}"
            ratio = f"{wide / narrow:11.3f}x" if wide is not None and narrow > 0 else f"{'-':>12}"
            print(f"{side:6} {name:8} {depth:>5} {narrow:13,.0f} {shown} {ratio}")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="/tmp/before/src", help="the tree before (its src)")
    parser.add_argument("--after", default="src", help="the tree after (its src)")
    parser.add_argument("--rounds", type=int, help="timed runs of each tree (3; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="small figures, a smoke test")
    parser.add_argument("--child", choices=("warm", "time"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="default", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0
    sizes = "quick" if args.quick else "default"
    rounds = args.rounds or (1 if args.quick else 3)
    trees = {"before": Path(args.before).resolve(), "after": Path(args.after).resolve()}
    started = time.perf_counter()
    print(f"load average at the start (1, 5, 15 min): {load()}")
    results: dict[str, list[list[dict]]] = {side: [] for side in trees}
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        for side, tree in trees.items():
            warm_start = time.perf_counter()
            imported = run_child(tree, "warm", sizes, data)["samuel"]
            seconds = time.perf_counter() - warm_start
            print(f"{side:6}: samuel from {imported} (warm-up {seconds:.0f} s)")
        for index in range(rounds):
            for side, tree in trees.items():
                results[side].append(run_child(tree, "time", sizes, data)["rows"])
            print(f"round {index + 1}/{rounds} done ({time.perf_counter() - started:.0f} s)")

    # every figure either tree measured, in the order measured (the after tree's has them all)
    first = results["after"][0] + results["before"][0]
    figures = list(dict.fromkeys(row["figure"] for row in first))
    units = {row["figure"]: row["unit"] for row in first}
    best, counts = {}, {}
    for side, runs in results.items():
        for rows in runs:
            for row in rows:
                key = (side, row["figure"])
                rate = row["work"] / max(row["seconds"], 1e-9)
                best[key] = max(best.get(key, 0.0), rate)
                counts.setdefault(row["figure"], set()).add(row["count"])
    width = max(len(figure) for figure in figures)
    print()
    print(
        f"{'figure':{width}} {'unit':9} {'count':>11} {'before':>13} {'after':>13} "
        f"{'after/before':>12}"
    )
    mismatched = []
    for figure in figures:
        seen = counts[figure]
        if len(seen) > 1:
            mismatched.append(figure)
        count = "-" if seen == {None} else "MISMATCH" if len(seen) > 1 else str(next(iter(seen)))
        rates = [best.get((side, figure)) for side in ("before", "after")]
        before, after = (f"{rate:13,.0f}" if rate is not None else f"{'-':>13}" for rate in rates)
        if None in rates:  # only one tree measures it
            print(f"{figure:{width}} {units[figure]:9} {count:>11} {before} {after} {'-':>12}")
            continue
        ratio = rates[1] / rates[0] if rates[0] > 0 else float("nan")
        mark = "  (<0.95)" if ratio < 0.95 else ""
        print(
            f"{figure:{width}} {units[figure]:9} {count:>11} {before} {after} {ratio:11.3f}x{mark}"
        )
    print_network_widths(best, SIZES[sizes]["networks"])
    print(
        f"\nbest of {rounds} round(s) a figure; load average at the end (1, 5, 15 min): "
        f"{load()}; {os.cpu_count()} CPUs; {time.perf_counter() - started:.0f} s in all"
    )
    if mismatched:
        print("\n" + "!" * 78, file=sys.stderr)
        for figure in mismatched:
            for side, runs in results.items():
                found = [row["count"] for rows in runs for row in rows if row["figure"] == figure]
                print(f"COUNT MISMATCH in {figure}: {side} {found}", file=sys.stderr)
        print(
            "the trees (or runs) do not do the same work: their speeds do not compare",
            file=sys.stderr,
        )
        print("!" * 78, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
