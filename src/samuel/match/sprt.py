"""The sequential probability ratio test on game pairs, as fishtest runs it.

H0: the first player is ``elo0`` Elo stronger; H1: it is ``elo1`` stronger (``elo0 < elo1``,
logistic Elo). After every pair the generalized log-likelihood ratio (GSPRT) of the pentanomial
counts is compared with the bounds log(beta / (1 - alpha)) and log((1 - beta) / alpha); the match
stops when it crosses one. This is fishtest's ``LLR_logistic`` on pentanomial results:

- the pairs' scores (0, 1/4, 1/2, 3/4, 1 of the two games' points) have the observed
  distribution p^ (a count of 0 becomes 1e-3, so every outcome stays possible);
- under each hypothesis the distribution is the maximum-likelihood one whose mean is that
  hypothesis's expected score s = 1 / (1 + 10^(-elo/400)): p_i = p^_i / (1 + x (a_i - s)), with
  x the root of sum_i p^_i (a_i - s) / (1 + x (a_i - s)) = 0;
- LLR = N sum_i p^_i log(p1_i / p0_i), N the number of pairs.

>>> test = parse_sprt("elo0=0,elo1=10,alpha=0.05,beta=0.05")
>>> round(test.lower, 3), round(test.upper, 3)
(-2.944, 2.944)
>>> from samuel.match.stats import Pentanomial
>>> test.result(Pentanomial((0, 0, 100, 0, 0))).decision is None
True

**In points** (:class:`PointsSprt`, for a game with dice, whose wins score 1, 2 or 3): H0, the
first player wins ``points0`` points a game more than it loses; H1, ``points1``. The pairs are
duplicate dice, and a pair's result is its net points per game, (a + b) / 2 for its two games'
first-player points: one of the 13 values -3, -2.5, ..., 3. The same GSPRT runs on their
counts (each value never seen counted 1e-3), the hypotheses' means now points per game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from samuel.match.stats import PAIR_POINTS, Pentanomial, score_from_elo

EMPTY_COUNT = 1e-3  # fishtest's stand-in for an outcome never seen (its "regularize")
SPRT_HELP = "elo0=E0,elo1=E1,alpha=A,beta=B (defaults elo0=0,elo1=10,alpha=0.05,beta=0.05)"


@dataclass(frozen=True)
class Sprt:
    """A sequential test between two Elo differences, with error rates alpha (accepting H1 when
    H0 is true) and beta (accepting H0 when H1 is true)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not all(math.isfinite(getattr(self, f.name)) for f in fields(self)):
            raise ValueError(f"SPRT settings must be finite numbers: {SPRT_HELP}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, not elo0={self.elo0}, elo1={self.elo1}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(
                f"SPRT needs 0 < alpha, beta and alpha + beta < 1, not alpha={self.alpha}, "
                f"beta={self.beta}"
            )

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, pentanomial: Pentanomial) -> float:
        return pentanomial_llr(pentanomial.counts, self.elo0, self.elo1)

    def result(self, pentanomial: Pentanomial) -> SprtResult:
        """The test's state after the pairs counted in ``pentanomial``."""
        llr = self.llr(pentanomial)
        decision = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return SprtResult(test=self, llr=llr, decision=decision)

    def result_of(self, tally) -> SprtResult:
        """The test's state after a match's pairs so far (its ``Tally``)."""
        return self.result(tally.pentanomial)

    def __str__(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


MOST_POINTS = 3  # a game's most points without the cube: a backgammon (a koks in long nardy)
# A pair's net points per game without the cube: -3, -2.5, ..., 3.
PAIR_NET_POINTS = tuple(x / 2 for x in range(-2 * MOST_POINTS, 2 * MOST_POINTS + 1))
CUBE_MOST_POINTS = 12  # with the cube, the test's cap: a backgammon at 4, or a gammon at 8


@dataclass(frozen=True)
class PointsSprt:
    """A sequential test between two points-per-game differences (the module docstring), with
    error rates alpha and beta as :class:`Sprt`'s."""

    points0: float = 0.0
    points1: float = 0.1
    alpha: float = 0.05
    beta: float = 0.05
    # The most points a game counts in the test: 3 without the cube; with it, a pair beyond
    # +-most points a game counts as +-most (its statistics keep the real points).
    most: int = MOST_POINTS

    def __post_init__(self) -> None:
        if not all(math.isfinite(getattr(self, f.name)) for f in fields(self)):
            raise ValueError("a points SPRT's settings must be finite numbers")
        if isinstance(self.most, bool) or not isinstance(self.most, int) or not self.most >= 1:
            raise ValueError(f"a points SPRT's most points a game is 1 or more, not {self.most}")
        if not -self.most < self.points0 < self.points1 < self.most:
            raise ValueError(
                f"a points SPRT needs -{self.most} < points0 < points1 < {self.most}, not "
                f"points0={self.points0:g}, points1={self.points1:g}"
            )
        Sprt(0.0, 1.0, self.alpha, self.beta)  # the same checks of the error rates

    lower = Sprt.lower
    upper = Sprt.upper

    def llr(self, net_points: Mapping[float, int]) -> float:
        """The GSPRT's LLR for counts of pairs by their net points per game (each within
        +-``most``)."""
        return points_llr(net_points, self.points0, self.points1, self.most)

    def result(self, net_points: Mapping[float, int]) -> SprtResult:
        llr = self.llr(net_points)
        decision = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return SprtResult(test=self, llr=llr, decision=decision)

    def result_of(self, tally) -> SprtResult:
        """The test's state after a match's pairs so far (its ``Tally``), a pair beyond
        +-``most`` points a game counted at +-``most``."""
        counts: dict[float, int] = {}
        for value, count in tally.pair_net_points.items():
            capped = max(-self.most, min(self.most, value))
            counts[capped] = counts.get(capped, 0) + count
        return self.result(counts)

    def __str__(self) -> str:
        return (
            f"points0={self.points0:g},points1={self.points1:g},alpha={self.alpha:g},"
            f"beta={self.beta:g}" + (f",most={self.most}" if self.most != MOST_POINTS else "")
        )


def pair_net_points(most: int = MOST_POINTS) -> tuple[float, ...]:
    """A pair's possible net points per game: -most, -most + 0.5, ..., most."""
    return tuple(x / 2 for x in range(-2 * most, 2 * most + 1))


def points_llr(
    net_points: Mapping[float, int], points0: float, points1: float, most: int = MOST_POINTS
) -> float:
    """The GSPRT log-likelihood ratio of H1 (``points1`` a game) against H0 (``points0``) for
    counts of pairs by net points per game (keys among :func:`pair_net_points` of ``most``: by
    default :data:`PAIR_NET_POINTS`); 0 without pairs."""
    values = pair_net_points(most)
    unknown = set(net_points) - set(values)
    if unknown:
        raise ValueError(
            f"a pair's net points per game are -{most}, -{most - 0.5:g}, ..., {most}"
            f"{' (no cube)' if most == MOST_POINTS else ''}, not {sorted(unknown)}"
        )
    counts = [float(net_points.get(value, 0)) for value in values]
    if sum(counts) == 0:
        return 0.0
    pairs, observed = _regularized(counts)
    p0 = constrained_mle(observed, values, points0)
    p1 = constrained_mle(observed, values, points1)
    return pairs * sum(p * math.log(b / a) for p, a, b in zip(observed, p0, p1, strict=True))


@dataclass(frozen=True)
class SprtResult:
    """Where the test stands: the LLR and the hypothesis accepted, if any (``"H0"``, ``"H1"``)."""

    test: Sprt | PointsSprt
    llr: float
    decision: str | None

    @property
    def progress(self) -> float:
        """How far the LLR has gone towards the bound on its side, as cutechess shows it
        (1.0 at the bound)."""
        bound = self.test.upper if self.llr >= 0 else self.test.lower
        return self.llr / bound


def parse_sprt(text: str) -> Sprt:
    """``"elo0=0,elo1=10,alpha=0.05,beta=0.05"``; any key may be left out (its default is
    kept). Raises :class:`ValueError` naming what is valid."""
    values: dict[str, float] = {}
    names = [f.name for f in fields(Sprt)]
    for part in text.replace(":", ",").split(","):
        if not part.strip():
            continue
        key, sep, value = (s.strip() for s in part.partition("="))
        if not sep or key not in names:
            raise ValueError(f"bad SPRT setting {part.strip()!r}; the settings are {SPRT_HELP}")
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"SPRT setting {key} must be a number, not {value!r}") from None
    return Sprt(**values)


