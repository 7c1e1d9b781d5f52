"""TD(lambda) targets: what each self-play position should learn to score.

Working backwards from the end of the game::

    target[last] = result
    target[t]    = (1 - lambda) * score[t+1] + lambda * target[t+1]

With lambda = 1 every position is labelled with the result; with lambda = 0 each with the next
position's search score. **Random moves cut the chain**: a position where a random move was played
is labelled with its own search score instead, and the positions before it build on that, so they
do not learn from the random move's consequences. (This holds for the last position too: a random
last move does not teach its position the result.) Scores, results and targets are all from the
game's first player's point of view (the trainer turns targets into the network's).
"""

from __future__ import annotations

import numpy as np

from samuel.jit import kernel


@kernel
def td_lambda_targets(
    scores: np.ndarray, random_moves: np.ndarray, result: float, lam: float, targets: np.ndarray
) -> None:
    """Fill ``targets[:n]`` for a game of ``n = len(scores)`` recorded positions."""
    n = scores.shape[0]
    for t in range(n - 1, -1, -1):
        if random_moves[t]:
            targets[t] = scores[t]
        elif t == n - 1:
            targets[t] = result
        else:
            targets[t] = (1.0 - lam) * scores[t + 1] + lam * targets[t + 1]
