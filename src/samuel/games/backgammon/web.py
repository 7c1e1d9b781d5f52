"""Backgammon as the web server and its page show it (the ``web`` part that
:mod:`samuel.web.boards` reads): the board's squares are X's points ``1``-``24`` (O's point p is
X's 25 - p, docs/rules-backgammon.md), each side's bar (``bar-x``, ``bar-o``) and tray
(``off-x``, ``off-o``); a piece is a stack of ``checker``s with its count; a play's path lists
its steps (from, to, hit, die). The page's drawing is beside this file (``drawing.js``,
``drawing.css``); the server throws the dice and keeps the cube (``samuel.web.dice``).
"""

from __future__ import annotations

from pathlib import Path

from samuel.games.base import Outcome
from samuel.games.dice_web import BAR, DiceBoard, refusal
from samuel.games.dice_web import move_path as dice_move_path

from .board import HOME, POINTS
from .cube_game import PASSED
from .rules import RULES, Play, Position, Roll

DRAWING = "backgammon"
BOARD = DiceBoard(sides=("x", "o"), other_point=lambda point: 25 - point, has_bar=True)
SQUARES = BOARD.squares
DEFAULT_PLAYERS = ("human", "net:ply=0")  # X rolls first; the network answers at once
WIN_MESSAGES = ("X wins", "O wins")
SIDE_PHRASES = ("X", "O")
PLURAL_SIDES = False
POSITION_EXAMPLE = "4HPwATDgc/ABMA X -"
POSITION_HELP = (
    "gnubg's Position ID, the side on roll (X or O) and its dice (- still to roll, or 3-1)."
)
SCORE_UNIT = "points"
EVALUATION_SCALE = 1.0  # a point a game is a big lead
PLY_CAP = 1000  # a roll and a play a turn: a game is about 240 plies
SCRIPT = Path(__file__).with_name("drawing.js")
STYLE = Path(__file__).with_name("drawing.css")


def board(position: Position) -> list[dict]:
    """The checkers, a stack a square: ``{square, piece, side, count}``, in the board's order."""
    return BOARD.pieces((position.x, position.o), (position.off(0), position.off(1)))


def move_path(move: Play | Roll, position: Position) -> dict:
    """A play's steps on the board's squares (in ``position``, where it is played)."""
    return dice_move_path(BOARD, move, position, RULES.side_to_move(position))


def why_not(position: Position, done: list[tuple[str, str]], origin: str, target: str | None):
    """Why the checker on ``origin`` may not move (to ``target``) after the steps ``done``."""
    return refusal(RULES, BOARD, position, done, origin, target, _step_refused)


def _step_refused(position: Position, done: list, start: int, die: int) -> str | None:
    """Why one step of ``die`` from ``start`` breaks a rule by itself, after ``done``."""
    mine, theirs = list(position.mover), list(position.opponent)
    for from_, to in done:  # as the steps left it: a blot hit goes to its bar
        mine[from_ - 1] -= 1
        if to:
            if theirs[POINTS - to] == 1:
                theirs[POINTS - to] = 0
                theirs[BAR - 1] += 1
            mine[to - 1] += 1
    other = "O" if position.x_to_move else "X"
    where = "the bar" if start == BAR else f"your point {start}"
    if mine[start - 1] == 0:
        return f"You have no checker on {where} to move."
    if start != BAR and mine[BAR - 1]:
        return "Enter from the bar first: while a checker of yours is on it, nothing else moves."
    to = start - die
    if to <= 0:
        if any(mine[HOME:]):
            return (
                "You may bear off only once all your checkers are in your home board (points 1-6)."
            )
        if to < 0 and any(mine[start:HOME]):
            return (
                f"That die cannot be played there: a {die} bears off from point {start} only "
                "when no checker of yours stands higher."
            )
        return None
    if theirs[POINTS - to] >= 2:
        if start == BAR:
            return (
                f"That die cannot be played there: your point {to} is held by {other}, so the "
                f"checker on the bar cannot enter with the {die}."
            )
        return f"That die cannot be played there: your point {to} is held by {other}."
    return None


def win_reason(outcome: Outcome, side_phrases: tuple[str, str]) -> str:
    """A game borne off says its kind (a gammon, a backgammon); a double passed says who."""
    if outcome.termination is PASSED and outcome.winner is not None:
        return f"{side_phrases[1 - outcome.winner]} passed the double"
    kind = RULES.outcome_classes.get(outcome.points, "")
    reason = outcome.termination.value
    return f"{reason}, a {kind}" if outcome.points > 1 else reason
