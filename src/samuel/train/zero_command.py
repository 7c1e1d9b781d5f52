"""``samuel zero-train``: the Zero trainer's options, its per-generation table and progress bar.

A command of its own rather than ``samuel train --method zero``: the two trainers share the
loop's guarantees (resume, atomic files, the table's shape, matches, determinism) but hardly an
option (depth, lambda, epsilon and balance are TD(lambda)'s; simulations, noise, temperature and
the loss weights are Zero's; the tablebase means other things to each), and one parser for both
would accept options that the chosen method then ignores.
"""

from __future__ import annotations

import argparse
import sys

from samuel.config_options import add_config_options, config_from
from samuel.games import get_game
from samuel.options import add_backend_arguments, add_game_argument, backend_of
from samuel.progress import StageProgress

from .command import STOPPED, _loss, _score
from .matches import training_match
from .zero_config import ZeroConfig
from .zero_loop import ZeroReport, train_zero


def zero_table_header(sides: tuple[str, str]) -> str:
    """The table's header for a game whose players are ``sides`` (first, second): per
    generation the positions trained, the games' outcomes and mean length, the policy
    cross-entropy, value squared error and plies loss before and after training, and the
    matches."""
    return (
        f" gen trained {sides[0]:>6} {sides[1]:>6}  draws  plies  pol bef  val bef  ply bef  "
        "pol aft  val aft  ply aft vs prev vs classic train s  time s"
    )


def format_zero_row(row: ZeroReport) -> str:
    """The row of :func:`zero_table_header`'s table."""
    losses = " ".join(
        _loss(v)
        for v in (
            row.policy_before,
            row.value_before,
            row.plies_loss_before,
            row.policy_after,
            row.value_after,
            row.plies_loss_after,
        )
    )
    return (
        f"{row.generation:4d} {row.trained:7d} {row.first_wins:6d} {row.second_wins:6d} "
        f"{row.draws:6d} {row.mean_plies:6.1f} {losses} "
        f"{_score(row.vs_previous, 7)} {_score(row.vs_classic, 10)} "
        f"{row.train_seconds:7.2f} {row.seconds:7.1f}"
    )


# The options of the stages that were tried and not shipped (docs/zero-journal.md, the fourth
# to the seventh): each still works, so the journal's runs can be repeated, but the help shows
# them in a group of their own after the options a run needs. --table-search's default, always,
# is what the shipped run used; only its other values are experiments, so it goes with them.
EXPERIMENTS = (
    "table_search",
    "table_teaches",
    "always_share",
    "table_targets",
    "entry_targets",
    "swap_share",
    "seeing_targets",
    "table_children",
    "value_lambda",
    "epsilon",
    "minimax",
)
EXPERIMENTS_TITLE = "experiments (tried, not shipped: docs/zero-journal.md)"


def add_zero_arguments(parser: argparse.ArgumentParser) -> None:
    # The help's order, older than the fields', differs in one place: the noise's weight first.
    add_config_options(parser, ZeroConfig, "generations", "fpu_reduction")
    add_config_options(parser, ZeroConfig, only=("noise_fraction", "noise_alpha"))
    add_config_options(parser, ZeroConfig, "temperature_plies", "tablebase")
    add_config_options(parser, ZeroConfig, "buffer_generations", "q_weight")
    add_config_options(parser, ZeroConfig, "match_games", "classic_depth")
    parser.add_argument(
        "--no-matches", dest="matches", action="store_false", help="play no matches"
    )
    add_config_options(parser, ZeroConfig, only=("workers",))
    add_backend_arguments(parser)
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )
    add_game_argument(parser)
    # argparse prints a group after the plain options, whenever its arguments are added.
    add_config_options(parser.add_argument_group(EXPERIMENTS_TITLE), ZeroConfig, only=EXPERIMENTS)


def command_zero_train(args: argparse.Namespace) -> None:
    from samuel.errors import UnsupportedGameError
    from samuel.games.actions import action_count

    config = config_from(ZeroConfig, args)
    try:
        action_count(get_game(config.game).number)  # its policy names each move by an action
    except ValueError as error:
        raise UnsupportedGameError(str(error)) from None
    progress = StageProgress(enabled=args.progress)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    backend = backend_of(args, args.workers)
    play = training_match(config, backend) if args.matches else None

    def start() -> None:
        print(zero_table_header(get_game(config.game).sides), flush=True)

    try:
        train_zero(
            config,
            lambda row: print(format_zero_row(row), flush=True),
            play_match=play,
            progress=progress,
            log=log,
            backend=backend,
            on_start=start,
        )
    except KeyboardInterrupt:
        progress.close()
        print(STOPPED, file=sys.stderr)
        raise
