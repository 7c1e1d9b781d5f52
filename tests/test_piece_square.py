"""The piece-square tables of each game's classic evaluation: the compiled search reads them as
the plain reference does, tables of zeros change no search, their features times the weights are
the score and their gradient matches finite differences, and weights files hold them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.games import kernels as game_kernels
from samuel.games.classic_file import WeightsError
from samuel.games.draughts import classic as draughts_classic
from samuel.games.draughts.rules import RULES as DRAUGHTS_RULES
from samuel.games.tigers import classic as tigers_classic
from samuel.games.tigers.rules import RULES as TIGERS_RULES
from samuel.search.alphabeta import Searcher
from samuel.tune import gradient as G
from tests import game_numbers
from tests.reference import piece_square, tuning
from tests.reference.minimax import rules_negamax

GAMES = {
    "tigers": (game_numbers.TIGERS, tigers_classic, TIGERS_RULES),
    "draughts": (game_numbers.DRAUGHTS, draughts_classic, DRAUGHTS_RULES),
}


def positions_of(name: str, count: int, seed: int) -> list:
    if name == "tigers":
        return tuning.random_positions(count, seed)
    return tuning.random_draughts_positions(count, seed)


def reference_table_score(name: str, position, tables: dict) -> float:
    if name == "tigers":
        return piece_square.tigers_table_score(position, tables)
    state = position.encode()
    board = tuning.draughts_board(int(state[0]), int(state[1]), int(state[2]))
    return piece_square.draughts_table_score(board, tables)


def weights_with(name: str, tables: dict, seed: int) -> np.ndarray:
    """The game's hand-written weights, nudged, then the tables in a file's layout."""
    _, classic, _ = GAMES[name]
    named = classic.load_weights() + np.random.default_rng(seed).normal(
        0, 0.01, len(classic.FEATURES)
    )
    return np.concatenate([named, classic.TABLES.from_document(tables, "test")])


def kernel_score(name: str, weights: np.ndarray, state: np.ndarray) -> float:
    game, _, _ = GAMES[name]
    params = evaluators.check_params(game, game_kernels.EVALUATOR_CLASSIC, weights)
    size = evaluators.scratch_size(game, game_kernels.EVALUATOR_CLASSIC, params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    return evaluation.evaluate(game, game_kernels.EVALUATOR_CLASSIC, params, state, scratch, active)


def tables_of(name: str, seed: int) -> dict:
    _, classic, _ = GAMES[name]
    return piece_square.random_tables(classic.TABLES.kinds, classic.TABLES.squares, seed)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_evaluation_with_tables_equals_the_plain_reference(name):
    _, classic, _ = GAMES[name]
    tables = tables_of(name, 1)
    weights = weights_with(name, tables, 2)
    named = weights[: classic.FEATURE_COUNT]
    for position in positions_of(name, 200, seed=3):
        state = np.asarray(position.encode(), dtype=np.int64)
        expected = kernel_score(name, named, state) + reference_table_score(name, position, tables)
        assert kernel_score(name, weights, state) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("name", GAMES)
def test_the_search_with_tables_equals_plain_minimax_on_the_reference(name):
    game, classic, rules = GAMES[name]
    tables = tables_of(name, 4)
    weights = weights_with(name, tables, 5)
    named = weights[: classic.FEATURE_COUNT]

    def evaluate(position) -> float:
        state = np.asarray(position.encode(), dtype=np.int64)
        return kernel_score(name, named, state) + reference_table_score(name, position, tables)

    for position in positions_of(name, 6, seed=6):
        if rules.decided_outcome(position) is not None:
            continue
        keys = np.array([rules.key(position)], dtype=np.int64)
        for depth in (1, 2):
            found = Searcher(game).search(
                position.encode(), keys, 0, game_kernels.EVALUATOR_CLASSIC, weights, depth
            )
            expected = rules_negamax(rules, position, depth, evaluate, [])
            assert found.score == pytest.approx(expected, abs=1e-9), (str(position), depth)


@pytest.mark.parametrize("name", GAMES)
def test_tables_of_zeros_change_no_search(name):
    game, classic, rules = GAMES[name]
    named = classic.load_weights()
    padded = np.concatenate([named, np.zeros(classic.TABLES.count)])
    for position in positions_of(name, 8, seed=7):
        if rules.decided_outcome(position) is not None:
            continue
        keys = np.array([rules.key(position)], dtype=np.int64)
        results = [
            Searcher(game).search(
                position.encode(), keys, 0, game_kernels.EVALUATOR_CLASSIC, w, 3, seed=1
            )
            for w in (named, padded)
        ]
        assert results[0].score == results[1].score  # bit for bit
        assert results[0].principal_variation == results[1].principal_variation
        assert (results[0].best_move, results[0].nodes) == (results[1].best_move, results[1].nodes)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_tables_features_times_the_weights_are_the_score(name):
    _, classic, _ = GAMES[name]
    weights = weights_with(name, tables_of(name, 8), 9)
    positions = positions_of(name, 300, seed=10)
    states = np.array([p.encode() for p in positions], dtype=np.int64)
    features = G.sparse_features(states, name, tables=True)
    assert features.feature_count == classic.WEIGHT_COUNT
    expected = [kernel_score(name, weights, s) for s in states]
    # The features are float32: a phase of 1/3 is rounded where the kernel's is not.
    assert G.evaluations(features, weights) == pytest.approx(expected, abs=1e-5)
    assert np.all(features.value != 0)
    dense = G.dense_features(states, name, tables=True)
    assert np.count_nonzero(dense) == len(features.index)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_gradient_with_tables_matches_finite_differences(name):
    weights = weights_with(name, tables_of(name, 11), 12)
    positions = positions_of(name, 120, seed=13)
    states = np.array([p.encode() for p in positions], dtype=np.int64)
    features = G.sparse_features(states, name, tables=True)
    dense = G.dense_features(states, name, tables=True).astype(np.float64)
    target = G.result_targets(np.random.default_rng(14).choice([-1, 0, 1], len(states)))
    error, grad = G.error_gradient(features, target, weights, 0.7)
    assert error == pytest.approx(tuning.mean_squared_error(dense, target, weights, 0.7))
    numeric = tuning.finite_difference_gradient(dense, target, weights, 0.7)
    assert np.abs(numeric[len(GAMES[name][1].FEATURES) :]).max() > 1e-4  # tables worth checking
    assert grad == pytest.approx(numeric, rel=1e-5, abs=1e-8)


# --- weights files -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_weights_files_keep_the_tables_and_old_files_have_none(name, tmp_path):
    _, classic, _ = GAMES[name]
    assert len(classic.load_weights()) == classic.FEATURE_COUNT  # the shipped file has none
    weights = weights_with(name, tables_of(name, 15), 16)
    path = tmp_path / "w.json"
    classic.save_weights(weights, path)
    assert np.array_equal(classic.load_weights(path), weights)
    classic.save_weights(weights[: classic.FEATURE_COUNT], path)
    assert "tables" not in json.loads(path.read_text())
    assert len(classic.load_weights(path)) == classic.FEATURE_COUNT


def _file_with(tmp_path, name: str, tables) -> str:
    _, classic, _ = GAMES[name]
    named = dict(zip(classic.FEATURES, classic.load_weights().tolist(), strict=True))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"weights": named, "tables": tables}))
    return str(path)


@pytest.mark.parametrize(
    ("tables", "phrase"),
    [
        ([], '"tables" must be'),
        ({"tiger": {}}, '"tables" must be'),
        ({"tiger": {"opening": [0] * 25}, "sheep": {}}, "tiger table must have the phases"),
        (
            {"tiger": {"opening": [0] * 24, "ending": [0] * 25}, "sheep": {}},
            "tiger opening must be 25 numbers",
        ),
        (
            {
                "tiger": {"opening": [0] * 25, "ending": [0] * 24 + ["x"]},
                "sheep": {"opening": [0] * 25, "ending": [0] * 25},
            },
            "tiger ending square 24 is not a finite number",
        ),
        (
            {
                "tiger": {"opening": [0] * 25, "ending": [0] * 25},
                "sheep": {"opening": [True] * 25, "ending": [0] * 25},
            },
            "sheep opening square 0 is not a finite number",
        ),
    ],
)
def test_malformed_tables_are_refused_in_one_line(tmp_path, tables, phrase):
    with pytest.raises(WeightsError, match=phrase) as refused:
        tigers_classic.load_weights(_file_with(tmp_path, "tigers", tables))
    assert "\n" not in str(refused.value)


def test_draughts_tables_that_could_score_a_forced_result_are_refused(tmp_path):
    tables = {kind: {"opening": [30.0] * 32, "ending": [0.0] * 32} for kind in ("man", "king")}
    with pytest.raises(WeightsError, match="could score"):
        draughts_classic.load_weights(_file_with(tmp_path, "draughts", tables))


@pytest.mark.parametrize("name", GAMES)
def test_the_classic_evaluator_takes_weights_with_or_without_tables_only(name):
    game, classic, _ = GAMES[name]
    for count in (classic.FEATURE_COUNT, classic.WEIGHT_COUNT):
        assert (
            len(evaluators.check_params(game, game_kernels.EVALUATOR_CLASSIC, np.zeros(count)))
            == count
        )
    with pytest.raises(ValueError, match="classic weights are"):
        evaluators.check_params(
            game, game_kernels.EVALUATOR_CLASSIC, np.zeros(classic.WEIGHT_COUNT - 1)
        )


def test_the_hybrid_refuses_weights_with_tables_in_one_line(tmp_path):
    from samuel.players import PlayerSpecError, make_player

    path = tmp_path / "tables.json"
    tigers_classic.save_weights(weights_with("tigers", tables_of("tigers", 17), 18), path)
    with pytest.raises(PlayerSpecError, match="without piece-square tables"):
        make_player(f"hybrid:weights={path}", TIGERS_RULES)
    assert make_player(f"classic:weights={path}", TIGERS_RULES) is not None
