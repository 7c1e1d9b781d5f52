"""The network: ``inputs -> 64 ReLU -> 32 ReLU -> 1 tanh``, written by hand, for any game, with
an optional second head, *plies left* (``64 -> 32 ReLU -> 1 softplus``, scaled to plies; seed
003's moves-left head, ``docs/moves-left.md``), that shares the first hidden layer.

The network knows nothing of any game: a game's encoder kernel
(:func:`samuel.games.kernels.network_inputs`) lists the *set inputs* of a position, their indices
in ``active[:count]`` and their values in ``values[:count]`` (1 for most; Tigers & Sheep's hand is
a fraction), and the game says how many inputs its network has (Tigers & Sheep 58, draughts 128)
and whose point of view its value is in. The output is in ``-1..1``. See ``docs/training.md``.

All parameters live in one flat float32 array at offsets that depend only on the input count
(:func:`layout`); the moves-left head's ``W4`` (64 x 32), ``B4`` (32), ``W5`` (32) and ``B5`` (1)
come after everything else, so a network with the head starts with a whole value-only network and
:func:`forward` reads either; so the optimiser, the gradient and the file format treat them as one
list of numbers. ``W1`` is input-major (input ``i``'s 64 weights are contiguous) so that the
sparse forward pass can add whole rows; ``W2`` and ``W4`` are unit-major (unit ``k``'s 64 incoming
weights are contiguous).

Samuel Zero's network (:mod:`samuel.nn.zero`) is this network with the moves-left head followed
by a policy head: it reads it with :func:`forward` and :func:`plies_left`, and trains it with the
backward pieces here (:func:`backward_layer2`, :func:`moves_left_loss`,
:func:`backward_moves_left`, :func:`backward_layer1`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from samuel.jit import kernel

HIDDEN1 = 64
HIDDEN2 = 32
# The parameters after W1: B1, W2, B2, W3, B3.
TAIL = HIDDEN1 + HIDDEN1 * HIDDEN2 + HIDDEN2 + HIDDEN2 + 1

# The moves-left head, after B3: its own hidden layer on h1 (W4, B4), then W5 and B5. It reads h1,
# not h2: a linear head on the value's h2 learned distances poorly once the value layers were
# frozen (rank correlation 0.27 against 0.61 for a small MLP on h1).
HEAD_HIDDEN = 32
MOVES_LEFT_PARAMS = HIDDEN1 * HEAD_HIDDEN + HEAD_HIDDEN + HEAD_HIDDEN + 1
# The head's output is PLIES_SCALE * softplus(W5 . ReLU(W4 h1 + B4) + B5) plies: a unit of 20
# plies keeps its pre-activation near the value's scale (targets run from 1 to a few hundred).
PLIES_SCALE = 20.0
# The Huber loss's quadratic zone, in plies (lc0's "huber10"): errors beyond it count linearly,
# so a few very long games do not dominate the gradient.
HUBER_PLIES = 10.0
NO_PLIES = -1.0  # a plies target that says "none": the sample trains the value only

# Scratch space for one forward/backward pass: h1 (64), h2 (32), their gradients, and the
# moves-left head's hidden layer (its gradient's training only). The forward pass and
# :func:`plies_left` use only the first ``FORWARD_SCRATCH`` entries (the evaluators keep their
# own numbers after them).
SCRATCH = 2 * (HIDDEN1 + HIDDEN2) + HEAD_HIDDEN
FORWARD_SCRATCH = HIDDEN1 + HIDDEN2
H1, H2, D1, D2 = 0, HIDDEN1, HIDDEN1 + HIDDEN2, 2 * HIDDEN1 + HIDDEN2
HM = 2 * (HIDDEN1 + HIDDEN2)

# He initialisation's fan-in for layer 1: the inputs set at once in a typical position (about 20
# in both games: 4 tigers, up to 20 sheep and a few features of 58 inputs; up to 24 pieces of
# 128), not all.
HE_FAN_IN_LAYER1 = 20


@dataclass(frozen=True)
class Layout:
    """Where each layer's parameters start in the flat array of a network of ``inputs`` inputs
    (``params`` is their number)."""

    inputs: int
    w1: int
    b1: int
    w2: int
    b2: int
    w3: int
    b3: int
    w4: int  # the moves-left head's hidden layer, -1 without the head
    b4: int
    w5: int  # the moves-left head's output, -1 without the head
    b5: int
    params: int

    @property
    def moves_left(self) -> bool:
        return self.w4 >= 0


def layout(inputs: int, moves_left: bool = False) -> Layout:
    """The offsets of a network of ``inputs`` inputs (with the moves-left head or not).

    >>> layout(52).params, layout(128).params, layout(52, moves_left=True).params
    (5505, 10369, 7618)
    """
    b1 = inputs * HIDDEN1
    w2 = b1 + HIDDEN1
    b2 = w2 + HIDDEN1 * HIDDEN2
    w3 = b2 + HIDDEN2
    b3 = w3 + HIDDEN2
    if moves_left:
        w4 = b3 + 1
        b4 = w4 + HIDDEN1 * HEAD_HIDDEN
        w5 = b4 + HEAD_HIDDEN
        b5 = w5 + HEAD_HIDDEN
        return Layout(inputs, 0, b1, w2, b2, w3, b3, w4, b4, w5, b5, b5 + 1)
    return Layout(inputs, 0, b1, w2, b2, w3, b3, -1, -1, -1, -1, b3 + 1)


def parameter_count(inputs: int, moves_left: bool = False) -> int:
    """How many parameters a network of ``inputs`` inputs has (with the moves-left head or not)."""
    return inputs * HIDDEN1 + TAIL + (MOVES_LEFT_PARAMS if moves_left else 0)


def network_shape(params: int) -> tuple[int, bool]:
    """The input count of a network of ``params`` parameters and whether it has the moves-left
    head; ``(-1, False)`` if no network has that many. (The two forms never share a count:
    the head's 2113 parameters are not a multiple of a layer-1 row's 64.)"""
    for moves_left in (False, True):
        inputs, rest = divmod(params - TAIL - (MOVES_LEFT_PARAMS if moves_left else 0), HIDDEN1)
        if rest == 0 and inputs > 0:
            return inputs, moves_left
    return -1, False


def input_count(params: int) -> int:
    """The inputs of a network of ``params`` parameters, with or without the moves-left head;
    -1 if no input count gives that many."""
    return network_shape(params)[0]


def has_moves_left(params: np.ndarray) -> bool:
    """Whether the flat parameter array holds the moves-left head."""
    return network_shape(len(params))[1]


# The kernels index slices (``params[start:start + HIDDEN1]``, a whole layer) by loop counters,
# never ``params[row + j]`` with a ``row`` that depends on an argument: numba checks such an
# index for wraparound (a negative ``row`` could cross zero), and the check stops LLVM from
# vectorising the loop (15% slower searches); an index made of loop counters needs none.


@kernel
def forward(
    params: np.ndarray,
    inputs: int,
    active: np.ndarray,
    values: np.ndarray,
    count: int,
    scratch: np.ndarray,
) -> float:
    """The network's value of the position whose set inputs are ``active[:count]`` (with
    ``values[:count]``), in the view the game's encoding gives; leaves h1 and h2 in ``scratch``.

    Sparse: layer 1 starts at its biases and adds each set input's weight row times its value.
    Does not check that the indices are below ``inputs`` nor that ``params`` has
    ``parameter_count(inputs)`` entries.
    """
    b1 = inputs * HIDDEN1
    w2 = b1 + HIDDEN1
    b2 = w2 + HIDDEN1 * HIDDEN2
    w3 = b2 + HIDDEN2
    b3 = w3 + HIDDEN2
    h1 = scratch[H1 : H1 + HIDDEN1]
    h2 = scratch[H2 : H2 + HIDDEN2]
    bias = params[b1 : b1 + HIDDEN1]
    for j in range(HIDDEN1):
        h1[j] = bias[j]
    for n in range(count):
        start = active[n] * HIDDEN1
        row = params[start : start + HIDDEN1]
        value = values[n]
        if value == 1.0:  # most inputs: a plain add (the same number, one operation less)
            for j in range(HIDDEN1):
                h1[j] += row[j]
        else:
            for j in range(HIDDEN1):
                h1[j] += value * row[j]
    for j in range(HIDDEN1):
        if h1[j] < 0:
            h1[j] = 0
    layer2 = params[w2 : w2 + HIDDEN1 * HIDDEN2]
    bias2 = params[b2 : b2 + HIDDEN2]
    layer3 = params[w3 : w3 + HIDDEN2]
    out = params[b3]
    for k in range(HIDDEN2):
        total = bias2[k]
        row = k * HIDDEN1
        for j in range(HIDDEN1):
            total += layer2[row + j] * h1[j]
        if total < 0:
            total = np.float32(0.0)
        h2[k] = total
        out += layer3[k] * total
    return np.tanh(out)


@kernel
def backward_layer2(params: np.ndarray, grad: np.ndarray, inputs: int, scratch: np.ndarray) -> None:
    """Backpropagate from the second hidden layer, whose gradient (through its ReLU) the caller
    left in ``scratch``'s ``d2``, into layer 2, leaving h1's gradient before h1's ReLU in ``d1``
    (where the moves-left head adds its part)."""
    b1 = inputs * HIDDEN1
    w2 = b1 + HIDDEN1
    b2 = w2 + HIDDEN1 * HIDDEN2
    h1 = scratch[H1 : H1 + HIDDEN1]
    d1 = scratch[D1 : D1 + HIDDEN1]
    d2 = scratch[D2 : D2 + HIDDEN2]
    layer2 = params[w2 : w2 + HIDDEN1 * HIDDEN2]
    grad2 = grad[w2 : w2 + HIDDEN1 * HIDDEN2]
    for j in range(HIDDEN1):
        d1[j] = 0
    for k in range(HIDDEN2):
        g = d2[k]
        if g == 0:
            continue
        grad[b2 + k] += g
        row = k * HIDDEN1
        for j in range(HIDDEN1):
            grad2[row + j] += g * h1[j]
            d1[j] += g * layer2[row + j]


@kernel
def backward_layer1(
    grad: np.ndarray,
    inputs: int,
    active: np.ndarray,
    values: np.ndarray,
    count: int,
    scratch: np.ndarray,
) -> None:
    """Backpropagate h1's gradient in ``scratch``'s ``d1`` through h1's ReLU into layer 1 (only
    the rows of set inputs)."""
    b1 = inputs * HIDDEN1
    h1 = scratch[H1 : H1 + HIDDEN1]
    d1 = scratch[D1 : D1 + HIDDEN1]
    grad_bias = grad[b1 : b1 + HIDDEN1]
    for j in range(HIDDEN1):
        if h1[j] <= 0:
            d1[j] = 0
        grad_bias[j] += d1[j]
    for n in range(count):
        start = active[n] * HIDDEN1
        grad_row = grad[start : start + HIDDEN1]
        value = values[n]
        if value == 1.0:
            for j in range(HIDDEN1):
                grad_row[j] += d1[j]
        else:
            for j in range(HIDDEN1):
                grad_row[j] += value * d1[j]


@kernel
def backward_output(
    params: np.ndarray, grad: np.ndarray, inputs: int, d_out: float, scratch: np.ndarray
) -> None:
    """Add the value output's gradient (``d_out``, already through tanh) to W3 and B3, leave the
    second hidden layer's gradient (through its ReLU) in ``scratch``'s ``d2``, and carry it on
    into layer 2 and h1's gradient (:func:`backward_layer2`): the value's part of every
    backward pass."""
    w3 = inputs * HIDDEN1 + HIDDEN1 + HIDDEN1 * HIDDEN2 + HIDDEN2
    b3 = w3 + HIDDEN2
    h2 = scratch[H2 : H2 + HIDDEN2]
    d2 = scratch[D2 : D2 + HIDDEN2]
    grad[b3] += d_out
    for k in range(HIDDEN2):
        grad[w3 + k] += d_out * h2[k]
        d2[k] = d_out * params[w3 + k] if h2[k] > 0 else np.float32(0.0)
    backward_layer2(params, grad, inputs, scratch)


@kernel
def add_gradient(
    params: np.ndarray,
    grad: np.ndarray,
    inputs: int,
    active: np.ndarray,
    values: np.ndarray,
    count: int,
    target: float,
    scratch: np.ndarray,
) -> float:
    """Add the gradient of ``(out - target)^2 / 2`` for one sample to ``grad``; return the loss.
    ``target`` is in the network's view; the set inputs are as :func:`forward` takes them."""
    out = forward(params, inputs, active, values, count, scratch)
    error = out - target
    d_out = np.float32(error * (1.0 - out * out))  # through tanh
    backward_output(params, grad, inputs, d_out, scratch)
    backward_layer1(grad, inputs, active, values, count, scratch)
    return 0.5 * error * error


