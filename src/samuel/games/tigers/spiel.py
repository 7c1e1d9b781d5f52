"""Tigers & Sheep in the OpenSpiel adapter (:mod:`samuel.spiel.game`), which reaches it as the
game's ``spiel`` part: its actions, Samuel's own (the policy's, ``actions.py``), one a move.
A placement on point ``t`` is ``625 + t``; a step or a jump from ``o`` to ``t`` is ``o * 25 + t``
(a jump's captured point is implied). Points are 0..24, ``x + 5 * y`` (``a1`` is 0, ``c3`` 12).
"""

from __future__ import annotations

from . import actions, board
from .rules import point_name

Path = tuple[int, ...]  # the actions that make one move


class SpielActions:
    """Tigers & Sheep's actions: one per move."""

    POINTS = board.POINTS
    PLACEMENT = actions.PLACEMENT  # 625: the first placement action
    num_distinct = actions.ACTIONS  # 650
    longest_move = 1  # actions in one move

    def path(self, code: int) -> Path:
        return (int(actions.action_of(code)),)

    def is_capture(self, code: int) -> bool:
        return False  # a jump is one action, and nothing hangs on knowing it is one

    def describe(self, action: int, capturing: bool) -> str:
        """The action in Samuel's notation (``capturing`` is for games whose moves take several
        actions)."""
        if action >= self.PLACEMENT:
            return point_name(action - self.PLACEMENT)
        origin, target = divmod(action, self.POINTS)
        if (int(board.NEIGHBOURS[origin]) >> target) & 1:
            return f"{point_name(origin)}-{point_name(target)}"
        if target in board.JUMP_LAND[origin]:
            return f"{point_name(origin)}x{point_name(target)}"
        return f"{point_name(origin)} to {point_name(target)} (not along a line)"

    def describe_path(self, path: Path) -> str:
        """The actions so far of a move being made (never asked: a move is one action)."""
        return " ".join(self.describe(action, False) for action in path)


ACTIONS = SpielActions()
