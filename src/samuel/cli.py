"""``samuel <command>``: parses the command line, calls one function, prints the result.

A user's mistake (a bad position, move, option or file: a :class:`samuel.errors.SamuelError`, or
an ``OSError`` from a path the user named) ends with a one-line message and exit status 2, never
a traceback. Anything else is a bug, and shows as one: a traceback and exit status 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib
import os
import sys
import time
from pathlib import Path

from samuel.errors import CommandError, SamuelError
from samuel.files import check_output_path, describe_os_error, save_or_keep
from samuel.games import descriptors, get_game
from samuel.options import (
    add_game_argument,
    add_ply_cap_argument,
    ply_cap,
    require_part,
    require_tablebase,
)
from samuel.options import non_negative_int as _non_negative_int
from samuel.options import positive_float as _positive_float
from samuel.options import positive_int as _positive_int

START = "start"
TABLEBASE_HELP = "probe this tablebase once the hand is empty (docs/tablebase.md; Tigers & Sheep)"
ORDINALS = ("first", "second")  # --first and --second: the game's sides[0] and sides[1]


def _position(rules, text: str):
    return rules.initial_position() if text == START else rules.parse_position(text)


def command_perft(args: argparse.Namespace) -> None:
    rules = get_game(args.game)
    if args.depth > rules.max_perft_depth:  # each game's cap says why it has its value
        raise CommandError(
            f"{args.depth} is too deep: perft counts up to {rules.max_perft_depth} plies in "
            f"{rules.title} (a deeper count would take years, or pass the 64-bit counter)"
        )
    position = _position(rules, args.position)
    if args.divide:
        for move in rules.legal_moves(position):
            count = rules.perft(rules.play(position, move), args.depth - 1)
            print(f"{rules.format_move(move):8} {count}")
        for roll, _ in rules.chance_outcomes(position):  # dice to roll: each roll's count
            count = rules.perft(rules.play(position, roll), args.depth)
            print(f"{rules.format_move(roll):8} {count}")
    rules.perft(position, 2)  # compile (or load) the kernels before timing
    count = 0
    for depth in range(1, args.depth + 1):
        started = time.perf_counter()
        count = rules.perft(position, depth)
        seconds = time.perf_counter() - started
        rate = f"{count / seconds / 1e6:10.1f} M/s" if seconds > 1e-3 else ""
        print(f"perft {depth:2}  {count:>14,}  {seconds:8.3f} s {rate}")
    print(count)


def _describe_score(rules, result, position) -> str:
    """The score from the first player's point of view (the tigers', Black's), or the forced
    result, in the game's words."""
    from samuel.search.describe import score_view

    return score_view(rules, result, position).text


def warm_up(rules) -> None:
    """Compile (or load from the cache) the search, so that timings measure searching."""
    import numpy as np

    from samuel.games.game import Game
    from samuel.players import make_player

    game = Game(rules)
    if game.chance_outcomes():  # a game with dice searches after a roll
        game.roll(np.random.default_rng(0))
    make_player("classic:depth=1", rules).search(game)


def command_analyse(args: argparse.Namespace) -> None:
    from samuel.games.game import Game
    from samuel.players import SearchPlayer, ZeroPlayer, make_player

    judge = _judge_of(args)
    if judge is not None:  # a game record to judge (backgammon's .mat, by GNU Backgammon)
        judge.analyse(args.position, args.ply)
        return
    rules = get_game(args.game)
    _check_tablebase(args)
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
    if args.moves:
        _ranked_moves(game, player, args.moves)
        return
    if isinstance(player, ZeroPlayer):
        _analyse_zero(rules, player, game)
        return
    if not isinstance(player, SearchPlayer):
        raise CommandError(f"{args.player!r} does not search; analyse needs a searching player")
    warm_up(rules)
    if player.plies is not None:  # the n-ply search compiles apart: warm it at 0 plies
        dataclasses.replace(player, plies=0).search(game)
    result = player.search(game)
    print(f"position   {rules.format_position(position)}")
    print(f"player     {args.player}")
    print(f"depth      {result.depth}")
    print(f"best move  {rules.format_move(rules.move_from_code(result.best_move))}")
    print(f"score      {_describe_score(rules, result, position)}")
    plies_left = _plies_left(rules, player, position)
    if plies_left is not None:
        print(f"plies left {plies_left:.1f} (the network's estimate)")
    pv = " ".join(rules.format_move(rules.move_from_code(m)) for m in result.principal_variation)
    print(f"pv         {pv}")
    print(f"nodes      {result.nodes:,}")
    print(f"time       {result.seconds:.3f} s")
    print(f"nodes/s    {result.nodes_per_second:,.0f}")


