"""Stage 3 of the pipeline: supervised training with a by-game split, baselines, early stopping."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.evaluation.networks import random_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.nn.shape import PLAN
from samuel.pipeline.supervised import (
    SupervisedConfig,
    SupervisedReport,
    classic_scores,
    fit_classic_scale,
    network_mse,
    split_by_group,
    train_supervised,
)
from samuel.train.selfplay import SelfPlaySettings, play_selfplay
from tests import game_numbers

GAMES = {"tigers": game_numbers.TIGERS, "draughts": game_numbers.DRAUGHTS}


@cache
def selfplay_positions(name: str, count: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Every position of ``count`` short classic self-play games, and each one's game."""
    rules = get_game(name)
    settings = SelfPlaySettings(
        rules.number,
        games.EVALUATOR_CLASSIC,
        rules.classic_weights(),
        rules.encode(rules.initial_position()),
        depth=1,
        random_plies=6,
        epsilon=0.2,
        ply_cap=80,
    )
    played = play_selfplay(settings, np.arange(1000, 1000 + count, dtype=np.int64))
    states = np.concatenate([played.positions[g, : played.plies[g]] for g in range(count)])
    groups = np.repeat(np.arange(count), played.plies)
    return states, groups


def teacher_targets(game: int, states: np.ndarray) -> np.ndarray:
    """A fixed random network's values (first player's view): a target a network can learn."""
    teacher = random_network(game, 0x7EAC)
    teacher[PLAN:] *= np.float32(0.8)  # tamer: values mostly inside -1..1 (the plan stays)
    size = evaluators.scratch_size(game, games.EVALUATOR_NETWORK, teacher)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    return np.array(
        [evaluation.network_value(game, teacher, s, scratch, active) for s in states], np.float64
    )


# --- the split ------------------------------------------------------------------------------


def test_split_keeps_groups_whole_covers_everything_once_and_is_reproducible():
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(200), rng.integers(1, 30, size=200))
    groups = np.concatenate([groups, np.full(50, -1)])  # positions of no game
    rng.shuffle(groups)
    train, validation = split_by_group(groups, 0.25, seed=11)
    assert np.array_equal(np.sort(np.concatenate([train, validation])), np.arange(len(groups)))
    real = groups >= 0
    on_both = set(groups[train][real[train]]) & set(groups[validation][real[validation]])
    assert not on_both
    held_groups = len(set(groups[validation][real[validation]])) + int((~real[validation]).sum())
    assert held_groups == round(0.25 * 250)  # 200 games and 50 loose positions
    assert validation.size > 0 and train.size > 0
    again = split_by_group(groups, 0.25, seed=11)
    assert np.array_equal(again[0], train) and np.array_equal(again[1], validation)
    other = split_by_group(groups, 0.25, seed=12)
    assert not np.array_equal(other[1], validation)


def test_split_by_group_refuses_what_cannot_be_split():
    with pytest.raises(ValueError, match="at least two games"):
        split_by_group(np.zeros(10, dtype=np.int64), 0.1, 0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        split_by_group(np.arange(10), 1.0, 0)
    with pytest.raises(ValueError, match="-1 for a position of no game"):
        split_by_group(np.array([0, 1, -2]), 0.5, 0)
    with pytest.raises(ValueError, match="integers"):
        split_by_group(np.array([0.5, 1.0]), 0.5, 0)
    # Two loose positions are two groups: one on each side.
    train, validation = split_by_group(np.array([-1, -1]), 0.1, 0)
    assert len(train) == len(validation) == 1


# --- the config and the report ----------------------------------------------------------------


def test_config_checks_itself_and_round_trips_through_json():
    config = SupervisedConfig(epochs=3, learning_rate=0.01, seed=5)
    assert SupervisedConfig.from_json(json.dumps(config.to_json())) == config
    assert SupervisedConfig.from_json({}) == SupervisedConfig()
    for bad, words in (
        ({"epochs": 0}, "epochs"),
        ({"batch_size": 2.5}, "batch_size"),
        ({"patience": True}, "patience"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"validation": 0.0}, "between 0 and 1"),
        ({"seed": "x"}, "seed"),
    ):
        with pytest.raises(ValueError, match=words):
            SupervisedConfig(**bad)
    with pytest.raises(ValueError, match="unknown supervised config key"):
        SupervisedConfig.from_json({"epoch": 3})


# --- training ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_training_learns_a_learnable_target_and_keeps_the_best_epoch(name):
    game = GAMES[name]
    states, groups = selfplay_positions(name)
    targets = teacher_targets(game, states)
    start = random_network(game, 1)
    before = start.copy()
    config = SupervisedConfig(epochs=12, batch_size=64, learning_rate=3e-3, patience=3, seed=2)
    params, report = train_supervised(game, start, states, targets, groups, config)
    assert np.array_equal(start, before)  # the champion is never changed
    valid = report.validation_mse
    assert valid < report.baselines["constant"]
    assert valid < report.baselines["start"]
    assert valid == min(v for _, v in report.history)
    assert report.best_epoch == 1 + int(np.argmin([v for _, v in report.history]))
    assert report.history[-1][0] < report.history[0][0]  # the training MSE falls too
    # The returned network is the best epoch's: its MSE is the history's least, exactly.
    _, validation = split_by_group(groups, config.validation, config.seed)
    assert network_mse(game, params, states[validation], targets[validation]) == valid
    assert report.train_positions + report.validation_positions == len(states)
    assert report.train_groups + report.validation_groups == len(set(groups))
    assert report.validation_groups == round(0.1 * len(set(groups)))
    assert set(report.baselines) == {"constant", "classic", "start"}
    assert all(np.isfinite(v) for v in report.baselines.values())
    saved = report.to_json()
    json.dumps(saved)  # the registry stores it as JSON
    assert SupervisedReport.from_json(saved) == report


