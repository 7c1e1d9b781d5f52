"""The network's kernels against textbook algebra, its gradients against finite differences (for
both games' input sizes), the games' encoders against plain references, Adam against its
formula, and the weights file: version 5 written and read back, versions 1 to 4 still read (the
shipped networks bit for bit), a file for the wrong game, and every kind of bad header (the
moves-left head's own tests are in test_moves_left.py, other shapes' in
test_network_shapes.py)."""

from __future__ import annotations

import random
import re
import struct

import numpy as np
import pytest

from samuel.evaluation.networks import (
    NETWORKS_FOLDER,
    load_network,
    network_shape,
    random_network,
    save_network,
)
from samuel.games import get_game
from samuel.games import kernels as K
from samuel.nn import network as N
from samuel.nn import shape as S
from samuel.nn.batches import adam_step, batch_gradient, batch_loss
from samuel.nn.shape import PLAN, Network
from samuel.nn.weights import (
    HEAD_RECORD,
    HEADERS,
    WeightsFileError,
    file_bytes,
    header_bytes,
    read_network,
    read_weights,
    save_network_array,
)
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


NO_OUTCOMES = np.zeros(0, dtype=np.float32)
NO_POLICY = np.zeros(0, dtype=np.int64)


def value_network(name: str, seed: int) -> np.ndarray:
    """The game's value network (64-32, a value head) with random weights from ``seed``."""
    return random_network(get_game(name).number, seed)


def value_loss_gradient(net, grad, active, values, n, target, scratch) -> float:
    """The value network's loss, its gradient added to ``grad`` (the old ``add_gradient``)."""
    losses = N.add_gradient(
        net, grad, active, values, n, target, N.NO_PLIES, 0.0, NO_OUTCOMES, scratch, NO_POLICY
    )
    assert losses[1:] == (0.0, 0.0)  # no plies head, no outcomes
    return losses[0]


@pytest.mark.parametrize("name", GAMES)
def test_sparse_forward_equals_a_plain_matrix_multiply(name):
    shape = network_shape(get_game(name).number)
    net = value_network(name, 3)
    _, b1, _, _, n1 = shape.layers()[0]
    net[b1 : b1 + n1] = np.random.default_rng(4).normal(0, 0.3, n1)
    scratch = np.zeros(shape.forward_scratch, dtype=np.float32)
    for position in positions(name, 100, seed=5):
        active, values, n = set_inputs(name, position)
        expected = dense.value(net, plain_inputs(name, position))
        assert N.forward(net, active, values, n, scratch) == pytest.approx(expected, abs=2e-6)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("layer", ["w1", "b1", "w2", "b2", "w3", "b3"])
def test_every_layers_gradient_equals_finite_differences(name, layer):
    rng = np.random.default_rng(6)
    shape = network_shape(get_game(name).number)
    net = value_network(name, 7)
    spans = dense.spans(shape)
    for bias in ("b1", "b2"):
        start, end = spans[bias]
        net[start:end] = rng.normal(0, 0.2, end - start)
    start, end = spans[layer]
    n1 = shape.hidden[0]
    scratch = np.zeros(shape.training_scratch, dtype=np.float32)
    for position in positions(name, 4, seed=8):
        target = float(rng.uniform(-1, 1))
        active, values, n = set_inputs(name, position)
        grad = np.zeros(len(net), dtype=np.float32)
        value_loss_gradient(net, grad, active, values, n, target, scratch)
        x = plain_inputs(name, position)
        indices = rng.choice(np.arange(start, end), size=min(40, end - start), replace=False)
        if layer == "w1":  # make sure rows of set inputs are among those checked
            rows = spans["w1"][0] + np.flatnonzero(x) * n1
            first_row = rows[0] + np.arange(n1)  # every unit of one set input's row
            indices = np.concatenate([indices, rows + 3, first_row])
        numeric = dense.finite_difference_gradient(net, x, target, indices)
        np.testing.assert_allclose(grad[indices], numeric, rtol=2e-3, atol=2e-6)
        assert np.any(numeric != 0)
        assert not np.any(grad[:PLAN])  # the plan is no parameter


