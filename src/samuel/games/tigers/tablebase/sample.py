"""Positions drawn at random from a built tablebase, with their exact values and distances.

The pipeline's table source and ``samuel train --table-positions`` both draw here: distinct
positions with the hand empty that the game has not already decided, each with its value with
perfect play from the tigers' side (+1 the tigers win, 0 a draw, -1 the sheep win) and its
distance to the end in plies (0 for a draw).
"""

from __future__ import annotations

import numpy as np

from samuel.games.tigers.board import FULL
from samuel.games.tigers.rules import Position

from .index import decode_index, layer_size
from .probe import Tablebase
from .values import outcome_of

ATTEMPTS_PER_POSITION = 50  # give up after this many draws per position asked


def table_size(table: Tablebase) -> int:
    """How many positions the table indexes (every arrangement, reachable in play or not)."""
    return 2 * sum(layer_size(captured) for captured in range(table.captures_to_win))


def draw_positions(
    table: Tablebase,
    count: int,
    rng: np.random.Generator | int,
    layer_weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` distinct undecided positions of ``table`` with the hand empty, drawn with
    ``rng`` (a Generator, or a seed for one): ``(states, outcomes, plies)``.

    ``states`` is ``(count, 4)`` int64 (``Position.encode``); ``outcomes`` int8, the tigers'
    view; ``plies`` int32, the distance to the end with perfect play (0 for a draw). A *layer*
    is the positions with ``captured`` sheep captured and one side to move, numbered as the
    table's ``layers``: ``2 * captured + tiger_to_move``. Layers are drawn by ``layer_weights``
    (one non-negative weight each), or uniformly without them; a position uniformly within its
    layer by index. Decided positions (no legal move) are drawn again. ValueError if ``count``
    is more than half the table, or the layers weighted hold too few undecided positions."""
    layers = 2 * table.captures_to_win
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"the number of positions must be a whole number, not {count!r}")
    count = int(count)
    if count > table_size(table) // 2:
        raise ValueError(
            f"{count} positions is too many for a table of {table_size(table)} positions"
        )
    if layer_weights is None:
        weights = np.ones(layers)
    else:
        weights = np.asarray(layer_weights, dtype=np.float64)
        if weights.shape != (layers,) or not np.all(np.isfinite(weights)) or weights.min() < 0:
            raise ValueError(f"layer weights are {layers} non-negative numbers")
        if weights.sum() == 0:
            raise ValueError("the layer weights are all 0")
    probabilities = weights / weights.sum()
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    seen: set[tuple[int, int]] = set()
    states = np.zeros((count, 4), dtype=np.int64)
    outcomes = np.zeros(count, dtype=np.int8)
    plies = np.zeros(count, dtype=np.int32)
    found = tries = 0
    while found < count:
        if tries >= ATTEMPTS_PER_POSITION * count:
            raise ValueError(
                f"only {found} of {count} tablebase positions found in {tries} tries: "
                "the layers drawn hold too few undecided positions"
            )
        tries += 1
        layer = int(rng.choice(layers, p=probabilities))
        captured, side = divmod(layer, 2)
        index = int(rng.integers(layer_size(captured)))
        if (layer, index) in seen:
            continue
        seen.add((layer, index))
        tigers, empty = (int(v) for v in decode_index(index, captured + 1))
        position = Position(tigers, FULL & ~(tigers | empty), 0, bool(side), table.captures_to_win)
        if position.decided_outcome() is not None:
            continue
        outcome, distance = outcome_of(table.code(position))  # the side to move's view
        states[found] = position.encode()
        outcomes[found] = outcome if side else -outcome
        plies[found] = distance
        found += 1
    return states, outcomes, plies
