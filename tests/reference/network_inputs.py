"""Each game's network inputs written plainly from their descriptions, as dense vectors: the
reference for the encoder kernels (:func:`samuel.games.kernels.network_inputs`).

Tigers & Sheep (the seed's docs/training.md): 0..25 a tiger on the point, 25..50 a sheep, 50 the
sheep in hand / 20, 51 the tigers to move; then the tactical features (games/tigers/kernels.py):
52 sheep captured / 5, 53 the tigers' moves / 16, 54 tigers without a move / 4, 55 sheep some
tiger could jump / 4, 56 the tigers to move with a jump, 57 the sheep to move with two or more
sheep threatened. English draughts (the draughts course's ``encode``):
the 32 dark squares row by row from the top, four groups of 32 (my men, my kings, their men,
their kings) for the side to move, the board turned round when White is to move.
"""

from __future__ import annotations

import numpy as np

from . import tigers_rules as rules


def tigers_inputs(tigers: int, sheep: int, hand: int, tiger_to_move: bool) -> np.ndarray:
    x = np.zeros(58, dtype=np.float32)
    board = {}
    for point in range(25):
        where = (point % 5, point // 5)
        if tigers >> point & 1:
            x[point] = 1
            board[where] = rules.TIGER
        if sheep >> point & 1:
            x[25 + point] = 1
            board[where] = rules.SHEEP
    x[50] = np.float32(hand / 20)
    x[51] = 1 if tiger_to_move else 0
    moves, trapped, threatened = 0, 0, set()
    for p, piece in board.items():
        if piece != rules.TIGER:
            continue
        own = sum(1 for q in rules.neighbours(p) if q not in board)
        for dx, dy in rules.line_directions(p):
            over, land = (p[0] + dx, p[1] + dy), (p[0] + 2 * dx, p[1] + 2 * dy)
            if rules.on_board(land) and board.get(over) == rules.SHEEP and land not in board:
                own += 1
                threatened.add(over)
        moves += own
        trapped += own == 0
    on_board = sum(1 for piece in board.values() if piece == rules.SHEEP)
    x[52] = np.float32((20 - hand - on_board) / 5)
    x[53] = np.float32(moves / 16)
    x[54] = np.float32(trapped / 4)
    x[55] = np.float32(len(threatened) / 4)
    x[56] = 1 if tiger_to_move and threatened else 0
    x[57] = 1 if not tiger_to_move and len(threatened) > 1 else 0
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
