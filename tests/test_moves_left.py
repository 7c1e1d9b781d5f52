"""The moves-left head (``docs/moves-left.md``): its output and gradients against plain float64
algebra and finite differences, for both games' networks; the weights file's version 3 with and
without the head, and older files loading as value-only networks."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from samuel.games import get_game
from samuel.games.networks import (
    has_moves_left,
    load_network,
    random_network,
    save_network,
)
from samuel.nn import network as N
from samuel.nn.weights import WeightsFileError, read_network
from samuel.players import SHIPPED_NETWORK
from tests import game_numbers
from tests.reference import dense_network as dense
from tests.test_nn import GAMES, inputs_of, plain_inputs, positions, set_inputs


def head_network(name: str, seed: int) -> np.ndarray:
    """A network with the head whose biases are not zero (so every path carries a gradient)."""
    rng = np.random.default_rng(seed)
    inputs = inputs_of(name)
    shape = N.layout(inputs, moves_left=True)
    params = N.random_parameters(inputs, seed, moves_left=True)
    params[shape.b1 : shape.w2] = rng.normal(0, 0.2, N.HIDDEN1)
    params[shape.b2 : shape.w3] = rng.normal(0, 0.2, N.HIDDEN2)
    params[shape.b4 : shape.w5] = rng.normal(0, 0.2, N.HEAD_HIDDEN)
    params[shape.b5] = 1.0
    return params


def test_the_head_sits_after_the_value_network():
    value, head = N.layout(52), N.layout(52, moves_left=True)
    assert (head.w1, head.b1, head.w2, head.b2, head.w3, head.b3) == (
        value.w1,
        value.b1,
        value.w2,
        value.b2,
        value.w3,
        value.b3,
    )
    assert head.w4 == value.params and head.params == value.params + N.MOVES_LEFT_PARAMS
    assert not value.moves_left and head.moves_left
    for inputs in (52, 128):
        assert N.network_shape(N.parameter_count(inputs)) == (inputs, False)
        assert N.network_shape(N.parameter_count(inputs, True)) == (inputs, True)
    # one more would be a headed network of 19 inputs (the head's 2113 are 33 rows of 64, and 1)
    assert N.network_shape(N.parameter_count(52) + 2) == (-1, False)
    # the value layers of a random network do not depend on whether it has the head
    with_head = N.random_parameters(52, 5, moves_left=True)
    assert np.array_equal(with_head[: value.params], N.random_parameters(52, 5))
    assert np.array_equal(N.value_only(with_head), N.random_parameters(52, 5))


@pytest.mark.parametrize("name", GAMES)
def test_plies_left_equals_the_plain_reference_and_leaves_the_value_alone(name):
    inputs = inputs_of(name)
    params = head_network(name, 3)
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    seen = []
    for position in positions(name, 60, seed=4):
        active, values, n = set_inputs(name, position)
        x = plain_inputs(name, position)
        value = N.forward(params, inputs, active, values, n, scratch)
        assert value == pytest.approx(dense.value(params, x), abs=2e-6)
        assert value == N.forward(N.value_only(params), inputs, active, values, n, scratch)
        plies = N.plies_left(params, inputs, scratch)
        assert plies == pytest.approx(dense.plies(params, x), rel=1e-5)
        assert plies >= 0
        seen.append(plies)
    assert len(set(seen)) > 10  # the head depends on the position


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("layer", ["w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4", "w5", "b5"])
@pytest.mark.parametrize("plies", [3.0, 80.0])  # inside and beyond the Huber loss's zone
def test_every_layers_gradient_with_the_head_equals_finite_differences(name, layer, plies):
    rng = np.random.default_rng(6)
    inputs = inputs_of(name)
    shape = N.layout(inputs, moves_left=True)
    params = head_network(name, 7)
    order = ["w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4", "w5", "b5", "params"]
    start = getattr(shape, layer)
    end = getattr(shape, order[order.index(layer) + 1])
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    weight = 0.5
    for position in positions(name, 3, seed=8):
        target = float(rng.uniform(-1, 1))
        active, values, n = set_inputs(name, position)
        grad = np.zeros(shape.params, dtype=np.float32)
        value_loss, plies_loss = N.add_gradient_heads(
            params, grad, inputs, active, values, n, target, plies, weight, scratch
        )
        x = plain_inputs(name, position)
        assert value_loss + weight * plies_loss == pytest.approx(
            dense.heads_loss(params, x, target, plies, weight), rel=1e-4
        )
        indices = rng.choice(np.arange(start, end), size=min(40, end - start), replace=False)
        if layer == "w1":  # make sure rows of set inputs are among those checked
            rows = shape.w1 + np.flatnonzero(x) * N.HIDDEN1
            indices = np.concatenate([indices, rows + 3, rows[0] + np.arange(N.HIDDEN1)])
        numeric = dense.finite_difference_heads_gradient(params, x, target, plies, weight, indices)
        np.testing.assert_allclose(grad[indices], numeric, rtol=3e-3, atol=3e-6)
        assert np.any(numeric != 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_without_a_plies_target_the_head_adds_nothing(name):
    """A sample with no plies target (NO_PLIES), or a weight of 0, trains the value exactly as
    the value-only gradient does, and leaves the head's parameters alone."""
    inputs = inputs_of(name)
    params = head_network(name, 9)
    value_params = N.value_only(params).copy()
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    for position in positions(name, 5, seed=10):
        active, values, n = set_inputs(name, position)
        plain_grad = np.zeros(len(value_params), dtype=np.float32)
        loss = N.add_gradient(value_params, plain_grad, inputs, active, values, n, 0.3, scratch)
        for plies, weight in ((N.NO_PLIES, 0.1), (12.0, 0.0)):
            grad = np.zeros(len(params), dtype=np.float32)
            value_loss, plies_loss = N.add_gradient_heads(
                params, grad, inputs, active, values, n, 0.3, plies, weight, scratch
            )
            assert value_loss == loss and plies_loss == 0.0
            assert np.array_equal(grad[: len(value_params)], plain_grad)
            assert not np.any(grad[len(value_params) :])


