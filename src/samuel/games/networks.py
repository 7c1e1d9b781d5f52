"""Each game's network, for the rest of the code: weights files checked against the game they are
for, a random start, the network shipped with the program.

The network itself (:mod:`samuel.nn.network`) and its file format (:mod:`samuel.nn.weights`)
know nothing of games; a file records its game's number (:mod:`samuel.games.kernels`), and this
module is where a file meets the game that wants it: loading one made for another game is a
:class:`~samuel.nn.weights.WeightsFileError` that names both games.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from samuel.nn import network
from samuel.nn.weights import WeightsFileError, file_bytes, read_network, save_parameters

from . import kernels

# The networks shipped with the package, by game number: the best of the documented training
# run for Tigers & Sheep (docs/training.md). Draughts has none yet.
SHIPPED = {kernels.TIGERS_AND_SHEEP: Path(__file__).parent.parent / "nn" / "shipped.bin"}
# The largest network file of any game, heads included (a server refuses bigger ones unopened).
LARGEST_FILE_BYTES = max(file_bytes(g.network_inputs, True) for g in kernels.GAMES.values())


def _base(game: int) -> int:
    kernels.compiled_game(game)  # raises ValueError for a number that names no game
    return int(game) & kernels.GAME_MASK


def network_inputs(game: int) -> int:
    """The input count of the game's network."""
    return kernels.GAMES[_base(game)].network_inputs


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
    base = _base(game)
    title = kernels.GAMES[base].title
    loaded = read_network(path)
    if loaded.game != base:
        other = kernels.GAMES.get(loaded.game)
        made_for = other.title if other else f"game number {loaded.game}, which this program lacks"
        raise WeightsFileError(f"{path} is a network for {made_for}, not {title}")
    if loaded.inputs != network_inputs(base):
        raise WeightsFileError(
            f"{path} has {loaded.inputs} inputs; {title}'s network has {network_inputs(base)}"
        )
    return loaded.params


def shipped_network(game: int) -> Path | None:
    """The network shipped for the game (the ``net`` player), or None if it has none."""
    path = SHIPPED.get(_base(game))
    return path if path is not None and path.exists() else None
