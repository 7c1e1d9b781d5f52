"""Race's check of kernel states from outside (a file, another process): what generic code reaches
as ``descriptor.part("states").state_problem`` (:mod:`samuel.games.states`)."""

from __future__ import annotations

import numpy as np

from .rules import STATE_WORDS, Position, Roll


def state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (int64 rows of 6) that is no Race position,
    or None: the counters (two points 0-6 a side, lower first), the turn (0 or 1) and the dice
    (0: to roll, else 10 * high + low, faces 1 to 3)."""
    if states.ndim != 2 or states.shape[1] != STATE_WORDS:
        return f"a Race position is {STATE_WORDS} words, not an array of shape {states.shape}"
    for row, words in enumerate(states.tolist()):
        red_rear, red_front, green_rear, green_front, red_to_move, dice = words
        try:
            if red_to_move not in (0, 1):
                raise ValueError("red to move (word 4) is not 0 or 1")
            Position(
                (red_rear, red_front),
                (green_rear, green_front),
                bool(red_to_move),
                None if dice == 0 else Roll(dice // 10, dice % 10),
            )
        except ValueError as error:
            return f"row {row}: {error}"
    return None
