"""Long nardy's check of kernel states from outside (a file, a store, another process): what
generic code reaches as ``descriptor.part("states").state_problem`` (:mod:`samuel.games.states`).
The rules' checks of a position (``rules.py``), row by row in NumPy.
"""

from __future__ import annotations

import numpy as np

from .board import CHECKERS, DICE_MASK, DICE_SHIFT, HALF, HIGH_BITS, HOME, POINTS, SLOT_BITS


def side_slots(states: np.ndarray, side: int) -> np.ndarray:
    """Each row's 25 slots of ``side`` (0 White, 1 Black): points 1-24, then those borne off."""
    low = states[:, 2 * side].astype(np.uint64)
    high = states[:, 2 * side + 1].astype(np.uint64)
    shifts = np.arange(16, dtype=np.uint64) * np.uint64(SLOT_BITS)
    slots = np.concatenate(
        [(low[:, None] >> shifts) & np.uint64(15), (high[:, None] >> shifts[:9]) & np.uint64(15)],
        axis=1,
    )
    return slots.astype(np.int64)


def _six_block_breach(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Rows where ``mine`` holds six or more points running along the other side's path with
    none of the other side's checkers past them (``rules.six_block_breach``, row-wise)."""
    held = mine[:, (np.arange(POINTS) + HALF) % POINTS] > 0  # by the other side's index
    on_board = theirs[:, :POINTS] > 0
    lowest = np.where(on_board.any(axis=1), np.argmax(on_board, axis=1), POINTS)
    run = np.zeros(len(mine), dtype=np.int64)
    breach = np.zeros(len(mine), dtype=bool)
    for j in range(POINTS):
        run = np.where(held[:, j], run + 1, 0)
        breach |= (run >= 6) & (lowest < POINTS) & (lowest >= j - run + 1)
    return breach


def state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (kernel states, int64 rows of 4) that is
    not a long nardy position, or None: no bits beyond the slots, the turn and the dice; the dice
    none or a roll; each side's fifteen checkers counted once; no point held by both sides; none
    borne off while some are outside the home; the six-block rule kept (``rules.py``'s checks of
    a position, row by row in NumPy)."""
    states = np.asarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape[1] != 4:
        return f"long nardy's states are rows of 4 words, not an array of shape {states.shape}"
    white, black = side_slots(states, 0), side_slots(states, 1)
    words = states.astype(np.uint64)
    dice = (words[:, 1] >> np.uint64(DICE_SHIFT)) & np.uint64(DICE_MASK)
    high, low = dice // np.uint64(10), dice % np.uint64(10)
    valid_dice = (dice == 0) | ((low >= 1) & (low <= high) & (high <= 6))
    spare = (words[:, 1] >> np.uint64(DICE_SHIFT + 7)) | (words[:, 3] >> np.uint64(HIGH_BITS))
    both = (white[:, :POINTS] > 0) & (black[:, (np.arange(POINTS) + HALF) % POINTS] > 0)
    checks = [
        (spare != 0, "bits are set beyond the checkers, the turn and the dice"),
        (~valid_dice, "the dice are neither 0 (to roll) nor a roll"),
        (white.sum(axis=1) != CHECKERS, "White's checkers, borne off ones too, are not fifteen"),
        (black.sum(axis=1) != CHECKERS, "Black's checkers, borne off ones too, are not fifteen"),
        (both.any(axis=1), "a point holds checkers of both sides"),
    ]
    for side, name in ((white, "White"), (black, "Black")):
        outside = side[:, HOME:POINTS].sum(axis=1) > 0
        checks.append(
            (outside & (side[:, POINTS] > 0), f"{name} has borne off with checkers outside home")
        )
    checks.append(
        (
            _six_block_breach(white, black) | _six_block_breach(black, white),
            "six points run on the other side's path with none of its checkers past them",
        )
    )
    first, reason = len(states), None
    for bad, why in checks:
        if bad.any() and int(np.argmax(bad)) < first:
            first, reason = int(np.argmax(bad)), why
    if reason is None:
        return None
    return f"states row {first} is not a position: {reason}"
