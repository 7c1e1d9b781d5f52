"""Fair matches played for real: pairs, sides, seeds, workers, SPRT stops, records, tournaments."""

from __future__ import annotations

import pytest

from samuel.games.record import read_records, write_records
from samuel.match.head_to_head import play_match
from samuel.match.openings import OpeningConfig
from samuel.match.runner import PairTask, play_pair, player_seed
from samuel.match.sprt import Sprt
from samuel.match.tournament import play_tournament
from samuel.players import PlayerSpecError


def test_a_player_against_itself_scores_50_percent_within_its_95_percent_range():
    spec = "classic:depth=1,epsilon=0.1"
    result = play_match(spec, spec, 60, seed=11)
    s = result.statistics
    assert result.games == 60 and len(result.pairs) == 30
    assert s.score_low <= 0.5 <= s.score_high
    assert 0 < s.score_error < 0.1  # a real range, not a point
    assert s.wins + s.draws + s.losses == 60
    assert s.pentanomial.pairs == 30


def test_each_opening_is_played_twice_with_each_player_on_each_side():
    result = play_match("classic:depth=2", "random", 8, seed=3, openings="3-5")
    for pair in result.pairs:
        assert [game.first_side for game in pair.games] == ["tigers", "sheep"]
        assert 3 <= len(pair.opening) <= 5
        for game in pair.games:
            assert game.moves[: len(pair.opening)] == pair.opening
    assert len({pair.opening for pair in result.pairs}) == 4
    by_side = result.by_side
    assert by_side["tigers"].games == by_side["sheep"].games == 4
    assert result.score == pytest.approx((by_side["tigers"].points + by_side["sheep"].points) / 8)
    assert result.score > 0.9  # search beats random moves on both sides


def test_the_same_seed_gives_the_same_match_and_another_seed_another():
    first = play_match("classic:depth=1,epsilon=0.3", "random", 4, seed=1)
    assert play_match("classic:depth=1,epsilon=0.3", "random", 4, seed=1).pairs == first.pairs
    assert play_match("classic:depth=1,epsilon=0.3", "random", 4, seed=2).pairs != first.pairs


def test_a_pair_does_not_depend_on_the_pairs_played_before_it():
    task = PairTask(
        "classic:depth=2,epsilon=0.2",
        "random",
        pair=3,
        seed=9,
        openings=OpeningConfig(4, 4),
        ply_cap=200,
    )
    alone = play_pair(task)
    result = play_match("classic:depth=2,epsilon=0.2", "random", 8, seed=9)
    assert result.pairs[3] == alone
    assert player_seed(9, 3, 0, 0) != player_seed(9, 3, 1, 0) != player_seed(9, 3, 0, 1)


@pytest.mark.slow
def test_results_and_an_sprt_stop_are_the_same_on_one_and_two_workers():
    settings = dict(seed=4, sprt=Sprt(elo0=0, elo1=150, alpha=0.05, beta=0.05))
    one = play_match("classic:depth=2", "classic:depth=1,epsilon=0.2", 60, workers=1, **settings)
    two = play_match("classic:depth=2", "classic:depth=1,epsilon=0.2", 60, workers=2, **settings)
    assert one.sprt.decision == "H1" and one.games < 60  # stopped early, on the right side
    assert one.sprt.llr >= one.sprt.test.upper
    assert two.pairs == one.pairs
    assert two.statistics == one.statistics and two.sprt == one.sprt


def test_records_hold_every_game_and_read_back(tmp_path):
    result = play_match("classic:depth=1", "random", 4, seed=2, ply_cap=60)
    records = result.records(date="2026.01.02")
    assert len(records) == 4
    assert [r.players for r in records[:2]] == [
        ("classic:depth=1", "random"),
        ("random", "classic:depth=1"),
    ]
    path = tmp_path / "games.txt"
    write_records(path, records)
    back = read_records(path)  # replays every move, so they are legal
    assert [r.result for r in back] == [g.result for p in result.pairs for g in p.games]
    assert [dict(r.extra_tags)["Round"] for r in back] == ["1.1", "1.2", "2.1", "2.2"]
    assert all(r.ply_cap == 60 for r in back)


@pytest.mark.parametrize(
    ("call", "error", "phrase"),
    [
        (lambda: play_match("wizard", "random", 2), PlayerSpecError, "unknown player 'wizard'"),
        (lambda: play_match("random", "classic:depth=x", 2), PlayerSpecError, "depth must be"),
        (lambda: play_match("human", "random", 2), PlayerSpecError, "human cannot play in a match"),
        (lambda: play_match("random", "random", 3), ValueError, "even number of games"),
        (
            lambda: play_match("random", "random", 2, openings="8", ply_cap=6),
            ValueError,
            "longer than the openings",
        ),
        (lambda: play_match("random", "random", 2, openings="x"), ValueError, "opening plies"),
        (lambda: play_match("random", "random", 2, workers=0), ValueError, "at least 1"),
        (lambda: play_tournament(["random"], 2), ValueError, "at least two players"),
        (lambda: play_tournament(["random", "random"], 2), ValueError, "repeated: random"),
        (
            lambda: play_tournament(["random", "classic:depth=1"], 2, anchor="classic"),
            ValueError,
            "the anchor 'classic' is not one of the players",
        ),
    ],
)
def test_bad_players_and_settings_are_clear_errors(call, error, phrase):
    with pytest.raises(error) as raised:
        call()
    assert phrase in str(raised.value)


def test_a_tournament_plays_every_pairing_on_the_same_openings_and_rates_everyone():
    players = ["random", "classic:depth=1", "classic:depth=2"]
    result = play_tournament(players, 6, seed=5, anchor="random", anchor_rating=1000)
    assert [(m.first, m.second) for m in result.matches] == [
        ("random", "classic:depth=1"),
        ("random", "classic:depth=2"),
        ("classic:depth=1", "classic:depth=2"),
    ]
    openings = {tuple(p.opening for p in m.pairs) for m in result.matches}
    assert len(openings) == 1  # every pairing played the same three openings
    standings = result.standings
    assert [row.played for row in standings] == [12, 12, 12]
    assert sum(row.points for row in standings) == 18
    assert standings[-1].player == "random" and standings[-1].rating == 1000
    assert standings[-1].error is None and standings[0].error > 0
    assert len(result.records()) == 18


def test_a_match_plays_to_the_games_own_ply_cap():
    # Long nardy's games can outlast 200 plies (random players' do at this seed): a match, and
    # the pipeline's gate through it, plays them out to the game's own cap unless told.
    played = play_match("random", "random", 4, game="nardy", seed=3)
    assert played.config.ply_cap == 1000
    endings = [game.termination.name for pair in played.pairs for game in pair.games]
    assert endings == ["BORNE_OFF"] * 4
    capped = play_match("random", "random", 4, game="nardy", seed=3, ply_cap=200)
    assert "PLY_CAP" in [game.termination.name for pair in capped.pairs for game in pair.games]
    assert play_match("random", "random", 2, seed=3).config.ply_cap == 200  # Tigers & Sheep's
