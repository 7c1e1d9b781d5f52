"""``samuel zero-train``: the Zero trainer's options, its per-generation table and progress bar.

A command of its own rather than ``samuel train --method zero``: the two trainers share the
loop's guarantees (resume, atomic files, the table's shape, matches, determinism) but hardly an
option (depth, lambda, epsilon and balance are TD(lambda)'s; simulations, noise, temperature and
the loss weights are Zero's; the tablebase means other things to each), and one parser for both
would accept options that the chosen method then ignores.
"""

from __future__ import annotations

import argparse
import os
import sys

from samuel.games import get_game
from samuel.options import (
    add_backend_arguments,
    add_game_argument,
    backend_of,
    even_games,
    fraction,
    non_negative_int,
    number,
    positive_float,
    positive_int,
    whole_number,
)
from samuel.progress import StageProgress

from .command import STOPPED, _loss, _score
from .zero_config import TABLE_CHILDREN, TABLE_SEARCHES, ZeroConfig
from .zero_loop import ZeroReport, train_zero

non_negative_float = number(float, 0.0)  # a loss weight
OPENING_PLIES = 4  # the matches' random opening plies, as the TD(lambda) trainer's


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


def add_zero_arguments(parser: argparse.ArgumentParser) -> None:
    d = ZeroConfig()
    parser.add_argument(
        "generations",
        nargs="?",
        type=positive_int,
        default=d.generations,
        help=f"generations to train ({d.generations})",
    )
    parser.add_argument(
        "games",
        nargs="?",
        type=positive_int,
        default=d.games,
        help=f"self-play games per generation ({d.games})",
    )
    parser.add_argument(
        "out_dir",
        nargs="?",
        help="where weights are saved and resumed from (weights/zero; weights/zero-GAME for "
        "another game)",
    )
    parser.add_argument("--from", dest="start_from", help="start from this Zero network")
    parser.add_argument(
        "--seed", type=non_negative_int, default=d.seed, help=f"the run's seed ({d.seed})"
    )
    parser.add_argument(
        "--sims",
        dest="simulations",
        type=whole_number(1, 100_000),
        default=d.simulations,
        help=f"PUCT simulations a move in self-play and matches ({d.simulations})",
    )
    parser.add_argument(
        "--cpuct",
        dest="c_puct",
        type=number(float, 0.0, 100.0),
        default=d.c_puct,
        help=f"PUCT's exploration constant ({d.c_puct})",
    )
    parser.add_argument(
        "--fpu",
        dest="fpu_reduction",
        type=number(float, -10.0, 10.0),
        default=d.fpu_reduction,
        help=f"first-play urgency reduction ({d.fpu_reduction})",
    )
    parser.add_argument(
        "--noise",
        dest="noise_fraction",
        type=fraction,
        default=d.noise_fraction,
        help=f"Dirichlet noise's weight in the root's priors ({d.noise_fraction})",
    )
    parser.add_argument(
        "--alpha",
        dest="noise_alpha",
        type=number(float, 1e-3, 100.0),
        default=d.noise_alpha,
        help=f"the noise's Dirichlet alpha ({d.noise_alpha})",
    )
    parser.add_argument(
        "--temp-plies",
        dest="temperature_plies",
        type=non_negative_int,
        default=d.temperature_plies,
        help="plies played in proportion to the visits, then the most visited "
        f"({d.temperature_plies})",
    )
    parser.add_argument(
        "--ply-cap", type=positive_int, default=d.ply_cap, help=f"a draw ({d.ply_cap})"
    )
    parser.add_argument(
        "--tablebase",
        metavar="DIR",
        help="Tigers: self-play's searches see this tablebase's positions as exact, and a game "
        "that a repetition or the ply cap stopped inside the table is scored by the table",
    )
    parser.add_argument(
        "--table-search",
        choices=TABLE_SEARCHES,
        default=d.table_search,
        help="with --tablebase: which self-play searches probe it: always, or before-entry, only "
        "those before the game enters the table (inside it the network searches alone, as the "
        "zero player does without a table), or tigers or sheep: that side's always, the other "
        "side's before the entry only, so its mistakes inside are punished, or alternate: the "
        f"tigers' in one game, the sheep's in the next ({d.table_search})",
    )
    parser.add_argument(
        "--table-teaches",
        action="store_true",
        help="with a --table-search other than always: inside the table a search without it "
        "chooses the move, and a second search with it gives the position's policy and value "
        "targets",
    )
    parser.add_argument(
        "--always-share",
        type=fraction,
        default=d.always_share,
        help="with a --table-search other than always: this share of each generation's games, "
        f"spread evenly, has every search see the table ({d.always_share})",
    )
    parser.add_argument(
        "--table-targets",
        action="store_true",
        help="with --tablebase: the value target of each position the table holds is its "
        "table value, not the game's result",
    )
    parser.add_argument(
        "--entry-targets",
        action="store_true",
        help="with --tablebase: the positions before a game entered the table take the table's "
        "value of its entry as their result, not the game's",
    )
    parser.add_argument(
        "--swap-share",
        type=fraction,
        default=d.swap_share,
        help="with --table-search tigers or sheep: this share of the one-sided games, spread "
        f"evenly, has the other side see the table instead ({d.swap_share})",
    )
    parser.add_argument(
        "--seeing-targets",
        action="store_true",
        help="with --tablebase and a one-sided --table-search: in the games where one side's "
        "searches see the table and the other's do not, the seeing side's positions inside it "
        "take their table value as target, not the game's result",
    )
    parser.add_argument(
        "--table-children",
        choices=TABLE_CHILDREN,
        default=d.table_children,
        help="with --tablebase: each position the table holds also trains the value on the "
        "positions its moves lead to (all), or its mistakes lead to (mistakes: the moves that "
        f"give its value away), with their table values ({d.table_children})",
    )
    parser.add_argument(
        "--buffer-generations",
        type=positive_int,
        default=d.buffer_generations,
        help=f"generations of positions to train on ({d.buffer_generations})",
    )
    parser.add_argument(
        "--epochs",
        type=non_negative_int,
        default=d.epochs,
        help=f"passes over them a generation ({d.epochs})",
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
    for head, default in (
        ("policy", d.policy_weight),
        ("value", d.value_weight),
        ("plies", d.plies_weight),
    ):
        parser.add_argument(
            f"--{head}-weight",
            type=non_negative_float,
            default=default,
            help=f"the {head} loss's weight ({default})",
        )
    parser.add_argument(
        "--value-discount",
        type=positive_float,
        default=d.value_discount,
        help="the value target is the result times this ** (plies left - 1): below 1, win "
        f"faster and lose slower ({d.value_discount})",
    )
    parser.add_argument(
        "--q-weight",
        type=non_negative_float,
        default=d.q_weight,
        help="the value target is (1 - this) * the result + this * the search's value of the "
        f"position ({d.q_weight})",
    )
    parser.add_argument(
        "--value-lambda",
        type=non_negative_float,
        default=d.value_lambda,
        help="below 1, the result's part of the value target is TD(lambda)'s return of the "
        f"later positions' search values ({d.value_lambda}: the result)",
    )
    parser.add_argument(
        "--epsilon",
        type=non_negative_float,
        default=d.epsilon,
        help="after the temperature's plies, the chance of a random move in self-play; the "
        f"positions before it learn the search's value where it was played ({d.epsilon})",
    )
    parser.add_argument(
        "--minimax",
        type=non_negative_float,
        default=d.minimax,
        help="the self-play searches' implicit minimax weight, 0 to 1 (the zero player's "
        f"minimax=W; {d.minimax}: plain PUCT)",
    )
    parser.add_argument(
        "--match-games",
        type=even_games,
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
        "--classic-depth",
        type=whole_number(1, 20),
        default=d.classic_depth,
        help=f"the depth of classic in the matches ({d.classic_depth})",
    )
    parser.add_argument(
        "--no-matches", dest="matches", action="store_false", help="play no matches"
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        help="threads and match processes (every core); results don't depend on it",
    )
    add_backend_arguments(parser)
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )
    add_game_argument(parser)


