"""The network as textbook float64 matrix algebra: the reference for the sparse kernels, for a
network of any shape (:mod:`samuel.nn.shape`). It reads the layers at the offsets the shape gives
(``Network.layers()``, ``head_layers()``) and computes every output densely, and the gradient of
the training losses by plain backpropagation; :func:`central_differences` checks either
numerically. ``net`` is a network's array (its plan, then its parameters), float32 or float64
(finite differences perturb a float64 copy); the shape is read from its plan unless given."""

from __future__ import annotations

import numpy as np

from samuel.nn import network as N
from samuel.nn.shape import OUTCOMES, PLIES, POLICY, VALUE, Network, network_of


def shape_of(net: np.ndarray, shape: Network | None = None) -> Network:
    return shape if shape is not None else network_of(np.asarray(net))


def matrix(net: np.ndarray, layer, input_major: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A layer's ``(W, b)`` in float64, ``W`` unit-major (units x inputs) whatever its order in
    the array (the first shared layer is input-major there)."""
    w, b, _, n_in, n_out = layer
    p = np.asarray(net, dtype=np.float64)
    if input_major:
        return p[w:b].reshape(n_in, n_out).T, p[b : b + n_out]
    return p[w:b].reshape(n_out, n_in), p[b : b + n_out]


def relu(z: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, z)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def shared(net: np.ndarray, x: np.ndarray, shape: Network | None = None) -> list[np.ndarray]:
    """Each shared layer's activations, for the dense input vector ``x``."""
    shape = shape_of(net, shape)
    h = np.asarray(x, dtype=np.float64)
    out = []
    for i, layer in enumerate(shape.layers()):
        w, b = matrix(net, layer, input_major=i == 0)
        h = relu(w @ h + b)
        out.append(h)
    return out


def head_pass(net, kind: int, hidden: list[np.ndarray], shape: Network):
    """The head's own layers' activations and its outputs' pre-activations (all of them)."""
    h = hidden[shape.head(kind).source]
    own = []
    *layers, output = shape.head_layers(kind)
    for layer in layers:
        w, b = matrix(net, layer)
        h = relu(w @ h + b)
        own.append(h)
    w, b = matrix(net, output)
    return own, w @ h + b


def outputs(net: np.ndarray, x: np.ndarray, shape: Network | None = None) -> dict:
    """Every head's output by kind: the value (tanh), the plies (``PLIES_SCALE * softplus``), the
    outcomes' probabilities (sigmoids) and the policy's logits over every action (linear); a
    network without a value head but with an outcome head has the value of its outcomes: the
    first half's chances (wins by 1 ... k points) less the second's (losses)."""
    shape = shape_of(net, shape)
    hidden = shared(net, x, shape)
    found = {}
    for head in shape.heads:
        _, z = head_pass(net, head.kind, hidden, shape)
        if head.kind == VALUE:
            found[VALUE] = float(np.tanh(z[0]))
        elif head.kind == PLIES:
            found[PLIES] = float(N.PLIES_SCALE * np.logaddexp(0.0, z[0]))
        elif head.kind == OUTCOMES:
            found[OUTCOMES] = sigmoid(z)
        else:
            found[POLICY] = z
    if VALUE not in found and OUTCOMES in found:  # valued by its outcomes: the expected points
        half = len(found[OUTCOMES]) // 2
        found[VALUE] = float(found[OUTCOMES][:half].sum() - found[OUTCOMES][half:].sum())
    return found


def value(net: np.ndarray, inputs: np.ndarray) -> float:
    return outputs(net, inputs)[VALUE]


def plies(net: np.ndarray, inputs: np.ndarray) -> float:
    """The plies head's output in plies: PLIES_SCALE * softplus of its output's pre-activation."""
    return outputs(net, inputs)[PLIES]


def first_hidden(net: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """The first shared layer's activations (the moves-left head's input)."""
    return shared(net, inputs)[0]


def layers(net: np.ndarray):
    """A 64-32 value network's ``(w1, b1, w2, b2, w3, b3)`` in float64, as they always were:
    ``w1`` input-major (inputs x 64), ``w2`` unit-major (32 x 64), ``w3`` (32,), ``b3`` a
    number."""
    shape = shape_of(net)
    first, second = shape.layers()[:2]
    w1, b1 = matrix(net, first, input_major=True)
    w2, b2 = matrix(net, second)
    w3, b3 = matrix(net, shape.head_layers(VALUE)[-1])
    return w1.T, b1, w2, b2, w3[0], b3[0]


def huber(error: float) -> float:
    """The plies loss's Huber of an error in units of PLIES_SCALE plies."""
    delta = N.HUBER_PLIES / N.PLIES_SCALE
    return 0.5 * error**2 if abs(error) <= delta else delta * (abs(error) - 0.5 * delta)


def training_losses(
    net, x, target, plies_target=N.NO_PLIES, weight=0.0, outcome_targets=(), shape=None
):
    """``(value loss, unweighted plies loss, outcome loss)``, the losses
    :func:`samuel.nn.network.add_gradient` returns: 0 for a head the network lacks, and for the
    plies without a target (below 0) or a weight."""
    found = outputs(net, x, shape)
    value_loss = plies_loss = outcome_loss = 0.0
    if shape_of(net, shape).has(VALUE):  # a network valued by its outcomes learns them only
        value_loss = 0.5 * (found[VALUE] - target) ** 2
    if PLIES in found and plies_target >= 0 and weight > 0:
        plies_loss = huber((found[PLIES] - plies_target) / N.PLIES_SCALE)
    if OUTCOMES in found:
        p, t = found[OUTCOMES], np.asarray(outcome_targets, dtype=np.float64)
        outcome_loss = float(-np.sum(t * np.log(p) + (1 - t) * np.log(1 - p)))
    return value_loss, plies_loss, outcome_loss


def training_loss(
    net, x, target, plies_target=N.NO_PLIES, weight=0.0, outcome_targets=(), shape=None
):
    """The loss :func:`samuel.nn.network.add_gradient` differentiates: the value's, ``weight``
    times the plies', and the outcomes'."""
    value_loss, plies_loss, outcome_loss = training_losses(
        net, x, target, plies_target, weight, outcome_targets, shape
    )
    return value_loss + weight * plies_loss + outcome_loss


def zero_losses(net, x, legal, policy_target, value_target, plies_target, plies_weight, shape=None):
    """The unweighted ``(policy cross-entropy, value loss, plies loss)`` of Samuel Zero's loss
    (:func:`samuel.nn.zero.zero_add_gradient`): the cross-entropy of the softmax over the legal
    actions' logits against ``policy_target``."""
    logits = outputs(net, x, shape)[POLICY][np.asarray(legal, dtype=np.int64)]
    policy = 0.0
    if len(logits):
        log_p = logits - logits.max() - np.log(np.sum(np.exp(logits - logits.max())))
        policy = -float(np.dot(np.asarray(policy_target, dtype=np.float64), log_p))
    value_loss, plies_loss, _ = training_losses(
        net, x, value_target, plies_target, plies_weight, shape=shape
    )
    return policy, value_loss, plies_loss


def zero_loss(net, x, legal, policy_target, value_target, plies_target, weights, shape=None):
    """Samuel Zero's weighted loss; ``weights`` = (policy, value, plies)."""
    parts = zero_losses(net, x, legal, policy_target, value_target, plies_target, weights[2], shape)
    return float(np.dot(weights, parts))


def loss(net: np.ndarray, inputs: np.ndarray, target: float) -> float:
    return 0.5 * (value(net, inputs) - target) ** 2


def heads_loss(
    net: np.ndarray, inputs: np.ndarray, target: float, plies_target: float, weight: float
) -> float:
    """The value and weighted plies loss (``add_gradient`` of a network with the plies head)."""
    return training_loss(net, inputs, target, plies_target, weight)


def gradient(
    net,
    x,
    target=0.0,
    plies_target=N.NO_PLIES,
    weight=0.0,
    outcome_targets=(),
    policy=None,
    shape: Network | None = None,
) -> np.ndarray:
    """The gradient (float64, as long as ``net``; the plan's part 0) of :func:`training_loss`,
    by backpropagation; with ``policy`` = ``(legal, target, policy weight, value weight, plies
    weight)`` of Samuel Zero's loss instead (:func:`samuel.nn.zero.zero_add_gradient`: the
    weighted cross-entropy of the softmax over the legal actions, the value and plies losses)."""
    shape = shape_of(net, shape)
    x = np.asarray(x, dtype=np.float64)
    hidden = shared(net, x, shape)
    value_weight = 1.0
    if policy is not None:
        legal, policy_target, policy_weight, value_weight, weight = policy
    grad = np.zeros(len(net))
    down = [np.zeros(len(h)) for h in hidden]  # the gradient by each shared layer's output
    for head in shape.heads:
        own, z = head_pass(net, head.kind, hidden, shape)
        dz = np.zeros(len(z))
        if head.kind == VALUE:
            out = np.tanh(z[0])
            dz[0] = value_weight * (out - target) * (1 - out * out)
        elif head.kind == PLIES and plies_target >= 0 and weight > 0:
            scaled = (N.PLIES_SCALE * np.logaddexp(0.0, z[0]) - plies_target) / N.PLIES_SCALE
            delta = N.HUBER_PLIES / N.PLIES_SCALE
            dz[0] = weight * np.clip(scaled, -delta, delta) * sigmoid(z[0])
        elif head.kind == OUTCOMES:
            dz = sigmoid(z) - np.asarray(outcome_targets, dtype=np.float64)
        elif head.kind == POLICY and policy is not None and len(legal):
            logits = z[legal]
            p = np.exp(logits - logits.max())
            p /= p.sum()
            t = np.asarray(policy_target, dtype=np.float64)
            dz[legal] = policy_weight * (p * t.sum() - t)
        # down the head's output and own layers to the shared layer it reads
        inputs = [hidden[head.source], *own]
        head_layers = shape.head_layers(head.kind)
        dy = dz
        for layer, h_in, h_out in zip(
            reversed(head_layers), reversed(inputs), reversed([*own, None]), strict=True
        ):
            if h_out is not None:
                dy = dy * (h_out > 0)
            w, b, _, n_in, n_out = layer
            weights, _ = matrix(net, layer)
            grad[w:b] += np.outer(dy, h_in).ravel()
            grad[b : b + n_out] += dy
            dy = weights.T @ dy
        down[head.source] += dy
    for i in range(len(hidden) - 1, -1, -1):
        dy = down[i] * (hidden[i] > 0)
        w, b, _, n_in, n_out = shape.layers()[i]
        grad[b : b + n_out] += dy
        if i == 0:
            grad[w:b] += np.outer(x, dy).ravel()  # input-major
        else:
            weights, _ = matrix(net, shape.layers()[i])
            grad[w:b] += np.outer(dy, hidden[i - 1]).ravel()
            down[i - 1] += weights.T @ dy
    return grad


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
    net: np.ndarray, inputs: np.ndarray, target: float, indices: np.ndarray, step: float = 1e-6
) -> np.ndarray:
    """Central differences of the value loss for the chosen entries of the array."""
    return central_differences(lambda p: loss(p, inputs, target), net, indices, step)


def finite_difference_heads_gradient(
    net, inputs, target, plies_target, weight, indices, step=1e-6
) -> np.ndarray:
    """Central differences of :func:`heads_loss` for the chosen entries of the array."""
    return central_differences(
        lambda p: heads_loss(p, inputs, target, plies_target, weight), net, indices, step
    )


def spans(shape: Network) -> dict[str, tuple[int, int]]:
    """Where each layer's weights and biases lie in the array of the first network's shape, or
    the one with the plies head, under the names they always had: ``w1``..``b2`` the shared
    layers, ``w3``, ``b3`` the value's output, ``w4``, ``b4`` the plies head's own layer and
    ``w5``, ``b5`` its output."""
    found = {}
    chosen = list(shape.layers()) + shape.head_layers(VALUE)
    if shape.has(PLIES):
        chosen += shape.head_layers(PLIES)
    for n, (w, b, _, _, units) in enumerate(chosen, start=1):
        found[f"w{n}"] = (w, b)
        found[f"b{n}"] = (b, b + units)
    return found
