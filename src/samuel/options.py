"""Checked option types for every command: a bad value is refused by argparse with a message
saying what is wrong, before any work starts.

>>> whole_number(1, 20)("7")
7
>>> fraction("0.25")
0.25
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def number(
    kind: type, low: float | None = None, high: float | None = None, low_open: bool = False
) -> Callable[[str], float]:
    """An option type reading a finite ``kind`` (int or float) in ``[low, high]`` (``(low,
    high]`` when ``low_open``); either bound may be None."""

    def parse(text: str):
        noun = "a whole number" if kind is int else "a number"
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if low is not None and (value <= low if low_open else value < low):
            limit = "more than" if low_open else "at least"
            raise argparse.ArgumentTypeError(f"{text!r} must be {limit} {low:g}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text!r} must be at most {high:g}")
        return value

    parse.__name__ = "whole number" if kind is int else "number"  # argparse's fallback wording
    return parse


def whole_number(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An option type reading a whole number in ``[low, high]``."""
    return number(int, low, high)


positive_int = whole_number(1)
non_negative_int = whole_number(0)
finite_float = number(float)
positive_float = number(float, 0.0, low_open=True)
fraction = number(float, 0.0, 1.0)  # a probability or a blend, 0 to 1


def even_games(text: str) -> int:
    """A number of games for a match: at least 2, and even (each opening is played twice)."""
    value = whole_number(2)(text)
    if value % 2:
        raise argparse.ArgumentTypeError(
            f"{text!r} is odd: a match is pairs of games (each opening is played twice)"
        )
    return value


def sprt(text: str):
    """An SPRT's bounds, ``elo0=0,elo1=10[,alpha=0.05,beta=0.05]`` (samuel.match.sprt)."""
    from samuel.match.sprt import parse_sprt

    try:
        return parse_sprt(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def game_name(text: str) -> str:
    """The registry name of a game (``tigers``, ``draughts``); an unknown one is refused with the
    list of games."""
    from samuel.games import descriptors

    games = descriptors()
    if text not in games:
        raise argparse.ArgumentTypeError(
            f"unknown game {text!r}; the games are: "
            + ", ".join(f"{name} ({game.title})" for name, game in games.items())
        )
    return text


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--game`` option every game-playing command takes."""
    from samuel.games import default_game, descriptors

    games = ", ".join(f"{name} ({game.title})" for name, game in descriptors().items())
    parser.add_argument(
        "--game",
        type=game_name,
        default=default_game(),
        metavar="NAME",
        help=f"the game: {games} ({default_game()})",
    )


def require_part(game: str, part: str, what: str, why: str) -> None:
    """Refuse ``what`` (a command, or a part of one) for a game whose package has no module
    ``part`` (:meth:`~samuel.games.descriptor.GameDescriptor.part`), in one line naming the games
    that have one and saying ``why`` (``{games}`` in it becomes their titles): for the parts of
    Samuel that only some games have."""
    from samuel.errors import UnsupportedGameError
    from samuel.games import descriptors

    games = descriptors()
    if games[game].part(part) is None:
        having = " and ".join(d.title for d in games.values() if d.part(part) is not None)
        raise UnsupportedGameError(
            f"{what} works for {having} only so far, not {games[game].title}: "
            + why.format(games=having)
        )


def require_tablebase(game: str) -> None:
    """Refuse ``--tablebase`` for a game with no tablebase (no ``perfect`` part)."""
    require_part(game, "perfect", "--tablebase", "the tablebase solves {games} endings")


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--ray-address``: where a command's work fans out (docs/cluster.md)."""
    from samuel.backends import BACKENDS

    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where the work runs: this machine's cores (local, the default) or a Ray cluster "
        "(ray); the results are the same on either",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="with --backend ray: the cluster's head, HOST:PORT or auto (the one `ray start` "
        "began on this machine); without it Samuel starts a private Ray on this machine",
    )


def backend_of(args: argparse.Namespace, workers: int | None = None):
    """The backend ``args`` ask for; ``workers`` is the local backend's processes (every core
    if None), or the CPUs of a private Ray instance."""
    import os

    from samuel.backends import make_backend

    return make_backend(args.backend, args.ray_address, workers or os.cpu_count() or 1)
