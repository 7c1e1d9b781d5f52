"""Which phase each of many positions is in, for the code that serves a network per phase from
Python: training (each phase's network learns its own phase's positions) and the outcome head's
chances read for whole positions. The search reads the phase itself, position by position
(:func:`samuel.evaluation.kernels.phased_value`).
"""

from __future__ import annotations

import numpy as np

from samuel.games import kernels as games
from samuel.jit import kernel


@kernel
def _phases(game, states, out):
    for i in range(states.shape[0]):
        out[i] = games.phase(game, states[i])


def position_phases(game: int, states: np.ndarray) -> np.ndarray:
    """The phase of each of ``states`` ((n, state words) positions of the game), as int64."""
    sizes = games.compiled_game(game)
    states = np.ascontiguousarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape[1] != sizes.state_words:
        raise ValueError(f"states must be (n, {sizes.state_words}) positions of {sizes.title}")
    out = np.empty(len(states), dtype=np.int64)
    _phases(game, states, out)
    return out


def by_phase(game: int, states: np.ndarray) -> list[np.ndarray]:
    """For each of the game's phases, the indices of the ``states`` in it."""
    phases = position_phases(game, states)
    return [np.flatnonzero(phases == p) for p in range(games.compiled_game(game).phases)]
