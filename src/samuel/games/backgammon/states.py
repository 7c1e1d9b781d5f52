"""Backgammon's check of kernel states from outside (a file, a store, another process): what
generic code reaches as ``descriptor.part("states").state_problem`` (:mod:`samuel.games.states`).
The rules' checks of a position (``rules.py``), row by row in NumPy.
"""

from __future__ import annotations

import numpy as np

from .board import CHECKERS, DICE_MASK, DICE_SHIFT, HIGH_BITS, LOW_SLOTS, POINTS, SLOT_BITS, SLOTS


def side_slots(states: np.ndarray, side: int) -> np.ndarray:
    """Each row's 26 slots of ``side`` (0 X, 1 O): its points 1-24, its bar, those borne off."""
    low = states[:, 2 * side].astype(np.uint64)
    high = states[:, 2 * side + 1].astype(np.uint64)
    shifts = np.arange(LOW_SLOTS, dtype=np.uint64) * np.uint64(SLOT_BITS)
    slots = np.concatenate(
        [
            (low[:, None] >> shifts) & np.uint64(15),
            (high[:, None] >> shifts[: SLOTS - LOW_SLOTS]) & np.uint64(15),
        ],
        axis=1,
    )
    return slots.astype(np.int64)


def state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (kernel states, int64 rows of 4) that is
    not a backgammon position, or None: no bits beyond the slots, the turn and the dice; the dice
    none or a roll; each side's fifteen checkers counted once (on its points, its bar, borne
    off); no point held by both sides (``rules.py``'s checks of a position, row by row)."""
    states = np.asarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape[1] != 4:
        return f"backgammon's states are rows of 4 words, not an array of shape {states.shape}"
    x, o = side_slots(states, 0), side_slots(states, 1)
    words = states.astype(np.uint64)
    dice = (words[:, 1] >> np.uint64(DICE_SHIFT)) & np.uint64(DICE_MASK)
    high, low = dice // np.uint64(10), dice % np.uint64(10)
    valid_dice = (dice == 0) | ((low >= 1) & (low <= high) & (high <= 6))
    spare = (words[:, 1] >> np.uint64(DICE_SHIFT + 7)) | (words[:, 3] >> np.uint64(HIGH_BITS))
    # X's point p is O's point 25 - p: O's slots 23 .. 0 against X's 0 .. 23
    both = (x[:, :POINTS] > 0) & (o[:, POINTS - 1 :: -1][:, :POINTS] > 0)
    checks = [
        (spare != 0, "bits are set beyond the checkers, the turn and the dice"),
        (~valid_dice, "the dice are neither 0 (to roll) nor a roll"),
        (x.sum(axis=1) != CHECKERS, "X's checkers, borne off ones too, are not fifteen"),
        (o.sum(axis=1) != CHECKERS, "O's checkers, borne off ones too, are not fifteen"),
        (both.any(axis=1), "a point holds checkers of both sides"),
    ]
    first, reason = len(states), None
    for bad, why in checks:
        if bad.any() and int(np.argmax(bad)) < first:
            first, reason = int(np.argmax(bad)), why
    if reason is None:
        return None
    return f"states row {first} is not a position: {reason}"
