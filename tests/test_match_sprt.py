"""The SPRT on game pairs: its LLR against an independent computation, its bounds, its
decisions on results drawn from a known Elo difference, and its settings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from samuel.match.sprt import Sprt, constrained_mle, parse_sprt, pentanomial_llr
from samuel.match.stats import Pentanomial, score_from_elo
from tests.reference import sprt as reference

COUNTS = [
    (10, 20, 40, 20, 10),
    (5, 20, 40, 25, 10),
    (1, 10, 40, 30, 19),
    (3, 50, 400, 380, 60),
    (0, 0, 100, 0, 0),  # empty outcomes count 1e-3, as in fishtest
    (0, 0, 0, 0, 3),
    (100, 0, 0, 0, 100),
    (0, 1, 0, 0, 0),
]


@pytest.mark.parametrize("counts", COUNTS)
@pytest.mark.parametrize(("elo0", "elo1"), [(0, 10), (-5, 5), (0, 50), (-30, -10)])
def test_llr_agrees_with_a_direct_maximisation_of_the_likelihood(counts, elo0, elo1):
    assert pentanomial_llr(counts, elo0, elo1) == pytest.approx(
        reference.llr(counts, elo0, elo1), rel=1e-9, abs=1e-9
    )


def test_llr_is_close_to_the_normal_approximation_for_ordinary_results():
    counts = (30, 120, 300, 130, 25)
    exact = pentanomial_llr(counts, 0, 10)
    assert exact == pytest.approx(reference.normal_llr(counts, 0, 10), rel=0.02)
    assert exact != reference.normal_llr(counts, 0, 10)


def test_the_constrained_distribution_has_the_asked_mean_and_sums_to_one():
    observed = [0.1, 0.2, 0.4, 0.2, 0.1]
    values = [0, 0.25, 0.5, 0.75, 1]
    p = constrained_mle(observed, values, 0.53)
    assert sum(p) == pytest.approx(1, abs=1e-12)
    assert sum(pi * v for pi, v in zip(p, values, strict=True)) == pytest.approx(0.53, abs=1e-12)
    assert all(pi > 0 for pi in p)


def test_no_pairs_give_an_llr_of_zero_and_more_of_the_same_scale_it():
    assert pentanomial_llr((0, 0, 0, 0, 0), 0, 10) == 0.0
    once = pentanomial_llr((5, 20, 40, 25, 10), 0, 10)
    assert pentanomial_llr((10, 40, 80, 50, 20), 0, 10) == pytest.approx(2 * once, rel=1e-9)


def test_bounds_are_log_beta_over_one_minus_alpha_and_log_one_minus_beta_over_alpha():
    test = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.1)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert test.result(Pentanomial((0, 0, 0, 0, 0))).decision is None
    assert test.result(Pentanomial((3, 50, 400, 380, 60))).decision == "H1"
    assert test.result(Pentanomial((60, 380, 400, 50, 3))).decision == "H0"


def sequential_test(
    test: Sprt, elo: float, seed: int, draw_ratio: float = 0.3, most_pairs: int = 20_000
) -> tuple[str | None, int]:
    """Run ``test`` on pairs of games drawn from a player ``elo`` stronger (each game a win,
    draw or loss with the right expected score), checking after every pair."""
    rng = np.random.default_rng(seed)
    s = score_from_elo(elo)
    p = [1 - s - draw_ratio / 2, draw_ratio, s - draw_ratio / 2]  # loss, draw, win
    games = rng.choice([0.0, 0.5, 1.0], size=(most_pairs, 2), p=p)
    counts = [0] * 5
    for pairs, (a, b) in enumerate(games, start=1):
        counts[int(2 * (a + b))] += 1
        decision = test.result(Pentanomial(tuple(counts))).decision
        if decision is not None:
            return decision, pairs
    return None, most_pairs


@pytest.mark.parametrize(("elo", "expected"), [(30, "H1"), (-20, "H0")])
def test_the_test_stops_on_the_side_of_the_true_difference(elo, expected):
    test = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    outcomes = [sequential_test(test, elo, seed) for seed in range(8)]
    assert [decision for decision, _ in outcomes] == [expected] * 8
    assert all(pairs < 5000 for _, pairs in outcomes)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("elo0=0,elo1=10,alpha=0.05,beta=0.05", Sprt(0, 10, 0.05, 0.05)),
        ("elo1=5", Sprt(0, 5, 0.05, 0.05)),
        ("elo0=-3:elo1=2:alpha=0.1", Sprt(-3, 2, 0.1, 0.05)),
        ("", Sprt()),
    ],
)
def test_sprt_settings_parse(text, expected):
    assert parse_sprt(text) == expected


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("elo0=10,elo1=0", "elo0 < elo1"),
        ("elo2=3", "bad SPRT setting 'elo2=3'; the settings are elo0=E0,elo1=E1"),
        ("elo1", "bad SPRT setting 'elo1'"),
        ("elo1=ten", "elo1 must be a number"),
        ("alpha=0", "0 < alpha"),
        ("alpha=0.6,beta=0.5", "alpha + beta < 1"),
        ("elo1=inf", "finite"),
    ],
)
def test_bad_sprt_settings_say_what_is_valid(text, phrase):
    with pytest.raises(ValueError) as error:
        parse_sprt(text)
    assert phrase in str(error.value)


@pytest.mark.slow
def test_at_the_hypotheses_themselves_the_wrong_decision_is_rare():
    # alpha = beta = 0.05: of 40 tests at elo0 about 2 accept H1, and of 40 at elo1 about 2
    # accept H0 (the GSPRT's error rates are close to, not exactly, the asked ones).
    test = Sprt(elo0=0, elo1=20, alpha=0.05, beta=0.05)
    at_h0 = [sequential_test(test, 0, seed)[0] for seed in range(40)]
    at_h1 = [sequential_test(test, 20, 100 + seed)[0] for seed in range(40)]
    assert at_h0.count("H1") <= 6 and at_h0.count("H0") >= 34
    assert at_h1.count("H0") <= 6 and at_h1.count("H1") >= 34


# --- in points, for a game with dice ----------------------------------------------------------


def test_the_points_sprt_accepts_what_the_pairs_show_and_keeps_sprts_bounds():
    from collections import Counter

    from samuel.match.sprt import PAIR_NET_POINTS, PointsSprt, points_llr

    test = PointsSprt(points0=0.0, points1=0.2)
    assert (test.lower, test.upper) == (Sprt().lower, Sprt().upper)
    assert PAIR_NET_POINTS[0] == -3 and PAIR_NET_POINTS[-1] == 3 and len(PAIR_NET_POINTS) == 13
    assert points_llr({}, 0.0, 0.2) == 0.0
    rng = np.random.default_rng(5)
    for shift, decision in ((0.5, "H1"), (-0.3, "H0")):
        games = np.clip(rng.choice([-2, -1, 1, 2], size=(600, 2)) + shift * 2, -3, 3).round()
        counts = Counter((games.sum(axis=1) / 2).tolist())
        assert test.result(counts).decision == decision, (shift, test.result(counts))
    # The LLR grows with the evidence: the same mix of pairs, four times as many.
    mix = Counter({1.0: 30, 0.0: 40, -1.0: 20, 2.0: 10})
    assert test.llr(Counter({k: 4 * v for k, v in mix.items()})) == pytest.approx(
        4 * test.llr(mix),
        rel=0.01,  # nearly: a value never seen counts 1e-3 pairs either way
    )
    # Near H0 and H1 the GSPRT is the normal approximation, N (m1 - m0)(2 m - m0 - m1) / 2 var.
    values = np.array(sorted(mix.elements()), dtype=float)
    m, var = values.mean(), values.var()
    near = PointsSprt(points0=0.35, points1=0.45)
    normal = len(values) * 0.1 * (2 * m - 0.8) / (2 * var)
    assert near.llr(mix) == pytest.approx(normal, rel=0.05)
    with pytest.raises(ValueError, match="no cube"):
        points_llr({4.0: 1}, 0.0, 0.2)
    for bad in ({"points0": 0.2, "points1": 0.1}, {"points1": 3.5}, {"alpha": 0.0}):
        with pytest.raises(ValueError):
            PointsSprt(**bad)
    assert str(test) == "points0=0,points1=0.2,alpha=0.05,beta=0.05"


def test_the_points_sprt_with_the_cube_counts_a_pair_beyond_its_cap_at_the_cap():
    from collections import Counter

    from samuel.match.sprt import CUBE_MOST_POINTS, PointsSprt, pair_net_points, points_llr

    test = PointsSprt(0.0, 0.2, most=CUBE_MOST_POINTS)
    assert pair_net_points(12)[0] == -12 and len(pair_net_points(12)) == 49

    class Tally:  # a match's running counts, as head_to_head keeps them
        pair_net_points = Counter({32.0: 1, 1.0: 30, -1.0: 25})

    capped = Counter({12.0: 1, 1.0: 30, -1.0: 25})
    assert test.result_of(Tally()).llr == pytest.approx(test.llr(capped))
    with pytest.raises(ValueError, match="-12"):
        points_llr({32.0: 1}, 0.0, 0.2, most=12)
    with pytest.raises(ValueError):
        PointsSprt(0.0, 3.5)  # beyond the cube-off cap of 3
    assert "most=12" in str(test)
