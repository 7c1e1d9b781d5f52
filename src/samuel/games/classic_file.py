"""Classic weights files, the same form for every game: a JSON object ``{"weights": {feature:
value}}`` with one finite number for each of the game's features and nothing else, and beside it
an optional ``note`` and whatever a tuner records of how the weights were made (loading ignores
those). Each game's ``classic.py`` names its features and its default file and reads and writes
its files through :func:`read_weights` and :func:`write_weights`.

The file may come from anyone (``classic:weights=FILE``), so only a regular file of at most
``MAX_WEIGHTS_FILE_BYTES`` is read (a FIFO or a folder is refused at once), and the errors name
what is wrong without quoting the file.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import FileError, read_text, write_atomically

# A few numbers, a note and how tuning made them take a few kB; a bigger file is not one of these.
MAX_WEIGHTS_FILE_BYTES = 1 << 20
_NAME_LIKE = re.compile(r"[a-z][a-z0-9_]{0,39}")  # what a feature's name looks like
MAX_WEIGHT = 1e300  # a weight must be finite as a float64; a JSON integer can be far bigger


class WeightsError(SamuelError, ValueError):
    """A classic weights file that cannot be used."""


def read_weights(path: str | os.PathLike, features: tuple[str, ...]) -> np.ndarray:
    """The weights of ``features``, in their order, from the file at ``path`` (float64)."""
    path = Path(path)
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
    missing = [name for name in features if name not in named]
    unknown = [name for name in named if name not in features]
    if missing or unknown:
        # A misspelt feature is named back; anything else only counted, never quoted.
        named_back = [name for name in unknown if _NAME_LIKE.fullmatch(name)]
        others = len(unknown) - len(named_back)
        raise WeightsError(
            f"{what}: missing {missing or 'none'}, unknown {named_back or 'none'}"
            f"{f' and {others} other name(s)' if others else ''}"
            f"; the features are {', '.join(features)}"
        )
    values = []
    for name in features:
        value = named[name]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not abs(value) < MAX_WEIGHT:  # False for nan too
            raise WeightsError(
                f"{what}: {name} is not a finite number (of size below {MAX_WEIGHT:g})"
            )
        values.append(float(value))
    return np.array(values, dtype=np.float64)


def write_weights(
    weights: np.ndarray,
    path: str | os.PathLike,
    features: tuple[str, ...],
    note: str = "",
    extra: dict | None = None,
) -> None:
    """Write a weights file atomically (a temporary file renamed into place). ``extra`` adds
    keys beside ``weights`` (how the weights were made); loading ignores them."""
    document = {"weights": {name: float(w) for name, w in zip(features, weights, strict=True)}}
    if note:
        document["note"] = note
    document.update(extra or {})
    write_atomically(Path(path), json.dumps(document, indent=2) + "\n")
