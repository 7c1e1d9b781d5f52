"""Tigers & Sheep as the web server and its page show it (the ``web`` part that
:mod:`samuel.web.boards` reads): 25 points ``a1``-``e5``, pieces ``tiger`` and ``sheep``, and the
page's drawing of the board beside this file (``drawing.js``, ``drawing.css``).
"""

from __future__ import annotations

from pathlib import Path

from .rules import Move, Position, point_name

DRAWING = "tigers"
SQUARES = tuple(point_name(p) for p in range(25))
DEFAULT_PLAYERS = ("classic:depth=4", "human")  # the sheep move first
WIN_MESSAGES = ("The tigers win", "The sheep win")
SIDE_PHRASES = ("the tigers", "the sheep")
PLURAL_SIDES = True
POSITION_EXAMPLE = "T3T/5/2S2/5/T3T T 19"
POSITION_HELP = "Rows 5 to 1, side to move, sheep in hand."
SCORE_UNIT = "captured sheep"
EVALUATION_SCALE = 2.5
SCRIPT = Path(__file__).with_name("drawing.js")
STYLE = Path(__file__).with_name("drawing.css")


def board(position: Position) -> list[dict]:
    """The pieces, by point: ``{square, piece, side}``."""
    pieces = []
    for p in range(25):
        if (position.tigers >> p) & 1:
            pieces.append({"square": SQUARES[p], "piece": "tiger", "side": "tigers"})
        elif (position.sheep >> p) & 1:
            pieces.append({"square": SQUARES[p], "piece": "sheep", "side": "sheep"})
    return pieces


def move_path(move: Move) -> dict:
    """A placement's point, or a step's or jump's two points and the sheep a jump takes."""
    origin = None if move.origin is None else point_name(move.origin)
    target = point_name(move.target)
    return {
        "move": str(move),
        "origin": origin,
        "target": target,
        "path": [target] if origin is None else [origin, target],
        "captured": [] if move.captured is None else [point_name(move.captured)],
    }


def extra_fields(position: Position) -> dict:
    """The game state's Tigers & Sheep fields: the points of each side, the hand, the tally."""
    return {
        "tigers": [SQUARES[p] for p in range(25) if (position.tigers >> p) & 1],
        "sheep": [SQUARES[p] for p in range(25) if (position.sheep >> p) & 1],
        "sheep_in_hand": position.sheep_in_hand,
        "captured": position.captured,
    }
