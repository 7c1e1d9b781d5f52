"""The tuner's label sources, its data from several files, deduplication and the final match's
openings: search labels are the search's scores, duplicates are averaged, games stay whole."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from samuel.errors import CommandError
from samuel.games import kernels as game_kernels
from samuel.games.draughts.rules import RULES as DRAUGHTS_RULES
from samuel.games.tigers.rules import RULES as TIGERS_RULES
from samuel.search.alphabeta import Searcher
from samuel.tune import labels
from samuel.tune.config import SelfPlayDataConfig, TuneConfig
from samuel.tune.dataset import (
    load_many,
    make_positions,
    save_positions,
    seen_in,
    split_by_game,
    unique_positions,
)
from samuel.tune.gradient import _check_match_openings
from tests import game_numbers
from tests.reference import tuning


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_search_labels_are_the_searchs_scores_in_the_first_players_view(name):
    rules = TIGERS_RULES if name == "tigers" else DRAUGHTS_RULES
    found = (
        tuning.random_positions(12, seed=1)
        if name == "tigers"
        else tuning.random_draughts_positions(12, seed=1)
    )
    found = [p for p in found if rules.decided_outcome(p) is None]
    states = np.array([p.encode() for p in found], dtype=np.int64)
    scores = labels.search_scores(name, "classic:depth=2", states)
    weights = rules.classic_weights()
    for position, score in zip(found, scores, strict=True):
        keys = np.array([rules.key(position)], dtype=np.int64)
        result = Searcher(rules.number).search(
            position.encode(), keys, 0, game_kernels.EVALUATOR_CLASSIC, weights, 2
        )
        side = 1 if rules.side_to_move(position) == 0 else -1
        expected = np.clip(side * result.score, -labels.FORCED_SCORE, labels.FORCED_SCORE)
        assert score == pytest.approx(expected, abs=1e-12), str(position)
    assert np.all((labels.squash(scores, 0.5) > 0) & (labels.squash(scores, 0.5) < 1))


def test_a_network_cannot_give_search_labels():
    with pytest.raises(CommandError, match="classic units"):
        labels.search_scores("tigers", "net:depth=1", np.zeros((0, 4), dtype=np.int64))


def test_duplicates_are_averaged_in_order_of_first_appearance():
    states = np.array([[1, 2], [3, 4], [1, 2], [5, 6], [3, 4]], dtype=np.int64)
    targets = np.array([1.0, 0.0, 0.0, 0.5, 0.5])
    unique, mean = unique_positions(states, targets)
    assert unique.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert mean.tolist() == [0.5, 0.25, 0.5]
    assert seen_in(np.array([[5, 6], [7, 8]]), states).tolist() == [True, False]


def test_several_data_sets_keep_their_games_apart(tmp_path):
    paths = []
    for seed, player in ((1, "classic:depth=1"), (2, "classic:depth=2")):
        config = SelfPlayDataConfig(games=6, player=player, seed=seed, workers=1)
        path = tmp_path / f"d{seed}.npz"
        save_positions(make_positions(config), path)
        paths.append(str(path))
    data = load_many(tuple(paths), "tigers")
    assert len(np.unique(data.games)) == 12
    assert [part["player"] for part in data.config["parts"]] == [
        "classic:depth=1",
        "classic:depth=2",
    ]
    held_out = split_by_game(data.games, 0.25, 0)
    assert not set(data.games[held_out]) & set(data.games[~held_out])


def test_the_final_match_refuses_the_datas_opening_length():
    config = TuneConfig(match_opening_plies=10)
    with pytest.raises(CommandError, match="must differ in length"):
        _check_match_openings(config, [{"file": "d.npz", "random_plies": 10}])
    _check_match_openings(
        TuneConfig(match_opening_plies=5), [{"file": "d.npz", "random_plies": 10}]
    )
    _check_match_openings(TuneConfig(match_games=0, match_opening_plies=10), [{"random_plies": 10}])


@pytest.mark.slow
def test_tablebase_targets_are_the_tables_values_where_the_hand_is_empty(tmp_path):
    """A table of the game won by 2 captures (built in seconds) holds the positions with the hand
    empty and fewer than 2 sheep captured; each target is its value there, read by the probe."""
    from samuel.games.tigers.tablebase.probe import load_tablebase
    from samuel.tablebase.build import build

    build(tmp_path / "k2", 2, progress=False, log=lambda line: None)
    table = load_tablebase(tmp_path / "k2")
    found = tuning.random_positions(400, seed=3)
    states = np.array([p.encode() for p in found], dtype=np.int64)
    known, targets = labels.tablebase_targets(str(tmp_path / "k2"), states)
    holds = [p.sheep_in_hand == 0 and p.captured < 2 for p in found]
    assert known.tolist() == holds
    assert known.any() and (~known).any()
    for position, is_known, target in zip(found, known, targets, strict=True):
        if not is_known:
            continue
        in_table = replace(position, captures_to_win=2)
        outcome, _ = table.value(in_table)
        tigers_view = outcome if in_table.tiger_to_move else -outcome
        assert target == (tigers_view + 1) / 2, str(position)


def test_search_labels_refuse_rows_that_are_not_positions():
    bad = np.array([[1 << 30, 0, 20, 0]], dtype=np.int64)  # a tiger off the board
    with pytest.raises(ValueError, match="not a position"):
        labels.search_scores("tigers", "classic:depth=1", bad)
    with pytest.raises(ValueError, match="rows of 4 numbers"):
        labels.search_scores("tigers", "classic:depth=1", np.zeros((2, 5), dtype=np.int64))


def test_at_draughts_the_final_matchs_openings_differ_in_parity():
    config = TuneConfig(game="draughts", match_opening_plies=6)
    with pytest.raises(CommandError, match="by an odd number of plies"):
        _check_match_openings(config, [{"file": "d.npz", "random_plies": 10}])
    _check_match_openings(
        TuneConfig(game="draughts", match_opening_plies=5), [{"random_plies": 10}]
    )


@pytest.mark.slow
def test_rollout_targets_are_the_rollouts_mean_results_in_0_to_1():
    from samuel.seeds import derive_seed
    from samuel.train.rollouts import RolloutConfig, rollout_labels

    found = tuning.random_positions(6, seed=9)
    states = np.array([p.encode() for p in found], dtype=np.int64)
    targets = labels.rollout_targets("tigers", "classic:depth=1", states, 4, seed=3)
    seeds = np.array([derive_seed(3, row, labels.ROLLOUT_STREAM) for row in range(6)])
    expected = rollout_labels(
        game_numbers.TIGERS,
        game_kernels.EVALUATOR_CLASSIC,
        TIGERS_RULES.classic_weights(),
        states,
        seeds.astype(np.int64),
        RolloutConfig(rollouts=4, depth=1),
    )
    assert targets.tolist() == ((expected.values.astype(np.float64) + 1) / 2).tolist()
    assert np.all((targets >= 0) & (targets <= 1))
    again = labels.rollout_targets("tigers", "classic:depth=1", states, 4, seed=3)
    assert np.array_equal(targets, again)
