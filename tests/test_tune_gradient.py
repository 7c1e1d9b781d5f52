"""Gradient tuning: the sparse dot product is the classic evaluation, the gradient is right, the
scale fit finds the minimum, and tuning is the same on any number of threads."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest

from samuel.games.tigers import classic
from samuel.tune import gradient as G
from samuel.tune.config import TuneConfig
from samuel.tune.dataset import LabelledPositions, save_positions
from tests.reference import tuning as reference


@pytest.fixture(scope="module")
def positions():
    found = reference.random_positions(300, seed=11)
    return np.array([p.encode() for p in found], dtype=np.int64)


@pytest.fixture(scope="module")
def targets(positions):
    rng = np.random.default_rng(3)
    return G.result_targets(rng.choice([-1, 0, 1], size=len(positions)))


def random_weights(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, 0.3, classic.FEATURE_COUNT)


@pytest.mark.slow
def test_the_sparse_dot_product_is_the_classic_evaluation(positions):
    weights = random_weights(1)
    features = G.sparse_features(positions)
    scratch = np.zeros(classic.FEATURE_COUNT, dtype=np.float32)
    expected = [classic.classic_evaluate(*map(int, s), weights, scratch) for s in positions]
    assert G.evaluations(features, weights) == pytest.approx(expected, abs=1e-9)
    assert len(features.index) < 0.9 * len(positions) * classic.FEATURE_COUNT  # really sparse
    assert np.all(features.value != 0)


def test_the_error_and_gradient_match_the_dense_reference_and_finite_differences(
    positions, targets
):
    weights, k = random_weights(2), 0.8
    features = G.sparse_features(positions)
    dense = G.dense_features(positions).astype(np.float64)
    error, grad = G.error_gradient(features, targets, weights, k)
    assert error == pytest.approx(
        reference.mean_squared_error(dense, targets, weights, k), rel=1e-12
    )
    assert G.mean_squared_error(features, targets, weights, k) == pytest.approx(error, rel=1e-12)
    numeric = reference.finite_difference_gradient(dense, targets, weights, k)
    assert np.abs(numeric).max() > 1e-3  # a gradient worth checking
    assert grad == pytest.approx(numeric, rel=1e-5, abs=1e-8)


def test_the_fitted_scale_is_the_minimum_of_the_error(positions):
    weights = classic.load_weights()
    features = G.sparse_features(positions)
    # Results drawn as if the classic score told the odds with K = 1.5.
    chance = 1.0 / (1.0 + np.exp(-1.5 * G.evaluations(features, weights)))
    targets = (np.random.default_rng(8).random(len(chance)) < chance).astype(np.float64)
    k = G.fit_scale(features, targets, weights)
    assert 0.5 < k < 5.0
    best = G.mean_squared_error(features, targets, weights, k)
    for nearby in (k * 0.95, k * 1.05):
        assert G.mean_squared_error(features, targets, weights, nearby) > best


def test_descent_lowers_the_error_and_keeps_fixed_weights(positions, targets):
    features = G.sparse_features(positions)
    start = classic.load_weights()
    trainable = G.trainable_mask(("captured", "tiger_to_move"))
    tuned = G.descend(features, targets, start, 0.7, 200, 0.01, trainable)
    assert (
        G.mean_squared_error(features, targets, tuned, 0.7)
        < G.mean_squared_error(features, targets, start, 0.7) - 1e-3
    )
    assert tuned[0] == 1.0 and tuned[-1] == start[-1]
    assert np.all(tuned[trainable] != start[trainable])
    gd = G.descend(features, targets, start, 0.7, 20, 0.05, trainable, optimizer="gd")
    assert G.mean_squared_error(features, targets, gd, 0.7) < G.mean_squared_error(
        features, targets, start, 0.7
    )


def test_tuning_is_bit_identical_on_1_and_2_threads(positions, targets):
    # Enough positions for several chunks, so that the threads really share the work.
    many = np.tile(positions, (3 * G.CHUNK // len(positions) + 1, 1))
    target = np.resize(targets, len(many))
    features = G.sparse_features(many)
    assert len(features) > 2 * G.CHUNK
    runs = []
    for threads in (1, 2):
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        runs.append(
            G.descend(
                features,
                target,
                classic.load_weights(),
                0.7,
                5,
                0.01,
                G.trainable_mask(("captured",)),
            )
        )
        runs.append(G.error_gradient(features, target, runs[-1], 0.7)[1])
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert runs[0].tobytes() == runs[2].tobytes()
    assert runs[1].tobytes() == runs[3].tobytes()


def test_a_subset_keeps_each_positions_features(positions):
    features = G.sparse_features(positions)
    mask = np.arange(len(positions)) % 3 == 1
    weights = random_weights(4)
    assert G.evaluations(features.subset(mask), weights) == pytest.approx(
        G.evaluations(features, weights)[mask], abs=1e-12
    )


@pytest.mark.slow
def test_tune_writes_weights_a_classic_player_loads_and_splits_by_game(tmp_path, positions):
    rng = np.random.default_rng(5)
    game_ids = np.repeat(np.arange(30), 10)
    results = np.repeat(rng.choice([-1, 0, 1], 30), 10).astype(np.int8)
    data = LabelledPositions(
        positions,
        results,
        game_ids.astype(np.int32),
        np.tile(np.arange(10), 30).astype(np.int16),
        np.zeros(300, dtype=bool),
        np.zeros(300, dtype=np.float32),
        {},
    )
    save_positions(data, tmp_path / "d.npz")
    lines = []
    out = tmp_path / "tuned.json"
    result = G.tune(
        TuneConfig(data=str(tmp_path / "d.npz"), out=str(out), iterations=50, validation=0.2),
        log=lines.append,
    )
    assert (result.train_games, result.validation_games) == (24, 6)
    assert (result.train_positions, result.validation_positions) == (240, 60)
    assert np.array_equal(classic.load_weights(out), result.weights)
    assert result.weights[0] == 1.0
    saved = json.loads(out.read_text())["tuning"]
    assert saved["errors"]["tuned"]["train"] < saved["errors"]["start"]["train"]
    assert any(line.startswith("baseline errors") for line in lines)


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({"fixed": ("captured", "nonsense")}, "unknown feature(s) nonsense"),
        ({"fixed": ()}, "captured is the unit"),
        ({"validation": 1.0}, "validation must be between 0 and 1"),
        ({"optimizer": "sgd"}, "optimizer must be adam or gd"),
        ({"learning_rate": float("nan")}, "learning rate"),
    ],
)
def test_bad_tuning_settings_are_refused(changes, phrase):
    with pytest.raises(ValueError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        TuneConfig(**changes)
