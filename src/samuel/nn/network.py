"""The network's compiled passes, written by hand, for every shape and every game: one forward
pass, the heads read from it, and one backward pass.

A network is one float32 array, its plan and then its parameters (:mod:`samuel.nn.shape` says
how they are laid out): every kernel here reads its layers' sizes and offsets from the plan, so a
64-32 network and a 256-128 one, with or without heads of their own trunks, run through the
same code. The network knows nothing of any game: a game's encoder kernel
(:func:`samuel.games.kernels.network_inputs`) lists the *set inputs* of a position, their indices
in ``active[:count]`` and their values in ``values[:count]`` (1 for most; Tigers & Sheep's hand is
a fraction), and the game says how many inputs its network has and whose point of view its value
is in. See ``docs/training.md``.

**Scratch.** A forward pass leaves every hidden layer's activations and every head's outputs in
``scratch`` at the offsets of the plan (``Network.forward_scratch`` entries); a backward pass
keeps each one's gradient the same distance further on (``Network.training_scratch`` in all).
The caller of :func:`backward` puts the gradient of each head's output (through its activation)
where that output's value is, plus ``forward_scratch``; a policy's, which is sparse, it passes as
arrays.

The kernels check nothing: the plan is checked once, where an array comes from outside
(:func:`samuel.nn.shape.network_of`), and the set inputs by the game's encoder.
"""

from __future__ import annotations

import numpy as np

from samuel.jit import inline_kernel, kernel

from .shape import (
    ACT,
    FORWARD_SCRATCH,
    H_ACT,
    H_B,
    H_LAYERS,
    H_OUT_ACT,
    H_OUT_B,
    H_OUT_W,
    H_OUTPUTS,
    H_PRESENT,
    H_SOURCE,
    H_W,
    H_WIDTH,
    HEAD_BASE,
    HEAD_COUNT,
    HEAD_SLOTS,
    LAYERS,
    ORDER,
    OUTCOMES,
    PLIES,
    POLICY,
    VALUE,
    WIDTH,
    B,
    W,
)

# The inner loops index whole rows sliced out first (``row = net[start : start + n]``, then
# ``row[j]``), never ``net[start + j]``: numba checks an index that depends on an argument for
# wraparound (it could be negative), and that check in the innermost loop can stop LLVM from
# vectorising it. The kernels are inlined into their callers: a call passes every array as a
# structure of seven fields, and the calls cost 15% of a forward pass.

# The plies head's output is PLIES_SCALE * softplus(z) plies: a unit of 20 plies keeps its
# pre-activation near the value's scale (targets run from 1 to a few hundred).
PLIES_SCALE = 20.0
# The Huber loss's quadratic zone, in plies (lc0's "huber10"): errors beyond it count linearly,
# so a few very long games do not dominate the gradient.
HUBER_PLIES = 10.0
NO_PLIES = -1.0  # a plies target that says "none": the sample trains the value only


@inline_kernel
def slot(net: np.ndarray, index: int) -> int:
    """The plan's number at ``index``."""
    return int(net[index])


@inline_kernel
def head_at(kind: int) -> int:
    """Where the head's block of the plan starts."""
    return HEAD_BASE + kind * HEAD_SLOTS


@inline_kernel
def has_head(net: np.ndarray, kind: int) -> bool:
    return net[head_at(kind) + H_PRESENT] != 0


@inline_kernel
def dense_relu(net, w, b, n_in, n_out, x, y):
    """``y = ReLU(W x + b)`` for the unit-major layer at ``w`` (weights) and ``b`` (biases)."""
    bias = net[b : b + n_out]
    for k in range(n_out):
        total = bias[k]
        row = net[w + k * n_in : w + (k + 1) * n_in]
        for j in range(n_in):
            total += row[j] * x[j]
        if total < 0:
            total = np.float32(0.0)
        y[k] = total


