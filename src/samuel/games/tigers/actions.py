"""Tigers & Sheep's action space: its moves as the numbered actions of Samuel Zero's policy
(:mod:`samuel.games.actions`), and how the board's symmetries move them. Its compiled interface
(``compiled.py``) offers these through :data:`samuel.games.dispatch.INTERFACE`.

650 actions: a step or a jump from point ``o`` to point ``t`` is ``o * 25 + t`` (a jump's captured
point is implied; a tiger's and a sheep's moves never share a position, so they share the
numbers); a placement on ``t`` is ``625 + t``. Points are as the rules number them (0..24),
whoever is to move: the network's inputs are the board as it is (the first player's view, with
an input that says who is to move), so the actions are too. This is also the OpenSpiel adapter's
numbering (``spiel.py``). Actions of a variant are the standard game's.
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel

from . import board, kernels

POINTS = board.POINTS
PLACEMENT = POINTS * POINTS  # 625: the first placement action
ACTIONS = PLACEMENT + POINTS  # 650

_SYMMETRIES = np.asarray(board.SYMMETRIES, dtype=np.int64)


@kernel
def action_of(move: int) -> int:
    """The action of a move code (its origin and target; not checked)."""
    origin = move & kernels.POINT_FIELD
    target = (move >> kernels.POINT_BITS) & kernels.POINT_FIELD
    if origin == kernels.NO_POINT:
        return PLACEMENT + target
    return origin * POINTS + target


@kernel
def no_action() -> None:
    raise ValueError("a Tigers & Sheep move code that stands for no action")


@kernel
def symmetry_out_of_range() -> None:
    raise ValueError("a Tigers & Sheep symmetry or action out of range")


@kernel
def action_image(symmetry: int, action: int) -> int:
    """The action that ``action`` becomes under the board's symmetry ``symmetry`` (both in
    range: :func:`samuel.games.tigers.compiled.action_symmetry` checks them)."""
    if action >= PLACEMENT:
        return PLACEMENT + _SYMMETRIES[symmetry, action - PLACEMENT]
    origin = action // POINTS
    target = action - origin * POINTS
    return _SYMMETRIES[symmetry, origin] * POINTS + _SYMMETRIES[symmetry, target]


SYMMETRY_COUNT = _SYMMETRIES.shape[0]