@pytest.mark.parametrize("name", GAMES)
def test_batch_gradient_and_loss_are_sums_over_samples(name):
    net = value_network(name, 9)
    rows = [set_inputs(name, p) for p in positions(name, 100, seed=10)]
    active = np.stack([r[0] for r in rows])
    values = np.stack([r[1] for r in rows])
    counts = np.array([r[2] for r in rows], dtype=np.int64)
    targets = np.random.default_rng(11).uniform(-1, 1, 100).astype(np.float32)
    plies = np.full(100, N.NO_PLIES, dtype=np.float32)
    outcomes = np.zeros((100, 0), dtype=np.float32)
    grad = np.zeros(len(net), dtype=np.float32)
    loss, plies_loss, outcome_loss = batch_gradient(
        net, active, values, counts, targets, plies, np.float32(0.0), outcomes, grad
    )
    assert plies_loss == outcome_loss == 0.0
    one = np.zeros(len(net), dtype=np.float32)
    scratch = np.zeros(network_shape(get_game(name).number).training_scratch, dtype=np.float32)
    expected_loss = 0.0
    for i in range(100):
        expected_loss += value_loss_gradient(
            net, one, active[i], values[i], counts[i], targets[i], scratch
        )
    np.testing.assert_allclose(grad, one, rtol=1e-4, atol=1e-6)
    assert loss == pytest.approx(expected_loss, rel=1e-9)
    assert batch_loss(net, active, values, counts, targets) == pytest.approx(loss, rel=1e-5)


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
    shape = Network(inputs)
    net = shape.random(0x5EED)
    assert net.dtype == np.float32 and net.shape == (PLAN + count,) == (shape.size,)
    assert shape.parameter_count == count and S.network_of(net) == shape
    assert shape.hidden == (64, 32) and shape.heads == (S.Head(S.VALUE, 1, (), 1),)
    spans = dense.spans(shape)
    assert all(not np.any(net[slice(*spans[b])]) for b in ("b1", "b2", "b3"))
    assert np.std(net[slice(*spans["w1"])]) == pytest.approx(np.sqrt(2 / 20), rel=0.05)
    assert np.std(net[slice(*spans["w2"])]) == pytest.approx(np.sqrt(2 / 64), rel=0.05)
    assert np.array_equal(shape.random(0x5EED), net)
    assert np.array_equal(net[:PLAN], shape.plan())


def v5_header(game: int, shape: Network) -> bytes:
    """A version 5 header, field by field as the format says."""
    widths = (*shape.hidden, 0, 0, 0)[:3]
    head = HEADERS[5].pack(
        b"TSNN", 5, game, shape.inputs, len(shape.hidden), *widths, len(shape.heads)
    )
    for h in shape.heads:
        own = (*h.hidden, 0, 0)[:2]
        head += HEAD_RECORD.pack(h.kind, h.outputs, h.source, len(h.hidden), *own)
    return head


@pytest.mark.parametrize("name", GAMES)
def test_save_and_load_round_trip_records_the_game(tmp_path, name):
    game = get_game(name).number
    net = random_network(game, 1)
    shape = network_shape(game)
    path = tmp_path / "net.bin"
    save_network(net, path, game)
    assert np.array_equal(load_network(path, game), net)
    loaded = read_network(path)
    assert (loaded.game, loaded.inputs, loaded.network) == (game, inputs_of(name), shape)
    assert np.array_equal(loaded.array, net) and loaded.array.dtype == np.float32
    assert path.stat().st_size == file_bytes(shape) == 36 + 24 + 4 * shape.parameter_count
    content = path.read_bytes()
    assert content[:12] == b"TSNN" + struct.pack("<2I", 5, game)
    assert content[: header_bytes(shape)] == v5_header(game, shape)
    # inputs, 2 layers of 64 and 32, 1 head: the value (kind 0), 1 output on layer 2 (index 1)
    assert struct.unpack("<7I", content[12:40]) == (inputs_of(name), 2, 64, 32, 0, 1, 0)
    assert struct.unpack("<5I", content[40:60]) == (1, 1, 0, 0, 0)
    assert content[60:] == net[PLAN:].astype("<f4").tobytes()
    assert [p.name for p in tmp_path.iterdir()] == ["net.bin"]


