"""Tuning's error and gradient the slow, obvious way: dense features, one position at a time,
float64 throughout. The reference for the sparse parallel kernels of samuel.tune.gradient."""

from __future__ import annotations

import math

import numpy as np

from samuel.games.tigers.rules import Position


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions from random games from the start (none of them over), deterministic."""
    rng = np.random.default_rng(seed)
    positions: list[Position] = []
    while len(positions) < count:
        position = Position.initial()
        for _ in range(int(rng.integers(1, 120))):
            moves = position.legal_moves()
            if not moves or position.decided_outcome() is not None:
                break
            position = position.play(moves[int(rng.integers(len(moves)))])
        if position.decided_outcome() is None and position.legal_moves():
            positions.append(position)
    return positions


def mean_squared_error(
    features: np.ndarray, target: np.ndarray, weights: np.ndarray, k: float
) -> float:
    total = 0.0
    for row, y in zip(features, target, strict=True):
        score = sum(float(w) * float(x) for w, x in zip(weights, row, strict=True))
        total += (1.0 / (1.0 + math.exp(-k * score)) - y) ** 2
    return total / len(target)


def finite_difference_gradient(
    features: np.ndarray, target: np.ndarray, weights: np.ndarray, k: float, step: float = 1e-6
) -> np.ndarray:
    """Central differences of the mean squared error for every weight."""
    grad = np.zeros(len(weights))
    for i in range(len(weights)):
        up, down = np.array(weights, dtype=np.float64), np.array(weights, dtype=np.float64)
        up[i] += step
        down[i] -= step
        grad[i] = (
            mean_squared_error(features, target, up, k)
            - mean_squared_error(features, target, down, k)
        ) / (2 * step)
    return grad


# --- draughts: the course's classic features, from a plain board ----------------------------------


def random_draughts_positions(count: int, seed: int) -> list:
    """Draughts positions from random games from the start (kings among them), deterministic."""
    from samuel.games.draughts.rules import Position as DraughtsPosition

    rng = np.random.default_rng(seed)
    positions: list = []
    while len(positions) < count:
        position = DraughtsPosition.initial()
        for _ in range(int(rng.integers(1, 160))):
            moves = position.legal_moves()
            if not moves or position.decided_outcome() is not None:
                break
            position = position.play(moves[int(rng.integers(len(moves)))])
        positions.append(position)
    return positions


def draughts_board(black: int, white: int, kings: int) -> dict:
    """The plain board (:mod:`tests.reference.draughts_rules`) of the kernels' masks: bit
    ``s - 1`` is PDN square ``s``."""
    from tests.reference.draughts_rules import square_of

    board = {}
    for s in range(1, 33):
        bit = 1 << (s - 1)
        if black & bit:
            board[square_of(s)] = "B" if kings & bit else "b"
        elif white & bit:
            board[square_of(s)] = "W" if kings & bit else "w"
    return board


def draughts_features(board: dict) -> list[int]:
    """The draughts course's features, Black's count minus White's, square by square: men,
    kings, rows each man has advanced from its own back row, men still on their back row, and
    pieces on the centre (rows and columns 2 to 5 of the board)."""
    men = kings = advance = back_row = centre = 0
    for (row, column), piece in board.items():
        sign = 1 if piece in "bB" else -1
        if piece in "BW":
            kings += sign
        else:
            men += sign
            advanced = row if piece == "b" else 7 - row  # Black starts at the top (row 0)
            advance += sign * advanced
            back_row += sign * (advanced == 0)
        if 2 <= row <= 5 and 2 <= column <= 5:
            centre += sign
    return [men, kings, advance, back_row, centre]