def _ranked_moves(game, player, shown: int) -> None:
    """``samuel analyse --moves N``: the position's moves ranked (samuel.analysis.positions)."""
    from samuel.analysis.positions import AnalysisRefused, analyse_position
    from samuel.games.base import format_score

    try:
        analysis = analyse_position(game, player)
    except AnalysisRefused as error:
        raise CommandError(str(error)) from None
    print(f"position   {analysis.position}")
    print(f"player     {analysis.player} (values: the {analysis.side_to_move} side's)")
    if analysis.value is not None:
        print(f"value      {format_score(analysis.value)} at {analysis.value_depth} ply")
    if analysis.chances is not None:
        print("chances    " + "  ".join(f"{k} {v:.3f}" for k, v in analysis.chances.items()))
    if analysis.cube is not None:
        cube = analysis.cube
        print(
            f"cube       {cube.decision} (no double {cube.no_double:+.3f}, double/take "
            f"{cube.double_take:+.3f}, double/pass {cube.double_pass:+.3f}: {cube.unit})"
        )
    best = analysis.moves[0].value if analysis.moves else 0.0
    for rank, move in enumerate(analysis.moves[:shown], 1):
        line = " ".join(move.line[1:])
        extra = f"  then {line}" if line else ""
        if move.chances is not None:
            extra += "  " + " ".join(f"{v:.3f}" for v in move.chances.values())
        print(
            f"{rank:3}. {move.move:24} {move.text:>22}  error {best - move.value:7.3f}  "
            f"depth {move.depth}{extra}"
        )
    if len(analysis.moves) > shown:
        print(f"     ... {len(analysis.moves) - shown} more")
    print(f"nodes      {analysis.nodes:,}   time {analysis.seconds:.3f} s")


def _judge_of(args: argparse.Namespace):
    """The game's ``judge`` part when ``args.position`` names a game file for it to judge (a
    path ending in .mat, or an existing file), else None; such a file for a game without a
    judge is refused in a line."""
    text = args.position
    descriptor = descriptors()[args.game]
    judge = descriptor.part("judge")
    if not (text.endswith(".mat") or (judge is not None and _is_file(text))):
        if args.ply is not None:
            raise CommandError("--ply is gnubg's depth for judging a game file (FILE.mat)")
        return None
    if judge is None:
        raise CommandError(f"{descriptor.title} has no judge of game files; give a position")
    return judge


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # a name too long, or with a NUL: a position, then
        return False


ZERO_MOVES_SHOWN = 8  # the most visited root moves that analyse lists for a PUCT search


def _analyse_zero(rules, player, game) -> None:
    """Print a PUCT search of ``game``'s position: the move, the root's value and its most
    visited moves with their visits, priors and values, in the first player's view as every
    other score (a PUCT value is an expected result, -1 to 1)."""
    from dataclasses import replace

    from samuel.games.base import format_score
    from samuel.search.describe import first_player_view, score_view

    # compiled (or read from the cache) before the timed search
    replace(player, settings=replace(player.settings, simulations=1)).search(game)
    result = player.search(game)
    print(f"position   {rules.format_position(game.position)}")
    print(f"player     {player.spec}")
    print(f"best move  {rules.format_move(rules.move_from_code(result.best_move))}")
    print(f"value      {score_view(rules, result, game.position).text}")
    pv = " ".join(rules.format_move(rules.move_from_code(m)) for m in result.principal_variation)
    print(f"pv         {pv} (the most visited line)")
    order = sorted(range(len(result.moves)), key=lambda i: -result.visits[i])
    for i in order[:ZERO_MOVES_SHOWN]:
        move = rules.format_move(rules.move_from_code(result.moves[i]))
        print(
            f"  {move:10} visits {result.visits[i]:>8,}  prior {result.priors[i]:.3f}  "
            f"value {format_score(first_player_view(rules, game.position, result.values[i]))}"
        )
    full = " (the tree filled up)" if result.full else ""
    print(f"sims       {result.simulations:,}{full}")
    print(f"nodes      {result.nodes:,}")
    print(f"time       {result.seconds:.3f} s")
    print(f"sims/s     {result.simulations_per_second:,.0f}")


