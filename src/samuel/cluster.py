"""``samuel cluster check``: can Samuel use this Ray cluster, and does every node play alike?

It connects (to ``--ray-address``, or to a private Ray instance on this machine), lists the nodes
and CPUs Samuel sees, then plays one tiny match (a pair of games, engines at depth 1) and two
self-play games pinned to each node in turn, and compares each node's games with the same games
played here: a node with another Samuel, numba or game version would play differently, and then
its results would not be bit-identical to a local run. The first task on a node also compiles
Samuel's match and self-play kernels into that node's numba cache, before a real run asks many of
its workers to at once.
"""

from __future__ import annotations

import argparse
import time

from samuel.errors import CommandError
from samuel.options import add_game_argument

CHECK_PLAYERS = ("classic:depth=1", "classic:depth=1,epsilon=0.2")  # quick, and not a walkover
CHECK_SEED = 0x14


def check_task(game: str):
    """The pair every node plays."""
    from samuel.match.openings import OpeningConfig
    from samuel.match.runner import PairTask

    return PairTask(
        first=CHECK_PLAYERS[0],
        second=CHECK_PLAYERS[1],
        pair=0,
        seed=CHECK_SEED,
        openings=OpeningConfig(4, 4),
        ply_cap=200,
        game=game,
    )


def samuel_version() -> str:
    """The installed Samuel's version, as the package metadata says."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("samuel")
    except PackageNotFoundError:
        return "unknown"


def check_selfplay(game: str) -> tuple:
    """A few self-play games of a random network at depth 1, as digests of their arrays (the
    units of ``train`` and ``selfplay``; their kernels are compiled on the node, too)."""
    import hashlib

    import numpy as np

    from samuel.evaluation.networks import random_network
    from samuel.games import get_game
    from samuel.games.kernels import EVALUATOR_NETWORK
    from samuel.train.selfplay import SelfPlaySettings, play_selfplay

    rules = get_game(game)
    settings = SelfPlaySettings(
        game=rules.number,
        evaluator=EVALUATOR_NETWORK,
        params=random_network(rules.number, CHECK_SEED),
        root=rules.encode(rules.initial_position()),
        depth=1,
        random_plies=4,
        epsilon=0.1,
        ply_cap=200,
    )
    played = play_selfplay(settings, np.arange(CHECK_SEED, CHECK_SEED + 2, dtype=np.int64))
    return tuple(
        hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()
        for array in (played.positions, played.scores, played.plies, played.results)
    )


def _check_on_node(_shared, task):
    """A unit of the check: the pair, the self-play games, and which Samuel played them."""
    from samuel.match.runner import play_pair

    return play_pair(task), check_selfplay(task.game), samuel_version()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``samuel cluster``'s subcommands."""
    commands = parser.add_subparsers(dest="cluster_command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check", help="connect, list the nodes and CPUs, play a tiny match on every node"
    )
    check.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the cluster's head, HOST:PORT or auto; without it a private Ray on this machine",
    )
    add_game_argument(check)
    check.set_defaults(run=command_check)


def command_check(args: argparse.Namespace) -> None:
    from samuel.games import get_game
    from samuel.match.runner import check_match_player, play_pair
    from samuel.ray_backend import connect

    rules = get_game(args.game)
    for spec in CHECK_PLAYERS:
        check_match_player(spec, rules)  # compiles the kernels here first
    task = check_task(args.game)
    here = play_pair(task), check_selfplay(args.game)
    where = args.ray_address or "a private Ray instance on this machine (loopback only)"
    started = time.perf_counter()
    backend = connect(args.ray_address)
    print(f"connected to {where} in {time.perf_counter() - started:.1f} s")
    nodes = backend.nodes()
    alive = [node for node in nodes if node.alive]
    print(f"{len(alive)} live node(s), {sum(node.cpus for node in alive):g} CPUs:")
    for node in nodes:
        state = "alive" if node.alive else "dead"
        print(f"  {node.address:<16} {node.id[:12]}  {node.cpus:>4g} CPUs  {state}")
    print(
        f"on each node, a pair of {rules.title} games ({CHECK_PLAYERS[0]} vs {CHECK_PLAYERS[1]}) "
        "and 2 self-play games:"
    )
    differ = []
    for node, (pair, selfplay, version), seconds in backend.run_on_each_node(_check_on_node, task):
        same = (pair, selfplay) == here
        if not same:
            differ.append(f"{node.address} ({node.id[:12]}, Samuel {version})")
        verdict = "same games as here" if same else "DIFFERENT games from here"
        print(
            f"  {node.address:<16} {node.id[:12]}  {pair.first_points:g}/2 points, "
            f"{sum(len(g.moves) for g in pair.games)} plies, {seconds:.1f} s  {verdict}"
        )
    if differ:
        raise CommandError(
            f"{len(differ)} node(s) play differently from this machine (Samuel "
            f"{samuel_version()}): {', '.join(differ)}; install the same Samuel, numba and "
            "Python on every node"
        )
    print("every node plays the same games as this machine: ready")
