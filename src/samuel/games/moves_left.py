"""The moves-left evaluator: the network's value, nudged by its own estimate of the plies left
once the game looks decided, so that the winning side prefers shorter wins and the losing side
longer losses (seed 003, lc0's moves-left head; ``docs/moves-left.md``).

A value-only network scores a won position about the same whether the win is 3 plies away or
60, so between winning moves the search has nothing to choose by and may shuffle instead of
converting. The network's moves-left head (:func:`samuel.nn.network.plies_left`) estimates the
plies left, ``m``; the evaluator (``kernels.EVALUATOR_MOVES_LEFT``) turns the network's value
``v`` (in the first player's view) into

    v' = v - sign(v) * E(m) * (|v| - t) / (1 - t)   when |v| > t,   else v' = v,
    E(m) = e * (1 - exp(-s * m / e)),

with ``t`` the threshold, ``e`` the maximum effect and ``s`` the slope. Why this form:

- **Only decided positions change.** Inside the threshold the value is the network's own, so
  the search plays exactly as the plain network wherever the result is open (lc0 too applies
  its bonus only beyond a threshold on Q). The ramp ``(|v| - t) / (1 - t)`` grows from 0 at the
  threshold, so there is no jump there.
- **Bounded, and the order of clearly different scores kept.** ``E`` rises from 0 with slope
  ``s`` per ply at ``m = 0`` and saturates at ``e`` (lc0 clamps its bonus to a maximum for the
  same reason: a sacrifice that makes the game 20 plies longer must not outweigh the value). So
  ``|v' - v| < e``: two scores ``e`` or more apart keep their order whatever the plies. With
  ``e < 1 - t``, ``v'`` is strictly increasing in ``v`` for any ``m`` (its slope in ``v`` is
  ``1 - E / (1 - t) > 0``) and stays beyond the threshold on the same side: the adjustment never
  turns a better value into a worse one, nor a win into a doubt.
- **Forced results stay exact.** ``|v'| < 1``, far below the search's forced-result scores
  (``WIN - plies``, beyond ``WIN_BOUND`` = 500), so a forced win keeps its exact distance.
- **Either side's view.** ``v'`` is odd in ``v``, so adjusting in the first player's view is the
  same as adjusting in the side to move's (draughts' network); ``m`` belongs to the position,
  not to a side, and is never turned.

Winning (``v > t``), more plies left pull the value down towards ``t``: the winner, maximising,
prefers fewer; the loser, minimising, prefers more. The same holds mirrored for ``v < -t``.
Unlike lc0, which compares each move's ``m`` with the best move's at the root, an alpha-beta
search compares leaves: the nudge is part of each leaf's score and minimax carries it up.

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

from . import kernels
from .networks import check_network, has_moves_left

THRESHOLD = 0
MAX_EFFECT = 1
SLOPE = 2
NETWORK = kernels.MOVES_LEFT_NETWORK

# lc0 tried 0.90, 0.95 and 0.98 on its Q in -1..1, the lowest giving the shortest wins. The
# shipped Tigers & Sheep network gives about half to nine tenths of the positions the table says
# are decided (by side and result) a value beyond 0.8, and a third to four fifths beyond 0.9.
DEFAULT_THRESHOLD = 0.8
# Half the room above the default threshold: well inside the bound 1 - threshold, and small
# beside the gaps between values the search should tell apart (a capture, a lost piece).
DEFAULT_MAX_EFFECT = 0.1
# lc0's defaults, factor 0.05 over a scale of 10, give 0.005 per ply at most (a wasted tempo
# costs 0.005); with the maximum effect 0.1, E reaches 63% of it at 20 plies left and 95% at 60.
DEFAULT_SLOPE = 0.005


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
    value: float, plies: float, threshold: float, max_effect: float, slope: float
) -> float:
    """The formula above in plain Python (float64): the reference the compiled evaluator is
    tested against, and a way to see what a setting does.

    >>> round(adjusted_value(0.95, 0.0, 0.8, 0.1, 0.005), 6)  # no plies left: no change
    0.95
    >>> round(adjusted_value(0.95, 200.0, 0.8, 0.1, 0.005), 4)  # many left: almost e * 3/4
    0.875
    >>> adjusted_value(0.5, 200.0, 0.8, 0.1, 0.005)  # not decided: the network's value
    0.5
    """
    if abs(value) <= threshold:
        return value
    effect = max_effect * (1.0 - math.exp(-slope * plies / max_effect))
    pull = effect * (abs(value) - threshold) / (1.0 - threshold)
    return value - pull if value > 0 else value + pull


def plies_left_estimate(game: int, network_params: np.ndarray, state: np.ndarray) -> float:
    """The network's estimate of the plies left in the position ``state`` (the game's encoded
    position); the network must have the head."""
    from samuel.nn import network

    if not has_moves_left(network_params, game):
        raise ValueError("this network has no moves-left head")
    scratch = np.zeros(kernels.SCRATCH, dtype=np.float32)
    active = np.zeros(kernels.MAX_SET_INPUTS, dtype=np.int64)
    kernels.network_value(game, network_params, state, scratch, active)
    return float(network.plies_left(network_params, kernels.network_input_count(game), scratch))
