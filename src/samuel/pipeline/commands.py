"""``samuel pipeline``: the production loop's commands (docs/pipeline.md).

    samuel pipeline run DIR --game tigers --cycles 3   # the loop (resumes; share it: run again)
    samuel pipeline status DIR [--plot FILE.png]       # counts, the champion, the last gates
    samuel pipeline models DIR                         # the registry
    samuel pipeline promote DIR ID --why "..."         # make a model active, logged
    samuel pipeline reject DIR ID [ID ...]             # mark models rejected
    samuel pipeline gate DIR ID                        # gate a model (again) against the champion
    samuel pipeline check DIR                          # the store against the files
    samuel pipeline ablate DIR --without random        # what one source is worth, by a match
    samuel pipeline replan DIR --learning-rate 0.0005  # new options for the cycle under way
    samuel pipeline migrate DIR                        # upgrade the store's schema

The store is ``DIR/pipeline.sqlite`` unless ``--db`` (or ``$SAMUEL_PIPELINE_DB``) names
another: a SQLite file or a PostgreSQL URL (``postgresql+psycopg://user@host/db``). Only ``run``
starts a store; ``status``, ``models`` and ``check`` open it read-only (they never write, not
even a migration); the others need a store that holds a pipeline. ``run`` refuses a folder that
holds pipeline output its store does not own (a store lost or emptied over an existing folder).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
from dataclasses import dataclass
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


def _database_errors() -> tuple[type[BaseException], ...]:
    """The errors a database raises (through SQLAlchemy or its driver directly)."""
    from sqlalchemy.exc import DBAPIError

    errors: tuple[type[BaseException], ...] = (DBAPIError, sqlite3.Error)
    try:
        import psycopg
    except ImportError:
        return errors
    return (*errors, psycopg.Error)


@contextlib.contextmanager
def _store_errors(url: str):
    """The store failing under a command (a full disk, a damaged file, a lost server), said in
    one line (:func:`store.describe_database_error`); any other error as it is."""
    from .store import describe_database_error

    try:
        yield
    except _database_errors() as error:
        described = describe_database_error(error, url)
        if described is None:
            raise
        raise described from None


def _where(args: argparse.Namespace, create: bool = False) -> tuple[Path, str]:
    """The pipeline's folder (which must exist unless ``create``) and its store's URL."""
    from .store import database_url

    folder = Path(args.directory)
    if create:
        if os.path.lexists(folder) and not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
    elif not folder.is_dir():
        raise CommandError(f"no pipeline folder {folder} (samuel pipeline run {folder} starts one)")
    url = database_url(args.db or os.environ.get(DB_VARIABLE), folder)
    if getattr(args, "game_from_store", False) and args.game is None:
        args.game = _stored_game(url)
    return folder, url


@contextlib.contextmanager
def _peek(url: str):
    """A read-only look at the store: ``(connection, what it is)``, or ``(None, why there is
    no pipeline there)`` (no file, an empty one, a database without the schema)."""
    from .store import open_engine, safe_url, schema_revision, sqlite_file

    path = sqlite_file(url)
    if path is not None and not path.exists():
        yield None, f"{path} does not exist"
        return
    if path is not None and path.stat().st_size == 0:
        yield None, f"{path} is empty (0 bytes)"
        return
    engine = open_engine(url, read_only=True)
    try:
        with engine.connect() as connection, connection.begin():
            if schema_revision(connection) is None:
                yield None, f"{safe_url(url)} holds no pipeline"
            else:
                yield connection, safe_url(url)
    finally:
        engine.dispose()


def _stored_game(url: str) -> str:
    """The game a command without ``--game`` works on: the one game the store holds cycles or
    models of, the default game for a new store; a store of several games must be told."""
    from sqlalchemy import select, union

    from samuel.games import default_game

    from .schema import Cycle, Model

    with _store_errors(url), _peek(url) as (connection, _):
        if connection is None:
            return default_game()
        games = sorted(connection.execute(union(select(Cycle.game), select(Model.game))).scalars())
    if len(games) > 1:
        raise CommandError(f"the store holds {', '.join(games)}: say which with --game")
    return games[0] if games else default_game()


@contextlib.contextmanager
def _opened(args: argparse.Namespace, mode: str = "write"):
    """The pipeline's folder and its store, opened for one command, closed after. ``mode``:
    ``run`` (the store is made or migrated: :func:`command_run` checks the folder first),
    ``write`` (the store must hold a pipeline; migrated) or ``read`` (opened read-only: nothing
    is written, not even a migration)."""
    _imports()
    from .store import Store

    folder, url = _where(args, create=mode == "run")
    with _store_errors(url):
        if mode == "run":
            folder.mkdir(parents=True, exist_ok=True)
            store = Store.open(url)
        else:
            store = Store.open(url, read_only=mode == "read", create=False)
    try:
        with _store_errors(url):
            yield folder, store
    finally:
        with contextlib.suppress(*_database_errors()):
            store.close()


def _listed(paths: list[Path]) -> str:
    names = ", ".join(str(path) for path in paths[:3])
    return names + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


@dataclass(frozen=True)
class _Probe:
    """What a store holds, read without writing: the model files it owns (None: it holds no
    pipeline), what it is (for messages) and the game's newest cycle (None: none yet)."""

    registered: set[str] | None
    what: str
    latest: object | None = None


