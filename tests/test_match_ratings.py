"""The tournament's rating fit: exact on two players, recovers synthetic players' strengths."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from samuel.match.ratings import fit_ratings
from samuel.match.stats import Z95, elo_from_score, score_from_elo


def test_two_players_get_the_head_to_head_elo_and_its_textbook_error():
    # 60 points of 100: the difference is elo(0.6) and its standard error, by the delta method
    # on a binomial score, is 400 / ln 10 / sqrt(n s (1 - s)).
    ratings = fit_ratings(["a", "b"], np.array([[0, 60], [40, 0]]), anchor="b")
    assert ratings.rating("b") == 0.0 and ratings.errors[1] is None
    assert ratings.rating("a") == pytest.approx(elo_from_score(0.6), abs=1e-9)
    error = Z95 * 400 / math.log(10) / math.sqrt(100 * 0.6 * 0.4)
    assert ratings.errors[0] == pytest.approx(error, rel=1e-9)


def synthetic_points(strengths: list[float], games: int, seed: int) -> np.ndarray:
    """Points from ``games`` games per pairing between players of known Elo (30% draws where
    the expected score allows)."""
    rng = np.random.default_rng(seed)
    points = np.zeros((len(strengths), len(strengths)))
    for i, j in itertools.combinations(range(len(strengths)), 2):
        s = score_from_elo(strengths[i] - strengths[j])
        draws = min(0.3, 2 * s, 2 * (1 - s))
        results = rng.choice(
            [1.0, 0.5, 0.0], size=games, p=[s - draws / 2, draws, 1 - s - draws / 2]
        )
        points[i, j] = results.sum()
        points[j, i] = games - results.sum()
    return points


def test_the_fit_recovers_the_order_and_the_gaps_of_players_of_known_strength():
    strengths = [0.0, 80.0, 150.0, 300.0, -100.0]
    names = [f"p{k}" for k in range(len(strengths))]
    ratings = fit_ratings(names, synthetic_points(strengths, 1000, seed=1))
    fitted = np.array(ratings.ratings)
    assert list(np.argsort(fitted)) == list(np.argsort(strengths))
    assert np.mean(fitted) == pytest.approx(0.0, abs=1e-9)  # the pool's average is the anchor
    truth = np.array(strengths) - np.mean(strengths)
    errors = np.array(ratings.errors)
    assert np.all(np.abs(fitted - truth) < errors)  # within the 95% ranges (about 20 Elo)
    assert np.all((errors > 5) & (errors < 30))


def test_the_errors_match_the_spread_of_repeated_tournaments():
    strengths = [0.0, 100.0, 200.0]
    fits = np.array(
        [
            fit_ratings(["a", "b", "c"], synthetic_points(strengths, 200, seed), anchor="a").ratings
            for seed in range(200)
        ]
    )
    claimed = fit_ratings(["a", "b", "c"], synthetic_points(strengths, 200, 999), anchor="a")
    spread = Z95 * fits[:, 1:].std(axis=0)
    assert spread == pytest.approx(np.array(claimed.errors[1:]), rel=0.2)


def test_an_anchor_player_is_fixed_at_its_rating():
    points = synthetic_points([0, 50, 100], 100, seed=3)
    ratings = fit_ratings(["a", "b", "c"], points, anchor="c", anchor_rating=2000)
    assert ratings.rating("c") == 2000 and ratings.errors[2] is None
    pooled = fit_ratings(["a", "b", "c"], points, anchor_rating=1500)
    assert np.mean(pooled.ratings) == pytest.approx(1500)
    # the same differences either way
    assert ratings.rating("a") - ratings.rating("b") == pytest.approx(
        pooled.rating("a") - pooled.rating("b"), abs=1e-6
    )


def test_a_player_who_lost_every_game_gets_virtual_draws_and_finite_ratings():
    points = np.array([[0, 10, 10], [0, 0, 6], [0, 4, 0]], dtype=float)  # a won every game
    ratings = fit_ratings(["a", "b", "c"], points)
    assert ratings.virtual_draws > 0
    assert all(math.isfinite(r) for r in ratings.ratings)
    assert ratings.rating("a") > ratings.rating("b") > ratings.rating("c")
    assert fit_ratings(["a", "b", "c"], synthetic_points([0, 50, 100], 50, 1)).virtual_draws == 0


@pytest.mark.parametrize(
    ("players", "points", "anchor", "phrase"),
    [
        (["a"], [[0]], None, "2 or more players"),
        (["a", "b"], [[0, 1, 2], [1, 0, 2]], None, "2x2"),
        (["a", "b"], [[0, 1], [1, 0]], "c", "the anchor 'c' is not one of the players: a, b"),
        (["a", "b"], [[0, -1], [1, 0]], None, "must not be negative"),
        (["a", "b", "c"], [[0, 1, 0], [1, 0, 0], [0, 0, 0]], None, "not linked by games"),
    ],
)
def test_bad_tables_are_errors(players, points, anchor, phrase):
    with pytest.raises(ValueError) as error:
        fit_ratings(players, np.array(points, dtype=float), anchor=anchor)
    assert phrase in str(error.value)
