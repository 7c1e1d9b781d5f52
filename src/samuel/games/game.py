"""A game in progress: the positions so far, so that repetition and the ply cap can be judged.

>>> from samuel.games import get_game
>>> game = Game(get_game("tigers"))
>>> game.play_text("c3")
>>> game.play_text("a1-b2")
>>> [str(m) for m in game.moves]
['c3', 'a1-b2']
>>> game.outcome is None
True
"""

from __future__ import annotations

import numpy as np

from samuel.games.base import GameRules, IllegalMoveError, Outcome, Termination


class Game:
    """A sequence of moves from a start position under one game's rules.

    The game ends when the position decides it (for Tigers & Sheep: captures or no legal move),
    when a position occurs for the third time since the last irreversible move (a draw; as the
    compiled loops and the search count: a game whose every move is irreversible, backgammon's,
    never repeats, though its positions may recur after passes), or when ``ply_cap`` moves have
    been played (a draw).
    """

    def __init__(self, rules: GameRules, start=None, ply_cap: int | None = None) -> None:
        if ply_cap is not None and ply_cap < 1:
            raise ValueError(f"the ply cap must be at least 1, not {ply_cap}")
        self.rules = rules
        self.ply_cap = ply_cap
        self.start = rules.initial_position() if start is None else start
        self.positions = [self.start]
        self.moves: list = []
        self._keys = [rules.key(self.start)]  # one per position, for repetition
        self._irreversible_at = [0]  # first index that can recur, after each ply
        self.outcome: Outcome | None = self._judge()

    @property
    def position(self):
        return self.positions[-1]

    @property
    def ply(self) -> int:
        return len(self.moves)

    def legal_moves(self) -> list:
        """The legal moves; none at a chance node or once the game is over."""
        return [] if self.outcome is not None else self.rules.legal_moves(self.position)

    def chance_outcomes(self) -> list:
        """At a chance node (dice to roll) its outcomes with their probabilities, else none.
        An outcome is played with :meth:`play`, like a move, and counts as a ply."""
        return [] if self.outcome is not None else self.rules.chance_outcomes(self.position)

    def play(self, move) -> None:
        """Play a move, or a chance node's outcome; raises :class:`IllegalMoveError` (and
        changes nothing) if it is not legal or the game is over."""
        if self.outcome is not None:
            raise IllegalMoveError(
                f"{self.rules.format_move(move)} is not legal: the game is over "
                f"({self.outcome.termination.value})"
            )
        position = self.rules.play(self.position, move)
        window = (
            len(self.positions)
            if self.rules.is_irreversible(self.position, move)
            else self._irreversible_at[-1]
        )
        self.moves.append(move)
        self.positions.append(position)
        self._irreversible_at.append(window)
        self._keys.append(self.rules.key(position))
        self.outcome = self._judge()

    def roll(self, dice: np.random.Generator):
        """At a chance node, draw its outcome with the game's probabilities from one uniform
        number of ``dice`` and play it; return it. The same generator state, the same roll."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise IllegalMoveError("there are no dice to roll in this position")
        u = dice.random()
        chosen = outcomes[-1][0]  # past the sum's rounding error: the last outcome
        total = 0.0
        for outcome, probability in outcomes:
            total += probability
            if u < total:
                chosen = outcome
                break
        self.play(chosen)
        return chosen

    def copy(self) -> Game:
        """An independent copy: the same start, moves and ply cap (positions are never changed
        in place, so the copy shares them)."""
        copy = Game.__new__(Game)
        copy.rules = self.rules
        copy.ply_cap = self.ply_cap
        copy.start = self.start
        copy.positions = list(self.positions)
        copy.moves = list(self.moves)
        copy._keys = list(self._keys)
        copy._irreversible_at = list(self._irreversible_at)
        copy.outcome = self.outcome
        return copy

    def play_text(self, text: str) -> None:
        """Parse a move in the game's notation and play it."""
        self.play(self.rules.parse_move(text))

    def undo(self) -> None:
        """Take back the last move."""
        if not self.moves:
            raise IllegalMoveError("there is no move to take back")
        self._keys.pop()
        self.moves.pop()
        self.positions.pop()
        self._irreversible_at.pop()
        self.outcome = self._judge()

    def history_keys(self) -> np.ndarray:
        """The keys of every position so far, oldest first (for the search's repetition check)."""
        return np.array(self._keys, dtype=np.int64)

    @property
    def window_start(self) -> int:
        """The index of the first position that could still occur again."""
        return self._irreversible_at[-1]

    def _judge(self) -> Outcome | None:
        decided = self.rules.decided_outcome(self.position)
        if decided is not None:
            return decided
        if self._keys[self._irreversible_at[-1] :].count(self._keys[-1]) >= 3:
            return Outcome(termination=Termination.REPETITION, winner=None)
        if self.ply_cap is not None and len(self.moves) >= self.ply_cap:
            return Outcome(termination=Termination.PLY_CAP, winner=None)
        return None
