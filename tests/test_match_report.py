"""The match report's text, verdict and JSON, on results made up pair by pair."""

from __future__ import annotations

import json

from samuel.games.base import Termination
from samuel.match.head_to_head import MatchConfig, summarize
from samuel.match.report import format_match_report, match_json, verdict, write_json
from samuel.match.runner import GamePlayed, PairResult
from samuel.match.sprt import Sprt


def made_up_pairs(points: list[tuple[float, float]]) -> list[PairResult]:
    """Pairs whose games gave the first player these points (as tigers, as sheep)."""
    pairs = []
    for number, (as_tigers, as_sheep) in enumerate(points):
        games = (
            GamePlayed(
                "tigers", int(2 * as_tigers - 1), as_tigers, Termination.REPETITION, ("c3",)
            ),
            GamePlayed("sheep", int(1 - 2 * as_sheep), as_sheep, Termination.PLY_CAP, ("c3",)),
        )
        pairs.append(PairResult(pair=number, opening=("c3",), games=games))
    return pairs


def test_a_range_that_includes_50_percent_shows_nothing():
    result = summarize(
        "a", "b", MatchConfig(games=8), made_up_pairs([(1, 0), (1, 0.5), (0, 0.5), (1, 0)]), 1.0
    )
    text = format_match_report(result)
    assert "this match shows no difference" in text
    assert "as tigers        4     3     0      1       3   75.0%" in text
    assert "as sheep         4     0     2      2       1   25.0%" in text
    assert "Pentanomial    0, 1, 2, 1, 0" in text
    assert "tigers vs sheep, whoever played them: 5 tigers wins, 2 draws, 1 sheep wins" in text


def test_a_range_above_50_percent_names_the_stronger_player():
    result = summarize(
        "a",
        "b",
        MatchConfig(games=40),
        made_up_pairs([(1, 1), (1, 0.5), (1, 0), (0.5, 1)] * 5),
        1.0,
    )
    assert result.statistics.score_low > 0.5
    assert verdict(result).startswith("the 95% range is above 50%: a is stronger than b")


def test_an_sprt_decision_is_the_verdict_and_is_shown_with_its_bounds():
    config = MatchConfig(games=40, sprt=Sprt(elo0=0, elo1=100))
    # 3 pairs scoring 1, 6 scoring 1.5, 3 scoring 2: the LLR is 2.96, just past 2.94
    pairs = made_up_pairs([(1, 0), (1, 0.5), (0.5, 1), (1, 1)] * 3)
    result = summarize("a", "b", config, pairs, 1.0)
    assert result.sprt.decision == "H1"
    text = format_match_report(result)
    assert "stopped by the SPRT after 24 of 40" in text
    assert "LLR 2.96 (100.6%), bounds -2.94 and 2.94: H1 accepted" in text
    assert (
        "the SPRT accepted H1: the results favour a being +100 Elo against b over its "
        "being +0 Elo" in text
    )
    undecided = summarize("a", "b", config, pairs[:-1], 1.0)
    assert undecided.sprt.decision is None
    assert "no decision" in format_match_report(undecided)
    assert verdict(undecided).startswith("the SPRT did not decide in 22 games; the 95% range")


def test_json_has_no_infinities_and_is_written_whole(tmp_path):
    result = summarize("a", "b", MatchConfig(games=4), made_up_pairs([(1, 1), (1, 1)]), 1.0)
    assert "every pair scored the same" in format_match_report(result)
    data = match_json(result)
    assert data["elo"] is None and data["elo_range"] == [None, None]
    path = tmp_path / "m.json"
    write_json(path, data)
    assert json.loads(path.read_text()) == data
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_an_elo_that_rounds_to_zero_has_no_minus_sign():
    from samuel.match.report import _elo

    assert (_elo(-0.0), _elo(-0.04), _elo(-0.06), _elo(3.0)) == ("+0.0", "+0.0", "-0.1", "+3.0")
    assert (_elo(float("-inf")), _elo(float("inf"))) == ("-inf", "+inf")
