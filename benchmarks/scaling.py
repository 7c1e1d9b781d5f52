"""Scaling beyond one machine (``docs/cluster.md``): the local backend against Ray on the same
work, Ray's cost per task, a multi-node cluster simulated on this machine, and a projection to
10 and 100 machines. Prints figures; nothing passes or fails. The machine's load average is
printed beside each figure (other work on the machine slows every figure).

1. **Self-play** (``--part selfplay``): one generation's games (``--games`` seeds from
   ``--seed``, ``--depth``, 10 random opening plies, epsilon 0.05, ply cap 200, as ``samuel
   train`` plays them) through ``train.selfplay.play_selfplay_parts``: on the local backend
   (one unit, numba's threads on every core) and on a private Ray instance on this machine
   (``ray_backend.connect``, as many CPUs as cores; four units a CPU, one thread each). The
   first round of each is reported apart (cold: Ray's workers start, import Samuel and load the
   kernels); then ``--repeats`` warm rounds, their best and median, and Ray's warm rate as a
   share of the local one.
2. **Match** (``--part match``): ``--match-games`` games of the network against
   ``classic:depth=D`` through ``match.head_to_head.play_match``: the local backend (one worker
   process a core, started afresh for each match, as ``samuel match`` does) against Ray.
3. **Overhead** (``--part overhead``): units that do nothing. One unit a run, ``--round-trips``
   times (ms a run, through ``RayBackend.run`` and as a bare Ray task), then ``--tasks`` units in
   one run (units per second: the rate the driver hands out and collects units).
4. **Cluster** (``--part cluster``): ``--nodes`` Ray nodes of one CPU each on this machine
   (``ray.cluster_utils.Cluster``, loopback only), the self-play generation of part 1 over them,
   and how many units each node ran; if some node ran none, the same again with Ray's ``SPREAD``
   scheduling strategy. The nodes share this machine's cores, so this shows that the work
   spreads, not how fast more machines would be.
5. **Projection** (``--part projection``, which needs parts 1 and 3 and runs them if not
   asked): a training step measured here (labelling one generation's games, then ``--epochs``
   epochs over a buffer of them), then, for ``--machines`` machines of ``--cores`` cores and
   generations of ``--generation`` games: the self-play time, the trainer's time (on the
   driver: it does not scale), the time per generation and games per second, and where adding
   machines stops helping (the trainer, the driver's rate of units, the pipeline's store, whose
   insert rates are the ones measured in docs/pipeline.md). The assumptions are printed with it.

Every game's seed comes from ``--seed``; the network is the shipped one (``--net shipped``, the
default where the game has one), random weights (``--net random``, seed 0x5EED) or a file.
Every Ray instance is started and shut down by this script, and listens on the loopback
interface only. On this machine's cores, alone (the acceptance figure is part 1's ratio)::

    PYTHONPATH=src timeout 1800 .venv/bin/python benchmarks/scaling.py \\
        [--part selfplay,match,overhead,cluster,projection] [--games 256] [--depth 2] \\
        [--repeats 5] [--match-games 64] [--nodes 3] [--machines 10,100] [--cores 32]
"""

from __future__ import annotations

import argparse
import math
import operator
import os
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from samuel.backends import MAX_UNITS, LocalBackend, unit_count
from samuel.evaluation.networks import (
    load_network,
    random_network,
    save_network,
    shipped_network,
)
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.nn.shape import PLIES, without_head
from samuel.train.config import RANDOM_WEIGHTS_SEED, TrainConfig
from samuel.train.loop import game_seed
from samuel.train.selfplay import SelfPlaySettings, play_selfplay_parts

PARTS = ("selfplay", "match", "overhead", "cluster", "projection")
NODE_STORE_BYTES = 256 * 2**20  # each simulated node's object store (Ray's default is 30% of RAM)

# The pipeline's store: positions per second of bulk inserts (50,000-row batches, each its own
# transaction), from docs/pipeline.md ("The store"; benchmarks/pipeline.py --part insert): the
# slowest and fastest figure over stores of 0 to 1.75 million positions.
STORE_RATES = {"PostgreSQL": (67_829, 84_502), "SQLite": (28_060, 70_706)}

# A unit that does nothing: a built-in taking (shared, unit), pickled by name as Samuel's own
# unit functions are, so a task costs what Ray and the backend cost and nothing else.
EMPTY_UNIT = operator.is_not


