"""Each game's network, for the rest of the code: weights files checked against the game they are
for, a random start, the network shipped with the program.

The network itself (:mod:`samuel.nn.network`) and its file format (:mod:`samuel.nn.weights`)
know nothing of games; a file records its game's number (:mod:`samuel.games.kernels`), and this
module is where a file meets the game that wants it: loading one made for another game is a
:class:`~samuel.nn.weights.WeightsFileError` that names both games.

A network is its array (its plan, then its parameters: :mod:`samuel.nn.shape`), so every function
here reads its shape from it. A Samuel Zero network (:mod:`samuel.nn.zero`: the value network
with the moves-left head and a policy over the game's actions, :mod:`samuel.games.actions`) has
its own functions here
(``*_zero_network``); each kind of file is refused where the other is wanted. A Zero network
reads only the raw position (``CompiledGame.zero_inputs``): Zero learns with no hand-written
knowledge, so Tigers & Sheep's Zero network has the seed's 52 inputs, not the classic features.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from samuel.games import descriptors, kernels
from samuel.games.actions import action_count
from samuel.nn import shape as nn_shape
from samuel.nn.phased import is_phased, pack_phases, phase_networks, phases_of
from samuel.nn.shape import HIDDEN, PLIES, POLICY, Network, ShapeError, network_of
from samuel.nn.weights import (
    PhasedFile,
    WeightsFileError,
    read_weights,
    save_network_array,
    save_phased_array,
)
from samuel.nn.zero import zero_shape

NETWORKS_FOLDER = Path(__file__).parent.parent / "nn"  # where the shipped networks are
# The largest network file a server opens: the most parameters any network may have.
LARGEST_FILE_BYTES = 4 * (nn_shape.MAX_PARAMETERS + nn_shape.PLAN) + 4096


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


def outcome_classes(game: int) -> int:
    """How many classes of win a network of the game values by its outcome head (its
    ``training`` part's ``OUTCOME_CLASSES``: backgammon's 3, a win, a gammon and a backgammon);
    0 for a game whose network has a value head."""
    part = _training_parts().get(_base(game))
    return 0 if part is None else part.OUTCOME_CLASSES


def network_shape(game: int, moves_left: bool = False, hidden: tuple[int, ...] = HIDDEN) -> Network:
    """The shape of the game's network: its inputs, the shared layers ``hidden``, a value head
    (or, for a game whose network is valued by its outcomes, an outcome head of two outputs a
    class, :mod:`samuel.nn.shape`) and, with ``moves_left``, the plies head."""
    classes = outcome_classes(game)
    value = nn_shape.outcomes_head(2 * classes) if classes else nn_shape.value_head()
    heads = (value, nn_shape.plies_head()) if moves_left else (value,)
    return Network(network_inputs(game), hidden, heads)


def valued(shape: Network) -> bool:
    """Whether the network has a value: a value head, or an outcome head valuing it."""
    return shape.has(nn_shape.VALUE) or shape.has(nn_shape.OUTCOMES)


def check_network(params: np.ndarray, game: int) -> Network:
    """The shape of ``params``; ValueError unless it is a network array for the game (its
    inputs, a value head, no policy): the kernels read it at the offsets its plan gives."""
    title = kernels.GAMES[_base(game)].title
    try:
        shape = network_of(params)
    except ShapeError as error:
        raise ValueError(f"not a network for {title}: {error}") from None
    if shape.inputs != network_inputs(game) or not valued(shape) or shape.has(POLICY):
        classes = outcome_classes(game)
        head = f"an outcome head of {2 * classes} chances" if classes else "a value head"
        raise ValueError(
            f"{title}'s network has {network_inputs(game)} inputs, {head} and no policy, "
            f"not {shape.describe()}"
        )
    return shape


def is_network(params: np.ndarray, game: int) -> bool:
    """Whether ``params`` is a network array for the game (any layers, any heads but a policy)."""
    try:
        check_network(params, game)
    except ValueError:
        return False
    return True


def has_moves_left(params: np.ndarray, game: int) -> bool:
    """Whether the game's network ``params`` has the plies head (a ValueError if it is not the
    game's network at all)."""
    return check_network(params, game).has(PLIES)


