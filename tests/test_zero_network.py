"""Samuel Zero's network (samuel.nn.zero) against its float64 reference: the forward pass, the
softmax over the legal moves, every parameter's gradient against central finite differences
(both games, a sample with one legal move, one without a plies target, one without a policy
target), the kernels' refusals, and the weights file (version 5, the older version 4 still
read) with its refusals."""

from __future__ import annotations

import re
import struct

import numba
import numpy as np
import pytest

from samuel.evaluation.networks import (
    load_network,
    load_zero_network,
    random_network,
    random_zero_network,
    save_network,
    save_zero_network,
)
from samuel.games import actions as A
from samuel.games import kernels as K
from samuel.nn import network as N
from samuel.nn import zero as Z
from samuel.nn.batches import zero_batch_gradient
from samuel.nn.shape import (
    PLAN,
    PLIES,
    POLICY,
    VALUE,
    Network,
    plies_head,
    value_head,
    without_head,
)
from samuel.nn.weights import WeightsFileError, read_network, save_network_array
from tests import game_numbers
from tests.reference import dense_network as dense
from tests.reference import zero_network as reference
from tests.test_actions import GAMES, random_states

WEIGHTS = Z.LossWeights(policy=0.7, value=1.3, plies=0.5)  # not 1, so the weighting is seen