def test_a_head_can_be_added_to_a_value_network():
    value = random_network(game_numbers.TIGERS, 1)
    params = N.with_moves_left(value, seed=2)
    assert has_moves_left(params, game_numbers.TIGERS)
    assert not has_moves_left(value, game_numbers.TIGERS)
    assert np.array_equal(params[: len(value)], value)
    assert np.array_equal(N.with_moves_left(params, seed=3), params)  # already has one
    with pytest.raises(ValueError, match="8002 with the moves-left head"):
        has_moves_left(value[:-1], game_numbers.TIGERS)


@pytest.mark.parametrize("name", GAMES)
def test_version_3_round_trips_with_and_without_the_head(tmp_path, name):
    game = get_game(name).number
    for moves_left in (False, True):
        params = random_network(game, 4, moves_left=moves_left)
        path = tmp_path / f"net-{moves_left}.bin"
        save_network(params, path, game)
        loaded = read_network(path)
        assert (loaded.game, loaded.inputs, loaded.moves_left) == (
            game,
            inputs_of(name),
            moves_left,
        )
        assert np.array_equal(load_network(path, game), params)
        head = path.read_bytes()[:28]
        assert head[:8] == b"TSNN" + struct.pack("<I", 3)
        assert struct.unpack("<I", head[24:28])[0] == (3 if moves_left else 1)
        assert path.stat().st_size == 28 + 4 * len(params)


def test_older_files_load_as_value_only_networks(tmp_path):
    shipped = load_network(SHIPPED_NETWORK, game_numbers.TIGERS)  # a version 1 file
    assert not has_moves_left(shipped, game_numbers.TIGERS)
    seed_params = read_network(SHIPPED_NETWORK).params  # the seed's 52 inputs
    path = tmp_path / "v2.bin"
    path.write_bytes(
        struct.pack("<4s5I", b"TSNN", 2, 0, 52, 64, 32) + seed_params.astype("<f4").tobytes()
    )
    loaded = read_network(path)
    assert not loaded.moves_left and np.array_equal(loaded.params, seed_params)
    assert np.array_equal(load_network(path, game_numbers.TIGERS), shipped)


