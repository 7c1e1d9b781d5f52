"""Networks of every shape (:mod:`samuel.nn.shape`: one to three shared layers of any widths, heads
reading any of them, with hidden layers of their own or none): the compiled passes against a
dense float64 reference built from the array's offsets (``tests/reference/dense_network.py``),
their gradients against its backpropagation, checked in turn by finite differences; the plan
checked where an array comes in (``network_of``); the shapes no network can have; the functions
that change a network's shape keeping every other output exactly; and the weights file, version
5, for each shape."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.nn import network as N
from samuel.nn import zero as Z
from samuel.nn.batches import batch_gradient
from samuel.nn.shape import (
    MAX_PARAMETERS,
    OUTCOMES,
    PLAN,
    PLIES,
    POLICY,
    VALUE,
    Head,
    Network,
    ShapeError,
    network_of,
    outcomes_head,
    plies_head,
    policy_head,
    value_head,
    widen,
    with_plies_head,
    without_head,
)
from samuel.nn.weights import file_bytes, read_network, save_network_array
from samuel.nn.zero import zero_shape
from tests.reference import dense_network as dense

NO_OUTCOMES = np.zeros(0, dtype=np.float32)
NO_POLICY = np.zeros(0, dtype=np.int64)
GUARD = 16  # scratch entries past what a pass may use, which it must leave alone
POISON = np.float32(np.nan)  # what scratch starts as: a pass that reads before it writes fails

# Networks without a policy (add_gradient trains them) ...
SHAPES = {
    "64-32 value": Network(40, (64, 32)),
    "256-128 value and plies": Network(30, (256, 128), (value_head(), plies_head())),
    "16 value": Network(20, (16,)),
    "48-32-16 three heads": Network(
        40,
        (48, 32, 16),
        (value_head(), Head(PLIES, 1, (8,), 0), Head(OUTCOMES, 6, (12, 4), 1)),
    ),
    "no value": Network(12, (8, 8), (outcomes_head(4, (5,)), plies_head())),
    "outcomes first": Network(25, (24, 12), (outcomes_head(4), value_head())),
}
# ... and with one (Samuel Zero's loss trains them: a value, plies and a policy head).
POLICY_SHAPES = {
    "zero": zero_shape(30, 50),
    "policy on own layer": Network(
        24, (32, 16, 8), (Head(POLICY, 40, (16,), 1), value_head(), Head(PLIES, 1, (), 2))
    ),
}
ALL = {**SHAPES, **POLICY_SHAPES}


def network(shape: Network, seed: int) -> np.ndarray:
    """A network of the shape whose every parameter (biases too) is something else than its
    start, so every path carries a signal and a gradient."""
    net = shape.random(seed)
    rng = np.random.default_rng(seed + 1)
    net[PLAN:] += rng.normal(0.0, 0.1, shape.parameter_count).astype(np.float32)
    return net


def sample(shape: Network, rng: np.random.Generator):
    """Random set inputs (increasing, as the encoders list them; some with values other than 1)
    and their dense vector."""
    count = int(rng.integers(1, min(shape.inputs, 12) + 1))
    active = np.zeros(shape.inputs, dtype=np.int64)
    values = np.zeros(shape.inputs, dtype=np.float32)
    active[:count] = np.sort(rng.choice(shape.inputs, size=count, replace=False))
    values[:count] = np.where(rng.random(count) < 0.5, 1.0, rng.uniform(0.1, 1.5, count))
    return active, values, count, N.dense_inputs(shape.inputs, active, values, count)


def scratch(size: int) -> np.ndarray:
    return np.full(size + GUARD, POISON, dtype=np.float32)


def assert_guard_untouched(room: np.ndarray) -> None:
    assert np.isnan(room[-GUARD:]).all(), "a pass wrote past the scratch its plan says"


def legal_actions(shape: Network, rng: np.random.Generator, count: int) -> np.ndarray:
    return np.sort(rng.choice(shape.actions, size=count, replace=False)).astype(np.int64)


def kernel_outputs(net, shape, active, values, count, room, legal=None) -> dict:
    """Every head's output by the compiled passes, after one forward pass."""
    found = {VALUE: N.forward(net, active, values, count, room)}
    if shape.has(PLIES):
        found[PLIES] = N.plies_left(net, room)
    if shape.has(OUTCOMES):
        at = N.outcomes(net, room)
        assert at == shape.head_layers(OUTCOMES)[-1][2]
        found[OUTCOMES] = room[at : at + shape.head(OUTCOMES).outputs].copy()
    if shape.has(POLICY):
        logits = np.zeros(len(legal), dtype=np.float32)
        N.policy_logits(net, legal, len(legal), logits, room)
        found[POLICY] = logits
    return found


