"""``samuel <command>``: parses the command line, calls one function, prints the result.

A user's mistake (a bad position, move, option or file: a :class:`samuel.errors.SamuelError`, or
an ``OSError`` from a path the user named) ends with a one-line message and exit status 2, never
a traceback. Anything else is a bug, and shows as one: a traceback and exit status 1.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

from samuel.errors import CommandError, SamuelError
from samuel.files import check_output_path, describe_os_error, save_or_keep
from samuel.games import get_game
from samuel.options import non_negative_int as _non_negative_int
from samuel.options import positive_float as _positive_float
from samuel.options import positive_int as _positive_int

START = "start"
TABLEBASE_HELP = "probe this tablebase once the hand is empty (docs/tablebase.md)"


def _position(rules, text: str):
    return rules.initial_position() if text == START else rules.parse_position(text)


# Perft counts grow about 14- and 18-fold on alternate plies (`samuel perft 8`: 339,123,476 at 7,
# 4,933,406,760 at 8), so perft 15 is about 2e18, within the kernel's 64-bit count (9.2e18), and
# perft 16 about 3e19, past it. Time runs out sooner anyway: perft 10 takes about an hour.
MAX_PERFT_DEPTH = 15


def _perft_depth(text: str) -> int:
    depth = _positive_int(text)
    if depth > MAX_PERFT_DEPTH:
        raise argparse.ArgumentTypeError(
            f"{text!r} is too deep: perft counts up to {MAX_PERFT_DEPTH} plies (a deeper count "
            "could pass the 64-bit counter, and would take centuries)"
        )
    return depth


def command_perft(args: argparse.Namespace) -> None:
    from samuel.games.tigers import kernels

    rules = get_game("tigers")
    position = _position(rules, args.position)
    state = rules.encode(position)
    if args.divide:
        for move in rules.legal_moves(position):
            child = rules.encode(rules.play(position, move))
            count = kernels.perft(*map(int, child), args.depth - 1)
            print(f"{rules.format_move(move):8} {count}")
    kernels.perft(*map(int, state), 2)  # compile (or load) the kernels before timing
    count = 0
    for depth in range(1, args.depth + 1):
        started = time.perf_counter()
        count = kernels.perft(*map(int, state), depth)
        seconds = time.perf_counter() - started
        rate = f"{count / seconds / 1e6:10.1f} M/s" if seconds > 1e-3 else ""
        print(f"perft {depth:2}  {count:>14,}  {seconds:8.3f} s {rate}")
    print(count)


def _describe_score(rules, result, position) -> str:
    """The score from the first player's (tigers') point of view, or the forced result."""
    side = rules.side_to_move(position)
    plies = result.forced_plies
    if plies is not None:
        winner = rules.sides[side] if result.score > 0 else rules.sides[1 - side]
        return f"{winner} win in {plies} {'ply' if plies == 1 else 'plies'}"
    first_player_view = result.score if side == 0 else -result.score
    return f"{first_player_view:+.3f} ({rules.sides[0]}' view)"


def warm_up(rules) -> None:
    """Compile (or load from the cache) the search, so that timings measure searching."""
    from samuel.games.game import Game
    from samuel.players import make_player

    make_player("classic:depth=1", rules).search(Game(rules))


def command_analyse(args: argparse.Namespace) -> None:
    from samuel.games.game import Game
    from samuel.players import SearchPlayer, make_player

    rules = get_game("tigers")
    position = _position(rules, args.position)
    _check_depth(args.depth)
    game = Game(rules, start=position)
    if game.outcome is not None:
        raise CommandError(
            f"the game is already over in this position: {game.outcome.termination.value}"
        )
    depth = args.depth or (None if args.time else 6)
    player = make_player(
        args.player, rules, depth=depth, seconds=args.time, seed=args.seed, tablebase=args.tablebase
    )
    if not isinstance(player, SearchPlayer):
        raise CommandError(f"{args.player!r} does not search; analyse needs a searching player")
    warm_up(rules)
    result = player.search(game)
    print(f"position   {rules.format_position(position)}")
    print(f"player     {args.player}")
    print(f"depth      {result.depth}")
    print(f"best move  {rules.format_move(rules.move_from_code(result.best_move))}")
    print(f"score      {_describe_score(rules, result, position)}")
    pv = " ".join(rules.format_move(rules.move_from_code(m)) for m in result.principal_variation)
    print(f"pv         {pv}")
    print(f"nodes      {result.nodes:,}")
    print(f"time       {result.seconds:.3f} s")
    print(f"nodes/s    {result.nodes_per_second:,.0f}")


def _check_depth(depth: int | None) -> None:
    """Refuse a default search depth that the search would refuse, before a game starts."""
    from samuel.search.alphabeta import MAX_PLY

    if depth is not None and depth >= MAX_PLY:
        raise CommandError(f"--depth must be at most {MAX_PLY - 1}, not {depth}")


def command_play(args: argparse.Namespace) -> None:
    from samuel.games.record import record_from_game, write_records
    from samuel.match.play import play_game
    from samuel.players import SearchPlayer, make_player

    rules = get_game("tigers")
    start = _position(rules, args.start)
    _check_depth(args.depth)
    specs = {"tigers": args.tigers, "sheep": args.sheep}
    players = {
        side: make_player(
            spec,
            rules,
            depth=args.depth,
            seconds=args.time,
            seed=args.seed + index,
            tablebase=args.tablebase,
        )
        for index, (side, spec) in enumerate(specs.items())
    }
    if args.tablebase is not None and not any(
        isinstance(player, SearchPlayer) for player in players.values()
    ):
        raise CommandError(
            f"--tablebase {args.tablebase}: neither {args.tigers!r} nor {args.sheep!r} searches, "
            "so no player would probe it"
        )
    # Checked before the game, so that a game is never played only to be lost; the default
    # folder, games/, is created when the record is written.
    record_path = check_output_path(
        args.record or Path("games") / (datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + ".txt"),
        "game record",
    )

    def show(game, player) -> None:
        move = game.moves[-1]
        print()
        line = f"{len(game.moves)}. {player.spec} played {rules.format_move(move)}"
        if isinstance(player, SearchPlayer) and player.last is not None:
            result = player.last
            pv = " ".join(
                rules.format_move(rules.move_from_code(m)) for m in result.principal_variation
            )
            line += (
                f"   score {_describe_score(rules, result, game.positions[-2])}"
                f"   depth {result.depth}   nodes {result.nodes:,}   pv {pv}"
            )
        print(line)
        print(rules.draw_board(game.position))

    print(rules.draw_board(start))
    game = play_game(rules, players, start=start, ply_cap=args.ply_cap, after_move=show)
    print()
    if game.outcome is None:
        print("game stopped")
    else:
        winner = game.outcome.winner
        result = "a draw" if winner is None else f"{rules.sides[winner]} won"
        print(f"game over: {result} ({game.outcome.termination.value})")
    record = record_from_game(game, players=specs)
    save_or_keep(record_path, "game record", lambda path: write_records(path, [record]))
    print(f"game record saved to {record_path}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="samuel", description="Game engines that teach themselves to play by self-play."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    perft = commands.add_parser("perft", help="count legal move sequences (tests move generation)")
    perft.add_argument("depth", type=_perft_depth, help=f"plies to count, 1 to {MAX_PERFT_DEPTH}")
    perft.add_argument("--position", default=START, help="position string, or 'start'")
    perft.add_argument("--divide", action="store_true", help="first print each move's count")
    perft.set_defaults(run=command_perft)

    analyse = commands.add_parser("analyse", aliases=["analyze"], help="search one position")
    analyse.add_argument(
        "position", help="position string such as 'T3T/5/5/5/T3T S 20', or 'start'"
    )
    analyse.add_argument(
        "--depth", type=_positive_int, help="search depth (6; with --time, no limit)"
    )
    analyse.add_argument("--time", type=_positive_float, help="seconds to search instead of depth")
    analyse.add_argument("--player", default="classic", help="the searching player (classic)")
    analyse.add_argument("--seed", type=_non_negative_int, default=0, help="tie-break seed (0)")
    analyse.add_argument("--tablebase", metavar="DIR", help=TABLEBASE_HELP)
    analyse.set_defaults(run=command_analyse)

    play = commands.add_parser("play", help="play a game in the terminal")
    play.add_argument("-S", "--sheep", default="human", help="player for the sheep (human)")
    play.add_argument("-T", "--tigers", default="classic", help="player for the tigers (classic)")
    play.add_argument(
        "--depth", type=_positive_int, help="default search depth (4; with --time, no limit)"
    )
    play.add_argument("--time", type=_positive_float, help="default seconds per engine move")
    play.add_argument("--seed", type=_non_negative_int, default=0, help="seed for the players (0)")
    play.add_argument(
        "--ply-cap", type=_positive_int, default=200, help="a game this long is a draw (200)"
    )
    play.add_argument("--start", default=START, help="start position string, or 'start'")
    play.add_argument("--record", help="where to save the game record (games/DATE-TIME.txt)")
    play.add_argument("--tablebase", metavar="DIR", help=TABLEBASE_HELP)
    play.set_defaults(run=command_play)

    from samuel.web import command_serve  # light: FastAPI is imported only when serving

    serve = commands.add_parser("serve", help="play and analyse in the browser (docs/web.md)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_positive_int, default=8000, help="port (8000)")
    serve.add_argument("--weights-dir", help="networks (*.bin) to offer; specs read only these")
    serve.add_argument(
        "--tablebase",
        metavar="DIR",
        help="show the perfect-play value once the hand is empty; the only tablebase specs read",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests for this Host name (repeatable); by default only the names "
        "of the address listened on (127.0.0.1, localhost, [::1] for loopback)",
    )
    serve.add_argument(
        "--search-queue",
        type=_non_negative_int,
        metavar="N",
        help="searches that may wait for a free search thread (as many as run at once, twice "
        "the CPUs); past that a search is refused with 503 and Retry-After",
    )
    serve.set_defaults(run=command_serve)

    from samuel.match import commands as match_commands  # light: matches import on running

    match = commands.add_parser("match", help="a fair match between two players, with statistics")
    match_commands.add_match_arguments(match)
    match.set_defaults(run=match_commands.command_match)

    tournament = commands.add_parser("tournament", help="every pair plays; ratings for all")
    match_commands.add_tournament_arguments(tournament)
    tournament.set_defaults(run=match_commands.command_tournament)

    from samuel.train import command as train_command  # light: training imports on running

    train = commands.add_parser("train", help="learn by self-play (docs/training.md)")
    train_command.add_arguments(train)
    train.set_defaults(run=train_command.command_train)

    from samuel.tune import commands as tune_commands  # light: tuning imports on running

    selfplay = commands.add_parser("selfplay", help="labelled positions from self-play games")
    tune_commands.add_selfplay_arguments(selfplay)
    selfplay.set_defaults(run=tune_commands.command_selfplay)
    tune = commands.add_parser("tune", help="tune the classic weights by gradient descent")
    tune_commands.add_tune_arguments(tune)
    tune.set_defaults(run=tune_commands.command_tune)
    hillclimb = commands.add_parser("hillclimb", help="tune the classic weights by matches")
    tune_commands.add_hillclimb_arguments(hillclimb)
    hillclimb.set_defaults(run=tune_commands.command_hillclimb)

    from samuel.tablebase import commands as tablebase_commands  # light: solving imports on running

    tablebase = commands.add_parser(
        "tablebase", help="perfect play with the hand empty (docs/tablebase.md)"
    )
    tablebase_commands.add_arguments(tablebase)
    return parser


def describe_error(error: SamuelError | OSError) -> str:
    """A user's mistake in one line; an ``OSError`` that is not one of the project's own (a
    path the user named, opened by a library) gets its reason in words, not ``[Errno 2] ...``."""
    if isinstance(error, SamuelError):
        return str(error)
    reason = describe_os_error(error)
    return reason if error.filename is None else f"{error.filename}: {reason}"


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names; return its exit status. Only the project's own error
    types (and ``OSError``, from paths the user named) are a user's mistake, answered with a
    message and status 2; any other exception is a bug and propagates with its traceback."""
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except (SamuelError, OSError) as error:
        print(f"samuel {args.command}: error: {describe_error(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
