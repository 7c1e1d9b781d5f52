"""Where a position sits in its layer of the tablebase: ranking and unranking by combinations.

A *layer* holds every position with the hand empty, ``captured`` sheep captured and one side to
move, reachable or not. Its 4 tigers stand on any 4 of the 25 points and its ``20 - captured``
sheep fill all but ``1 + captured`` of the other 21, so a position is given by its tigers and its
*empty points*, and the layer has ``C(25, 4) * C(21, 1 + captured)`` positions.

The index of a position is ``tiger_rank * C(21, e) + empty_rank`` (``e`` = empty points), where
``tiger_rank`` is the colex rank of the tigers' 4 points among the 25 and ``empty_rank`` the colex
rank of the empty points among the 21 points the tigers leave, numbered 0..20 in order. The colex
rank of a set ``p_1 < p_2 < ... < p_k`` is ``C(p_1, 1) + C(p_2, 2) + ... + C(p_k, k)``: the sets
of ``k`` elements below ``n`` get the ranks ``0 .. C(n, k) - 1``, each exactly once.

>>> tigers, empty = 0b1_0001_0001_0001, 0b110_0000_0000_0000_0000  # a1 e1 d2 c3; c4 d4
>>> index = position_index(tigers, empty, 2)  # 2 empty points: 1 sheep captured
>>> decode_index(index, 2) == (tigers, empty)
True
"""

from __future__ import annotations

from math import comb

import numpy as np

from samuel.bits import lowest_bit, popcount
from samuel.games.tigers.board import FULL, POINTS, SHEEP, TIGERS
from samuel.jit import kernel

FREE_POINTS = POINTS - TIGERS  # 21: the points the tigers leave, where sheep and empties are
TIGER_SETS = comb(POINTS, TIGERS)  # 12,650 ways to stand 4 tigers on 25 points
MAX_CAPTURES_TO_WIN = 6  # the largest variant the tablebase builds (layers 0..5 captured)

# BINOMIAL[n, k] = C(n, k) for n, k <= 25, and 0 where k > n (which colex ranking relies on).
BINOMIAL = np.array(
    [[comb(n, k) for k in range(POINTS + 1)] for n in range(POINTS + 1)], dtype=np.int64
)


def empty_points(captured: int) -> int:
    """Empty points of a position with the hand empty and ``captured`` sheep captured."""
    return FREE_POINTS - (SHEEP - captured)


def layer_size(captured: int) -> int:
    """Positions in one layer (one side to move)."""
    return TIGER_SETS * comb(FREE_POINTS, empty_points(captured))


@kernel
def rank_tigers(tigers: int) -> int:
    """The colex rank of the tigers' points among the 25."""
    rank = 0
    i = 1
    rest = tigers
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        rank += BINOMIAL[p, i]
        i += 1
    return rank


@kernel
def rank_empty(empty: int, tigers: int) -> int:
    """The colex rank of the empty points among the 21 points the tigers leave."""
    rank = 0
    i = 1
    rest = empty
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        rank += BINOMIAL[p - popcount(tigers & ((1 << p) - 1)), i]
        i += 1
    return rank


@kernel
def position_index(tigers: int, empty: int, empties: int) -> int:
    """The index of the position with these tigers and ``empties`` empty points ``empty``."""
    return rank_tigers(tigers) * BINOMIAL[FREE_POINTS, empties] + rank_empty(empty, tigers)


@kernel
def unrank_set(rank: int, size: int, below: int) -> int:
    """The mask of the set of ``size`` elements under ``below`` whose colex rank is ``rank``."""
    mask = 0
    p = below
    for i in range(size, 0, -1):
        p -= 1
        while BINOMIAL[p, i] > rank:
            p -= 1
        mask |= 1 << p
        rank -= BINOMIAL[p, i]
    return mask


@kernel
def spread(slots: int, tigers: int) -> int:
    """The points of the slots (numbers 0..20 of the points the tigers leave) in ``slots``."""
    points = 0
    rest = slots
    while rest:
        q = lowest_bit(rest)
        rest &= rest - 1
        others = tigers
        while others:
            t = lowest_bit(others)
            others &= others - 1
            if t <= q:
                q += 1
        points |= 1 << q
    return points


@kernel
def decode_index(index: int, empties: int):
    """``(tigers, empty)`` of the position at ``index`` in a layer with ``empties`` empty points."""
    per_tiger_set = BINOMIAL[FREE_POINTS, empties]
    tiger_rank = index // per_tiger_set
    tigers = unrank_set(tiger_rank, TIGERS, POINTS)
    return tigers, spread(
        unrank_set(index - tiger_rank * per_tiger_set, empties, FREE_POINTS), tigers
    )


@kernel
def stored_code(tigers: int, sheep: int, tiger_to_move: int, layers) -> int:
    """The code stored for a position with the hand empty and fewer sheep captured than win;
    ``layers[2 * captured + tiger_to_move]`` holds each layer's codes.

    Checks neither condition: the caller does. (The search calls this through
    :func:`samuel.games.kernels.tablebase_result`.)
    """
    captured = SHEEP - popcount(sheep)
    empty = FULL & ~(tigers | sheep)
    return layers[2 * captured + tiger_to_move][position_index(tigers, empty, captured + 1)]
