"""The compiled evaluators the searches take, built on a game's compiled interface
(:mod:`samuel.games.kernels`: its classic evaluation and network encoding) and the network's
forward pass (:mod:`samuel.nn.network`): :func:`evaluate` dispatches on the evaluator's number
(``EVALUATOR_*``, which a game declares it offers: :mod:`samuel.games.compiled_game`).
"""

from __future__ import annotations

import numpy as np

from samuel.games.compiled_game import (
    EVALUATOR_CLASSIC,
    EVALUATOR_HYBRID,
    EVALUATOR_MOVES_LEFT,
    EVALUATOR_NETWORK,
    EVALUATOR_PHASED,
    MAX_SET_INPUTS,
    MOVES_LEFT_NETWORK,
    NETWORK_SCRATCH,
    NETWORK_VALUES,
)
from samuel.games.kernels import (
    classic_evaluate,
    classic_feature_count,
    network_inputs,
    network_sign,
    phase,
    phase_count,
)
from samuel.jit import kernel
from samuel.nn import network
from samuel.nn.phased import OFFSETS
from samuel.nn.shape import FORWARD_SCRATCH

# The moves-left evaluator's reference, the head's plies left at the search's root, which the
# search writes before it starts (:func:`set_moves_left_reference`), is the scratch's last entry,
# past the room the evaluator itself uses (evaluators.scratch_size).


@kernel
def network_value(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """The network's value of a position, first player's point of view. ``params`` is the
    network's array (its plan and parameters); ``scratch`` needs ``NETWORK_SCRATCH`` float32
    entries and the network's forward scratch after them, ``active`` ``MAX_SET_INPUTS``."""
    values = scratch[NETWORK_VALUES : NETWORK_VALUES + MAX_SET_INPUTS]
    n = network_inputs(game, state, active, values)
    value = network.forward(params, active, values, n, scratch[NETWORK_SCRATCH:])
    if network_sign(game, state) < 0:
        return -value
    return value


@kernel
def phase_network_start(game: int, params: np.ndarray, state: np.ndarray) -> int:
    """Where the network of ``state``'s phase starts in a network per phase's packed array
    (:mod:`samuel.nn.phased`, checked to hold the game's phases)."""
    return int(params[OFFSETS + phase(game, state)])


@kernel
def phased_value(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """The value of a position by the network of its own phase, first player's point of view:
    every position a search or a game reaches is valued by its phase's network."""
    return network_value(
        game, params[phase_network_start(game, params, state) :], state, scratch, active
    )


@kernel
def moves_left_adjusted(
    value: float,
    plies: float,
    reference: float,
    threshold: float,
    max_effect: float,
    slope: float,
) -> float:
    """A decided value (beyond ``threshold`` either way) moved by up to ``max_effect`` towards
    the side that wins sooner than ``reference`` plies: ``v + sign(v) * D * (|v| - t) / (1 - t)``
    with ``D = clip(slope * (reference - plies), -max_effect, max_effect)``; a value inside the
    threshold is left alone (:mod:`samuel.evaluation.moves_left` says why this form)."""
    magnitude = abs(value)
    if magnitude <= threshold:
        return value
    shift = min(max_effect, max(-max_effect, slope * (reference - plies)))
    bonus = shift * (magnitude - threshold) / (1.0 - threshold)
    return value + bonus if value > 0 else value - bonus


@kernel
def moves_left_value(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """The moves-left evaluator (``EVALUATOR_MOVES_LEFT``): the network's value in the first
    player's view, adjusted by :func:`moves_left_adjusted` with the head's plies left against
    the reference in the scratch's last entry (the search's root's). The adjustment is
    odd in the value, so it is the same in either view; the plies left belong to the position,
    not to a side, and are not turned."""
    net = params[MOVES_LEFT_NETWORK:]
    value = float(network_value(game, net, state, scratch, active))
    # the head reads the h1 that forward pass just left
    plies = float(network.plies_left(net, scratch[NETWORK_SCRATCH:]))
    reference = float(scratch[scratch.shape[0] - 1])
    return moves_left_adjusted(
        value, plies, reference, float(params[0]), float(params[1]), float(params[2])
    )


@kernel
def set_moves_left_reference(
    game: int, params: np.ndarray, state: np.ndarray, scratch: np.ndarray, active: np.ndarray
) -> float:
    """Write the head's plies left in ``state`` (a search's root) where the moves-left
    evaluator reads its reference, and return it. ``params`` are the evaluator's."""
    net = params[MOVES_LEFT_NETWORK:]
    network_value(game, net, state, scratch, active)  # leaves h1 for the head
    plies = network.plies_left(net, scratch[NETWORK_SCRATCH:])
    scratch[scratch.shape[0] - 1] = plies
    return float(plies)


@kernel
def scratch_size(game: int, evaluator: int, params: np.ndarray) -> int:
    """The float32 scratch the evaluator needs with these (checked) parameters: the classic
    features, or the network's set inputs and forward pass (as its plan says), whichever is more,
    and the moves-left reference last."""
    room = classic_feature_count(game)
    if evaluator == EVALUATOR_PHASED:
        for p in range(phase_count(game)):
            start = int(params[OFFSETS + p])
            room = max(room, NETWORK_SCRATCH + int(params[start + FORWARD_SCRATCH]))
    elif evaluator != EVALUATOR_CLASSIC:
        start = MOVES_LEFT_NETWORK
        if evaluator == EVALUATOR_NETWORK:
            start = 0
        elif evaluator == EVALUATOR_HYBRID:
            start = 1 + classic_feature_count(game)
        room = max(room, NETWORK_SCRATCH + int(params[start + FORWARD_SCRATCH]))
    return room + 1


@kernel
def evaluate(
    game: int,
    evaluator: int,
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    active: np.ndarray,
) -> float:
    """The evaluator's score of a position that is not over, first player's point of view.

    ``scratch`` is float32 room (:func:`scratch_size`), ``active`` int64 room
    (``MAX_SET_INPUTS``) for the network's set inputs. The hybrid is ``classic + scale *
    network`` (both in the first player's view), its parameters packed as
    :mod:`samuel.evaluation.hybrid` says; the network runs first, since the classic features then
    overwrite the start of the scratch space. The moves-left evaluator is
    :func:`moves_left_value`, its parameters packed as :mod:`samuel.evaluation.moves_left` says;
    a network per phase, :func:`phased_value`.
    """
    if evaluator == EVALUATOR_CLASSIC:
        return classic_evaluate(game, state, params, scratch)
    if evaluator == EVALUATOR_NETWORK:
        return network_value(game, params, state, scratch, active)
    if evaluator == EVALUATOR_HYBRID:
        split = 1 + classic_feature_count(game)
        value = network_value(game, params[split:], state, scratch, active)
        classic = classic_evaluate(game, state, params[1:split], scratch)
        return classic + params[0] * value
    if evaluator == EVALUATOR_MOVES_LEFT:
        return moves_left_value(game, params, state, scratch, active)
    if evaluator == EVALUATOR_PHASED:
        return phased_value(game, params, state, scratch, active)
    raise ValueError("no such evaluator")
