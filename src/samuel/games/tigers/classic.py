"""The classic evaluation: named features of a position times weights kept in a small file.

The score is ``sum(weight[i] * feature[i])``, from the tigers' point of view (positive favours
them), in units of one captured sheep. ``docs/classic.md`` explains each feature and why it pays.
The weights live in ``classic_weights.json`` beside this module; tuning writes files of the same
form, which ``classic:weights=FILE`` loads.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from samuel.bits import lowest_bit, popcount
from samuel.errors import SamuelError
from samuel.files import FileError, read_text, write_atomically
from samuel.jit import kernel

from .board import (
    FULL,
    JUMP_COUNT,
    JUMP_LAND,
    JUMP_OVER,
    SHEEP,
    STEP_COUNT,
    STEPS,
)

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
DEFAULT_WEIGHTS_FILE = Path(__file__).with_name("classic_weights.json")
# Ten numbers, a note and how tuning made them take a few kB; a bigger file is not one of these.
MAX_WEIGHTS_FILE_BYTES = 1 << 20
_NAME_LIKE = re.compile(r"[a-z][a-z0-9_]{0,39}")  # what a feature's name looks like
MAX_WEIGHT = 1e300  # a weight must be finite as a float64; a JSON integer can be far bigger

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
    empty = FULL & ~(tigers | sheep)
    mobility = 0
    trapped = 0
    capturable = 0  # the set of sheep some tiger could jump now
    rest = tigers
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        moves = 0
        for k in range(STEP_COUNT[p]):
            moves += (empty >> STEPS[p, k]) & 1
        for k in range(JUMP_COUNT[p]):
            over = JUMP_OVER[p, k]
            if (sheep >> over) & 1 and (empty >> JUMP_LAND[p, k]) & 1:
                moves += 1
                capturable |= 1 << over
        mobility += moves
        if moves == 0:
            trapped += 1
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
    """The classic score, tigers' point of view; ``scratch`` holds the features."""
    classic_features(tigers, sheep, hand, tiger_to_move, scratch)
    score = 0.0
    for i in range(FEATURE_COUNT):
        score += weights[i] * scratch[i]
    return score


class WeightsError(SamuelError, ValueError):
    """A classic weights file that cannot be used."""


def load_weights(path: str | os.PathLike | None = None) -> np.ndarray:
    """Read a weights file (JSON object ``{"weights": {feature: value}}``) as a float64 array.

    Every feature must be present with a finite number, and nothing else. Only a regular file
    of at most ``MAX_WEIGHTS_FILE_BYTES`` is read (a FIFO or a folder is refused at once); the
    errors name what is wrong without quoting the file.
    """
    path = Path(path) if path is not None else DEFAULT_WEIGHTS_FILE
    what = f"classic weights file {path}"
    try:
        document = json.loads(read_text(path, "classic weights file", MAX_WEIGHTS_FILE_BYTES))
    except FileError as error:
        raise WeightsError(str(error)) from None
    except json.JSONDecodeError as error:
        raise WeightsError(
            f"{what} is not valid JSON (line {error.lineno}, column {error.colno})"
        ) from None
    except (ValueError, RecursionError):  # a number of over 4,300 digits; nested too deep
        raise WeightsError(f"{what} is not JSON that this program reads") from None
    named = document.get("weights") if isinstance(document, dict) else None
    if not isinstance(named, dict):
        raise WeightsError(f'{what} has no "weights" object')
    missing = [name for name in FEATURES if name not in named]
    unknown = [name for name in named if name not in FEATURES]
    if missing or unknown:
        # A misspelt feature is named back; anything else only counted, never quoted.
        named_back = [name for name in unknown if _NAME_LIKE.fullmatch(name)]
        others = len(unknown) - len(named_back)
        raise WeightsError(
            f"{what}: missing {missing or 'none'}, unknown {named_back or 'none'}"
            f"{f' and {others} other name(s)' if others else ''}"
            f"; the features are {', '.join(FEATURES)}"
        )
    values = []
    for name in FEATURES:
        value = named[name]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not abs(value) < MAX_WEIGHT:  # False for nan too
            raise WeightsError(
                f"{what}: {name} is not a finite number (of size below {MAX_WEIGHT:g})"
            )
        values.append(float(value))
    return np.array(values, dtype=np.float64)


def save_weights(
    weights: np.ndarray, path: str | os.PathLike, note: str = "", extra: dict | None = None
) -> None:
    """Write a weights file atomically (a temporary file renamed into place). ``extra`` adds
    keys beside ``weights`` (how the weights were made); loading ignores them."""
    path = Path(path)
    document = {"weights": {name: float(w) for name, w in zip(FEATURES, weights, strict=True)}}
    if note:
        document["note"] = note
    document.update(extra or {})
    write_atomically(path, json.dumps(document, indent=2) + "\n")
