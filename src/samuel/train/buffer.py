"""The sample buffer: each generation's samples kept by outcome (a win for the game's first
player, for its second, a draw), and balanced epochs built from the last ``buffer_generations``
generations.

Self-play can end mostly in wins for one side: in Tigers & Sheep, tiger wins (random sheep moves
tend to leave a sheep to be jumped), so an epoch trained on everything would mostly teach what
tiger wins look like. With balancing, an epoch holds:

- as many positions from the second player's wins as from the first player's: their mean
  (rounded down), so the epoch keeps about the same size. The bigger pool gives a random subset
  (every position at most once); the smaller gives every position plus random repeats;
- every position from drawn games, once.

If either kind of win has no positions at all there is nothing to balance, and everything is used.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from samuel.nn.network import NO_PLIES

FIRST_WIN, SECOND_WIN, DRAW = 0, 1, 2  # the first player's win (Tigers & Sheep: the tigers')
OUTCOMES = (FIRST_WIN, SECOND_WIN, DRAW)


@dataclass(frozen=True)
class Samples:
    """Positions with targets: equal-length arrays (``state`` rows are the kernels' positions).
    ``plies`` is each position's plies-left target for the moves-left head (``NO_PLIES``, -1,
    where there is none); left out, no sample has one. ``outcomes`` are the outcome head's
    targets, for a network valued by its outcomes (:mod:`samuel.nn.shape`): each position's
    chances of winning by at least 1 ... k points, then of losing by at least 1 ... k, in the
    first player's view; (n, 0) for a network valued by its value head."""

    states: np.ndarray  # (n, state size) int64
    targets: np.ndarray  # (n,) float32, the first player's view
    plies: np.ndarray | None = None  # (n,) float32, plies left; filled with NO_PLIES if None
    outcomes: np.ndarray | None = None  # (n, 2k) float32; (n, 0) if None

    def __post_init__(self) -> None:
        if self.plies is None:
            object.__setattr__(self, "plies", np.full(len(self.targets), NO_PLIES, np.float32))
        if self.outcomes is None:
            object.__setattr__(self, "outcomes", np.zeros((len(self.targets), 0), np.float32))

    def __len__(self) -> int:
        return len(self.targets)

    @staticmethod
    def empty(state_size: int) -> Samples:
        return Samples(np.zeros((0, state_size), np.int64), np.zeros(0, np.float32))

    @staticmethod
    def concatenate(parts: list[Samples], state_size: int) -> Samples:
        if not parts:
            return Samples.empty(state_size)
        return Samples(
            np.concatenate([p.states for p in parts]),
            np.concatenate([p.targets for p in parts]),
            np.concatenate([p.plies for p in parts]),
            _outcomes([p.outcomes for p in parts]),
        )

    def take(self, indices: np.ndarray) -> Samples:
        return Samples(
            self.states[indices], self.targets[indices], self.plies[indices], self.outcomes[indices]
        )


def _outcomes(parts: list[np.ndarray]) -> np.ndarray:
    """The parts' outcome targets stacked; a part without samples fits any width."""
    width = max(part.shape[1] for part in parts)
    return np.concatenate([p if len(p) else np.zeros((0, width), np.float32) for p in parts])


class SampleBuffer:
    """The samples of the last ``generations`` generations, split by how their game ended."""

    def __init__(self, generations: int, state_size: int) -> None:
        if generations < 1:
            raise ValueError(f"the buffer must keep at least 1 generation, not {generations}")
        self.state_size = state_size
        self._generations: deque[dict[int, Samples]] = deque(maxlen=generations)

    def add_generation(self, by_outcome: dict[int, Samples]) -> None:
        self._generations.append(
            {o: by_outcome.get(o, Samples.empty(self.state_size)) for o in OUTCOMES}
        )

    def pool(self, outcome: int) -> Samples:
        return Samples.concatenate([g[outcome] for g in self._generations], self.state_size)

    def epoch(self, rng: np.random.Generator, balance: bool = True) -> Samples:
        """One epoch's samples (unshuffled), balanced as the module says, or everything."""
        first, second, draws = (self.pool(o) for o in OUTCOMES)
        return balanced_epoch(first, second, draws, rng, balance)


def balanced_epoch(
    first: Samples, second: Samples, draws: Samples, rng: np.random.Generator, balance: bool = True
) -> Samples:
    """The seed's balancing rule on pools of first-player-win, second-player-win and drawn
    positions."""
    state_size = first.states.shape[1]
    if not balance or len(first) == 0 or len(second) == 0:
        return Samples.concatenate([first, second, draws], state_size)
    each = (len(first) + len(second)) // 2
    parts = []
    for pool in (first, second):
        if len(pool) >= each:
            parts.append(pool.take(rng.choice(len(pool), size=each, replace=False)))
        else:
            repeats = rng.integers(0, len(pool), size=each - len(pool))
            parts.append(pool.take(np.concatenate([np.arange(len(pool)), repeats])))
    parts.append(draws)
    return Samples.concatenate(parts, state_size)