@kernel
def softplus(z: float) -> float:
    """log(1 + e^z), without overflow for large z."""
    if z > 0:
        return z + np.log1p(np.exp(-z))
    return np.log1p(np.exp(z))


@kernel
def plies_left(params: np.ndarray, inputs: int, scratch: np.ndarray) -> float:
    """The moves-left head's output, in plies (not negative), for the position whose
    :func:`forward` pass just left its activations in ``scratch`` (only h1 is read, and nothing
    is written: the evaluators keep their own numbers after the forward pass's). Does not check
    that ``params`` has the head."""
    w4 = inputs * HIDDEN1 + TAIL
    b4 = w4 + HIDDEN1 * HEAD_HIDDEN
    w5 = b4 + HEAD_HIDDEN
    layer4 = params[w4 : w4 + HIDDEN1 * HEAD_HIDDEN]
    bias4 = params[b4 : b4 + HEAD_HIDDEN]
    layer5 = params[w5 : w5 + HEAD_HIDDEN]
    h1 = scratch[H1 : H1 + HIDDEN1]
    z = params[w5 + HEAD_HIDDEN]
    for k in range(HEAD_HIDDEN):
        total = bias4[k]
        row = k * HIDDEN1
        for j in range(HIDDEN1):
            total += layer4[row + j] * h1[j]
        if total > 0:
            z += layer5[k] * total
    return PLIES_SCALE * softplus(z)


