"""The network's kernels against textbook algebra, its gradients against finite differences (for
both games' input sizes), the games' encoders against plain references, Adam against its
formula, and the weights file (versions 1, 2 and 3, and a file for the wrong game; the moves-left
head's own tests are in test_moves_left.py)."""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from samuel.games import get_game
from samuel.games import kernels as K
from samuel.games.networks import load_network, random_network, save_network
from samuel.nn import network as N
from samuel.nn.batches import adam_step, batch_gradient, batch_loss
from samuel.nn.weights import WeightsFileError, read_network, save_parameters
from samuel.players import SHIPPED_NETWORK
from tests import game_numbers
from tests.reference import dense_network as dense
from tests.reference import network_inputs as plain

GAMES = ("tigers", "draughts")


def positions(name: str, count: int, seed: int) -> list:
    """Positions reached by random play (draughts games run long enough to crown kings)."""
    rules = get_game(name)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = rules.initial_position()
        for _ in range(rng.randrange(0, 150)):
            if rules.decided_outcome(position) is not None:
                break
            position = rules.play(position, rng.choice(rules.legal_moves(position)))
        found.append(position)
    return found


def set_inputs(name: str, position) -> tuple[np.ndarray, np.ndarray, int]:
    rules = get_game(name)
    active = np.zeros(K.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(K.MAX_SET_INPUTS, dtype=np.float32)
    n = K.network_inputs(rules.number, rules.encode(position), active, values)
    return active, values, n


def plain_inputs(name: str, position) -> np.ndarray:
    if name == "tigers":
        p = position
        return plain.tigers_inputs(p.tigers, p.sheep, p.sheep_in_hand, p.tiger_to_move)
    return plain.draughts_inputs(
        position.black, position.white, position.kings, position.black_to_move
    )


def inputs_of(name: str) -> int:
    return K.compiled_game(get_game(name).number).network_inputs


@pytest.mark.parametrize("name", GAMES)
def test_the_encoder_lists_the_plain_references_set_inputs(name):
    sizes = K.compiled_game(get_game(name).number)
    kings = 0
    for position in positions(name, 150, seed=1):
        active, values, n = set_inputs(name, position)
        assert n <= sizes.most_set_inputs
        assert list(active[:n]) == sorted(set(active[:n]))  # increasing, no input twice
        dense_inputs = N.dense_inputs(sizes.network_inputs, active, values, n)
        np.testing.assert_array_equal(dense_inputs, plain_inputs(name, position))
        kings += name == "draughts" and position.kings != 0
    assert name == "tigers" or kings > 10  # kings were encoded too


@pytest.mark.parametrize("name", GAMES)
def test_sparse_forward_equals_a_plain_matrix_multiply(name):
    inputs = inputs_of(name)
    shape = N.layout(inputs)
    params = N.random_parameters(inputs, 3)
    params[shape.b1 : shape.w2] = np.random.default_rng(4).normal(0, 0.3, N.HIDDEN1)
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    for position in positions(name, 100, seed=5):
        active, values, n = set_inputs(name, position)
        expected = dense.value(params, plain_inputs(name, position))
        assert N.forward(params, inputs, active, values, n, scratch) == pytest.approx(
            expected, abs=2e-6
        )


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("layer", ["w1", "b1", "w2", "b2", "w3", "b3"])
def test_every_layers_gradient_equals_finite_differences(name, layer):
    rng = np.random.default_rng(6)
    inputs = inputs_of(name)
    shape = N.layout(inputs)
    params = N.random_parameters(inputs, 7)
    params[shape.b1 : shape.w2] = rng.normal(0, 0.2, N.HIDDEN1)
    params[shape.b2 : shape.w3] = rng.normal(0, 0.2, N.HIDDEN2)
    order = ["w1", "b1", "w2", "b2", "w3", "b3", "params"]
    start = getattr(shape, layer)
    end = getattr(shape, order[order.index(layer) + 1])
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    for position in positions(name, 4, seed=8):
        target = float(rng.uniform(-1, 1))
        active, values, n = set_inputs(name, position)
        grad = np.zeros(shape.params, dtype=np.float32)
        N.add_gradient(params, grad, inputs, active, values, n, target, scratch)
        x = plain_inputs(name, position)
        indices = rng.choice(np.arange(start, end), size=min(40, end - start), replace=False)
        if layer == "w1":  # make sure rows of set inputs are among those checked
            rows = shape.w1 + np.flatnonzero(x) * N.HIDDEN1
            first_row = rows[0] + np.arange(N.HIDDEN1)  # every unit of one set input's row
            indices = np.concatenate([indices, rows + 3, first_row])
        numeric = dense.finite_difference_gradient(params, x, target, indices)
        np.testing.assert_allclose(grad[indices], numeric, rtol=2e-3, atol=2e-6)
        assert np.any(numeric != 0)


@pytest.mark.parametrize("name", GAMES)
def test_batch_gradient_and_loss_are_sums_over_samples(name):
    inputs = inputs_of(name)
    params = N.random_parameters(inputs, 9)
    rows = [set_inputs(name, p) for p in positions(name, 100, seed=10)]
    active = np.stack([r[0] for r in rows])
    values = np.stack([r[1] for r in rows])
    counts = np.array([r[2] for r in rows], dtype=np.int64)
    targets = np.random.default_rng(11).uniform(-1, 1, 100).astype(np.float32)
    grad = np.zeros(len(params), dtype=np.float32)
    loss = batch_gradient(params, inputs, active, values, counts, targets, grad)
    one = np.zeros(len(params), dtype=np.float32)
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    expected_loss = 0.0
    for i in range(100):
        expected_loss += N.add_gradient(
            params, one, inputs, active[i], values[i], counts[i], targets[i], scratch
        )
    np.testing.assert_allclose(grad, one, rtol=1e-4, atol=1e-6)
    assert loss == pytest.approx(expected_loss, rel=1e-9)
    assert batch_loss(params, inputs, active, values, counts, targets) == pytest.approx(
        loss, rel=1e-5
    )


def test_adam_follows_its_formula():
    rng = np.random.default_rng(12)
    params = rng.normal(size=20).astype(np.float32)
    expected = params.astype(np.float64)
    m = np.zeros(20, np.float32)
    v = np.zeros(20, np.float32)
    m64, v64 = np.zeros(20), np.zeros(20)
    for step in range(1, 4):
        grad = rng.normal(size=20).astype(np.float32)
        adam_step(params, grad, m, v, step, 1e-2, 0.9, 0.999, 1e-8, np.float32(0.5))
        g = grad.astype(np.float64) * 0.5
        m64 = 0.9 * m64 + 0.1 * g
        v64 = 0.999 * v64 + 0.001 * g * g
        expected -= 1e-2 * (m64 / (1 - 0.9**step)) / (np.sqrt(v64 / (1 - 0.999**step)) + 1e-8)
    np.testing.assert_allclose(params, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("inputs", "count"), [(52, 5505), (128, 10369)])
def test_he_initialisation(inputs, count):
    params = N.random_parameters(inputs, 0x5EED)
    shape = N.layout(inputs)
    assert params.dtype == np.float32 and params.shape == (count,) == (shape.params,)
    assert N.input_count(count) == inputs and N.parameter_count(inputs) == count
    assert (
        np.all(params[shape.b1 : shape.w2] == 0)
        and np.all(params[shape.b2 : shape.w3] == 0)
        and params[shape.b3] == 0
    )
    assert np.std(params[shape.w1 : shape.b1]) == pytest.approx(np.sqrt(2 / 20), rel=0.05)
    assert np.std(params[shape.w2 : shape.b2]) == pytest.approx(np.sqrt(2 / 64), rel=0.05)
    assert np.array_equal(N.random_parameters(inputs, 0x5EED), params)


@pytest.mark.parametrize("name", GAMES)
def test_save_and_load_round_trip_records_the_game(tmp_path, name):
    game = get_game(name).number
    params = random_network(game, 1)
    path = tmp_path / "net.bin"
    save_network(params, path, game)
    assert np.array_equal(load_network(path, game), params)
    loaded = read_network(path)
    assert (loaded.game, loaded.inputs) == (game, inputs_of(name))
    assert path.stat().st_size == 28 + 4 * len(params)
    assert path.read_bytes()[:12] == b"TSNN" + struct.pack("<2I", 3, game)
    assert loaded.moves_left is False and path.read_bytes()[24:28] == struct.pack("<I", 1)
    assert [p.name for p in tmp_path.iterdir()] == ["net.bin"]


def test_version_1_files_load_as_tigers_and_sheep(tmp_path):
    assert SHIPPED_NETWORK.read_bytes()[:8] == b"TSNN" + struct.pack("<I", 1)  # the shipped one
    shipped = load_network(SHIPPED_NETWORK, game_numbers.TIGERS)
    raw = read_network(SHIPPED_NETWORK)
    assert (raw.game, raw.inputs) == (game_numbers.TIGERS, 52)  # the seed's inputs, widened
    assert np.array_equal(shipped, N.widen(raw.params, 52, inputs_of("tigers")))
    path = tmp_path / "old.bin"
    path.write_bytes(header() + raw.params.astype("<f4").tobytes())
    assert np.array_equal(load_network(path, game_numbers.TIGERS), shipped)
    # a variant of Tigers & Sheep takes the same networks
    assert np.array_equal(load_network(path, game_numbers.tigers_and_sheep(4)), shipped)
    with pytest.raises(
        WeightsFileError, match="a network for Tigers & Sheep, not English draughts"
    ):
        load_network(path, game_numbers.DRAUGHTS)


def test_a_network_of_the_seeds_inputs_plays_the_same_widened(tmp_path):
    """A Tigers & Sheep file of the seed's 52 inputs loads as the present network with no weight
    on the feature inputs: on every position its value is the 52-input network's, whatever the
    features are, with the moves-left head too."""
    seed_inputs = 52
    small = N.random_parameters(seed_inputs, 3, moves_left=True)
    path = tmp_path / "seed.bin"
    save_parameters(small, path, game_numbers.TIGERS)
    wide = load_network(path, game_numbers.TIGERS)
    shape = N.layout(inputs_of("tigers"), moves_left=True)
    assert len(wide) == shape.params and not np.any(wide[seed_inputs * N.HIDDEN1 : shape.b1])
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    features = 0
    for position in positions("tigers", 60, seed=4):
        x = plain_inputs("tigers", position)
        features += np.count_nonzero(x[seed_inputs:])
        active, values, n = set_inputs("tigers", position)
        got = N.forward(wide, shape.inputs, active, values, n, scratch)
        plies = N.plies_left(wide, shape.inputs, scratch)
        seed_set = active[:n] < seed_inputs
        want = N.forward(
            small, seed_inputs, active[:n][seed_set], values[:n][seed_set], seed_set.sum(), scratch
        )
        assert got == want and plies == N.plies_left(small, seed_inputs, scratch)
    assert features > 60  # the positions set feature inputs, which weigh nothing
    with pytest.raises(ValueError, match="cannot widen a network of 58 inputs to 52"):
        N.widen(wide, 58, 52)


def test_a_network_for_another_game_is_refused_naming_both(tmp_path):
    path = tmp_path / "x.bin"
    save_network(random_network(game_numbers.DRAUGHTS, 1), path, game_numbers.DRAUGHTS)
    with pytest.raises(
        WeightsFileError, match=r"x.bin is a network for English draughts, not Tigers"
    ):
        load_network(path, game_numbers.TIGERS)
    # a game this program lacks, and a header whose inputs are not its game's
    save_parameters(N.random_parameters(52, 1), path, 77)
    with pytest.raises(WeightsFileError, match="game number 77, which this program lacks"):
        load_network(path, game_numbers.TIGERS)
    save_parameters(N.random_parameters(52, 1), path, game_numbers.DRAUGHTS)
    with pytest.raises(WeightsFileError, match="has 52 inputs; English draughts's network has 128"):
        load_network(path, game_numbers.DRAUGHTS)
    with pytest.raises(
        ValueError,
        match=r"network has 10369 parameters \(12482 with the moves-left head\), not \(5505,\)",
    ):
        save_network(N.random_parameters(52, 1), path, game_numbers.DRAUGHTS)


def header(magic=b"TSNN", version=1, sizes=(52, 64, 32), game=None) -> bytes:
    if game is None:
        return struct.pack("<4s4I", magic, version, *sizes)
    return struct.pack("<4s5I", magic, version, game, *sizes)


PARAMS = N.parameter_count(52)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"TSN", "too short"),
        (b"TSNN\x02\x00\x00\x00\x00\x00", "too short"),
        (header(magic=b"ABCD") + bytes(4 * PARAMS), "does not start with TSNN"),
        (header(version=5) + bytes(4 * PARAMS), "version 5; this program reads versions 1, 2, 3"),
        (header(sizes=(52, 128, 32)) + bytes(4 * PARAMS), "has layers 52-128-32"),
        (header(sizes=(0, 64, 32)), "has layers 0-64-32"),
        (header(sizes=(1 << 31, 64, 32)), "has layers 2147483648-64-32"),
        (header() + bytes(4 * PARAMS - 4), "bytes; a 52-64-32 network takes"),
        (header() + bytes(4 * PARAMS + 4), "bytes; a 52-64-32 network takes"),
        (header(version=2, game=0) + bytes(4 * PARAMS - 4), "bytes; a 52-64-32 network takes"),
        (header() + np.full(PARAMS, np.nan, "<f4").tobytes(), "not finite"),
        (header(version=2, game=0) + np.full(PARAMS, np.inf, "<f4").tobytes(), "not finite"),
    ],
)
def test_each_kind_of_bad_file_is_rejected(tmp_path, content, phrase):
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    with pytest.raises(WeightsFileError, match=phrase):
        load_network(path, game_numbers.TIGERS)


def test_a_missing_file_is_rejected(tmp_path):
    with pytest.raises(WeightsFileError, match="does not exist"):
        load_network(tmp_path / "nothing.bin", game_numbers.TIGERS)
