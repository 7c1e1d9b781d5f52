"""Checked option types for every command: a bad value is refused by argparse with a message
saying what is wrong, before any work starts.

>>> whole_number(1, 20)("7")
7
>>> fraction("0.25")
0.25
"""

from __future__ import annotations

import argparse

# The checked number types live beside the configs' options (samuel.config_options), below them.
from samuel.config_options import even_games as even_games
from samuel.config_options import finite_float as finite_float
from samuel.config_options import fraction as fraction
from samuel.config_options import non_negative_int as non_negative_int
from samuel.config_options import number as number
from samuel.config_options import positive_float as positive_float
from samuel.config_options import positive_int as positive_int
from samuel.config_options import whole_number as whole_number
from samuel.games import require_part as require_part


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


def add_game_argument(parser: argparse.ArgumentParser, stored: bool = False) -> None:
    """The ``--game`` option every game-playing command takes. ``stored``: a command on a
    store, whose default (None here) is the one game the store holds."""
    from samuel.games import default_game, descriptors

    games = ", ".join(f"{name} ({game.title})" for name, game in descriptors().items())
    default = f"the store's game if it holds one, else {default_game()}" if stored else None
    parser.add_argument(
        "--game",
        type=game_name,
        default=None if stored else default_game(),
        metavar="NAME",
        help=f"the game: {games} ({default or default_game()})",
    )
    if stored:
        parser.set_defaults(game_from_store=True)


def per_game(attribute: str) -> str:
    """A descriptor default and each game's that differs, for a help text: "200; backgammon
    1000"."""
    from samuel.games import descriptors
    from samuel.games.descriptor import GameDescriptor

    usual = getattr(GameDescriptor, attribute)
    own = [f"{name} {getattr(d, attribute)}" for name, d in descriptors().items()
           if getattr(d, attribute) != usual]  # fmt: skip
    return "; ".join([str(usual), *own])


def add_ply_cap_argument(parser: argparse.ArgumentParser) -> None:
    """``--ply-cap``, whose default is each game's (its descriptor's ``default_ply_cap``:
    backgammon's games, with a roll a ply, run longer): :func:`ply_cap` reads it."""
    parser.add_argument(
        "--ply-cap",
        type=positive_int,
        help=f"a game this long is a draw ({per_game('default_ply_cap')})",
    )


def ply_cap(args: argparse.Namespace) -> int:
    """The ply cap given, or the game's own (:func:`add_ply_cap_argument`)."""
    from samuel.games import descriptors

    return args.ply_cap if args.ply_cap is not None else descriptors()[args.game].default_ply_cap


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