@kernel
def huber(error: float, delta: float) -> float:
    """The Huber loss of ``error``: quadratic within ``delta``, linear beyond."""
    size = abs(error)
    if size <= delta:
        return 0.5 * error * error
    return delta * (size - 0.5 * delta)


@kernel
def moves_left_loss(params: np.ndarray, inputs: int, plies: float, weight: float, scratch):
    """The moves-left head's part of a training step, after :func:`forward` left h1 in
    ``scratch``: ``(huber((plies_left - plies) / PLIES_SCALE), d_head)``, the unweighted loss and
    ``weight`` times its derivative by the head's pre-activation; leaves the head's hidden layer
    in ``scratch``'s ``hm`` for :func:`backward_moves_left`. A ``plies`` below 0 (``NO_PLIES``)
    or a ``weight`` of 0 gives ``(0, 0)`` and computes nothing."""
    if not (plies >= 0.0 and weight > 0.0):
        return 0.0, np.float32(0.0)
    w4 = inputs * HIDDEN1 + TAIL
    b4 = w4 + HIDDEN1 * HEAD_HIDDEN
    w5 = b4 + HEAD_HIDDEN
    b5 = w5 + HEAD_HIDDEN
    h1 = scratch[H1 : H1 + HIDDEN1]
    hm = scratch[HM : HM + HEAD_HIDDEN]
    layer4 = params[w4 : w4 + HIDDEN1 * HEAD_HIDDEN]
    z = params[b5]
    for k in range(HEAD_HIDDEN):
        total = params[b4 + k]
        row = k * HIDDEN1
        for j in range(HIDDEN1):
            total += layer4[row + j] * h1[j]
        if total < 0:
            total = np.float32(0.0)
        hm[k] = total
        z += params[w5 + k] * total
    scaled = (PLIES_SCALE * softplus(z) - plies) / PLIES_SCALE
    delta = HUBER_PLIES / PLIES_SCALE
    slope = max(-delta, min(delta, scaled))  # the Huber loss's derivative
    return huber(scaled, delta), np.float32(weight * slope / (1.0 + np.exp(-z)))  # softplus'


