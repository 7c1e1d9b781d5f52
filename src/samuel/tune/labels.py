"""Where the tuner's targets come from: what each position's evaluation is fitted to, in 0..1
(a loss of the first player 0, a draw 0.5, a win 1).

``result``
    The game's result (the first tuner's only label). Every position of a game shares it, even
    those that a blunder later turned: it teaches what tends to win, not what the position is.
``search``
    The score of a deeper search of the position, ``sigmoid(K * score)`` with the tuner's ``K``
    (the score is in the evaluation's units, sheep or men, so it is squashed as the evaluation
    is). The searcher is a player spec (``classic:depth=5``): its classic or hybrid score.
``rollout``
    The mean result of games played out from the position by a player
    (:func:`samuel.train.rollouts.rollout_labels`).
``tablebase`` (a game with a tablebase: Tigers & Sheep)
    Wherever the table holds the position (the hand empty), its exact value, whatever the label
    above it said: there the truth is known.
"""

from __future__ import annotations

import numba
import numpy as np

from samuel.evaluation import kernels as evaluation
from samuel.games import kernels as games
from samuel.jit import kernel, parallel_kernel
from samuel.search.alphabeta import MAX_PLY, new_tables, search_kernel

LABELS = ("result", "search", "rollout")
SEARCH_TABLE_BITS = 16  # 64k entries (2 MB) per chunk: enough for a shallow search
SEARCH_CHUNK = 256  # positions per work item: each makes its search tables once
FORCED_SCORE = 50.0  # a forced result's score, far beyond any position's: sigmoid 0 or 1


@kernel
def _search_score(game, evaluator, params, state, depth, tables, pv, history):
    history[0] = games.key(game, state)
    score, _, _ = search_kernel(
        game, evaluator, params, state, history, 0, depth, 0.0, 0, tables, pv
    )
    score = min(FORCED_SCORE, max(-FORCED_SCORE, score))
    return games.sign(game, state) * score


@parallel_kernel
def _search_scores(game, evaluator, params, states, depth, out):
    n = states.shape[0]
    for c in numba.prange((n + SEARCH_CHUNK - 1) // SEARCH_CHUNK):
        # The tables' stamps hide earlier searches' entries: each score is the position's own.
        tables = new_tables(
            SEARCH_TABLE_BITS,
            games.STATE_SIZE,
            games.move_room_kernel(game),
            evaluation.scratch_size(game, evaluator, params),
        )
        pv = np.zeros(MAX_PLY, dtype=np.int64)
        history = np.zeros(1, dtype=np.int64)
        for p in range(c * SEARCH_CHUNK, min(n, (c + 1) * SEARCH_CHUNK)):
            out[p] = _search_score(game, evaluator, params, states[p], depth, tables, pv, history)


def search_scores(game: str, spec: str, states: np.ndarray) -> np.ndarray:
    """The first player's score of each position (not over; checked rows of the game's states)
    by the search ``spec`` names (a classic or hybrid player searching to a depth), float64; a
    forced result is ``±FORCED_SCORE``."""
    from samuel.errors import CommandError

    from .dataset import selfplay_player
    from .games import tuning_game
    from .gradient import checked_states

    evaluator, params, depth = selfplay_player(spec, game)
    if evaluator not in (games.EVALUATOR_CLASSIC, games.EVALUATOR_HYBRID):
        raise CommandError(f"{spec!r} does not score in classic units: search labels need one")
    states = checked_states(states, game)  # the search reads its tables with them
    # Each distinct position searched once: openings recur in many games.
    unique, inverse = np.unique(states, axis=0, return_inverse=True)
    wide = np.zeros((len(unique), games.STATE_SIZE), dtype=np.int64)
    wide[:, : states.shape[1]] = unique
    out = np.zeros(len(unique), dtype=np.float64)
    _search_scores(tuning_game(game).number, evaluator, params, wide, depth, out)
    return out[inverse.reshape(-1)]


def squash(scores: np.ndarray, k: float) -> np.ndarray:
    """Scores in the evaluation's units as targets in 0..1: ``sigmoid(k * score)``."""
    return 1.0 / (1.0 + np.exp(-k * np.asarray(scores, dtype=np.float64)))


def rollout_targets(game: str, spec: str, states: np.ndarray, rollouts: int, seed: int):
    """The mean result of ``rollouts`` games from each position by the player ``spec`` names,
    as targets in 0..1; each position's seed comes from (``seed``, its row)."""
    from samuel.seeds import derive_seed
    from samuel.train.rollouts import RolloutConfig, rollout_labels

    from .dataset import selfplay_player
    from .games import tuning_game

    evaluator, params, depth = selfplay_player(spec, game)
    seeds = np.array([derive_seed(seed, row, ROLLOUT_STREAM) for row in range(len(states))])
    labels = rollout_labels(
        tuning_game(game).number,
        evaluator,
        params,
        states,
        seeds.astype(np.int64),
        RolloutConfig(rollouts=rollouts, depth=depth),
    )
    return (labels.values.astype(np.float64) + 1.0) / 2.0


ROLLOUT_STREAM = 0x2011  # keeps the rollouts' seeds apart from the games'


def tablebase_targets(
    directory: str, states: np.ndarray, game: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(known, targets)``: where the tablebase in ``directory`` of the game called ``game``
    (the default game if None; its package's ``perfect`` part) holds the position (for Tigers &
    Sheep, the hand empty), its exact value as a target in 0..1."""
    from samuel.errors import CommandError
    from samuel.games import default_game, descriptors
    from samuel.train.rollouts import tablebase_labels

    descriptor = descriptors()[default_game() if game is None else game]
    perfect = descriptor.part("perfect")
    if perfect is None:
        raise CommandError(f"{descriptor.title} has no tablebase")
    known, values = tablebase_labels(perfect.load(directory), states)
    return known, (values.astype(np.float64) + 1.0) / 2.0


__all__ = [
    "FORCED_SCORE",
    "LABELS",
    "rollout_targets",
    "search_scores",
    "squash",
    "tablebase_targets",
]
