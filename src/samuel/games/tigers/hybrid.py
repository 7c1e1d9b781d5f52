"""The hybrid evaluation: the classic score plus ``scale`` times the network's value.

The classic rule supplies solid knowledge in sheep; the network, trained by self-play, nudges it
where it has learned something the rule misses (the seed's Module 8). The search takes one
parameter array per evaluator, so the hybrid's three parts travel in one float32 array at fixed
offsets:

==============================  =============================================================
``params[SCALE]``               the network's weight, in sheep per unit of network output
``params[CLASSIC:NETWORK]``     the classic weights (``FEATURE_COUNT`` of them, float32)
``params[NETWORK:]``            the network's ``PARAMS`` parameters, exactly as in its file
==============================  =============================================================

Build it with :func:`hybrid_parameters`. The network's output is in ``-1..1`` (an expected
result), the classic score in sheep; ``DEFAULT_SCALE`` says how many sheep one unit of network
output is worth, and ``docs/tuning.md`` explains the choice.
"""

from __future__ import annotations

import math

import numpy as np

from samuel.jit import kernel
from samuel.nn import network

from .classic import FEATURE_COUNT, classic_evaluate

SCALE = 0
CLASSIC = 1
NETWORK = CLASSIC + FEATURE_COUNT
HYBRID_PARAMS = NETWORK + network.PARAMS

# Sheep per unit of network output. Fitting the classic score to game results (samuel tune on
# classic self-play) gives K = 0.55 per sheep: a classic score e predicts the expected result
# tanh(K e / 2), so a network value v says what a classic score of about 2 v / K = 3.6 v sheep
# says. Two sheep, a little over half that, keeps the rule in charge while the network nudges
# (the seed's hybrid); scales 1, 2, 4 and 8 all scored alike in a probe (docs/tuning.md).
DEFAULT_SCALE = 2.0


@kernel
def hybrid_evaluate(
    params: np.ndarray, tigers: int, sheep: int, hand: int, tiger_to_move: int, scratch: np.ndarray
) -> float:
    """``classic + params[SCALE] * network``, tigers' view, in sheep.

    ``scratch`` needs the network's ``SCRATCH`` entries; the network runs first, since the
    classic features then overwrite the start of the scratch space.
    """
    value = network.forward(params[NETWORK:], tigers, sheep, hand, tiger_to_move, scratch)
    classic = classic_evaluate(tigers, sheep, hand, tiger_to_move, params[CLASSIC:NETWORK], scratch)
    return classic + params[SCALE] * value


def hybrid_parameters(
    scale: float, classic_weights: np.ndarray, network_params: np.ndarray
) -> np.ndarray:
    """The hybrid's parameter array from its three parts (checked)."""
    if not math.isfinite(scale):
        raise ValueError(f"the hybrid's scale must be a finite number, not {scale}")
    if np.shape(classic_weights) != (FEATURE_COUNT,):
        raise ValueError(
            f"expected {FEATURE_COUNT} classic weights, not {np.shape(classic_weights)}"
        )
    if np.shape(network_params) != (network.PARAMS,):
        raise ValueError(
            f"expected {network.PARAMS} network parameters, not {np.shape(network_params)}"
        )
    params = np.empty(HYBRID_PARAMS, dtype=np.float32)
    params[SCALE] = scale
    params[CLASSIC:NETWORK] = classic_weights
    params[NETWORK:] = network_params
    return params
