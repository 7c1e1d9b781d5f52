"""English draughts' action space: its moves as the numbered actions of Samuel Zero's policy
(:mod:`samuel.games.actions`). Its compiled interface (``compiled.py``) offers these through
:data:`samuel.games.dispatch.INTERFACE`.

128 actions: ``square * 4 + direction`` of the move's *first* step or jump (``direction`` as
:mod:`samuel.games.draughts.board` numbers them, ``UP_LEFT`` 0 .. ``DOWN_RIGHT`` 3), in the *side
to move's* frame, as the network's inputs are: for White the board is turned half round, square
``s`` read as ``31 - s`` and every direction reversed (``OPPOSITE``), so a position and its
colour-swapped half-turn have the same inputs and the same actions (the half-turn symmetry leaves
every action as it is). A step is its one action. Captures that leave the same square in the same
direction and then part (a king's or a man's branching multi-jump) share one action: the policy
gives them one prior, which the search splits between them (:func:`samuel.games.actions.
distinct_actions`). Every other legal move has an action of its own (tests/test_actions.py checks
it).
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel

from . import board, kernels

DIRECTIONS = 4
ACTIONS = board.SQUARES * DIRECTIONS  # 128
SYMMETRY_COUNT = 2  # the identity and the half-turn with colours swapped

# The direction of a step from square ``o`` to square ``t`` (-1: no step), for the steps, whose
# move codes carry no direction (a jump's carries its path).
_STEP_DIRECTION = np.full((board.SQUARES, board.SQUARES), -1, dtype=np.int64)
for _origin in range(board.SQUARES):
    for _direction in range(DIRECTIONS):
        if board.STEP[_origin, _direction] >= 0:
            _STEP_DIRECTION[_origin, board.STEP[_origin, _direction]] = _direction
_OPPOSITE = np.array(board.OPPOSITE, dtype=np.int64)


@kernel
def action_of(move: int, black_to_move: int) -> int:
    """The action of a move code in the side to move's frame: its first step's square and
    direction, turned half round for White. -1 for a step between squares that are not
    neighbours (no legal move)."""
    origin = move & kernels.SQUARE_FIELD
    if (move >> kernels.JUMPS_SHIFT) & kernels.JUMPS_FIELD:
        direction = (move >> kernels.PATH_SHIFT) & 3
    else:
        direction = _STEP_DIRECTION[origin, (move >> kernels.SQUARE_BITS) & kernels.SQUARE_FIELD]
        if direction < 0:
            return -1
    if not black_to_move:
        origin = board.SQUARES - 1 - origin
        direction = _OPPOSITE[direction]
    return origin * DIRECTIONS + direction


@kernel
def no_action() -> None:
    raise ValueError("a draughts move code that stands for no action")


@kernel
def symmetry_out_of_range() -> None:
    raise ValueError("a draughts symmetry or action out of range")
