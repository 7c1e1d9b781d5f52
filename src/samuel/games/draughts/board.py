"""The English draughts board: 32 dark squares, their steps and jumps, as plain NumPy tables.

Square ``i`` (0..31) is PDN square ``i + 1`` (docs/rules-draughts.md): seen from White's side, row
``r = i // 4`` counts from the top (Black's back row, squares 1-4) to the bottom (White's, 29-32),
and in each row the four dark squares run left to right. On even rows (0, 2, ...) they are in
columns 1, 3, 5, 7; on odd rows in columns 0, 2, 4, 6. A set of squares is a 32-bit mask.

Directions are numbered ``UP_LEFT``, ``UP_RIGHT``, ``DOWN_LEFT``, ``DOWN_RIGHT`` ("down" is
towards square 32, Black's forward); ``OPPOSITE[d]`` is the reverse of ``d``. The tables are built
once at import and read by the compiled kernels as constants.
"""

from __future__ import annotations

import numpy as np

SQUARES = 32
ROWS = 8
FULL = (1 << SQUARES) - 1  # the mask of every square

MEN = 12  # each side starts with 12 men, and can never have more pieces
START_BLACK = (1 << 12) - 1  # squares 1-12
START_WHITE = FULL ^ ((1 << 20) - 1)  # squares 21-32

# A man that ends its move on the far row is crowned: Black's on 29-32, White's on 1-4.
BLACK_CROWN_ROW = 0xF << 28
WHITE_CROWN_ROW = 0xF
# The back rows the men start on (the evaluation rewards men guarding them).
BLACK_BACK_ROW = WHITE_CROWN_ROW
WHITE_BACK_ROW = BLACK_CROWN_ROW

UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = 0, 1, 2, 3
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # (row step, column step)
OPPOSITE = (DOWN_RIGHT, DOWN_LEFT, UP_RIGHT, UP_LEFT)
# Men move forward only: Black's down the board (directions 2 and 3), White's up (0 and 1).
BLACK_FIRST_DIRECTION, WHITE_FIRST_DIRECTION = DOWN_LEFT, UP_LEFT

# The most moves a position can have. Steps: at most 12 pieces x 4 directions = 48. Captures are
# counted by path, and a king's paths can branch, but no position reached in play or built in the
# tests comes near this; the kernels never write past their buffer and report the true count, so
# a larger count is caught by the friendly layer rather than corrupting memory.
MAX_MOVES = 128
# A position is five int64 words for the kernels: black, white, kings, black to move, quiet plies.
STATE_WORDS = 5
# The most jumps in one move: every jump takes a different piece of the 12.
MAX_JUMPS = MEN
NO_SQUARE = -1


def row_of(i: int) -> int:
    return i // 4


def column_of(i: int) -> int:
    """The board column (0-7, left to right from White's side) of square index ``i``."""
    return 2 * (i % 4) + (1 if row_of(i) % 2 == 0 else 0)


def square_at(row: int, column: int) -> int:
    """The square index at ``(row, column)``, or ``NO_SQUARE`` if it is off the board or light."""
    if not (0 <= row < ROWS and 0 <= column < ROWS) or (row + column) % 2 == 0:
        return NO_SQUARE
    return 4 * row + column // 2


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    step = np.full((SQUARES, 4), NO_SQUARE, dtype=np.int64)
    jump_over = np.full((SQUARES, 4), NO_SQUARE, dtype=np.int64)
    jump_land = np.full((SQUARES, 4), NO_SQUARE, dtype=np.int64)
    for i in range(SQUARES):
        r, c = row_of(i), column_of(i)
        for d, (dr, dc) in enumerate(DIRECTIONS):
            near = square_at(r + dr, c + dc)
            step[i, d] = near
            if near != NO_SQUARE:
                far = square_at(r + 2 * dr, c + 2 * dc)
                if far != NO_SQUARE:
                    jump_over[i, d] = near
                    jump_land[i, d] = far
    return step, jump_over, jump_land


STEP, JUMP_OVER, JUMP_LAND = _tables()


def _shifts() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bitboard shifts: the neighbours of a set of squares in direction ``d`` are
    ``(set & EVEN_FROM[d]) shifted by EVEN_SHIFT[d] | (set & ODD_FROM[d]) shifted by ODD_SHIFT[d]``
    (a positive shift moves towards square 32). Even and odd rows step by different amounts
    (3, 4 or 5), and the masks leave out squares whose step would leave the board."""
    even_from = np.zeros(4, dtype=np.int64)
    odd_from = np.zeros(4, dtype=np.int64)
    even_shift = np.zeros(4, dtype=np.int64)
    odd_shift = np.zeros(4, dtype=np.int64)
    for d in range(4):
        for i in range(SQUARES):
            j = int(STEP[i, d])
            if j == NO_SQUARE:
                continue
            if row_of(i) % 2 == 0:
                even_from[d] |= 1 << i
                assert even_shift[d] in (0, j - i)  # one shift per direction and row parity
                even_shift[d] = j - i
            else:
                odd_from[d] |= 1 << i
                assert odd_shift[d] in (0, j - i)
                odd_shift[d] = j - i
    return even_from, odd_from, even_shift, odd_shift


EVEN_FROM, ODD_FROM, EVEN_SHIFT, ODD_SHIFT = _shifts()

# The half-turn with colours swapped maps square i to 31 - i (PDN s to 33 - s).
HALF_TURN = np.arange(SQUARES - 1, -1, -1, dtype=np.int64)

# The centre the classic evaluation rewards: the eight dark squares of rows 2-5 and columns
# 2-5 (PDN 10, 11, 14, 15, 18, 19, 22, 23), as in the draughts course (docs/draughts.md).
CENTRE = 0
for _i in range(SQUARES):
    if 2 <= row_of(_i) <= 5 and 2 <= column_of(_i) <= 5:
        CENTRE |= 1 << _i
