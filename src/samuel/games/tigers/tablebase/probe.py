"""Looking positions up in a built tablebase: for people (``probe``), players and the search.

:func:`load_tablebase` maps a directory's layer files into memory (cheap: nothing is read until a
position is looked up, and a directory is mapped once per process). The search gets the mapped
layers as a tuple, ``layers[2 * captured + tiger_to_move]``, and reads them with
:func:`.index.stored_code` (through :func:`samuel.games.kernels.tablebase_result`).

For example, with the standard table built in ``tablebase/``::

    table = load_tablebase("tablebase")
    describe(table.code(Position.parse("TSSST/SSSSS/SSTSS/SS1SS/SSSST T 0")))  # 'win in 1 ply'
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.games.tigers.rules import Move, Position, TigersAndSheep

from .files import TablebaseError, find_captures_to_win, layer_path, open_codes, read_header
from .index import stored_code
from .values import LOSS_NOW, describe, outcome_of

DEFAULT_DIRECTORY = "tablebase"


@dataclass(frozen=True, eq=False)
class Tablebase:
    """A built tablebase, memory-mapped: ``layers[2 * captured + tiger_to_move]``."""

    directory: Path
    captures_to_win: int
    layers: tuple[np.ndarray, ...]

    @property
    def rules(self) -> TigersAndSheep:
        return TigersAndSheep(self.captures_to_win)

    @property
    def game(self) -> int:
        """The number of the game the table is of (its variant's: won by its captures)."""
        return self.rules.number

    def covers(self, position: Position) -> bool:
        """True if the table holds ``position``: hand empty, the game not yet won."""
        return position.sheep_in_hand == 0 and position.captured < self.captures_to_win

    def code(self, position: Position) -> int:
        """The stored code of ``position`` (a loss in 0 if the sheep have already lost)."""
        self._check_rules(position)
        if position.sheep_in_hand != 0:
            raise TablebaseError(f"{position}: the tablebase holds positions with the hand empty")
        if position.captured >= self.captures_to_win:
            return LOSS_NOW
        return int(
            stored_code(position.tigers, position.sheep, int(position.tiger_to_move), self.layers)
        )

    def value(self, position: Position) -> tuple[int, int]:
        """``(outcome, plies)``, side to move's view: +1 a win, -1 a loss, 0 a draw."""
        return outcome_of(self.code(position))

    def move_values(self, position: Position) -> list[tuple[Move, int, int]]:
        """Every legal move with ``(outcome, plies)`` for the side playing it: a move into a
        loss in ``p`` plies wins in ``p + 1``."""
        result = []
        for move in position.legal_moves():
            outcome, plies = self.value(position.play_unchecked(move))
            result.append((move, -outcome, plies + 1 if outcome else 0))
        return result

    def _check_rules(self, position: Position) -> None:
        if position.captures_to_win != self.captures_to_win:
            raise TablebaseError(
                f"{self.directory} is the tablebase of the game won by "
                f"{self.captures_to_win} captures, not {position.captures_to_win}"
            )


_LOADED: dict[Path, Tablebase] = {}


def load_tablebase(directory: str | os.PathLike = DEFAULT_DIRECTORY) -> Tablebase:
    """Map the tablebase in ``directory`` (once per process); checks the headers, not the
    checksums (``samuel tablebase verify`` does)."""
    try:
        path = Path(directory).resolve()
        is_folder = path.is_dir()
    except (OSError, ValueError):  # a name too long, a loop of links, a NUL character
        raise TablebaseError(f"{str(directory)[:80]!r} cannot be a tablebase folder") from None
    if path in _LOADED:
        return _LOADED[path]
    if not is_folder:
        raise TablebaseError(
            f"no tablebase directory {directory} (build one with `samuel tablebase build`)"
        )
    captures_to_win = find_captures_to_win(path)
    layers = []
    for captured in range(captures_to_win):
        for side in (False, True):
            file = layer_path(path, captured, side)
            if not file.exists():
                raise TablebaseError(
                    f"{directory} is not complete: {file.name} is missing "
                    "(`samuel tablebase build` finishes it)"
                )
            header = read_header(file)
            if (header.captures_to_win, header.captured, header.tiger_to_move) != (
                captures_to_win,
                captured,
                side,
            ):
                raise TablebaseError(f"{file}: the header is for another layer or game")
            layers.append(open_codes(file))
    table = Tablebase(Path(directory), captures_to_win, tuple(layers))
    _LOADED[path] = table
    return table


def format_move_values(table: Tablebase, position: Position) -> list[str]:
    """``probe``'s lines: the position's value, then each move's, best first."""
    lines = [f"position  {position}", f"value     {describe(table.code(position))}"]
    ranked = sorted(
        table.move_values(position),
        key=lambda item: (-item[1], item[2] if item[1] > 0 else -item[2], str(item[0])),
    )
    for move, outcome, plies in ranked:
        code = 0 if outcome == 0 else plies + 1
        lines.append(f"{str(move):8}  {describe(code)}")
    return lines