# --- the layout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_the_layers_tile_the_array_in_order(name):
    """Each layer's weights then its biases, the shared layers first, then each head's own layers
    and output, in the order of its heads, with no gap, to the array's end; the activations have
    places of their own in the forward scratch (a policy's logits go where its caller says)."""
    shape = ALL[name]
    layers = [(layer, True) for layer in shape.layers()]
    for head in shape.heads:
        *own, out = shape.head_layers(head.kind)
        layers += [(layer, True) for layer in own] + [(out, head.kind != POLICY)]
    at = PLAN
    places = []
    for (w, b, act, n_in, n_out), has_place in layers:
        assert (w, b) == (at, at + n_in * n_out)
        at = b + n_out
        if has_place:
            places.append((act, n_out))
    assert at == shape.size == PLAN + shape.parameter_count
    widths = [shape.inputs, *shape.hidden]
    assert [(n_in, n) for *_, n_in, n in shape.layers()] == list(
        zip(widths, widths[1:], strict=False)
    )
    for head in shape.heads:
        *own, out = shape.head_layers(head.kind)
        reads = shape.hidden[head.source]
        assert [n for *_, n in own] == list(head.hidden) and out[4] == head.outputs
        assert [n_in for *_, n_in, _ in [*own, out]] == [reads, *head.hidden]
        assert shape.head_span(head.kind) == ((own or [out])[0][0], out[1] + out[4])
    used = sorted(places)
    assert all(a + n <= b for (a, n), (b, _) in zip(used, used[1:], strict=False))  # disjoint
    assert used[0][0] >= 0 and used[-1][0] + used[-1][1] <= shape.forward_scratch
    assert shape.training_scratch == 2 * shape.forward_scratch


def test_the_first_networks_have_the_sizes_they_always_had():
    """The value network, the one with the plies head and Zero's have the parameter counts
    their files always held (the old fixed layout's)."""
    assert Network(52).parameter_count == 5505 and Network(128).parameter_count == 10369
    assert Network(52, heads=(value_head(), plies_head())).parameter_count == 7618
    assert zero_shape(52, 650).parameter_count == 29068
    assert zero_shape(128, 128).parameter_count == 16706


# --- the passes against the reference ------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_every_output_equals_the_dense_reference(name):
    shape = ALL[name]
    net = network(shape, 3)
    rng = np.random.default_rng(4)
    room = scratch(shape.forward_scratch)
    seen = set()
    for _ in range(12):
        active, values, count, x = sample(shape, rng)
        legal = legal_actions(shape, rng, int(rng.integers(1, 9))) if shape.actions else None
        got = kernel_outputs(net, shape, active, values, count, room, legal)
        want = dense.outputs(net, x, shape)
        assert got[VALUE] == pytest.approx(want.get(VALUE, 0.0), rel=1e-5, abs=2e-6)
        if shape.has(PLIES):
            assert got[PLIES] == pytest.approx(want[PLIES], rel=1e-5) and got[PLIES] >= 0
        if shape.has(OUTCOMES):
            np.testing.assert_allclose(got[OUTCOMES], want[OUTCOMES], rtol=1e-5, atol=1e-7)
            assert np.all((got[OUTCOMES] > 0) & (got[OUTCOMES] < 1))
        if shape.has(POLICY):
            np.testing.assert_allclose(got[POLICY], want[POLICY][legal], rtol=1e-5, atol=2e-6)
            logits = np.zeros(len(legal), dtype=np.float32)
            value, plies = Z.zero_forward(
                net, active, values, count, legal, len(legal), logits, room
            )
            assert (value, plies) == (got[VALUE], got[PLIES])
            assert np.array_equal(logits, got[POLICY])
        seen.add(round(float(got[VALUE]), 4) if shape.has(VALUE) else round(got[PLIES], 3))
        assert_guard_untouched(room)
    assert len(seen) > 6  # the outputs depend on the inputs


def add_gradient(net, shape, active, values, count, target, plies, weight, outcome_targets):
    grad = np.zeros(len(net), dtype=np.float32)
    room = scratch(shape.training_scratch)
    losses = N.add_gradient(
        net, grad, active, values, count, target, plies, weight, outcome_targets, room, NO_POLICY
    )
    assert_guard_untouched(room)
    return grad, losses


