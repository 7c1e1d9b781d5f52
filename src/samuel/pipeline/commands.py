"""``samuel pipeline``: the production loop's commands (docs/pipeline.md).

    samuel pipeline run DIR --game tigers --cycles 3   # the loop (resumes; share it: run again)
    samuel pipeline status DIR [--plot FILE.png]       # counts, the champion, the last gates
    samuel pipeline models DIR                         # the registry
    samuel pipeline promote DIR ID --why "..."         # make a model active, logged
    samuel pipeline reject DIR ID [ID ...]             # mark models rejected
    samuel pipeline gate DIR ID                        # gate a model (again) against the champion
    samuel pipeline check DIR                          # the store against the files
    samuel pipeline ablate DIR --without random        # what one source is worth, by a match

The store is ``DIR/pipeline.sqlite`` unless ``--db`` (or ``$SAMUEL_PIPELINE_DB``) names
another: a SQLite file or a PostgreSQL URL (``postgresql+psycopg://user@host/db``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
from pathlib import Path

from samuel.errors import CommandError
from samuel.options import (
    add_backend_arguments,
    add_game_argument,
    backend_of,
    non_negative_int,
    positive_int,
)

DB_VARIABLE = "SAMUEL_PIPELINE_DB"


def _imports():
    """The pipeline's modules, or a clear error when its libraries are not installed."""
    try:
        import alembic  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as error:
        raise CommandError(
            f"samuel pipeline needs {error.name}: pip install 'samuel[pipeline]'"
        ) from None


@contextlib.contextmanager
def _opened(args: argparse.Namespace, create: bool = False):
    """The pipeline's folder and its store, opened (and migrated) for one command, closed after."""
    _imports()
    from .store import Store, database_url

    folder = Path(args.directory)
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    elif not folder.is_dir():
        raise CommandError(f"no pipeline folder {folder} (samuel pipeline run {folder} starts one)")
    db = args.db or os.environ.get(DB_VARIABLE)
    url = database_url(db, folder)
    if url.startswith("sqlite:") and not create and db is None:
        if not (folder / "pipeline.sqlite").exists():
            raise CommandError(f"{folder} holds no pipeline store (pipeline.sqlite)")
    store = Store.open(url)
    try:
        yield folder, store
    finally:
        store.close()


# The options of `run` that set the configuration: given ones override the stored config.
CONFIG_OPTIONS = {
    "seed": (non_negative_int, "the seed of every random choice"),
    "selfplay_games": (non_negative_int, "self-play games of the champion per cycle"),
    "selfplay_depth": (positive_int, "search depth in self-play"),
    "games_per_unit": (positive_int, "games in one unit of work"),
    "expert_games": (non_negative_int, "games between the strongest players per cycle"),
    "random_positions": (non_negative_int, "distribution-matched random positions per cycle"),
    "tablebase_positions": (non_negative_int, "positions drawn from the tablebase per cycle"),
    "tablebase": (str, "the tablebase folder: exact labels, `tablebase` positions (Tigers)"),
    "rollouts": (positive_int, "K: rollout games per position"),
    "rollout_depth": (positive_int, "the champion's depth in rollouts"),
    "rollout_epsilon": (float, "share of rollout plies played at random"),
    "truncate_plies": (non_negative_int, "stop rollouts after N plies (0: play to the end)"),
    "label_chunk": (positive_int, "positions per labelling unit"),
    "train_positions": (positive_int, "the most labelled positions sampled for training"),
    "epochs": (positive_int, "the most training epochs"),
    "batch_size": (positive_int, "positions per optimiser step"),
    "learning_rate": (float, "Adam's learning rate"),
    "patience": (positive_int, "early stopping: epochs without a better validation loss"),
    "moves_left_weight": (float, "the moves-left head's plies loss weight against the value's"),
    "gate_games": (positive_int, "the most gating games against the champion (even)"),
    "gate_depth": (positive_int, "search depth in gating matches"),
    "elo0": (float, "SPRT H0 (Elo)"),
    "elo1": (float, "SPRT H1 (Elo)"),
    "anchor": (str, "the anchor's player spec"),
    "anchor_games": (positive_int, "games against the anchor (even)"),
    "anchor_floor": (float, "the least score against the anchor to be promoted"),
    "relabel_positions": (non_negative_int, "positions relabelled after a promotion"),
    "workers": (non_negative_int, "match worker processes (0: every core)"),
}


