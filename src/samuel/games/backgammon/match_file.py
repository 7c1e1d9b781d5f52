"""What ``samuel play`` needs to write a backgammon game as a .mat file (``--record
GAME.mat``), the text gnubg and other backgammon programs import (``mat.py``), and a match to N
points played with the cube (``cube_game.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable

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


def play_for_points(
    players: dict,
    specs: dict[str, str],
    dice,
    cube_on: bool,
    match_length: int,
    show: Callable[[Game, object], None],
    path: str | os.PathLike,
) -> None:
    """``samuel play --cube on`` or ``--match-length N``: one money game (0) or a match to N
    points between ``players`` (by side) with the opening throw and, if ``cube_on``, the cube,
    the dice from ``dice``; each play shown by ``show``, each cube action and game said; the
    whole written to ``path`` as a .mat file, the games finished so far if it is stopped."""
    from .cube_game import play_game, play_match

    order = [players["x"], players["o"]]
    finished: list[tuple[tuple[int, int], object]] = []

    def said(action) -> None:
        side = "xo"[action.side]
        words = {"double": f"doubles to {action.value}", "take": "takes", "pass": "passes"}
        print(f"{side} ({specs[side]}) {words[action.action]}")

    def game_over(score: tuple[int, int], result) -> None:
        finished.append((score, result))
        after = list(score)
        after[result.winner] += result.points
        print(
            f"{'xo'[result.winner]} wins {result.points} point{'s' * (result.points > 1)}"
            f"{' (a double passed)' if result.passed else ''}; score x {after[0]}, o {after[1]}"
            f" of {match_length}"
        )

    names = (_name(specs["x"]), _name(specs["o"]))
    try:
        if match_length:
            match = play_match(order, match_length, dice, cube_on, show, said, game_over)
            print(f"{'xo'[match.winner]} wins the match {match.score[0]}-{match.score[1]}")
        else:
            result = play_game(order, dice, cube_on, after_move=show, after_cube=said)
            finished.append(((0, 0), result))
            print(f"{'xo'[result.winner]} wins {result.points} point(s)")
    finally:  # a stopped match keeps the games it finished
        games = [
            mat_game(result.game, score, result.cube, (result.winner, result.points))
            for score, result in finished
        ]
        write_atomically(path, format_mat(games, names, match_length))
        print(f"{len(games)} game(s) saved to {path}")
