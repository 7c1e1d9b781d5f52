"""``samuel selfplay``, ``samuel tune`` and ``samuel hillclimb``: their options and what each
runs and prints (``docs/tuning.md``).

:mod:`samuel.cli` adds the subcommands with the ``add_*_arguments`` functions and runs the
``command_*`` functions. Heavy imports wait until a command runs, so building the parser stays
quick. Every option is a field of the command's frozen config.
"""

from __future__ import annotations

import argparse
import os

from samuel.config_options import add_config_options, config_from
from samuel.options import add_backend_arguments, add_game_argument, backend_of, number
from samuel.progress import progress_bar


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

    add_config_options(parser, SelfPlayDataConfig)
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

    config = config_from(SelfPlayDataConfig, args)
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

    add_config_options(parser, TuneConfig)
    _workers(parser, "threads")


def command_tune(args: argparse.Namespace) -> None:
    from samuel.tune.config import TuneConfig
    from samuel.tune.gradient import tune

    config = config_from(TuneConfig, args, data=tuple(args.data))
    from samuel.files import check_output_path

    check_output_path(config.out, "tuned weights")  # before tuning, so that none is in vain
    tune(config, log=lambda line: print(line, flush=True))


# samuel hillclimb


def add_hillclimb_arguments(parser: argparse.ArgumentParser) -> None:
    from samuel.tune.config import HillClimbConfig

    add_config_options(parser, HillClimbConfig)
    _workers(parser, "match worker processes")
    add_backend_arguments(parser)
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )


def command_hillclimb(args: argparse.Namespace) -> None:
    from samuel.tune.config import HillClimbConfig
    from samuel.tune.hillclimb import hill_climb

    config = config_from(HillClimbConfig, args, workers=args.workers or os.cpu_count() or 1)
    from samuel.files import check_output_folder

    check_output_folder(config.out_dir, "run folder")  # before the first match
    hill_climb(
        config,
        log=lambda line: print(line, flush=True),
        progress=args.progress,
        backend=backend_of(args, config.workers),
    )