def _probe(url: str, game: str) -> _Probe:
    from sqlalchemy import select

    from .schema import Cycle, Model

    with _peek(url) as (connection, what):
        if connection is None:
            return _Probe(None, what)
        paths = set(connection.execute(select(Model.path)).scalars())
        latest = connection.execute(
            select(Cycle.game, Cycle.number, Cycle.stage, Cycle.config, Cycle.candidate_id)
            .where(Cycle.game == game)
            .order_by(Cycle.number.desc())
            .limit(1)
        ).one_or_none()
    return _Probe(paths, what, latest)


def _check_folder_is_the_stores(folder: Path, probe: _Probe) -> None:
    """Refuse to run in a folder that holds pipeline output the store does not own: a new
    pipeline's models would overwrite another's files (the store lost, emptied or replaced)."""
    from . import registry
    from .store import StoreError

    foreign = registry.foreign_files(folder, probe.registered)
    if not foreign:
        return
    if probe.registered is None:
        raise StoreError(
            f"{folder} holds a pipeline's output ({_listed(foreign)}), but its store "
            f"{probe.what}: the store was lost or emptied, or is not this folder's; restore it "
            "(or name it with --db), or move the files away to start a new pipeline here"
        )
    raise StoreError(
        f"{folder} holds files that no model of its store {probe.what} owns "
        f"({_listed(foreign)}): another pipeline's? A new model could overwrite them; move them "
        "away (`samuel pipeline check` lists them)"
    )


# The options of `run` that set the configuration: given ones override the stored config.
CONFIG_OPTIONS = {
    "seed": (non_negative_int, "the seed of every random choice"),
    "selfplay_games": (non_negative_int, "self-play games of the champion per cycle"),
    "selfplay_depth": (positive_int, "search depth in self-play"),
    "games_per_unit": (positive_int, "games in one unit of work"),
    "expert_games": (non_negative_int, "games between the strongest players per cycle"),
    "experts": (str, "a game with dice: the two expert players' specs, FIRST,SECOND"),
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
    "points0": (float, "a game with dice: SPRT H0 (points a game)"),
    "points1": (float, "a game with dice: SPRT H1 (points a game)"),
    "gate_match": (non_negative_int, "backgammon: gate by matches to N points (0: games)"),
    "anchor": (str, "the anchor's player spec"),
    "anchor_games": (positive_int, "games against the anchor (even)"),
    "anchor_floor": (float, "the least score against the anchor to be promoted"),
    "relabel_positions": (non_negative_int, "positions relabelled after a promotion"),
    "workers": (non_negative_int, "match worker processes (0: every core)"),
}


def _changes(args: argparse.Namespace) -> dict:
    """The configuration fields the command line sets."""
    changes = {
        name: getattr(args, name)
        for name in CONFIG_OPTIONS
        if getattr(args, name, None) is not None
    }
    if getattr(args, "no_variance_reduction", False):
        changes["variance_reduction"] = False
    if getattr(args, "moves_left", False):
        changes["moves_left"] = True
    if getattr(args, "no_phase_gate", False):
        changes["phase_gate"] = False
    if getattr(args, "gate_cube", False):
        changes["gate_cube"] = True
    if getattr(args, "luck", False):
        changes["luck"] = True
    if changes.get("tablebase"):
        changes["tablebase"] = str(Path(changes["tablebase"]).resolve())
    return changes


def _config(args: argparse.Namespace, stored: dict | None):
    """The stored configuration with the command line's options on top, checked as a whole (a
    bad stored value that an option replaces is no error)."""
    from .config import PipelineConfig

    data = dict(stored) if stored else PipelineConfig().to_json()
    data.update(_changes(args))
    return PipelineConfig.from_json(data)


def _options_text(changes: dict) -> str:
    words = []
    for name, value in changes.items():
        if name == "variance_reduction":
            words.append("--no-variance-reduction")
        elif name == "moves_left":
            words.append("--moves-left")
        elif name == "phase_gate":
            words.append("--no-phase-gate")
        elif name == "gate_cube":
            words.append("--gate-cube")
        elif name == "luck":
            words.append("--luck")
        else:
            words.append(f"--{name.replace('_', '-')} {value}")
    return " ".join(words)


