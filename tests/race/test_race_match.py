"""Matches of a game with dice and points, on Race (``tests/race``): the dice come from the pair's
seed, both games of a pair roll the same dice (duplicate dice), and the report gives the points
a game with their 95% range. Runs only where Race is registered (``tests/test_race_game.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from samuel.games import descriptors

if "race" not in descriptors():
    pytest.skip(
        "runs in its own process with the race game registered: tests/test_race_game.py",
        allow_module_level=True,
    )

from samuel.games import get_game  # noqa: E402
from samuel.games.base import IllegalMoveError  # noqa: E402
from samuel.games.game import Game  # noqa: E402
from samuel.match.head_to_head import play_match  # noqa: E402
from samuel.match.play import play_game  # noqa: E402
from samuel.match.report import format_match_report, match_json  # noqa: E402
from samuel.match.stats import points_statistics  # noqa: E402
from samuel.players import make_player  # noqa: E402

RULES = get_game("race")


def test_a_game_rolls_its_dice_with_their_probabilities() -> None:
    counts: dict[str, int] = {}
    dice = np.random.default_rng(7)
    for _ in range(9000):
        game = Game(RULES)
        roll = game.roll(dice)
        counts[RULES.format_move(roll)] = counts.get(RULES.format_move(roll), 0) + 1
        assert game.chance_outcomes() == [] and game.legal_moves()
    probabilities = {RULES.format_move(o): p for o, p in RULES.chance_outcomes(Game(RULES).start)}
    assert counts.keys() == probabilities.keys()
    for roll, count in counts.items():  # within 5 standard errors of 9000 draws
        p = probabilities[roll]
        assert abs(count / 9000 - p) < 5 * (p * (1 - p) / 9000) ** 0.5, roll
    with pytest.raises(IllegalMoveError, match="no dice to roll"):
        game.roll(dice)


def test_play_game_needs_dice_and_the_same_dice_give_the_same_game() -> None:
    players = {side: make_player("random", RULES, seed=1) for side in RULES.sides}
    with pytest.raises(ValueError, match="played with dice"):
        play_game(RULES, players)
    games = [
        play_game(
            RULES,
            {side: make_player("random", RULES, seed=1) for side in RULES.sides},
            dice=np.random.default_rng(5),
        )
        for _ in range(2)
    ]
    assert games[0].moves == games[1].moves and games[0].outcome is not None
    assert games[0].outcome.score == games[1].outcome.score


def test_a_match_plays_duplicate_dice_and_reports_points_a_game() -> None:
    result = play_match("classic:depth=2", "random", 40, seed=3, openings=0, game="race")
    same_first_roll = [pair.games[0].moves[0] == pair.games[1].moves[0] for pair in result.pairs]
    assert all(same_first_roll)  # the pair's dice: the same first roll in both games
    assert {abs(g.net_points) for pair in result.pairs for g in pair.games} <= {1, 2}
    assert any(abs(g.net_points) == 2 for pair in result.pairs for g in pair.games)  # gammons
    nets = [pair.net_points for pair in result.pairs]
    assert result.points == points_statistics(nets)
    assert result.points.per_game == sum(nets) / 40
    assert result.points.low < result.points.per_game < result.points.high
    assert result.points.per_game > 0  # a two-ply search beats random moves
    report = format_match_report(result)
    assert "Points a game  " in report and "won less lost, gammon 2;" in report
    data = match_json(result)
    assert data["points_per_game"] == result.points.per_game
    assert data["pair_net_points"] == nets
    kinds = data["wins_by_kind"]
    played = [g.net_points for pair in result.pairs for g in pair.games]
    assert kinds["gammon"] == {"won": played.count(2), "lost": played.count(-2)}
    assert sum(k["won"] + k["lost"] for k in kinds.values()) == 40  # no race game is drawn
    won = kinds["gammon"]["won"]
    assert f"gammon {won} ({won / 40:.1%}) won" in report
    again = play_match("classic:depth=2", "random", 40, seed=3, openings=0, game="race")
    assert again.pairs == result.pairs  # the same seed, the same dice, the same games
    on_two = play_match("classic:depth=2", "random", 40, seed=3, openings=0, game="race", workers=2)
    assert on_two.pairs == result.pairs
