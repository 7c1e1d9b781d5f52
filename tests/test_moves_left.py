"""The moves-left head (``docs/moves-left.md``): its output and gradients against plain float64
algebra and finite differences, for both games' networks; the weights file with and without the
head (version 5 written, version 3 read), and older files loading as value-only networks."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from samuel.evaluation.networks import (
    has_moves_left,
    load_network,
    network_shape,
    random_network,
    save_network,
)
from samuel.games import get_game
from samuel.nn import network as N
from samuel.nn.shape import (
    PLAN,
    PLIES,
    Network,
    network_of,
    plies_head,
    value_head,
    with_plies_head,
    without_head,
)
from samuel.nn.weights import HEAD_RECORD, HEADERS, WeightsFileError, file_bytes, read_network
from samuel.players import SHIPPED_NETWORK
from tests import game_numbers
from tests.reference import dense_network as dense
from tests.test_nn import GAMES, inputs_of, plain_inputs, positions, set_inputs

NO_OUTCOMES = np.zeros(0, dtype=np.float32)
NO_POLICY = np.zeros(0, dtype=np.int64)
# The head's parameters: its own layer (64 x 32 weights, 32 biases), its output's (32 and 1).
MOVES_LEFT_PARAMS = 64 * 32 + 32 + 32 + 1


def head_shape(name: str) -> Network:
    return network_shape(get_game(name).number, moves_left=True)


def head_network(name: str, seed: int) -> np.ndarray:
    """A network with the head whose biases are not zero (so every path carries a gradient)."""
    rng = np.random.default_rng(seed)
    spans = dense.spans(head_shape(name))
    params = random_network(get_game(name).number, seed, moves_left=True)
    for bias in ("b1", "b2", "b4"):
        start, end = spans[bias]
        params[start:end] = rng.normal(0, 0.2, end - start)
    params[spans["b5"][0]] = 1.0
    return params


def heads_gradient(params, grad, active, values, n, target, plies, weight, scratch):
    """The value and unweighted plies losses, their gradient added to ``grad`` (the old
    ``add_gradient_heads``)."""
    losses = N.add_gradient(
        params, grad, active, values, n, target, plies, weight, NO_OUTCOMES, scratch, NO_POLICY
    )
    assert losses[2] == 0.0  # no outcome head
    return losses[:2]


def test_the_head_sits_after_the_value_network():
    value, head = Network(52), Network(52, heads=(value_head(), plies_head()))
    value_spans, head_spans = dense.spans(value), dense.spans(head)
    assert all(head_spans[name] == value_spans[name] for name in value_spans)  # w1 .. b3
    assert head.head_span(PLIES) == (value.size, head.size) == (head_spans["w4"][0], head.size)
    assert head.size == value.size + MOVES_LEFT_PARAMS
    assert not value.has(PLIES) and head.has(PLIES)
    for inputs in (52, 128):
        for shape in (Network(inputs), Network(inputs, heads=(value_head(), plies_head()))):
            assert network_of(shape.random(1)) == shape
    # an array one longer than its plan says is no network
    with pytest.raises(ValueError, match="plan or length is not its shape's"):
        network_of(np.append(value.random(1), np.float32(0)))
    # the value layers of a random network do not depend on whether it has the head
    with_head = head.random(5)
    assert np.array_equal(with_head[PLAN : value.size], value.random(5)[PLAN:])
    assert np.array_equal(without_head(with_head, PLIES), value.random(5))


@pytest.mark.parametrize("name", GAMES)
def test_plies_left_equals_the_plain_reference_and_leaves_the_value_alone(name):
    params = head_network(name, 3)
    scratch = np.zeros(head_shape(name).forward_scratch, dtype=np.float32)
    seen = []
    for position in positions(name, 60, seed=4):
        active, values, n = set_inputs(name, position)
        x = plain_inputs(name, position)
        value = N.forward(params, active, values, n, scratch)
        assert value == pytest.approx(dense.value(params, x), abs=2e-6)
        plies = N.plies_left(params, scratch)
        assert value == N.forward(without_head(params, PLIES), active, values, n, scratch)
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
    shape = head_shape(name)
    params = head_network(name, 7)
    spans = dense.spans(shape)
    start, end = spans[layer]
    n1 = shape.hidden[0]
    scratch = np.zeros(shape.training_scratch, dtype=np.float32)
    weight = 0.5
    for position in positions(name, 3, seed=8):
        target = float(rng.uniform(-1, 1))
        active, values, n = set_inputs(name, position)
        grad = np.zeros(shape.size, dtype=np.float32)
        value_loss, plies_loss = heads_gradient(
            params, grad, active, values, n, target, plies, weight, scratch
        )
        x = plain_inputs(name, position)
        assert value_loss + weight * plies_loss == pytest.approx(
            dense.heads_loss(params, x, target, plies, weight), rel=1e-4
        )
        indices = rng.choice(np.arange(start, end), size=min(40, end - start), replace=False)
        if layer == "w1":  # make sure rows of set inputs are among those checked
            rows = spans["w1"][0] + np.flatnonzero(x) * n1
            indices = np.concatenate([indices, rows + 3, rows[0] + np.arange(n1)])
        numeric = dense.finite_difference_heads_gradient(params, x, target, plies, weight, indices)
        np.testing.assert_allclose(grad[indices], numeric, rtol=3e-3, atol=3e-6)
        assert np.any(numeric != 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_without_a_plies_target_the_head_adds_nothing(name):
    """A sample with no plies target (NO_PLIES), or a weight of 0, trains the value exactly as
    the value-only gradient does, and leaves the head's parameters alone."""
    params = head_network(name, 9)
    value_params = without_head(params, PLIES).copy()
    scratch = np.zeros(head_shape(name).training_scratch, dtype=np.float32)
    for position in positions(name, 5, seed=10):
        active, values, n = set_inputs(name, position)
        plain_grad = np.zeros(len(value_params), dtype=np.float32)
        loss, _ = heads_gradient(
            value_params, plain_grad, active, values, n, 0.3, N.NO_PLIES, 0.0, scratch
        )
        for plies, weight in ((N.NO_PLIES, 0.1), (12.0, 0.0)):
            grad = np.zeros(len(params), dtype=np.float32)
            value_loss, plies_loss = heads_gradient(
                params, grad, active, values, n, 0.3, plies, weight, scratch
            )
            assert value_loss == loss and plies_loss == 0.0
            assert np.array_equal(grad[: len(value_params)], plain_grad)
            assert not np.any(grad[len(value_params) :])


