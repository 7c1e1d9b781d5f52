"""The Tigers & Sheep board: 25 points, their lines, steps and jumps, as plain NumPy tables.

Point ``i = x + 5*y`` (``a1`` = 0, ``e5`` = 24); a set of points is a 25-bit mask. Every point is
joined to its orthogonal neighbours; a point whose ``x + y`` is even is also joined to its diagonal
neighbours. The tables are built once at import and read by the compiled kernels as constants.
"""

from __future__ import annotations

import numpy as np

SIZE = 5
POINTS = SIZE * SIZE
FULL = (1 << POINTS) - 1  # the mask of every point

TIGERS = 4
SHEEP = 20
# The standard game's captures to win (docs/rules-tigers.md); the rules take others as a parameter
# (TigersAndSheep(captures_to_win=4), the kernels' captures_to_win argument).
CAPTURES_TO_WIN = 5

# The most moves a position can have: every empty point (at most 21) reached from at most 8
# neighbours bounds sheep steps at 168; tigers have at most 4 x (8 steps + 8 jumps) = 64.
MAX_MOVES = 192
# A position is four int64 words for the kernels: tigers, sheep, sheep in hand, tiger to move.
STATE_WORDS = 4

ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def point(x: int, y: int) -> int:
    return x + SIZE * y


def on_board(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


def directions(p: int) -> tuple[tuple[int, int], ...]:
    """The directions of the lines through point ``p``."""
    x, y = p % SIZE, p // SIZE
    return ORTHOGONAL + DIAGONAL if (x + y) % 2 == 0 else ORTHOGONAL


def _tables() -> tuple[np.ndarray, ...]:
    steps = np.full((POINTS, 8), -1, dtype=np.int64)
    step_count = np.zeros(POINTS, dtype=np.int64)
    neighbours = np.zeros(POINTS, dtype=np.int64)
    jump_over = np.full((POINTS, 8), -1, dtype=np.int64)
    jump_land = np.full((POINTS, 8), -1, dtype=np.int64)
    jump_count = np.zeros(POINTS, dtype=np.int64)
    for p in range(POINTS):
        x, y = p % SIZE, p // SIZE
        for dx, dy in directions(p):
            if on_board(x + dx, y + dy):
                q = point(x + dx, y + dy)
                steps[p, step_count[p]] = q
                step_count[p] += 1
                neighbours[p] |= 1 << q
                # A straight line continues through q in the same direction: the diagonal
                # through p (x+y even) passes through q (x+y odd) and on to a point with x+y
                # even, so every jump stays on one of the board's lines.
                if on_board(x + 2 * dx, y + 2 * dy):
                    jump_over[p, jump_count[p]] = q
                    jump_land[p, jump_count[p]] = point(x + 2 * dx, y + 2 * dy)
                    jump_count[p] += 1
    return steps, step_count, neighbours, jump_over, jump_land, jump_count


STEPS, STEP_COUNT, NEIGHBOURS, JUMP_OVER, JUMP_LAND, JUMP_COUNT = _tables()

START_TIGERS = (1 << point(0, 0)) | (1 << point(4, 0)) | (1 << point(0, 4)) | (1 << point(4, 4))


# The eight symmetries of the square as point permutations: SYMMETRIES[s, p] is the image of p.
# Index 0 is the identity; 1-3 rotate by 90, 180, 270 degrees; 4-7 reflect.
def _symmetries() -> np.ndarray:
    table = np.zeros((8, POINTS), dtype=np.int64)
    maps = (
        lambda x, y: (x, y),
        lambda x, y: (4 - y, x),
        lambda x, y: (4 - x, 4 - y),
        lambda x, y: (y, 4 - x),
        lambda x, y: (4 - x, y),
        lambda x, y: (x, 4 - y),
        lambda x, y: (y, x),
        lambda x, y: (4 - y, 4 - x),
    )
    for s, transform in enumerate(maps):
        for p in range(POINTS):
            tx, ty = transform(p % SIZE, p // SIZE)
            table[s, p] = point(tx, ty)
    return table


SYMMETRIES = _symmetries()
# INVERSE_SYMMETRY[s] undoes symmetry s.
INVERSE_SYMMETRY = np.array(
    [
        next(
            t for t in range(8) if all(SYMMETRIES[t, SYMMETRIES[s, p]] == p for p in range(POINTS))
        )
        for s in range(8)
    ],
    dtype=np.int64,
)
