"""Samuel Zero's network: the shared layers (``inputs -> 64 ReLU -> 32 ReLU`` by default) and
three heads, written by hand and compiled like :mod:`samuel.nn.network` (``docs/zero.md``):

- **policy**: one logit per action of the game (linear on the last shared layer); a softmax over
  the *legal* moves' actions only gives the priors (:func:`softmax`). The actions are the game's
  (:mod:`samuel.games.actions`); this module knows only their number.
- **value**: one tanh output in ``-1..1``, in the view the game's encoding gives (as the value
  network's).
- **plies left**: the moves-left head (its own 32 units on the first layer, ``PLIES_SCALE *
  softplus``).

It is a network like any other (:mod:`samuel.nn.shape`: :func:`zero_shape`), so its parameters
start with a whole value network with the moves-left head, the policy's weights (action-major:
action ``a``'s weights are contiguous, so the logits of a few legal actions read a few rows) and
biases after them: the alpha-beta evaluators can use its value as they use any network's.
Tigers & Sheep: 7,618 + 650 x 33 = 29,068 parameters; draughts: 12,482 + 128 x 33 = 16,706.

**Loss** (one sample; lc0's three terms, each with its weight, :class:`LossWeights`)::

    policy_weight * -sum_i t_i log p_i                   (t: the target over the legal moves)
  + value_weight  * (value - z)^2 / 2                    (as the value network's)
  + plies_weight  * huber((plies - m) / PLIES_SCALE)     (as the moves-left head's)

``p`` is the softmax of the legal moves' logits; ``t`` their target (visit fractions, summing to
1; all zeros trains no policy); ``z`` the value target in the network's view; ``m`` the plies
target (``NO_PLIES``: none). The policy's gradient by logit ``i`` is ``p_i * sum(t) - t_i``.

**Checks.** numba checks no bounds, so every kernel here that takes arrays checks their sizes,
the set inputs' indices and the legal actions against the network's plan and raises
``ValueError`` (a few comparisons per call, next to thousands of multiplications).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from samuel.jit import kernel

from .network import (
    backward,
    forward,
    head_at,
    plies_left,
    plies_loss,
    policy_logits,
    slot,
    value_loss,
)
from .shape import (
    FORWARD_SCRATCH,
    H_OUTPUTS,
    HIDDEN,
    INPUTS,
    POLICY,
    SIZE,
    Network,
    plies_head,
    policy_head,
    value_head,
)


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


def zero_shape(inputs: int, actions: int, hidden: tuple[int, ...] = HIDDEN) -> Network:
    """The shape of a Zero network of ``inputs`` inputs and ``actions`` actions.

    >>> zero_shape(52, 650).parameter_count, zero_shape(128, 128).parameter_count
    (29068, 16706)
    """
    return Network(inputs, hidden, (value_head(), plies_head(), policy_head(actions)))


def random_zero_network(inputs: int, actions: int, seed: int) -> np.ndarray:
    """A Zero network with random weights from ``seed`` (:meth:`Network.random`: the value
    network with the moves-left head drawn as it always was, the policy from its own stream)."""
    return zero_shape(inputs, actions).random(seed)


@kernel
def forward_scratch(net) -> int:
    """The scratch a forward pass of the network needs (a backward pass, twice that)."""
    return slot(net, FORWARD_SCRATCH)


@kernel
def check_sample(net, active, count, legal, legal_count, logits, scratch, training) -> None:
    """Raise ValueError unless the arrays fit the Zero network ``net`` (whose plan was checked
    where it came in): a policy head, ``count`` set inputs below its inputs, ``legal_count``
    legal actions below its actions and room for their logits, and the scratch a forward pass
    (or, ``training``, a backward pass too) needs."""
    if net.shape[0] < head_at(POLICY + 1) or net.shape[0] != slot(net, SIZE):
        raise ValueError("the array is not a network")
    if net[head_at(POLICY)] == 0:
        raise ValueError("the network has no policy: it is no Zero network")
    need = slot(net, FORWARD_SCRATCH) * (2 if training else 1)
    if count < 0 or count > active.shape[0] or scratch.shape[0] < need:
        raise ValueError("more set inputs than the array holds, or too little scratch")
    inputs = slot(net, INPUTS)
    for n in range(count):
        if not 0 <= active[n] < inputs:
            raise ValueError("a set input beyond the network's inputs")
    if legal_count < 0 or legal_count > legal.shape[0] or legal_count > logits.shape[0]:
        raise ValueError("more legal moves than the legal or the logits array holds")
    actions = slot(net, head_at(POLICY) + H_OUTPUTS)
    for i in range(legal_count):
        if not 0 <= legal[i] < actions:
            raise ValueError("a legal move's action beyond the network's actions")


@kernel
def zero_forward(net, active, values, count, legal, legal_count, logits, scratch, with_plies=True):
    """``(value, plies left)`` of the position whose set inputs are ``active[:count]`` (with
    ``values[:count]``, as :func:`samuel.nn.network.forward` takes them), and the policy's
    logits of the legal moves' actions ``legal[:legal_count]`` into ``logits[:legal_count]``
    (:func:`softmax` makes them priors). Without ``with_plies`` the plies-left head is skipped
    (about a third of the pass) and the plies are 0. Checks its arrays (:func:`check_sample`)."""
    check_sample(net, active, count, legal, legal_count, logits, scratch, False)
    value = forward(net, active, values, count, scratch)
    plies = plies_left(net, scratch) if with_plies else 0.0
    policy_logits(net, legal, legal_count, logits, scratch)
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
    net,
    grad,
    active,
    values,
    count,
    legal,
    legal_count,
    policy_target,
    value_target,
    plies_target,
    policy_weight,
    value_weight,
    plies_weight,
    logits,
    scratch,
):
    """Add to ``grad`` the gradient of one sample's weighted loss (the module's docstring), the
    policy's target ``policy_target[:legal_count]`` being over the actions ``legal[:legal_count]``;
    return the unweighted ``(policy cross-entropy, value loss, plies loss)``. ``logits`` is room
    for the legal moves' logits (left holding the gradient by them). A ``plies_target`` below 0
    trains no plies; a policy target of zeros trains no policy. Checks its arrays."""
    check_sample(net, active, count, legal, legal_count, logits, scratch, True)
    if grad.shape[0] != net.shape[0] or policy_target.shape[0] < legal_count:
        raise ValueError("the gradient or the policy target is shorter than it must be")
    forward(net, active, values, count, scratch)
    policy_logits(net, legal, legal_count, logits, scratch)

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

    loss_value = value_loss(net, value_target, value_weight, scratch)
    loss_plies = plies_loss(net, plies_target, plies_weight, scratch)
    backward(net, grad, active, values, count, scratch, legal, logits, legal_count)
    return policy_loss, loss_value, loss_plies
