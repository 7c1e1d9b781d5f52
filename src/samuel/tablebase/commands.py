"""``samuel tablebase build|verify|probe|score``: the tablebase's commands (docs/tablebase.md)."""

from __future__ import annotations

import argparse
import json
import resource
import time

from samuel.errors import CommandError
from samuel.options import add_backend_arguments, backend_of, non_negative_int, positive_int
from samuel.progress import progress_bar

from . import tablebase_game

DEFAULT_DIRECTORY = "tablebase"  # the default game's table (its perfect part's DEFAULT_DIRECTORY)
START = "start"  # the position every game starts from, as the other commands take it


def _side(sides: tuple[str, str], first_to_move: bool) -> str:
    """The side to move of a layer: the first player's if ``first_to_move``."""
    return sides[0] if first_to_move else sides[1]


def counts_table(results, sides: tuple[str, str] | None = None) -> list[str]:
    """The build's counts: per layer and side (``sides``: the game's, the default game's if
    None), raw and up to symmetry, with totals."""
    sides = tablebase_game()[0].sides if sides is None else sides
    header = (
        f"{'captured':>8} {'to move':>7} | {'positions':>13} {'wins':>13} {'draws':>13} "
        f"{'losses':>13} | {'sym positions':>13} {'sym wins':>12} {'sym draws':>12} "
        f"{'sym losses':>12} | {'longest':>7}"
    )
    lines = [header, "-" * len(header)]
    totals = [0] * 8
    for r in results:
        c = r.counts
        row = [
            c.positions,
            c.wins,
            c.draws,
            c.losses,
            c.sym_positions,
            c.sym_wins,
            c.sym_draws,
            c.sym_losses,
        ]
        totals = [t + v for t, v in zip(totals, row, strict=True)]
        longest = max(c.longest_win, c.longest_loss)
        lines.append(
            f"{r.captured:>8} {_side(sides, r.tiger_to_move):>7} | "
            + " ".join(f"{v:>13,}" for v in row[:4])
            + " | "
            + f"{row[4]:>13,} "
            + " ".join(f"{v:>12,}" for v in row[5:])
            + " | "
            + f"{longest:>7}"
        )
    lines.append("-" * len(header))
    lines.append(
        f"{'total':>16} | "
        + " ".join(f"{v:>13,}" for v in totals[:4])
        + " | "
        + f"{totals[4]:>13,} "
        + " ".join(f"{v:>12,}" for v in totals[5:])
        + " |"
    )
    return lines


def command_build(args: argparse.Namespace) -> None:
    from .build import build

    descriptor, perfect = tablebase_game()
    directory = args.out or perfect.default_directory(args.captures)
    started = time.perf_counter()
    results = build(directory, args.captures, progress=not args.no_progress)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux -> GiB
    print(f"tablebase of the game won by {args.captures} captures in {directory}/")
    for line in counts_table(results, descriptor.sides):
        print(line)
    longest = max(max(r.counts.longest_win, r.counts.longest_loss) for r in results)
    print(f"longest forced result: {longest} plies")
    print(f"time {seconds:.1f} s, peak memory {peak:.2f} GiB (this process)")


def command_verify(args: argparse.Namespace) -> None:
    from .verify import verify

    descriptor, perfect = tablebase_game()
    describe = perfect.describe
    started = time.perf_counter()
    report = verify(args.directory, checksums=not args.no_checksums)
    print(f"{report.positions:,} positions checked in {time.perf_counter() - started:.1f} s")
    for entry in report.examples:
        print(
            f"wrong: captured {entry.captured}, {_side(descriptor.sides, entry.tiger_to_move)} "
            f"to move, index {entry.index}: stored {describe(entry.stored)}, its moves give "
            f"{describe(entry.expected)}"
        )
    if not report.ok:
        raise perfect.TablebaseError(
            f"the tablebase in {args.directory} is wrong: "
            f"{report.wrong_positions:,} positions inconsistent, bad checksums "
            f"{list(report.bad_checksums) or 'none'}, wrong header counts "
            f"{list(report.bad_counts) or 'none'}"
        )
    print("ok: every checksum matches and every position agrees with its moves")


def command_probe(args: argparse.Namespace) -> None:
    _, perfect = tablebase_game()
    table = perfect.load(args.dir)
    rules = table.rules
    position = (
        rules.initial_position() if args.position == START else rules.parse_position(args.position)
    )
    if not table.covers(position):
        raise CommandError(
            f"{position}: the tablebase holds positions with the hand empty and "
            f"fewer than {table.captures_to_win} sheep captured"
        )
    if args.json:
        outcome, plies = table.value(position)
        print(
            json.dumps(
                {
                    "position": str(position),
                    "outcome": outcome,
                    "plies": plies,
                    "moves": [
                        {"move": str(m), "outcome": o, "plies": p}
                        for m, o, p in table.move_values(position)
                    ],
                }
            )
        )
        return
    for line in perfect.format_move_values(table, position):
        print(line)


def command_score(args: argparse.Namespace) -> None:
    from .score import score_player

    _, perfect = tablebase_game()
    table = perfect.load(args.dir)
    backend = backend_of(args)
    started = time.perf_counter()
    with progress_bar(args.positions, "positions", enabled=not args.no_progress) as bar:
        report = score_player(
            args.player,
            table,
            positions=args.positions,
            seed=args.seed,
            ply_cap=args.ply_cap,
            progress=lambda n: bar.update(n - bar.n),
            backend=backend,
        )
    for line in report.lines():
        print(line)
    print(f"time        {time.perf_counter() - started:.1f} s")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``tablebase`` command's subcommands, on the parser ``samuel tablebase`` gets."""
    commands = parser.add_subparsers(dest="tablebase_command", required=True, metavar="COMMAND")

    build = commands.add_parser("build", help="solve every position with the hand empty")
    build.add_argument("--out", help="directory (tablebase/; tablebase-K/ for --captures K)")
    build.add_argument(
        "--captures", type=positive_int, default=5, help="captures that win the game (5; 1 to 6)"
    )
    build.add_argument("--no-progress", action="store_true", help="no progress bars")
    build.set_defaults(run=command_build)

    verify = commands.add_parser("verify", help="check the checksums and every position")
    verify.add_argument("directory", help="the tablebase directory")
    verify.add_argument("--no-checksums", action="store_true", help="skip the checksums")
    verify.set_defaults(run=command_verify)

    probe = commands.add_parser("probe", help="the true value of a position and of every move")
    probe.add_argument(
        "position",
        help="a position string with the hand empty, e.g. 'SSSSS/SSSSS/TSSSS/STSSS/1TSST S 0'",
    )
    probe.add_argument("--dir", default=DEFAULT_DIRECTORY, help="the tablebase (tablebase/)")
    probe.add_argument("--json", action="store_true", help="one JSON object instead of text")
    probe.set_defaults(run=command_probe)

    score = commands.add_parser("score", help="a player's blunder rate against perfect play")
    score.add_argument("player", help="a player spec, e.g. classic:depth=4")
    score.add_argument("--dir", default=DEFAULT_DIRECTORY, help="the tablebase (tablebase/)")
    score.add_argument(
        "--positions", type=positive_int, default=400, help="positions to judge, one per game (400)"
    )
    score.add_argument("--seed", type=non_negative_int, default=0, help="seed (0)")
    score.add_argument(
        "--ply-cap",
        type=positive_int,
        default=200,
        help="a self-play game this long is a draw (200)",
    )
    add_backend_arguments(score)
    score.add_argument("--no-progress", action="store_true", help="no progress bar")
    score.set_defaults(run=command_score)
