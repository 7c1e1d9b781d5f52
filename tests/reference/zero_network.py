"""Samuel Zero's network as textbook float64 algebra: the reference for the kernels of
:mod:`samuel.nn.zero`. Each layer is read at the offsets its shape gives
(:func:`samuel.nn.zero.zero_shape`), from the network's array (its plan, then its parameters):
the trunk, the value and the plies-left head as the value network's, the policy a matrix product
on h2 and a softmax."""

from __future__ import annotations

import numpy as np

from samuel.nn import network as N
from samuel.nn import zero as Z
from samuel.nn.shape import PLIES, POLICY, VALUE


def _dense(p: np.ndarray, layer, x: np.ndarray) -> np.ndarray:
    """A unit-major layer's pre-activations ``W x + b``."""
    w, b, _, n_in, n = layer
    return p[w:b].reshape(n, n_in) @ x + p[b : b + n]


def outputs(net: np.ndarray, inputs: np.ndarray, actions: int, legal: np.ndarray):
    """``(value, plies, logits of the legal actions)`` of a dense input vector, for the Zero
    network array ``net``."""
    shape = Z.zero_shape(len(inputs), actions)
    p = net.astype(np.float64)
    (w1, b1, _, n_in, n1), second = shape.layers()
    first = p[w1:b1].reshape(n_in, n1)  # input-major
    h1 = np.maximum(0.0, inputs.astype(np.float64) @ first + p[b1 : b1 + n1])
    h2 = np.maximum(0.0, _dense(p, second, h1))
    (value_layer,) = shape.head_layers(VALUE)
    value = float(np.tanh(_dense(p, value_layer, h2)[0]))
    own, out = shape.head_layers(PLIES)  # its own layer on h1
    z = _dense(p, out, np.maximum(0.0, _dense(p, own, h1)))[0]
    plies = float(N.PLIES_SCALE * np.logaddexp(0.0, z))
    (policy,) = shape.head_layers(POLICY)
    wp, bp, _, width, _ = policy
    weights = p[wp:bp].reshape(actions, width)  # action-major
    logits = weights[legal] @ h2 + p[bp : bp + actions][legal]
    return value, plies, logits


def priors(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - np.max(logits))
    return e / e.sum()


def loss(net, inputs, actions, legal, policy_target, value_target, plies_target, weights):
    """The weighted loss :func:`samuel.nn.zero.zero_add_gradient` differentiates, and its three
    unweighted parts."""
    value, plies, logits = outputs(net, inputs, actions, legal)
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