def assert_gradients_agree(grad: np.ndarray, reference: np.ndarray) -> None:
    """The float32 gradient against the float64 reference, relative to the largest entry."""
    scale = max(1e-3, float(np.max(np.abs(reference))))
    worst = float(np.max(np.abs(grad - reference)))
    np.testing.assert_allclose(grad, reference, rtol=1e-3, atol=1e-5 * scale, err_msg=str(worst))
    assert not np.any(grad[:PLAN])  # the plan is no parameter: its gradient stays exactly 0


def spot_indices(shape: Network, rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """A few entries of every layer's weights and biases (layer 1's of the set inputs' rows)."""
    chosen = []
    layers = list(shape.layers())
    for head in shape.heads:
        layers += shape.head_layers(head.kind)
    for i, (w, b, _, _, n_out) in enumerate(layers):
        if i == 0:
            rows = w + np.flatnonzero(x)[:, None] * n_out + np.arange(n_out)[None, :]
            chosen.append(rng.choice(rows.ravel(), size=min(8, rows.size), replace=False))
        else:
            chosen.append(rng.choice(np.arange(w, b), size=min(6, b - w), replace=False))
        chosen.append(rng.choice(np.arange(b, b + n_out), size=min(3, n_out), replace=False))
    return np.concatenate(chosen)


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("plies", [3.0, 80.0, N.NO_PLIES])  # in the Huber zone, beyond, none
def test_the_gradient_equals_the_references(name, plies):
    """add_gradient's losses and gradient (value, weighted plies, outcomes) against the dense
    reference's backpropagation over every parameter; that, against float64 finite differences
    of the same loss on a few of every layer's. The entries no loss reads (layer 1's rows of the
    inputs not set) get exactly 0."""
    shape = SHAPES[name]
    net = network(shape, 5)
    rng = np.random.default_rng(6)
    weight = 0.5
    k = shape.head(OUTCOMES).outputs if shape.has(OUTCOMES) else 0
    for _ in range(3):
        active, values, count, x = sample(shape, rng)
        target = float(rng.uniform(-1, 1))
        outcome_targets = rng.choice([0.0, 1.0, 0.3], size=k).astype(np.float32)
        grad, losses = add_gradient(
            net, shape, active, values, count, target, plies, weight, outcome_targets
        )
        parts = dense.training_losses(net, x, target, plies, weight, outcome_targets, shape)
        assert losses == pytest.approx(parts, rel=1e-4, abs=1e-7)
        assert (losses[0] != 0) == shape.has(VALUE) and (losses[2] != 0) == shape.has(OUTCOMES)
        assert (losses[1] != 0) == (shape.has(PLIES) and plies >= 0)
        reference = dense.gradient(net, x, target, plies, weight, outcome_targets, shape=shape)
        assert_gradients_agree(grad, reference)
        w1, b1, _, _, n1 = shape.layers()[0]
        unset = np.setdiff1d(np.arange(shape.inputs), active[:count])
        assert not np.any(grad[w1:b1].reshape(shape.inputs, n1)[unset])

        def loss_of(p, x=x, target=target, outcome_targets=outcome_targets):
            return dense.training_loss(p, x, target, plies, weight, outcome_targets, shape)

        indices = spot_indices(shape, rng, x)
        numeric = dense.central_differences(loss_of, net, indices)
        np.testing.assert_allclose(reference[indices], numeric, rtol=1e-4, atol=1e-7)
        assert np.any(numeric != 0)


@pytest.mark.parametrize("name", [name for name, shape in SHAPES.items() if shape.has(PLIES)])
def test_without_a_plies_target_or_weight_the_plies_head_gets_no_gradient(name):
    shape = SHAPES[name]
    net = network(shape, 7)
    active, values, count, _ = sample(shape, np.random.default_rng(8))
    k = shape.head(OUTCOMES).outputs if shape.has(OUTCOMES) else 0
    targets = np.full(k, 0.5, dtype=np.float32)
    start, end = shape.head_span(PLIES)
    grads = []
    for plies, weight in ((N.NO_PLIES, 0.5), (12.0, 0.0)):
        grad, losses = add_gradient(net, shape, active, values, count, 0.2, plies, weight, targets)
        assert losses[1] == 0.0 and not np.any(grad[start:end])
        grads.append(grad)
    assert np.array_equal(*grads)


@pytest.mark.parametrize("name", POLICY_SHAPES)
def test_the_zero_gradient_equals_the_references(name):
    """zero_add_gradient (the policy's cross-entropy over the legal actions, the value's and the
    plies' losses, each weighted) against the reference's backpropagation and finite
    differences; one legal move or a policy target of zeros trains no policy."""
    shape = POLICY_SHAPES[name]
    net = network(shape, 9)
    rng = np.random.default_rng(10)
    weights = (1.0, 0.7, 0.3)
    policy_start, policy_end = shape.head_span(POLICY)
    for legal_count, plies in ((6, 40.0), (1, 3.0), (5, N.NO_PLIES), (4, 300.0)):
        active, values, count, x = sample(shape, rng)
        legal = legal_actions(shape, rng, legal_count)
        policy_target = rng.dirichlet(np.ones(legal_count)).astype(np.float32)
        if plies == N.NO_PLIES:
            policy_target[:] = 0  # no policy target either
        value_target = float(rng.uniform(-1, 1))
        grad = np.zeros(len(net), dtype=np.float32)
        logits = np.zeros(legal_count, dtype=np.float32)
        room = scratch(shape.training_scratch)
        losses = Z.zero_add_gradient(
            net, grad, active, values, count, legal, legal_count, policy_target,
            value_target, plies, *weights, logits, room,
        )  # fmt: skip
        assert_guard_untouched(room)
        parts = dense.zero_losses(
            net, x, legal, policy_target, value_target, plies, weights[2], shape
        )
        assert losses == pytest.approx(parts, rel=1e-4, abs=1e-6)
        policy = (legal, policy_target, *weights)
        reference = dense.gradient(net, x, value_target, plies, policy=policy, shape=shape)
        assert_gradients_agree(grad, reference)
        trained = legal_count > 1 and policy_target.any()
        assert np.any(grad[policy_start:policy_end]) == trained

        def loss_of(p, x=x, legal=legal, t=policy_target, z=value_target, plies=plies):
            return dense.zero_loss(p, x, legal, t, z, plies, weights, shape)

        indices = spot_indices(shape, rng, x)
        *_, (w, b, _, width, _) = shape.head_layers(POLICY)
        legal_rows = w + legal[:, None] * width + np.arange(width)[None, :]
        indices = np.concatenate([indices, legal_rows.ravel()[::3], b + legal])
        numeric = dense.central_differences(loss_of, net, indices)
        np.testing.assert_allclose(reference[indices], numeric, rtol=1e-4, atol=1e-7)
        # the actions that are not legal: no gradient at all
        rows = grad[w:b].reshape(shape.actions, width)
        illegal = np.setdiff1d(np.arange(shape.actions), legal)
        assert not np.any(rows[illegal]) and not np.any(grad[b + illegal])


@pytest.mark.parametrize("name", ["48-32-16 three heads", "256-128 value and plies"])
def test_the_batch_gradient_is_the_sum_of_the_samples(name):
    shape = SHAPES[name]
    net = network(shape, 11)
    rng = np.random.default_rng(12)
    n = 40
    rows = [sample(shape, rng) for _ in range(n)]
    active = np.stack([r[0] for r in rows])
    values = np.stack([r[1] for r in rows])
    counts = np.array([r[2] for r in rows], dtype=np.int64)
    target = rng.uniform(-1, 1, n).astype(np.float32)
    plies = rng.uniform(1, 100, n).astype(np.float32)
    plies[::4] = N.NO_PLIES
    k = shape.head(OUTCOMES).outputs if shape.has(OUTCOMES) else 0
    outcomes = rng.uniform(0, 1, (n, k)).astype(np.float32)
    grad = np.zeros(len(net), dtype=np.float32)
    totals = batch_gradient(
        net, active, values, counts, target, plies, np.float32(0.5), outcomes, grad
    )
    expected = np.zeros(len(net), dtype=np.float32)
    summed = np.zeros(3)
    for i in range(n):
        one, losses = add_gradient(
            net, shape, active[i], values[i], counts[i], target[i], plies[i], 0.5, outcomes[i]
        )
        expected += one
        summed += losses
    np.testing.assert_allclose(grad, expected, rtol=1e-4, atol=1e-6)
    assert totals == pytest.approx(tuple(summed), rel=1e-9)
    assert not np.any(grad[:PLAN])


# --- the plan, checked where an array comes in ---------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_network_of_reads_every_packed_shape(name):
    shape = ALL[name]
    params = np.random.default_rng(13).normal(0, 1, shape.parameter_count)
    packed = shape.pack(params)
    assert packed.dtype == np.float32 and len(packed) == shape.size
    assert network_of(packed) == shape == network_of(shape.random(1))
    assert np.array_equal(packed[PLAN:], params.astype(np.float32))
    with pytest.raises(ShapeError, match="parameters, not"):
        shape.pack(params[:-1])


@pytest.mark.parametrize("name", ["64-32 value", "48-32-16 three heads", "policy on own layer"])
def test_network_of_refuses_every_forged_plan(name):
    """Any one number of the plan changed (up, down, to a fraction, NaN or infinity), the array
    a number longer or shorter, a bare parameter array: each is refused, so no kernel reads a
    layer at an offset its array does not have."""
    shape = ALL[name]
    net = network(shape, 14)
    for i in range(PLAN):
        for change in (1.0, -1.0, 0.5, np.nan, np.inf, 1e7):
            forged = net.copy()
            forged[i] = change if change in (np.inf, 1e7) or np.isnan(change) else net[i] + change
            with pytest.raises(ShapeError):
                network_of(forged)
    for forged in (net[:-1], np.append(net, np.float32(0)), net[PLAN:], net[:PLAN], net[:0]):
        with pytest.raises(ShapeError):
            network_of(forged)
    with pytest.raises(ShapeError, match="not an array of shape"):
        network_of(net.reshape(1, -1))
    with pytest.raises(ShapeError, match="not <class 'list'>"):
        network_of(list(net))
    assert network_of(net) == shape  # the original, untouched


@pytest.mark.parametrize(
    ("make", "phrase"),
    [
        (lambda: Network(10, ()), "1 to 3 hidden layers"),
        (lambda: Network(10, (8, 8, 8, 8)), "1 to 3 hidden layers"),
        (lambda: Network(10, (8, 0)), "a layer has 1 to 4096 units"),
        (lambda: Network(10, (4097,)), "a layer has 1 to 4096 units"),
        (lambda: Network(0, (8,)), "1 to 65536 inputs, not 0"),
        (lambda: Network(10, (8,), ()), "one to four heads"),
        (lambda: Network(10, (8,), (value_head(), value_head())), "each kind once"),
        (lambda: Network(10, (8,), (plies_head(), Head(PLIES, 1, (), 0))), "each kind once"),
        (lambda: Network(10, (8, 8), (Head(VALUE, 1, (4, 4, 4)),)), "up to 2 layers"),
        (lambda: Network(10, (8, 8), (Head(VALUE, 1, (0,)),)), "up to 2 layers of 1 to 4096"),
        (lambda: Network(10, (8, 8), (Head(VALUE, 1, (), 2),)), "of the 2 shared layers, not 3"),
        (lambda: Network(10, (8,), (Head(VALUE, 1, (), -2),)), "of the 1 shared layers, not -1"),
        (lambda: Network(10, (8,), (Head(7),)), "no head has kind 7"),
        (lambda: Network(10, (8,), (Head(VALUE, 2),)), "a value head has 1 to 1 outputs"),
        (lambda: Network(10, (8,), (policy_head(0),)), "policy head has 1 to 65536 outputs"),
        (lambda: Network(10, (8,), (outcomes_head(17),)), "outcomes head has 1 to 16 outputs"),
        (lambda: Network(4096, (4096, 4096)), f"more than {MAX_PARAMETERS} parameters"),
    ],
)
def test_impossible_shapes_are_refused(make, phrase):
    with pytest.raises(ShapeError, match=phrase):
        make()


def test_the_largest_network_is_allowed():
    """Right at the limit, a network can be made (its offsets stay exact in float32)."""
    inputs = (MAX_PARAMETERS - (1024 + 1024 + 1 + 1)) // 1024
    shape = Network(inputs, (1024,), (Head(VALUE, 1, (), 0),))
    assert shape.parameter_count <= MAX_PARAMETERS
    assert shape.size < 1 << 24 and float(np.float32(shape.size)) == shape.size


# --- changing a network's shape ------------------------------------------------------------------


def all_outputs(net, shape, rng_seed: int, wider: int | None = None) -> list:
    """Every output of the network on a few random samples of its (first) inputs; with
    ``wider``, those samples with some of the new inputs set too."""
    rng = np.random.default_rng(rng_seed)
    found = []
    for _ in range(6):
        active, values, count, _ = sample(shape, rng)
        legal = legal_actions(shape, rng, 5) if shape.actions else None
        if wider is not None:
            extra = np.arange(shape.inputs, wider)[:3]
            active = np.concatenate([active[:count], extra])
            values = np.concatenate([values[:count], np.full(len(extra), 0.75, np.float32)])
            count = len(active)
        now = network_of(net)
        room = scratch(now.forward_scratch)
        got = kernel_outputs(net, now, active, values, count, room, legal)
        found.append({kind: np.asarray(value).tolist() for kind, value in got.items()})
    return found


@pytest.mark.parametrize("name", ALL)
def test_widening_keeps_every_output_exactly(name):
    shape = ALL[name]
    net = network(shape, 15)
    wide = widen(net, shape.inputs + 7)
    assert network_of(wide) == Network(shape.inputs + 7, shape.hidden, shape.heads)
    assert all_outputs(wide, shape, 16, wider=shape.inputs + 7) == all_outputs(net, shape, 16)
    assert np.array_equal(widen(net, shape.inputs), net)
    with pytest.raises(ShapeError, match=f"cannot widen a network of {shape.inputs} inputs"):
        widen(net, shape.inputs - 1)


@pytest.mark.parametrize("name", ALL)
def test_removing_a_head_keeps_every_other_output_exactly(name):
    shape = ALL[name]
    net = network(shape, 17)
    before = all_outputs(net, shape, 18)
    for head in shape.heads:
        if len(shape.heads) == 1:
            with pytest.raises(ShapeError, match="one to four heads"):
                without_head(net, head.kind)
            continue
        rest = without_head(net, head.kind)
        smaller = network_of(rest)
        assert smaller.heads == tuple(h for h in shape.heads if h.kind != head.kind)
        assert smaller.size == shape.size - np.subtract(*shape.head_span(head.kind)[::-1])
        after = all_outputs(rest, shape, 18)  # the same samples
        for old, new in zip(before, after, strict=True):
            value = new.pop(VALUE)
            if smaller.has(VALUE):  # the value head's, exactly as before
                assert value == old[VALUE]
            elif smaller.has(OUTCOMES):  # valued by its outcomes: their expected points
                chances = np.array(old[OUTCOMES])
                half = len(chances) // 2
                assert value == pytest.approx(chances[:half].sum() - chances[half:].sum(), abs=1e-6)
            else:  # neither: forward says 0
                assert value == 0.0
            assert new == {kind: v for kind, v in old.items() if kind not in (VALUE, head.kind)}
    absent = next(kind for kind in (VALUE, PLIES, POLICY, OUTCOMES) if not shape.has(kind))
    assert without_head(net, absent) is net


@pytest.mark.parametrize("name", SHAPES)
def test_adding_a_plies_head_keeps_every_other_output_exactly(name):
    shape = SHAPES[name]
    net = network(shape, 19)
    if shape.has(PLIES):
        again = with_plies_head(net, 20)
        assert np.array_equal(again, net) and again is not net
        net = without_head(net, PLIES)
        shape = network_of(net)
    headed = with_plies_head(net, 20)
    bigger = network_of(headed)
    assert bigger.heads == (*shape.heads, Head(PLIES, 1, (32,), 0))
    assert np.array_equal(headed[PLAN : shape.size], net[PLAN:])  # appended after the rest
    before, after = all_outputs(net, shape, 21), all_outputs(headed, bigger, 21)
    for old, new in zip(before, after, strict=True):
        plies = new.pop(PLIES)
        assert 5.0 < plies < 40.0  # near PLIES_SCALE * log 2 (13.9) at the start
        assert new == old
    assert np.array_equal(with_plies_head(net, 20), headed)  # its seed says its weights


# --- the weights file ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_a_version_5_file_round_trips_each_shape(tmp_path, name):
    shape = ALL[name]
    net = network(shape, 22)
    path = tmp_path / "net.bin"
    save_network_array(net, path, 3)
    assert path.stat().st_size == file_bytes(shape)
    loaded = read_network(path)
    assert (loaded.game, loaded.network, loaded.inputs) == (3, shape, shape.inputs)
    assert loaded.array.tobytes() == net.tobytes()
    assert all_outputs(loaded.array, shape, 23) == all_outputs(net, shape, 23)
