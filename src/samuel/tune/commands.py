"""``samuel selfplay``, ``samuel tune`` and ``samuel hillclimb``: their options and what each
runs and prints (``docs/tuning.md``).

:mod:`samuel.cli` adds the subcommands with the ``add_*_arguments`` functions and runs the
``command_*`` functions. Heavy imports wait until a command runs, so building the parser stays
quick. Every option is a field of the command's frozen config; where a game has its own default
for one (long nardy's ply cap, depth, openings: :mod:`samuel.tune.games`), the help says it and
the game's applies unless the option is given.
"""

from __future__ import annotations

import argparse
import os

from samuel.config_options import add_config_options
from samuel.options import add_backend_arguments, add_game_argument, backend_of, number
from samuel.progress import progress_bar


def _workers(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--workers",
        type=number(int, 1),
        help=f"{what} (every core); the results do not depend on it",
    )
    add_game_argument(parser)  # every tuning command has --workers, and takes --game with it


def _own_defaults(kind: type) -> dict[str, dict[str, object]]:
    """The games' own defaults for the fields of the config ``kind``, by game."""
    from samuel.tune.config import GAME_DEFAULTS

    return GAME_DEFAULTS[kind]


def _config(kind: type, args: argparse.Namespace, **overrides):
    """The config ``kind`` from the parsed ``args`` (then ``overrides``), with the game's own
    default for each option that has one and was not given (its parser default is None)."""
    import dataclasses

    from samuel.tune.config import for_game

    own = {name for values in _own_defaults(kind).values() for name in values}
    values = {
        field.name: getattr(args, field.name)
        for field in dataclasses.fields(kind)
        if hasattr(args, field.name)
        and field.name != "game"
        and not (field.name in own and getattr(args, field.name) is None)
    }
    values.update(overrides)
    return for_game(kind, args.game, **values)


# samuel selfplay


def add_selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    from samuel.tune.config import SelfPlayDataConfig

    add_config_options(parser, SelfPlayDataConfig, per_game=_own_defaults(SelfPlayDataConfig))
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

    config = _config(SelfPlayDataConfig, args)
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

    add_config_options(parser, TuneConfig, per_game=_own_defaults(TuneConfig))
    _workers(parser, "threads")


def command_tune(args: argparse.Namespace) -> None:
    from samuel.tune.config import TuneConfig
    from samuel.tune.gradient import tune

    config = _config(TuneConfig, args, data=tuple(args.data))
    from samuel.files import check_output_path

    check_output_path(config.out, "tuned weights")  # before tuning, so that none is in vain
    tune(config, log=lambda line: print(line, flush=True))


# samuel hillclimb


def add_hillclimb_arguments(parser: argparse.ArgumentParser) -> None:
    from samuel.tune.config import HillClimbConfig

    add_config_options(parser, HillClimbConfig, per_game=_own_defaults(HillClimbConfig))
    _workers(parser, "match worker processes")
    add_backend_arguments(parser)
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )


def command_hillclimb(args: argparse.Namespace) -> None:
    from samuel.tune.config import HillClimbConfig
    from samuel.tune.hillclimb import hill_climb

    config = _config(HillClimbConfig, args, workers=args.workers or os.cpu_count() or 1)
    from samuel.files import check_output_folder

    check_output_folder(config.out_dir, "run folder")  # before the first match
    hill_climb(
        config,
        log=lambda line: print(line, flush=True),
        progress=args.progress,
        backend=backend_of(args, config.workers),
    )
