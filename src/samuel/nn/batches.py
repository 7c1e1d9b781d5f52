"""Gradients and losses over many samples, in parallel and yet the same on any number of threads.

A batch is split into chunks of ``GRAD_CHUNK`` samples (``LOSS_CHUNK`` for losses); each chunk is
computed by one thread into its own slot, and the slots are then added up in chunk order.
Floating-point addition is not associative, so this fixed order is what makes training
bit-identical on 1 or N threads (``numba.set_num_threads``).

A set of ``n`` samples is their set inputs, as a game's encoder lists them
(:func:`samuel.games.kernels.network_inputs`): ``active`` (n, width) int64 indices and ``values``
(n, width) float32, of which sample ``i`` uses the first ``counts[i]``; and ``target`` (n,)
float32, in the network's view. ``net`` is the network's array (its plan and parameters,
:mod:`samuel.nn.shape`), checked by the caller. A network with the plies head also takes
``plies`` (n,) float32, each sample's plies-left target (``NO_PLIES``: none), and the weight of
its loss against the value's; one with an outcome head, ``outcomes`` (n, outputs) float32 targets.

A Samuel Zero network (:mod:`samuel.nn.zero`) also takes each sample's legal moves' actions,
``legal`` (n, width) int64 of which sample ``i`` uses the first ``legal_counts[i]``, and their
policy targets ``policy`` (n, width) float32 (visit fractions; zeros: no policy target).
"""

from __future__ import annotations

import numba
import numpy as np

from samuel.jit import inline_kernel, kernel, parallel_kernel

from .network import add_gradient, forward, plies_left, slot
from .shape import FORWARD_SCRATCH
from .zero import zero_add_gradient

GRAD_CHUNK = 32
LOSS_CHUNK = 1024


@kernel
def training_scratch(net):
    """Room for one sample's forward and backward pass."""
    return np.empty(2 * slot(net, FORWARD_SCRATCH), dtype=np.float32)


@inline_kernel
def sum_chunks(partial, losses, grad):
    """A chunked gradient's total: the chunks' gradients ``partial`` (chunks, len(grad)) added up
    into ``grad``, and the totals of their three losses ``losses`` (chunks, 3), in chunk order.
    Inlined into the parallel kernels, where the whole-array sum is a parallel region over the
    parameters, as it was written there."""
    grad[:] = 0
    first = 0.0
    second = 0.0
    third = 0.0
    # The losses as scalars: an array sum here would be a parallel region a chunk.
    for c in range(partial.shape[0]):
        grad += partial[c]
        first += losses[c, 0]
        second += losses[c, 1]
        third += losses[c, 2]
    return first, second, third


@parallel_kernel
def batch_gradient(net, active, values, counts, target, plies, weight, outcomes, grad):
    """Write the summed gradient of the samples' losses (:func:`samuel.nn.network.add_gradient`:
    the value's, the weighted plies', the outcomes') into ``grad``; return the summed value loss,
    unweighted plies loss and outcome loss."""
    n = target.shape[0]
    chunks = (n + GRAD_CHUNK - 1) // GRAD_CHUNK
    partial = np.zeros((chunks, net.shape[0]), dtype=np.float32)
    losses = np.zeros((chunks, 3), dtype=np.float64)
    no_policy = np.zeros(0, dtype=np.int64)
    for c in numba.prange(chunks):
        scratch = training_scratch(net)
        for i in range(c * GRAD_CHUNK, min(n, (c + 1) * GRAD_CHUNK)):
            value_loss, plies_loss, outcome_loss = add_gradient(
                net,
                partial[c],
                active[i],
                values[i],
                counts[i],
                target[i],
                plies[i],
                weight,
                outcomes[i],
                scratch,
                no_policy,
            )
            losses[c, 0] += value_loss
            losses[c, 1] += plies_loss
            losses[c, 2] += outcome_loss
    return sum_chunks(partial, losses, grad)  # value, plies and outcome losses


