"""Classic weights files, the same form for every game: a JSON object ``{"weights": {feature:
value}}`` with one finite number for each of the game's features and nothing else, and beside it
an optional ``note`` and whatever a tuner records of how the weights were made (loading ignores
those). Each game's ``classic.py`` names its features and its default file and reads and writes
its files through :func:`read_weights` and :func:`write_weights`.

A file may also hold the game's piece-square tables (:class:`Tables`), as ``{"tables": {kind:
{phase: [one number per square]}}}`` with every kind and phase. A file without them (every file
written before they existed) has none, and its weights are the named features' alone: the
evaluation then adds nothing for the tables, as if they were all zero.

The file may come from anyone (``classic:weights=FILE``), so only a regular file of at most
``MAX_WEIGHTS_FILE_BYTES`` is read (a FIFO or a folder is refused at once), and the errors name
what is wrong without quoting the file.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Tables:
    """A game's piece-square tables: a weight for each kind of piece on each square in each
    phase. In the weights array they follow the named features, the phases of one square side
    by side (the evaluation reads them together): kind ``k``, square ``s``, phase ``h`` is entry
    ``(k * squares + s) * len(phases) + h`` of the tables' part."""

    kinds: tuple[str, ...]  # in the game's words: tiger and sheep, man and king
    phases: tuple[str, ...]  # ("opening", "ending")
    squares: int  # points or squares of the board

    @property
    def count(self) -> int:
        return len(self.kinds) * self.squares * len(self.phases)

    @property
    def names(self) -> tuple[str, ...]:
        """The tables' weights as features are named, in the array's order (``tiger_ending_12``)."""
        return tuple(
            f"{kind}_{phase}_{square}"
            for kind in self.kinds
            for square in range(self.squares)
            for phase in self.phases
        )

    def to_document(self, values: np.ndarray) -> dict:
        """The tables' part of a weights array as a file holds it."""
        grid = np.asarray(values, dtype=np.float64).reshape(
            len(self.kinds), self.squares, len(self.phases)
        )
        return {
            kind: {phase: grid[k, :, h].tolist() for h, phase in enumerate(self.phases)}
            for k, kind in enumerate(self.kinds)
        }

    def from_document(self, document, what: str) -> np.ndarray:
        """The tables' part of a weights array from a file's ``tables`` object (checked)."""
        shape = (
            f"{{kind: {{phase: [{self.squares} numbers]}}}} for the kinds {', '.join(self.kinds)}"
        )
        if not isinstance(document, dict) or set(document) != set(self.kinds):
            raise WeightsError(f'{what}: "tables" must be {shape}')
        grid = np.zeros((len(self.kinds), self.squares, len(self.phases)))
        for k, kind in enumerate(self.kinds):
            table = document[kind]
            if not isinstance(table, dict) or set(table) != set(self.phases):
                raise WeightsError(
                    f"{what}: the {kind} table must have the phases {', '.join(self.phases)}"
                )
            for h, phase in enumerate(self.phases):
                row = table[phase]
                if not isinstance(row, list) or len(row) != self.squares:
                    raise WeightsError(f"{what}: {kind} {phase} must be {self.squares} numbers")
                for s, value in enumerate(row):
                    number = isinstance(value, int | float) and not isinstance(value, bool)
                    if not number or not abs(value) < MAX_WEIGHT:
                        raise WeightsError(
                            f"{what}: {kind} {phase} square {s} is not a finite number"
                        )
                    grid[k, s, h] = float(value)
        return grid.reshape(-1)


def read_weights(
    path: str | os.PathLike, features: tuple[str, ...], tables: Tables | None = None
) -> np.ndarray:
    """The weights of ``features``, in their order, from the file at ``path`` (float64),
    followed by its ``tables`` when the file has them."""
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
    if "tables" not in document:
        return np.array(values, dtype=np.float64)
    if tables is None:
        raise WeightsError(f"{what} has tables, which this game's evaluation has not")
    return np.concatenate([values, tables.from_document(document["tables"], what)])


def write_weights(
    weights: np.ndarray,
    path: str | os.PathLike,
    features: tuple[str, ...],
    note: str = "",
    extra: dict | None = None,
    tables: Tables | None = None,
) -> None:
    """Write a weights file atomically (a temporary file renamed into place). ``weights`` are
    the ``features``' and, if longer, the ``tables``' after them. ``extra`` adds keys beside
    ``weights`` (how the weights were made); loading ignores them."""
    named = weights[: len(features)]
    document = {"weights": {name: float(w) for name, w in zip(features, named, strict=True)}}
    if len(weights) > len(features):
        if tables is None or len(weights) != len(features) + tables.count:
            raise ValueError(
                f"expected {len(features)} weights and the tables', not {len(weights)}"
            )
        document["tables"] = tables.to_document(weights[len(features) :])
    if note:
        document["note"] = note
    document.update(extra or {})
    write_atomically(Path(path), json.dumps(document, indent=2) + "\n")
