"""A match's statistics: score and its 95% range, Elo difference and its error, LOS, draws.

The games of a pair share an opening, so they are not independent; the range comes from the
spread of the pairs' scores (the pentanomial counts), as fishtest computes it, not from the
spread of single games. The formulas and how to read them are in ``docs/matches.md``.

>>> round(elo_from_score(0.75), 2)
190.85
>>> likelihood_of_superiority(wins=10, losses=10)
0.5
>>> Pentanomial.from_pair_points([2, 1, 1.5, 1]).counts
(0, 0, 2, 1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: a two-sided 95% range
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)  # what a pair of games can score


def elo_from_score(score: float) -> float:
    """The Elo difference that makes ``score`` the expected score: -400 log10(1/score - 1);
    -inf at 0 and +inf at 1."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score is between 0 and 1, not {score}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """The chance that the player is the stronger, from wins and losses (draws say nothing):
    0.5 (1 + erf((W - L) / sqrt(2 (W + L)))); 0.5 when there are neither."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs of games scored 0, 0.5, 1, 1.5 and 2 points (for the first player)."""

    counts: tuple[int, int, int, int, int]

    def __post_init__(self) -> None:
        if len(self.counts) != len(PAIR_POINTS) or any(c < 0 for c in self.counts):
            raise ValueError(f"pentanomial counts are 5 counts, none negative, not {self.counts}")

    @classmethod
    def from_pair_points(cls, points: Iterable[float]) -> Pentanomial:
        """Count pairs by their points (each one of 0, 0.5, 1, 1.5, 2)."""
        counts = [0] * len(PAIR_POINTS)
        for value in points:
            if value not in PAIR_POINTS:
                raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {value}")
            counts[PAIR_POINTS.index(value)] += 1
        return cls(tuple(counts))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """The share of the points: the mean pair score over 2."""
        return sum(c * p for c, p in zip(self.counts, PAIR_POINTS, strict=True)) / (2 * self.pairs)

    @property
    def pair_variance(self) -> float:
        """The variance of one pair's score (its points over 2, so that its mean is
        :attr:`score`), with the counts as the distribution."""
        mean = self.score
        return (
            sum(c * (p / 2 - mean) ** 2 for c, p in zip(self.counts, PAIR_POINTS, strict=True))
            / self.pairs
        )


class Tally:
    """What wins, draws and losses add up to; a base for the records that hold those three
    (``wins``, ``draws``, ``losses``)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


@dataclass(frozen=True)
class MatchStatistics(Tally):
    """Everything a report says about a match's results, from the first player's view.

    ``score_low``/``score_high`` are the 95% range of the score; ``elo_low``/``elo_high`` the
    same range in Elo, and ``elo_error`` half its width (cutechess's "+/-"). Ranges come from
    the pairs' variance; they are clipped to [0, 1] (so a score of 0 or 1 gives infinite Elo).
    """

    wins: int
    draws: int
    losses: int
    pentanomial: Pentanomial
    score: float
    score_error: float  # the standard error of the score
    score_low: float
    score_high: float
    elo: float
    elo_error: float
    elo_low: float
    elo_high: float
    los: float  # likelihood of superiority
    draw_ratio: float


def match_statistics(
    wins: int, draws: int, losses: int, pentanomial: Pentanomial
) -> MatchStatistics:
    """The statistics of a match of complete pairs: ``wins``, ``draws``, ``losses`` of its games
    and ``pentanomial``, the counts of its pairs (which must be half as many as the games)."""
    games = wins + draws + losses
    if games == 0:
        raise ValueError("a match of no games has no statistics")
    if games != 2 * pentanomial.pairs:
        raise ValueError(f"{games} games are not the {pentanomial.pairs} pairs' games")
    score = (wins + draws / 2) / games
    if abs(score - pentanomial.score) > 1e-12:
        raise ValueError("the games' score and the pairs' score disagree")
    error = math.sqrt(pentanomial.pair_variance / pentanomial.pairs)
    low = max(0.0, score - Z95 * error)
    high = min(1.0, score + Z95 * error)
    elo_low, elo_high = elo_from_score(low), elo_from_score(high)
    return MatchStatistics(
        wins=wins,
        draws=draws,
        losses=losses,
        pentanomial=pentanomial,
        score=score,
        score_error=error,
        score_low=low,
        score_high=high,
        elo=elo_from_score(score),
        elo_error=(elo_high - elo_low) / 2,
        elo_low=elo_low,
        elo_high=elo_high,
        los=likelihood_of_superiority(wins, losses),
        draw_ratio=draws / games,
    )


@dataclass(frozen=True)
class PointsStatistics:
    """Points per game, won less lost (a gammon counts 2), from the first player's view, with
    their 95% range from the pairs' spread (a pair's two games share their opening and, in a game
    with dice, their dice: duplicate dice, so a pair's net points measure skill, not luck)."""

    per_game: float
    error: float  # the standard error of per_game
    low: float
    high: float


def points_statistics(pair_net_points: Iterable[int]) -> PointsStatistics:
    """The :class:`PointsStatistics` of complete pairs, given each pair's net points (its two
    games' first-player points, summed)."""
    per_pair = [value / 2 for value in pair_net_points]  # per game, pair by pair
    if not per_pair:
        raise ValueError("a match of no games has no statistics")
    mean = sum(per_pair) / len(per_pair)
    variance = sum((x - mean) ** 2 for x in per_pair) / len(per_pair)
    error = math.sqrt(variance / len(per_pair))
    return PointsStatistics(mean, error, mean - Z95 * error, mean + Z95 * error)