def _plies_left(rules, player, position) -> float | None:
    """The network's estimate of the plies left, if the player's network has the head."""
    from samuel.evaluation.moves_left import NETWORK, plies_left_estimate
    from samuel.evaluation.networks import has_moves_left
    from samuel.games import kernels as game_kernels

    network = {
        game_kernels.EVALUATOR_NETWORK: player.params,
        game_kernels.EVALUATOR_MOVES_LEFT: player.params[NETWORK:],
    }.get(player.evaluator)
    if network is None or not has_moves_left(network, rules.number):
        return None
    return plies_left_estimate(rules.number, network, rules.encode(position))


def _check_depth(depth: int | None) -> None:
    """Refuse a default search depth that the search would refuse, before a game starts."""
    from samuel.search.alphabeta import MAX_PLY

    if depth is not None and depth >= MAX_PLY:
        raise CommandError(f"--depth must be at most {MAX_PLY - 1}, not {depth}")


def _check_tablebase(args: argparse.Namespace) -> None:
    if args.tablebase is not None:
        require_tablebase(args.game)


class _SidePlayer(argparse.Action):
    """Stores one side's player spec with the option as written (``-B`` or ``--black``), so that
    :func:`side_players` can check the sides against ``--game`` once the game is known."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        given = list(getattr(namespace, self.dest) or [])
        given.append((option_string, self.const, values))
        setattr(namespace, self.dest, given)


def add_side_arguments(parser: argparse.ArgumentParser) -> None:
    """A player option for every side of every game (``-T/--tigers``, ``-B/--black``, ...) and
    ``--first``/``--second`` for any game: argparse cannot know the game before parsing, so
    :func:`side_players` checks afterwards that the sides given are the game's."""
    helps: dict[tuple[str, str], list[str]] = {}  # (letter, side) -> each game's default
    for game in descriptors().values():
        defaults = game.default_players()
        for side, letter in zip(game.sides, game.side_letters, strict=True):
            # games that share a side's name share its option (draughts' and nardy's --white)
            helps.setdefault((letter, side), []).append(f"--game {game.name} ({defaults[side]})")
    for (letter, side), games in helps.items():
        parser.add_argument(
            f"-{letter}",
            f"--{side}",
            dest="side_players",
            action=_SidePlayer,
            const=side,
            metavar="SPEC",
            help=f"player for the {side} side, {'; '.join(games)}",
        )
    for index, ordinal in enumerate(ORDINALS):
        sides = ", ".join(game.sides[index] for game in descriptors().values())
        parser.add_argument(
            f"--{ordinal}",
            dest="side_players",
            action=_SidePlayer,
            const=ordinal,
            metavar="SPEC",
            help=f"player for the game's {ordinal} side, in any game ({sides})",
        )


def _side_options(rules) -> str:
    sides = zip(rules.sides, rules.side_letters, strict=True)
    options = [f"-{letter} ({side})" for side, letter in sides]
    return f"the sides of {rules.title} are {' and '.join(options)}, or --first and --second"


def side_players(rules, given: list[tuple[str, str, str]] | None) -> dict[str, str]:
    """The player spec of each of ``rules.sides``: those ``given`` as (option as written, side or
    ``first``/``second``, spec), the others the game's default players (you the side that moves
    first, ``classic`` the other). Raises :class:`CommandError` for another game's side, or a
    side given twice."""
    players = descriptors()[rules.name].default_players()
    named: dict[str, str] = {}  # side -> the option that named its player
    for option, key, spec in given or []:
        side = rules.sides[ORDINALS.index(key)] if key in ORDINALS else key
        if side not in rules.sides:
            owners = [game.name for game in descriptors().values() if side in game.sides]
            raise CommandError(f"{option} is a {' and '.join(owners)} side; {_side_options(rules)}")
        if side in named:
            raise CommandError(f"{named[side]} and {option} both name a player for the {side}")
        named[side], players[side] = option, spec
    return players


