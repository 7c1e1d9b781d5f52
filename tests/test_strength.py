"""The classic player is far stronger than random, on both sides of every game (the bar: 95%)."""

from __future__ import annotations

from samuel.games.tigers.rules import RULES
from samuel.match.head_to_head import play_match
from samuel.match.play import play_game
from samuel.players import make_player


def test_classic_depth_3_scores_at_least_95_percent_against_random_on_both_sides():
    points = {"tigers": 0.0, "sheep": 0.0}
    games = 200
    for number in range(games):
        side = RULES.sides[number % 2]
        other = RULES.sides[1 - number % 2]
        players = {
            side: make_player("classic:depth=3", RULES, seed=number),
            other: make_player("random", RULES, seed=10_000 + number),
        }
        game = play_game(RULES, players, ply_cap=200)
        result = game.outcome.result if side == "tigers" else -game.outcome.result
        points[side] += (result + 1) / 2
    assert sum(points.values()) / games >= 0.95
    # Both sides, not one carrying the other: each at least 90% of its 100 games.
    assert min(points.values()) >= 0.90 * games / 2


def test_classic_depth_4_scores_at_least_95_percent_against_random_at_draughts():
    # A real match (paired games from random 4-ply openings, each player on each colour once a
    # pair), through samuel.match as `samuel match --game draughts` will play it.
    result = play_match("classic:depth=4", "random", games=200, game="draughts")
    statistics = result.statistics
    assert result.games == 200
    assert statistics.score >= 0.95
    # The 95% range of the score (from the pairs' variance) lies above 90%.
    assert statistics.score_low <= statistics.score <= statistics.score_high
    assert statistics.score_low >= 0.90
    # Both colours, not one carrying the other: each at least 90% of its 100 games.
    for colour in ("black", "white"):
        assert result.by_side[colour].games == 100 and result.by_side[colour].score >= 0.90
