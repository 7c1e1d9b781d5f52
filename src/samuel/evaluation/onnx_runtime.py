"""Positions valued through onnxruntime: the server's ``--runtime onnx``, a checked alternative to
the compiled forward pass for 0-ply evaluations (issue 43).

The network runs as an ONNX model (:mod:`samuel.nn.onnx_model`) on a batch of dense inputs, which
the game's own compiled encoder (``network_inputs``) makes from the positions
(:func:`position_inputs`). The functions here give the numbers Samuel's own give, position by
position, to float32 rounding:

- :func:`outcome_predictions`: the outcome head's chances in the first player's view, as
  :func:`samuel.evaluation.outcomes.outcome_predictions` (a network in the side to move's view has
  its wins and losses swapped where the other side is to move);
- :func:`network_values`: the network's value in the first player's view, as the searches' network
  evaluator (``kernels.network_value``, ``phased_value``) gives it: the value head's, or the
  expected points of a network valued by its outcomes, turned by the game's ``network_sign``.

A network per phase is read, for each position, by its own phase's network (the game's compiled
``phase``), as the compiled evaluator does. Positions are checked first (their shape and the
game's own check of its states): the encoder is compiled, and numba checks no bounds. A Samuel
Zero network (its raw inputs, a policy) is not a network these evaluators take; its model is
exported all the same (``samuel export --onnx``).
"""

from __future__ import annotations

import numpy as np

from samuel.games import descriptor_of
from samuel.games import kernels as games
from samuel.games.compiled_game import MAX_SET_INPUTS
from samuel.games.states import state_problem
from samuel.nn.onnx_model import OnnxNetwork, network_parts
from samuel.nn.phased import is_phased
from samuel.nn.shape import OUTCOMES, network_of

from .networks import check_network, check_phased, phase_names
from .phases import position_phases


def onnx_network(game: int, params: np.ndarray, threads: int = 1) -> OnnxNetwork:
    """The game's network ``params`` (one network, or a network per phase, as
    ``networks.load_network_or_phases`` gives it) run by onnxruntime, its phases' outputs named
    by the game's phases (``start/value``...); ValueError unless it is a network for the game.
    Make it once and keep it: a session takes milliseconds to make."""
    _check_network(game, params)
    return OnnxNetwork(params, phase_names(game) or None, threads)


def _check_network(game: int, params: np.ndarray) -> None:
    """ValueError unless ``params`` is a network, or a network per phase, for the game."""
    if is_phased(params):
        check_phased(params, game)
    else:
        check_network(params, game)


def check_positions(game: int, states: np.ndarray) -> np.ndarray:
    """``states`` as the encoder reads them, ``(n, state words)`` int64 C-contiguous; ValueError
    for an array of another shape or of numbers that are not integers, or a row that is no
    position of the game (its own check, :mod:`samuel.games.states`)."""
    sizes = games.compiled_game(game)
    array = np.asarray(states)
    if array.ndim != 2 or array.shape[1] != sizes.state_words:
        raise ValueError(
            f"{sizes.title} positions are an (n, {sizes.state_words}) array of kernel states, "
            f"not one of shape {array.shape}"
        )
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"positions are integers, not {array.dtype}")
    array = np.ascontiguousarray(array, dtype=np.int64)
    problem = state_problem(descriptor_of(game).name, array) if len(array) else None
    if problem is not None:
        raise ValueError(f"not a {sizes.title} position: {problem}")
    return array


def position_inputs(game: int, states: np.ndarray) -> np.ndarray:
    """The dense inputs of the game's network for each of ``states`` (``rules.encode``'s
    kernel states, one a row), ``(n, inputs)`` float32: each row the set inputs the game's
    compiled encoder lists, 0 elsewhere. ValueError for states that are no positions of it."""
    return _dense(game, check_positions(game, states))


def _dense(game: int, states: np.ndarray) -> np.ndarray:
    inputs = games.compiled_game(game).network_inputs
    dense = np.zeros((len(states), inputs), dtype=np.float32)
    active = np.zeros(MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(MAX_SET_INPUTS, dtype=np.float32)
    for i in range(len(states)):
        count = games.network_inputs(game, states[i], active, values)
        # a sum, as the sparse forward pass adds each listed input's row
        np.add.at(dense[i], active[:count], values[:count])
    return dense


def _signs(game: int, states: np.ndarray) -> np.ndarray:
    """Each position's ``network_sign``: -1 where the network's view is the other player's."""
    return np.array([games.network_sign(game, state) for state in states], dtype=np.int64)


def _head(game: int, network: OnnxNetwork, states: np.ndarray, head: str) -> np.ndarray:
    """The output ``head`` for each of the (checked) ``states``: a network per phase's from each
    position's own phase's network."""
    _check_network(game, network.params)
    outputs = network.evaluate(_dense(game, states))
    if not network.phases:
        return outputs[network.output(head)]
    by_phase = np.stack([outputs[network.output(head, p)] for p in range(len(network.phases))])
    return by_phase[position_phases(game, states), np.arange(len(states))]


def network_values(game: int, network: OnnxNetwork, states: np.ndarray) -> np.ndarray:
    """The network's value of each of ``states``, first player's point of view, ``(n,)``
    float32: what the searches' network evaluator gives a position that is not over."""
    states = check_positions(game, states)
    values = _head(game, network, states, "value")
    return np.where(_signs(game, states) < 0, -values, values).astype(np.float32)


def outcome_predictions(game: int, network: OnnxNetwork, states: np.ndarray) -> np.ndarray:
    """The outcome head's chances for each of ``states``, ``(n, 2k)`` float32 in the first
    player's view, as :func:`samuel.evaluation.outcomes.outcome_predictions` gives them;
    ValueError for a network without an outcome head."""
    states = check_positions(game, states)
    for part in network_parts(network.params):
        shape = network_of(part)
        if not shape.has(OUTCOMES):
            raise ValueError(f"{shape.describe()} has no outcome head")
    chances = _head(game, network, states, "outcomes")
    width = chances.shape[1]
    half = width // 2
    swapped = (np.arange(width) + half) % max(2 * half, 1)  # wins for losses, as Samuel's
    flip = _signs(game, states) < 0
    return np.where(flip[:, None], chances[:, swapped], chances).astype(np.float32)