def command_zero_train(args: argparse.Namespace) -> None:
    config = ZeroConfig(
        game=args.game,
        generations=args.generations,
        games=args.games,
        out_dir=args.out_dir,
        start_from=args.start_from,
        seed=args.seed,
        simulations=args.simulations,
        c_puct=args.c_puct,
        fpu_reduction=args.fpu_reduction,
        noise_alpha=args.noise_alpha,
        noise_fraction=args.noise_fraction,
        temperature_plies=args.temperature_plies,
        ply_cap=args.ply_cap,
        tablebase=args.tablebase,
        table_search=args.table_search,
        table_teaches=args.table_teaches,
        always_share=args.always_share,
        swap_share=args.swap_share,
        table_targets=args.table_targets,
        entry_targets=args.entry_targets,
        seeing_targets=args.seeing_targets,
        table_children=args.table_children,
        buffer_generations=args.buffer_generations,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        policy_weight=args.policy_weight,
        value_weight=args.value_weight,
        plies_weight=args.plies_weight,
        value_discount=args.value_discount,
        q_weight=args.q_weight,
        value_lambda=args.value_lambda,
        epsilon=args.epsilon,
        minimax=args.minimax,
        match_games=args.match_games,
        match_every=args.match_every,
        classic_depth=args.classic_depth,
        workers=args.workers,
    )
    progress = StageProgress(enabled=args.progress)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    backend = backend_of(args, args.workers)
    play = None
    if args.matches:
        from samuel.match.head_to_head import play_match

        workers = config.workers or os.cpu_count() or 1

        def play(first: str, second: str, seed: int) -> float:
            return play_match(
                first,
                second,
                config.match_games,
                seed=seed,
                openings=OPENING_PLIES,
                ply_cap=config.ply_cap,
                workers=workers,
                game=config.game,
                backend=backend,
            ).score

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
