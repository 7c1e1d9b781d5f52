"""The network as textbook float64 matrix algebra: the reference for the sparse kernels. The
input count follows from the number of parameters."""

from __future__ import annotations

import numpy as np

from samuel.nn import network as N


def layers(params: np.ndarray):
    shape = N.layout(*N.network_shape(len(params)))
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
    _, _, w2, b2, w3, b3 = layers(params)
    h2 = np.maximum(0.0, w2 @ first_hidden(params, inputs) + b2)
    return float(np.tanh(w3 @ h2 + b3))


def first_hidden(params: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """The first hidden layer's activations (the value's and the moves-left head's input)."""
    w1, b1, _, _, _, _ = layers(params)
    return np.maximum(0.0, inputs.astype(np.float64) @ w1 + b1)


def loss(params: np.ndarray, inputs: np.ndarray, target: float) -> float:
    return 0.5 * (value(params, inputs) - target) ** 2


def central_differences(loss_of, params: np.ndarray, indices: np.ndarray, step: float = 1e-6):
    """Central differences of ``loss_of(params)`` for the chosen parameters (float64)."""
    base = params.astype(np.float64)
    grad = np.zeros(len(indices))
    for n, i in enumerate(indices):
        up, down = base.copy(), base.copy()
        up[i] += step
        down[i] -= step
        grad[n] = (loss_of(up) - loss_of(down)) / (2 * step)
    return grad


def finite_difference_gradient(
    params: np.ndarray, inputs: np.ndarray, target: float, indices: np.ndarray, step: float = 1e-6
) -> np.ndarray:
    """Central differences of the value loss for the chosen parameters."""
    return central_differences(lambda p: loss(p, inputs, target), params, indices, step)


def plies(params: np.ndarray, inputs: np.ndarray) -> float:
    """The moves-left head's output in plies: PLIES_SCALE * softplus(W5 . ReLU(W4 h1 + B4) + B5),
    from the first hidden layer."""
    shape = N.layout(*N.network_shape(len(params)))
    p = params.astype(np.float64)
    h1 = first_hidden(params, inputs)
    w4 = p[shape.w4 : shape.b4].reshape(N.HEAD_HIDDEN, N.HIDDEN1)  # unit-major
    head = np.maximum(0.0, w4 @ h1 + p[shape.b4 : shape.w5])
    z = p[shape.w5 : shape.b5] @ head + p[shape.b5]
    return float(N.PLIES_SCALE * np.logaddexp(0.0, z))


def heads_loss(
    params: np.ndarray, inputs: np.ndarray, target: float, plies_target: float, weight: float
) -> float:
    """The loss :func:`samuel.nn.network.add_gradient_heads` differentiates."""
    error = (plies(params, inputs) - plies_target) / N.PLIES_SCALE
    delta = N.HUBER_PLIES / N.PLIES_SCALE
    huber = 0.5 * error**2 if abs(error) <= delta else delta * (abs(error) - 0.5 * delta)
    return loss(params, inputs, target) + weight * huber


def finite_difference_heads_gradient(
    params, inputs, target, plies_target, weight, indices, step=1e-6
) -> np.ndarray:
    """Central differences of :func:`heads_loss` for the chosen parameters."""
    return central_differences(
        lambda p: heads_loss(p, inputs, target, plies_target, weight), params, indices, step
    )