def _regularized(counts: Sequence[float]) -> tuple[float, list[float]]:
    """The number of pairs and the observed distribution, an empty count made EMPTY_COUNT."""
    counts = [float(c) if c > 0 else EMPTY_COUNT for c in counts]
    total = sum(counts)
    return total, [c / total for c in counts]


def constrained_mle(observed: Sequence[float], values: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``values`` closest in likelihood to ``observed`` (every probability
    positive) whose mean is ``mean`` (strictly between the smallest and largest value):
    p_i = observed_i / (1 + x (values_i - mean)), x found by a safeguarded Newton iteration on
    the secular equation sum_i observed_i (values_i - mean) / (1 + x (values_i - mean)) = 0."""
    d = [v - mean for v in values]
    if not min(d) < 0 < max(d):
        raise ValueError(f"the mean {mean} is not strictly inside the values' range")
    low, high = -1.0 / max(d), -1.0 / min(d)  # where some 1 + x d_i reaches 0
    x = 0.0
    for _ in range(200):
        terms = [p * di / (1.0 + x * di) for p, di in zip(observed, d, strict=True)]
        f = sum(terms)  # decreasing in x
        if f == 0.0:
            break
        if f > 0:
            low = x
        else:
            high = x
        slope = -sum(t * di / (1.0 + x * di) for t, di in zip(terms, d, strict=True))
        step = x - f / slope
        x_next = step if low < step < high else (low + high) / 2
        if x_next == x:
            break
        x = x_next
    return [p / (1.0 + x * di) for p, di in zip(observed, d, strict=True)]


def pentanomial_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for pentanomial
    ``counts`` (pairs scoring 0, 0.5, 1, 1.5, 2 points); 0 when there are no pairs."""
    if len(counts) != len(PAIR_POINTS):
        raise ValueError(f"pentanomial counts are 5 numbers, not {len(counts)}")
    if sum(counts) == 0:
        return 0.0
    pairs, observed = _regularized(counts)
    values = [points / 2 for points in PAIR_POINTS]
    p0 = constrained_mle(observed, values, score_from_elo(elo0))
    p1 = constrained_mle(observed, values, score_from_elo(elo1))
    return pairs * sum(p * math.log(b / a) for p, a, b in zip(observed, p0, p1, strict=True))