def _config(args: argparse.Namespace, stored: dict | None):
    from .config import PipelineConfig

    base = PipelineConfig.from_json(stored) if stored else PipelineConfig()
    changes = {
        name: getattr(args, name)
        for name in CONFIG_OPTIONS
        if getattr(args, name, None) is not None
    }
    if getattr(args, "no_variance_reduction", False):
        changes["variance_reduction"] = False
    if getattr(args, "moves_left", False):
        changes["moves_left"] = True
    if changes.get("tablebase"):
        changes["tablebase"] = str(Path(changes["tablebase"]).resolve())
    return dataclasses.replace(base, **changes)


def _context(folder: Path, store, game: str, progress: bool, backend=None):
    from .stages import Context

    return Context(store=store, folder=folder, game=game, progress=progress, backend=backend)


def _backend(args: argparse.Namespace, workers: int):
    """The run's backend (``--backend``; not part of the configuration): None for this
    machine, which the stages use as they always did."""
    if args.backend == "local" and args.ray_address is None:
        return None
    return backend_of(args, workers or None)


def _latest_config(store, game: str) -> dict | None:
    from sqlalchemy import select

    from .schema import Cycle

    with store.read() as connection:
        return connection.execute(
            select(Cycle.config).where(Cycle.game == game).order_by(Cycle.number.desc()).limit(1)
        ).scalar_one_or_none()


def _check_before_running(config, game: str) -> None:
    """Refuse a bad anchor or tablebase now, not in the middle of a cycle."""
    from samuel.games import get_game
    from samuel.players import HumanPlayer, make_player

    rules = get_game(game)
    if config.tablebase is not None:
        if game != "tigers":
            raise CommandError("--tablebase is Tigers & Sheep's; other games have none")
        from samuel.games.tigers.tablebase.probe import load_tablebase

        table = load_tablebase(config.tablebase)
        if table.captures_to_win != rules.captures_to_win:
            raise CommandError(
                f"{config.tablebase} is the table of the game won by {table.captures_to_win} "
                f"captures, not {rules.captures_to_win}"
            )
    anchor = make_player(config.anchor, rules, depth=config.gate_depth)
    if isinstance(anchor, HumanPlayer):
        raise CommandError("the anchor must be an engine, not human")


def command_run(args: argparse.Namespace) -> None:
    with _opened(args, create=True) as (folder, store):
        from .loop import run

        config = _config(args, _latest_config(store, args.game))
        _check_before_running(config, args.game)
        backend = _backend(args, config.workers)
        ctx = _context(folder, store, args.game, progress=not args.no_progress, backend=backend)
        report = run(store, ctx, config, cycles=args.cycles, init=args.init)
        print(f"{len(report.cycles)} cycle(s) finished, {report.units} units done by this run")