def _points_play(args: argparse.Namespace, rules, start):
    """The game's match file part when ``--cube on`` or ``--match-length`` asks to play for
    points, else None; a game without a cube, a start other than the game's, or a record that
    is no match file is refused in a line."""
    if args.cube is None and not args.match_length:
        return None
    require_part(args.game, "cube_game", "--cube and --match-length", "{games} has a cube")
    match_file = descriptors()[rules.name].part("match_file")
    if start != rules.initial_position():
        raise CommandError("a game for points starts with the opening throw, not --start")
    if args.record is not None and Path(args.record).suffix != match_file.SUFFIX:
        raise CommandError(f"a game for points is recorded in a {match_file.SUFFIX} file")
    return match_file


def command_play(args: argparse.Namespace) -> None:
    from samuel.games.game import Game
    from samuel.games.record import move_number, record_from_game, write_records
    from samuel.match.play import play_game
    from samuel.match.runner import dice as match_dice
    from samuel.players import SearchPlayer, ZeroPlayer, make_player

    rules = get_game(args.game)
    specs = side_players(rules, args.side_players)
    _check_tablebase(args)
    start = _position(rules, args.start)
    _check_depth(args.depth)
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
        isinstance(player, SearchPlayer | ZeroPlayer) for player in players.values()
    ):
        first, second = (specs[side] for side in rules.sides)
        raise CommandError(
            f"--tablebase {args.tablebase}: neither {first!r} nor {second!r} searches, "
            "so no player would probe it"
        )
    # Played for points (a game with a cube): its own match file, from the opening throw.
    points = _points_play(args, rules, start)
    # Checked before the game, so that a game is never played only to be lost; the default
    # folder, games/, is created when the record is written.
    suffix = rules.record_format.suffix if points is None else points.SUFFIX
    record_path = check_output_path(
        args.record or Path("games") / (datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + suffix),
        "game record",
    )

    def show(game, player) -> None:
        move = game.moves[-1]
        print()
        number = move_number(rules, game.start, len(game.moves) - 1)
        rolled = len(game.positions) >= 3 and rules.chance_outcomes(game.positions[-3])
        thrown = f" rolled {rules.format_move(game.moves[-2])} and" if rolled else ""
        line = f"{number} {player.spec}{thrown} played {rules.format_move(move)}"
        result = player.last if isinstance(player, SearchPlayer | ZeroPlayer) else None
        if result is not None:
            pv = " ".join(
                rules.format_move(rules.move_from_code(m)) for m in result.principal_variation
            )
            effort = (
                f"simulations {result.simulations + result.reused:,}"
                if isinstance(player, ZeroPlayer)
                else f"depth {result.depth}"
            )
            line += (
                f"   score {_describe_score(rules, result, game.positions[-2])}"
                f"   {effort}   nodes {result.nodes:,}   pv {pv}"
            )
        print(line)
        print(rules.draw_board(game.position))

    # a game with a match file format of its own (backgammon's .mat) writes one when asked
    match_file = descriptors()[rules.name].part("match_file")
    as_match_file = match_file is not None and Path(record_path).suffix == match_file.SUFFIX
    if as_match_file and start != rules.initial_position():
        raise CommandError(f"a {match_file.SUFFIX} file holds games from the start position")

    def save_record() -> None:
        if as_match_file:
            write = lambda path: match_file.write(path, game, specs)  # noqa: E731
        else:
            record = record_from_game(game, players=specs)
            write = lambda path: write_records(path, [record])  # noqa: E731
        save_or_keep(record_path, "game record", write)
        print(f"game record saved to {record_path}")

    if points is not None:
        dice = match_dice(args.seed, 0)
        on = args.cube == "on"
        points.play_for_points(players, specs, dice, on, args.match_length, show, record_path)
        return
    print(rules.draw_board(start))
    game = Game(rules, start=start, ply_cap=ply_cap(args))
    try:
        # a game with dice throws them from the seed: the same seed, the same game
        play_game(rules, players, game=game, after_move=show, dice=match_dice(args.seed, 0))
    except BaseException:
        # Ctrl-C, or a failure in a player or in showing a move: the moves so far are saved
        # first, then the error goes on (main's one line, or a bug's traceback).
        print("\ngame stopped")
        try:
            save_record()
        except Exception as error:  # said, not raised: the error that stopped the game goes on
            print(f"samuel play: error: {error}", file=sys.stderr)
        raise
    print()
    if game.outcome is None:
        print("game stopped")
    else:
        result = game.outcome.result
        said = "a draw" if result == 0 else rules.win_phrases[0 if result > 0 else 1]
        print(f"game over: {said} ({game.outcome.termination.value})")
    save_record()


