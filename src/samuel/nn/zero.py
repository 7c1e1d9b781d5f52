"""Samuel Zero's network: the shared layers ``inputs -> 64 ReLU -> 32 ReLU`` and three heads,
written by hand and compiled like :mod:`samuel.nn.network` (``docs/zero.md``):

- **policy**: one logit per action of the game (``32 -> actions``, linear on h2); a softmax over
  the *legal* moves' actions only gives the priors (:func:`softmax`). The actions are the game's
  (:mod:`samuel.games.actions`); this module knows only their number.
- **value**: ``32 -> 1 tanh`` on h2, in ``-1..1``, in the view the game's encoding gives (as the
  value network's).
- **plies left**: the moves-left head of :mod:`samuel.nn.network` (``64 -> 32 ReLU -> 1``,
  ``PLIES_SCALE * softplus``, on h1), its constants and its kernels.

**Parameters.** One flat float32 array (:func:`zero_layout`). It *starts with a whole value
network with the moves-left head* (:func:`samuel.nn.network.layout` with ``moves_left``: ``W1``
input-major, ``B1``, ``W2`` unit-major, ``B2``, ``W3``, ``B3``, ``W4``, ``B4``, ``W5``, ``B5``),
so :func:`samuel.nn.network.forward` and :func:`~samuel.nn.network.plies_left` read a Zero network
as they are, and the alpha-beta evaluators can use its value. The policy follows: ``WP``
(``actions x 32``, action-major: action ``a``'s 32 weights are contiguous, so the logits of a few
legal actions read a few rows) and ``BP`` (``actions``). Tigers & Sheep: 7,618 + 650 x 33 =
29,068 parameters; draughts: 12,482 + 128 x 33 = 16,706.

**Loss** (one sample; lc0's three terms, each with its weight, :class:`LossWeights`)::

    policy_weight * -sum_i t_i log p_i                   (t: the target over the legal moves)
  + value_weight  * (value - z)^2 / 2                    (as the value network's)
  + plies_weight  * huber((plies - m) / PLIES_SCALE)     (as the moves-left head's)

``p`` is the softmax of the legal moves' logits; ``t`` their target (visit fractions, summing to
1; all zeros trains no policy); ``z`` the value target in the network's view; ``m`` the plies
target (``NO_PLIES``: none). The policy's gradient by logit ``i`` is ``p_i * sum(t) - t_i``.

**Checks.** numba checks no bounds, so every kernel here that takes arrays checks their sizes,
the set inputs' indices and the legal actions against the network's sizes and raises
``ValueError`` (a few comparisons per call, next to thousands of multiplications).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from samuel.jit import kernel

from .network import (
    D2,
    H2,
    HIDDEN1,
    HIDDEN2,
    MOVES_LEFT_PARAMS,
    SCRATCH,
    TAIL,
    backward_layer1,
    backward_layer2,
    backward_moves_left,
    forward,
    layout,
    moves_left_loss,
    parameter_count,
    plies_left,
    random_parameters,
)

POLICY_PARAMS_PER_ACTION = HIDDEN2 + 1  # an action's row of WP and its bias
# The parameters of the value network with the moves-left head after W1: where WP starts is
# ``inputs * HIDDEN1 + TRUNK_TAIL`` (the kernels' form of parameter_count(inputs, True)).
TRUNK_TAIL = TAIL + MOVES_LEFT_PARAMS
# Policy weights start small (a tenth of He's scale): the priors start near uniform over the
# legal moves, so the first searches are not steered by noise.
POLICY_INIT_SCALE = 0.1


@dataclass(frozen=True)
class LossWeights:
    """The weights of the three losses (lc0's policy, value and moves-left loss weights). The
    plies weight is the TD(lambda) trainer's moves-left weight (``train/config.py``)."""

    policy: float = 1.0
    value: float = 1.0
    plies: float = 0.1

    def __post_init__(self) -> None:
        for name in ("policy", "value", "plies"):
            weight = getattr(self, name)
            if not (isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0):
                raise ValueError(f"the {name} loss weight must be a finite number >= 0: {weight!r}")


@dataclass(frozen=True)
class ZeroLayout:
    """Where each part of a Zero network of ``inputs`` inputs and ``actions`` actions starts in
    the flat array: ``trunk`` is the value network with the moves-left head it starts with,
    ``wp`` and ``bp`` the policy's weights and biases; ``params`` is their number."""

    inputs: int
    actions: int
    wp: int
    bp: int
    params: int

    @property
    def trunk(self):
        return layout(self.inputs, moves_left=True)


def zero_layout(inputs: int, actions: int) -> ZeroLayout:
    """The offsets of a Zero network of ``inputs`` inputs and ``actions`` actions.

    >>> shape = zero_layout(52, 650)
    >>> shape.wp, shape.bp, shape.params
    (7618, 28418, 29068)
    >>> zero_layout(128, 128).params
    16706
    """
    if inputs < 1 or actions < 1:
        raise ValueError(f"a Zero network has inputs and actions, not {inputs} and {actions}")
    wp = parameter_count(inputs, moves_left=True)
    bp = wp + actions * HIDDEN2
    return ZeroLayout(inputs, actions, wp, bp, bp + actions)


def zero_parameter_count(inputs: int, actions: int) -> int:
    """How many parameters a Zero network of ``inputs`` inputs and ``actions`` actions has."""
    return zero_layout(inputs, actions).params


def zero_inputs(params: int, actions: int) -> int:
    """The input count of a Zero network of ``params`` parameters and ``actions`` actions; -1 if
    no input count gives that many."""
    inputs, rest = divmod(params - TRUNK_TAIL - actions * POLICY_PARAMS_PER_ACTION, HIDDEN1)
    return inputs if rest == 0 and inputs > 0 else -1


def zero_actions(params: int, inputs: int) -> int:
    """The action count of a Zero network of ``params`` parameters and ``inputs`` inputs; -1 if
    no action count gives that many."""
    actions, rest = divmod(params - parameter_count(inputs, True), POLICY_PARAMS_PER_ACTION)
    return actions if rest == 0 and actions > 0 else -1


def random_zero_parameters(inputs: int, actions: int, seed: int) -> np.ndarray:
    """A Zero network with random weights from ``seed``: the value network with the moves-left
    head exactly as :func:`samuel.nn.network.random_parameters` draws it (He initialisation),
    then the policy's weights, normal with ``POLICY_INIT_SCALE`` times He's scale (sqrt(2 / 32)),
    and zero biases."""
    shape = zero_layout(inputs, actions)
    trunk = random_parameters(inputs, seed, moves_left=True)
    rng = np.random.default_rng([seed, 1])  # its own stream: the trunk's draws are unchanged
    params = np.zeros(shape.params, dtype=np.float32)
    params[: shape.wp] = trunk
    scale = POLICY_INIT_SCALE * np.sqrt(2.0 / HIDDEN2)
    params[shape.wp : shape.bp] = rng.normal(0.0, scale, actions * HIDDEN2)
    return params


@kernel
def check_sample(
    params: np.ndarray,
    inputs: int,
    actions: int,
    active: np.ndarray,
    count: int,
    legal: np.ndarray,
    legal_count: int,
    logits: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """Raise ValueError unless the arrays fit a Zero network of ``inputs`` inputs and
    ``actions`` actions: ``params``' length, ``count`` set inputs below ``inputs``,
    ``legal_count`` legal actions below ``actions`` and room for their logits, ``SCRATCH``
    entries of scratch."""
    if inputs < 1 or actions < 1:
        raise ValueError("a Zero network has at least one input and one action")
    size = inputs * HIDDEN1 + TRUNK_TAIL + actions * POLICY_PARAMS_PER_ACTION
    if params.shape[0] != size:
        raise ValueError("the parameters are not a Zero network of these inputs and actions")
    if count < 0 or count > active.shape[0] or scratch.shape[0] < SCRATCH:
        raise ValueError("more set inputs than the array holds, or too little scratch")
    for n in range(count):
        if not 0 <= active[n] < inputs:
            raise ValueError("a set input beyond the network's inputs")
    if legal_count < 0 or legal_count > legal.shape[0] or legal_count > logits.shape[0]:
        raise ValueError("more legal moves than the legal or the logits array holds")
    for i in range(legal_count):
        if not 0 <= legal[i] < actions:
            raise ValueError("a legal move's action beyond the network's actions")


@kernel
def _policy_logits(
    params: np.ndarray,
    inputs: int,
    actions: int,
    legal: np.ndarray,
    legal_count: int,
    logits: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """The logits of ``legal[:legal_count]`` into ``logits``, from the h2 that
    :func:`~samuel.nn.network.forward` left in ``scratch`` (unchecked: see :func:`check_sample`)."""
    wp = inputs * HIDDEN1 + TRUNK_TAIL
    bp = wp + actions * HIDDEN2
    h2 = scratch[H2 : H2 + HIDDEN2]
    for i in range(legal_count):
        a = legal[i]
        start = wp + a * HIDDEN2
        row = params[start : start + HIDDEN2]
        total = params[bp + a]
        for k in range(HIDDEN2):
            total += row[k] * h2[k]
        logits[i] = total


@kernel
def zero_forward(
    params: np.ndarray,
    inputs: int,
    actions: int,
    active: np.ndarray,
    values: np.ndarray,
    count: int,
    legal: np.ndarray,
    legal_count: int,
    logits: np.ndarray,
    scratch: np.ndarray,
    with_plies: bool = True,
):
    """``(value, plies left)`` of the position whose set inputs are ``active[:count]`` (with
    ``values[:count]``, as :func:`samuel.nn.network.forward` takes them), and the policy's
    logits of the legal moves' actions ``legal[:legal_count]`` into ``logits[:legal_count]``
    (:func:`softmax` makes them priors). Without ``with_plies`` the plies-left head is skipped
    (about a third of the pass) and the plies are 0. Checks its arrays (:func:`check_sample`)."""
    check_sample(params, inputs, actions, active, count, legal, legal_count, logits, scratch)
    value = forward(params, inputs, active, values, count, scratch)
    plies = plies_left(params, inputs, scratch) if with_plies else 0.0
    _policy_logits(params, inputs, actions, legal, legal_count, logits, scratch)
    return value, plies


@kernel
def softmax(logits: np.ndarray, count: int, out: np.ndarray) -> None:
    """The softmax of ``logits[:count]`` into ``out[:count]`` (which may be ``logits``): the
    priors of the legal moves, summing to 1. Computed in float64 from the largest logit down, so
    no exponential overflows."""
    if count < 0 or count > logits.shape[0] or count > out.shape[0]:
        raise ValueError("softmax: count beyond the arrays")
    if count == 0:
        return
    top = logits[0]
    for i in range(1, count):
        top = max(top, logits[i])
    total = 0.0
    for i in range(count):
        total += np.exp(np.float64(logits[i]) - top)
    for i in range(count):
        out[i] = np.exp(np.float64(logits[i]) - top) / total


@kernel
def zero_add_gradient(
    params: np.ndarray,
    grad: np.ndarray,
    inputs: int,
    actions: int,
    active: np.ndarray,
    values: np.ndarray,
    count: int,
    legal: np.ndarray,
    legal_count: int,
    policy_target: np.ndarray,
    value_target: float,
    plies_target: float,
    policy_weight: float,
    value_weight: float,
    plies_weight: float,
    logits: np.ndarray,
    scratch: np.ndarray,
):
    """Add to ``grad`` the gradient of one sample's weighted loss (the module's docstring), the
    policy's target ``policy_target[:legal_count]`` being over the actions ``legal[:legal_count]``;
    return the unweighted ``(policy cross-entropy, value loss, plies loss)``. ``logits`` is room
    for the legal moves' logits (left holding the gradient by them). A ``plies_target`` below 0
    trains no plies; a policy target of zeros trains no policy. Checks its arrays."""
    check_sample(params, inputs, actions, active, count, legal, legal_count, logits, scratch)
    if grad.shape[0] != params.shape[0] or policy_target.shape[0] < legal_count:
        raise ValueError("the gradient or the policy target is shorter than it must be")
    out = forward(params, inputs, active, values, count, scratch)
    _policy_logits(params, inputs, actions, legal, legal_count, logits, scratch)

    # The policy: cross-entropy of the softmax, and its gradient by each logit into ``logits``.
    policy_loss = 0.0
    if legal_count > 0:
        top = logits[0]
        for i in range(1, legal_count):
            top = max(top, logits[i])
        total = 0.0
        mass = 0.0
        for i in range(legal_count):
            total += np.exp(np.float64(logits[i]) - top)
            mass += policy_target[i]
        log_total = np.log(total)
        for i in range(legal_count):
            log_p = np.float64(logits[i]) - top - log_total
            policy_loss -= policy_target[i] * log_p
            logits[i] = policy_weight * (np.exp(log_p) * mass - policy_target[i])

    error = out - value_target
    d_out = np.float32(value_weight * error * (1.0 - out * out))  # through tanh
    plies_loss, d_head = moves_left_loss(params, inputs, plies_target, plies_weight, scratch)

    # h2's gradient: the value's and the policy's, through h2's ReLU.
    w3 = inputs * HIDDEN1 + HIDDEN1 + HIDDEN1 * HIDDEN2 + HIDDEN2
    b3 = w3 + HIDDEN2
    wp = inputs * HIDDEN1 + TRUNK_TAIL
    bp = wp + actions * HIDDEN2
    h2 = scratch[H2 : H2 + HIDDEN2]
    d2 = scratch[D2 : D2 + HIDDEN2]
    grad[b3] += d_out
    for k in range(HIDDEN2):
        grad[w3 + k] += d_out * h2[k]
        d2[k] = d_out * params[w3 + k]
    for i in range(legal_count):
        g = logits[i]
        if g == 0:
            continue
        a = legal[i]
        grad[bp + a] += g
        start = wp + a * HIDDEN2
        row = params[start : start + HIDDEN2]
        grad_row = grad[start : start + HIDDEN2]
        for k in range(HIDDEN2):
            grad_row[k] += g * h2[k]
            d2[k] += g * row[k]
    for k in range(HIDDEN2):
        if h2[k] <= 0:
            d2[k] = 0
    backward_layer2(params, grad, inputs, scratch)
    backward_moves_left(params, grad, inputs, d_head, scratch)
    backward_layer1(grad, inputs, active, values, count, scratch)
    return policy_loss, 0.5 * error * error, plies_loss
