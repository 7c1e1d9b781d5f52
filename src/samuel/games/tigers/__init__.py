"""Tigers & Sheep (Bagh-Chal with sheep), behind the :class:`samuel.games.base.GameRules`
interface. The rules are ``shared/RULES.md``."""

from __future__ import annotations

import numpy as np

from samuel.games import kernels as game_kernels
from samuel.games.base import Outcome

from . import classic
from .rules import Move, Position, draw_board, format_position, parse_position


class TigersAndSheep:
    """The :class:`~samuel.games.base.GameRules` of Tigers & Sheep."""

    name = "tigers"
    title = "Tigers & Sheep"
    kernel_id = game_kernels.TIGERS_AND_SHEEP
    sides = ("tigers", "sheep")
    side_letters = ("T", "S")
    symmetry_count = 8

    def initial_position(self) -> Position:
        return Position.initial()

    def legal_moves(self, position: Position) -> list[Move]:
        return position.legal_moves()

    def play(self, position: Position, move: Move) -> Position:
        return position.play(move)

    def side_to_move(self, position: Position) -> int:
        return 0 if position.tiger_to_move else 1

    def decided_outcome(self, position: Position) -> Outcome | None:
        return position.decided_outcome()

    def is_irreversible(self, position: Position, move: Move) -> bool:
        return move.is_placement or move.is_jump

    def key(self, position: Position) -> int:
        return position.key

    def encode(self, position: Position) -> np.ndarray:
        return position.encode()

    def move_code(self, move: Move) -> int:
        return move.code

    def move_from_code(self, code: int) -> Move:
        return Move.from_code(code)

    def transform_position(self, position: Position, symmetry: int) -> Position:
        return position.transformed(symmetry)

    def transform_move(self, move: Move, symmetry: int) -> Move:
        return move.transformed(symmetry)

    def parse_position(self, text: str) -> Position:
        return parse_position(text)

    def format_position(self, position: Position) -> str:
        return format_position(position)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def format_move(self, move: Move) -> str:
        return str(move)

    def draw_board(self, position: Position) -> str:
        return draw_board(position)

    def classic_weights(self, path: str | None = None) -> np.ndarray:
        return classic.load_weights(path)


RULES = TigersAndSheep()

__all__ = ["RULES", "Move", "Position", "TigersAndSheep"]
