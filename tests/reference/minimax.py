"""Plain negamax to a fixed depth, no pruning, no tables: the obvious reference for the search
(Tigers & Sheep through its own API; any game through GameRules: :func:`rules_negamax`).

Scores are the side to move's, with the same conventions as the compiled search: a forced
result is ``WIN - plies`` (negated for a loss), a position occurring for the third time (game
history and path together) is a draw, and leaves are scored by the classic evaluation.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from samuel.games.base import GameRules
from samuel.games.tigers.classic import FEATURE_COUNT, classic_features
from samuel.games.tigers.rules import Position
from samuel.search.alphabeta import WIN


def classic_score(position: Position, weights: np.ndarray) -> float:
    """The classic evaluation, tigers' view, as a plain dot product."""
    features = np.zeros(FEATURE_COUNT)
    classic_features(
        position.tigers,
        position.sheep,
        position.sheep_in_hand,
        int(position.tiger_to_move),
        features,
    )
    return float(sum(float(w) * float(f) for w, f in zip(weights, features, strict=True)))


def negamax(
    position: Position, depth: int, weights: np.ndarray, keys: list[int], ply: int = 0
) -> float:
    """``keys`` holds the game's positions before this one (a list, extended and restored)."""
    if ply > 0 and keys.count(position.key) >= 2:
        return 0.0
    side = 1 if position.tiger_to_move else -1
    outcome = position.decided_outcome()
    if outcome is not None:
        if outcome.result == 0:
            return 0.0
        return (WIN - ply) if outcome.result * side > 0 else -(WIN - ply)
    if depth == 0:
        return side * classic_score(position, weights)
    best = -float("inf")
    keys.append(position.key)
    for move in position.legal_moves():
        best = max(best, -negamax(position.play(move), depth - 1, weights, keys, ply + 1))
    keys.pop()
    return best


def forced_win_within(position: Position, plies: int) -> bool:
    """Can the side to move force a win within ``plies`` plies (ignoring repetition)?"""
    if plies <= 0:
        return False
    for move in position.legal_moves():
        child = position.play(move)
        outcome = child.decided_outcome()
        mover = 1 if position.tiger_to_move else -1
        if outcome is not None and outcome.result * mover > 0:
            return True
        if (
            outcome is None
            and plies >= 3
            and all(
                forced_win_within(child.play(reply), plies - 2) for reply in child.legal_moves()
            )
        ):
            return True
    return False


# -- the same, for any game behind GameRules ---------------------------------------------------


def rules_negamax(
    rules: GameRules,
    position,
    depth: int,
    evaluate: Callable[[object], float],
    keys: list[int],
    ply: int = 0,
) -> float:
    """:func:`negamax` for any game; ``evaluate(position)`` is the first player's score."""
    if ply > 0 and keys.count(rules.key(position)) >= 2:
        return 0.0
    side = 1 if rules.side_to_move(position) == 0 else -1
    outcome = rules.decided_outcome(position)
    if outcome is not None:
        if outcome.result == 0:
            return 0.0
        return (WIN - ply) if outcome.result * side > 0 else -(WIN - ply)
    if depth == 0:
        return side * evaluate(position)
    best = -float("inf")
    keys.append(rules.key(position))
    for move in rules.legal_moves(position):
        child = rules.play(position, move)
        best = max(best, -rules_negamax(rules, child, depth - 1, evaluate, keys, ply + 1))
    keys.pop()
    return best


def rules_forced_win_within(rules: GameRules, position, plies: int) -> bool:
    """:func:`forced_win_within` for any game."""
    if plies <= 0:
        return False
    mover = 1 if rules.side_to_move(position) == 0 else -1
    for move in rules.legal_moves(position):
        child = rules.play(position, move)
        outcome = rules.decided_outcome(child)
        if outcome is not None and outcome.result * mover > 0:
            return True
        if (
            outcome is None
            and plies >= 3
            and all(
                rules_forced_win_within(rules, rules.play(child, reply), plies - 2)
                for reply in rules.legal_moves(child)
            )
        ):
            return True
    return False