@kernel
def backward_moves_left(
    params: np.ndarray, grad: np.ndarray, inputs: int, d_head: float, scratch: np.ndarray
) -> None:
    """Add the moves-left head's gradient (``d_head`` from :func:`moves_left_loss`) to its
    parameters, and its part of h1's gradient before h1's ReLU to ``scratch``'s ``d1`` (which
    :func:`backward_layer2` wrote first). Nothing for a ``d_head`` of 0."""
    if d_head == 0:
        return
    w4 = inputs * HIDDEN1 + TAIL
    b4 = w4 + HIDDEN1 * HEAD_HIDDEN
    w5 = b4 + HEAD_HIDDEN
    b5 = w5 + HEAD_HIDDEN
    h1 = scratch[H1 : H1 + HIDDEN1]
    d1 = scratch[D1 : D1 + HIDDEN1]
    hm = scratch[HM : HM + HEAD_HIDDEN]
    layer4 = params[w4 : w4 + HIDDEN1 * HEAD_HIDDEN]
    grad4 = grad[w4 : w4 + HIDDEN1 * HEAD_HIDDEN]
    grad[b5] += d_head
    for k in range(HEAD_HIDDEN):
        grad[w5 + k] += d_head * hm[k]
        if hm[k] <= 0:
            continue
        g = d_head * params[w5 + k]
        grad[b4 + k] += g
        row = k * HIDDEN1
        for j in range(HIDDEN1):
            grad4[row + j] += g * h1[j]
            d1[j] += g * layer4[row + j]


