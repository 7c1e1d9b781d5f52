"""Ratings for many players at once from their games: Bradley-Terry by maximum likelihood.

Each player has a rating r (Elo); a player rated d points above another is expected to score
1 / (1 + 10^(-d/400)) against it, draws counting half a point (the model Ordo fits). The ratings
maximise the likelihood of the points scored,

    L = sum over pairings i, j of P_ij log E(r_i - r_j),

``P_ij`` the points i scored against j, found by Newton's method. Only differences are
determined, so one player (the anchor) is fixed at a given rating, or else the pool's average is.
Errors come from the inverse of the log-likelihood's Hessian (the observed information), given
as 95% ranges (1.96 standard errors) relative to the anchor or to the pool's average.

When a player won or lost every point against the rest (more generally: when the players cannot
be put in an order where each scored something against the next), the maximum is at infinity;
then a few virtual draws between every two players who met keep the ratings finite, and
:attr:`Ratings.virtual_draws` says how many were added.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from samuel.match.stats import Z95

ELO_PER_NATURAL = 400 / math.log(10)  # Elo points per unit of the natural-log rating scale
DEFAULT_VIRTUAL_DRAWS = 1.0  # added per pairing only when the ratings would be infinite


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings, in the order of ``players``; ``errors`` are 95% ranges (+/-), None for the
    anchor player (fixed by definition)."""

    players: tuple[str, ...]
    ratings: tuple[float, ...]
    errors: tuple[float | None, ...]
    anchor: str | None  # the anchored player, or None: the pool's average is anchor_rating
    anchor_rating: float
    virtual_draws: float  # draws added per pairing to keep the ratings finite (0: none)

    def rating(self, player: str) -> float:
        return self.ratings[self.players.index(player)]


def _strongly_connected(points: np.ndarray) -> bool:
    """Whether every player can reach every other along "scored a point against" links."""
    count = len(points)
    scored = points > 0
    for links in (scored, scored.T):
        reached = {0}
        frontier = [0]
        while frontier:
            i = frontier.pop()
            for j in np.flatnonzero(links[i]):
                if int(j) not in reached:
                    reached.add(int(j))
                    frontier.append(int(j))
        if len(reached) < count:
            return False
    return True


def _log_likelihood(points: np.ndarray, r: np.ndarray) -> float:
    difference = r[:, None] - r[None, :]
    # log E(d) = -log(1 + e^-d), computed stably
    return float(-(points * np.logaddexp(0.0, -difference)).sum())


def fit_ratings(
    players: Sequence[str],
    points: np.ndarray,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    virtual_draws: float | None = None,
) -> Ratings:
    """Fit ratings to ``points[i, j]``, the points player i scored against player j (a win 1, a
    draw 0.5; so ``points[i, j] + points[j, i]`` is the number of games they played).

    ``anchor`` names the player fixed at ``anchor_rating``; None fixes the pool's average there.
    ``virtual_draws`` per pairing that met are added as in the module's docstring; None adds
    them only when the ratings would otherwise be infinite.
    """
    players = tuple(players)
    points = np.asarray(points, dtype=np.float64)
    count = len(players)
    if count < 2 or points.shape != (count, count):
        raise ValueError(f"ratings need 2 or more players and a {count}x{count} points table")
    if np.any(points < 0) or np.any(np.diag(points) != 0):
        raise ValueError("points must not be negative, and a player does not play itself")
    if anchor is not None and anchor not in players:
        raise ValueError(f"the anchor {anchor!r} is not one of the players: {', '.join(players)}")
    games = points + points.T
    if not _strongly_connected(games):
        raise ValueError("some players are not linked by games to the others: no common scale")
    if virtual_draws is None:
        virtual_draws = 0.0 if _strongly_connected(points) else DEFAULT_VIRTUAL_DRAWS
    points = points + (games > 0) * virtual_draws / 2
    games = points + points.T

    r = np.zeros(count)
    likelihood = _log_likelihood(points, r)
    for _ in range(200):
        expected = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        gradient = (points - games * expected).sum(axis=1)
        weights = games * expected * (1.0 - expected)
        information = np.diag(weights.sum(axis=1)) - weights  # minus the Hessian
        step = np.zeros(count)
        step[1:] = np.linalg.solve(information[1:, 1:], gradient[1:])  # r[0] held at 0
        size = 1.0
        while True:
            trial = r + size * step
            trial_likelihood = _log_likelihood(points, trial)
            if trial_likelihood >= likelihood - 1e-12 or size < 1e-8:
                break
            size /= 2
        r, likelihood = trial, trial_likelihood
        if np.max(np.abs(size * step)) < 1e-12:
            break

    expected = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
    weights = games * expected * (1.0 - expected)
    information = np.diag(weights.sum(axis=1)) - weights
    if anchor is None:
        # The information's null space is the all-ones vector (a common shift), so its
        # pseudo-inverse is the covariance of the ratings measured from their average.
        covariance = np.linalg.pinv(information)
        ratings = (r - r.mean()) * ELO_PER_NATURAL + anchor_rating
        errors: list[float | None] = list(Z95 * np.sqrt(np.diag(covariance)) * ELO_PER_NATURAL)
    else:
        fixed = players.index(anchor)
        others = [i for i in range(count) if i != fixed]
        covariance = np.linalg.inv(information[np.ix_(others, others)])
        ratings = (r - r[fixed]) * ELO_PER_NATURAL + anchor_rating
        errors = [None] * count
        for position, i in enumerate(others):
            errors[i] = float(Z95 * math.sqrt(covariance[position, position]) * ELO_PER_NATURAL)
    return Ratings(
        players=players,
        ratings=tuple(float(x) for x in ratings),
        errors=tuple(None if e is None else float(e) for e in errors),
        anchor=anchor,
        anchor_rating=anchor_rating,
        virtual_draws=float(virtual_draws),
    )