def sample(game: int, state: np.ndarray):
    """The set inputs of a position and its legal moves' distinct actions."""
    active = np.zeros(K.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(K.MAX_SET_INPUTS, dtype=np.float32)
    count = K.zero_network_inputs(game, state, active, values)
    _, actions = A.legal_actions(game, state)
    legal = np.array(sorted(set(actions.tolist())), dtype=np.int64)
    return active, values, count, legal


def shape_of(game: int):
    return Z.zero_shape(K.compiled_game(game).zero_inputs, A.action_count(game))


def gradient(params, game, active, values, count, legal, target, z, plies, weights=WEIGHTS):
    grad = np.zeros_like(params)
    logits = np.zeros(len(legal), dtype=np.float32)
    scratch = np.zeros(shape_of(game).training_scratch, dtype=np.float32)
    losses = Z.zero_add_gradient(
        params, grad, active, values, count, legal, len(legal), target,
        z, plies, weights.policy, weights.value, weights.plies, logits, scratch,
    )  # fmt: skip
    return grad, losses


def chosen_samples(name: str):
    """Three positions of random games and one with a single legal move, with targets: the
    second has no policy target, the third no plies target."""
    game = GAMES[name]
    states = random_states(name, 30, seed=5)
    rng = np.random.default_rng(11)
    picks = [states[i] for i in rng.choice(len(states), 3, replace=False)]
    picks += [s for s in states if len(sample(game, s)[3]) == 1][:1]
    found = []
    for n, state in enumerate(picks):
        active, values, count, legal = sample(game, state)
        target = rng.dirichlet(np.ones(len(legal))).astype(np.float32)
        if n == 1:
            target[:] = 0  # no policy target: the value and plies only
        plies = N.NO_PLIES if n == 2 else float(rng.integers(1, 120))
        found.append((active, values, count, legal, target, float(rng.uniform(-1, 1)), plies))
    return found


@pytest.mark.parametrize("name", GAMES)
def test_forward_and_softmax_equal_the_reference(name):
    game = GAMES[name]
    inputs, actions = K.compiled_game(game).zero_inputs, A.action_count(game)
    params = random_zero_network(game, 3)
    bp = Z.zero_shape(inputs, actions).head_layers(POLICY)[-1][1]
    assert len(params) == bp + actions  # the policy's biases end the array
    params[bp:] = np.random.default_rng(0).normal(0, 1, actions)
    scratch = np.zeros(Z.forward_scratch(params), dtype=np.float32)
    for state in random_states(name, 2, seed=9)[::7]:
        active, values, count, legal = sample(game, state)
        logits = np.zeros(len(legal), dtype=np.float32)
        value, plies = Z.zero_forward(
            params, active, values, count, legal, len(legal), logits, scratch
        )
        x = N.dense_inputs(inputs, active, values, count)
        want_value, want_plies, want_logits = reference.outputs(params, x, actions, legal)
        assert value == pytest.approx(want_value, abs=1e-5)
        assert plies == pytest.approx(want_plies, rel=1e-5)
        assert np.allclose(logits, want_logits, atol=1e-5)
        # the value network's kernels read a Zero network's trunk as it is
        assert N.forward(params, active, values, count, scratch) == value
        priors = np.zeros(len(legal), dtype=np.float32)
        Z.softmax(logits, len(legal), priors)
        assert priors.sum() == pytest.approx(1.0, abs=1e-6)
        assert np.allclose(priors, reference.priors(want_logits), atol=1e-6)
        assert np.argmax(priors) == np.argmax(want_logits)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_every_parameters_gradient_equals_finite_differences(name):
    game = GAMES[name]
    inputs, actions = K.compiled_game(game).zero_inputs, A.action_count(game)
    shape = Z.zero_shape(inputs, actions)
    (w1, b1, _, _, n1), (w2, b2, _, _, _) = shape.layers()
    ((wp, bp, _, width, _),) = shape.head_layers(POLICY)
    params = random_zero_network(game, 21)
    # Larger policy weights than the start's, so the policy's gradients are not all tiny.
    params[wp:] = np.random.default_rng(2).normal(0, 0.3, shape.size - wp)
    samples = chosen_samples(name)
    assert len(samples) == 4 and len(samples[-1][3]) == 1
    for active, values, count, legal, target, z, plies in samples:
        grad, losses = gradient(params, game, active, values, count, legal, target, z, plies)
        x = N.dense_inputs(inputs, active, values, count)

        def loss_of(p, x=x, legal=legal, target=target, z=z, plies=plies):
            return reference.loss(p, x, actions, legal, target, z, plies, WEIGHTS)[0]

        _, parts = reference.loss(params.astype(np.float64), x, actions, legal, target, z, plies,
                                  WEIGHTS)  # fmt: skip
        assert np.allclose(losses, parts, rtol=1e-4, atol=1e-6)
        # Every parameter the loss reads: layer 1's rows of the set inputs, everything after
        # layer 1 in the trunk, and the policy's rows and biases of the legal actions. The rest
        # (the plan's entries too) cannot change the loss, and their gradient must be exactly 0.
        rows = np.concatenate([np.arange(w1 + a * n1, w1 + a * n1 + n1) for a in active[:count]])
        policy_rows = np.concatenate(
            [np.arange(wp + a * width, wp + a * width + width) for a in legal]
        )
        read = np.concatenate([rows, np.arange(b1, wp), policy_rows, bp + legal])
        unread = np.setdiff1d(np.arange(shape.size), read)
        assert np.all(grad[unread] == 0)
        numeric = dense.central_differences(loss_of, params, read)
        scale = max(1.0, np.max(np.abs(numeric)))
        worst = np.max(np.abs(grad[read] - numeric))
        assert np.allclose(grad[read], numeric, rtol=1e-3, atol=2e-4 * scale), worst
        assert np.any(grad[rows] != 0) and np.any(grad[w2:b2] != 0)
        if len(legal) == 1 or not target.any():  # one move, or no target: no policy gradient
            assert losses[0] == pytest.approx(0.0, abs=1e-6)
            assert np.all(grad[policy_rows] == 0) and np.all(grad[bp + legal] == 0)
        else:
            assert np.any(grad[policy_rows] != 0)
        plies_part = grad[slice(*shape.head_span(PLIES))]
        assert np.any(plies_part != 0) == (plies >= 0)


@pytest.mark.slow
def test_the_loss_weights_scale_each_part():
    game = game_numbers.TIGERS
    params = random_zero_network(game, 4)
    active, values, count, legal, target, z, plies = chosen_samples("tigers")[0]
    shape = Z.zero_shape(52, 650)
    bp = shape.head_layers(POLICY)[-1][1]
    one, _ = gradient(params, game, active, values, count, legal, target, z, plies,
                      Z.LossWeights(1, 0, 0))  # fmt: skip
    two, _ = gradient(params, game, active, values, count, legal, target, z, plies,
                      Z.LossWeights(2, 0, 0))  # fmt: skip
    assert np.allclose(two, 2 * one, rtol=1e-5, atol=1e-7) and np.any(one[bp:] != 0)
    assert np.all(one[slice(*shape.head_span(VALUE))] == 0)  # no value, no plies
    assert np.all(one[slice(*shape.head_span(PLIES))] == 0)
    with pytest.raises(ValueError, match="policy loss weight"):
        Z.LossWeights(policy=-1)


def test_kernels_refuse_arrays_that_do_not_fit():
    game = game_numbers.DRAUGHTS
    params = random_zero_network(game, 1)
    shape = shape_of(game)
    active, values, count, legal, target, z, plies = chosen_samples("draughts")[0]
    scratch = np.zeros(shape.training_scratch, dtype=np.float32)
    logits = np.zeros(len(legal), dtype=np.float32)

    def run(params=params, legal=legal, legal_count=None, count=count, scratch=scratch):
        legal_count = len(legal) if legal_count is None else legal_count
        return Z.zero_forward(params, active, values, count, legal, legal_count, logits, scratch)

    def train(grad=None, scratch=scratch, active=active):
        grad = np.zeros_like(params) if grad is None else grad
        return Z.zero_add_gradient(
            params, grad, active, values, count, legal, len(legal), target, z, plies,
            1.0, 1.0, 0.1, logits, scratch,
        )  # fmt: skip

    run()
    train()
    with pytest.raises(ValueError, match="beyond the network's actions"):
        run(legal=np.array([128], dtype=np.int64), legal_count=1)
    with pytest.raises(ValueError, match="more legal moves than"):
        run(legal_count=len(legal) + 1)
    # an array whose length is not its plan's, and a network without a policy
    with pytest.raises(ValueError, match="not a network"):
        run(params=params[:-1])
    with pytest.raises(ValueError, match="not a network"):
        run(params=np.concatenate([params, np.zeros(1, np.float32)]))
    with pytest.raises(ValueError, match="no policy: it is no Zero network"):
        run(params=random_network(game, 1, True))
    with pytest.raises(ValueError, match="more set inputs"):
        run(count=K.MAX_SET_INPUTS + 1)
    with pytest.raises(ValueError, match="set input beyond the network's inputs"):
        train(active=np.full_like(active, shape.inputs))
    # a forward pass's scratch, but not one less; a backward pass's, twice that
    run(scratch=scratch[: shape.forward_scratch])
    with pytest.raises(ValueError, match="too little scratch"):
        run(scratch=scratch[: shape.forward_scratch - 1])
    with pytest.raises(ValueError, match="too little scratch"):
        train(scratch=scratch[: shape.training_scratch - 1])
    with pytest.raises(ValueError, match="gradient or the policy target"):
        train(grad=np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="gradient or the policy target"):
        train(grad=np.zeros(len(params) - 1, np.float32))


def test_random_zero_network_starts_with_the_value_network():
    params = random_zero_network(game_numbers.TIGERS, 7)
    shape = Z.zero_shape(52, 650)
    assert len(params) == shape.size == PLAN + 29068 and shape.parameter_count == 29068
    ((wp, bp, _, _, _),) = shape.head_layers(POLICY)
    value_network = Network(52, heads=(value_head(), plies_head())).random(7)
    assert np.array_equal(params[PLAN:wp], value_network[PLAN:])
    assert np.array_equal(without_head(params, POLICY), value_network)
    assert np.all(params[bp:] == 0)
    assert np.std(params[wp:bp]) == pytest.approx(0.1 * np.sqrt(2 / 32), rel=0.05)
    assert np.array_equal(random_zero_network(game_numbers.TIGERS, 7), params)
    assert not np.array_equal(random_zero_network(game_numbers.TIGERS, 8), params)


@pytest.mark.parametrize("name", GAMES)
def test_save_and_load_round_trip(tmp_path, name):
    game = GAMES[name]
    params = random_zero_network(game, 2)
    path = tmp_path / "zero.bin"
    save_zero_network(params, path, game)
    assert np.array_equal(load_zero_network(path, game), params)
    loaded = read_network(path)
    shape = loaded.network
    assert (loaded.game, shape.actions, shape.has(PLIES)) == (game, A.action_count(game), True)
    assert np.array_equal(loaded.array, params)
    # version 5: the shape, then each head's kind, outputs, source, own layers and their widths
    head = struct.pack("<4s8I", b"TSNN", 5, game, loaded.inputs, 2, 64, 32, 0, 3)
    head += struct.pack("<6I", VALUE, 1, 1, 0, 0, 0) + struct.pack("<6I", PLIES, 1, 0, 1, 32, 0)
    head += struct.pack("<6I", POLICY, A.action_count(game), 1, 0, 0, 0)
    assert path.read_bytes()[: len(head)] == head
    assert path.stat().st_size == len(head) + 4 * (len(params) - PLAN)
    assert [p.name for p in tmp_path.iterdir()] == ["zero.bin"]


def test_a_file_of_another_game_or_kind_is_refused(tmp_path):
    path = tmp_path / "z.bin"
    save_zero_network(random_zero_network(game_numbers.DRAUGHTS, 1), path, game_numbers.DRAUGHTS)
    with pytest.raises(WeightsFileError, match="z.bin is a network for English draughts, not Tig"):
        load_zero_network(path, game_numbers.TIGERS)
    with pytest.raises(WeightsFileError, match="is a Samuel Zero network .*, not a value network"):
        load_network(path, game_numbers.DRAUGHTS)
    value = tmp_path / "v.bin"
    save_network(random_network(game_numbers.DRAUGHTS, 1, True), value, game_numbers.DRAUGHTS)
    with pytest.raises(WeightsFileError, match="value network without a policy"):
        load_zero_network(value, game_numbers.DRAUGHTS)
    # Tigers' inputs with a policy over draughts' 128 actions
    save_network_array(Z.random_zero_network(52, 128, 1), path, game_numbers.TIGERS)
    with pytest.raises(WeightsFileError, match="policy of 128 actions; Tigers & Sheep has 650"):
        load_zero_network(path, game_numbers.TIGERS)
    with pytest.raises(ValueError, match="Zero network has 52 inputs, .* 650 actions, not 128-"):
        save_zero_network(random_zero_network(game_numbers.DRAUGHTS, 1), path, game_numbers.TIGERS)


def zero_file(tmp_path, heads=7, actions=650, params=None, extra=b""):
    if params is None:
        params = random_zero_network(game_numbers.TIGERS, 1)
    path = tmp_path / "bad.bin"
    head = struct.pack("<4s7I", b"TSNN", 4, 0, 52, 64, 32, heads, actions)
    path.write_bytes(head + params[PLAN:].astype("<f4").tobytes() + extra)
    return path


def test_corrupt_zero_files_are_refused(tmp_path):
    good = random_zero_network(game_numbers.TIGERS, 1)
    assert np.array_equal(load_zero_network(zero_file(tmp_path), game_numbers.TIGERS), good)
    cases = [
        ({"heads": 3}, "heads 0x3; a version 4 network has all three"),
        ({"actions": 0}, "a policy head has 1 to 65536 outputs, not 0"),
        ({"actions": 1 << 20}, "a policy head has 1 to 65536 outputs, not 1048576"),
        ({"actions": 649}, "bytes; a network 52-64-32: value, plies (32 on layer 1), policy (649)"),
        (
            {"extra": b"\0\0\0\0"},
            "bytes; a network 52-64-32: value, plies (32 on layer 1), policy (650)",
        ),
    ]
    for fields, phrase in cases:
        with pytest.raises(WeightsFileError, match=re.escape(phrase)):
            read_network(zero_file(tmp_path, **fields))
    bad = good.copy()
    bad[-3] = np.nan
    with pytest.raises(WeightsFileError, match="not finite"):
        load_zero_network(zero_file(tmp_path, params=bad), game_numbers.TIGERS)
    with pytest.raises(ValueError, match="not all finite"):
        save_zero_network(bad, tmp_path / "nan.bin", game_numbers.TIGERS)
    assert not (tmp_path / "nan.bin").exists()


@pytest.mark.slow
def test_batch_gradient_is_the_sum_over_samples_on_any_number_of_threads():
    game = game_numbers.DRAUGHTS
    params = random_zero_network(game, 5)
    samples = chosen_samples("draughts") * 10  # 40 samples: two chunks
    n, width = len(samples), K.move_room(game)
    active = np.zeros((n, K.MAX_SET_INPUTS), dtype=np.int64)
    values = np.zeros((n, K.MAX_SET_INPUTS), dtype=np.float32)
    counts = np.zeros(n, dtype=np.int64)
    legal = np.zeros((n, width), dtype=np.int64)
    legal_counts = np.zeros(n, dtype=np.int64)
    policy = np.zeros((n, width), dtype=np.float32)
    target = np.zeros(n, dtype=np.float32)
    plies = np.zeros(n, dtype=np.float32)
    expected = np.zeros_like(params, dtype=np.float64)
    expected_losses = np.zeros(3)
    for i, (a, v, count, moves, pi, z, m) in enumerate(samples):
        active[i], values[i], counts[i], target[i], plies[i] = a, v, count, z, m
        legal[i, : len(moves)], legal_counts[i], policy[i, : len(moves)] = moves, len(moves), pi
        grad, losses = gradient(params, game, a, v, count, moves, pi, z, m)
        expected += grad
        expected_losses += losses
    results = []
    for threads in (1, 2):
        numba.set_num_threads(threads)
        grad = np.zeros_like(params)
        losses = zero_batch_gradient(
            params, active, values, counts, legal, legal_counts, policy, target,
            plies, WEIGHTS.policy, WEIGHTS.value, WEIGHTS.plies, grad,
        )  # fmt: skip
        results.append((grad, losses))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(results[0][0], results[1][0]) and results[0][1] == results[1][1]
    assert np.allclose(results[0][0], expected, rtol=1e-4, atol=1e-5)
    assert np.allclose(results[0][1], expected_losses, rtol=1e-6)
    with pytest.raises(ValueError, match="do not hold the samples"):
        zero_batch_gradient(
            params, active[:5], values, counts, legal, legal_counts, policy, target,
            plies, 1.0, 1.0, 0.1, grad,
        )  # fmt: skip
    with pytest.raises(ValueError, match="do not hold the samples"):
        zero_batch_gradient(
            params, active, values, counts, legal, legal_counts, policy, target,
            plies, 1.0, 1.0, 0.1, grad[:-1],
        )  # fmt: skip


@pytest.mark.parametrize("name", list(GAMES))
def test_zero_reads_the_raw_position_only(name):
    """Zero learns with no hand-written knowledge: its inputs are the plain encoding's raw
    position (Tigers & Sheep: the seed's 52, without the classic features), in order."""
    from tests.reference import network_inputs as plain

    game = GAMES[name]
    raw = K.compiled_game(game).zero_inputs
    assert raw == {"tigers": 52, "draughts": 128}[name]
    assert random_zero_network(game, 1).shape == (Z.zero_shape(raw, A.action_count(game)).size,)
    active = np.zeros(K.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(K.MAX_SET_INPUTS, dtype=np.float32)
    features = 0
    for state in random_states(name, 5, seed=9):
        count = K.zero_network_inputs(game, state, active, values)
        full = K.network_inputs(game, state, active.copy(), values.copy())
        features += full - count
        # both games keep their pieces' masks and the first player to move in words 0..3
        encode = plain.tigers_inputs if name == "tigers" else plain.draughts_inputs
        want = encode(*(int(word) for word in state[:3]), bool(state[3]))
        assert np.array_equal(N.dense_inputs(raw, active, values, count), want[:raw])
    assert features > 0 if name == "tigers" else features == 0