def _add_perft(perft: argparse.ArgumentParser) -> None:
    perft.add_argument(
        "depth", type=_positive_int, help="plies to count (15 at most; draughts 20, backgammon 4)"
    )
    perft.add_argument("--position", default=START, help="position string, or 'start'")
    perft.add_argument("--divide", action="store_true", help="first print each move's count")
    add_game_argument(perft)
    perft.set_defaults(run=command_perft)


def _add_analyse(analyse: argparse.ArgumentParser) -> None:
    analyse.add_argument(
        "position",
        help="a position in the game's notation, such as 'T3T/5/5/5/T3T S 20' (draughts: "
        "'B:W21,22:B1,K2'), or 'start'; backgammon: or a FILE.mat to judge with GNU Backgammon",
    )
    analyse.add_argument(
        "--depth", type=_positive_int, help="search depth (6; with --time, no limit)"
    )
    analyse.add_argument("--time", type=_positive_float, help="seconds to search instead of depth")
    analyse.add_argument("--player", default="classic", help="the searching player (classic)")
    analyse.add_argument("--seed", type=_non_negative_int, default=0, help="tie-break seed (0)")
    analyse.add_argument("--tablebase", metavar="DIR", help=TABLEBASE_HELP)
    analyse.add_argument(
        "--ply",
        type=_non_negative_int,
        help="backgammon: judge the plays of a FILE.mat given as the position with GNU "
        "Backgammon at this many plies (2)",
    )
    analyse.add_argument(
        "--moves",
        type=_positive_int,
        metavar="N",
        help="rank every move and show the N best with their values to the side to move (with "
        "dice: a player's ply=N, the chances, and before a roll the cube decision), as the "
        "server's /v1 API answers",
    )
    add_game_argument(analyse)
    analyse.set_defaults(run=command_analyse)


def _add_play(play: argparse.ArgumentParser) -> None:
    add_game_argument(play)
    add_side_arguments(play)
    play.add_argument(
        "--depth", type=_positive_int, help="default search depth (4; with --time, no limit)"
    )
    play.add_argument("--time", type=_positive_float, help="default seconds per engine move")
    play.add_argument("--seed", type=_non_negative_int, default=0, help="seed for the players (0)")
    add_ply_cap_argument(play)
    play.add_argument("--start", default=START, help="start position string, or 'start'")
    play.add_argument(
        "--record", help="where to save the game record (games/DATE-TIME.txt; draughts .pdn)"
    )
    play.add_argument("--tablebase", metavar="DIR", help=TABLEBASE_HELP)
    play.add_argument(
        "--cube",
        choices=("on", "off"),
        help="play for points with the doubling cube (on), from the opening throw; off: "
        "cubeless (backgammon)",
    )
    play.add_argument(
        "--match-length",
        type=_non_negative_int,
        default=0,
        metavar="N",
        help="a match to N points with the Crawford rule (0: one money game; backgammon)",
    )
    play.set_defaults(run=command_play)


