"""English draughts as the web server and its page show it (the ``web`` part that
:mod:`samuel.web.boards` reads): squares ``1``-``32`` (docs/rules-draughts.md), pieces ``man``
and ``king`` of ``black`` and ``white``, and the page's drawing of the board beside this file
(``drawing.js``, ``drawing.css``). A capture's path lists every landing square.
"""

from __future__ import annotations

from pathlib import Path

from samuel.games.base import Outcome

from .rules import Move, Position, Termination

DRAWING = "draughts"
SQUARES = tuple(str(s) for s in range(1, 33))
DEFAULT_PLAYERS = ("human", "classic:depth=4")  # Black moves first
WIN_MESSAGES = ("Black wins", "White wins")
SIDE_PHRASES = ("Black", "White")
PLURAL_SIDES = False
POSITION_EXAMPLE = "W:W18,K30:B10,14"
POSITION_HELP = "PDN FEN: side to move, then White's and Black's squares; K marks a king."
SCORE_UNIT = "men"
EVALUATION_SCALE = 2.0
SCRIPT = Path(__file__).with_name("drawing.js")
STYLE = Path(__file__).with_name("drawing.css")


def board(position: Position) -> list[dict]:
    """The pieces, by square: ``{square, piece, side}``."""
    pieces = []
    for i in range(32):
        bit = 1 << i
        side = "black" if position.black & bit else "white" if position.white & bit else None
        if side is not None:
            piece = "king" if position.kings & bit else "man"
            pieces.append({"square": str(i + 1), "piece": piece, "side": side})
    return pieces


def move_path(move: Move) -> dict:
    """A move's squares: its origin, every square it lands on, the pieces it takes."""
    return {
        "move": str(move),
        "origin": str(move.origin),
        "target": str(move.target),
        "path": [str(square) for square in move.squares],
        "captured": [str(square) for square in move.captured],
    }


def parse_move(position: Position, text: str) -> Move:
    """Also the short form of a capture, ``15x31``, when one legal capture fits it."""
    return position.parse_move(text)


def win_reason(outcome: Outcome, side_phrases: tuple[str, str]) -> str:
    """A win by the loser's having no legal move says whose."""
    if outcome.termination is Termination.NO_LEGAL_MOVE and outcome.winner is not None:
        return f"{side_phrases[1 - outcome.winner]} has no legal move"
    return outcome.termination.value
