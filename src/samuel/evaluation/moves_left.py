"""The moves-left evaluator: the network's value, nudged by its own estimate of the plies left
once the game looks decided, so that the winning side prefers shorter wins and the losing side
longer losses (seed 003, lc0's moves-left head; ``docs/moves-left.md``).

A value-only network scores a won position about the same whether the win is 3 plies away or
60, so between winning moves the search has nothing to choose by and may shuffle instead of
converting. The network's moves-left head (:func:`samuel.nn.network.plies_left`) estimates the
plies left, ``m``. Like lc0, which compares each move's ``m`` with its parent's, the evaluator
(``kernels.EVALUATOR_MOVES_LEFT``) compares a leaf's ``m`` with ``r``, the head's estimate at
the search's root (the search writes it, ``evaluation.set_moves_left_reference``), and turns the
network's value ``v`` (in the first player's view) into

    v' = v + sign(v) * D * (|v| - t) / (1 - t)   when |v| > t,   else v' = v,
    D = clip(s * (r - m), -e, e),

with ``t`` the threshold, ``e`` the maximum effect and ``s`` the slope. Why this form:

- **Progress is rewarded, not length punished.** A decided leaf nearer the end than the root
  gains, one further loses, each by ``s`` a ply. An earlier form pulled every decided value
  down by ``E(m)``, however much nearer the end the leaf was. That made an open position (left
  alone) look better than a won one with many plies left, so the engine drifted into draws. With
  the table's exact plies in place of the head's, that form (at its defaults) took 35% off the
  plies a win cost beyond the optimum and converted 108 won positions of 400 where the plain
  search converted 124; this one (slope 0.01) took 81% off and converted 212
  (``docs/moves-left.md``).
- **Only decided positions change.** Inside the threshold the value is the network's own, so
  the search plays exactly as the plain network wherever the result is open (lc0 too applies
  its bonus only beyond a threshold on Q). The ramp ``(|v| - t) / (1 - t)`` grows from 0 at the
  threshold, so there is no jump there.
- **Bounded, and the order of clearly different scores kept.** ``|D| <= e`` (lc0 clamps its
  bonus to a maximum for the same reason: a sacrifice that makes the game 20 plies longer must
  not outweigh the value). So ``|v' - v| <= e``: two scores more than ``2e`` apart keep their
  order whatever the plies. With ``e < 1 - t``, ``v'`` is strictly increasing in ``v`` for any
  ``m`` (its slope in ``v`` is ``1 + D / (1 - t) > 0``) and stays beyond the threshold on the
  same side: the adjustment never turns a better value into a worse one at the same plies,
  nor a win into a doubt.
- **Forced results stay exact.** ``|v'| < 1 + e < 2``, far below the search's forced-result
  scores (``WIN - plies``, beyond ``WIN_BOUND`` = 500), so a forced win keeps its exact distance.
- **Deterministic.** ``r`` is a function of the root, so one search is a pure function of its
  position and seed, and the transposition table keeps no score from another root. (An
  evaluation outside a search reads whatever reference its scratch holds, 0 in a fresh one:
  ``set_moves_left_reference`` sets it to a position's own plies.)
- **Either side's view.** ``v'`` is odd in ``v``, so adjusting in the first player's view is the
  same as adjusting in the side to move's (draughts' network); ``m`` belongs to the position,
  not to a side, and is never turned.

Winning (``v > t``), a leaf with fewer plies left than the root scores higher: the winner,
maximising, prefers fewer; the loser, minimising, prefers more. The same holds mirrored for
``v < -t``. The nudge is part of each leaf's score, and minimax carries it up.

The evaluator's parameters travel in one float32 array, built and checked by
:func:`moves_left_parameters`:

=========================  ==========================================================
``params[THRESHOLD]``      ``t``: ``|v|`` beyond which the value counts as decided
``params[MAX_EFFECT]``     ``e``: the most the plies left can move a value
``params[SLOPE]``          ``s``: the change per ply left, near ``m = 0``
``params[NETWORK:]``       the network with its moves-left head, exactly as in its file
=========================  ==========================================================
"""

from __future__ import annotations

import math

import numpy as np

from samuel.games import kernels

from . import kernels as evaluation
from .networks import check_network, has_moves_left

THRESHOLD = 0
MAX_EFFECT = 1
SLOPE = 2
NETWORK = kernels.MOVES_LEFT_NETWORK