def _add_serve(serve: argparse.ArgumentParser) -> None:
    from samuel.web import command_serve  # light: FastAPI is imported only when serving

    add_game_argument(serve)
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
    serve.add_argument(
        "--pipeline",
        metavar="DIR",
        help="a pipeline (samuel pipeline run DIR) whose active model answers as the player "
        "'champion', the API's default; a promotion is seen without a restart",
    )
    serve.add_argument(
        "--db",
        metavar="URL",
        help="the pipeline's store, when not DIR/pipeline.sqlite (as samuel pipeline --db)",
    )
    serve.add_argument(
        "--api-keys",
        metavar="FILE",
        help="the /v1 API needs one of these keys (a line each: KEY [REQUESTS_A_MINUTE], 60 "
        "by default), sent as 'Authorization: Bearer KEY' or 'X-API-Key: KEY'",
    )
    serve.add_argument(
        "--runtime",
        choices=("numba", "onnx"),
        default="numba",
        help="what evaluates a network at 0-ply in a game with dice: Samuel's compiled pass "
        "(numba) or onnxruntime (onnx, the same answers; needs the onnx extra)",
    )
    serve.set_defaults(run=command_serve)


def _add_export(export: argparse.ArgumentParser) -> None:
    export.add_argument(
        "--onnx",
        nargs=2,
        required=True,
        metavar=("FILE.bin", "OUT.onnx"),
        help="write the network of the weights file FILE.bin (any shape and heads, a network per "
        "phase too) as an ONNX model to OUT.onnx, in a folder that exists (docs/training.md)",
    )
    export.set_defaults(run=command_export)


def command_export(args: argparse.Namespace) -> None:
    """``samuel export --onnx FILE.bin OUT.onnx``: the weights file's network as an ONNX model
    (:mod:`samuel.nn.onnx_model`), written atomically into a folder that exists."""
    from samuel.games import descriptor_of, kernels
    from samuel.nn.onnx_model import describe_outputs, save_onnx
    from samuel.nn.weights import read_weights

    source, out = (Path(name) for name in args.onnx)
    loaded = read_weights(source)
    folder = out.parent
    if not folder.is_dir():
        missing = "is not a folder" if os.path.lexists(folder) else "does not exist"
        raise CommandError(f"cannot write the ONNX model {out}: its folder, {folder}, {missing}")
    check_output_path(out, "ONNX model")
    if out.exists() and os.path.samefile(source, out):
        raise CommandError(f"{out} is the weights file itself; name another file for the model")
    params, phases, described = _network_to_export(loaded)
    metadata = {"samuel.game_number": str(loaded.game)}
    title = f"game number {loaded.game}"
    if loaded.game in kernels.GAMES:
        title = kernels.GAMES[loaded.game].title
        metadata["samuel.game"] = descriptor_of(loaded.game).name
    model = save_onnx(params, out, phases, metadata)
    print(f"wrote {out}: {title} {described}; outputs {describe_outputs(model)}")


def _network_to_export(loaded) -> tuple[object, tuple[str, ...] | None, str]:
    """The network of a read weights file as Samuel loads it for its game, its phases' names
    (None: one network, or a game without names for them) and its description: a file of an
    earlier input layout widened to the present one (no weight on the inputs added since, the
    same function), a network per phase named by the game's phases."""
    from samuel.evaluation import networks
    from samuel.games import kernels
    from samuel.nn.shape import POLICY, network_of, widen
    from samuel.nn.weights import PhasedFile

    known = loaded.game in kernels.GAMES
    if isinstance(loaded, PhasedFile):
        given = networks.phase_names(loaded.game) if known else ()
        names = given if len(given) == len(loaded.networks) else None
        labels = names or [f"phase{p}" for p in range(len(loaded.networks))]
        shapes = [shape.describe() for shape in loaded.networks]
        if len(set(shapes)) == 1:
            return loaded.array, names, f"network per phase ({', '.join(labels)}: {shapes[0]} each)"
        each = "; ".join(f"{p}: {s}" for p, s in zip(labels, shapes, strict=True))
        return loaded.array, names, f"network per phase ({each})"
    params, note, inputs = loaded.array, "", loaded.network.inputs
    earlier = networks.EARLIER_INPUTS.get(loaded.game, ()) if known else ()
    if inputs in earlier and not loaded.network.has(POLICY):  # a Zero network reads no features
        params = widen(params, networks.network_inputs(loaded.game))
        note = f" (the file's {inputs} inputs widened to the game's present layout)"
    return params, None, f"network {network_of(params).describe()}{note}"