def nothing(shared, unit) -> None:
    """The bare Ray task's body (``ray.remote`` takes Python functions, not built-ins)."""


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


@dataclass(frozen=True)
class Work:
    """One generation's self-play: what ``play_selfplay_parts`` takes besides the backend."""

    settings: SelfPlaySettings  # the value network searching, as training's self-play does
    seeds: np.ndarray

    def play(self, backend) -> tuple[float, list]:
        """Seconds taken and the parts (the games) played by ``backend``."""
        started = time.perf_counter()
        parts = play_selfplay_parts(backend, self.settings, self.seeds)
        return time.perf_counter() - started, parts


@dataclass
class Rounds:
    """A backend's rounds of the same work: the first (cold) and the warm ones, in seconds."""

    games: int
    plies: int  # positions played (moves searched) in one round
    units: int
    cold: float
    warm: list[float]
    parts: list  # the games of the first round

    @property
    def best(self) -> float:
        return min(self.warm)

    @property
    def median(self) -> float:
        return statistics.median(self.warm)


def network(args, rules) -> tuple[np.ndarray, str, str]:
    """The network (with any heads), where it came from, and a file holding it for players."""
    if args.net == "shipped" and shipped_network(rules.number) is None:
        args.net = "random"  # the game ships none
    if args.net == "random":
        params = random_network(rules.number, RANDOM_WEIGHTS_SEED)
        path = Path(args.folder) / "random.bin"
        save_network(params, path, rules.number)
        return params, f"random weights (seed {RANDOM_WEIGHTS_SEED:#x})", str(path)
    path = str(shipped_network(rules.number)) if args.net == "shipped" else args.net
    params = load_network(path, rules.number)
    return params, ("the shipped network" if args.net == "shipped" else path), path


def selfplay_work(args, params, rules) -> Work:
    config = TrainConfig(game=args.game, games=args.games, depth=args.depth)
    settings = SelfPlaySettings(
        game=rules.number,
        evaluator=games.EVALUATOR_NETWORK,
        params=without_head(params, PLIES),  # self-play plays on the value alone, head or not
        root=rules.encode(rules.initial_position()),
        depth=config.depth,
        random_plies=config.random_plies,
        epsilon=config.epsilon,
        ply_cap=config.ply_cap,
    )
    return Work(
        settings=settings,
        seeds=np.array([game_seed(args.seed, g) for g in range(args.games)], dtype=np.int64),
    )


def rounds(backend, work: Work, repeats: int) -> Rounds:
    cold, parts = work.play(backend)
    warm = [work.play(backend)[0] for _ in range(repeats)]
    plies = int(sum(part.plies.sum() for part in parts))
    return Rounds(len(work.seeds), plies, len(parts), cold, warm, parts)


def same_games(first: list, second: list) -> bool:
    """Whether two runs played the same games (they must: a game depends on its seed alone)."""
    a, b = (np.concatenate([part.plies for part in run]) for run in (first, second))
    c, d = (np.concatenate([part.results for part in run]) for run in (first, second))
    return bool(np.array_equal(a, b) and np.array_equal(c, d))


def print_rounds(name: str, figures: Rounds) -> None:
    games = figures.games
    print(
        f"  {name:<18} {figures.units:>5} {figures.cold:>8.2f} {games / figures.cold:>8.1f} "
        f"{figures.best:>8.2f} {games / figures.best:>8.1f} {games / figures.median:>8.1f}   "
        f"{load()}"
    )


ROUNDS_HEADER = (
    f"  {'backend':<18} {'units':>5} {'cold s':>8} {'games/s':>8} {'warm s':>8} "
    f"{'best g/s':>8} {'med g/s':>8}"
)


# ----------------------------------------------------------------------------- Ray instances


def private_ray(cpus: int):
    """A private Ray instance on this machine, loopback only, as ``--backend ray`` without
    ``--ray-address`` starts it: (backend, seconds it took to start)."""
    from samuel.ray_backend import connect

    started = time.perf_counter()
    backend = connect(None, cpus=cpus)
    return backend, time.perf_counter() - started


def ray_version() -> str:
    try:
        import ray
    except ImportError:
        return "not installed (pip install 'samuel[ray]')"
    return ray.__version__


def stop_ray() -> None:
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()


# ----------------------------------------------------------------------------- the parts


