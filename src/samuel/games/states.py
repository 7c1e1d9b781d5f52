"""What is wrong with rows of kernel states that claim to be positions of a game: the check every
caller runs before handing positions from outside (a file, a store, another process) to a compiled
kernel. The kernels index tables by the points of these masks and numba checks no bounds, so a bad
row would read outside them, or crash. Each check names the first bad row and why.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .draughts.kernels import QUIET_PLY_LIMIT
from .draughts.rules import position_problem as draughts_position_problem
from .tigers.board import FULL, SHEEP, STATE_WORDS, TIGERS


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


def draughts_state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (kernel states, int64 rows of 5) that is
    not a possible draughts position, or None: the words the kernels read as they are (side to
    move 0 or 1, the 40-move count in range), then every check a draughts ``Position`` makes
    (:func:`samuel.games.draughts.rules.position_problem`: masks on the 32 squares, disjoint,
    kings among the pieces, at most 12 a side, no man on its crowning row)."""
    black_to_move, quiet = states[:, 3], states[:, 4]
    checks = (
        (
            (black_to_move != 0) & (black_to_move != 1),
            "black to move (column 3) is not 0 or 1",
        ),
        (
            (quiet < 0) | (quiet > QUIET_PLY_LIMIT),
            f"the quiet plies (column 4) are not 0 to {QUIET_PLY_LIMIT}",
        ),
    )
    first = len(states)
    reason = None
    for bad, why in checks:
        if bad.any() and int(np.argmax(bad)) < first:
            first, reason = int(np.argmax(bad)), why
    # The position's own checks, row by row in Python (about 2 microseconds a row: a second for a
    # run of a few thousand games), up to the first row found bad above.
    rows = states[:first, [0, 1, 2, 4]].tolist()
    for row, (black, white, kings, quiet_plies) in enumerate(rows):
        problem = draughts_position_problem(black, white, kings, quiet_plies)
        if problem:
            first, reason = row, problem
            break
    if reason is None:
        return None
    return f"states row {first} is not a position: {reason}"


# Each game's check of its states, by registry name.
STATE_PROBLEMS: dict[str, Callable[[np.ndarray], str | None]] = {
    "tigers": state_problem,
    "draughts": draughts_state_problem,
}