def test_a_head_can_be_added_to_a_value_network():
    value = random_network(game_numbers.TIGERS, 1)
    params = with_plies_head(value, seed=2)
    assert has_moves_left(params, game_numbers.TIGERS)
    assert not has_moves_left(value, game_numbers.TIGERS)
    assert network_of(params) == network_shape(game_numbers.TIGERS, moves_left=True)
    assert np.array_equal(params[PLAN : len(value)], value[PLAN:])
    assert np.array_equal(without_head(params, PLIES), value)
    assert np.array_equal(with_plies_head(params, seed=3), params)  # already has one
    with pytest.raises(ValueError, match="not a network for Tigers & Sheep: .*plan or length"):
        has_moves_left(value[:-1], game_numbers.TIGERS)


@pytest.mark.parametrize("name", GAMES)
def test_files_round_trip_with_and_without_the_head(tmp_path, name):
    """Written as version 5 (the heads in the header: the value on layer 2, the plies head's own
    32 units on layer 1); the version 3 file of the same network loads as the same array."""
    game = get_game(name).number
    for moves_left in (False, True):
        params = random_network(game, 4, moves_left=moves_left)
        path = tmp_path / f"net-{moves_left}.bin"
        save_network(params, path, game)
        loaded = read_network(path)
        assert (loaded.game, loaded.inputs, loaded.network.has(PLIES)) == (
            game,
            inputs_of(name),
            moves_left,
        )
        assert loaded.network == network_shape(game, moves_left)
        assert np.array_equal(load_network(path, game), params)
        content = path.read_bytes()
        assert content[:8] == b"TSNN" + struct.pack("<I", 5)
        heads = 2 if moves_left else 1
        assert struct.unpack("<I", content[32:36])[0] == heads
        records = [HEAD_RECORD.unpack_from(content, 36 + 24 * i) for i in range(heads)]
        assert records == [(0, 1, 1, 0, 0, 0), (1, 1, 0, 1, 32, 0)][:heads]
        assert path.stat().st_size == 36 + 24 * heads + 4 * (len(params) - PLAN)
        assert path.stat().st_size == file_bytes(loaded.network)
        old = tmp_path / f"v3-{moves_left}.bin"
        fields = (game, inputs_of(name), 64, 32, 3 if moves_left else 1)
        old.write_bytes(HEADERS[3].pack(b"TSNN", 3, *fields) + content[36 + 24 * heads :])
        assert np.array_equal(load_network(old, game), params)


