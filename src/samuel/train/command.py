"""``samuel train``: the options, the per-generation table and the progress bar."""

from __future__ import annotations

import argparse
import math
import sys

from samuel.config_options import add_config_options, config_from, game_value
from samuel.games import default_game, descriptors, get_game
from samuel.options import add_backend_arguments, add_game_argument, backend_of, positive_int
from samuel.progress import StageProgress

from .config import GAME_DEFAULTS, TrainConfig, game_defaults
from .loop import GenerationReport, train


def table_header(sides: tuple[str, str], moves_left: bool = False) -> str:
    """The table's header for a game whose players are ``sides`` (first, second); a run whose
    network has the moves-left head gets its two columns of plies-left error."""
    first, second = (side[0].upper() for side in sides)
    plies = " plies before plies after" if moves_left else ""
    return (
        f" gen trained {sides[0]:>6} {sides[1]:>6}  draws {first} before {second} before  "
        f"{first} after  {second} after{plies} vs prev vs classic train s  time s"
    )


HEADER = table_header(descriptors()[default_game()].sides)  # the default game's
STOPPED = "stopped: every finished generation is saved; run the same command to go on"


def _loss(value: float) -> str:
    return "       -" if math.isnan(value) else f"{value:8.4f}"


def _score(value: float | None, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{100 * value:>{width - 1}.0f}%"


def _plies(value: float, width: int) -> str:
    return f"{'-':>{width}}" if math.isnan(value) else f"{value:{width}.2f}"


def format_row(row: GenerationReport) -> str:
    """The row of :func:`table_header`'s table (with the plies columns if the row has them)."""
    plies = ""
    if row.plies_before is not None:
        plies = f" {_plies(row.plies_before, 12)} {_plies(row.plies_after, 11)}"
    return (
        f"{row.generation:4d} {row.trained:7d} {row.first_wins:6d} {row.second_wins:6d} "
        f"{row.draws:6d} {_loss(row.first_before)} {_loss(row.second_before)} "
        f"{_loss(row.first_after)} {_loss(row.second_after)}{plies} "
        f"{_score(row.vs_previous, 7)} {_score(row.vs_classic, 10)} "
        f"{row.train_seconds:7.2f} {row.seconds:7.1f}"
    )


def _per_game(field: str) -> str:
    """A field's default, and each game's that differs: "50; draughts 200"."""
    own = [f"{game} {values[field]}" for game, values in GAME_DEFAULTS.items() if field in values]
    return "; ".join([str(getattr(TrainConfig(), field)), *own])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # The three positionals default per game (GAME_DEFAULTS): None here, filled in by the game.
    parser.add_argument(
        "generations",
        nargs="?",
        type=positive_int,
        help=f"generations to train ({_per_game('generations')})",
    )
    parser.add_argument(
        "games",
        nargs="?",
        type=positive_int,
        help=f"self-play games per generation ({_per_game('games')})",
    )
    parser.add_argument(
        "out_dir",
        nargs="?",
        help=f"where weights are saved and resumed from ({_per_game('out_dir')})",
    )
    add_config_options(parser, TrainConfig, "start_from", "workers", per_game=GAME_DEFAULTS)
    add_backend_arguments(parser)
    add_config_options(
        parser,
        TrainConfig,
        only=(
            "hidden",
            "phases",
            "moves_left",
            "moves_left_weight",
            "heads_only",
            "tablebase",
            "table_positions",
        ),
    )
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )
    add_game_argument(parser)


def command_train(args: argparse.Namespace) -> None:
    d = game_defaults(args.game)
    # what a game sets itself (backgammon: depth 1, no random moves ...) unless given
    own = {"generations", "games", "out_dir"} | {
        n for values in GAME_DEFAULTS.values() for n in values
    }
    config = config_from(TrainConfig, args, **{name: game_value(args, name, d) for name in own})
    progress = StageProgress(enabled=args.progress)

    def report(row: GenerationReport) -> None:
        print(format_row(row), flush=True)

    from .matches import training_match

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def start(moves_left: bool) -> None:
        # After "starting from ...": the header, with the plies columns if the run has the head.
        print(table_header(get_game(config.game).sides, moves_left), flush=True)

    backend = backend_of(args, args.workers)
    try:
        train(
            config,
            report,
            play_match=training_match(config, backend),
            progress=progress,
            log=log,
            on_start=start,
            backend=backend,
        )
    except KeyboardInterrupt:
        progress.close()
        print(STOPPED, file=sys.stderr)
        raise