# The threshold and the maximum effect were chosen on one run with the table's exact plies in
# place of the head's (seed 3); the slope between 0.01 and 0.02 (beside a threshold of 0.3 and a
# maximum effect of 0.2) with the head on 2,000 positions (seed 6), then confirmed on 2,000 others
# (seed 7; ``docs/moves-left.md``). A threshold of 0.5: the network calls many won positions
# less than 0.8, and the nudge must reach them to convert them.
DEFAULT_THRESHOLD = 0.5
# A fifth of the room above the threshold: well inside the bound 1 - threshold, and small beside
# the gaps between values the search should tell apart (a capture, a lost piece).
DEFAULT_MAX_EFFECT = 0.1
# 0.02 a ply: five plies of progress earn the whole effect (lc0's 0.005 a ply is over games
# several times longer than these endings).
DEFAULT_SLOPE = 0.02


SETTING_NAMES = ("the moves-left threshold", "the moves-left max effect", "the moves-left slope")


def check_settings(
    threshold: float,
    max_effect: float,
    slope: float,
    names: tuple[str, str, str] = SETTING_NAMES,
) -> None:
    """Raise ValueError unless ``0 < threshold < 1``, ``0 < max_effect < 1 - threshold`` and
    ``slope > 0`` (all finite): what keeps the adjusted value increasing and inside -1..1.
    ``names`` are the settings' names as the errors give them (a player spec's options)."""
    for name, value in zip(names, (threshold, max_effect, slope), strict=True):
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise ValueError(f"{name} must be a number, not {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, not {value}")
    if not 0 < threshold < 1:
        raise ValueError(f"{names[0]} must be above 0 and below 1, not {threshold}")
    if not 0 < max_effect < 1 - threshold:
        raise ValueError(
            f"{names[1]} must be above 0 and below 1 - threshold ({1 - threshold:g}), so that "
            f"a better value always stays better; not {max_effect}"
        )
    if not slope > 0:
        raise ValueError(f"{names[2]} must be positive, not {slope}")


def moves_left_parameters(
    game: int,
    network_params: np.ndarray,
    threshold: float = DEFAULT_THRESHOLD,
    max_effect: float = DEFAULT_MAX_EFFECT,
    slope: float = DEFAULT_SLOPE,
) -> np.ndarray:
    """The moves-left evaluator's parameter array for the game numbered ``game``: the settings,
    then the network, which must have the moves-left head (checked: the compiled evaluation
    reads the head at offsets the array must cover)."""
    kernels.compiled_game(game)
    check_settings(threshold, max_effect, slope)
    check_network(network_params, game)
    if not has_moves_left(network_params, game):
        raise ValueError(
            f"this {kernels.compiled_game(game).title} network has no moves-left head, so it "
            "cannot estimate the plies left; train one with the head (samuel train --moves-left)"
        )
    params = np.empty(NETWORK + len(network_params), dtype=np.float32)
    params[THRESHOLD] = threshold
    params[MAX_EFFECT] = max_effect
    params[SLOPE] = slope
    params[NETWORK:] = network_params
    if not np.isfinite(params).all():
        raise ValueError("the network's parameters hold a NaN or an infinity")
    return params


def adjusted_value(
    value: float,
    plies: float,
    reference: float,
    threshold: float,
    max_effect: float,
    slope: float,
) -> float:
    """The formula above in plain Python (float64): the reference the compiled evaluator is
    tested against, and a way to see what a setting does.

    >>> adjusted_value(0.9, 20.0, 20.0, 0.5, 0.1, 0.01)  # as many plies as the root: no change
    0.9
    >>> round(adjusted_value(0.9, 15.0, 20.0, 0.5, 0.1, 0.01), 6)  # 5 nearer the end: + 0.05 * 4/5
    0.94
    >>> round(adjusted_value(0.9, 200.0, 20.0, 0.5, 0.1, 0.01), 6)  # far longer: - e * 4/5
    0.82
    >>> adjusted_value(0.4, 200.0, 20.0, 0.5, 0.1, 0.01)  # not decided: the network's value
    0.4
    """
    if abs(value) <= threshold:
        return value
    shift = min(max_effect, max(-max_effect, slope * (reference - plies)))
    bonus = shift * (abs(value) - threshold) / (1.0 - threshold)
    return value + bonus if value > 0 else value - bonus


def plies_left_estimate(game: int, network_params: np.ndarray, state: np.ndarray) -> float:
    """The network's estimate of the plies left in the position ``state`` (the game's encoded
    position); the network must have the head."""
    from samuel.nn import network
    from samuel.nn.shape import network_of

    if not has_moves_left(network_params, game):
        raise ValueError("this network has no moves-left head")
    scratch_size = kernels.NETWORK_SCRATCH + network_of(network_params).forward_scratch
    scratch = np.zeros(scratch_size, dtype=np.float32)
    active = np.zeros(kernels.MAX_SET_INPUTS, dtype=np.int64)
    evaluation.network_value(game, network_params, state, scratch, active)
    return float(network.plies_left(network_params, scratch[kernels.NETWORK_SCRATCH :]))
