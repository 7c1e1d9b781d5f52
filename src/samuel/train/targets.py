"""TD(lambda) targets: what each self-play position should learn to score; and plies left.

Working backwards from the end of the game::

    target[last] = result
    target[t]    = (1 - lambda) * score[t+1] + lambda * target[t+1]

With lambda = 1 every position is labelled with the result; with lambda = 0 each with the next
position's search score. **Random moves cut the chain**: a position where a random move was played
is labelled with its own search score instead, and the positions before it build on that, so they
do not learn from the random move's consequences. (This holds for the last position too: a random
last move does not teach its position the result.) Scores, results and targets are all from the
game's first player's point of view (the trainer turns targets into the network's).

**Plies left** (the moves-left head's targets, ``docs/training.md``): each position learns how
many plies its game actually lasted from there, or, for a Tigers & Sheep position with the hand
empty that the tablebase calls won or lost, the table's exact distance with perfect play.
"""

from __future__ import annotations

import numpy as np

from samuel.games import kernels as games
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


def plies_left_targets(plies: int) -> np.ndarray:
    """The moves-left head's targets for a game of ``plies`` recorded positions: the position at
    ply ``t`` is ``plies - t`` plies from the end the game actually reached (``plies`` down to
    1). A game stopped at the ply cap counts as ending there."""
    return np.arange(plies, 0, -1, dtype=np.float32)


@kernel
def _tablebase_distances(game, states, layers, plies):
    for i in range(states.shape[0]):
        found, outcome, distance = games.tablebase_result(game, states[i], layers)
        if found and outcome != 0:
            plies[i] = distance


def tablebase_plies(
    game: int, states: np.ndarray, layers: tuple[np.ndarray, ...], plies: np.ndarray
) -> None:
    """Overwrite ``plies[i]`` with the tablebase's exact distance to the end (perfect play) for
    every position ``states[i]`` that it holds (Tigers & Sheep, hand empty) and calls won or
    lost; drawn and unheld positions keep theirs. ``layers`` is the table of the game's rules
    (``Tablebase.layers``); the positions must be games not yet over. Raises ValueError for
    anything the kernel cannot read safely (numba checks no bounds): the game's ``perfect``
    part checks the table and the positions."""
    from samuel.games import descriptor_of

    sizes = games.compiled_game(game)
    perfect = descriptor_of(game).part("perfect")
    if perfect is None:
        raise ValueError(f"{sizes.title} has no tablebase")
    if not (
        isinstance(states, np.ndarray)
        and states.ndim == 2
        and states.shape[1] == sizes.state_words
        and states.dtype == np.int64
        and states.flags.c_contiguous
    ):
        raise ValueError(
            f"positions must be a C-contiguous int64 array of shape (n, {sizes.state_words})"
        )
    if not (
        isinstance(plies, np.ndarray)
        and plies.shape == (len(states),)
        and plies.dtype == np.float32
        and plies.flags.writeable
    ):
        raise ValueError(f"plies must be a writeable float32 array of {len(states)} entries")
    perfect.check_positions(game, states, layers)
    _tablebase_distances(game, states, layers, plies)


# -- a network valued by its outcomes (samuel.nn.shape): TD(lambda) over outcome vectors ---------


def outcome_vector(result: int, classes: int) -> np.ndarray:
    """A finished game's outcome targets in the first player's view, for ``classes`` outcome
    classes: 1 for each class of win it reached (winning by at least 1 ... ``classes`` points),
    then the same for a loss; all 0 for a draw (or a game the ply cap stopped)."""
    vector = np.zeros(2 * classes, dtype=np.float32)
    points = min(abs(int(result)), classes)
    offset = 0 if result > 0 else classes
    vector[offset : offset + points] = 1.0
    return vector


@kernel
def td_lambda_outcome_targets(
    predictions: np.ndarray,
    random_moves: np.ndarray,
    final: np.ndarray,
    lam: float,
    targets: np.ndarray,
) -> None:
    """Fill ``targets[:n]`` (n, 2k) for a game of ``n`` recorded positions, as
    :func:`td_lambda_targets` does for a value, output by output: the last position learns the
    game's outcome vector ``final``, each one before it ``(1 - lambda)`` times the network's
    prediction at the next plus ``lambda`` times the next one's target; a position where a random
    move was played learns its own prediction (TD-Gammon's targets, seed 000's lambda)."""
    n = predictions.shape[0]
    for t in range(n - 1, -1, -1):
        for o in range(predictions.shape[1]):
            if random_moves[t]:
                targets[t, o] = predictions[t, o]
            elif t == n - 1:
                targets[t, o] = final[o]
            else:
                targets[t, o] = (1.0 - lam) * predictions[t + 1, o] + lam * targets[t + 1, o]
