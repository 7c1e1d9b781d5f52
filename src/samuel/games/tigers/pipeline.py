"""What the production loop's sources (:mod:`samuel.pipeline.sources`) need of Tigers & Sheep
(``descriptor.part("pipeline")``): the rules of a variant's number, a kernel state read back as a
position, what a placement distribution measures of a position and how a measured one makes a
position again, the expert players' depths, and how a distribution weighs the tablebase's layers.
"""

from __future__ import annotations

import numpy as np

# What a placement distribution measures (samuel.pipeline.sources' docstring): the count tuple's
# fields, the piece kinds placed, the board's points, each kind's count buckets (0-2, 3-5, ...,
# 18-20) and the largest value of each count field.
COUNT_FIELDS = ("sheep_on_board", "sheep_in_hand", "tiger_to_move", "captured")
KINDS = ("tigers", "sheep")
SQUARES = 25
BUCKET_LOWS = (0, 3, 6, 9, 12, 15, 18)
MOST = (20, 20, 1, 20)

# The expert players' depths, for a 2-core machine (shared with other work), measured warm with 2
# numba threads: self-games at these depths give about 620 decision points a second for classic 6,
# 340 for hybrid 5 (the network at every leaf costs about a ply) and 1,500 for perfect 6 (the
# table cuts the search short once the hand is empty); all nine pairings together, about 590. A
# ply deeper roughly divides these by 3-5.
EXPERT_DEPTHS = {"classic": 6, "hybrid": 5, "perfect": 6}


def rules(number: int):
    """The rules of the game numbered ``number``: the standard game, or the variant its bits
    above the game's name (the captures that win)."""
    from samuel.games.kernels import VARIANT_SHIFT

    from .rules import TigersAndSheep

    variant = int(number) >> VARIANT_SHIFT
    return TigersAndSheep() if variant == 0 else TigersAndSheep(captures_to_win=variant)


def decode(rules, state: np.ndarray):
    """The position of a kernel state row (the game's words) under ``rules``."""
    return type(rules.initial_position()).decode(state, rules.captures_to_win)


def masks_and_counts(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(masks, counts)`` of kernel state rows (int64, masks already checked to be on the
    board): each kind's mask per position (n, kinds) and the count tuples (n, fields); ValueError
    for a row that is no position."""
    tigers, sheep, hand, side = states[:, 0], states[:, 1], states[:, 2], states[:, 3]
    on_board = np.bitwise_count(sheep).astype(np.int64)
    captured = 20 - on_board - hand
    if (
        (np.bitwise_count(tigers).astype(np.int64) != 4).any()
        or (tigers & sheep).any()
        or (hand > 20).any()
        or (captured < 0).any()
    ):
        raise ValueError("a state is no Tigers & Sheep position (4 tigers, 20 sheep at most)")
    masks = np.stack([tigers, sheep], axis=1)
    counts = np.stack([on_board, hand, side, captured], axis=1)
    return masks, counts


def check_counts(counts: np.ndarray) -> None:
    """Raise ValueError unless every count tuple (rows of COUNT_FIELDS) adds up."""
    board, hand, _, captured = counts.T
    if (board + hand + captured != 20).any():
        raise ValueError("sheep on board, in hand and captured must make 20")


def kind_counts(values: np.ndarray) -> list[int]:
    """How many pieces of each kind a count tuple places: the 4 tigers, the sheep on the board."""
    return [4, int(values[0])]


def position(rules, masks: list[int], values: np.ndarray):
    """The position with these kinds' masks and count tuple (the constructor's own checks)."""
    position_type = type(rules.initial_position())
    return position_type(masks[0], masks[1], int(values[1]), bool(values[2]), rules.captures_to_win)


def table_weights(
    counts: np.ndarray, count_positions: np.ndarray, captures_to_win: int
) -> np.ndarray:
    """The weights of the tablebase's layers (``2 * captured + tiger_to_move``) by a placement
    distribution: how many of its positions had the hand empty in each layer the table of the
    game won by ``captures_to_win`` captures holds."""
    weights = np.zeros(2 * captures_to_win)
    for values, n in zip(counts, count_positions, strict=True):
        _, hand, side, captured = (int(v) for v in values)
        if hand == 0 and captured < captures_to_win:
            weights[2 * captured + side] += n
    return weights
