"""How many positions of a layer are won, drawn and lost, raw and up to symmetry.

Up to symmetry, a position counts once for its 8 images under the symmetries of the square (the
images have the same value): it is counted where its index is the smallest among its images'
(the *canonical* one). Lim and Nievergelt's count of the movement phase, 88,260,972 positions,
is of these classes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from samuel.games.tigers.kernels import transform_mask
from samuel.jit import kernel, parallel_kernel

from .index import BINOMIAL, FREE_POINTS, decode_index, rank_empty, rank_tigers
from .retrograde import CHUNKS

# Fields of the array layer_counts returns.
WINS, DRAWS, LOSSES, SYM_POSITIONS, SYM_WINS, SYM_DRAWS, SYM_LOSSES, LONGEST_WIN, LONGEST_LOSS = (
    range(9)
)
FIELDS = 9


@dataclass(frozen=True, slots=True)
class LayerCounts:
    """The positions of one layer (one side to move) by value, raw and up to symmetry.

    Wins and losses are the side to move's; ``longest_win``/``longest_loss`` are the most plies
    to the end of any won/lost position (0 if none).
    """

    positions: int
    wins: int
    draws: int
    losses: int
    sym_positions: int
    sym_wins: int
    sym_draws: int
    sym_losses: int
    longest_win: int
    longest_loss: int


@kernel
def is_canonical(index: int, empties: int) -> bool:
    """True if no image of the position under the 8 symmetries has a smaller index."""
    per_tiger_set = BINOMIAL[FREE_POINTS, empties]
    tiger_rank = index // per_tiger_set
    empty_rank = index - tiger_rank * per_tiger_set
    tigers, empty = decode_index(index, empties)
    for symmetry in range(1, 8):
        image = transform_mask(tigers, symmetry)
        rank = rank_tigers(image)
        if rank < tiger_rank:
            return False
        if rank == tiger_rank and (rank_empty(transform_mask(empty, symmetry), image) < empty_rank):
            return False
    return True


@parallel_kernel
def _count(values, empties):
    n = values.shape[0]
    totals = np.zeros((CHUNKS, FIELDS), dtype=np.int64)
    for chunk in numba.prange(CHUNKS):
        for index in range(chunk * n // CHUNKS, (chunk + 1) * n // CHUNKS):
            code = values[index]
            if code == 0:
                kind = DRAWS
            elif (code - 1) & 1:
                kind = WINS
                totals[chunk, LONGEST_WIN] = max(totals[chunk, LONGEST_WIN], code - 1)
            else:
                kind = LOSSES
                totals[chunk, LONGEST_LOSS] = max(totals[chunk, LONGEST_LOSS], code - 1)
            totals[chunk, kind] += 1
            if is_canonical(index, empties):
                totals[chunk, SYM_POSITIONS] += 1
                totals[chunk, SYM_WINS + kind] += 1
    return totals


def layer_counts(values: np.ndarray, captured: int) -> LayerCounts:
    """Count one layer's codes (all cores)."""
    totals = _count(values, captured + 1)
    sums = totals.sum(axis=0)
    return LayerCounts(
        positions=len(values),
        wins=int(sums[WINS]),
        draws=int(sums[DRAWS]),
        losses=int(sums[LOSSES]),
        sym_positions=int(sums[SYM_POSITIONS]),
        sym_wins=int(sums[SYM_WINS + WINS]),
        sym_draws=int(sums[SYM_WINS + DRAWS]),
        sym_losses=int(sums[SYM_WINS + LOSSES]),
        longest_win=int(totals[:, LONGEST_WIN].max()),
        longest_loss=int(totals[:, LONGEST_LOSS].max()),
    )
