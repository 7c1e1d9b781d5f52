"""The plays of a rolled position, as a game with dice offers them through
:class:`samuel.games.base.GameRules`: read from the game's compiled generator, each with the
position it leaves, and the 21 rolls of a position whose dice are still to throw.

A game's rules class mixes in :class:`CompiledPlays` and names its pieces as class attributes:
its kernels module (``generate_plays`` and ``play_move``), its position, play and roll types, the
most plays a roll can have and its state's width.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np


class CompiledPlays:
    """``plays``, ``legal_moves`` and ``chance_outcomes`` of a dice game, over its generator."""

    kernels: ClassVar[ModuleType]
    position_type: ClassVar[Any]  # decodes a state: ``Position.decode(state)``
    play_type: ClassVar[Any]  # from a generator's code: ``Play.from_code(code)``
    roll_type: ClassVar[Any]  # a TwoDice: ``Roll.all()``
    max_plays: ClassVar[int]
    state_words: ClassVar[int]

    def _codes(self, position) -> tuple[np.ndarray, list[int]]:
        """The position's state and its legal plays' codes, in the compiled generator's order."""
        state = position.encode()
        moves = np.empty(self.max_plays, dtype=np.int64)
        n = self.kernels.generate_plays(state, moves)
        return state, moves[:n].tolist()

    def _after(self, state: np.ndarray, code: int):
        child = np.empty(self.state_words, dtype=np.int64)
        self.kernels.play_move(state, code, child)
        return self.position_type.decode(child)

    def plays(self, position) -> dict:
        """Every legal play of the rolled dice and the position it leaves, in the compiled
        generator's order; none at a chance node or once the game is over."""
        state, codes = self._codes(position)
        return {self.play_type.from_code(code): self._after(state, code) for code in codes}

    def legal_moves(self, position) -> list:
        return [self.play_type.from_code(code) for code in self._codes(position)[1]]

    def chance_outcomes(self, position) -> list[tuple[Any, float]]:
        if not position.is_chance_node():
            return []
        return [(roll, float(roll.probability)) for roll in self.roll_type.all()]