@inline_kernel
def _sparse_layer(net, w1, b1, n1, active, values, count, h1) -> None:
    """Layer 1: its biases plus each set input's weight row times its value, then ReLU."""
    bias = net[b1 : b1 + n1]
    for j in range(n1):
        h1[j] = bias[j]
    for n in range(count):
        start = w1 + active[n] * n1
        row = net[start : start + n1]
        value = values[n]
        if value == 1.0:  # most inputs: a plain add (the same number, one operation less)
            for j in range(n1):
                h1[j] += row[j]
        else:
            for j in range(n1):
                h1[j] += value * row[j]
    for j in range(n1):
        if h1[j] < 0:
            h1[j] = 0


@inline_kernel
def trunk(net, active, values, count, scratch) -> None:
    """The shared layers' activations, into scratch. Layer 1 is sparse: it starts at its biases
    and adds each set input's weight row times its value."""
    n1 = slot(net, WIDTH)
    h1 = scratch[slot(net, ACT) : slot(net, ACT) + n1]
    _sparse_layer(net, slot(net, W), slot(net, B), n1, active, values, count, h1)
    for i in range(1, slot(net, LAYERS)):
        n_in = slot(net, WIDTH + i - 1)
        n_out = slot(net, WIDTH + i)
        x = scratch[slot(net, ACT + i - 1) : slot(net, ACT + i - 1) + n_in]
        y = scratch[slot(net, ACT + i) : slot(net, ACT + i) + n_out]
        dense_relu(net, slot(net, W + i), slot(net, B + i), n_in, n_out, x, y)


@inline_kernel
def head_input(net, kind, scratch):
    """Compute the head's own layers (if it has any) from the shared layer it reads; return the
    scratch offset and width of what its outputs read."""
    at = head_at(kind)
    source = slot(net, at + H_SOURCE)
    offset = slot(net, ACT + source)
    width = slot(net, WIDTH + source)
    for i in range(slot(net, at + H_LAYERS)):
        n_out = slot(net, at + H_WIDTH + i)
        out = slot(net, at + H_ACT + i)
        x = scratch[offset : offset + width]
        y = scratch[out : out + n_out]
        dense_relu(net, slot(net, at + H_W + i), slot(net, at + H_B + i), width, n_out, x, y)
        offset = out
        width = n_out
    return offset, width


@inline_kernel
def head_output(net, kind, output, offset, width, scratch):
    """The pre-activation of the head's output ``output``, from what it reads at ``offset``."""
    at = head_at(kind)
    start = slot(net, at + H_OUT_W) + output * width
    row = net[start : start + width]
    x = scratch[offset : offset + width]
    total = net[slot(net, at + H_OUT_B) + output]
    for k in range(width):
        total += row[k] * x[k]
    return total


@inline_kernel
def value_output(net, scratch) -> float:
    """The value head's output (tanh), from the shared layers in ``scratch``; kept in scratch."""
    offset, width = head_input(net, VALUE, scratch)
    out = np.tanh(head_output(net, VALUE, 0, offset, width, scratch))
    scratch[slot(net, head_at(VALUE) + H_OUT_ACT)] = out
    return out


@inline_kernel
def forward(net, active, values, count, scratch) -> float:
    """The network's value of the position whose set inputs are ``active[:count]`` (with
    ``values[:count]``), in the view the game's encoding gives: its value head's, or for a
    network valued by its outcome head (one without a value head), the expected points
    (:func:`expected_points`); 0 for a network with neither. Leaves the activations in
    ``scratch`` for the other heads."""
    trunk(net, active, values, count, scratch)
    if has_head(net, VALUE):
        return value_output(net, scratch)
    if has_head(net, OUTCOMES):
        return expected_points(net, scratch)
    return 0.0


@inline_kernel
def softplus(z: float) -> float:
    """log(1 + e^z), without overflow for large z."""
    if z > 0:
        return z + np.log1p(np.exp(-z))
    return np.log1p(np.exp(z))


@inline_kernel
def plies_pre(net, scratch) -> float:
    """The plies head's pre-activation, for the position whose :func:`forward` pass just left its
    activations in ``scratch`` (the head's own layer goes to its own place there)."""
    offset, width = head_input(net, PLIES, scratch)
    return head_output(net, PLIES, 0, offset, width, scratch)


