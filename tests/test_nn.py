"""The network's kernels against textbook algebra, its gradients against finite differences,
Adam against its formula, and the weights file."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from samuel.nn import network as N
from samuel.nn.batches import adam_step, batch_gradient, batch_loss
from samuel.nn.weights import WeightsFileError, load_parameters, save_parameters
from tests.reference import dense_network as dense


def random_positions(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        points = rng.permutation(25)
        tigers = sum(1 << int(p) for p in points[:4])
        sheep = sum(1 << int(p) for p in points[4 : 4 + int(rng.integers(0, 21))])
        yield tigers, sheep, int(rng.integers(0, 21 - sheep.bit_count())), int(rng.integers(2))


def test_sparse_forward_equals_a_plain_matrix_multiply():
    params = N.random_parameters(3)
    params[N.B1 : N.W2] = np.random.default_rng(4).normal(0, 0.3, N.HIDDEN1)  # non-zero biases
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    for tigers, sheep, hand, side in random_positions(200, seed=5):
        expected = dense.value(params, N.encode_inputs(tigers, sheep, hand, side))
        assert N.forward(params, tigers, sheep, hand, side, scratch) == pytest.approx(
            expected, abs=2e-6
        )


@pytest.mark.parametrize("layer", ["W1", "B1", "W2", "B2", "W3", "B3"])
def test_every_layers_gradient_equals_finite_differences(layer):
    rng = np.random.default_rng(6)
    params = N.random_parameters(7)
    params[N.B1 : N.W2] = rng.normal(0, 0.2, N.HIDDEN1)
    params[N.B2 : N.W3] = rng.normal(0, 0.2, N.HIDDEN2)
    start = getattr(N, layer)
    end = {"W1": N.B1, "B1": N.W2, "W2": N.B2, "B2": N.W3, "W3": N.B3, "B3": N.PARAMS}[layer]
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    for tigers, sheep, hand, side in random_positions(4, seed=8):
        target = float(rng.uniform(-1, 1))
        grad = np.zeros(N.PARAMS, dtype=np.float32)
        N.add_gradient(params, grad, tigers, sheep, hand, side, target, scratch)
        inputs = N.encode_inputs(tigers, sheep, hand, side)
        indices = rng.choice(np.arange(start, end), size=min(40, end - start), replace=False)
        if layer == "W1":  # make sure rows of set inputs are among those checked
            active = np.flatnonzero(inputs)
            indices = np.concatenate([indices, N.W1 + active * N.HIDDEN1 + 3])
        numeric = dense.finite_difference_gradient(params, inputs, target, indices)
        np.testing.assert_allclose(grad[indices], numeric, rtol=2e-3, atol=2e-6)
        assert np.any(numeric != 0)


def test_batch_gradient_and_loss_are_sums_over_samples():
    params = N.random_parameters(9)
    positions = list(random_positions(100, seed=10))
    columns = zip(*positions, strict=True)
    tigers, sheep, hand, side = (np.array(column, dtype=np.int64) for column in columns)
    targets = np.random.default_rng(11).uniform(-1, 1, 100).astype(np.float32)
    grad = np.zeros(N.PARAMS, dtype=np.float32)
    loss = batch_gradient(params, tigers, sheep, hand, side, targets, grad)
    one = np.zeros(N.PARAMS, dtype=np.float32)
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    expected_loss = 0.0
    for i in range(100):
        expected_loss += N.add_gradient(
            params, one, tigers[i], sheep[i], hand[i], side[i], targets[i], scratch
        )
    np.testing.assert_allclose(grad, one, rtol=1e-4, atol=1e-6)
    assert loss == pytest.approx(expected_loss, rel=1e-9)
    assert batch_loss(params, tigers, sheep, hand, side, targets) == pytest.approx(loss, rel=1e-5)


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


def test_he_initialisation():
    params = N.random_parameters(0x5EED)
    assert params.dtype == np.float32 and params.shape == (N.PARAMS,) and N.PARAMS == 5505
    assert (
        np.all(params[N.B1 : N.W2] == 0) and np.all(params[N.B2 : N.W3] == 0) and params[N.B3] == 0
    )
    assert np.std(params[N.W1 : N.B1]) == pytest.approx(np.sqrt(2 / 20), rel=0.05)
    assert np.std(params[N.W2 : N.B2]) == pytest.approx(np.sqrt(2 / 64), rel=0.05)
    assert np.array_equal(N.random_parameters(0x5EED), params)


def test_save_and_load_round_trip(tmp_path):
    params = N.random_parameters(1)
    path = tmp_path / "net.bin"
    save_parameters(params, path)
    assert np.array_equal(load_parameters(path), params)
    assert path.stat().st_size == 20 + 4 * N.PARAMS
    assert path.read_bytes()[:4] == b"TSNN"
    assert [p.name for p in tmp_path.iterdir()] == ["net.bin"]


def header(magic=b"TSNN", version=1, sizes=(52, 64, 32)) -> bytes:
    return struct.pack("<4s4I", magic, version, *sizes)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"TSN", "too short"),
        (header(magic=b"ABCD") + bytes(4 * N.PARAMS), "does not start with TSNN"),
        (header(version=2) + bytes(4 * N.PARAMS), "version 2"),
        (header(sizes=(52, 128, 32)) + bytes(4 * N.PARAMS), "has layers 52-128-32"),
        (header() + bytes(4 * N.PARAMS - 4), "bytes; a 52-64-32 network takes"),
        (header() + bytes(4 * N.PARAMS + 4), "bytes; a 52-64-32 network takes"),
        (header() + np.full(N.PARAMS, np.nan, "<f4").tobytes(), "not finite"),
    ],
)
def test_each_kind_of_bad_file_is_rejected(tmp_path, content, phrase):
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    with pytest.raises(WeightsFileError, match=phrase):
        load_parameters(path)


def test_a_missing_file_is_rejected(tmp_path):
    with pytest.raises(WeightsFileError, match="does not exist"):
        load_parameters(tmp_path / "nothing.bin")
