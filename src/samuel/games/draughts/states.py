"""English draughts' check of kernel states from outside (a file, a store, another process):
what generic code reaches as ``descriptor.part("states").state_problem``
(:mod:`samuel.games.states`)."""

from __future__ import annotations

import numpy as np

from .kernels import QUIET_PLY_LIMIT


def state_problem(states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` (kernel states, int64 rows of 5) that is
    not a possible draughts position, or None: the words the kernels read as they are (side to
    move 0 or 1, the 40-move count in range), then every check a draughts ``Position`` makes
    (:func:`samuel.games.draughts.rules.position_problem`: masks on the 32 squares, disjoint,
    kings among the pieces, at most 12 a side, no man on its crowning row)."""
    from .rules import position_problem

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
        problem = position_problem(black, white, kings, quiet_plies)
        if problem:
            first, reason = row, problem
            break
    if reason is None:
        return None
    return f"states row {first} is not a position: {reason}"