@kernel
def add_gradient_heads(
    params: np.ndarray,
    grad: np.ndarray,
    inputs: int,
    active: np.ndarray,
    values: np.ndarray,
    count: int,
    target: float,
    plies: float,
    weight: float,
    scratch: np.ndarray,
):
    """Add to ``grad`` the gradient of one sample's loss for a network with the moves-left head:
    ``(value - target)^2 / 2 + weight * huber((plies_left - plies) / PLIES_SCALE)``, the Huber
    zone being ``HUBER_PLIES`` plies. A ``plies`` below 0 (``NO_PLIES``) trains the value only.
    Returns ``(value loss, unweighted plies loss)``; the plies loss is in units of PLIES_SCALE
    plies, as the gradient sees it."""
    out = forward(params, inputs, active, values, count, scratch)
    error = out - target
    d_out = np.float32(error * (1.0 - out * out))  # through tanh
    plies_loss, d_head = moves_left_loss(params, inputs, plies, weight, scratch)
    backward_output(params, grad, inputs, d_out, scratch)
    backward_moves_left(params, grad, inputs, d_head, scratch)
    backward_layer1(grad, inputs, active, values, count, scratch)
    return 0.5 * error * error, plies_loss


def random_parameters(inputs: int, seed: int, moves_left: bool = False) -> np.ndarray:
    """He initialisation of a network of ``inputs`` inputs: normal weights scaled by
    sqrt(2 / fan_in), zero biases; layer 1's fan-in is taken as ``HE_FAN_IN_LAYER1``, since only
    some of its inputs are set at once. With ``moves_left``, the head's weights are drawn after
    the rest, so the value layers are the same as without it."""
    shape = layout(inputs, moves_left)
    rng = np.random.default_rng(seed)
    params = np.zeros(shape.params, dtype=np.float32)
    params[shape.w1 : shape.b1] = rng.normal(0.0, np.sqrt(2.0 / HE_FAN_IN_LAYER1), inputs * HIDDEN1)
    params[shape.w2 : shape.b2] = rng.normal(0.0, np.sqrt(2.0 / HIDDEN1), HIDDEN1 * HIDDEN2)
    params[shape.w3 : shape.b3] = rng.normal(0.0, np.sqrt(2.0 / HIDDEN2), HIDDEN2)
    if moves_left:
        params[shape.w4 : shape.b4] = rng.normal(0.0, np.sqrt(2.0 / HIDDEN1), HIDDEN1 * HEAD_HIDDEN)
        params[shape.w5 : shape.b5] = rng.normal(0.0, np.sqrt(2.0 / HEAD_HIDDEN), HEAD_HIDDEN)
    return params


def with_moves_left(params: np.ndarray, seed: int) -> np.ndarray:
    """The value-only network ``params`` with a new moves-left head (He weights for its hidden
    layer and small ones for its output, from ``seed``, so it starts near ``PLIES_SCALE * log 2``
    plies everywhere); a network that has the head already is returned as it is (a copy)."""
    if has_moves_left(params):
        return np.array(params, dtype=np.float32)
    rng = np.random.default_rng(seed)
    head = np.zeros(MOVES_LEFT_PARAMS, dtype=np.float32)
    hidden = HIDDEN1 * HEAD_HIDDEN
    head[:hidden] = rng.normal(0.0, np.sqrt(2.0 / HIDDEN1), hidden)
    w5 = hidden + HEAD_HIDDEN
    head[w5 : w5 + HEAD_HIDDEN] = rng.normal(0.0, 0.1 * np.sqrt(2.0 / HEAD_HIDDEN), HEAD_HIDDEN)
    return np.concatenate([np.asarray(params, dtype=np.float32), head])


def value_only(params: np.ndarray) -> np.ndarray:
    """The network without its moves-left head (itself if it has none)."""
    inputs, moves_left = network_shape(len(params))
    return params[: parameter_count(inputs)] if moves_left else params


def widen(params: np.ndarray, inputs: int, wider: int) -> np.ndarray:
    """The network ``params`` of ``inputs`` inputs as one of ``wider`` inputs whose new inputs,
    after the old ones, have no weight: the same function of the old inputs, whatever the new
    ones are set to. Works for every kind (with the moves-left head, a Zero network): ``W1`` comes
    first and nothing after it depends on the input count but its offset."""
    if not 0 < inputs <= wider:
        raise ValueError(f"cannot widen a network of {inputs} inputs to {wider}")
    split = inputs * HIDDEN1
    rows = np.zeros((wider - inputs) * HIDDEN1, dtype=np.float32)
    return np.concatenate([params[:split], rows, params[split:]]).astype(np.float32)


def dense_inputs(inputs: int, active: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """The set inputs as a dense vector of ``inputs`` numbers (for tests and references; the
    kernels stay sparse)."""
    x = np.zeros(inputs, dtype=np.float32)
    x[np.asarray(active[:count])] = values[:count]
    return x