def part_selfplay(args, work: Work, figures: dict) -> None:
    cpus = os.cpu_count() or 1
    print(
        f"\n## Self-play: {len(work.seeds)} games, depth {work.settings.depth}, seed {args.seed}; "
        f"{args.repeats} warm rounds after a cold one"
    )
    local = LocalBackend()
    local_rounds = rounds(local, work, args.repeats)
    backend, start_seconds = private_ray(cpus)
    print(f"  (a private Ray instance of {backend.cpus()} CPUs started in {start_seconds:.1f} s)")
    ray_rounds = rounds(backend, work, args.repeats)
    same = same_games(local_rounds.parts, ray_rounds.parts)
    print(ROUNDS_HEADER)
    print_rounds(f"local ({cpus} threads)", local_rounds)
    print_rounds(f"ray ({backend.cpus()} CPUs)", ray_rounds)
    ratio_best = local_rounds.best / ray_rounds.best
    ratio_median = local_rounds.median / ray_rounds.median
    print(
        f"  Ray/local, warm: {100 * ratio_best:.0f}% (best rounds), {100 * ratio_median:.0f}% "
        f"(medians); cold: {100 * local_rounds.cold / ray_rounds.cold:.0f}%. "
        f"{local_rounds.plies / local_rounds.games:.1f} plies a game; "
        f"the same games on both: {'yes' if same else 'NO'}"
    )
    figures["selfplay"] = {
        "cpus": backend.cpus(),
        "ray_games_per_second": ray_rounds.games / ray_rounds.median,
        "local_games_per_second": local_rounds.games / local_rounds.median,
        "plies_per_game": local_rounds.plies / local_rounds.games,
        "parts": local_rounds.parts,
    }


def part_match(args, net_file: str, figures: dict) -> None:
    from samuel.match.head_to_head import play_match

    cpus = os.cpu_count() or 1
    first, second = f"{net_file}:depth={args.depth}", f"classic:depth={args.depth}"
    settings = dict(seed=args.seed, game=args.game)
    print(
        f"\n## Match: {args.match_games} games, {Path(net_file).name}:depth={args.depth} "
        f"against {second}, seed {args.seed}; {args.repeats} rounds after a first one"
    )
    play_match(first, second, 2, workers=1, **settings)  # this process loads every kernel first
    backend, _ = private_ray(cpus)
    print(f"  {'backend':<18} {'first s':>8} {'games/s':>8} {'median s':>8} {'games/s':>8}")
    scores = {}
    for name, chosen in ((f"local ({cpus} processes)", LocalBackend(cpus)), ("ray", backend)):
        seconds = []
        for _ in range(1 + args.repeats):
            result = play_match(first, second, args.match_games, backend=chosen, **settings)
            seconds.append(result.seconds)
            scores[name] = [(g.first_side, g.result) for p in result.pairs for g in p.games]
        median = statistics.median(seconds[1:]) if args.repeats else seconds[0]
        print(
            f"  {name:<18} {seconds[0]:>8.2f} {args.match_games / seconds[0]:>8.1f} "
            f"{median:>8.2f} {args.match_games / median:>8.1f}   {load()}"
        )
    same = len({tuple(games) for games in scores.values()}) == 1
    print(f"  the same games on both: {'yes' if same else 'NO'} (score {result.score:.3f})")
    figures["match"] = True


def part_overhead(args, figures: dict) -> None:
    import ray

    cpus = os.cpu_count() or 1
    backend, _ = private_ray(cpus)
    bare = ray.remote(nothing)
    backend.run(EMPTY_UNIT, list(range(4 * cpus)))  # every worker started
    ray.get([bare.remote(None, unit) for unit in range(4 * cpus)])
    print(f"\n## Overhead: units that do nothing, a private Ray instance of {cpus} CPUs")
    print(f"  {'what':<44} {'count':>6} {'seconds':>8} {'ms each':>8} {'per s':>8}")

    def row(what: str, count: int, seconds: float) -> None:
        print(
            f"  {what:<44} {count:>6} {seconds:>8.3f} {1000 * seconds / count:>8.3f} "
            f"{count / seconds:>8.0f}   {load()}"
        )

    started = time.perf_counter()
    for unit in range(args.round_trips):
        backend.run(EMPTY_UNIT, [unit])
    row("round trip: RayBackend.run of one unit", args.round_trips, time.perf_counter() - started)
    started = time.perf_counter()
    for unit in range(args.round_trips):
        ray.get(bare.remote(None, unit))
    row("round trip: a bare Ray task", args.round_trips, time.perf_counter() - started)
    rates = {}
    for count in sorted({min(100, args.tasks), args.tasks}):
        started = time.perf_counter()
        backend.run(EMPTY_UNIT, list(range(count)))
        seconds = time.perf_counter() - started
        rates[count] = seconds / count
        row("throughput: RayBackend.run of many units", count, seconds)
    started = time.perf_counter()
    ray.get([bare.remote(None, unit) for unit in range(args.tasks)])
    row("throughput: bare Ray tasks, one ray.get", args.tasks, time.perf_counter() - started)
    figures["overhead"] = {"seconds_per_unit": rates[args.tasks], "units": args.tasks}