@inline_kernel
def plies_left(net, scratch) -> float:
    """The plies head's output, in plies (not negative), after :func:`forward`. Does not check
    that the network has the head."""
    return PLIES_SCALE * softplus(plies_pre(net, scratch))


@inline_kernel
def outcomes(net, scratch) -> int:
    """The outcome head's probabilities (sigmoids), after :func:`forward`, into scratch; returns
    where they start (``Network.head_layers`` gives it too). Does not check the head is there."""
    at = head_at(OUTCOMES)
    offset, width = head_input(net, OUTCOMES, scratch)
    out = slot(net, at + H_OUT_ACT)
    for o in range(slot(net, at + H_OUTPUTS)):
        z = head_output(net, OUTCOMES, o, offset, width, scratch)
        scratch[out + o] = 1.0 / (1.0 + np.exp(-z))
    return out


@inline_kernel
def expected_points(net, scratch) -> float:
    """The points a position is worth by the outcome head, after :func:`forward`. Without a value
    head, the head's 2k outputs are cumulative: the chances of winning by at least 1, 2 ... k
    points, then of losing by at least 1 ... k (backgammon's six: a win, a gammon or more, a
    backgammon, then the same lost); so the expected points are the first half's sum less the
    second's (a draw scores 0)."""
    at = head_at(OUTCOMES)
    out = outcomes(net, scratch)
    half = slot(net, at + H_OUTPUTS) // 2
    points = 0.0
    for i in range(half):
        points += scratch[out + i] - scratch[out + half + i]
    return points


@inline_kernel
def policy_logits(net, legal, legal_count, logits, scratch) -> None:
    """The policy's logits of the actions ``legal[:legal_count]`` into ``logits``, after
    :func:`forward` (unchecked: the caller checks the actions against the policy's)."""
    offset, width = head_input(net, POLICY, scratch)
    for i in range(legal_count):
        logits[i] = head_output(net, POLICY, legal[i], offset, width, scratch)


@inline_kernel
def _backward_layer(net, grad, w, b, n_in, n_out, x, dx, dy) -> None:
    """Backpropagate the gradient ``dy`` (by the layer's outputs, through their ReLU) into the
    unit-major layer's weights and biases and add its part to ``dx``."""
    for k in range(n_out):
        g = dy[k]
        if g == 0:
            continue
        grad[b + k] += g
        start = w + k * n_in
        row = net[start : start + n_in]
        grad_row = grad[start : start + n_in]
        for j in range(n_in):
            grad_row[j] += g * x[j]
            dx[j] += g * row[j]


@inline_kernel
def _gate(y, dy) -> None:
    """A ReLU's backward pass: no gradient where the unit was off."""
    for k in range(y.shape[0]):
        if y[k] <= 0:
            dy[k] = 0


