"""English draughts in the OpenSpiel adapter (:mod:`samuel.spiel.game`), which reaches it as the
game's ``spiel`` part: its actions, as OpenSpiel's own checkers numbers them. One action per
single step or single jump, ``square * 4 + direction`` with ``square`` 0..31 (PDN square - 1)
and ``direction`` one of :mod:`samuel.games.draughts.board`'s ``UP_LEFT`` (0), ``UP_RIGHT``,
``DOWN_LEFT``, ``DOWN_RIGHT`` (3). A capture of several jumps is several actions in a row by the
same player. (These are not the policy's actions, ``actions.py``, which name a move by its first
step in the side to move's frame.)
"""

from __future__ import annotations

from . import board, kernels

Path = tuple[int, ...]  # the actions that make one move


def _step_directions() -> dict[tuple[int, int], int]:
    return {
        (origin, int(board.STEP[origin, d])): d
        for origin in range(board.SQUARES)
        for d in range(4)
        if board.STEP[origin, d] >= 0
    }


class SpielActions:
    """English draughts' actions: one per step or single jump."""

    num_distinct = board.SQUARES * 4  # 128
    longest_move = board.MAX_JUMPS  # a capture takes each of 12 pieces at most once
    _step_direction = _step_directions()

    def path(self, code: int) -> Path:
        origin = code & kernels.SQUARE_FIELD
        jumps = (code >> kernels.JUMPS_SHIFT) & kernels.JUMPS_FIELD
        if jumps == 0:
            target = (code >> kernels.SQUARE_BITS) & kernels.SQUARE_FIELD
            return (origin * 4 + self._step_direction[origin, target],)
        path, square = [], origin
        for j in range(jumps):
            direction = (code >> (kernels.PATH_SHIFT + 2 * j)) & 3
            path.append(square * 4 + direction)
            square = int(board.JUMP_LAND[square, direction])
        return tuple(path)

    def is_capture(self, code: int) -> bool:
        return (code >> kernels.JUMPS_SHIFT) & kernels.JUMPS_FIELD > 0

    def describe(self, action: int, capturing: bool) -> str:
        """The action in Samuel's notation: a jump if ``capturing`` (a capture is due, or being
        made), else a step."""
        square, direction = divmod(action, 4)
        table = board.JUMP_LAND if capturing else board.STEP
        target = int(table[square, direction])
        if target < 0:
            names = ("up-left", "up-right", "down-left", "down-right")
            return f"{square + 1} {names[direction]} (off the board)"
        return f"{square + 1}{'x' if capturing else '-'}{target + 1}"

    def describe_path(self, path: Path) -> str:
        """The jumps so far of a capture being made, as ``15x24x31``."""
        squares = [a // 4 for a in path]
        last = path[-1]
        squares.append(int(board.JUMP_LAND[last // 4, last % 4]))
        return "x".join(str(square + 1) for square in squares)


ACTIONS = SpielActions()