@parallel_kernel
def batch_loss(net, active, values, counts, target):
    """The summed loss ``(out - target)^2 / 2`` of the samples."""
    n = target.shape[0]
    chunks = (n + LOSS_CHUNK - 1) // LOSS_CHUNK
    losses = np.zeros(chunks, dtype=np.float64)
    for c in numba.prange(chunks):
        scratch = training_scratch(net)
        for i in range(c * LOSS_CHUNK, min(n, (c + 1) * LOSS_CHUNK)):
            out = forward(net, active[i], values[i], counts[i], scratch)
            error = out - target[i]
            losses[c] += 0.5 * error * error
    total = 0.0
    for c in range(chunks):
        total += losses[c]
    return total


@parallel_kernel
def batch_plies_error(net, active, values, counts, plies):
    """The summed absolute error, in plies, of the plies head over the samples that have a plies
    target, and how many have one."""
    n = plies.shape[0]
    chunks = (n + LOSS_CHUNK - 1) // LOSS_CHUNK
    errors = np.zeros(chunks, dtype=np.float64)
    counted = np.zeros(chunks, dtype=np.int64)
    for c in numba.prange(chunks):
        scratch = training_scratch(net)
        for i in range(c * LOSS_CHUNK, min(n, (c + 1) * LOSS_CHUNK)):
            if plies[i] < 0:
                continue
            forward(net, active[i], values[i], counts[i], scratch)
            errors[c] += abs(plies_left(net, scratch) - plies[i])
            counted[c] += 1
    total = 0.0
    count = 0
    for c in range(chunks):
        total += errors[c]
        count += counted[c]
    return total, count


@parallel_kernel
def zero_batch_gradient(
    net,
    active,
    values,
    counts,
    legal,
    legal_counts,
    policy,
    target,
    plies,
    policy_weight,
    value_weight,
    plies_weight,
    grad,
):
    """:func:`batch_gradient` for a Zero network: write the summed gradient of the samples'
    weighted losses (:func:`samuel.nn.zero.zero_add_gradient`) into ``grad``; return the summed
    unweighted policy, value and plies losses. Raises ValueError if the arrays do not hold ``n``
    samples (``n`` = ``len(target)``) or ``grad`` is not as long as ``net``."""
    n = target.shape[0]
    if (
        active.shape[0] < n
        or values.shape[0] < n
        or counts.shape[0] < n
        or legal.shape[0] < n
        or legal_counts.shape[0] < n
        or policy.shape[0] < n
        or plies.shape[0] < n
        or policy.shape[1] < legal.shape[1]
        or values.shape[1] < active.shape[1]
        or grad.shape[0] != net.shape[0]
    ):
        raise ValueError("zero_batch_gradient: the arrays do not hold the samples")
    chunks = (n + GRAD_CHUNK - 1) // GRAD_CHUNK
    partial = np.zeros((chunks, net.shape[0]), dtype=np.float32)
    losses = np.zeros((chunks, 3), dtype=np.float64)
    for c in numba.prange(chunks):
        scratch = training_scratch(net)
        logits = np.empty(legal.shape[1], dtype=np.float32)
        for i in range(c * GRAD_CHUNK, min(n, (c + 1) * GRAD_CHUNK)):
            policy_loss, value_loss, plies_loss = zero_add_gradient(
                net,
                partial[c],
                active[i],
                values[i],
                counts[i],
                legal[i],
                legal_counts[i],
                policy[i],
                target[i],
                plies[i],
                policy_weight,
                value_weight,
                plies_weight,
                logits,
                scratch,
            )
            losses[c, 0] += policy_loss
            losses[c, 1] += value_loss
            losses[c, 2] += plies_loss
    return sum_chunks(partial, losses, grad)  # policy, value and plies losses


@kernel
def adam_step(params, grad, m, v, step, learning_rate, beta1, beta2, epsilon, grad_scale):
    """One Adam step on ``grad * grad_scale``; ``step`` counts from 1 (for bias correction)."""
    correction1 = 1.0 - beta1**step
    correction2 = 1.0 - beta2**step
    for i in range(params.shape[0]):
        g = grad[i] * grad_scale
        m[i] = beta1 * m[i] + (1.0 - beta1) * g
        v[i] = beta2 * v[i] + (1.0 - beta2) * g * g
        params[i] -= learning_rate * (m[i] / correction1) / (np.sqrt(v[i] / correction2) + epsilon)
