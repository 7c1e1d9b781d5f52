"""The player specs this server accepts: every file a spec names confined to the folders the
operator gave, and every search capped in depth and time.

A visitor writes the spec, so the server must not open whatever it names. A spec is parsed once
(:class:`samuel.players.PlayerSpec`), which says which files it names (a network ``FILE.bin``,
``net=``, ``weights=``, ``tablebase=``); each must resolve, symlinks followed, inside the
server's weights folder (``--weights-dir``; the tablebase inside ``--tablebase``), and be a
regular file no bigger than its kind can be (a tablebase: a folder), checked with ``stat``
before anything opens it, so a FIFO, a device or a huge file is refused at once. The check
runs in a worker thread (:func:`player_for` is only called there), never on the event loop.
Errors name the file as the visitor wrote it, never its contents or where it leads.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

from samuel.evaluation.networks import LARGEST_FILE_BYTES
from samuel.games import default_game, descriptors, get_game
from samuel.games.base import GameRules
from samuel.players import (
    SPIEL_PLAYERS,
    Player,
    PlayerSpec,
    PlayerSpecError,
    SearchPlayer,
    ZeroPlayer,
    make_player,
    quoted,
    tablebase_part,
)
from samuel.web.schemas import MAX_SEARCH_DEPTH, MAX_SEARCH_SECONDS

NETWORK_FILE_BYTES = LARGEST_FILE_BYTES  # the largest TSNN file of any game's network
CLASSIC_WEIGHTS_BYTES = 64 * 1024  # the shipped file is under 1 kB; a bigger one is no weights
LARGEST = {"network file": NETWORK_FILE_BYTES, "classic weights file": CLASSIC_WEIGHTS_BYTES}
# OpenSpiel's bots run in Python (holding the GIL, so bots searching at once share one core): the
# server caps their work, spiel-mcts at 1,000 random games a move (simulations x rollouts: 3 to 5
# s at the start of a game on one core here), spiel-ab at depth 4 (a tenth of a second), and
# their time as every search's, at MAX_SEARCH_SECONDS a move (four sims=1000 moves at once took
# 35 s each before).
MAX_SPIEL_ROLLOUTS = 1000
MAX_SPIEL_DEPTH = 4
# The zero player's PUCT search is compiled but has no clock either: the server caps its
# simulations a move: 10,000 take about 60 ms on one core here (benchmarks/puct.py: about
# 170,000 a second in either game) and a tree of about 40 MB.
MAX_ZERO_SIMULATIONS = 10_000


def default_rules() -> GameRules:
    """The rules of the default game (the first registered): what the server's helpers play
    when not told."""
    return get_game(default_game())


def serves_tablebase(rules: GameRules) -> bool:
    """Whether ``perfect`` plays ``rules``' game from the server's tablebase: a registered
    game's own rules (not a variant's), for a game that has a tablebase."""
    games = descriptors()
    if rules.name not in games or rules is not games[rules.name].rules():
        return False
    return tablebase_part(rules) is not None


def confine(
    spec: PlayerSpec,
    weights_dir: Path | None,
    tablebase_dir: Path | None,
    models_dir: Path | None = None,
) -> None:
    """Raise :class:`PlayerSpecError` unless every file ``spec`` names is one this server may
    read: inside ``weights_dir`` (a tablebase: inside ``tablebase_dir``) once resolved, and a
    regular file of at most its kind's size (a tablebase: a folder). Opens nothing.

    A spec's relative paths are read from the server's working folder, as ``make_player``
    reads them everywhere; the offered players name their files so. A network file may also be
    in ``models_dir`` (a pipeline's models, ``samuel serve --pipeline``).
    """
    for named in spec.files():
        tablebase = named.kind == "tablebase"
        folder, option = (
            (tablebase_dir, "--tablebase") if tablebase else (weights_dir, "--weights-dir")
        )
        if named.kind == "network file" and _inside(Path(named.path), models_dir):
            folder = models_dir
        where = "tablebase dir" if tablebase else "weights dir"
        written = quoted(named.path)
        if folder is None:
            raise PlayerSpecError(
                f"the {named.kind} {written} cannot be read: this server has no {where} "
                f"(samuel serve {option} DIR)"
            )
        path = _resolved(Path(named.path))  # symlinks followed: the file that would be read
        # Nothing outside the folder is looked at, so an error cannot tell what exists there.
        if path is None or not path.is_relative_to(folder.resolve()):
            raise PlayerSpecError(
                f"the {named.kind} {written} is not in this server's {where} ({option}), "
                "the only place it reads them from"
            )
        mode, size = _status(path)
        if mode is None:
            raise PlayerSpecError(f"the {named.kind} {written} does not exist")
        if tablebase:
            if not stat.S_ISDIR(mode):
                raise PlayerSpecError(f"the tablebase {written} is not a folder")
        elif not stat.S_ISREG(mode):
            raise PlayerSpecError(f"the {named.kind} {written} is not a regular file")
        elif size > LARGEST[named.kind]:
            raise PlayerSpecError(
                f"the {named.kind} {written} is {size} bytes, more than one can be "
                f"({LARGEST[named.kind]})"
            )


def _inside(path: Path, folder: Path | None) -> bool:
    resolved = _resolved(path)
    return folder is not None and resolved is not None and resolved.is_relative_to(folder.resolve())


def _resolved(path: Path) -> Path | None:
    """``path`` made absolute with every symlink followed; None if it cannot be (a loop of
    links, a NUL byte)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def _status(path: Path) -> tuple[int | None, int]:
    """``path``'s mode and size (``stat`` never blocks, even on a FIFO); None if it is missing."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None, 0
    except (OSError, ValueError):
        return 0, 0  # unreadable: neither a folder nor a regular file
    return info.st_mode, info.st_size


def player_for(
    spec: str,
    weights_dir: Path | None,
    tablebase_dir: Path | None = None,
    seed: int = 0,
    depth: int | None = None,
    seconds: float | None = None,
    rules: GameRules | None = None,
    models_dir: Path | None = None,
) -> Player:
    """The player ``spec`` names for ``rules``' game (the default game's by default), as
    :func:`samuel.players.make_player` builds it (``depth``, ``seconds`` and ``seed`` are
    defaults the spec's options override), after :func:`confine` has checked its files. A spec
    asking for a depth above :data:`MAX_SEARCH_DEPTH` or a time above :data:`MAX_SEARCH_SECONDS`
    is refused; any other search stops at :data:`MAX_SEARCH_SECONDS`. ``perfect`` plays from the
    server's tablebase unless it names its own. Reads files: call it in a worker thread. Raises
    :class:`PlayerSpecError` saying what is wrong.
    """
    rules = default_rules() if rules is None else rules
    parsed = PlayerSpec.parse(spec)
    confine(parsed, weights_dir, tablebase_dir, models_dir)
    tablebase = None
    # (For a game with no tablebase make_player says that perfect has none to play from.)
    if parsed.name == "perfect" and parsed.get("tablebase") is None and serves_tablebase(rules):
        if tablebase_dir is None:
            raise PlayerSpecError(
                "perfect plays from a tablebase, and this server has none "
                "(samuel serve --tablebase DIR)"
            )
        tablebase = str(tablebase_dir)
    try:
        player = make_player(
            parsed, rules, depth=depth, seconds=seconds, seed=seed, tablebase=tablebase
        )
    except PlayerSpecError:
        raise
    except (ValueError, OSError) as error:  # a file that does not load, said by its loader
        raise PlayerSpecError(f"{quoted(spec)}: {error}") from None
    player.spec = spec  # as the visitor wrote it
    if parsed.name in SPIEL_PLAYERS:
        _check_spiel_work(player, spec)
        if player.seconds is None or player.seconds > MAX_SEARCH_SECONDS:
            player.seconds = MAX_SEARCH_SECONDS  # stopped by the clock, as every search here
    if isinstance(player, ZeroPlayer) and player.seconds is not None:
        if player.seconds > MAX_SEARCH_SECONDS:
            raise PlayerSpecError(
                f"{quoted(spec)}: this server searches {MAX_SEARCH_SECONDS:g} s a move at most"
            )
        if parsed.get("sims") is None:  # timed: the server's cap is its simulations' cap
            player.settings = replace(player.settings, simulations=MAX_ZERO_SIMULATIONS)
    if isinstance(player, ZeroPlayer) and player.simulations > MAX_ZERO_SIMULATIONS:
        raise PlayerSpecError(
            f"{quoted(spec)}: this server's zero player runs {MAX_ZERO_SIMULATIONS} simulations "
            f"a move at most, not {player.simulations}"
        )
    if isinstance(player, SearchPlayer):
        if parsed.get("depth") is not None and player.depth > MAX_SEARCH_DEPTH:
            raise PlayerSpecError(
                f"{quoted(spec)}: this server searches to depth {MAX_SEARCH_DEPTH} at most"
            )
        if parsed.get("time") is not None and player.seconds > MAX_SEARCH_SECONDS:
            raise PlayerSpecError(
                f"{quoted(spec)}: this server searches {MAX_SEARCH_SECONDS:g} s a move at most"
            )
        if player.seconds is None or player.seconds > MAX_SEARCH_SECONDS:
            player.seconds = MAX_SEARCH_SECONDS  # with a depth, the depth still stops it first
    return player


def _check_spiel_work(player: Player, spec: str) -> None:
    """Refuse an OpenSpiel bot asking more work a move than this server gives one."""
    simulations, rollouts = getattr(player, "simulations", 1), getattr(player, "rollouts", 1)
    if simulations * rollouts > MAX_SPIEL_ROLLOUTS:
        raise PlayerSpecError(
            f"{quoted(spec)}: this server plays {MAX_SPIEL_ROLLOUTS} random games a move at "
            f"most (sims x rollouts), not {simulations * rollouts}"
        )
    if getattr(player, "depth", 1) > MAX_SPIEL_DEPTH:
        raise PlayerSpecError(
            f"{quoted(spec)}: this server's OpenSpiel alpha-beta searches to depth "
            f"{MAX_SPIEL_DEPTH} at most"
        )