def part_cluster(args, work: Work, figures: dict) -> None:
    import ray
    from ray.cluster_utils import Cluster

    from samuel.ray_backend import RayBackend

    stop_ray()  # a process talks to one Ray instance at a time
    ray._private.ray_constants.ENABLE_RAY_CLUSTER = False  # as ray_backend.connect: loopback
    print(
        f"\n## A cluster simulated on this machine: {args.nodes} nodes of 1 CPU "
        f"({os.cpu_count()} cores in all); self-play as above, {args.repeats} warm rounds"
    )
    node = {"num_cpus": 1, "object_store_memory": NODE_STORE_BYTES}
    started = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    try:
        for _ in range(args.nodes - 1):
            cluster.add_node(**node)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, logging_level="WARNING")
        backend = RayBackend()
        alive = [n for n in backend.nodes() if n.alive]
        print(
            f"  ({len(alive)} nodes, {backend.cpus()} CPUs, started in "
            f"{time.perf_counter() - started:.1f} s)"
        )
        print(ROUNDS_HEADER)
        default_task = backend._task
        for strategy in ("DEFAULT", "SPREAD"):
            # Ray's default strategy prefers the node that holds a task's arguments (the network,
            # put in the object store on the head); SPREAD spreads the tasks over the nodes.
            backend._task = (
                default_task
                if strategy == "DEFAULT"
                else default_task.options(scheduling_strategy=strategy)
            )
            cluster_rounds = rounds(backend, work, args.repeats)
            print_rounds(f"ray {strategy.lower()}", cluster_rounds)
            spread = Counter(backend.unit_nodes)
            print(
                "    units of the last round by node: "
                + ", ".join(f"{n.id[:8]} {spread.get(n.id, 0)}" for n in alive)
            )
            if "selfplay" in figures:
                here = cluster_rounds.games / cluster_rounds.median
                private = figures["selfplay"]["ray_games_per_second"]
                print(f"    median {here / private:.0%} of the private instance's {private:.1f}")
            if strategy == "DEFAULT" and all(spread.get(n.id, 0) for n in alive):
                break  # the units reached every node: nothing to compare
            if strategy == "DEFAULT":
                print("    NOT every node ran units; the same with Ray's SPREAD strategy:")
        backend._task = default_task
    finally:
        stop_ray()
        cluster.shutdown()


# ----------------------------------------------------------------------------- the projection


def measure_trainer(args, parts: list, rules, network: np.ndarray) -> dict:
    """Seconds a position of the driver's work after self-play: labelling (once a position) and
    training (``epochs`` passes over the buffer, with the loss before and after on the pools)."""
    from samuel.train.buffer import FIRST_WIN, SECOND_WIN, SampleBuffer
    from samuel.train.loop import label_games
    from samuel.train.trainer import Adam, mean_loss, train_epoch

    config = TrainConfig(game=args.game, epochs=args.epochs)
    game = rules.number
    state_size = games.compiled_game(game).state_words

    def step(buffer_generations: int) -> tuple[float, float]:
        """(labelling seconds, training seconds) with a full buffer of the games."""
        started = time.perf_counter()
        samples = label_games(parts, config.lam, game)
        labelled = time.perf_counter() - started
        buffer = SampleBuffer(buffer_generations, state_size)
        for _ in range(buffer_generations):  # a full buffer: the same games, several times
            buffer.add_generation(samples)
        rng = np.random.default_rng([args.seed, 0x7EA1])
        adam = Adam(len(network))
        trained = network.copy()  # the benchmark's network, with its heads, as `train --from`
        started = time.perf_counter()
        pools = buffer.pool(FIRST_WIN), buffer.pool(SECOND_WIN)
        for pool in pools:
            mean_loss(game, trained, pool)
        for _ in range(config.epochs):
            epoch = buffer.epoch(rng, config.balance)
            train_epoch(game, trained, adam, epoch, config.batch_size, config.learning_rate, rng)
        for pool in pools:
            mean_loss(game, trained, pool)
        return labelled, time.perf_counter() - started

    step(1)  # the kernels loaded
    labelled, trained = step(config.buffer_generations)
    positions = int(sum(part.plies.sum() for part in parts))
    return {
        "label": labelled / positions,
        "train": trained / (config.buffer_generations * positions),
        "positions": positions,
        "buffer_generations": config.buffer_generations,
        "epochs": config.epochs,
        "trained_seconds": trained,
    }


