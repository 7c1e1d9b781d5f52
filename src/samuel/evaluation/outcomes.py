"""A network's outcome head read for whole positions: the chances of each kind of win and loss
(backgammon's six: win, gammon, backgammon, then the same lost), in the first player's view or
the side to move's. Training labels positions with them (TD(lambda) over outcome vectors,
:mod:`samuel.train.targets`); a cube decides from them.
"""

from __future__ import annotations

import numpy as np

from samuel.evaluation import evaluators
from samuel.games import kernels as games
from samuel.games.compiled_game import MAX_SET_INPUTS, NETWORK_SCRATCH, NETWORK_VALUES
from samuel.jit import kernel
from samuel.nn import network
from samuel.nn.phased import is_phased, phase_networks
from samuel.nn.shape import OUTCOMES, ShapeError, network_of

from .phases import by_phase


def has_outcomes(params: np.ndarray) -> bool:
    """Whether ``params`` is a network with an outcome head."""
    try:
        return network_of(params).head(OUTCOMES) is not None
    except (ShapeError, ValueError):
        return False


@kernel
def _outcome_predictions(game, params, states, scratch, active, out):
    half = out.shape[1] // 2
    for i in range(states.shape[0]):
        values = scratch[NETWORK_VALUES : NETWORK_VALUES + MAX_SET_INPUTS]
        n = games.network_inputs(game, states[i], active, values)
        network.forward(params, active, values, n, scratch[NETWORK_SCRATCH:])
        at = network.outcomes(params, scratch[NETWORK_SCRATCH:])
        flip = games.network_sign(game, states[i]) < 0  # the network's view is the other side's
        for o in range(out.shape[1]):
            source = (o + half) % (2 * half) if flip else o
            out[i, o] = scratch[NETWORK_SCRATCH + at + source]


def outcome_predictions(game: int, params: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The outcome head's chances for each of ``states`` (n, 2k), in the first player's view
    (a network in the side to move's view has its wins and losses swapped for the other side).
    ``params`` may be a network per phase: each position is read by its phase's network."""
    if is_phased(params):
        networks = phase_networks(params)
        states = np.ascontiguousarray(states, dtype=np.int64)
        out = None
        for network, chosen in zip(networks, by_phase(game, states), strict=True):
            predicted = outcome_predictions(game, network, states[chosen])
            if out is None:
                out = np.empty((len(states), predicted.shape[1]), dtype=np.float32)
            out[chosen] = predicted
        return out
    shape = network_of(params)
    head = shape.head(OUTCOMES)
    if head is None:
        raise ValueError(f"{shape.describe()} has no outcome head")
    sizes = games.compiled_game(game)
    states = np.ascontiguousarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape[1] != sizes.state_words:
        raise ValueError(f"states must be (n, {sizes.state_words}) positions of {sizes.title}")
    size = evaluators.scratch_size(game, games.EVALUATOR_NETWORK, params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(MAX_SET_INPUTS, dtype=np.int64)
    out = np.empty((len(states), head.outputs), dtype=np.float32)
    _outcome_predictions(game, params, states, scratch, active, out)
    return out
