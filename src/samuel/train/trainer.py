"""Training the network on a set of samples: shuffled batches, random symmetric orientations,
Adam.

Each sample is shown in a random one of its game's symmetric orientations (data augmentation:
symmetric positions are equally good, and the network sees more variety): Tigers & Sheep's 8,
which keep a value; draughts' 2, the identity and the half-turn with colours swapped, which turns
Black's value into White's. Samples keep their targets in the first player's view; encoding turns
the target by the symmetry's sign and then into the network's view
(:func:`samuel.games.kernels.network_sign`). For draughts, whose inputs are the side to move's,
the two turns cancel: a position and its half-turn give the same inputs and the same target.

A network with the moves-left head (the plies head, :mod:`samuel.nn.shape`) is trained on both
losses at once, the plies loss weighted by ``moves_left_weight`` (lc0's 0.1); a symmetry does not
change how many plies a game has left, so plies targets go through unturned. With
``heads_only`` the value layers are frozen and only the head learns (as lc0 first added its head
to a trained network): the value, and so the play of a search that ignores the head, stay exactly
as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from samuel.games import kernels as games
from samuel.jit import kernel
from samuel.nn.batches import adam_step, batch_gradient, batch_loss, batch_plies_error
from samuel.nn.shape import PLIES, network_of

from .buffer import Samples

MOVES_LEFT_WEIGHT = 0.1  # the plies loss's weight against the value loss (lc0's)
BETA1 = 0.9
BETA2 = 0.999
ADAM_EPSILON = 1e-8


@dataclass(frozen=True)
class EncodedSamples:
    """Samples as the network reads them: set inputs (``batches``' form) and targets in the
    network's view."""

    inputs: int  # the network's input count
    active: np.ndarray  # (n, width) int64
    values: np.ndarray  # (n, width) float32
    counts: np.ndarray  # (n,) int64
    targets: np.ndarray  # (n,) float32, the network's view
    plies: np.ndarray | None = None  # (n,) float32 plies-left targets (NO_PLIES: none)
    outcomes: np.ndarray | None = None  # (n, 2k) float32 outcome targets, the network's view


@kernel
def encode_samples(game, states, symmetries, targets, active, values, counts, network_targets):
    """Write each position's set inputs under its symmetry, and its target (first player's view)
    turned by the symmetry and into the network's view."""
    image = np.empty(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        games.transform(game, states[i], symmetries[i], image)
        counts[i] = games.network_inputs(game, image, active[i], values[i])
        target = targets[i]
        if games.symmetry_sign(game, symmetries[i]) * games.network_sign(game, image) < 0:
            target = -target
        network_targets[i] = target


@kernel
def encode_outcome_targets(game, states, symmetries, outcomes, network_outcomes):
    """Each position's outcome targets (:class:`Samples`: first player's view) into the
    network's view, as :func:`encode_samples` turns a value: where a value would change sign,
    the wins and the losses swap."""
    image = np.empty(states.shape[1], dtype=np.int64)
    width = outcomes.shape[1]
    half = width // 2
    for i in range(states.shape[0]):
        games.transform(game, states[i], symmetries[i], image)
        turned = games.symmetry_sign(game, symmetries[i]) * games.network_sign(game, image) < 0
        for o in range(width):
            network_outcomes[i, o] = outcomes[i, (o + half) % width] if turned else outcomes[i, o]


def encode(game: int, samples: Samples, symmetries: np.ndarray | None = None) -> EncodedSamples:
    """The samples' network inputs and targets, each under its symmetry (default: as they are)."""
    sizes = games.compiled_game(game)
    n = len(samples)
    if symmetries is None:
        symmetries = np.zeros(n, dtype=np.int64)
    # Each row's entries past its count are never read: no need to clear them.
    active = np.empty((n, sizes.most_set_inputs), dtype=np.int64)
    values = np.empty((n, sizes.most_set_inputs), dtype=np.float32)
    counts = np.empty(n, dtype=np.int64)
    targets = np.empty(n, dtype=np.float32)
    encode_samples(
        game,
        np.ascontiguousarray(samples.states),
        np.ascontiguousarray(symmetries, dtype=np.int64),
        np.ascontiguousarray(samples.targets, dtype=np.float32),
        active,
        values,
        counts,
        targets,
    )
    outcomes = np.empty(samples.outcomes.shape, dtype=np.float32)
    encode_outcome_targets(
        game,
        np.ascontiguousarray(samples.states),
        np.ascontiguousarray(symmetries, dtype=np.int64),
        np.ascontiguousarray(samples.outcomes, dtype=np.float32),
        outcomes,
    )
    return EncodedSamples(
        sizes.network_inputs,
        active,
        values,
        counts,
        targets,
        samples.plies.astype(np.float32),
        outcomes,
    )


@dataclass
class Adam:
    """Adam's running averages of the gradient and its square, and the step count."""

    size: int  # the number of parameters
    m: np.ndarray = field(init=False)
    v: np.ndarray = field(init=False)
    step: int = 0

    def __post_init__(self) -> None:
        self.m = np.zeros(self.size, dtype=np.float32)
        self.v = np.zeros(self.size, dtype=np.float32)


def train_batch(
    params: np.ndarray,
    adam: Adam,
    batch: EncodedSamples,
    learning_rate: float,
    grad: np.ndarray,
    moves_left_weight: float = MOVES_LEFT_WEIGHT,
    heads_only: bool = False,
) -> float:
    """One Adam step on the batch's mean gradient; returns the batch's summed value loss (for a
    network valued by its outcomes, with outcome targets: their cross-entropy). A network with
    the moves-left head learns its plies targets too; with ``heads_only``, only them (the value
    layers' gradient is zero, so Adam never moves them)."""
    n = len(batch.targets)
    plies = batch.plies if batch.plies is not None else np.full(n, -1.0, dtype=np.float32)
    outcomes = batch.outcomes if batch.outcomes is not None else np.zeros((n, 0), np.float32)
    value_loss, _, outcome_loss = batch_gradient(
        params,
        batch.active,
        batch.values,
        batch.counts,
        batch.targets,
        plies,
        np.float32(moves_left_weight),
        outcomes,
        grad,
    )
    if heads_only and network_of(params).has(PLIES):
        start, end = network_of(params).head_span(PLIES)
        grad[:start] = 0
        grad[end:] = 0
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
        np.float32(1.0 / len(batch.targets)),
    )
    return outcome_loss if outcomes.shape[1] else value_loss


def train_epoch(
    game: int,
    params: np.ndarray,
    adam: Adam,
    samples: Samples,
    batch_size: int,
    learning_rate: float,
    rng: np.random.Generator,
    moves_left_weight: float = MOVES_LEFT_WEIGHT,
    heads_only: bool = False,
) -> float:
    """Shuffle, orient at random, train in batches; return the mean value loss seen while
    training. A network with the moves-left head learns the samples' plies targets too, weighted
    by ``moves_left_weight`` (with ``heads_only``, the head alone learns).

    Each batch is encoded just before its step, into buffers reused from batch to batch, so an
    epoch's encoding never takes more memory than one batch's."""
    n = len(samples)
    if n == 0:
        return 0.0
    sizes = games.compiled_game(game)
    order = rng.permutation(n)
    symmetries = rng.integers(0, sizes.symmetries, size=n)
    states = np.ascontiguousarray(samples.states[order])
    targets = np.ascontiguousarray(samples.targets[order], dtype=np.float32)
    plies = np.ascontiguousarray(samples.plies[order], dtype=np.float32)
    outcomes = np.ascontiguousarray(samples.outcomes[order], dtype=np.float32)
    network_outcomes = np.empty((min(batch_size, n), outcomes.shape[1]), dtype=np.float32)
    size = min(batch_size, n)
    active = np.empty((size, sizes.most_set_inputs), dtype=np.int64)
    values = np.empty((size, sizes.most_set_inputs), dtype=np.float32)
    counts = np.empty(size, dtype=np.int64)
    network_targets = np.empty(size, dtype=np.float32)
    grad = np.zeros(len(params), dtype=np.float32)
    total = 0.0
    for start in range(0, n, batch_size):
        m = min(batch_size, n - start)
        batch = slice(start, start + m)
        encode_samples(
            game,
            states[batch],
            symmetries[batch],
            targets[batch],
            active[:m],
            values[:m],
            counts[:m],
            network_targets[:m],
        )
        encode_outcome_targets(
            game, states[batch], symmetries[batch], outcomes[batch], network_outcomes[:m]
        )
        part = EncodedSamples(
            sizes.network_inputs,
            active[:m],
            values[:m],
            counts[:m],
            network_targets[:m],
            plies[batch],
            network_outcomes[:m],
        )
        total += train_batch(params, adam, part, learning_rate, grad, moves_left_weight, heads_only)
    return total / n


def mean_loss(game: int, params: np.ndarray, samples: Samples) -> float:
    """Mean of ``(value - target)^2 / 2`` over the samples (NaN if there are none); for samples
    with outcome targets, the outcome head's mean cross-entropy."""
    if len(samples) == 0:
        return float("nan")
    e = encode(game, samples)
    if e.outcomes.shape[1]:
        grad = np.zeros(len(params), dtype=np.float32)  # the gradient is thrown away
        plies = np.full(len(samples), -1.0, dtype=np.float32)
        _, _, loss = batch_gradient(
            params, e.active, e.values, e.counts, e.targets, plies, np.float32(0), e.outcomes, grad
        )
        return loss / len(samples)
    return batch_loss(params, e.active, e.values, e.counts, e.targets) / len(samples)


def plies_error(game: int, params: np.ndarray, samples: Samples) -> float:
    """Mean absolute error, in plies, of the moves-left head over the samples that have a plies
    target (NaN if none has, or the network has no head)."""
    if len(samples) == 0 or not network_of(params).has(PLIES):
        return float("nan")
    e = encode(game, samples)
    total, count = batch_plies_error(params, e.active, e.values, e.counts, e.plies)
    return total / count if count else float("nan")
