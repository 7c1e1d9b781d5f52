"""Long nardy as the web server and its page show it (the ``web`` part that
:mod:`samuel.web.boards` reads): the board's squares are White's points ``1``-``24`` (Black's
point p is White's p + 12 or p - 12, docs/rules-nardy.md) and each side's tray (``off-white``,
``off-black``); there is no bar. A piece is a stack of ``checker``s with its count; a play's
path lists its steps (from, to, hit: never, die). The page's drawing is beside this file
(``drawing.js``, ``drawing.css``); the server throws the dice (``samuel.web.dice``).
"""

from __future__ import annotations

from pathlib import Path

from samuel.games.base import Outcome
from samuel.games.dice_web import DiceBoard, refusal
from samuel.games.dice_web import move_path as dice_move_path

from .board import CHECKERS, HEAD, HOME
from .rules import NAMES, RULES, Play, Position, Roll, across, six_block_breach

DRAWING = "nardy"
BOARD = DiceBoard(sides=("white", "black"), other_point=across, has_bar=False)
SQUARES = BOARD.squares
DEFAULT_PLAYERS = ("human", "net:ply=0")  # White rolls first; the network answers at once
WIN_MESSAGES = ("White wins", "Black wins")
SIDE_PHRASES = ("White", "Black")
PLURAL_SIDES = False
POSITION_EXAMPLE = "24x14,13x1/24x15 b"
POSITION_HELP = (
    "White's checkers/Black's (POINTxCOUNT from point 24 down, offxN), the side on roll (w or b) "
    "and, once thrown, its dice."
)
SCORE_UNIT = "points"
EVALUATION_SCALE = 1.0
PLY_CAP = 1000  # a roll and a play a turn: a game is about 200 plies
SCRIPT = Path(__file__).with_name("drawing.js")
STYLE = Path(__file__).with_name("drawing.css")
HEAD_RULE = (
    "The head rule: one checker may leave the head (your point 24) a turn; two on the first "
    "turn with 6-6, 4-4 or 3-3."
)
SIX_BLOCK_RULE = (
    "The six-block rule: that step would make a block of six points in a row with no {other} "
    "checker ahead of it."
)


def board(position: Position) -> list[dict]:
    """The checkers, a stack a square: ``{square, piece, side, count}``, in the board's order."""
    return BOARD.pieces((position.side(0), position.side(1)), (position.off(0), position.off(1)))


def move_path(move: Play | Roll, position: Position) -> dict:
    """A play's steps on the board's squares (in ``position``, where it is played)."""
    return dice_move_path(BOARD, move, position, RULES.side_to_move(position))


def why_not(position: Position, done: list[tuple[str, str]], origin: str, target: str | None):
    """Why the checker on ``origin`` may not move (to ``target``) after the steps ``done``."""
    return refusal(RULES, BOARD, position, done, origin, target, _step_refused)


def _step_refused(position: Position, done: list, start: int, die: int) -> str | None:
    """Why one step of ``die`` from ``start`` breaks a rule by itself, after ``done``: the head
    rule, a point held, bearing off, the six-block rule (the rules' own check of a position)."""
    mine, theirs = list(position.mover), position.opponent
    for from_, to in done:
        mine[from_ - 1] -= 1
        if to:
            mine[to - 1] += 1
    other = NAMES[1 if position.white_to_move else 0]
    if mine[start - 1] == 0:
        return f"You have no checker on your point {start} to move."
    if start == HEAD:
        dice = position.dice
        first_turn = (
            position.mover[HEAD - 1] == CHECKERS
            and dice.is_double
            and dice.high
            in (
                3,
                4,
                6,
            )
        )
        if sum(1 for from_, _ in done if from_ == HEAD) >= (2 if first_turn else 1):
            return HEAD_RULE
    to = start - die
    if to <= 0:
        if any(mine[HOME:]):
            return "You may bear off only once all your checkers are home (points 1-6)."
        if to < 0 and any(mine[start:HOME]):
            return (
                f"That die cannot be played there: a {die} bears off from point {start} only "
                "when no checker of yours stands higher."
            )
        return None
    if theirs[across(to) - 1]:
        return f"That die cannot be played there: your point {to} is held by {other}."
    mine[start - 1] -= 1
    mine[to - 1] += 1
    mover, opponent = tuple(mine), theirs
    white, black = (mover, opponent) if position.white_to_move else (opponent, mover)
    if six_block_breach(Position(white, black, position.white_to_move)) is not None:
        return SIX_BLOCK_RULE.format(other=other)
    return None


def win_reason(outcome: Outcome, side_phrases: tuple[str, str]) -> str:
    """A game borne off says its kind (a mars, a koks)."""
    kind = RULES.outcome_classes.get(outcome.points, "")
    reason = outcome.termination.value
    return f"{reason}, a {kind}" if outcome.points > 1 else reason
