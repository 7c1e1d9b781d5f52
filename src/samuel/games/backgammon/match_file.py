"""What ``samuel play`` needs to write a backgammon game as a .mat file (``--record
GAME.mat``), the text gnubg and other backgammon programs import (``mat.py``)."""

from __future__ import annotations

import os

from samuel.files import write_atomically
from samuel.games.game import Game

from .mat import format_mat, mat_game

SUFFIX = ".mat"


def _name(spec: str) -> str:
    """A player spec as a .mat name: no colon (the format's separator), at most 40 characters."""
    return spec.replace(":", " ").replace("\n", " ")[:40] or "?"


def write(path: str | os.PathLike, game: Game, players: dict[str, str]) -> None:
    """Write ``game`` (a money game from the start) to ``path`` atomically; ``players`` maps
    each side (``x``, ``o``) to its player's spec."""
    names = (_name(players["x"]), _name(players["o"]))
    write_atomically(path, format_mat([mat_game(game)], names))