# Shapes of every kind a file holds: the games' networks, with heads of their own layers, three
# shared layers, one, a policy.
SHAPES = [
    Network(58),
    Network(128, (64, 32), (S.value_head(), S.plies_head())),
    Network(52, (64, 32), (S.value_head(), S.plies_head(), S.policy_head(650))),
    Network(20, (16,)),
    Network(30, (256, 128), (S.value_head(), S.plies_head())),
    Network(
        40,
        (48, 32, 16),
        (S.value_head(), S.Head(S.PLIES, 1, (8,), 0), S.outcomes_head(6, (12, 4))),
    ),
    Network(12, (8, 8), (S.Head(S.OUTCOMES, 3, (5,), 0), S.value_head())),
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.describe())
def test_version_5_round_trips_every_shape(tmp_path, shape):
    net = shape.random(11)
    net[PLAN:] += (
        np.random.default_rng(12).normal(0, 0.1, shape.parameter_count).astype(np.float32)
    )  # no zero biases: every parameter is where it belongs
    path = tmp_path / "net.bin"
    save_network_array(net, path, 9)
    assert path.stat().st_size == file_bytes(shape)
    assert path.read_bytes()[: header_bytes(shape)] == v5_header(9, shape)
    loaded = read_network(path)
    assert (loaded.game, loaded.network) == (9, shape)
    assert loaded.array.tobytes() == net.tobytes()
    assert S.network_of(loaded.array) == shape


def old_file(version: int, game: int, shape: Network, params: np.ndarray) -> bytes:
    """The file an older program wrote of a 64-32 network of that shape, by hand."""
    fields = (shape.inputs, 64, 32)
    if version == 1:
        head = HEADERS[1].pack(b"TSNN", 1, *fields)
    elif version == 2:
        head = HEADERS[2].pack(b"TSNN", 2, game, *fields)
    elif version == 3:
        heads = 3 if shape.has(S.PLIES) else 1
        head = HEADERS[3].pack(b"TSNN", 3, game, *fields, heads)
    else:
        head = HEADERS[4].pack(b"TSNN", 4, game, *fields, 7, shape.actions)
    return head + np.asarray(params, dtype="<f4").tobytes()


OLD_SHAPES = [
    (1, Network(52)),
    (2, Network(52)),
    (2, Network(128)),
    (3, Network(58)),
    (3, Network(128, heads=(S.value_head(), S.plies_head()))),
    (4, Network(52, heads=(S.value_head(), S.plies_head(), S.policy_head(650)))),
    (4, Network(128, heads=(S.value_head(), S.plies_head(), S.policy_head(128)))),
]


@pytest.mark.parametrize(
    ("version", "shape"), OLD_SHAPES, ids=[f"v{v} {s.describe()}" for v, s in OLD_SHAPES]
)
def test_older_versions_read_as_the_networks_they_always_were(tmp_path, version, shape):
    """Versions 1 to 4 give the shape their header says (the value network, with the plies head,
    or Zero's) and the parameters as they are in the file; saved again, as version 5, the same
    network."""
    params = np.random.default_rng(version).normal(0, 0.5, shape.parameter_count)
    params = params.astype(np.float32)
    game = 0 if version == 1 else 1
    path = tmp_path / "old.bin"
    path.write_bytes(old_file(version, game, shape, params))
    loaded = read_network(path)
    assert (loaded.game, loaded.network) == (game, shape)
    assert loaded.array.tobytes() == shape.pack(params).tobytes()
    save_network_array(loaded.array, tmp_path / "new.bin", game)
    again = read_network(tmp_path / "new.bin")
    assert again.network == shape and again.array.tobytes() == loaded.array.tobytes()
    # one parameter more or fewer than the header's shape takes is refused
    path.write_bytes(old_file(version, game, shape, params[:-1]))
    with pytest.raises(WeightsFileError, match=re.escape(f"a network {shape.describe()} takes")):
        read_network(path)