def part_projection(args, figures: dict, rules, network: np.ndarray) -> None:
    selfplay, overhead = figures["selfplay"], figures["overhead"]
    trainer = measure_trainer(args, selfplay["parts"], rules, network)
    per_core = selfplay["ray_games_per_second"] / selfplay["cpus"]
    plies = selfplay["plies_per_game"]
    task = overhead["seconds_per_unit"]
    # The driver's seconds a game after self-play: label its positions once; train on them in
    # every generation they stay in the buffer.
    trainer_per_game = plies * (trainer["label"] + trainer["buffer_generations"] * trainer["train"])
    print("\n## Projection")
    print("  Assumptions, from the figures above:")
    print(
        f"  - a core plays {per_core:.2f} games/s (Ray's warm median on this machine over its "
        f"{selfplay['cpus']} CPUs; depth {args.depth}, {plies:.1f} plies a game); every machine "
        "is like this one, core for core"
    )
    print(
        f"  - the driver spends {1000 * task:.3f} ms on each unit (the overhead part's "
        f"{overhead['units']} empty units), one after another; it hands units out while others "
        "play, so a generation's self-play takes the longer of the play and the hand-out"
    )
    print(
        f"  - a generation of G games is cut into min(G, 4 x cores, {MAX_UNITS}) units "
        "(RayBackend.parts); "
        "a unit's games run on one core; units run in waves of one a core; games last the mean "
        "length (the longest game of a wave sets its end: with few games a core, a real round "
        "takes longer)"
    )
    print(
        f"  - the trainer runs on the driver and does not scale: {1e6 * trainer['label']:.1f} us "
        f"to label a position, {1e6 * trainer['train']:.1f} us a position in the buffer for "
        f"{trainer['epochs']} epochs with the losses before and after (buffer of "
        f"{trainer['buffer_generations']} generations, measured on this machine's "
        f"{os.cpu_count()} cores: {trainer['trained_seconds']:.2f} s for "
        f"{trainer['buffer_generations'] * trainer['positions']:,} positions): "
        f"{1000 * trainer_per_game:.2f} ms a game"
    )
    print("  - matches (every 10 generations), file writes, moving games to the driver: left out")
    print(
        f"\n  {'machines':>8} {'cores':>6} {'games/gen':>9} {'units':>6} {'play s':>8} "
        f"{'driver s':>8} {'trainer s':>9} {'gen s':>8} {'games/s':>8} {'sp only':>8}  limited by"
    )
    for machines in args.machines:
        cores = machines * args.cores
        for generation in args.generation:
            units = unit_count(generation, cores)
            waves = math.ceil(units / cores)
            compute = waves * (generation / units) / per_core
            driver = units * task
            selfplay_seconds = max(compute, driver)
            train = generation * trainer_per_game
            total = selfplay_seconds + train
            parts = {"cores": compute, "driver's units": driver, "trainer": train}
            limit = max(parts, key=parts.get)
            print(
                f"  {machines:>8} {cores:>6} {generation:>9,} {units:>6} {compute:>8.2f} "
                f"{driver:>8.3f} {train:>9.2f} {total:>8.2f} {generation / total:>8.0f} "
                f"{generation / selfplay_seconds:>8.0f}  {limit}"
            )
    print("\n  Where it stops scaling:")
    balance = 1 / (per_core * trainer_per_game)
    print(
        f"  - the trainer: whatever the cluster, at most {1 / trainer_per_game:,.0f} games/s "
        f"(one game's driver work {1000 * trainer_per_game:.2f} ms); past {balance:,.0f} cores "
        f"({balance / args.cores:,.1f} machines of {args.cores}) the trainer takes longer than "
        "self-play"
    )
    print(
        f"  - the driver's units: it hands out {1 / task:,.0f} units/s, so a run's at most "
        f"{MAX_UNITS} units take up to {MAX_UNITS * task:.2f} s to hand out; a generation of G "
        f"games on C cores is min(G, 4C, {MAX_UNITS}) units, and past {MAX_UNITS} units (C > "
        f"{MAX_UNITS // 4}) more cores only shorten the play, not the hand-out, while a "
        "smaller generation keeps fewer cores busy: "
        + ", ".join(
            f"G = {g:,} is {unit_count(g, 10**9):,} units of {g / unit_count(g, 10**9):.1f} "
            f"games, {(g / unit_count(g, 10**9)) / per_core:.2f} s of play each"
            for g in args.generation
        )
    )
    for store, (low, high) in STORE_RATES.items():
        print(
            f"  - the pipeline's store ({store}: {low:,} to {high:,} positions/s inserted, "
            f"docs/pipeline.md), if every self-play position is stored: {low / plies:,.0f} to "
            f"{high / plies:,.0f} games/s, what {low / plies / per_core:,.0f} to "
            f"{high / plies / per_core:,.0f} cores play"
        )
    print(
        "  - a generation smaller than the cores leaves cores idle: G games keep at most G "
        "cores busy, and the longest game sets the round's end"
    )


