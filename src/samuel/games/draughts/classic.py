"""The classic evaluation of the draughts course: named features of a position times weights kept
in a small file.

Each feature is Black's count minus White's, so the score ``sum(weight[i] * feature[i])`` is from
Black's (the first player's) point of view. The features, as the course defines them
(docs/draughts.md):

- ``men``, ``kings``: pieces of each kind (the course's weights 100 and 175);
- ``advance``: rows each man has advanced from its own back row (3 a row);
- ``back_row``: men still on their own back row, guarding it against crowning (6 each);
- ``centre``: pieces, men or kings, on the eight central squares 10, 11, 14, 15, 18, 19, 22, 23
  (4 each).

A weights file may add piece-square tables (``TABLES``): a weight for a man and for a king on
each square, in the opening and in the ending, blended by the material on the board
(:func:`game_phase`). One table serves both sides: a White piece on square ``s`` counts, negated,
where a Black piece on the half-turned square ``31 - s`` would, so the score stays Black's count
minus White's.

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
    Tables,
    WeightsError,
    read_weights,
    write_weights,
)
from samuel.jit import kernel

from .board import BLACK_BACK_ROW, CENTRE, MEN, SQUARES, WHITE_BACK_ROW
from .kernels import lowest_square, popcount

FEATURES = ("men", "kings", "advance", "back_row", "centre")
FEATURE_COUNT = len(FEATURES)
TABLES = Tables(("man", "king"), ("opening", "ending"), SQUARES)
# The weights with the tables: the named features' first, then the tables' (Tables' order).
WEIGHTS = FEATURES + TABLES.names
WEIGHT_COUNT = len(WEIGHTS)
KING_TABLE = FEATURE_COUNT + SQUARES * 2  # where the kings' table starts
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
    """The classic score, Black's point of view; ``scratch`` holds the named features.
    ``weights`` are ``FEATURE_COUNT`` numbers, or ``WEIGHT_COUNT`` with the tables."""
    classic_features(black, white, kings, black_to_move, scratch)
    score = 0.0
    for i in range(FEATURE_COUNT):
        score += weights[i] * scratch[i]
    if weights.shape[0] >= WEIGHT_COUNT:  # weights without tables add nothing for them
        score += table_score(black, white, kings, weights)
    return score


@kernel
def game_phase(pieces: int) -> float:
    """How far the game has gone, 0 (all 24 pieces on the board) to 1 (none)."""
    return (2 * MEN - pieces) / (2 * MEN)


@kernel
def _table_entry(square: int, kings: int, white: int) -> int:
    """Where the opening weight of the piece on ``square`` is (its ending's is the next)."""
    seen = 31 - square if white else square  # White's squares as Black sees his own
    table = KING_TABLE if (kings >> square) & 1 else FEATURE_COUNT
    return table + 2 * seen


@kernel
def table_score(black: int, white: int, kings: int, weights: np.ndarray) -> float:
    """The tables' part of the score (``weights`` of ``WEIGHT_COUNT``), Black's view."""
    ending = game_phase(popcount(black) + popcount(white))
    opening = 1.0 - ending
    score = 0.0
    rest = black
    while rest:
        i = _table_entry(lowest_square(rest), kings, 0)
        rest &= rest - 1
        score += weights[i] * opening + weights[i + 1] * ending
    rest = white
    while rest:
        i = _table_entry(lowest_square(rest), kings, 1)
        rest &= rest - 1
        score -= weights[i] * opening + weights[i + 1] * ending
    return score


@kernel
def table_features(black: int, white: int, kings: int, out: np.ndarray) -> None:
    """Write the tables' features into ``out[FEATURE_COUNT:WEIGHT_COUNT]`` (which the caller
    has zeroed): the feature vector whose dot product with the weights is :func:`table_score`."""
    ending = game_phase(popcount(black) + popcount(white))
    opening = 1.0 - ending
    rest = black
    while rest:
        i = _table_entry(lowest_square(rest), kings, 0)
        rest &= rest - 1
        out[i] += opening
        out[i + 1] += ending
    rest = white
    while rest:
        i = _table_entry(lowest_square(rest), kings, 1)
        rest &= rest - 1
        out[i] -= opening
        out[i + 1] -= ending


def load_weights(path: str | os.PathLike | None = None) -> np.ndarray:
    """Read a weights file (JSON object ``{"weights": {feature: value}}``) as a float64 array:
    ``FEATURE_COUNT`` weights, or ``WEIGHT_COUNT`` if the file has tables.

    Every feature must be present with a finite number, and nothing else; the file is read as
    every game's is (:mod:`samuel.games.classic_file`: a regular file of a bounded size, errors
    that never quote it). Weights that could score beyond ``SCORE_LIMIT`` are refused too.
    """
    path = DEFAULT_WEIGHTS_FILE if path is None else path
    values = read_weights(path, FEATURES, TABLES)
    named = values[:FEATURE_COUNT]
    reach = sum(abs(w) * limit for w, limit in zip(named, FEATURE_LIMITS, strict=True))
    if len(values) > FEATURE_COUNT:  # each of 24 pieces adds at most the largest table weight
        reach += 2 * MEN * float(np.abs(values[FEATURE_COUNT:]).max())
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
    write_weights(weights, path, FEATURES, note, extra, TABLES)


__all__ = [
    "DEFAULT_WEIGHTS_FILE",
    "FEATURES",
    "FEATURE_COUNT",
    "FEATURE_LIMITS",
    "MAX_WEIGHTS_FILE_BYTES",
    "SCORE_LIMIT",
    "TABLES",
    "WEIGHTS",
    "WEIGHT_COUNT",
    "WeightsError",
    "classic_evaluate",
    "classic_features",
    "game_phase",
    "load_weights",
    "save_weights",
    "table_features",
    "table_score",
]
