"""Tigers & Sheep's check of kernel states from outside (a file, a store, another process):
what generic code reaches as ``descriptor.part("states").state_problem``
(:mod:`samuel.games.states`)."""

from __future__ import annotations

import numpy as np

from .board import FULL, SHEEP, STATE_WORDS, TIGERS


def state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (kernel states, int64 rows of 4) that is
    not a possible position of Tigers & Sheep, or None. The compiled kernels index tables by the
    points of these masks, so a bad row would read outside them, or crash."""
    tigers, sheep, hand, tiger_to_move = (states[:, i] for i in range(STATE_WORDS))
    outside_tigers = (tigers < 0) | (tigers > FULL)
    outside_sheep = (sheep < 0) | (sheep > FULL)
    on_board = np.bitwise_count(sheep & FULL)
    checks = (
        (outside_tigers, "the tigers' mask (column 0) has points outside the board's 25"),
        (outside_sheep, "the sheep's mask (column 1) has points outside the board's 25"),
        (np.bitwise_count(tigers & FULL) != TIGERS, "there are not exactly 4 tigers"),
        ((tigers & sheep) != 0, "a tiger and a sheep stand on the same point"),
        ((hand < 0) | (hand > SHEEP), "the sheep in hand (column 2) are not 0 to 20"),
        (on_board + hand > SHEEP, "the sheep on the board and in hand are more than 20"),
        ((tiger_to_move != 0) & (tiger_to_move != 1), "tiger to move (column 3) is not 0 or 1"),
        (
            (hand == SHEEP) & (tiger_to_move == 1),
            "the tigers are to move with 20 sheep in hand (the sheep move first)",
        ),
    )
    bad = np.zeros(len(states), dtype=bool)
    for mask, _ in checks:
        bad |= mask
    if not bad.any():
        return None
    row = int(np.argmax(bad))
    reason = next(reason for mask, reason in checks if mask[row])
    return f"states row {row} is not a position: {reason}"