# ----------------------------------------------------------------------------- main


def numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default=",".join(PARTS), help=f"of {', '.join(PARTS)} (all)")
    parser.add_argument("--game", default="tigers", help="the game (tigers)")
    parser.add_argument("--net", default="shipped", help="shipped, random or FILE (shipped)")
    parser.add_argument("--games", type=int, default=256, help="self-play games a round (256)")
    parser.add_argument("--depth", type=int, default=2, help="search depth (2)")
    parser.add_argument("--seed", type=int, default=1, help="the games' seeds come from it (1)")
    parser.add_argument("--repeats", type=int, default=5, help="warm rounds (5)")
    parser.add_argument("--match-games", type=int, default=64, help="games a match (64)")
    parser.add_argument("--round-trips", type=int, default=200, help="one-unit runs (200)")
    parser.add_argument("--tasks", type=int, default=2000, help="empty units in one run (2000)")
    parser.add_argument("--nodes", type=int, default=3, help="simulated nodes, 1 CPU each (3)")
    parser.add_argument("--machines", type=numbers, default=[10, 100], help="projected (10,100)")
    parser.add_argument("--cores", type=int, default=32, help="cores a projected machine (32)")
    parser.add_argument(
        "--generation", type=numbers, default=[500, 5000, 50000], help="games (500,5000,50000)"
    )
    parser.add_argument("--epochs", type=int, default=TrainConfig.epochs, help="trainer's (2)")
    args = parser.parse_args()
    # Before Ray is first imported (every import of it here is inside a function): Ray then binds
    # the loopback interface only, so this machine's instances and simulated clusters can be
    # reached from here alone.
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    parts = [part for part in args.part.split(",") if part]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part {', '.join(sorted(unknown))}: choose from {', '.join(PARTS)}")
    if args.repeats < 1 or args.games < 1 or args.nodes < 1 or args.tasks < 1:
        parser.error("--repeats, --games, --nodes and --tasks must be at least 1")
    if args.match_games < 2 or args.match_games % 2:
        parser.error("--match-games must be an even number, at least 2")
    if "projection" in parts:  # it stands on the self-play and overhead figures
        parts = [p for p in PARTS if p in parts or p in ("selfplay", "overhead")]
    rules = get_game(args.game)
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="samuel-scaling-") as folder:
        args.folder = folder
        params, source, net_file = network(args, rules)
        print(
            f"{rules.title}; {source}; {os.cpu_count()} cores; numba threads "
            f"{numba.get_num_threads()}; Ray {ray_version()}; {load()}"
        )
        work = selfplay_work(args, params, rules)
        try:
            if "selfplay" in parts:
                part_selfplay(args, work, figures)
            if "match" in parts:
                part_match(args, net_file, figures)
            if "overhead" in parts:
                part_overhead(args, figures)
            if "cluster" in parts:
                part_cluster(args, work, figures)
            if "projection" in parts:
                part_projection(args, figures, rules, params)
        finally:
            stop_ray()


if __name__ == "__main__":
    main()
