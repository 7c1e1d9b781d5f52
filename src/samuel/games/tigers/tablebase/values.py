"""What the tablebase stores for a position: its value and its distance to the end, in 8 bits.

A stored *code* is 0 for a draw, and ``1 + plies`` for a position whose side to move wins or
loses in ``plies`` plies with best play (the winner winning fastest, the loser resisting
longest). The game always ends on the winner's move (a capture that completes the win, or a move
that leaves the loser none), so a win is an odd number of plies away and a loss an even number:
the parity of the code says which, and no bit is spent on it. A position whose side to move has
no move is a loss in 0 plies, code 1.

The codes are uint8: distances up to 254 plies. The longest in the standard game's table is 137
plies (``docs/tablebase.md``); a build that met a longer one would stop with an error rather than
store a wrong code.

>>> [describe(code) for code in (0, 1, 2, 15)]
['draw', 'loss in 0 plies', 'win in 1 ply', 'loss in 14 plies']
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel

CODE_DTYPE = np.dtype("u1")
DRAW = 0
LOSS_NOW = 1  # the side to move has no move (or the game is already won against it)
MAX_CODE = 0xFF

WIN, LOSS = 1, -1  # outcomes, side to move's point of view (DRAW, 0, as above)


@kernel
def code_outcome(code: int):
    """``(outcome, plies)`` of a code: outcome +1 a win, -1 a loss, 0 a draw (plies 0)."""
    if code == DRAW:
        return 0, 0
    plies = code - 1
    return (1 if plies & 1 else -1), plies


def outcome_of(code: int) -> tuple[int, int]:
    """Python's :func:`code_outcome`."""
    if code == DRAW:
        return 0, 0
    plies = code - 1
    return (WIN if plies & 1 else LOSS), plies


def code_of(outcome: int, plies: int) -> int:
    """The code of a win (+1), loss (-1) or draw (0) in ``plies`` plies; checks the parity."""
    if outcome == 0:
        return DRAW
    if (plies & 1) != (outcome > 0) or not 0 <= plies < MAX_CODE:
        raise ValueError(f"a {'win' if outcome > 0 else 'loss'} cannot be {plies} plies away")
    return plies + 1


def describe(code: int) -> str:
    """``'win in 13 plies'``, ``'loss in 0 plies'``, ``'draw'``: side to move's point of view."""
    outcome, plies = outcome_of(int(code))
    if outcome == 0:
        return "draw"
    return f"{'win' if outcome > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"
