"""``samuel match`` and ``samuel tournament``: their options, and what each runs and prints.

:mod:`samuel.cli` adds the two subcommands with :func:`add_match_arguments` and
:func:`add_tournament_arguments` and runs :func:`command_match` or :func:`command_tournament`.
Heavy imports wait until a command runs, so building the parser stays quick.
"""

from __future__ import annotations

import argparse
import datetime
import os
from pathlib import Path

from samuel.errors import CommandError, FileError
from samuel.files import check_output_path, save_or_keep
from samuel.options import (
    add_backend_arguments,
    add_game_argument,
    add_ply_cap_argument,
    backend_of,
    even_games,
    finite_float,
    non_negative_int,
    per_game,
    ply_cap,
    positive_float,
    positive_int,
    sprt,
)

DEFAULT_FOLDER = Path("matches")  # where reports and game records go unless told otherwise
DEFAULT_SPRT_GAMES = 10_000  # the most games an SPRT match plays unless told otherwise
SPEC_EXAMPLES = "a player spec: classic:depth=4, random, classic:depth=3,epsilon=0.1, ..."


def _opening_plies(text: str):
    from samuel.match.openings import parse_opening_plies

    try:
        return parse_opening_plies(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_common_arguments(parser: argparse.ArgumentParser, cube: bool = False) -> None:
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="worker processes (this machine's cores); results do not depend on it",
    )
    add_backend_arguments(parser)
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="picks the openings and players' seeds (0)"
    )
    parser.add_argument(
        "--opening-plies",
        type=_opening_plies,
        default=None,
        metavar="N|LOW-HIGH",
        help=f"length of the random openings, e.g. 4 or 2-6 ({per_game('default_opening_plies')})",
    )
    add_ply_cap_argument(parser)
    if cube:
        parser.add_argument(
            "--cube",
            choices=("on", "off"),
            default="off",
            help="play each game for points with the doubling cube, from the opening throw "
            "(backgammon; off)",
        )
    parser.add_argument(
        "--depth",
        type=positive_int,
        help=f"default search depth for specs without one ({per_game('default_depth')})",
    )
    parser.add_argument(
        "--time", type=positive_float, help="default seconds per move for specs without one"
    )
    parser.add_argument("--json", metavar="FILE", help="where to write the report as JSON")
    parser.add_argument("--records", metavar="FILE", help="where to write every game's record")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (none when not a terminal)"
    )
    add_game_argument(parser)


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``samuel match``."""
    parser.add_argument("first", help=f"the player reported on, {SPEC_EXAMPLES}")
    parser.add_argument("second", help="its opponent (a spec as for the first)")
    parser.add_argument(
        "--games",
        type=even_games,
        help=f"games, an even number (200; with --sprt the most, {DEFAULT_SPRT_GAMES:,})",
    )
    parser.add_argument(
        "--sprt",
        type=sprt,
        metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
        help="stop as soon as the SPRT on game pairs decides (e.g. elo0=0,elo1=10,alpha=0.05,"
        "beta=0.05)",
    )
    _add_common_arguments(parser, cube=True)


def add_tournament_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``samuel tournament``."""
    parser.add_argument(
        "players", nargs="+", metavar="PLAYER", help=f"two or more, each {SPEC_EXAMPLES}"
    )
    parser.add_argument("--games", type=even_games, help="games per pairing, an even number (100)")
    parser.add_argument(
        "--anchor", metavar="PLAYER", help="the player whose rating is fixed (the pool's average)"
    )
    parser.add_argument(
        "--anchor-rating",
        type=finite_float,
        default=0.0,
        help="the anchor's rating, or the pool's average (0)",
    )
    _add_common_arguments(parser)


def _output_paths(args: argparse.Namespace, name: str) -> tuple[Path, Path]:
    """The JSON and records paths: as given, or ``matches/DATE-TIME-name.json`` and
    ``.games.txt`` (the game's record suffix: draughts ``.games.pdn``). Checked before any game
    is played, so a typo costs no match."""
    from samuel.games import get_game

    stem = datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + f"-{name}"
    suffix = get_game(args.game).record_format.suffix
    json_path = check_output_path(args.json or DEFAULT_FOLDER / f"{stem}.json", "report")
    records_path = check_output_path(
        args.records or DEFAULT_FOLDER / f"{stem}.games{suffix}", "game records"
    )
    if json_path.resolve() == records_path.resolve():
        raise CommandError(f"--json and --records both name {json_path}: give two files")
    return json_path, records_path


