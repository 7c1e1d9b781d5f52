"""Each game's network, for the rest of the code: weights files checked against the game they are
for, a random start, the network shipped with the program.

The network itself (:mod:`samuel.nn.network`) and its file format (:mod:`samuel.nn.weights`)
know nothing of games; a file records its game's number (:mod:`samuel.games.kernels`), and this
module is where a file meets the game that wants it: loading one made for another game is a
:class:`~samuel.nn.weights.WeightsFileError` that names both games.

A Samuel Zero network (:mod:`samuel.nn.zero`: the value network with the moves-left head and a
policy over the game's actions, :mod:`samuel.games.actions`) has its own functions here
(``*_zero_network``); each kind of file is refused where the other is wanted. A Zero network
reads only the raw position (``CompiledGame.zero_inputs``): Zero learns with no hand-written
knowledge, so Tigers & Sheep's Zero network has the seed's 52 inputs, not the classic features.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np

from samuel.nn import network, zero
from samuel.nn.weights import WeightsFileError, file_bytes, read_network, save_parameters

from . import descriptors, kernels
from .actions import ACTION_COUNTS, action_count

NETWORKS_FOLDER = Path(__file__).parent.parent / "nn"  # where the shipped networks are


def _training_parts() -> dict[int, object]:
    """Each game's ``training`` part by its number (the games that have one)."""
    found = {}
    for descriptor in descriptors().values():
        part = descriptor.part("training")
        if part is not None:
            found[descriptor.number] = part
    return found


def _shipped(name: str) -> dict[int, Path]:
    """The networks of one kind shipped with the package, by game number: the file each game's
    ``training`` part names under ``name`` (None: the game ships none of that kind)."""
    return {
        number: NETWORKS_FOLDER / getattr(part, name)
        for number, part in _training_parts().items()
        if getattr(part, name) is not None
    }


# The networks shipped with the package, by game number: the best of each game's documented
# training run, picked by a screen and confirmed by a fresh match (docs/training.md for Tigers &
# Sheep, docs/draughts.md for draughts).
SHIPPED = _shipped("SHIPPED")
# The Samuel Zero networks shipped (docs/zero.md): the ``zero`` player's default network.
SHIPPED_ZERO = _shipped("SHIPPED_ZERO")
# The shipped network with a moves-left head trained alone (docs/moves-left.md): its value is
# bit-for-bit the shipped network's, and ``net:moves_left=on`` plays it.
SHIPPED_MOVES_LEFT = _shipped("SHIPPED_MOVES_LEFT")
# Each game's earlier input layouts, each the start of its present one: a file of one of them loads
# as the present network with no weight on the inputs added since (network.widen), the same
# function. Each game's ``training`` part lists its own (Tigers & Sheep's seed network had the raw
# position only).
EARLIER_INPUTS = {
    number: tuple(part.EARLIER_INPUTS)
    for number, part in _training_parts().items()
    if part.EARLIER_INPUTS
}
# The largest network file of any game, heads included (a server refuses bigger ones unopened).
LARGEST_FILE_BYTES = max(
    max(
        file_bytes(g.network_inputs, True),
        file_bytes(g.zero_inputs, True, action_count(n)) if n in ACTION_COUNTS else 0,
    )
    for n, g in kernels.GAMES.items()
)


def _base(game: int) -> int:
    kernels.compiled_game(game)  # raises ValueError for a number that names no game
    return int(game) & kernels.GAME_MASK


def network_inputs(game: int) -> int:
    """The input count of the game's network."""
    return kernels.GAMES[_base(game)].network_inputs


def zero_inputs(game: int) -> int:
    """The input count of the game's Zero network: the raw position only
    (``CompiledGame.zero_inputs``)."""
    return kernels.GAMES[_base(game)].zero_inputs


def parameter_count(game: int, moves_left: bool = False) -> int:
    """How many parameters the game's network has (with the moves-left head or not)."""
    return network.parameter_count(network_inputs(game), moves_left)


def is_network(params: np.ndarray, game: int) -> bool:
    """Whether ``params`` is a flat array of the game's network, with or without the head."""
    return np.ndim(params) == 1 and len(params) in (
        parameter_count(game),
        parameter_count(game, True),
    )


def has_moves_left(params: np.ndarray, game: int) -> bool:
    """Whether the game's network ``params`` has the moves-left head (a ValueError if it is not
    the game's network at all)."""
    check_network(params, game)
    return len(params) == parameter_count(game, True)


def check_network(params: np.ndarray, game: int) -> None:
    """Raise ValueError unless ``params`` is the game's network (with or without the head): the
    kernels read it at offsets that its length must cover."""
    if not is_network(params, game):
        raise ValueError(
            f"{kernels.GAMES[_base(game)].title}'s network has {parameter_count(game)} "
            f"parameters ({parameter_count(game, True)} with the moves-left head), not "
            f"{np.shape(params)}"
        )


