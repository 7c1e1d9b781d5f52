"""Backgammon games as ``.mat`` text, the Jellyfish match format that GNU Backgammon (``import
mat``), Snowie, eXtreme Gammon and BGBlitz import::

     0 point match

     Game 1
     O : 0                          X : 0
      1)                             31: 8/5* 6/5
      2) 52: 13/11 13/8              64: 24/18 13/9
    ...
                                      Wins 1 point

A match is ``N point match`` (money play: 0). Each game lists the turns two to a line, gnubg's
player 0 (O) on the left and its player 1 (X) on the right, as gnubg writes them: the dice, then
each die's step from the mover's point to a lower one (25 the bar, 0 off, ``*`` a hit); a roll
that plays nothing is the dice alone. The cube's actions are turns of their own in the side's
column, as gnubg writes them: `` Doubles => 2``, then the other side's `` Takes`` or `` Drops``
(the game ends there, the doubler's ``Wins`` beside a drop on the left)::

     13) 54: 25/21                    Doubles => 2
     14)  Drops                       Wins 1 point

The game ends with the winner's points in its column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from samuel.games.game import Game

from .rules import RULES, Play, Roll

LEFT_WIDTH = 28  # a move line: "NNN) " then the left column's turn, this wide
NAME_WIDTH = 31  # the players' line: " " then the left player's name and score, this wide


@dataclass(frozen=True)
class Turn:
    """One side's turn: its roll and the play it made (a pass: no steps)."""

    side: int  # 0 X, 1 O
    roll: Roll
    play: Play

    def text(self) -> str:
        steps = " ".join(f"{s}/{t}{'*' if hit else ''}" for s, t, hit in self.play.steps)
        return f"{self.roll.high}{self.roll.low}: {steps}".rstrip() + " "


@dataclass(frozen=True)
class CubeTurn:
    """A cube action as a turn of its own: ``side`` doubles to ``value``, or takes or passes a
    double to it."""

    side: int  # 0 X, 1 O
    action: str  # "double", "take" or "pass"
    value: int

    def text(self) -> str:
        if self.action == "double":
            return f" Doubles => {self.value}"
        if self.action in ("take", "pass"):
            return " Takes" if self.action == "take" else " Drops"
        raise ValueError(f"a cube action is double, take or pass, not {self.action!r}")


@dataclass(frozen=True)
class MatGame:
    """A whole game for a .mat file: its turns, who won and how many points, and the score
    (X's, O's) before it."""

    turns: tuple[Turn | CubeTurn, ...]
    winner: int | None  # None: the game did not end
    points: int
    score: tuple[int, int] = (0, 0)


def mat_game(
    game: Game,
    score: tuple[int, int] = (0, 0),
    cube: Iterable = (),
    result: tuple[int, int] | None = None,
) -> MatGame:
    """The turns of a backgammon game played by Samuel (rolls and plays alternate in it; the
    first play may be of dice already in its start position, the opening throw's). ``cube``:
    its cube actions, each with ``turn`` (the plays made before it), ``side``, ``action`` and
    ``value`` (``cube_game.CubeAction``); ``result``: the winner and points where the game did
    not end on the board (a double passed), or where the cube multiplied them."""
    if game.rules is not RULES:
        raise ValueError(f"a .mat file holds backgammon games, not {game.rules.title}")
    actions = sorted(cube, key=lambda a: a.turn)
    turns: list[Turn | CubeTurn] = []
    roll = None
    plays = 0

    def cube_turns_before(play: int) -> None:
        while actions and actions[0].turn <= play:
            a = actions.pop(0)
            turns.append(CubeTurn(a.side, a.action, a.value))

    for position, move in zip(game.positions, game.moves, strict=False):
        if isinstance(move, Roll):
            roll = move
            continue
        roll = roll or position.dice
        if roll is None:
            raise ValueError("a play with no roll before it: a .mat game starts from the start")
        cube_turns_before(plays)
        turns.append(Turn(RULES.side_to_move(position), roll, move))
        roll = None
        plays += 1
    cube_turns_before(plays)
    if result is not None:
        winner, points = result
    else:
        outcome = game.outcome
        winner = None if outcome is None or outcome.winner is None else outcome.winner
        points = 0 if winner is None else outcome.points
    return MatGame(tuple(turns), winner, points, score)


def _columns(left: str, right: str) -> str:
    return f"{left:<{LEFT_WIDTH}}{right}".rstrip()


def format_mat(
    games: Iterable[MatGame],
    names: Sequence[str] = ("X", "O"),
    match_length: int = 0,
    tags: dict[str, str] | None = None,
) -> str:
    """The .mat text of ``games`` between the players ``names`` (X's, O's) in a match to
    ``match_length`` points (0: money play); ``tags`` become comment lines at the top
    (``; [EventDate "2026.12.06"]``), as gnubg writes them."""
    for name in names:
        if not name or any(c in name for c in ":\n\r") or len(name) > 40:
            raise ValueError(
                f"a player's name in a .mat file is 1-40 characters, no colon: {name!r}"
            )
    lines = [f'; [{key} "{value}"]' for key, value in (tags or {}).items()]
    if lines:
        lines.append("")
    lines += [f" {match_length} point match", ""]
    for number, game in enumerate(games, 1):
        x_score, o_score = game.score
        lines.append(f" Game {number}")
        lines.append(f" {names[1] + ' : ' + str(o_score):<{NAME_WIDTH}}{names[0]} : {x_score}")
        row = 1
        turns = list(game.turns)
        i = 0
        open_right = False  # the last line holds O's turn alone: X's Wins may stand beside it
        while i < len(turns):
            turn = turns[i]
            if turn.side == 1:  # O's turn, on the left; X's reply beside it
                left = turn.text()
                right = turns[i + 1].text() if i + 1 < len(turns) else ""
                open_right = i + 1 >= len(turns)
                i += 2
            else:  # X's turn with no O turn before it on this line
                left, right = "", turn.text()
                open_right = False
                i += 1
            lines.append(f"{row:3d}) {_columns(left, right)}")
            row += 1
        if game.winner is not None:
            plural = "" if game.points == 1 else "s"
            wins = f"Wins {game.points} point{plural}"
            if game.winner == 0 and open_right and isinstance(turns[-1], CubeTurn):
                # X wins as O drops: gnubg writes it beside the drop
                lines[-1] = f"{lines[-1]:<{5 + LEFT_WIDTH}} {wins}"
            else:
                indent = 34 if game.winner == 0 else 6
                lines.append(f"{'':{indent}}{wins}")
        lines.append("")
    return "\n".join(lines) + "\n"