def _check_under_way(cycle, folder: Path) -> None:
    """Refuse to work on a cycle under way whose stored configuration cannot run (stored by an
    older samuel, or too big for this machine), saying how to replan it."""
    from .config import PipelineConfig, check_memory

    try:
        check_memory(PipelineConfig.from_json(dict(cycle.config)))
    except CommandError as error:
        raise CommandError(
            f"{cycle.game} cycle {cycle.number} under way was planned with settings that cannot "
            f"run: {error}; give it good ones with `samuel pipeline replan {folder} --OPTION "
            "VALUE` (before it trains)"
        ) from None


def _context(folder: Path, store, game: str, progress: bool, backend=None):
    from .stages import Context

    return Context(store=store, folder=folder, game=game, progress=progress, backend=backend)


def _backend(args: argparse.Namespace, workers: int):
    """The run's backend (``--backend``; not part of the configuration): None for this
    machine, which the stages use as they always did."""
    if args.backend == "local" and args.ray_address is None:
        return None
    return backend_of(args, workers or None)


def _check_before_running(config, game: str) -> None:
    """Refuse a game the loop cannot play, a bad anchor or tablebase now, not in the middle of
    a cycle."""
    from samuel.games import descriptors, get_game
    from samuel.players import HumanPlayer, make_player

    from .dice import check_config, has_dice
    from .sources import game_part

    rules = get_game(game)
    try:
        game_part(rules.number)
    except ValueError as error:
        raise CommandError(str(error)) from None
    if has_dice(game) and (problem := check_config(config)) is not None:
        raise CommandError(problem)
    if has_dice(game) and config.expert_games:
        from .dice_experts import check_experts

        try:
            check_experts(game, config.experts)
        except ValueError as error:
            raise CommandError(f"--experts: {error}") from None
    elif not has_dice(game) and config.experts is not None:
        raise CommandError("--experts names a game with dice's expert players")
    if config.luck and not has_dice(game):
        raise CommandError(f"--luck is for rollouts over dice; {rules.title} has no dice")
    if (config.gate_cube or config.gate_match) and descriptors()[game].part("cube_game") is None:
        raise CommandError(
            f"--gate-cube and --gate-match are for a game with the doubling cube, not {rules.title}"
        )
    if config.tablebase is not None:
        perfect = descriptors()[game].part("perfect")
        if perfect is None:
            tabled = [d.title for d in descriptors().values() if d.part("perfect") is not None]
            raise CommandError(
                f"--tablebase is {' and '.join(tabled) or 'no game'}'s; other games have none"
            )
        table = perfect.load(config.tablebase)
        if table.captures_to_win != rules.captures_to_win:
            raise CommandError(
                f"{config.tablebase} is the table of the game won by {table.captures_to_win} "
                f"captures, not {rules.captures_to_win}"
            )
    anchor = make_player(config.anchor, rules, depth=config.gate_depth)
    if isinstance(anchor, HumanPlayer):
        raise CommandError("the anchor must be an engine, not human")


def command_run(args: argparse.Namespace) -> None:
    # Everything is checked before anything is written: the folder against its store, the
    # cycle under way, the options.
    _imports()
    from .config import PipelineConfig, check_memory
    from .stages import DONE

    folder, url = _where(args, create=True)
    with _store_errors(url):
        probe = _probe(url, args.game)
    _check_folder_is_the_stores(folder, probe)
    latest = probe.latest
    under_way = latest is not None and latest.stage != DONE
    if under_way:
        _check_under_way(latest, folder)
    config = _config(args, None if latest is None else latest.config)
    _check_before_running(config, args.game)
    check_memory(config)
    changes = _changes(args)
    if under_way and changes and config != PipelineConfig.from_json(dict(latest.config)):
        print(
            f"note: {args.game} cycle {latest.number} under way keeps the configuration it was "
            f"planned with; the options apply from the next cycle (`samuel pipeline replan "
            f"{folder} {_options_text(changes)}` gives them to cycle {latest.number} too, until "
            "it trains)"
        )
    with _opened(args, "run") as (folder, store):
        from .loop import run

        backend = _backend(args, config.workers)
        ctx = _context(folder, store, args.game, progress=not args.no_progress, backend=backend)
        report = run(store, ctx, config, cycles=args.cycles, init=args.init)
        print(f"{len(report.cycles)} cycle(s) finished, {report.units} units done by this run")


def command_status(args: argparse.Namespace) -> None:
    with _opened(args, "read") as (folder, store):
        from .status import plot_anchor_scores, status_lines

        for line in status_lines(store, args.game):
            print(line)
        if args.plot:
            plot_anchor_scores(store, args.game, args.plot)
            print(f"plot: {args.plot}")


