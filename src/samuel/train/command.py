"""``samuel train``: the options, the per-generation table and the progress bar."""

from __future__ import annotations

import argparse
import math
import sys

from samuel.games import default_game, descriptors, get_game
from samuel.options import (
    add_backend_arguments,
    add_game_argument,
    backend_of,
    fraction,
    non_negative_int,
    positive_float,
    positive_int,
)
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
    d = TrainConfig()
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
    parser.add_argument("--from", dest="start_from", help="start from this weights file")
    parser.add_argument(
        "--depth",
        type=positive_int,
        default=d.depth,
        help=f"search depth in self-play and matches ({d.depth})",
    )
    parser.add_argument(
        "--ply-cap",
        type=positive_int,
        default=d.ply_cap,
        help=f"a game this long is a draw ({d.ply_cap})",
    )
    parser.add_argument(
        "--random-plies",
        type=non_negative_int,
        default=d.random_plies,
        help=f"random opening plies in self-play ({d.random_plies})",
    )
    parser.add_argument(
        "--epsilon",
        type=fraction,
        default=d.epsilon,
        help=f"chance of a random move after that ({d.epsilon})",
    )
    parser.add_argument(
        "--lambda", dest="lam", type=fraction, default=d.lam, help=f"TD(lambda) blend ({d.lam})"
    )
    parser.add_argument(
        "--buffer-generations",
        type=positive_int,
        default=d.buffer_generations,
        help=f"generations of samples to train on ({d.buffer_generations})",
    )
    parser.add_argument(
        "--no-balance",
        dest="balance",
        action="store_false",
        help="train on all positions without balancing outcomes",
    )
    parser.add_argument(
        "--epochs",
        type=non_negative_int,
        default=d.epochs,
        help=f"passes over the samples per generation ({d.epochs})",
    )
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=d.batch_size,
        help=f"positions per optimiser step ({d.batch_size})",
    )
    parser.add_argument(
        "--learning-rate",
        type=positive_float,
        default=d.learning_rate,
        help=f"Adam's learning rate ({d.learning_rate})",
    )
    parser.add_argument(
        "--match-games",
        type=positive_int,
        default=d.match_games,
        help=f"games per match ({d.match_games})",
    )
    parser.add_argument(
        "--match-every",
        type=positive_int,
        default=d.match_every,
        help=f"play matches every this many generations ({d.match_every})",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        help="threads and match processes (every core); results don't depend on it",
    )
    add_backend_arguments(parser)
    parser.add_argument(
        "--moves-left",
        action="store_true",
        help="give the network a moves-left head if it has none (a head is always trained)",
    )
    parser.add_argument(
        "--moves-left-weight",
        type=positive_float,
        default=d.moves_left_weight,
        metavar="W",
        help=f"the plies-left loss's weight against the value loss ({d.moves_left_weight})",
    )
    parser.add_argument(
        "--heads-only",
        action="store_true",
        help="with --moves-left: train the head alone, the value layers frozen (the network "
        "plays exactly as before when the search ignores the head)",
    )
    parser.add_argument(
        "--tablebase",
        metavar="DIR",
        help="exact plies-left targets from this tablebase once the hand is empty (Tigers)",
    )
    parser.add_argument(
        "--table-positions",
        type=non_negative_int,
        default=d.table_positions,
        metavar="N",
        help="with --tablebase: add N positions drawn from the table to each generation, with "
        f"their exact values and distances ({d.table_positions})",
    )
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )
    add_game_argument(parser)


def command_train(args: argparse.Namespace) -> None:
    d = game_defaults(args.game)
    config = TrainConfig(
        game=args.game,
        generations=d.generations if args.generations is None else args.generations,
        games=d.games if args.games is None else args.games,
        out_dir=d.out_dir if args.out_dir is None else args.out_dir,
        start_from=args.start_from,
        depth=args.depth,
        ply_cap=args.ply_cap,
        random_plies=args.random_plies,
        epsilon=args.epsilon,
        lam=args.lam,
        buffer_generations=args.buffer_generations,
        balance=args.balance,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        match_games=args.match_games,
        match_every=args.match_every,
        workers=args.workers,
        moves_left=args.moves_left,
        moves_left_weight=args.moves_left_weight,
        tablebase=args.tablebase,
        heads_only=args.heads_only,
        table_positions=args.table_positions,
    )
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