def test_the_shipped_networks_load_bit_for_bit():
    """Every shipped file (versions 1, 3, 4, 5 and 6) reads as the shape its header says, with
    exactly the parameters it holds."""
    expected = {
        "shipped.bin": (1, 0, Network(52)),
        "shipped-draughts.bin": (3, 1, Network(128)),
        "shipped-moves-left.bin": (3, 0, Network(52, heads=(S.value_head(), S.plies_head()))),
        "shipped-zero.bin": (
            4,
            0,
            Network(52, heads=(S.value_head(), S.plies_head(), S.policy_head(650))),
        ),
        # backgammon's: six chances, no value head (version 5 says the whole shape)
        "shipped-backgammon.bin": (5, 2, Network(196, heads=(S.outcomes_head(6),))),
    }
    phased = {"shipped-nardy.bin": (3, 3, Network(194, heads=(S.outcomes_head(6),)))}
    shipped = sorted(path.name for path in NETWORKS_FOLDER.glob("*.bin"))
    assert shipped == sorted([*expected, *phased])
    for name, (game, phases, shape) in phased.items():  # version 6: a network per phase
        loaded = read_weights(NETWORKS_FOLDER / name)
        assert (loaded.game, loaded.networks) == (game, (shape,) * phases)
    for name, (version, game, shape) in expected.items():
        content = (NETWORKS_FOLDER / name).read_bytes()
        assert struct.unpack("<I", content[4:8])[0] == version
        loaded = read_network(NETWORKS_FOLDER / name)
        assert (loaded.game, loaded.network) == (game, shape)
        start = HEADERS[version].size + (HEAD_RECORD.size * len(shape.heads) if version == 5 else 0)
        assert loaded.array[PLAN:].astype("<f4").tobytes() == content[start:]
        assert np.array_equal(loaded.array[:PLAN], shape.plan())


def test_version_1_files_load_as_tigers_and_sheep(tmp_path):
    assert SHIPPED_NETWORK.read_bytes()[:8] == b"TSNN" + struct.pack("<I", 1)  # the shipped one
    shipped = load_network(SHIPPED_NETWORK, game_numbers.TIGERS)
    raw = read_network(SHIPPED_NETWORK)
    assert (raw.game, raw.inputs) == (game_numbers.TIGERS, 52)  # the seed's inputs, widened
    assert np.array_equal(shipped, S.widen(raw.array, inputs_of("tigers")))
    path = tmp_path / "old.bin"
    path.write_bytes(header() + raw.array[PLAN:].astype("<f4").tobytes())
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
    small_shape = Network(seed_inputs, heads=(S.value_head(), S.plies_head()))
    small = small_shape.random(3)
    path = tmp_path / "seed.bin"
    save_network_array(small, path, game_numbers.TIGERS)
    wide = load_network(path, game_numbers.TIGERS)
    shape = network_shape(game_numbers.TIGERS, moves_left=True)
    assert S.network_of(wide) == shape and len(wide) == shape.size
    _, b1, _, _, n1 = shape.layers()[0]
    assert not np.any(wide[PLAN + seed_inputs * n1 : b1])
    scratch = np.zeros(shape.forward_scratch, dtype=np.float32)
    features = 0
    for position in positions("tigers", 60, seed=4):
        x = plain_inputs("tigers", position)
        features += np.count_nonzero(x[seed_inputs:])
        active, values, n = set_inputs("tigers", position)
        got = N.forward(wide, active, values, n, scratch)
        plies = N.plies_left(wide, scratch)
        seed_set = active[:n] < seed_inputs
        want = N.forward(small, active[:n][seed_set], values[:n][seed_set], seed_set.sum(), scratch)
        assert got == want and plies == N.plies_left(small, scratch)
    assert features > 60  # the positions set feature inputs, which weigh nothing
    with pytest.raises(ValueError, match="cannot widen a network of 58 inputs to 52"):
        S.widen(wide, 52)