def random_network(
    game: int, seed: int, moves_left: bool = False, hidden: tuple[int, ...] = HIDDEN
) -> np.ndarray:
    """The game's network with He-initialised random weights from ``seed`` (with the plies head,
    whose weights are drawn last, or not)."""
    return network_shape(game, moves_left, hidden).random(seed)


def save_network(params: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the game's network to ``path`` (TSNN version 5: the game and the whole shape),
    atomically."""
    check_network(params, game)
    save_network_array(params, path, _base(game))


def load_network(path: str | os.PathLike, game: int) -> np.ndarray:
    """The network array in the weights file at ``path``, which must be a network for the game;
    raises :class:`WeightsFileError` saying what is wrong (a bad file, or another game's)."""
    return _read_for(path, _base(game), zero_network=False)


def _read_for(
    path: str | os.PathLike, base: int, zero_network: bool, phased: bool = False
) -> np.ndarray:
    """The network in the file at ``path``, checked to be for the game numbered ``base``: its
    game, its kind (a Zero network or a value network), and its input count (a value network of
    an earlier layout widened to the present one). With ``phased``, a file of one network per
    phase is read too (as its packed array, each phase's network checked)."""
    title = kernels.GAMES[base].title
    loaded = read_weights(path)
    if loaded.game != base:
        other = kernels.GAMES.get(loaded.game)
        made_for = other.title if other else f"game number {loaded.game}, which this program lacks"
        raise WeightsFileError(f"{path} is a network for {made_for}, not {title}")
    if isinstance(loaded, PhasedFile):
        if not phased or zero_network:
            raise WeightsFileError(
                f"{path} holds one network per phase ({len(loaded.networks)} phases), where one "
                "network is wanted"
            )
        try:
            check_phased(loaded.array, base)
        except ValueError as error:
            raise WeightsFileError(f"{path}: {error}") from None
        return loaded.array
    shape = loaded.network
    if zero_network and not shape.has(POLICY):
        raise WeightsFileError(f"{path} is a value network without a policy, not a Zero network")
    if not zero_network and shape.has(POLICY):
        raise WeightsFileError(
            f"{path} is a Samuel Zero network (with a policy), not a value network; the zero "
            "player loads it"
        )
    if not valued(shape):
        raise WeightsFileError(f"{path} has no value head and no outcome head ({shape.describe()})")
    inputs = zero_inputs(base) if zero_network else network_inputs(base)
    earlier = () if zero_network else EARLIER_INPUTS.get(base, ())
    if shape.inputs in earlier:
        return nn_shape.widen(loaded.array, inputs)
    if shape.inputs != inputs:
        raise WeightsFileError(f"{path} has {shape.inputs} inputs; {title}'s network has {inputs}")
    return loaded.array


def phase_count(game: int) -> int:
    """The phases the game tells apart (1: it has none, and no network per phase)."""
    return kernels.GAMES[_base(game)].phases


def phase_names(game: int) -> tuple[str, ...]:
    """The names of the game's phases, phase 0 first (its ``training`` part's ``PHASES``: long
    nardy's start, middle and race); () for a game played in one phase."""
    part = _training_parts().get(_base(game))
    return tuple(getattr(part, "PHASES", ())) if phase_count(game) > 1 else ()


def check_phased(params: np.ndarray, game: int) -> tuple[Network, ...]:
    """Each phase's shape; ValueError unless ``params`` is a packed network per phase
    (:mod:`samuel.nn.phased`) of the game's phases, each a network for the game."""
    title = kernels.GAMES[_base(game)].title
    phases = phase_count(game)
    if phases < 2:
        raise ValueError(f"{title} is played in one phase: it has no network per phase")
    try:
        shapes = phases_of(params)
    except ShapeError as error:
        raise ValueError(f"not a network per phase for {title}: {error}") from None
    if len(shapes) != phases:
        raise ValueError(f"{title} has {phases} phases, not {len(shapes)}")
    for network in phase_networks(params):
        check_network(network, game)
    return shapes


def is_phased_network(params, game: int) -> bool:
    """Whether ``params`` is a packed network per phase for the game."""
    try:
        check_phased(params, game)
    except ValueError:
        return False
    return True


def phased_network(game: int, network: np.ndarray) -> np.ndarray:
    """A network per phase for the game whose every phase starts as ``network``."""
    check_network(network, game)
    return pack_phases([network.copy() for _ in range(phase_count(game))])


def random_phased_network(game: int, seed: int, hidden: tuple[int, ...] = HIDDEN) -> np.ndarray:
    """The game's network per phase, each phase's network He-initialised from its own seed (the
    ``seed`` and the phase's number)."""
    from samuel.seeds import derive_seed

    shape = network_shape(game, False, hidden)
    return pack_phases([shape.random(derive_seed(seed, p)) for p in range(phase_count(game))])


def save_phased_network(params: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the game's network per phase to ``path`` (TSNN version 6), atomically."""
    check_phased(params, game)
    save_phased_array(params, path, _base(game))


def load_network_or_phases(path: str | os.PathLike, game: int) -> np.ndarray:
    """The network in the weights file at ``path``, or its packed network per phase (a version
    6 file), for the game; :class:`WeightsFileError` saying what is wrong."""
    return _read_for(path, _base(game), zero_network=False, phased=True)


def save_any_network(params: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the game's network, or network per phase, to ``path``, atomically."""
    if is_phased(params):
        save_phased_network(params, path, game)
    else:
        save_network(params, path, game)


def zero_network_shape(game: int) -> Network:
    """The shape of the game's Zero network (:func:`samuel.nn.zero.zero_shape`)."""
    return zero_shape(zero_inputs(game), action_count(game))


def check_zero_network(params: np.ndarray, game: int) -> Network:
    """The shape of ``params``; ValueError unless it is a Zero network for the game: its raw
    inputs, a value head, a plies head and a policy over the game's actions."""
    title = kernels.GAMES[_base(game)].title
    try:
        shape = network_of(params)
    except ShapeError as error:
        raise ValueError(f"not a Zero network for {title}: {error}") from None
    if (
        shape.inputs != zero_inputs(game)
        or shape.actions != action_count(game)
        or not (shape.has(nn_shape.VALUE) and shape.has(PLIES))
    ):
        raise ValueError(
            f"{title}'s Zero network has {zero_inputs(game)} inputs, a value, plies left and a "
            f"policy of {action_count(game)} actions, not {shape.describe()}"
        )
    return shape


def random_zero_network(game: int, seed: int) -> np.ndarray:
    """The game's Zero network with random weights from ``seed``."""
    return zero_network_shape(game).random(seed)


def save_zero_network(params: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the game's Zero network to ``path`` (TSNN version 5), atomically."""
    check_zero_network(params, game)
    save_network_array(params, path, _base(game))


def load_zero_network(path: str | os.PathLike, game: int) -> np.ndarray:
    """The Zero network in the weights file at ``path``, which must be one for the game; raises
    :class:`WeightsFileError` saying what is wrong (a bad file, another game's, a network without
    a policy, a policy over other actions)."""
    base = _base(game)
    title = kernels.GAMES[base].title
    array = _read_for(path, base, zero_network=True)
    shape = network_of(array)
    if shape.actions != action_count(base) or not shape.has(PLIES):
        raise WeightsFileError(
            f"{path} has a policy of {shape.actions} actions; {title} has {action_count(base)}"
            + ("" if shape.has(PLIES) else ", and no plies head")
        )
    return array


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
