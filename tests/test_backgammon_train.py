"""Backgammon's network, valued by its outcomes as TD-Gammon's was: six chances (win, gammon,
backgammon, for and against the side to move) whose expected points are its value, TD(lambda)
targets over those chances, their turn into the network's view, and a short training run."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.evaluation.networks import network_shape, random_network
from samuel.evaluation.outcomes import outcome_predictions
from samuel.games import kernels as games
from samuel.games.backgammon.rules import RULES, Roll
from samuel.nn.network import NO_PLIES
from samuel.nn.shape import OUTCOMES, VALUE, Network, ShapeError, network_of, outcomes_head
from samuel.train.buffer import Samples
from samuel.train.targets import outcome_vector, td_lambda_outcome_targets
from samuel.train.trainer import encode

GAME = RULES.number


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def test_the_network_has_six_outcomes_and_no_value_head() -> None:
    shape = network_shape(GAME)
    assert not shape.has(VALUE) and shape.head(OUTCOMES).outputs == 6
    with pytest.raises(ShapeError, match="even number of outcomes"):
        Network(10, (8,), (outcomes_head(5),))


def dense_outcomes(params: np.ndarray, state: np.ndarray) -> np.ndarray:
    """The outcome head's chances by plain NumPy, from the plan's offsets (a reference)."""
    shape = network_of(params)
    active = np.zeros(32, dtype=np.int64)
    values = np.zeros(32, dtype=np.float32)
    n = games.network_inputs(GAME, state, active, values)
    x = np.zeros(shape.inputs, dtype=np.float64)
    x[active[:n]] = values[:n]
    (w1, b1, _, n_in, n1), (w2, b2, _, _, n2) = shape.layers()
    h1 = np.maximum(0, x @ params[w1 : w1 + n_in * n1].reshape(n_in, n1) + params[b1 : b1 + n1])
    w2m = params[w2 : w2 + n1 * n2].reshape(n2, n1)
    h2 = np.maximum(0, w2m @ h1 + params[b2 : b2 + n2])
    [(wo, bo, _, _, k)] = shape.head_layers(OUTCOMES)
    return sigmoid(params[wo : wo + n2 * k].reshape(k, n2) @ h2 + params[bo : bo + k])


def test_the_value_is_the_expected_points_of_the_outcomes() -> None:
    params = random_network(GAME, 11)
    position = RULES.play(
        RULES.play(RULES.initial_position(), Roll(3, 1)), RULES.parse_move("8/5 6/5")
    )
    state = position.encode()  # O to roll: the network's view is O's
    chances = dense_outcomes(params, state)
    points = chances[:3].sum() - chances[3:].sum()
    size = evaluators.scratch_size(GAME, games.EVALUATOR_NETWORK, params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    value = evaluation.network_value(GAME, params, state, scratch, active)
    assert value == pytest.approx(-points, abs=1e-5)  # X's view: O's points, turned
    first_view = outcome_predictions(GAME, params, state[None, :])[0]
    assert first_view == pytest.approx(np.concatenate([chances[3:], chances[:3]]), abs=1e-5)


def test_a_finished_game_s_outcome_vector() -> None:
    assert outcome_vector(2, 3).tolist() == [1, 1, 0, 0, 0, 0]  # a gammon for the first player
    assert outcome_vector(-3, 3).tolist() == [0, 0, 0, 1, 1, 1]
    assert outcome_vector(-1, 3).tolist() == [0, 0, 0, 1, 0, 0]
    assert outcome_vector(0, 3).tolist() == [0] * 6


def test_td_lambda_over_outcome_vectors() -> None:
    predictions = np.array([[0.5, 0.1], [0.6, 0.2], [0.8, 0.4]], dtype=np.float32)
    final = np.array([1.0, 0.0], dtype=np.float32)
    targets = np.empty_like(predictions)
    td_lambda_outcome_targets(predictions, np.zeros(3, np.bool_), final, 0.5, targets)
    # t=2: the outcome; t=1: (0.8 + 1) / 2 and (0.4 + 0) / 2; t=0: (0.6 + 0.9) / 2, (0.2 + 0.2) / 2
    assert np.allclose(targets, [[0.75, 0.2], [0.9, 0.2], [1.0, 0.0]])
    cut = np.array([False, True, False])
    td_lambda_outcome_targets(predictions, cut, final, 0.5, targets)
    assert targets[1].tolist() == pytest.approx([0.6, 0.2])  # a random move: its own prediction
    assert targets[0].tolist() == pytest.approx([0.6, 0.2])


def test_targets_turn_into_the_side_to_move_s_view() -> None:
    start = RULES.initial_position()
    o_to_roll = RULES.play(RULES.play(start, Roll(3, 1)), RULES.parse_move("8/5 6/5"))
    states = np.stack([start.encode(), o_to_roll.encode()])
    chances = np.array([[0.6, 0.2, 0.01, 0.4, 0.1, 0.02]] * 2, dtype=np.float32)
    samples = Samples(states, np.zeros(2, np.float32), np.full(2, NO_PLIES, np.float32), chances)
    encoded = encode(GAME, samples)
    assert encoded.outcomes[0].tolist() == pytest.approx(chances[0].tolist())  # X to roll
    swapped = [0.4, 0.1, 0.02, 0.6, 0.2, 0.01]  # O to roll: O's chances are X's losses
    assert encoded.outcomes[1].tolist() == pytest.approx(swapped)
    # colours swapped: each image is the same position for the network, with the same targets
    image = encode(GAME, samples, np.array([1, 1]))
    assert np.array_equal(image.outcomes, encoded.outcomes)
    for row in range(2):
        count = encoded.counts[row]
        assert np.array_equal(image.active[row, :count], encoded.active[row, :count])


@pytest.mark.slow
def test_samuel_train_learns_backgammon_and_its_network_plays(tmp_path) -> None:
    from samuel.evaluation.networks import load_network
    from tests.test_cli import samuel

    out = tmp_path / "run"
    run = samuel("train", "--game", "backgammon", "2", "30", str(out), "--match-every", "2",
                 "--match-games", "4", "--no-progress")  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [row[0] for row in rows] == ["1", "2"]
    params = load_network(out / "latest.bin", GAME)
    assert network_of(params).head(OUTCOMES).outputs == 6
    match = samuel("match", f"{out / 'latest.bin'}:depth=1", "random", "--game", "backgammon",
                   "--games", "4", "--workers", "1")  # fmt: skip
    assert match.returncode == 0, match.stderr
