"""What ``samuel play`` needs to write a backgammon game as a .mat file (``--record
GAME.mat``), the text gnubg and other backgammon programs import (``mat.py``), and a match to N
points played with the cube (``cube_game.py``)."""

from __future__ import annotations

import os

from samuel.files import write_atomically
from samuel.games.game import Game

from .mat import MatGame, format_mat, mat_game

SUFFIX = ".mat"


def _name(spec: str) -> str:
    """A player spec as a .mat name: no colon (the format's separator), at most 40 characters."""
    return spec.replace(":", " ").replace("\n", " ")[:40] or "?"


def write(path: str | os.PathLike, game: Game, players: dict[str, str]) -> None:
    """Write ``game`` (a money game from the start) to ``path`` atomically; ``players`` maps
    each side (``x``, ``o``) to its player's spec."""
    names = (_name(players["x"]), _name(players["o"]))
    write_atomically(path, format_mat([mat_game(game)], names))


def match_games(match) -> list[MatGame]:
    """The games of a match played with the cube (``cube_game.MatchResult``) for a .mat file:
    each with the score before it, its cube actions and its points."""
    return [
        mat_game(result.game, score, result.cube, (result.winner, result.points))
        for score, result in match.games
    ]


def write_match(path: str | os.PathLike, match, players: dict[str, str]) -> None:
    """Write a match to N points played with the cube (``cube_game.MatchResult``) to ``path``
    atomically; ``players`` maps each side (``x``, ``o``) to its player's spec."""
    names = (_name(players["x"]), _name(players["o"]))
    write_atomically(path, format_mat(match_games(match), names, match.length))


def write_result(path: str | os.PathLike, result, players: dict[str, str]) -> None:
    """Write one money game played with the cube (``cube_game.GameResult``) to ``path``
    atomically, as a 0-point match."""
    names = (_name(players["x"]), _name(players["o"]))
    game = mat_game(result.game, (0, 0), result.cube, (result.winner, result.points))
    write_atomically(path, format_mat([game], names))
