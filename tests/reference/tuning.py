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