def command_models(args: argparse.Namespace) -> None:
    with _opened(args, "read") as (folder, store):
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
    from .store import NoPipelineError, StoreError

    try:
        with _opened(args, "read") as (folder, store):
            from . import registry

            with store.read() as connection:
                problems = registry.check(connection, folder)
    except NoPipelineError as error:
        # No store, or an empty one: whatever pipeline output the folder holds, nothing owns it.
        from . import registry

        folder = Path(args.directory)
        foreign = registry.foreign_files(folder, None)
        if not foreign:
            raise
        for path in foreign:
            print(f"orphan: {registry.orphan_text(folder, path)}")
        raise StoreError(
            f"{error}, but the folder holds {len(foreign)} file(s) of a pipeline's output that "
            "no store owns (listed above): restore its store (or name it with --db)"
        ) from None
    for problem in problems:
        print(("" if problem.serious else "note: ") + str(problem))
    serious = [p for p in problems if p.serious]
    if serious:
        raise CommandError(f"{len(serious)} problem(s) in the store (listed above)")
    print("the store and the files agree")


def command_replan(args: argparse.Namespace) -> None:
    with _opened(args, "write") as (folder, store):
        from .config import check_memory
        from .loop import latest_cycle, replan
        from .stages import DONE, STAGES

        changes = _changes(args)
        if not changes:
            raise CommandError("replan needs the options to change (e.g. --learning-rate 0.0005)")
        cycle = latest_cycle(store, args.game)
        if cycle is None or cycle.stage == DONE:
            raise CommandError(
                f"no {args.game} cycle is under way: `samuel pipeline run {folder} "
                f"{_options_text(changes)}` plans the next one with the options"
            )
        config = _config(args, cycle.config)
        _check_before_running(config, args.game)
        check_memory(config)
        ctx = _context(folder, store, args.game, progress=False)
        done = replan(store, ctx, config)
        before = STAGES[: STAGES.index(done.stage)]
        kept = f"; {', '.join(before)} keep what they made" if before else ""
        print(
            f"{args.game} cycle {done.number} replanned ({_options_text(changes)}): its "
            f"{done.stage} stage planned again, {done.units} unit(s) to do, {done.kept} done "
            f"kept{kept}"
        )


def command_migrate(args: argparse.Namespace) -> None:
    with _opened(args, "write") as (folder, store):
        from .store import head_revision, safe_url

        print(f"the store {safe_url(store.url)} is at schema {head_revision()}")


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


def _config_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that set the configuration (``run`` and ``replan``). Each help line ends
    with a new pipeline's default; a pipeline that exists goes on with its stored settings, and
    an option given changes them (docs/pipeline.md)."""
    from .config import PipelineConfig

    defaults = PipelineConfig()
    for name, (kind, text) in CONFIG_OPTIONS.items():
        default = getattr(defaults, name)
        shown = "none" if default is None else f"{default:,}" if type(default) is int else default
        parser.add_argument(
            "--" + name.replace("_", "-"), type=kind, default=None, help=f"{text} ({shown})"
        )
    parser.add_argument(
        "--no-variance-reduction", action="store_true", help="plain Monte Carlo rollouts"
    )
    parser.add_argument(
        "--luck",
        action="store_true",
        help="a game with dice: rollouts subtract each roll's luck (about 2x smaller standard "
        "errors; 0-ply rollouts take some 20 times as long)",
    )
    parser.add_argument(
        "--moves-left",
        action="store_true",
        help="give the candidates the moves-left head (trained on the plies the labels' games "
        "lasted); a champion that has it trains it anyway",
    )
    parser.add_argument(
        "--no-phase-gate",
        action="store_true",
        help="a network per phase: gate the candidate whole, not phase by phase first",
    )
    parser.add_argument(
        "--gate-cube",
        action="store_true",
        help="backgammon: gating games (or matches) with the doubling cube",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``pipeline`` command's subcommands."""
    commands = parser.add_subparsers(dest="pipeline_command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run the loop's stages (for ever, or --cycles N)")
    _common(run)
    add_game_argument(run, stored=True)
    run.add_argument("--cycles", type=positive_int, help="stop after N cycles (default: never)")
    run.add_argument("--init", help="the first champion (default: the shipped network)")
    _config_arguments(run)
    add_backend_arguments(run)
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(run=command_run)

    status = commands.add_parser("status", help="positions, labels, the champion, the gates")
    _common(status)
    add_game_argument(status, stored=True)
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

    replan = commands.add_parser(
        "replan", help="new options for the cycle under way (until it trains its candidate)"
    )
    _common(replan)
    add_game_argument(replan, stored=True)
    _config_arguments(replan)
    replan.set_defaults(run=command_replan)

    migrate = commands.add_parser("migrate", help="upgrade the store's schema to this samuel's")
    _common(migrate)
    migrate.set_defaults(run=command_migrate)

    ablate = commands.add_parser("ablate", help="train without one source; match the two")
    _common(ablate)
    add_game_argument(ablate, stored=True)
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