def command_status(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from .status import plot_anchor_scores, status_lines

        for line in status_lines(store, args.game):
            print(line)
        if args.plot:
            plot_anchor_scores(store, args.game, args.plot)
            print(f"plot: {args.plot}")


def command_models(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from .status import model_lines

        for line in model_lines(store, args.game):
            print(line)


def command_promote(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from . import registry

        with store.write() as connection:
            model = registry.get_model(connection, args.id)
            registry.load_model(folder, model)  # its file must be the registered one
            previous = registry.promote(
                connection,
                args.id,
                who=registry.who(),
                why=args.why,
                tournament_id=args.tournament,
            )
        print(f"model {args.id} is the active {model.game} model (was {previous})")


def command_reject(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from . import registry

        with store.write() as connection:
            registry.reject(connection, args.ids)
        print(f"rejected: {', '.join(map(str, args.ids))}")


def command_check(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from . import registry

        with store.read() as connection:
            problems = registry.check(connection, folder)
        for problem in problems:
            print(("" if problem.serious else "note: ") + str(problem))
        serious = [p for p in problems if p.serious]
        if serious:
            raise CommandError(f"{len(serious)} problem(s) in the store (listed above)")
        print("the store and the files agree")


def command_gate(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from .status import regate

        backend = _backend(args, 0)
        print(regate(store, folder, args.id, progress=not args.no_progress, backend=backend))


def command_ablate(args: argparse.Namespace) -> None:
    with _opened(args) as (folder, store):
        from .status import ablate

        backend = _backend(args, 0)
        for line in ablate(
            store,
            folder,
            args.game,
            args.without,
            args.games,
            progress=not args.no_progress,
            backend=backend,
        ):
            print(line)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", help="the pipeline's folder (models, the SQLite store)")
    parser.add_argument(
        "--db",
        help=f"the store: a SQLite file or a PostgreSQL URL (default DIR/pipeline.sqlite, "
        f"or ${DB_VARIABLE})",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``pipeline`` command's subcommands."""
    commands = parser.add_subparsers(dest="pipeline_command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run the loop's stages (for ever, or --cycles N)")
    _common(run)
    add_game_argument(run)
    run.add_argument("--cycles", type=positive_int, help="stop after N cycles (default: never)")
    run.add_argument("--init", help="the first champion (default: the shipped network)")
    for name, (kind, text) in CONFIG_OPTIONS.items():
        run.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=text)
    run.add_argument(
        "--no-variance-reduction", action="store_true", help="plain Monte Carlo rollouts"
    )
    run.add_argument(
        "--moves-left",
        action="store_true",
        help="give the candidates the moves-left head (trained on the plies the labels' games "
        "lasted); a champion that has it trains it anyway",
    )
    add_backend_arguments(run)
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(run=command_run)

    status = commands.add_parser("status", help="positions, labels, the champion, the gates")
    _common(status)
    add_game_argument(status)
    status.add_argument("--plot", help="also draw the champion's anchor score (a PNG file)")
    status.set_defaults(run=command_status)

    models = commands.add_parser("models", help="the model registry")
    _common(models)
    models.add_argument("--game", default=None, help="only this game's models")
    models.set_defaults(run=command_models)

    promote = commands.add_parser("promote", help="make a model its game's active model")
    _common(promote)
    promote.add_argument("id", type=positive_int, help="the model's id")
    promote.add_argument("--why", required=True, help="the reason, for the log")
    promote.add_argument("--tournament", type=positive_int, help="the tournament it rests on")
    promote.set_defaults(run=command_promote)

    reject = commands.add_parser("reject", help="mark models rejected")
    _common(reject)
    reject.add_argument("ids", type=positive_int, nargs="+", help="model ids")
    reject.set_defaults(run=command_reject)

    gate = commands.add_parser("gate", help="gate a model against its game's champion")
    _common(gate)
    gate.add_argument("id", type=positive_int, help="the model's id")
    add_backend_arguments(gate)
    gate.add_argument("--no-progress", action="store_true", help="no progress bars")
    gate.set_defaults(run=command_gate)

    check = commands.add_parser("check", help="check the store against the model files")
    _common(check)
    check.set_defaults(run=command_check)

    ablate = commands.add_parser("ablate", help="train without one source; match the two")
    _common(ablate)
    add_game_argument(ablate)
    ablate.add_argument(
        "--without",
        required=True,
        choices=("selfplay", "random", "expert", "tablebase"),
        help="the source to leave out",
    )
    ablate.add_argument("--games", type=positive_int, default=200, help="match games (200)")
    add_backend_arguments(ablate)
    ablate.add_argument("--no-progress", action="store_true", help="no progress bars")
    ablate.set_defaults(run=command_ablate)
