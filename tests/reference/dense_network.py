"""The network as textbook float64 matrix algebra: the reference for the sparse kernels. The
input count follows from the number of parameters."""

from __future__ import annotations

import numpy as np

from samuel.nn import network as N


def layers(params: np.ndarray):
    shape = N.layout(N.input_count(len(params)))
    p = params.astype(np.float64)
    w1 = p[shape.w1 : shape.b1].reshape(shape.inputs, N.HIDDEN1)  # input-major
    w2 = p[shape.w2 : shape.b2].reshape(N.HIDDEN2, N.HIDDEN1)  # unit-major
    return (
        w1,
        p[shape.b1 : shape.w2],
        w2,
        p[shape.b2 : shape.w3],
        p[shape.w3 : shape.b3],
        p[shape.b3],
    )


def value(params: np.ndarray, inputs: np.ndarray) -> float:
    w1, b1, w2, b2, w3, b3 = layers(params)
    h1 = np.maximum(0.0, inputs.astype(np.float64) @ w1 + b1)
    h2 = np.maximum(0.0, w2 @ h1 + b2)
    return float(np.tanh(w3 @ h2 + b3))


def loss(params: np.ndarray, inputs: np.ndarray, target: float) -> float:
    return 0.5 * (value(params, inputs) - target) ** 2


def finite_difference_gradient(
    params: np.ndarray, inputs: np.ndarray, target: float, indices: np.ndarray, step: float = 1e-6
) -> np.ndarray:
    """Central differences of the loss for the chosen parameters (float64 throughout)."""
    base = params.astype(np.float64)
    grad = np.zeros(len(indices))
    for n, i in enumerate(indices):
        up, down = base.copy(), base.copy()
        up[i] += step
        down[i] -= step
        grad[n] = (loss(up, inputs, target) - loss(down, inputs, target)) / (2 * step)
    return grad
