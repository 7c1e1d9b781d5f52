"""A slow, obvious GSPRT log-likelihood ratio for pentanomial counts, computed another way.

The code under test solves the secular equation for the constrained maximum-likelihood
distribution. Here the same maximum is found directly: maximise sum_i n_i log p_i over the
distributions p with sum p = 1 and sum p_i a_i = s, by Newton's method on the plane of such
distributions (a basis of the constraints' null space from an SVD), starting from an exponential
tilt of the uniform distribution that already has the right mean, with a backtracking line
search that keeps every p_i positive.
"""

from __future__ import annotations

import numpy as np

VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # a pair's score: its points over 2
EMPTY = 1e-3  # fishtest's count for an outcome never seen


def _tilted(mean: float) -> np.ndarray:
    """exp(t a_i), normalised, with t found by bisection so that the mean is ``mean``."""
    low, high = -200.0, 200.0
    for _ in range(200):
        t = (low + high) / 2
        p = np.exp(t * (VALUES - VALUES.mean()))
        p /= p.sum()
        if p @ VALUES < mean:
            low = t
        else:
            high = t
    return p


def constrained_mle(counts: np.ndarray, mean: float) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    constraints = np.vstack([np.ones(5), VALUES])
    basis = np.linalg.svd(constraints)[2][2:].T  # 5 x 3: moves that keep both constraints
    p = _tilted(mean)

    def objective(q: np.ndarray) -> float:
        return float(counts @ np.log(q))

    for _ in range(100):
        gradient = basis.T @ (counts / p)
        hessian = -basis.T @ np.diag(counts / p**2) @ basis
        step = basis @ np.linalg.solve(hessian, -gradient)
        size = 1.0
        while np.any(p + size * step <= 0) or objective(p + size * step) < objective(p):
            size /= 2
            if size < 1e-20:
                break
        p = p + size * step
        if np.max(np.abs(size * step)) < 1e-15:
            break
    return p


def llr(counts, elo0: float, elo1: float) -> float:
    counts = np.array([c if c > 0 else EMPTY for c in counts], dtype=float)
    s0, s1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (elo0, elo1))
    p0, p1 = constrained_mle(counts, s0), constrained_mle(counts, s1)
    return float(counts @ np.log(p1 / p0))


def normal_llr(counts, elo0: float, elo1: float) -> float:
    """fishtest's normal approximation (LLR_alt2): N (s1 - s0)(2s - s0 - s1) / (2 var)."""
    counts = np.array([c if c > 0 else EMPTY for c in counts], dtype=float)
    n = counts.sum()
    s = counts @ VALUES / n
    var = counts @ (VALUES - s) ** 2 / n
    s0, s1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (elo0, elo1))
    return float(n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var))


__all__ = ["constrained_mle", "llr", "normal_llr"]
