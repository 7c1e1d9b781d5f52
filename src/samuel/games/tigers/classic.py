"""The classic evaluation: named features of a position times weights kept in a small file.

The score is ``sum(weight[i] * feature[i])``, from the tigers' point of view (positive favours
them), in units of one captured sheep. ``docs/classic.md`` explains each feature and why it pays.
A weights file may add piece-square tables (``TABLES``): a weight for a tiger and for a sheep on
each point, in the opening and in the ending, blended by how far the game has gone
(:func:`game_phase`). They are features too: a tiger on point 12 counts ``1 - phase`` for
``tiger_opening_12`` and ``phase`` for ``tiger_ending_12``. The weights live in
``classic_weights.json`` beside this module; tuning writes files of the same form, which
``classic:weights=FILE`` loads.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from samuel.bits import lowest_bit, popcount
from samuel.games.classic_file import (
    MAX_WEIGHTS_FILE_BYTES,
    Tables,
    WeightsError,
    read_weights,
    write_weights,
)
from samuel.jit import kernel

from .board import CAPTURES_TO_WIN, SHEEP
from .kernels import tiger_threats

FEATURES = (
    "captured",
    "tiger_mobility",
    "trapped_tigers",
    "capturable_sheep",
    "capture_now",
    "double_threat",
    "sheep_on_edge",
    "tigers_on_junctions",
    "sheep_in_hand",
    "tiger_to_move",
)
FEATURE_COUNT = len(FEATURES)
TABLES = Tables(("tiger", "sheep"), ("opening", "ending"), 25)
# The weights with the tables: the named features' first, then the tables' (Tables' order).
WEIGHTS = FEATURES + TABLES.names
WEIGHT_COUNT = len(WEIGHTS)
SHEEP_TABLE = FEATURE_COUNT + 25 * 2  # where the sheep's table starts
DEFAULT_WEIGHTS_FILE = Path(__file__).with_name("classic_weights.json")

# Points on the border of the board: a sheep there cannot be jumped across the board's edge.
EDGE = 0
for _p in range(25):
    if _p % 5 in (0, 4) or _p // 5 in (0, 4):
        EDGE |= 1 << _p
# Junctions: points on the diagonals (x + y even), joined to up to 8 neighbours.
JUNCTIONS = 0
for _p in range(25):
    if (_p % 5 + _p // 5) % 2 == 0:
        JUNCTIONS |= 1 << _p


@kernel
def classic_features(
    tigers: int, sheep: int, hand: int, tiger_to_move: int, out: np.ndarray
) -> None:
    """Write the feature vector of a position into ``out`` (length ``FEATURE_COUNT``)."""
    mobility, trapped, capturable = tiger_threats(tigers, sheep)
    threatened = popcount(capturable)
    out[0] = SHEEP - hand - popcount(sheep)
    out[1] = mobility
    out[2] = trapped
    out[3] = threatened
    out[4] = 1 if (tiger_to_move and threatened > 0) else 0
    out[5] = 1 if (not tiger_to_move and threatened > 1) else 0
    out[6] = popcount(sheep & EDGE)
    out[7] = popcount(tigers & JUNCTIONS)
    out[8] = hand
    out[9] = tiger_to_move


@kernel
def classic_evaluate(
    tigers: int, sheep: int, hand: int, tiger_to_move: int, weights: np.ndarray, scratch: np.ndarray
) -> float:
    """The classic score, tigers' point of view; ``scratch`` holds the named features.
    ``weights`` are ``FEATURE_COUNT`` numbers, or ``WEIGHT_COUNT`` with the tables."""
    classic_features(tigers, sheep, hand, tiger_to_move, scratch)
    score = 0.0
    for i in range(FEATURE_COUNT):
        score += weights[i] * scratch[i]
    if weights.shape[0] >= WEIGHT_COUNT:  # weights without tables add nothing for them
        score += table_score(tigers, sheep, hand, weights)
    return score


@kernel
def game_phase(hand: int, captured: int) -> float:
    """How far the game has gone, 0 (every sheep in hand) to 1: half from the sheep placed,
    half from the sheep captured, since both change what a point is worth."""
    return min(1.0, 0.5 * (SHEEP - hand) / SHEEP + 0.5 * captured / CAPTURES_TO_WIN)


@kernel
def table_score(tigers: int, sheep: int, hand: int, weights: np.ndarray) -> float:
    """The tables' part of the score (``weights`` of ``WEIGHT_COUNT``)."""
    ending = game_phase(hand, SHEEP - hand - popcount(sheep))
    opening = 1.0 - ending
    score = 0.0
    rest = tigers
    while rest:
        i = FEATURE_COUNT + 2 * lowest_bit(rest)
        rest &= rest - 1
        score += weights[i] * opening + weights[i + 1] * ending
    rest = sheep
    while rest:
        i = SHEEP_TABLE + 2 * lowest_bit(rest)
        rest &= rest - 1
        score += weights[i] * opening + weights[i + 1] * ending
    return score


@kernel
def table_features(tigers: int, sheep: int, hand: int, out: np.ndarray) -> None:
    """Write the tables' features into ``out[FEATURE_COUNT:WEIGHT_COUNT]`` (which the caller
    has zeroed): the feature vector whose dot product with the weights is :func:`table_score`."""
    ending = game_phase(hand, SHEEP - hand - popcount(sheep))
    opening = 1.0 - ending
    rest = tigers
    while rest:
        i = FEATURE_COUNT + 2 * lowest_bit(rest)
        rest &= rest - 1
        out[i] = opening
        out[i + 1] = ending
    rest = sheep
    while rest:
        i = SHEEP_TABLE + 2 * lowest_bit(rest)
        rest &= rest - 1
        out[i] = opening
        out[i + 1] = ending


def load_weights(path: str | os.PathLike | None = None) -> np.ndarray:
    """Read a weights file (JSON object ``{"weights": {feature: value}}``) as a float64 array:
    ``FEATURE_COUNT`` weights, or ``WEIGHT_COUNT`` if the file has tables.

    Every feature must be present with a finite number, and nothing else. Only a regular file
    of at most ``MAX_WEIGHTS_FILE_BYTES`` is read (a FIFO or a folder is refused at once); the
    errors (:class:`WeightsError`) name what is wrong without quoting the file.
    """
    return read_weights(DEFAULT_WEIGHTS_FILE if path is None else path, FEATURES, TABLES)


def save_weights(
    weights: np.ndarray, path: str | os.PathLike, note: str = "", extra: dict | None = None
) -> None:
    """Write a weights file atomically (a temporary file renamed into place). ``extra`` adds
    keys beside ``weights`` (how the weights were made); loading ignores them."""
    write_weights(weights, path, FEATURES, note, extra, TABLES)


__all__ = [
    "DEFAULT_WEIGHTS_FILE",
    "EDGE",
    "FEATURES",
    "FEATURE_COUNT",
    "JUNCTIONS",
    "MAX_WEIGHTS_FILE_BYTES",
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
