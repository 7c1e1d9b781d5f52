"""The one check of an evaluator's parameter array before a compiled kernel reads it.

Each evaluator of :func:`samuel.evaluation.kernels.evaluate` reads its own array: the classic
weights (float64; the named features', with or without the piece-square tables after them), a
network (float32, with or without the moves-left head: the plain network evaluator reads the value
part), the hybrid's ``[scale, classic weights, network]`` and the moves-left evaluator's
``[threshold, max effect, slope, network with the head]`` and a network per phase's packed
networks (float32, :mod:`samuel.nn.phased`). numba checks no bounds, so
a short array would be read past its end: every caller that hands parameters to a kernel from
outside (a store, a file, another process) checks them here first.
"""

from __future__ import annotations

import numpy as np

from samuel.games import kernels
from samuel.nn.shape import PLIES

from . import kernels as evaluation
from .networks import check_network, check_phased

DTYPES = {
    kernels.EVALUATOR_CLASSIC: np.float64,
    kernels.EVALUATOR_NETWORK: np.float32,
    kernels.EVALUATOR_HYBRID: np.float32,
    kernels.EVALUATOR_MOVES_LEFT: np.float32,
    kernels.EVALUATOR_PHASED: np.float32,
}
NAMES = {
    kernels.EVALUATOR_CLASSIC: "classic weights",
    kernels.EVALUATOR_NETWORK: "network parameters",
    kernels.EVALUATOR_HYBRID: "hybrid parameters",
    kernels.EVALUATOR_MOVES_LEFT: "moves-left parameters",
    kernels.EVALUATOR_PHASED: "networks per phase",
}


def network_start(game: int, evaluator: int) -> int:
    """Where the network's array starts in the evaluator's parameters (-1: it has none)."""
    if evaluator == kernels.EVALUATOR_NETWORK:
        return 0
    if evaluator == kernels.EVALUATOR_HYBRID:
        return 1 + kernels.compiled_game(game).classic_features
    if evaluator == kernels.EVALUATOR_MOVES_LEFT:
        return kernels.MOVES_LEFT_NETWORK
    return -1


def check_params(game: int, evaluator: int, params) -> np.ndarray:
    """The evaluator's parameters as the kernels read them (its dtype, C-contiguous); raise
    ValueError unless they are numbers, all finite, of a length the evaluator reads, and any
    network in them is one of the game's whose plan is its shape's (the kernels read it at the
    offsets the plan gives)."""
    sizes = kernels.compiled_game(game)
    kernels.check_evaluator(game, evaluator)
    what = NAMES[evaluator]
    title = sizes.title
    try:
        array = np.ascontiguousarray(params, dtype=DTYPES[evaluator])
    except (TypeError, ValueError):
        raise ValueError(f"{title}'s {what} must be an array of numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{title}'s {what} are a flat array, not one of shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{title}'s {what} hold a NaN or an infinity")
    if evaluator == kernels.EVALUATOR_PHASED:
        try:
            check_phased(array, game)
        except ValueError as error:
            raise ValueError(f"{title}'s {what}: {error}") from None
        return array
    start = network_start(game, evaluator)
    if start < 0:
        counts = (sizes.classic_features, sizes.classic_weights)
        if array.shape[0] not in counts:
            lengths = " or ".join(str(c) for c in counts)
            raise ValueError(f"{title}'s {what} are {lengths} numbers, not {array.shape[0]}")
        return array
    try:
        shape = check_network(array[start:], game)
    except ValueError as error:
        raise ValueError(f"{title}'s {what}: {error}") from None
    if evaluator == kernels.EVALUATOR_MOVES_LEFT and not shape.has(PLIES):
        raise ValueError(f"{title}'s {what} hold a network without the moves-left head")
    return array


def scratch_size(game: int, evaluator: int, params: np.ndarray) -> int:
    """The float32 scratch the evaluator needs with these parameters (checked here first):
    :func:`samuel.evaluation.kernels.scratch_size`."""
    return int(evaluation.scratch_size(game, evaluator, check_params(game, evaluator, params)))
