"""What is wrong with rows of kernel states that claim to be positions of a game: the check every
caller runs before handing positions from outside (a file, a store, another process) to a compiled
kernel. The kernels index tables by the points of these masks and numba checks no bounds, so a bad
row would read outside them, or crash. Each check names the first bad row and why.

Each game's check is its own, in its package's ``states`` part (``state_problem``); a game without
one cannot have its states read from outside.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import descriptors


def _state_problems() -> dict[str, Callable[[np.ndarray], str | None]]:
    found = {}
    for name, descriptor in descriptors().items():
        part = descriptor.part("states")
        if part is not None:
            found[name] = part.state_problem
    return found


# Each game's check of its states, by registry name (every game whose package has the part).
STATE_PROBLEMS: dict[str, Callable[[np.ndarray], str | None]] = _state_problems()


def state_problem(game: str, states: np.ndarray) -> str | None:
    """What is wrong with the first row of ``states`` that is not a position of the game named
    ``game`` (a registry name), or None; ValueError for a game that has no check of its states."""
    if game not in STATE_PROBLEMS:
        raise ValueError(f"{game} has no check of its states (its package has no states part)")
    return STATE_PROBLEMS[game](states)