def _write_outputs(json_path: Path, report: dict, records_path: Path, records: list) -> None:
    """Write the report and the records; either that cannot be written is kept in the system's
    temporary folder, and then one error says what became of both (the games took long)."""
    from samuel.games.record import write_records
    from samuel.match.report import write_json

    failures = []
    for path, what, save in (
        (json_path, "report", lambda target: write_json(target, report)),
        (records_path, "game records", lambda target: write_records(target, records)),
    ):
        try:
            save_or_keep(path, what, save)
            print(f"{what} written to {path}")
        except FileError as error:
            failures.append(str(error))
    if failures:
        raise FileError("; ".join(failures))


def _checkpoint(json_path: Path, records_path: Path):
    """Write a match so far (marked incomplete) to the report and records paths, quietly: the
    final writing, or the error that ends the match, says where they are."""
    from samuel.games.record import write_records
    from samuel.match.report import match_json, write_json

    def write(result) -> None:
        try:
            write_records(records_path, result.records())
            write_json(json_path, match_json(result))
        except (OSError, FileError):  # the end of the match writes them again, or says why
            pass

    return write


def _openings(args: argparse.Namespace):
    """The openings given, or None: the game's own."""
    return args.opening_plies


def command_match(args: argparse.Namespace) -> None:
    from samuel.match.head_to_head import DEFAULT_GAMES, MatchInterrupted, play_match
    from samuel.match.report import format_match_report, match_json

    games = args.games or (DEFAULT_SPRT_GAMES if args.sprt else DEFAULT_GAMES)
    json_path, records_path = _output_paths(args, "match")
    try:
        result = play_match(
            args.first,
            args.second,
            games,
            seed=args.seed,
            openings=_openings(args),
            ply_cap=ply_cap(args),
            depth=args.depth,
            seconds=args.time,
            sprt=args.sprt,
            workers=args.workers,
            progress=not args.no_progress,
            game=args.game,
            backend=backend_of(args, args.workers),
            # On Ray the process can be ended outright (Ray ends its driver when its raylet
            # dies): the games played are kept on disk as the match goes, marked incomplete.
            checkpoint=_checkpoint(json_path, records_path) if args.backend == "ray" else None,
            cube=args.cube == "on",
        )
        stopped = None
    except MatchInterrupted as error:
        # The backend failed (Ray's processes died): keep the games played, marked incomplete.
        if error.result is None:
            raise CommandError(f"{error}: no game had finished, so nothing was written") from None
        result, stopped = error.result, error
    print(format_match_report(result))
    print()
    _write_outputs(json_path, match_json(result), records_path, result.records())
    if stopped is not None:
        raise CommandError(
            f"the match stopped after {result.games} of {games} games ({stopped}); the report "
            f"and records of the {result.games} games played are in {json_path} and "
            f"{records_path}, marked incomplete"
        )


def command_tournament(args: argparse.Namespace) -> None:
    from samuel.backends import RunInterrupted
    from samuel.match.report import format_tournament_report, tournament_json
    from samuel.match.tournament import DEFAULT_TOURNAMENT_GAMES, play_tournament

    json_path, records_path = _output_paths(args, "tournament")
    try:
        result = play_tournament(
            args.players,
            args.games or DEFAULT_TOURNAMENT_GAMES,
            seed=args.seed,
            openings=_openings(args),
            ply_cap=ply_cap(args),
            depth=args.depth,
            seconds=args.time,
            anchor=args.anchor,
            anchor_rating=args.anchor_rating,
            workers=args.workers,
            progress=not args.no_progress,
            game=args.game,
            backend=backend_of(args, args.workers),
        )
    except RunInterrupted as error:  # the backend failed (Ray's processes died)
        raise CommandError(
            f"the tournament stopped: {error}; its ratings need every pairing's games, so "
            "nothing was written"
        ) from None
    print(format_tournament_report(result))
    print()
    _write_outputs(json_path, tournament_json(result), records_path, result.records())