def test_older_files_load_as_value_only_networks(tmp_path):
    shipped = load_network(SHIPPED_NETWORK, game_numbers.TIGERS)  # a version 1 file
    assert not has_moves_left(shipped, game_numbers.TIGERS)
    seed_params = read_network(SHIPPED_NETWORK).array[PLAN:]  # the seed's 52 inputs
    path = tmp_path / "v2.bin"
    path.write_bytes(
        struct.pack("<4s5I", b"TSNN", 2, 0, 52, 64, 32) + seed_params.astype("<f4").tobytes()
    )
    loaded = read_network(path)
    assert loaded.network == Network(52) and np.array_equal(loaded.array[PLAN:], seed_params)
    assert np.array_equal(load_network(path, game_numbers.TIGERS), shipped)


@pytest.mark.parametrize(
    ("heads", "extra", "phrase"),
    [
        (0, 0, "heads 0x0; version 3 knows the value"),
        (2, MOVES_LEFT_PARAMS, "heads 0x2"),  # plies left without the value
        (7, MOVES_LEFT_PARAMS, "heads 0x7"),
        (3, 0, r"a network 52-64-32: value, plies \(32 on layer 1\) takes"),  # too short
        (1, MOVES_LEFT_PARAMS, "bytes; a network 52-64-32: value takes"),  # an undeclared head
    ],
)
def test_a_header_whose_heads_do_not_fit_is_refused(tmp_path, heads, extra, phrase):
    path = tmp_path / "bad.bin"
    count = Network(52).parameter_count + extra
    path.write_bytes(struct.pack("<4s6I", b"TSNN", 3, 0, 52, 64, 32, heads) + bytes(4 * count))
    with pytest.raises(WeightsFileError, match=phrase):
        load_network(path, game_numbers.TIGERS)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_batch_gradient_with_the_head_is_the_sum_over_samples(name):
    from samuel.nn.batches import batch_gradient, batch_plies_error

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
    outcomes = np.zeros((70, 0), dtype=np.float32)
    value_loss, plies_loss, outcome_loss = batch_gradient(
        params, active, values, counts, targets, plies, np.float32(0.1), outcomes, grad
    )
    assert outcome_loss == 0.0
    one = np.zeros(len(params), dtype=np.float32)
    scratch = np.zeros(head_shape(name).training_scratch, dtype=np.float32)
    expected = np.zeros(2)
    errors = []
    for i in range(70):
        expected += heads_gradient(
            params, one, active[i], values[i], counts[i], targets[i], plies[i], 0.1, scratch
        )
        if plies[i] >= 0:
            errors.append(abs(N.plies_left(params, scratch) - plies[i]))
    np.testing.assert_allclose(grad, one, rtol=1e-4, atol=1e-6)
    assert (value_loss, plies_loss) == pytest.approx(tuple(expected), rel=1e-9)
    total, count = batch_plies_error(params, active, values, counts, plies)
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
    params = with_plies_head(value, seed=20)
    before = plies_error(game, params, samples)
    adam = Adam(len(params))
    rng = np.random.default_rng(21)
    for _ in range(5):
        train_epoch(game, params, adam, samples, 32, 1e-2, rng, heads_only=True)
    assert np.array_equal(params[PLAN : len(value)], value[PLAN:])
    assert plies_error(game, params, samples) < before
