"""Match statistics against the textbook formulas, on inputs worked out by hand."""

from __future__ import annotations

import math

import pytest

from samuel.match.stats import (
    Z95,
    Pentanomial,
    elo_from_score,
    likelihood_of_superiority,
    match_statistics,
    score_from_elo,
)


@pytest.mark.parametrize(
    ("score", "elo"),
    [
        (0.5, 0.0),
        (0.75, 190.848501887865),  # 400 log10(3)
        (0.25, -190.848501887865),
        (0.6, 70.4365036222725),  # 400 log10(1.5)
        (10 / 11, 400.0),  # 1/s - 1 = 0.1
    ],
)
def test_elo_is_minus_400_log10_of_one_over_score_minus_one(score, elo):
    assert elo_from_score(score) == pytest.approx(elo, abs=1e-9)
    assert score_from_elo(elo) == pytest.approx(score, abs=1e-12)


def test_a_perfect_score_is_infinitely_many_elo_and_a_score_outside_0_1_is_an_error():
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    with pytest.raises(ValueError, match="between 0 and 1"):
        elo_from_score(1.5)


@pytest.mark.parametrize(
    ("wins", "losses", "los"),
    [
        (10, 10, 0.5),
        (0, 0, 0.5),
        (30, 20, 0.9213503964748575),  # 0.5 (1 + erf(10 / sqrt(100))) = 0.5 (1 + erf(1))
        (10, 0, 0.9992172988709987),  # 0.5 (1 + erf(10 / sqrt(20)))
        (20, 30, 1 - 0.9213503964748575),
    ],
)
def test_los_is_half_one_plus_erf_of_wins_minus_losses_over_root_two_decisive(wins, losses, los):
    assert likelihood_of_superiority(wins, losses) == pytest.approx(los, abs=1e-12)


def test_a_hand_computed_match():
    # 50 pairs: 2 scored 0 points, 6 scored 0.5, 20 scored 1, 14 scored 1.5, 8 scored 2:
    # 60 points of 100, so the score is 0.6; W 45, D 30, L 25 gives the same 60 points.
    # Pair scores x = points / 2 are 0, .25, .5, .75, 1; their variance around 0.6 is
    # (2*.36 + 6*.1225 + 20*.01 + 14*.0225 + 8*.16) / 50 = 3.25 / 50 = 0.065,
    # so the standard error of the score is sqrt(0.065 / 50) = sqrt(0.0013).
    s = match_statistics(45, 30, 25, Pentanomial((2, 6, 20, 14, 8)))
    error = math.sqrt(0.0013)
    assert (s.games, s.points, s.score) == (100, 60.0, 0.6)
    assert s.score_error == pytest.approx(error, rel=1e-12)
    assert s.score_low == pytest.approx(0.6 - 1.959963984540054 * error, rel=1e-12)
    assert s.score_high == pytest.approx(0.6 + 1.959963984540054 * error, rel=1e-12)
    assert (s.score_low, s.score_high) == pytest.approx((0.5293325, 0.6706675), abs=1e-7)
    assert s.elo == pytest.approx(70.4365036, abs=1e-6)
    # the Elo range is the score range through the Elo formula; the error half its width
    assert s.elo_low == pytest.approx(-400 * math.log10(1 / s.score_low - 1), rel=1e-12)
    assert s.elo_high == pytest.approx(-400 * math.log10(1 / s.score_high - 1), rel=1e-12)
    assert (s.elo_low, s.elo_high) == pytest.approx((20.4057, 123.5491), abs=1e-4)
    assert s.elo_error == pytest.approx((123.5491 - 20.4057) / 2, abs=1e-4)
    assert s.los == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(140))), rel=1e-12)
    assert s.draw_ratio == 0.3
    # Counting the games as independent would give another error, sqrt(0.165 / 100):
    # the range really comes from the pairs.
    assert abs(s.score_error - math.sqrt(0.165 / 100)) > 0.004


def test_correlated_pairs_narrow_the_range_and_anticorrelated_ones_widen_it():
    # The same 50 wins and 50 losses: as 50 split pairs (each player won with one side)
    # the pairs do not vary at all; as 25 pairs won and 25 lost they vary most.
    split = match_statistics(50, 0, 50, Pentanomial((0, 0, 50, 0, 0)))
    lumped = match_statistics(50, 0, 50, Pentanomial((25, 0, 0, 0, 25)))
    assert split.score_error == 0.0 and (split.score_low, split.score_high) == (0.5, 0.5)
    assert lumped.score_error == pytest.approx(math.sqrt(0.25 / 50))
    assert lumped.score_high - lumped.score_low == pytest.approx(2 * Z95 * math.sqrt(0.005))


def test_pentanomial_counts_from_pair_points():
    counts = Pentanomial.from_pair_points([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert counts.counts == (1, 1, 2, 1, 3)
    assert counts.pairs == 8 and counts.score == pytest.approx(10 / 16)


@pytest.mark.parametrize(
    ("call", "phrase"),
    [
        (lambda: Pentanomial.from_pair_points([0.25]), "0, 0.5, 1, 1.5 or 2"),
        (lambda: Pentanomial((1, 2, 3)), "5 counts"),
        (lambda: Pentanomial((1, -2, 3, 0, 0)), "none negative"),
        (lambda: match_statistics(0, 0, 0, Pentanomial((0, 0, 0, 0, 0))), "no games"),
        (lambda: match_statistics(2, 0, 0, Pentanomial((0, 0, 0, 0, 2))), "not the 2 pairs"),
        (lambda: match_statistics(2, 0, 2, Pentanomial((0, 0, 0, 0, 2))), "disagree"),
    ],
)
def test_inconsistent_counts_are_errors(call, phrase):
    with pytest.raises(ValueError, match=phrase):
        call()
