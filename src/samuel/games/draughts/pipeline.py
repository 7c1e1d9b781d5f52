"""What the production loop's sources (:mod:`samuel.pipeline.sources`) need of English draughts
(``descriptor.part("pipeline")``): the rules of its number, a kernel state read back as a
position, what a placement distribution measures of a position and how a measured one makes a
position again, and the expert players' depths.
"""

from __future__ import annotations

import numpy as np

# What a placement distribution measures (samuel.pipeline.sources' docstring): the count tuple's
# fields, the piece kinds placed, the board's squares, each kind's count buckets (0, 1, 2, 3-4,
# 5-6, ..., 11-12) and the largest value of each count field.
COUNT_FIELDS = ("black_men", "black_kings", "white_men", "white_kings", "black_to_move")
KINDS = ("black_men", "black_kings", "white_men", "white_kings")
SQUARES = 32
BUCKET_LOWS = (0, 1, 2, 3, 5, 7, 9, 11)
MOST = (12, 12, 12, 12, 1)

# The expert players' depths, for a 2-core machine (shared with other work), measured warm with 2
# numba threads: classic 8 gives about 540 decision points a second. A ply deeper roughly divides
# this by 3-5.
EXPERT_DEPTHS = {"classic": 8, "hybrid": 6}


def rules(number: int):
    """The rules of the game numbered ``number`` (draughts has no variants)."""
    from .rules import RULES

    return RULES


def decode(rules, state: np.ndarray):
    """The position of a kernel state row (the game's words)."""
    return type(rules.initial_position()).decode(state)


def masks_and_counts(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(masks, counts)`` of kernel state rows (int64, masks already checked to be on the
    board): each kind's mask per position (n, kinds) and the count tuples (n, fields); ValueError
    for a row that is no position."""
    full = (1 << SQUARES) - 1
    black, white, kings, side = states[:, 0], states[:, 1], states[:, 2], states[:, 3]
    if (black & white).any() or (kings & ~(black | white)).any() or (kings > full).any():
        raise ValueError("a state is no draughts position (overlapping pieces or kings)")
    masks = np.stack([black & ~kings, black & kings, white & ~kings, white & kings], axis=1)
    counts = np.concatenate([np.bitwise_count(masks).astype(np.int64), side[:, None]], axis=1)
    if (counts[:, 0] + counts[:, 1] > 12).any() or (counts[:, 2] + counts[:, 3] > 12).any():
        raise ValueError("a state is no draughts position (more than 12 pieces a side)")
    return masks, counts


def check_counts(counts: np.ndarray) -> None:
    """Raise ValueError unless every count tuple (rows of COUNT_FIELDS) is possible."""
    if (counts[:, 0] + counts[:, 1] > 12).any() or (counts[:, 2] + counts[:, 3] > 12).any():
        raise ValueError("a side has at most 12 pieces")


def kind_counts(values: np.ndarray) -> list[int]:
    """How many pieces of each kind a count tuple places."""
    return [int(v) for v in values[:4]]


def position(rules, masks: list[int], values: np.ndarray):
    """The position with these kinds' masks and count tuple (the constructor's own checks)."""
    position_type = type(rules.initial_position())
    black, white = masks[0] | masks[1], masks[2] | masks[3]
    return position_type(black, white, masks[1] | masks[3], bool(values[4]), 0)
