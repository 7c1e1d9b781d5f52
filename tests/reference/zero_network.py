"""Samuel Zero's network as textbook float64 algebra: the reference for the kernels of
:mod:`samuel.nn.zero`. The trunk (the value network with the moves-left head) is
:mod:`tests.reference.dense_network`'s; the policy is a matrix product on h2 and a softmax."""

from __future__ import annotations

import numpy as np

from samuel.nn import network as N
from samuel.nn import zero as Z
from tests.reference import dense_network as dense


def outputs(params: np.ndarray, inputs: np.ndarray, actions: int, legal: np.ndarray):
    """``(value, plies, logits of the legal actions)`` of a dense input vector."""
    shape = Z.zero_layout(len(inputs), actions)
    trunk = params[: shape.wp]
    _, _, w2, b2, _, _ = dense.layers(trunk)
    h2 = np.maximum(0.0, w2 @ dense.first_hidden(trunk, inputs) + b2)
    p = params.astype(np.float64)
    wp = p[shape.wp : shape.bp].reshape(actions, N.HIDDEN2)  # action-major
    logits = wp[legal] @ h2 + p[shape.bp : shape.params][legal]
    return dense.value(trunk, inputs), dense.plies(trunk, inputs), logits


def priors(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - np.max(logits))
    return e / e.sum()


def loss(params, inputs, actions, legal, policy_target, value_target, plies_target, weights):
    """The weighted loss :func:`samuel.nn.zero.zero_add_gradient` differentiates, and its three
    unweighted parts."""
    value, plies, logits = outputs(params, inputs, actions, legal)
    log_p = logits - np.max(logits) - np.log(np.sum(np.exp(logits - np.max(logits))))
    policy = -float(np.dot(policy_target, log_p)) if len(legal) else 0.0
    value_loss = 0.5 * (value - value_target) ** 2
    plies_loss = 0.0
    if plies_target >= 0:
        error = (plies - plies_target) / N.PLIES_SCALE
        delta = N.HUBER_PLIES / N.PLIES_SCALE
        plies_loss = 0.5 * error**2 if abs(error) <= delta else delta * (abs(error) - 0.5 * delta)
    total = weights.policy * policy + weights.value * value_loss + weights.plies * plies_loss
    return total, (policy, value_loss, plies_loss)
