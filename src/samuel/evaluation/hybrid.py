"""The hybrid evaluation: the classic score plus ``scale`` times the network's value, for any
game whose classic score and network value can be put in one view.

The classic rule supplies solid knowledge; the network, trained by self-play, nudges it where it
has learned something the rule misses (the seed's Module 8). Both are turned into the first
player's view before they are added: the classic score is in it already, and the network's value
is turned by :func:`samuel.games.kernels.network_sign` (draughts' network values the side to
move's position), so the two views line up in every game. The search takes one parameter array
per evaluator, so the hybrid's three parts travel in one float32 array at fixed offsets:

==============================  =============================================================
``params[SCALE]``               the network's weight, in classic units per unit of its output
``params[CLASSIC:network]``     the game's classic weights (float32)
``params[network:]``            the network's parameters, exactly as in its file
==============================  =============================================================

where ``network`` is ``CLASSIC`` + the game's classic feature count. Build it with
:func:`hybrid_parameters`. Each game's default scale, and why, is in its ``hybrid`` module.
"""

from __future__ import annotations

import math

import numpy as np

from samuel.games import descriptor_of, kernels
from samuel.nn.shape import PLIES, without_head

from .networks import check_network

SCALE = 0
CLASSIC = 1


def default_scale(game: int) -> float:
    """The game's default scale (classic units per unit of network output): its ``hybrid``
    part's ``DEFAULT_SCALE``; ValueError for a game without one."""
    kernels.compiled_game(game)
    descriptor = descriptor_of(game)
    part = descriptor.part("hybrid")
    if part is None:
        raise ValueError(f"{descriptor.title} has no hybrid scale (its package has no hybrid part)")
    return part.DEFAULT_SCALE


def hybrid_parameters(
    game: int, scale: float, classic_weights: np.ndarray, network_params: np.ndarray
) -> np.ndarray:
    """The hybrid's parameter array for the game numbered ``game`` from its three parts
    (checked: a wrong count would be read past its end by the compiled evaluation)."""
    sizes = kernels.compiled_game(game)
    if not math.isfinite(scale):
        raise ValueError(f"the hybrid's scale must be a finite number, not {scale}")
    features = sizes.classic_features
    if np.shape(classic_weights) == (sizes.classic_weights,):
        raise ValueError("the hybrid takes the named classic weights, not piece-square tables")
    if np.shape(classic_weights) != (features,):
        raise ValueError(f"expected {features} classic weights, not {np.shape(classic_weights)}")
    check_network(network_params, game)
    network_params = without_head(network_params, PLIES)  # the hybrid uses the value alone
    count = len(network_params)
    params = np.empty(CLASSIC + features + count, dtype=np.float32)
    params[SCALE] = scale
    params[CLASSIC : CLASSIC + features] = classic_weights
    params[CLASSIC + features :] = network_params
    return params