def test_a_network_for_another_game_is_refused_naming_both(tmp_path):
    path = tmp_path / "x.bin"
    save_network(random_network(game_numbers.DRAUGHTS, 1), path, game_numbers.DRAUGHTS)
    with pytest.raises(
        WeightsFileError, match=r"x.bin is a network for English draughts, not Tigers"
    ):
        load_network(path, game_numbers.TIGERS)
    # a game this program lacks, and a header whose inputs are not its game's
    seed_network = Network(52).random(1)
    save_network_array(seed_network, path, 77)
    with pytest.raises(WeightsFileError, match="game number 77, which this program lacks"):
        load_network(path, game_numbers.TIGERS)
    save_network_array(seed_network, path, game_numbers.DRAUGHTS)
    with pytest.raises(WeightsFileError, match="has 52 inputs; English draughts's network has 128"):
        load_network(path, game_numbers.DRAUGHTS)
    with pytest.raises(
        ValueError,
        match=r"English draughts's network has 128 inputs, a value head and no policy, not "
        r"52-64-32: value",
    ):
        save_network(seed_network, path, game_numbers.DRAUGHTS)


def header(magic=b"TSNN", version=1, sizes=(52, 64, 32), game=None) -> bytes:
    if game is None:
        return struct.pack("<4s4I", magic, version, *sizes)
    return struct.pack("<4s5I", magic, version, game, *sizes)


PARAMS = Network(52).parameter_count


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"TSN", "too short"),
        (b"TSNN\x02\x00\x00\x00\x00\x00", "too short"),
        (header(magic=b"ABCD") + bytes(4 * PARAMS), "does not start with TSNN"),
        (
            header(version=7) + bytes(4 * PARAMS),
            "version 7; this program reads versions 1, 2, 3, 4, 5, 6",
        ),
        (header(version=0) + bytes(4 * PARAMS), "version 0; this program reads versions"),
        (header(sizes=(52, 128, 32)) + bytes(4 * PARAMS), "layers 52-128-32; version 1 has 64-32"),
        (header(sizes=(0, 64, 32)), "1 to 65536 inputs, not 0"),
        (header(sizes=(1 << 31, 64, 32)), "1 to 65536 inputs, not 2147483648"),
        (header() + bytes(4 * PARAMS - 4), "bytes; a network 52-64-32: value takes"),
        (header() + bytes(4 * PARAMS + 4), "bytes; a network 52-64-32: value takes"),
        (header(version=2, game=0) + bytes(4 * PARAMS - 4), "bytes; a network 52-64-32"),
        (header() + np.full(PARAMS, np.nan, "<f4").tobytes(), "not finite"),
        (header(version=2, game=0) + np.full(PARAMS, np.inf, "<f4").tobytes(), "not finite"),
    ],
)
def test_each_kind_of_bad_file_is_rejected(tmp_path, content, phrase):
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    with pytest.raises(WeightsFileError, match=phrase):
        load_network(path, game_numbers.TIGERS)


def v5(layers=2, widths=(64, 32, 0), heads=None, records=((0, 1, 1, 0, 0, 0),), inputs=52):
    """A version 5 header of the fields given (the value network of 52 inputs by default)."""
    count = len(records) if heads is None else heads
    head = HEADERS[5].pack(b"TSNN", 5, 0, inputs, layers, *widths, count)
    return head + b"".join(HEAD_RECORD.pack(*record) for record in records)


