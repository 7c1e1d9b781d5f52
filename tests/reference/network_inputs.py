"""Each game's network inputs written plainly from their descriptions, as dense vectors: the
reference for the encoder kernels (:func:`samuel.games.kernels.network_inputs`).

Tigers & Sheep (the seed's docs/training.md): 0..25 a tiger on the point, 25..50 a sheep, 50 the
sheep in hand / 20, 51 the tigers to move. English draughts (the draughts course's ``encode``):
the 32 dark squares row by row from the top, four groups of 32 (my men, my kings, their men,
their kings) for the side to move, the board turned round when White is to move.
"""

from __future__ import annotations

import numpy as np


def tigers_inputs(tigers: int, sheep: int, hand: int, tiger_to_move: bool) -> np.ndarray:
    x = np.zeros(52, dtype=np.float32)
    for point in range(25):
        if tigers >> point & 1:
            x[point] = 1
        if sheep >> point & 1:
            x[25 + point] = 1
    x[50] = np.float32(hand / 20)
    x[51] = 1 if tiger_to_move else 0
    return x


def draughts_board(black: int, white: int, kings: int) -> list[list[str]]:
    """The 8x8 board (row 0 at the top, seen from White's side) with ``b B w W .``; PDN square
    ``s`` is the ``s``-th dark square counting row by row, left to right."""
    board = [["."] * 8 for _ in range(8)]
    dark = [(r, c) for r in range(8) for c in range(8) if (r + c) % 2 == 1]
    for s, (r, c) in enumerate(dark):
        bit = 1 << s
        if black & bit:
            board[r][c] = "B" if kings & bit else "b"
        elif white & bit:
            board[r][c] = "W" if kings & bit else "w"
    return board


def draughts_inputs(black: int, white: int, kings: int, black_to_move: bool) -> np.ndarray:
    """The course's encode(board, player), line by line."""
    board = draughts_board(black, white, kings)
    player = "b" if black_to_move else "w"
    x = np.zeros(128, dtype=np.float32)
    i = 0
    for r in range(8):
        for c in range(8):
            if (r + c) % 2 == 0:
                continue  # light squares are never used
            p = board[r][c] if player == "b" else board[7 - r][7 - c]
            if p != ".":
                mine = p.lower() == player
                king = p in ("B", "W")
                x[(0 if mine else 64) + (32 if king else 0) + i] = 1
            i += 1
    return x
