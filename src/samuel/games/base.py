"""What every game offers the rest of Samuel: the small interface search, players, matches and
training are written against, and the outcome of a game as data.

A game module provides a :class:`GameRules` object; :mod:`samuel.games` registers it by name. The
compiled side of the same interface is :mod:`samuel.games.kernels`.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from samuel.errors import SamuelError

Result = int  # the first player's view: +1 a win, -1 a loss, 0 a draw


class Termination(enum.Enum):
    """How a game ended. A new game adds the ways its games end."""

    FIVE_CAPTURED = "enough sheep captured"
    TIGERS_BLOCKED = "the tigers have no legal move"
    SHEEP_BLOCKED = "the sheep have no legal move"
    REPETITION = "threefold repetition"
    PLY_CAP = "ply cap reached"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: why it ended and the result, from the first player's point of view."""

    termination: Termination
    result: Result

    @property
    def is_draw(self) -> bool:
        return self.result == 0


class NotationError(SamuelError, ValueError):
    """Text that does not describe a point, move, position or game record."""


class IllegalMoveError(SamuelError, ValueError):
    """A well-formed move that the rules do not allow in the position."""


class GameRules(Protocol):
    """The rules of one game, behind one small interface.

    Positions are immutable and hashable; moves are immutable values. ``encode`` gives the
    compiled kernels' form of a position and ``move_code``/``move_from_code`` that of a move.
    """

    name: str  # the registry name, e.g. "tigers"
    title: str  # for people, e.g. "Tigers & Sheep"
    kernel_id: int  # the game's number in samuel.games.kernels
    # The key identifies the first key_words words of encode(): positions with the same key have
    # those words equal, and differ at most in the words after (counters the key leaves out,
    # such as draughts' 40-move count).
    key_words: int
    sides: tuple[str, str]  # the first player (wins are positive) and the second
    symmetry_count: int

    def initial_position(self) -> Hashable: ...
    def legal_moves(self, position) -> list: ...
    def play(self, position, move): ...
    def side_to_move(self, position) -> int:  # 0 for the first player, 1 for the second
        ...
    def decided_outcome(self, position) -> Outcome | None: ...
    def is_irreversible(self, position, move) -> bool: ...
    def key(self, position) -> int: ...
    def encode(self, position) -> np.ndarray: ...
    def move_code(self, move) -> int: ...
    def move_from_code(self, code: int): ...
    def transform_position(self, position, symmetry: int): ...
    def transform_move(self, move, symmetry: int): ...
    def parse_position(self, text: str): ...
    def format_position(self, position) -> str: ...
    def parse_move(self, text: str): ...
    def format_move(self, move) -> str: ...
    def draw_board(self, position) -> str: ...
    def classic_weights(self, path: str | None = None) -> np.ndarray: ...
