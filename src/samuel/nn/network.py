"""The network: ``52 -> 64 ReLU -> 32 ReLU -> 1 tanh``, written by hand.

All parameters live in one flat float32 array at fixed offsets, so the optimiser, the gradient
and the file format treat them as one list of numbers. ``W1`` is input-major (input ``i``'s 64
weights are contiguous) so that the sparse forward pass can add whole rows; ``W2`` is unit-major
(hidden-2 unit ``k``'s 64 incoming weights are contiguous). The output is in ``-1..1`` and, like
every score, positive favours the tigers. See ``docs/training.md``.

Inputs (only the raw position):

=========  ======================================
0..25      1 if a tiger is on that point
25..50     1 if a sheep is on that point
50         sheep in hand / 20
51         1 if the tigers are to move
=========  ======================================
"""

from __future__ import annotations

import numpy as np

from samuel.bits import lowest_bit
from samuel.jit import kernel

INPUTS = 52
HIDDEN1 = 64
HIDDEN2 = 32
HAND = 50
TIGER_TO_MOVE = 51

W1 = 0
B1 = W1 + INPUTS * HIDDEN1
W2 = B1 + HIDDEN1
B2 = W2 + HIDDEN1 * HIDDEN2
W3 = B2 + HIDDEN2
B3 = W3 + HIDDEN2
PARAMS = B3 + 1

# Scratch space for one forward/backward pass: h1 (64), h2 (32), and their gradients.
SCRATCH = 2 * (HIDDEN1 + HIDDEN2)
H1, H2, D1, D2 = 0, HIDDEN1, HIDDEN1 + HIDDEN2, 2 * HIDDEN1 + HIDDEN2

HE_FAN_IN_LAYER1 = 20  # only about a third of the 52 inputs are set at once


@kernel
def forward(
    params: np.ndarray, tigers: int, sheep: int, hand: int, tiger_to_move: int, scratch: np.ndarray
) -> float:
    """The network's value of a position (tigers' view); leaves h1 and h2 in ``scratch``.

    Sparse: layer 1 starts at its biases and adds the weight row of each set input.
    """
    h1 = scratch[H1 : H1 + HIDDEN1]
    h2 = scratch[H2 : H2 + HIDDEN2]
    for j in range(HIDDEN1):
        h1[j] = params[B1 + j]
    rest = tigers
    while rest:
        row = W1 + lowest_bit(rest) * HIDDEN1
        rest &= rest - 1
        for j in range(HIDDEN1):
            h1[j] += params[row + j]
    rest = sheep
    while rest:
        row = W1 + (25 + lowest_bit(rest)) * HIDDEN1
        rest &= rest - 1
        for j in range(HIDDEN1):
            h1[j] += params[row + j]
    if hand:
        share = np.float32(hand / 20.0)
        for j in range(HIDDEN1):
            h1[j] += share * params[W1 + HAND * HIDDEN1 + j]
    if tiger_to_move:
        for j in range(HIDDEN1):
            h1[j] += params[W1 + TIGER_TO_MOVE * HIDDEN1 + j]
    for j in range(HIDDEN1):
        if h1[j] < 0:
            h1[j] = 0
    out = params[B3]
    for k in range(HIDDEN2):
        total = params[B2 + k]
        row = W2 + k * HIDDEN1
        for j in range(HIDDEN1):
            total += params[row + j] * h1[j]
        if total < 0:
            total = np.float32(0.0)
        h2[k] = total
        out += params[W3 + k] * total
    return np.tanh(out)


@kernel
def add_gradient(
    params: np.ndarray,
    grad: np.ndarray,
    tigers: int,
    sheep: int,
    hand: int,
    tiger_to_move: int,
    target: float,
    scratch: np.ndarray,
) -> float:
    """Add the gradient of ``(out - target)^2 / 2`` for one sample to ``grad``; return the loss."""
    out = forward(params, tigers, sheep, hand, tiger_to_move, scratch)
    h1 = scratch[H1 : H1 + HIDDEN1]
    h2 = scratch[H2 : H2 + HIDDEN2]
    d1 = scratch[D1 : D1 + HIDDEN1]
    d2 = scratch[D2 : D2 + HIDDEN2]
    error = out - target
    d_out = np.float32(error * (1.0 - out * out))  # through tanh
    grad[B3] += d_out
    for k in range(HIDDEN2):
        grad[W3 + k] += d_out * h2[k]
        d2[k] = d_out * params[W3 + k] if h2[k] > 0 else np.float32(0.0)
    for j in range(HIDDEN1):
        d1[j] = 0
    for k in range(HIDDEN2):
        g = d2[k]
        if g == 0:
            continue
        grad[B2 + k] += g
        row = W2 + k * HIDDEN1
        for j in range(HIDDEN1):
            grad[row + j] += g * h1[j]
            d1[j] += g * params[row + j]
    for j in range(HIDDEN1):
        if h1[j] <= 0:
            d1[j] = 0
        grad[B1 + j] += d1[j]
    rest = tigers
    while rest:
        row = W1 + lowest_bit(rest) * HIDDEN1
        rest &= rest - 1
        for j in range(HIDDEN1):
            grad[row + j] += d1[j]
    rest = sheep
    while rest:
        row = W1 + (25 + lowest_bit(rest)) * HIDDEN1
        rest &= rest - 1
        for j in range(HIDDEN1):
            grad[row + j] += d1[j]
    if hand:
        share = np.float32(hand / 20.0)
        for j in range(HIDDEN1):
            grad[W1 + HAND * HIDDEN1 + j] += share * d1[j]
    if tiger_to_move:
        for j in range(HIDDEN1):
            grad[W1 + TIGER_TO_MOVE * HIDDEN1 + j] += d1[j]
    return 0.5 * error * error


def random_parameters(seed: int) -> np.ndarray:
    """He initialisation: normal weights scaled by sqrt(2 / fan_in), zero biases; layer 1's
    fan-in is taken as 20, since only about a third of its inputs are set at once."""
    rng = np.random.default_rng(seed)
    params = np.zeros(PARAMS, dtype=np.float32)
    params[W1:B1] = rng.normal(0.0, np.sqrt(2.0 / HE_FAN_IN_LAYER1), INPUTS * HIDDEN1)
    params[W2:B2] = rng.normal(0.0, np.sqrt(2.0 / HIDDEN1), HIDDEN1 * HIDDEN2)
    params[W3:B3] = rng.normal(0.0, np.sqrt(2.0 / HIDDEN2), HIDDEN2)
    return params


def encode_inputs(tigers: int, sheep: int, hand: int, tiger_to_move: int) -> np.ndarray:
    """The 52 inputs as a dense vector (for tests and references; the kernels stay sparse)."""
    x = np.zeros(INPUTS, dtype=np.float32)
    for p in range(25):
        x[p] = (tigers >> p) & 1
        x[25 + p] = (sheep >> p) & 1
    x[HAND] = hand / 20.0
    x[TIGER_TO_MOVE] = tiger_to_move
    return x