def test_same_seed_same_weights_and_another_seed_other_weights():
    game = game_numbers.TIGERS
    states, groups = selfplay_positions("tigers")
    targets = teacher_targets(game, states)
    start = random_network(game, 1)
    config = SupervisedConfig(epochs=2, batch_size=64, seed=9)
    one, report_one = train_supervised(game, start, states, targets, groups, config)
    two, report_two = train_supervised(game, start, states, targets, groups, config)
    assert np.array_equal(one, two)
    assert report_one.history == report_two.history
    other, _ = train_supervised(
        game, start, states, targets, groups, SupervisedConfig(epochs=2, batch_size=64, seed=10)
    )
    assert not np.array_equal(one, other)


def test_early_stopping_stops_after_patience_epochs_without_progress():
    game = game_numbers.TIGERS
    states, groups = selfplay_positions("tigers")
    # Noise labels: nothing to learn, and a high learning rate overfits the training side.
    targets = np.random.default_rng(4).uniform(-1, 1, len(states))
    config = SupervisedConfig(epochs=30, batch_size=32, learning_rate=1e-2, patience=2, seed=1)
    params, report = train_supervised(
        game, random_network(game, 1), states, targets, groups, config
    )
    assert report.stopped_early
    assert report.epochs_run == report.best_epoch + config.patience
    assert report.validation_mse == min(v for _, v in report.history)


def test_the_classic_baseline_fits_the_scale_of_a_squashed_classic_score():
    game = game_numbers.TIGERS
    states, groups = selfplay_positions("tigers")
    scores = classic_scores(game, states)
    assert scores.std() > 0
    weights = get_game("tigers").classic_weights()
    size = evaluators.scratch_size(game, games.EVALUATOR_CLASSIC, weights)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    for i in range(0, len(states), 50):  # the search's own classic evaluation, the same
        score = evaluation.evaluate(
            game, games.EVALUATOR_CLASSIC, weights, states[i], scratch, active
        )
        assert scores[i] == pytest.approx(score, abs=1e-5)
    targets = np.tanh(0.3 * scores)
    assert fit_classic_scale(scores, targets) == pytest.approx(0.3, rel=1e-3)
    config = SupervisedConfig(epochs=1, batch_size=64)
    _, report = train_supervised(game, random_network(game, 1), states, targets, groups, config)
    assert report.classic_scale == pytest.approx(0.3, rel=1e-3)
    assert report.baselines["classic"] < 1e-6 < report.baselines["constant"]


def test_weights_train_by_weighted_draws():
    game = game_numbers.DRAUGHTS
    states, groups = selfplay_positions("draughts")
    targets = teacher_targets(game, states)
    weights = np.random.default_rng(5).uniform(0.1, 2.0, len(states))
    config = SupervisedConfig(epochs=2, batch_size=64)
    start = random_network(game, 1)
    weighted, report = train_supervised(game, start, states, targets, groups, config, weights)
    plain, _ = train_supervised(game, start, states, targets, groups, config)
    assert report.weighted and not np.array_equal(weighted, plain)
    again, _ = train_supervised(game, start, states, targets, groups, config, weights)
    assert np.array_equal(weighted, again)
    with pytest.raises(ValueError, match="weight"):
        train_supervised(game, start, states, targets, groups, config, -weights)


def test_bad_inputs_are_refused_with_clear_messages():
    game = game_numbers.TIGERS
    states, groups = selfplay_positions("tigers")
    targets = teacher_targets(game, states)
    start = random_network(game, 1)
    config = SupervisedConfig(epochs=1)

    def refused(words, **changes):
        args = {"states": states, "targets": targets, "groups": groups, "params": start}
        args.update(changes)
        with pytest.raises(ValueError, match=words):
            train_supervised(
                changes.get("game", game),
                args["params"],
                args["states"],
                args["targets"],
                args["groups"],
                config,
            )

    refused("one entry per state", targets=targets[:-1])
    refused("one entry per state", groups=groups[1:])
    nan = targets.copy()
    nan[7] = np.nan
    refused("targets row 7", targets=nan)
    refused("targets row 0 is 1.5", targets=np.full(len(states), 1.5))
    refused("at least two games", groups=np.zeros(len(states), dtype=np.int64))
    refused("no positions", states=states[:0], targets=targets[:0], groups=groups[:0])
    bad = states.copy()
    bad[3, 0] = bad[3, 1]  # tigers on the sheep's points
    refused("states row 3 is not a position", states=bad)
    refused("rows of 4", states=states[:, :3])
    refused("not a network for Tigers", params=start[:-1])  # its plan no longer fits
    refused("no game has number", game=7)
    draughts_net = random_network(game_numbers.DRAUGHTS, 1)
    refused("has 58 inputs.*not 128-64-32", params=draughts_net)  # a network of another game
    with pytest.raises(ValueError, match="SupervisedConfig"):
        train_supervised(game, start, states, targets, groups, {"epochs": 1})


def test_a_large_training_side_is_measured_on_a_fixed_sample(monkeypatch):
    from samuel.pipeline import supervised

    monkeypatch.setattr(supervised, "TRAIN_MSE_SAMPLE", 100)
    game = game_numbers.TIGERS
    states, groups = selfplay_positions("tigers")
    targets = teacher_targets(game, states)
    config = SupervisedConfig(epochs=2, batch_size=64)
    start = random_network(game, 1)
    one, report = train_supervised(game, start, states, targets, groups, config)
    two, again = train_supervised(game, start, states, targets, groups, config)
    assert np.array_equal(one, two) and report.history == again.history
    assert all(np.isfinite(t) and t > 0 for t, _ in report.history)