@pytest.mark.parametrize(
    ("heads", "extra", "phrase"),
    [
        (0, 0, "heads are 0x0"),
        (2, N.MOVES_LEFT_PARAMS, "heads are 0x2"),  # plies left without the value
        (7, N.MOVES_LEFT_PARAMS, "heads are 0x7"),
        (3, 0, "network with a moves-left head takes"),  # says it has a head, is too short
        (1, N.MOVES_LEFT_PARAMS, "bytes; a 52-64-32 network takes"),  # an undeclared head
    ],
)
def test_a_header_whose_heads_do_not_fit_is_refused(tmp_path, heads, extra, phrase):
    path = tmp_path / "bad.bin"
    count = N.parameter_count(52) + extra
    path.write_bytes(struct.pack("<4s6I", b"TSNN", 3, 0, 52, 64, 32, heads) + bytes(4 * count))
    with pytest.raises(WeightsFileError, match=phrase):
        load_network(path, game_numbers.TIGERS)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_batch_gradient_with_the_head_is_the_sum_over_samples(name):
    from samuel.nn.batches import batch_gradient_heads, batch_plies_error

    inputs = inputs_of(name)
    params = head_network(name, 11)
    rows = [set_inputs(name, p) for p in positions(name, 70, seed=12)]
    active = np.stack([r[0] for r in rows])
    values = np.stack([r[1] for r in rows])
    counts = np.array([r[2] for r in rows], dtype=np.int64)
    rng = np.random.default_rng(13)
    targets = rng.uniform(-1, 1, 70).astype(np.float32)
    plies = rng.integers(1, 120, 70).astype(np.float32)
    plies[::5] = N.NO_PLIES
    grad = np.zeros(len(params), dtype=np.float32)
    value_loss, plies_loss = batch_gradient_heads(
        params, inputs, active, values, counts, targets, plies, np.float32(0.1), grad
    )
    one = np.zeros(len(params), dtype=np.float32)
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    expected = np.zeros(2)
    errors = []
    for i in range(70):
        expected += N.add_gradient_heads(
            params, one, inputs, active[i], values[i], counts[i], targets[i], plies[i], 0.1, scratch
        )
        if plies[i] >= 0:
            errors.append(abs(N.plies_left(params, inputs, scratch) - plies[i]))
    np.testing.assert_allclose(grad, one, rtol=1e-4, atol=1e-6)
    assert (value_loss, plies_loss) == pytest.approx(tuple(expected), rel=1e-9)
    total, count = batch_plies_error(params, inputs, active, values, counts, plies)
    assert count == 56 and total == pytest.approx(sum(errors), rel=1e-6)


@pytest.mark.slow
def test_training_teaches_the_head_the_plies_left():
    """Plies targets that follow the position (more sheep on the board, fewer plies left) are
    learned: the head's error falls well below a constant guess's, and a value-only network
    trains exactly as it did before the head existed."""
    from samuel.train.buffer import Samples
    from samuel.train.trainer import Adam, plies_error, train_epoch

    rules = get_game("tigers")
    game = rules.number
    found = positions("tigers", 600, seed=14)
    states = np.stack([rules.encode(p) for p in found])
    sheep = np.array([bin(int(state[1])).count("1") for state in states], dtype=np.float32)
    plies = (80.0 - 3.0 * sheep).astype(np.float32)
    samples = Samples(states, np.zeros(len(found), np.float32), plies)
    params = random_network(game, 15, moves_left=True)
    constant = float(np.mean(np.abs(plies - np.median(plies))))
    before = plies_error(game, params, samples)
    adam = Adam(len(params))
    rng = np.random.default_rng(16)
    for _ in range(60):
        train_epoch(game, params, adam, samples, 64, 3e-3, rng, moves_left_weight=1.0)
    after = plies_error(game, params, samples)
    assert after < 0.5 * constant < before
    # a value-only network's training does not see the plies targets
    plain = random_network(game, 15)
    twin = plain.copy()
    train_epoch(game, plain, Adam(len(plain)), samples, 64, 1e-3, np.random.default_rng(1))
    without = Samples(states, samples.targets)
    train_epoch(game, twin, Adam(len(twin)), without, 64, 1e-3, np.random.default_rng(1))
    assert np.array_equal(plain, twin)


def test_heads_only_training_leaves_the_value_layers_exactly_as_they_were():
    from samuel.train.buffer import Samples
    from samuel.train.trainer import Adam, plies_error, train_epoch

    rules = get_game("tigers")
    game = rules.number
    states = np.stack([rules.encode(p) for p in positions("tigers", 300, seed=17)])
    plies = np.random.default_rng(18).integers(1, 60, len(states)).astype(np.float32)
    samples = Samples(states, np.ones(len(states), np.float32), plies)
    value = random_network(game, 19)
    params = N.with_moves_left(value, seed=20)
    before = plies_error(game, params, samples)
    adam = Adam(len(params))
    rng = np.random.default_rng(21)
    for _ in range(5):
        train_epoch(game, params, adam, samples, 32, 1e-2, rng, heads_only=True)
    assert np.array_equal(params[: len(value)], value)
    assert plies_error(game, params, samples) < before
