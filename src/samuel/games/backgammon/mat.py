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

The game ends with the winner's points in its column. Samuel writes such text
(:func:`format_mat`) and reads the plays back, its own or gnubg's (:func:`read_mat`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from samuel.errors import SamuelError
from samuel.games.base import NotationError
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


# Reading: the games' plays of a .mat file (gnubg's or Samuel's), its cube actions passed over.

MAX_MAT_BYTES = 16 << 20  # a match of thousands of games is a few megabytes


class MatFileError(SamuelError, ValueError):
    """A .mat file that cannot be read as backgammon games: the message says where."""


_DICE = re.compile(r"^([1-6])([1-6]):$")
_NAMES = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_ROW = re.compile(r"^\s*(\d+)\)(.*)$")
_WINS = re.compile(r"\bWins (\d+) points?\s*$")
_CUBE_WORDS = ("doubles", "takes", "drops", "beavers", "raccoons", "=>")
RIGHT_COLUMN = 15  # a row's first turn this far after its ")" is in the right column (X's)


@dataclass(frozen=True)
class MatMatch:
    """A .mat file read: its players' names (X's, O's), its length (0: money play) and games."""

    names: tuple[str, str]
    match_length: int
    games: tuple[MatGame, ...]


def read_mat(text: str) -> MatMatch:
    """The games of a .mat file's text (as ``mat.format_mat`` and gnubg write it). Each game's
    turns alternate sides; the left column is O's, the right X's. Cube actions are passed over
    (the judge is cubeless). Raises :class:`MatFileError` saying which line is wrong."""
    games: list[MatGame] = []
    names: tuple[str, str] | None = None
    length: int | None = None
    turns: list[Turn] | None = None
    winner: int | None = None
    points = 0

    def close() -> None:
        if turns is not None:
            games.append(MatGame(tuple(turns), winner, points))

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        words = line.split()
        if not words or line.lstrip().startswith(";"):
            continue
        where = f"line {number}"
        if length is None:
            if len(words) != 3 or words[1:] != ["point", "match"] or not words[0].isdigit():
                raise MatFileError(f"{where}: a .mat file starts 'N point match', not {raw!r}")
            length = int(words[0])
            continue
        if words[0] == "Game" and len(words) == 2 and words[1].isdigit():
            close()
            turns, winner, points = [], None, 0
            continue
        if turns is None:
            raise MatFileError(f"{where}: {raw[:60]!r} comes before the first 'Game N'")
        wins = _WINS.search(line)
        if wins is not None:  # on a line of its own, or beside a drop
            # the right column's (X's) starts past the left's turns
            winner, points = (0 if wins.start() > RIGHT_COLUMN + 5 else 1), int(wins.group(1))
            line = line[: wins.start()]
            if not line.strip():
                continue
        row = _ROW.match(line)
        if row is None:
            found = _NAMES.match(line)
            if found is None or turns:
                raise MatFileError(f"{where}: {raw[:60]!r} is not a line of a .mat game")
            names = (found.group(3), found.group(1))
            continue
        rest = row.group(2)
        right = len(rest) - len(rest.lstrip()) > RIGHT_COLUMN
        for roll, steps in _turns(rest, where):
            side = (turns[-1].side ^ 1) if turns else (0 if right else 1)
            turns.append(Turn(side, roll, steps))
    close()
    if length is None:
        raise MatFileError("the file holds no 'N point match' line: it is not a .mat file")
    if not games:
        raise MatFileError("the .mat file holds no game")
    return MatMatch(names or ("X", "O"), length, tuple(games))


def _turns(text: str, where: str) -> list[tuple[Roll, Play]]:
    """The turns of one row's text: each the dice (``52:``) and the steps after them."""
    found: list[tuple[Roll, list[str]]] = []
    for word in text.split():
        dice = _DICE.match(word)
        if dice:
            found.append((Roll.parse(dice.group(1) + dice.group(2)), []))
        elif word.lower() in _CUBE_WORDS or word.isdigit():
            continue  # "Doubles => 2", "Takes": the cube, which a reader of plays passes over
        elif found:
            found[-1][1].append(word)
        else:
            raise MatFileError(f"{where}: {word!r} is neither dice nor a play")
    turns = []
    for roll, words in found:
        try:
            turns.append((roll, Play.parse(" ".join(words)) if words else Play(())))
        except (NotationError, ValueError) as error:
            raise MatFileError(f"{where}: {' '.join(words)!r} is not a play: {error}") from None
    return turns
