"""One compiled step of a game played to its end, shared by every loop that plays whole games:
self-play (:mod:`samuel.train.selfplay`), rollouts (:mod:`samuel.train.rollouts`), the
pipeline's expert games (:mod:`samuel.pipeline.sources`) and Samuel Zero's self-play
(:mod:`samuel.train.zero_selfplay`).

At each ply a loop calls :func:`arrive`: it rolls the dice while the position is a chance node,
records the position's key, and says whether the game ended there (a threefold repetition, or a
result by the rules) or how many moves the side to move has. The loop chooses its move in its
own way and plays it with :func:`advance`, which keeps the window of positions that can still
recur. So the repetition rule, the dice and the end of a game are written once, and every loop
plays a game with dice as it plays one without.

**Dice.** A roll is drawn from ``dice`` (a seed: the loop's game's) and the ply alone, not from
the loop's own random stream: the same seed rolls the same dice at the same ply whatever the
players do, so two games with the same seed have the same dice (duplicate dice), and a game
without dice draws nothing (its games are what they always were).
"""

from __future__ import annotations

import numpy as np

from samuel.games import kernels as games
from samuel.jit import inline_kernel
from samuel.search.alphabeta import _mix, search_kernel

# ``arrive``'s result for a threefold repetition: a draw, told apart from a draw by the rules
# (Samuel Zero rescores a repetition with its tablebase's value). No game scores 126 points.
REPEATED = 126
UNIT = 1 << 53  # a roll's uniform has 53 bits
DICE_SALT = 0x0D1CE5EED  # the dice's stream, apart from the loop's own draws from the same seed
# The most rolls one ply may take before a move (a chance node after a chance node): far more
# than any game's, so a game whose rolls never end is an error, not a hang.
MOST_ROLLS = 8


@inline_kernel
def roll(game, state, child, outcomes, weights, dice, ply) -> None:
    """Roll the dice while ``state`` is a chance node: each roll an outcome drawn by its
    probability from ``dice`` and the ply, played into ``state``."""
    for rolled in range(MOST_ROLLS + 1):
        count = games.chance(game, state, outcomes, weights)
        if count == 0:
            return
        if rolled == MOST_ROLLS:
            raise ValueError("a position that rolls dice again and again: no move between")
        draw = _mix((dice ^ DICE_SALT) + ply * (MOST_ROLLS + 1) + rolled)
        u = ((draw >> 11) & (UNIT - 1)) / float(UNIT)
        pick = count - 1
        total = 0.0
        for i in range(count):
            total += weights[i]
            if u < total:
                pick = i
                break
        games.play(game, state, outcomes[pick], child)
        state[:] = child


@inline_kernel
def arrive(game, state, child, keys, window, ply, moves, outcomes, weights, dice):
    """The game at ply ``ply`` (``state``, after the moves before it): roll any dice
    (:func:`roll`), record the position's key in ``keys[ply]``, and return ``(n, result)``:
    ``result`` is ``NOT_OVER`` and ``moves[:n]`` the legal moves, or ``REPEATED`` for the third
    occurrence of a position since ``window`` (the first that can recur), or the first player's
    points of a game the rules ended."""
    roll(game, state, child, outcomes, weights, dice, ply)
    keys[ply] = games.key(game, state)
    if games.occurrences(keys, window, ply) >= 3:
        return 0, REPEATED
    n = games.generate(game, state, moves)
    return n, games.result(game, state, n)


@inline_kernel
def points(result) -> int:
    """A finished game's result in points for the first player: a repetition is a draw."""
    return 0 if result == REPEATED else result


@inline_kernel
def searched(game, evaluator, params, state, keys, window, ply, depth, seed, tables, pv, table):
    """Search the ply's position to ``depth`` (the game's keys so far, ties at the root broken
    by ``seed`` and the ply, ``table`` a tablebase's layers or None); return its score, the side
    to move's. The move is ``pv[0]``."""
    score, _, _ = search_kernel(
        game,
        evaluator,
        params,
        state,
        keys[: ply + 1],
        window,
        depth,
        0.0,
        _mix(seed + ply),
        tables,
        pv,
        table,
    )
    return score


@inline_kernel
def advance(game, state, child, move, ply, window) -> int:
    """Play ``move`` in ``state`` (in place); return the window of positions that can recur
    after it (the next ply's, if the move cannot be undone)."""
    if games.is_irreversible(game, state, move):
        window = ply + 1
    games.play(game, state, move, child)
    state[:] = child
    return window


@inline_kernel
def buffers(game, root, ply_cap):
    """A loop's working arrays: the position (a copy of ``root``), the child, the keys, the
    moves, a chance node's outcomes and their probabilities (the move buffers of the game's
    room)."""
    room = games.move_room_kernel(game)
    return (
        root.copy(),
        np.empty_like(root),
        np.empty(ply_cap + 1, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.int64),
        np.empty(room, dtype=np.float64),
    )
