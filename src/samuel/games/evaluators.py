"""The one check of an evaluator's parameter array before a compiled kernel reads it.

Each evaluator of :func:`samuel.games.kernels.evaluate` reads its own array: the classic weights
(float64; the named features', with or without the piece-square tables after them), a network
(float32, with or without the moves-left head: the plain network evaluator reads the value
part), the hybrid's ``[scale, classic weights, network]`` and the moves-left evaluator's
``[threshold, max effect, slope, network with the head]`` (float32). numba checks no bounds, so
a short array would be read past its end: every caller that hands parameters to a kernel from
outside (a store, a file, another process) checks them here first.
"""

from __future__ import annotations

import numpy as np

from . import kernels
from .networks import parameter_count

DTYPES = {
    kernels.EVALUATOR_CLASSIC: np.float64,
    kernels.EVALUATOR_NETWORK: np.float32,
    kernels.EVALUATOR_HYBRID: np.float32,
    kernels.EVALUATOR_MOVES_LEFT: np.float32,
}


def parameter_counts(game: int, evaluator: int) -> tuple[tuple[int, ...], str]:
    """The lengths the evaluator's array may have, and what it is called."""
    sizes = kernels.compiled_game(game)
    kernels.check_evaluator(game, evaluator)
    network, headed = parameter_count(game), parameter_count(game, True)
    if evaluator == kernels.EVALUATOR_CLASSIC:
        return (sizes.classic_features, sizes.classic_weights), "classic weights"
    if evaluator == kernels.EVALUATOR_NETWORK:
        return (network, headed), "network parameters"
    if evaluator == kernels.EVALUATOR_HYBRID:
        return (1 + sizes.classic_features + network,), "hybrid parameters"
    return (kernels.MOVES_LEFT_NETWORK + headed,), "moves-left parameters"


def check_params(game: int, evaluator: int, params) -> np.ndarray:
    """The evaluator's parameters as the kernels read them (its dtype, C-contiguous); raise
    ValueError unless they are numbers, all finite, of a length the evaluator reads."""
    counts, what = parameter_counts(game, evaluator)
    title = kernels.compiled_game(game).title
    try:
        array = np.ascontiguousarray(params, dtype=DTYPES[evaluator])
    except (TypeError, ValueError):
        raise ValueError(f"{title}'s {what} must be an array of numbers") from None
    if array.ndim != 1 or array.shape[0] not in counts:
        lengths = " or ".join(str(c) for c in counts)
        raise ValueError(
            f"{title}'s {what} are {lengths} numbers, not an array of shape {array.shape}"
        )
    if not np.isfinite(array).all():
        raise ValueError(f"{title}'s {what} hold a NaN or an infinity")
    return array