@inline_kernel
def _backward_head(net, grad, kind, scratch, legal, policy_grads, legal_count) -> None:
    """Add the head's gradient (its outputs' in scratch, or a policy's in ``policy_grads`` by
    ``legal``) to its parameters, and its part of the gradient of the shared layer it reads to
    scratch."""
    forward_size = slot(net, FORWARD_SCRATCH)
    at = head_at(kind)
    layers = slot(net, at + H_LAYERS)
    source = slot(net, at + H_SOURCE)
    # what the outputs read: the head's last own layer, or the shared layer
    offset = slot(net, ACT + source)
    width = slot(net, WIDTH + source)
    if layers > 0:
        offset = slot(net, at + H_ACT + layers - 1)
        width = slot(net, at + H_WIDTH + layers - 1)
        for i in range(layers):
            start = forward_size + slot(net, at + H_ACT + i)
            scratch[start : start + slot(net, at + H_WIDTH + i)] = 0
    x = scratch[offset : offset + width]
    dx = scratch[forward_size + offset : forward_size + offset + width]
    w = slot(net, at + H_OUT_W)
    b = slot(net, at + H_OUT_B)
    outputs = legal_count if kind == POLICY else slot(net, at + H_OUTPUTS)
    out = forward_size + slot(net, at + H_OUT_ACT)
    for i in range(outputs):
        o = legal[i] if kind == POLICY else i
        g = policy_grads[i] if kind == POLICY else scratch[out + o]
        if g == 0:
            continue
        grad[b + o] += g
        start = w + o * width
        row = net[start : start + width]
        grad_row = grad[start : start + width]
        for k in range(width):
            grad_row[k] += g * x[k]
            dx[k] += g * row[k]
    # down the head's own layers to the shared one
    for i in range(layers - 1, -1, -1):
        n_out = slot(net, at + H_WIDTH + i)
        here = slot(net, at + H_ACT + i)
        if i > 0:
            below = slot(net, at + H_ACT + i - 1)
            n_in = slot(net, at + H_WIDTH + i - 1)
        else:
            below = slot(net, ACT + source)
            n_in = slot(net, WIDTH + source)
        y = scratch[here : here + n_out]
        dy = scratch[forward_size + here : forward_size + here + n_out]
        _gate(y, dy)
        x = scratch[below : below + n_in]
        dx = scratch[forward_size + below : forward_size + below + n_in]
        w = slot(net, at + H_W + i)
        _backward_layer(net, grad, w, slot(net, at + H_B + i), n_in, n_out, x, dx, dy)


@inline_kernel
def backward(net, grad, active, values, count, scratch, legal, policy_grads, legal_count) -> None:
    """Add to ``grad`` (as long as ``net``; the plan's entries get none) the gradient of a loss
    whose gradient by each head's outputs the caller left in scratch (a policy's in
    ``policy_grads`` by the actions ``legal[:legal_count]``), after :func:`forward` and the
    heads' passes left their activations there. Each shared layer, from the top, gets its heads'
    parts in the array's order and then passes its gradient down."""
    forward_size = slot(net, FORWARD_SCRATCH)
    layers = slot(net, LAYERS)
    for i in range(layers):
        start = forward_size + slot(net, ACT + i)
        scratch[start : start + slot(net, WIDTH + i)] = 0
    for i in range(layers - 1, -1, -1):
        for h in range(slot(net, HEAD_COUNT)):
            kind = slot(net, ORDER + h)
            if slot(net, head_at(kind) + H_SOURCE) == i:
                _backward_head(net, grad, kind, scratch, legal, policy_grads, legal_count)
        n_out = slot(net, WIDTH + i)
        here = slot(net, ACT + i)
        y = scratch[here : here + n_out]
        dy = scratch[forward_size + here : forward_size + here + n_out]
        _gate(y, dy)
        if i > 0:
            n_in = slot(net, WIDTH + i - 1)
            below = slot(net, ACT + i - 1)
            x = scratch[below : below + n_in]
            dx = scratch[forward_size + below : forward_size + below + n_in]
            _backward_layer(net, grad, slot(net, W + i), slot(net, B + i), n_in, n_out, x, dx, dy)
        else:
            _backward_sparse(grad, slot(net, W), slot(net, B), n_out, active, values, count, dy)


@inline_kernel
def _backward_sparse(grad, w1, b1, n1, active, values, count, dy) -> None:
    """Layer 1's backward pass: its biases, and only the rows of the set inputs."""
    grad_bias = grad[b1 : b1 + n1]
    for j in range(n1):
        grad_bias[j] += dy[j]
    for n in range(count):
        start = w1 + active[n] * n1
        grad_row = grad[start : start + n1]
        value = values[n]
        if value == 1.0:
            for j in range(n1):
                grad_row[j] += dy[j]
        else:
            for j in range(n1):
                grad_row[j] += value * dy[j]


@inline_kernel
def huber(error: float, delta: float) -> float:
    """The Huber loss of ``error``: quadratic within ``delta``, linear beyond."""
    size = abs(error)
    if size <= delta:
        return 0.5 * error * error
    return delta * (size - 0.5 * delta)


