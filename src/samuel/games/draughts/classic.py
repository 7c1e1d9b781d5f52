"""The classic evaluation of the draughts course: named features of a position times weights kept
in a small file.

Each feature is Black's count minus White's, so the score ``sum(weight[i] * feature[i])`` is from
Black's (the first player's) point of view. The features, as the course defines them
(shared/seeds/002_*):

- ``men``, ``kings``: pieces of each kind (the course's weights 100 and 175);
- ``advance``: rows each man has advanced from its own back row (3 a row);
- ``back_row``: men still on their own back row, guarding it against crowning (6 each);
- ``centre``: pieces, men or kings, on the eight central squares 10, 11, 14, 15, 18, 19, 22, 23
  (4 each).

The weights live in ``classic_weights.json`` beside this module, with one man as the unit (the
course's weights divided by 100: 1, 1.75, 0.03, 0.06, 0.04; the same play), as Tigers & Sheep's
take one sheep: the search reads a score beyond ``SCORE_LIMIT`` as a forced result, so an
evaluation must stay inside it. Files of the same form load with :func:`load_weights`, which
refuses weights that could score beyond it.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from samuel.games.classic_file import (
    MAX_WEIGHTS_FILE_BYTES,
    WeightsError,
    read_weights,
    write_weights,
)
from samuel.jit import kernel

from .board import BLACK_BACK_ROW, CENTRE, WHITE_BACK_ROW
from .kernels import popcount

FEATURES = ("men", "kings", "advance", "back_row", "centre")
FEATURE_COUNT = len(FEATURES)
DEFAULT_WEIGHTS_FILE = Path(__file__).with_name("classic_weights.json")
# The largest size of each feature: 12 pieces a side; a man advances at most 6 rows (on the 7th
# it is crowned); 4 back-row squares; 8 centre squares.
FEATURE_LIMITS = (12, 12, 72, 4, 8)
# The search (samuel.search.alphabeta.WIN_BOUND) reads larger scores as forced results.
SCORE_LIMIT = 500.0


@kernel
def classic_features(
    black: int, white: int, kings: int, black_to_move: int, out: np.ndarray
) -> None:
    """Write the feature vector (Black's count minus White's) into ``out`` (``FEATURE_COUNT``)."""
    black_men = black & ~kings
    white_men = white & ~kings
    advance = 0
    for row in range(8):
        row_mask = 0xF << (4 * row)
        # Black's men start at the top (row 0) and advance down; White's the other way.
        advance += row * popcount(black_men & row_mask) - (7 - row) * popcount(white_men & row_mask)
    out[0] = popcount(black_men) - popcount(white_men)
    out[1] = popcount(black & kings) - popcount(white & kings)
    out[2] = advance
    out[3] = popcount(black_men & BLACK_BACK_ROW) - popcount(white_men & WHITE_BACK_ROW)
    out[4] = popcount(black & CENTRE) - popcount(white & CENTRE)


@kernel
def classic_evaluate(
    black: int, white: int, kings: int, black_to_move: int, weights: np.ndarray, scratch: np.ndarray
) -> float:
    """The classic score, Black's point of view; ``scratch`` holds the features."""
    classic_features(black, white, kings, black_to_move, scratch)
    score = 0.0
    for i in range(FEATURE_COUNT):
        score += weights[i] * scratch[i]
    return score


def load_weights(path: str | os.PathLike | None = None) -> np.ndarray:
    """Read a weights file (JSON object ``{"weights": {feature: value}}``) as a float64 array.

    Every feature must be present with a finite number, and nothing else; the file is read as
    every game's is (:mod:`samuel.games.classic_file`: a regular file of a bounded size, errors
    that never quote it). Weights that could score beyond ``SCORE_LIMIT`` are refused too.
    """
    path = DEFAULT_WEIGHTS_FILE if path is None else path
    values = read_weights(path, FEATURES)
    reach = sum(abs(w) * limit for w, limit in zip(values, FEATURE_LIMITS, strict=True))
    if not reach < SCORE_LIMIT:
        raise WeightsError(
            f"classic weights file {path}: these weights could score {reach:g}, beyond the "
            f"{SCORE_LIMIT:g} the search keeps for forced results; take one man as the unit "
            "(men = 1)"
        )
    return values


def save_weights(
    weights: np.ndarray, path: str | os.PathLike, note: str = "", extra: dict | None = None
) -> None:
    """Write a weights file atomically (a temporary file renamed into place). ``extra`` adds
    keys beside ``weights`` (how the weights were made); loading ignores them."""
    write_weights(weights, path, FEATURES, note, extra)


__all__ = [
    "DEFAULT_WEIGHTS_FILE",
    "FEATURES",
    "FEATURE_COUNT",
    "FEATURE_LIMITS",
    "MAX_WEIGHTS_FILE_BYTES",
    "SCORE_LIMIT",
    "WeightsError",
    "classic_evaluate",
    "classic_features",
    "load_weights",
    "save_weights",
]