VALUE_RECORD = (S.VALUE, 1, 1, 0, 0, 0)
PLIES_RECORD = (S.PLIES, 1, 0, 1, 32, 0)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"TSNX" + v5()[4:] + bytes(4 * PARAMS), "does not start with TSNN"),
        (v5()[:4] + struct.pack("<I", 7) + v5()[8:] + bytes(4 * PARAMS), "is version 7; this"),
        (v5(heads=0, records=()), "2 hidden layers and 0 heads"),
        (v5(records=[VALUE_RECORD] * 5), "2 hidden layers and 5 heads"),
        (v5(layers=0, widths=(0, 0, 0)), "0 hidden layers"),
        (v5(layers=4), "4 hidden layers"),
        (v5(widths=(64, 0, 0)), r"a layer has 1 to 4096 units: \(64, 0\)"),
        (v5(widths=(5000, 32, 0)), "a layer has 1 to 4096 units"),
        (v5(records=[(4, 1, 1, 0, 0, 0)]), "no head has kind 4"),
        (v5(records=[(99, 1, 1, 0, 0, 0)]), "no head has kind 99"),
        (v5(records=[VALUE_RECORD, (S.PLIES, 1, 0, 3, 32, 32)]), "a head of 3 layers of its own"),
        (v5(records=[(S.VALUE, 1, 2, 0, 0, 0)]), "reads one of the 2 shared layers, not 3"),
        (v5(records=[PLIES_RECORD, (S.VALUE, 1, 1 << 31, 0, 0, 0)]), "reads one of the 2 shared"),
        (v5(records=[VALUE_RECORD, VALUE_RECORD]), r"each kind once: \[0, 0\]"),
        (v5(records=[(S.VALUE, 2, 1, 0, 0, 0)]), "a value head has 1 to 1 outputs, not 2"),
        (v5(records=[(S.OUTCOMES, 0, 1, 0, 0, 0)]), "outcomes head has 1 to 16 outputs, not 0"),
        (v5(records=[(S.PLIES, 1, 0, 1, 0, 0)]), "a head has up to 2 layers of 1 to 4096 units"),
        (v5(inputs=0), "1 to 65536 inputs, not 0"),
        (v5()[:-4], "too short"),
        (v5(heads=3), "too short"),
        (v5() + bytes(4 * PARAMS - 4), "bytes; a network 52-64-32: value takes"),
        (v5() + bytes(4 * PARAMS + 4), "bytes; a network 52-64-32: value takes"),
        (v5(records=[VALUE_RECORD, PLIES_RECORD]) + bytes(4 * PARAMS), "value, plies"),
    ],
)
def test_each_kind_of_bad_version_5_header_is_refused(tmp_path, content, phrase):
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    with pytest.raises(WeightsFileError, match=phrase) as error:
        read_network(path)
    assert type(error.value) is WeightsFileError
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_every_damaged_header_field_is_a_weights_file_error_or_loads(tmp_path):
    """Each field of a version 5 header (three shared layers, two heads with layers of their own)
    changed to a few values: the file loads as a network of its shape or is refused with a
    WeightsFileError, never another exception."""
    shape = Network(9, (4, 3, 2), (S.Head(S.PLIES, 1, (2, 2), 0), S.outcomes_head(2, (3,))))
    good = v5_header(0, shape) + shape.random(1)[PLAN:].astype("<f4").tobytes()
    path = tmp_path / "damaged.bin"
    loaded = refused = 0
    for field in range(4, header_bytes(shape), 4):  # every u32 after the magic
        low = [(field, value) for value in (0, 1, 2, 5, 0xFF)]
        for i, value in [*low, (field + 3, 0x80)]:
            path.write_bytes(good[:i] + bytes([value]) + good[i + 1 :])
            try:
                network = read_network(path)
            except WeightsFileError:
                refused += 1
                continue
            loaded += 1
            assert S.network_of(network.array) == network.network
            assert path.stat().st_size == file_bytes(network.network)
    assert loaded and refused


def test_a_missing_file_is_rejected(tmp_path):
    with pytest.raises(WeightsFileError, match="does not exist"):
        load_network(tmp_path / "nothing.bin", game_numbers.TIGERS)