@inline_kernel
def value_loss(net, target: float, weight: float, scratch) -> float:
    """``(value - target)^2 / 2`` for the value :func:`forward` left in scratch, and ``weight``
    times its gradient (through tanh) where :func:`backward` reads it."""
    at = head_at(VALUE)
    out = scratch[slot(net, at + H_OUT_ACT)]
    error = out - target
    where = slot(net, FORWARD_SCRATCH) + slot(net, at + H_OUT_ACT)
    scratch[where] = np.float32(weight * error * (1.0 - out * out))
    return 0.5 * error * error


@inline_kernel
def plies_loss(net, plies: float, weight: float, scratch) -> float:
    """The plies head's part of a training step, after :func:`forward`: the unweighted
    ``huber((plies_left - plies) / PLIES_SCALE)``, and ``weight`` times its derivative by the
    head's pre-activation where :func:`backward` reads it. A ``plies`` below 0 (``NO_PLIES``) or a
    ``weight`` of 0 gives 0 and no gradient."""
    where = slot(net, FORWARD_SCRATCH) + slot(net, head_at(PLIES) + H_OUT_ACT)
    if not (plies >= 0.0 and weight > 0.0):
        scratch[where] = 0
        return 0.0
    z = plies_pre(net, scratch)
    scaled = (PLIES_SCALE * softplus(z) - plies) / PLIES_SCALE
    delta = HUBER_PLIES / PLIES_SCALE
    slope = max(-delta, min(delta, scaled))  # the Huber loss's derivative
    scratch[where] = np.float32(weight * slope / (1.0 + np.exp(-z)))  # softplus'
    return huber(scaled, delta)


@inline_kernel
def outcomes_loss(net, targets, weight: float, scratch) -> float:
    """The outcome head's cross-entropy ``-sum t log p + (1 - t) log(1 - p)`` against
    ``targets`` (one per output, 0..1), after :func:`forward`, and ``weight`` times its gradient
    by the outputs' pre-activations (``p - t``) where :func:`backward` reads it."""
    at = head_at(OUTCOMES)
    out = outcomes(net, scratch)
    forward_size = slot(net, FORWARD_SCRATCH)
    loss = 0.0
    for o in range(slot(net, at + H_OUTPUTS)):
        p = min(max(np.float64(scratch[out + o]), 1e-7), 1.0 - 1e-7)
        t = targets[o]
        loss -= t * np.log(p) + (1.0 - t) * np.log(1.0 - p)
        scratch[forward_size + out + o] = np.float32(weight * (scratch[out + o] - t))
    return loss


@kernel
def add_gradient(
    net, grad, active, values, count, target, plies, weight, outcome_targets, scratch, no_policy
):
    """Add to ``grad`` the gradient of one sample's loss, for a network of any heads but a
    policy: ``(value - target)^2 / 2``, plus ``weight * huber((plies_left - plies) /
    PLIES_SCALE)`` with a plies head (``NO_PLIES``: none), plus the outcome head's cross-entropy
    against ``outcome_targets``. Returns ``(value loss, unweighted plies loss, outcome loss)``;
    the plies loss is in units of PLIES_SCALE plies, as the gradient sees it. ``no_policy`` is an
    empty int64 array (the policy's place in :func:`backward`)."""
    forward(net, active, values, count, scratch)
    loss_value = value_loss(net, target, 1.0, scratch) if has_head(net, VALUE) else 0.0
    loss_plies = plies_loss(net, plies, weight, scratch) if has_head(net, PLIES) else 0.0
    loss_outcomes = 0.0
    if has_head(net, OUTCOMES):
        loss_outcomes = outcomes_loss(net, outcome_targets, 1.0, scratch)
    backward(net, grad, active, values, count, scratch, no_policy, values, 0)
    return loss_value, loss_plies, loss_outcomes


def dense_inputs(inputs: int, active: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """The set inputs as a dense vector of ``inputs`` numbers (for tests and references; the
    kernels stay sparse)."""
    x = np.zeros(inputs, dtype=np.float32)
    x[np.asarray(active[:count])] = values[:count]
    return x