def random_network(game: int, seed: int, moves_left: bool = False) -> np.ndarray:
    """The game's network with He-initialised random weights from ``seed`` (with the moves-left
    head, whose weights are drawn last, or not)."""
    return network.random_parameters(network_inputs(game), seed, moves_left)


def save_network(params: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the game's network (with its moves-left head if it has one) to ``path``, recording
    the game and the heads, atomically."""
    check_network(params, game)
    save_parameters(params, path, _base(game))


def load_network(path: str | os.PathLike, game: int) -> np.ndarray:
    """The parameters in the weights file at ``path``, which must be a network for the game
    (with the moves-left head's parameters last, if the file has it: :func:`has_moves_left`);
    raises :class:`WeightsFileError` saying what is wrong (a bad file, or another game's)."""
    return _read_for(path, _base(game), zero_network=False).params


def _read_for(path: str | os.PathLike, base: int, zero_network: bool):
    """The file at ``path``, checked to be for the game numbered ``base``: its game, its kind (a
    Zero network or a value network), and its input count (a value network of an earlier layout
    widened to the present one)."""
    title = kernels.GAMES[base].title
    loaded = read_network(path)
    if loaded.game != base:
        other = kernels.GAMES.get(loaded.game)
        made_for = other.title if other else f"game number {loaded.game}, which this program lacks"
        raise WeightsFileError(f"{path} is a network for {made_for}, not {title}")
    if zero_network and not loaded.actions:
        raise WeightsFileError(f"{path} is a value network without a policy, not a Zero network")
    if not zero_network and loaded.actions:
        raise WeightsFileError(
            f"{path} is a Samuel Zero network (with a policy), not a value network; the zero "
            "player loads it"
        )
    inputs = zero_inputs(base) if zero_network else network_inputs(base)
    earlier = () if zero_network else EARLIER_INPUTS.get(base, ())
    if loaded.inputs in earlier:
        params = network.widen(loaded.params, loaded.inputs, inputs)
        return dataclasses.replace(loaded, inputs=inputs, params=params)
    if loaded.inputs != inputs:
        raise WeightsFileError(f"{path} has {loaded.inputs} inputs; {title}'s network has {inputs}")
    return loaded


def zero_parameter_count(game: int) -> int:
    """How many parameters the game's Zero network has."""
    return zero.zero_parameter_count(zero_inputs(game), action_count(game))


def check_zero_network(params: np.ndarray, game: int) -> None:
    """Raise ValueError unless ``params`` is the game's Zero network (a flat array of
    :func:`zero_parameter_count` numbers)."""
    if np.ndim(params) != 1 or len(params) != zero_parameter_count(game):
        raise ValueError(
            f"{kernels.GAMES[_base(game)].title}'s Zero network has {zero_parameter_count(game)} "
            f"parameters, not {np.shape(params)}"
        )


def random_zero_network(game: int, seed: int) -> np.ndarray:
    """The game's Zero network with random weights from ``seed``
    (:func:`samuel.nn.zero.random_zero_parameters`)."""
    return zero.random_zero_parameters(zero_inputs(game), action_count(game), seed)


def save_zero_network(params: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the game's Zero network to ``path`` (TSNN version 4: the game, the heads and the
    action count recorded), atomically."""
    check_zero_network(params, game)
    save_parameters(params, path, _base(game), action_count(game))


def load_zero_network(path: str | os.PathLike, game: int) -> np.ndarray:
    """The parameters of the Zero network in the weights file at ``path``, which must be one
    for the game; raises :class:`WeightsFileError` saying what is wrong (a bad file, another
    game's, a network without a policy, a policy over other actions)."""
    base = _base(game)
    title = kernels.GAMES[base].title
    loaded = _read_for(path, base, zero_network=True)
    if loaded.actions != action_count(base):
        raise WeightsFileError(
            f"{path} has a policy of {loaded.actions} actions; {title} has {action_count(base)}"
        )
    return loaded.params


def shipped_network(game: int) -> Path | None:
    """The network shipped for the game (the ``net`` player), or None if it has none."""
    path = SHIPPED.get(_base(game))
    return path if path is not None and path.exists() else None


def shipped_moves_left_network(game: int) -> Path | None:
    """The shipped network with its moves-left head (``net:moves_left=on``), or None."""
    path = SHIPPED_MOVES_LEFT.get(_base(game))
    return path if path is not None and path.exists() else None


def shipped_zero_network(game: int) -> Path | None:
    """The Samuel Zero network shipped for the game (the ``zero`` player's), or None."""
    path = SHIPPED_ZERO.get(_base(game))
    return path if path is not None and path.exists() else None
