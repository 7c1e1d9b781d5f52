"""``samuel selfplay``, ``samuel tune`` and ``samuel hillclimb``: their options and what each
runs and prints (``docs/tuning.md``).

:mod:`samuel.cli` adds the subcommands with the ``add_*_arguments`` functions and runs the
``command_*`` functions. Heavy imports wait until a command runs, so building the parser stays
quick. Every option is a field of the command's frozen config.
"""

from __future__ import annotations

import argparse
import os

from samuel.options import (
    add_backend_arguments,
    add_game_argument,
    backend_of,
    even_games,
    number,
    sprt,
)
from samuel.progress import progress_bar
from samuel.tune.games import TUNABLE, UNIT

UNITS = {game: (unit,) for game, unit in UNIT.items()}


def _features(text: str) -> tuple[str, ...]:
    """A comma-separated list of feature names; which names are features depends on --game,
    so the command's config checks them."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _per_game(defaults: dict[str, tuple[str, ...]]) -> str:
    """A default that depends on the game, as help text: ``tigers: a,b; draughts: c``."""
    return "; ".join(f"{game}: {','.join(names)}" for game, names in defaults.items())


def _workers(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--workers",
        type=number(int, 1),
        help=f"{what} (every core); the results do not depend on it",
    )
    add_game_argument(parser)  # every tuning command has --workers, and takes --game with it


# samuel selfplay


def add_selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    from samuel.tune.config import SelfPlayDataConfig

    d = SelfPlayDataConfig()
    parser.add_argument(
        "--games",
        type=number(int, 1),
        default=d.games,
        help=f"self-play games to play ({d.games})",
    )
    parser.add_argument("--out", default=d.out, help=f"the .npz file to write ({d.out})")
    parser.add_argument(
        "--player",
        default=d.player,
        help=f"who plays both sides, a searching player's spec searching to a depth ({d.player})",
    )
    parser.add_argument(
        "--random-plies",
        type=number(int, 0),
        default=d.random_plies,
        help=f"random opening plies, for diverse positions ({d.random_plies})",
    )
    parser.add_argument(
        "--epsilon",
        type=number(float, 0.0, 1.0),
        default=d.epsilon,
        help=f"chance of a random move after the opening ({d.epsilon})",
    )
    parser.add_argument(
        "--ply-cap",
        type=number(int, 1, 30_000),
        default=d.ply_cap,
        help=f"a game this long is a draw ({d.ply_cap})",
    )
    parser.add_argument(
        "--seed",
        type=number(int, 0),
        default=d.seed,
        help=f"the run's seed: game g's seed comes from (seed, g) ({d.seed})",
    )
    _workers(parser, "threads")
    add_backend_arguments(parser)
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )


def command_selfplay(args: argparse.Namespace) -> None:
    import numpy as np

    from samuel.tune.config import SelfPlayDataConfig
    from samuel.tune.dataset import make_positions, save_positions
    from samuel.tune.games import tuning_game

    config = SelfPlayDataConfig(
        game=args.game,
        games=args.games,
        out=args.out,
        player=args.player,
        random_plies=args.random_plies,
        epsilon=args.epsilon,
        ply_cap=args.ply_cap,
        seed=args.seed,
        workers=args.workers,
    )
    from samuel.files import check_output_path, save_or_keep

    check_output_path(config.out, "data set")  # before the games, so that none is played in vain
    backend = backend_of(args, config.workers)
    with progress_bar(config.games, "self-play", enabled=args.progress) as bar:
        data = make_positions(config, lambda done: bar.update(done - bar.n), backend)
    save_or_keep(config.out, "data set", lambda path: save_positions(data, path))
    first = np.r_[True, np.diff(data.games) != 0]
    results = data.results[first]
    print(f"{config.games} games, {len(data):,} positions written to {config.out}")
    first_side, second_side = tuning_game(config.game).sides
    print(
        f"results: {first_side} won {(results > 0).sum()}, {second_side} won "
        f"{(results < 0).sum()}, drawn {(results == 0).sum()}; "
        f"{data.random_moves.mean():.1%} of the moves random"
    )


# samuel tune


def add_tune_arguments(parser: argparse.ArgumentParser) -> None:
    from samuel.tune.config import TuneConfig

    d = TuneConfig()
    parser.add_argument(
        "data",
        nargs="+",
        help="labelled positions of the game, .npz files from samuel selfplay (several: games "
        "of different players, taken together)",
    )
    parser.add_argument(
        "--out",
        default=d.out,
        help=f"where to write the tuned weights, a classic weights file ({d.out})",
    )
    parser.add_argument("--start", help="weights to start from (the hand-written ones)")
    parser.add_argument(
        "--validation",
        type=number(float, 0.0, 0.99, low_open=True),
        default=d.validation,
        help=f"share of the games held out to validate on ({d.validation})",
    )
    parser.add_argument(
        "--iterations",
        type=number(int, 0),
        default=d.iterations,
        help=f"full-batch steps ({d.iterations})",
    )
    parser.add_argument(
        "--learning-rate",
        type=number(float, 0.0, low_open=True),
        default=d.learning_rate,
        help=f"step size; with adam, about the change per weight and step ({d.learning_rate})",
    )
    parser.add_argument(
        "--optimizer",
        choices=("adam", "gd"),
        default=d.optimizer,
        help=f"adam or plain gradient descent ({d.optimizer})",
    )
    parser.add_argument(
        "--fixed",
        type=_features,
        default=None,  # the game's unit
        metavar="F1,F2",
        help="features whose weights stay as they start, the game's unit among them "
        f"({_per_game(UNITS)})",
    )
    parser.add_argument(
        "--seed", type=number(int, 0), default=d.seed, help=f"picks the held-out games ({d.seed})"
    )
    parser.add_argument(
        "--no-tables",
        dest="tables",
        action="store_false",
        help="tune the named features alone, not the piece-square tables",
    )
    parser.add_argument(
        "--label",
        choices=("result", "search", "rollout"),
        default=d.label,
        help=f"what a position is fitted to: its game's result, a deeper search's score, or "
        f"rollouts ({d.label})",
    )
    parser.add_argument(
        "--label-player",
        default=d.label_player,
        help=f"who searches (--label search) or plays the rollouts ({d.label_player})",
    )
    parser.add_argument(
        "--rollouts",
        type=number(int, 1),
        default=d.rollouts,
        help=f"games a position with --label rollout ({d.rollouts})",
    )
    parser.add_argument(
        "--tablebase",
        metavar="DIR",
        help="Tigers & Sheep: label positions with the hand empty by this tablebase's exact "
        "values, and report the error against them",
    )
    parser.add_argument(
        "--deduplicate",
        action="store_true",
        help="each distinct position once, its targets averaged (validation positions met in "
        "training games left out)",
    )
    parser.add_argument(
        "--match-games",
        type=number(int, 0),
        default=d.match_games,
        help=f"games of the final match, tuned against start, an even number; 0: none "
        f"({d.match_games})",
    )
    parser.add_argument(
        "--match-depth",
        type=number(int, 1, 20),
        default=d.match_depth,
        help=f"the final match's search depth ({d.match_depth})",
    )
    parser.add_argument(
        "--match-opening-plies",
        type=number(int, 0, 40),
        default=d.match_opening_plies,
        help=f"random opening plies of the final match, unlike the data's "
        f"({d.match_opening_plies})",
    )
    _workers(parser, "threads")


def command_tune(args: argparse.Namespace) -> None:
    from samuel.tune.config import TuneConfig
    from samuel.tune.gradient import tune

    config = TuneConfig(
        game=args.game,
        data=tuple(args.data),
        out=args.out,
        start=args.start,
        validation=args.validation,
        iterations=args.iterations,
        learning_rate=args.learning_rate,
        optimizer=args.optimizer,
        fixed=args.fixed,
        seed=args.seed,
        workers=args.workers,
        tables=args.tables,
        label=args.label,
        label_player=args.label_player,
        rollouts=args.rollouts,
        tablebase=args.tablebase,
        deduplicate=args.deduplicate,
        match_games=args.match_games,
        match_depth=args.match_depth,
        match_opening_plies=args.match_opening_plies,
    )
    from samuel.files import check_output_path

    check_output_path(config.out, "tuned weights")  # before tuning, so that none is in vain
    tune(config, log=lambda line: print(line, flush=True))


# samuel hillclimb


def add_hillclimb_arguments(parser: argparse.ArgumentParser) -> None:
    from samuel.tune.config import HillClimbConfig

    d = HillClimbConfig()
    parser.add_argument(
        "--rounds", type=number(int, 0), default=d.rounds, help=f"challengers to try ({d.rounds})"
    )
    parser.add_argument(
        "--games",
        type=even_games,
        default=d.games,
        help=f"games per round, an even number; with --sprt the most ({d.games})",
    )
    parser.add_argument(
        "--out-dir",
        default=d.out_dir,
        help=f"where the log, champion and learned weights go ({d.out_dir})",
    )
    parser.add_argument("--start", help="weights to start from (the hand-written ones)")
    parser.add_argument(
        "--depth",
        type=number(int, 1, 20),
        default=d.depth,
        help=f"search depth in every match ({d.depth})",
    )
    parser.add_argument(
        "--step",
        type=number(float, 0.0, 10.0, low_open=True),
        default=d.step,
        help=f"a change is about this share of the weight ({d.step})",
    )
    parser.add_argument(
        "--accept",
        type=number(float, 0.0, 1.0, low_open=True),
        default=d.accept,
        help=f"the score a challenger needs to become champion ({d.accept})",
    )
    parser.add_argument(
        "--sprt",
        type=sprt,
        metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
        help="accept a challenger when this SPRT accepts H1 (instead of --accept)",
    )
    parser.add_argument(
        "--features",
        type=_features,
        default=None,  # the game's
        metavar="F1,F2",
        help=f"the weights that may change, never the unit ({_per_game(TUNABLE)})",
    )
    parser.add_argument(
        "--opening-plies",
        type=number(int, 0, 40),
        default=d.opening_plies,
        help=f"random opening plies in the rounds ({d.opening_plies})",
    )
    parser.add_argument(
        "--final-games",
        type=even_games,
        default=d.final_games,
        help=f"games in the final match, learned vs start ({d.final_games})",
    )
    parser.add_argument(
        "--final-opening-plies",
        type=number(int, 0, 40),
        default=d.final_opening_plies,
        help=f"random opening plies in the final match; must differ from "
        f"--opening-plies ({d.final_opening_plies})",
    )
    parser.add_argument(
        "--ply-cap",
        type=number(int, 1),
        default=d.ply_cap,
        help=f"a game this long is a draw ({d.ply_cap})",
    )
    parser.add_argument(
        "--seed", type=number(int, 0), default=d.seed, help=f"the run's seed ({d.seed})"
    )
    _workers(parser, "match worker processes")
    add_backend_arguments(parser)
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )


def command_hillclimb(args: argparse.Namespace) -> None:
    from samuel.tune.config import HillClimbConfig
    from samuel.tune.hillclimb import hill_climb

    config = HillClimbConfig(
        game=args.game,
        rounds=args.rounds,
        games=args.games,
        out_dir=args.out_dir,
        start=args.start,
        depth=args.depth,
        step=args.step,
        accept=args.accept,
        sprt=args.sprt,
        features=args.features,
        opening_plies=args.opening_plies,
        final_games=args.final_games,
        final_opening_plies=args.final_opening_plies,
        ply_cap=args.ply_cap,
        seed=args.seed,
        workers=args.workers or os.cpu_count() or 1,
    )
    from samuel.files import check_output_folder

    check_output_folder(config.out_dir, "run folder")  # before the first match
    hill_climb(
        config,
        log=lambda line: print(line, flush=True),
        progress=args.progress,
        backend=backend_of(args, config.workers),
    )
