"""Seeds derived from numbers that say what they are for, never from a worker or the clock.

Every random choice in Samuel (a game's openings, a player's tie-breaks, a self-play game, a
tuning round) takes its seed from :func:`derive_seed` of the numbers that identify it, so the
same run seed gives the same games and weights on 1 or N workers.
"""

from __future__ import annotations

import numpy as np

WORD = 0xFFFFFFFFFFFFFFFF  # SeedSequence takes non-negative numbers: negatives wrap to 64 bits


def derive_seed(*numbers: int) -> int:
    """A seed in [0, 2**63) from ``numbers`` alone: SeedSequence's hash of them, one 64-bit
    word shifted to fit a signed 64-bit integer (numba's ``int64``)."""
    words = [number & WORD for number in numbers]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0]) >> 1
