"""Stage 6: relabelling after a promotion, in priority order.

The new champion's labels are better than the old ones, but relabelling everything is stage 2
over the whole store again. The seed orders the work instead; the priority of a labelled
position is the sum of three terms, each in the units of a value (-1..1):

- **disagreement**: ``|quick - label|``, where ``quick`` is the new champion's static value of
  the position (no search): where the champion now thinks differently, relabelling matters most;
- **uncertainty**: the label's standard error (few rollouts, a noisy position);
- **recency**: ``RECENCY_WEIGHT`` times the position's rank among the game's positions by age
  (1 for the newest, 0 for the oldest), so the newest sample of the data is done first.

Exact labels (the table's, a decided position's: no rollouts) are never relabelled: their
priority stays empty.

The priorities are computed chunk by chunk over the stream of labelled positions and written to
``positions.priority``; the relabelling units then take the best ``relabel_positions`` through
the ``(game, priority)`` index. A relabelled position's priority is cleared with its new label.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sqlalchemy import func, select

from .dataset import CHUNK, labelled_after, set_priorities
from .schema import Position
from .store import Store

RECENCY_WEIGHT = 0.25  # a new position is worth a quarter of a full disagreement


def priorities(
    quick: np.ndarray,
    labels: np.ndarray,
    stderr: np.ndarray,
    ids: np.ndarray,
    first: int,
    last: int,
) -> np.ndarray:
    """The priority of each position (module docstring); ``first``/``last``: the game's oldest
    and newest position ids."""
    span = max(1, last - first)
    recency = (ids - first) / span
    return np.abs(quick - labels) + stderr + RECENCY_WEIGHT * recency


def prioritise(
    store: Store,
    game: str,
    quick_values: Callable[[np.ndarray], np.ndarray],
    progress: Callable[[int], None] | None = None,
) -> int:
    """Compute and store the priority of every labelled position of ``game``;
    ``quick_values(states)`` is the new champion's static value of each state. Returns how many
    positions were given one. Each chunk's priorities are committed as they are computed (the
    walk goes by id, one transaction a chunk)."""
    with store.read() as connection:
        first, last = connection.execute(
            select(func.min(Position.id), func.max(Position.id)).where(Position.game == game)
        ).one()
    if first is None:
        return 0
    done, after = 0, first - 1
    while True:
        # One transaction a chunk, reading and writing it: no read stays open across the walk
        # (on SQLite one would keep the write-ahead log from being checkpointed, and it would
        # grow by every chunk's pages).
        with store.write() as connection:
            part = labelled_after(connection, game, after, CHUNK)
            if len(part) == 0:
                break
            values = priorities(
                quick_values(part.states), part.values, part.stderr, part.ids, first, last
            )
            keep = ~part.exact  # exact labels stay: their priority stays empty
            set_priorities(connection, part.ids[keep], values[keep])
        after = int(part.ids[-1])
        done += len(part)
        if progress is not None:
            progress(len(part))
    return done
