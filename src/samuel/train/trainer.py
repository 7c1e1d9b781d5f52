"""Training the network on a set of samples: shuffled batches, random symmetric orientations,
Adam.

Each sample is shown in a random one of the 8 symmetric orientations of the board (data
augmentation: symmetric positions are equally good, and the network sees more variety).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from samuel.games.tigers.kernels import transform_mask
from samuel.jit import kernel
from samuel.nn.batches import adam_step, batch_gradient, batch_loss
from samuel.nn.network import PARAMS

from .buffer import Samples

BETA1 = 0.9
BETA2 = 0.999
ADAM_EPSILON = 1e-8


@kernel
def orient(
    states: np.ndarray, symmetries: np.ndarray, tigers: np.ndarray, sheep: np.ndarray
) -> None:
    """Write each position's tiger and sheep masks under its chosen symmetry."""
    for i in range(states.shape[0]):
        tigers[i] = transform_mask(states[i, 0], symmetries[i])
        sheep[i] = transform_mask(states[i, 1], symmetries[i])


@dataclass
class Adam:
    """Adam's running averages of the gradient and its square, and the step count."""

    m: np.ndarray = field(default_factory=lambda: np.zeros(PARAMS, dtype=np.float32))
    v: np.ndarray = field(default_factory=lambda: np.zeros(PARAMS, dtype=np.float32))
    step: int = 0


def train_batch(
    params: np.ndarray,
    adam: Adam,
    tigers,
    sheep,
    hand,
    tiger_to_move,
    targets,
    learning_rate: float,
    grad: np.ndarray,
) -> float:
    """One Adam step on the batch's mean gradient; returns the batch's summed loss."""
    loss = batch_gradient(params, tigers, sheep, hand, tiger_to_move, targets, grad)
    adam.step += 1
    adam_step(
        params,
        grad,
        adam.m,
        adam.v,
        adam.step,
        learning_rate,
        BETA1,
        BETA2,
        ADAM_EPSILON,
        np.float32(1.0 / len(targets)),
    )
    return loss


def train_epoch(
    params: np.ndarray,
    adam: Adam,
    samples: Samples,
    batch_size: int,
    learning_rate: float,
    rng: np.random.Generator,
) -> float:
    """Shuffle, orient at random, train in batches; return the mean loss seen while training."""
    n = len(samples)
    if n == 0:
        return 0.0
    order = rng.permutation(n)
    symmetries = rng.integers(0, 8, size=n)
    states = samples.states[order]
    tigers = np.empty(n, dtype=np.int64)
    sheep = np.empty(n, dtype=np.int64)
    orient(states, symmetries, tigers, sheep)
    hand = np.ascontiguousarray(states[:, 2])
    tiger_to_move = np.ascontiguousarray(states[:, 3])
    targets = samples.targets[order]
    grad = np.zeros(PARAMS, dtype=np.float32)
    total = 0.0
    for start in range(0, n, batch_size):
        batch = slice(start, start + batch_size)
        total += train_batch(
            params,
            adam,
            tigers[batch],
            sheep[batch],
            hand[batch],
            tiger_to_move[batch],
            targets[batch],
            learning_rate,
            grad,
        )
    return total / n


def mean_loss(params: np.ndarray, samples: Samples) -> float:
    """Mean of ``(value - target)^2 / 2`` over the samples (NaN if there are none)."""
    if len(samples) == 0:
        return float("nan")
    s = samples.states
    return batch_loss(
        params,
        np.ascontiguousarray(s[:, 0]),
        np.ascontiguousarray(s[:, 1]),
        np.ascontiguousarray(s[:, 2]),
        np.ascontiguousarray(s[:, 3]),
        samples.targets,
    ) / len(samples)
