"""Self-play: whole games of a player against itself, run compiled, many at once.

Each game searches every position to a fixed depth (a depth, not a time, keeps runs
reproducible), plays ``random_plies`` random opening plies, then a random move instead of the
searched one with probability ``epsilon``; it is a draw on a threefold repetition (the search
sees the game's earlier positions) or after ``ply_cap`` plies. Every position where a move was
played is recorded with the search's score for it (clamped to -1..1, the first player's view)
and whether the move played there was random. A game's randomness comes only from its seed, which
the caller derives from (generation, game number): the games are the same on any number of
threads.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from samuel.backends import Backend
from samuel.evaluation import kernels as evaluation
from samuel.games import kernels as games
from samuel.jit import kernel, parallel_kernel
from samuel.search.alphabeta import MAX_PLY, _random_below, new_tables

from . import game_loop

SELFPLAY_TABLE_BITS = 14  # shallow searches visit few nodes; a small table is cheaper to make


# How a self-play game is played: one argument of the compiled games (a settings bundle), the
# fields of SelfPlaySettings below but the game, the evaluator and its parameters.
SelfPlay = namedtuple("SelfPlay", "root depth random_plies epsilon ply_cap")


@kernel
def play_one_game(game, evaluator, params, play, seed, tables, pv, positions, scores, random_moves):
    """Play one game as ``play`` (a :data:`SelfPlay`) says; fill the per-ply arrays; return
    ``(plies, result)``.

    ``positions[ply]`` is the position where the ply's move was played, ``scores[ply]`` the
    clamped search score (first player's view), ``random_moves[ply]`` whether the move played was
    random. The result is the first player's points. A game with dice rolls them from ``seed``
    (:mod:`samuel.train.game_loop`).
    """
    root, depth, random_plies, epsilon, ply_cap = play
    state, child, keys, moves, outcomes, weights = game_loop.buffers(game, root, ply_cap)
    window = 0
    rng = seed
    for ply in range(ply_cap):
        n, result = game_loop.arrive(
            game, state, child, keys, window, ply, moves, outcomes, weights, seed
        )
        if result != games.NOT_OVER:
            return ply, game_loop.points(result)
        score = game_loop.searched(
            game, evaluator, params, state, keys, window, ply, depth, seed, tables, pv, None
        )
        side = games.sign(game, state)
        score = score * side
        positions[ply, :] = state
        scores[ply] = max(-1.0, min(1.0, score))
        move = pv[0]
        random_moves[ply] = False
        explore = 1.0
        if epsilon > 0.0 and ply >= random_plies:
            draw, rng = _random_below(rng, 1 << 53)
            explore = draw / float(1 << 53)
        if ply < random_plies or explore < epsilon:
            pick, rng = _random_below(rng, n)
            move = moves[pick]
            random_moves[ply] = True
        window = game_loop.advance(game, state, child, move, ply, window)
    return ply_cap, 0


@parallel_kernel
def play_games(
    game, evaluator, params, play, seeds, positions, scores, random_moves, plies, results
):
    """Play ``len(seeds)`` games in parallel, game ``g`` with ``seeds[g]``."""
    for g in numba.prange(seeds.shape[0]):
        tables = new_tables(
            SELFPLAY_TABLE_BITS,
            play.root.shape[0],
            games.move_room_kernel(game),
            evaluation.scratch_size(game, evaluator, params),
        )
        pv = np.zeros(MAX_PLY, dtype=np.int64)
        n, result = play_one_game(
            game,
            evaluator,
            params,
            play,
            seeds[g],
            tables,
            pv,
            positions[g],
            scores[g],
            random_moves[g],
        )
        plies[g] = n
        results[g] = result


@dataclass(frozen=True)
class SelfPlayGames:
    """The games of one batch: per-game arrays padded to the ply cap."""

    positions: np.ndarray  # (games, ply_cap, state size) int64
    scores: np.ndarray  # (games, ply_cap) float32, clamped search scores, first player's view
    random_moves: np.ndarray  # (games, ply_cap) bool
    plies: np.ndarray  # (games,) moves played in each game
    results: np.ndarray  # (games,) first player's result: 1, 0, -1


@dataclass(frozen=True, eq=False)
class SelfPlaySettings:
    """How a run's self-play games are played: everything but their seeds. One value is shared
    by every part of a run (a cluster backend pickles it to its workers once)."""

    game: int  # the game's number
    evaluator: int  # the players' evaluator (samuel.games.kernels.EVALUATOR_*) ...
    params: np.ndarray  # ... and its parameters
    root: np.ndarray  # the start position, the game's encoding
    depth: int  # plies each move is searched
    random_plies: int  # random opening plies
    epsilon: float  # after them, the chance that a move is random instead of searched
    ply_cap: int  # a game this long is a draw


def play_selfplay(settings: SelfPlaySettings, seeds: np.ndarray) -> SelfPlayGames:
    """Play one game per seed as ``settings`` say, in parallel on numba's threads
    (``numba.set_num_threads``)."""
    count, ply_cap = len(seeds), settings.ply_cap
    positions = np.zeros((count, ply_cap, len(settings.root)), dtype=np.int64)
    scores = np.zeros((count, ply_cap), dtype=np.float32)
    random_moves = np.zeros((count, ply_cap), dtype=np.bool_)
    plies = np.zeros(count, dtype=np.int64)
    results = np.zeros(count, dtype=np.int64)
    play = SelfPlay(
        np.ascontiguousarray(settings.root, dtype=np.int64),
        int(settings.depth),
        int(settings.random_plies),
        float(settings.epsilon),
        int(ply_cap),
    )
    play_games(
        settings.game,
        settings.evaluator,
        settings.params,
        play,
        np.asarray(seeds, dtype=np.int64),
        positions,
        scores,
        random_moves,
        plies,
        results,
    )
    return SelfPlayGames(positions, scores, random_moves, plies, results)


def _selfplay_unit(shared: SelfPlaySettings, seeds: np.ndarray) -> SelfPlayGames:
    """A backend's unit: the games of ``seeds``, with the run's shared settings and network."""
    return play_selfplay(shared, seeds)


def play_selfplay_parts(
    backend: Backend,
    settings: SelfPlaySettings,
    seeds: np.ndarray,
    progress: Callable[[int], None] | None = None,
) -> list[SelfPlayGames]:
    """Play one game per seed as ``settings`` say, as ``backend``'s units
    (:mod:`samuel.backends`): the parts come back in seed order, the same games whatever ran
    them, since a game depends on its seed alone. ``progress(games done)`` is told each time the
    finished run of parts grows."""
    seeds = np.asarray(seeds, dtype=np.int64)
    units = [seeds[part.start : part.stop] for part in backend.parts(len(seeds))]

    def after(done: list[SelfPlayGames]) -> bool:
        progress(sum(len(part.plies) for part in done))
        return False

    return backend.run(_selfplay_unit, units, settings, None if progress is None else after)