# The commands defined in modules of their own: the module (imported only when the command's
# options are added), the function that adds them and the one that runs the command.
DEFINED_ELSEWHERE = {
    "match": ("samuel.match.commands", "add_match_arguments", "command_match"),
    "tournament": ("samuel.match.commands", "add_tournament_arguments", "command_tournament"),
    "train": ("samuel.train.command", "add_arguments", "command_train"),
    "zero-train": ("samuel.train.zero_command", "add_zero_arguments", "command_zero_train"),
    "selfplay": ("samuel.tune.commands", "add_selfplay_arguments", "command_selfplay"),
    "tune": ("samuel.tune.commands", "add_tune_arguments", "command_tune"),
    "hillclimb": ("samuel.tune.commands", "add_hillclimb_arguments", "command_hillclimb"),
}


def _elsewhere(name: str):
    """What adds the options of the command ``name`` of :data:`DEFINED_ELSEWHERE`."""
    module, add, run = DEFINED_ELSEWHERE[name]

    def add_options(parser: argparse.ArgumentParser) -> None:
        commands = importlib.import_module(module)
        getattr(commands, add)(parser)
        parser.set_defaults(run=getattr(commands, run))

    return add_options


def _add_tablebase(tablebase: argparse.ArgumentParser) -> None:
    from samuel.tablebase import commands as tablebase_commands

    tablebase_commands.add_arguments(tablebase)


def _add_pipeline(pipeline: argparse.ArgumentParser) -> None:
    from samuel.pipeline import commands as pipeline_commands

    pipeline_commands.add_arguments(pipeline)


def _add_cluster(cluster_parser: argparse.ArgumentParser) -> None:
    from samuel import cluster

    cluster.add_arguments(cluster_parser)


# Every command: its name, other names, the line ``samuel --help`` shows, and what adds its
# options. A command's options (and the modules that define them, some of which load NumPy and
# numba) are added only when that command runs, so ``samuel --help`` and a light command start
# at once.
COMMANDS = (
    ("perft", (), "count legal move sequences (tests move generation)", _add_perft),
    ("analyse", ("analyze",), "search one position", _add_analyse),
    ("play", (), "play a game in the terminal", _add_play),
    ("serve", (), "play and analyse in the browser (docs/web.md)", _add_serve),
    ("match", (), "a fair match between two players, with statistics", _elsewhere("match")),
    ("tournament", (), "every pair plays; ratings for all", _elsewhere("tournament")),
    ("train", (), "learn by self-play (docs/training.md)", _elsewhere("train")),
    (
        "zero-train",
        (),
        "learn from nothing by PUCT self-play (docs/zero.md)",
        _elsewhere("zero-train"),
    ),
    ("selfplay", (), "labelled positions from self-play games", _elsewhere("selfplay")),
    ("tune", (), "tune the classic weights by gradient descent", _elsewhere("tune")),
    ("hillclimb", (), "tune the classic weights by matches", _elsewhere("hillclimb")),
    ("tablebase", (), "perfect play with the hand empty (docs/tablebase.md)", _add_tablebase),
    (
        "pipeline",
        (),
        "the production loop: store, labels, gates, registry (docs/pipeline.md)",
        _add_pipeline,
    ),
    ("cluster", (), "check a Ray cluster for --backend ray (docs/cluster.md)", _add_cluster),
    ("export", (), "write a network as an ONNX model (docs/training.md)", _add_export),
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``samuel`` parser: with ``only`` (a command's name or other name), that command's
    options alone, the others listed by name (``""``: none's); without, every command's."""
    parser = argparse.ArgumentParser(
        prog="samuel", description="Game engines that teach themselves to play by self-play."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, aliases, help_line, add_options in COMMANDS:
        command = commands.add_parser(name, aliases=list(aliases), help=help_line)
        if only is None or only == name or only in aliases:
            add_options(command)
    return parser


def _command_named(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word that is no option), if it names one."""
    for word in argv:
        if not word.startswith("-"):
            known = {name for name, aliases, _, _ in COMMANDS for name in (name, *aliases)}
            return word if word in known else None
    return None


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
    argv = sys.argv[1:] if argv is None else argv
    # Only the command named gets its options; without one (``samuel --help``, a typo) the
    # parser lists the commands, and its errors name them.
    args = build_parser(_command_named(argv) or "").parse_args(argv)
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
