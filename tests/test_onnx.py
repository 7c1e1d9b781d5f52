"""Every Samuel network as an ONNX model (``src/samuel/nn/onnx_model.py``): onnxruntime's outputs
against Samuel's own compiled forward pass on random dense inputs, for every shipped network and
networks of every shape; positions valued through onnxruntime
(``src/samuel/evaluation/onnx_runtime.py``) against ``outcome_predictions`` and the searches'
network evaluator on real positions of backgammon, long nardy, draughts and Tigers & Sheep; and
``samuel export --onnx``, its model checked by ``onnx.checker`` and run, and its one-line errors.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra: pip install 'samuel[onnx]'")
onnxruntime = pytest.importorskip("onnxruntime", reason="the onnx extra (onnxruntime)")

from samuel import cli  # noqa: E402  (after the skips: without the extra nothing here runs)
from samuel.evaluation import evaluators, onnx_runtime  # noqa: E402
from samuel.evaluation import kernels as evaluation  # noqa: E402
from samuel.evaluation.networks import (  # noqa: E402
    NETWORKS_FOLDER,
    load_network,
    load_network_or_phases,
    shipped_network,
)
from samuel.evaluation.outcomes import outcome_predictions  # noqa: E402
from samuel.games import get_game  # noqa: E402
from samuel.games import kernels as games  # noqa: E402
from samuel.nn import network as N  # noqa: E402
from samuel.nn.onnx_model import (  # noqa: E402
    OnnxNetwork,
    network_parts,
    onnx_model,
    output_names,
)
from samuel.nn.shape import (  # noqa: E402
    OUTCOMES,
    PLAN,
    PLIES,
    POLICY,
    Head,
    Network,
    ShapeError,
    network_of,
    outcomes_head,
    plies_head,
    policy_head,
    value_head,
)
from samuel.nn.weights import read_weights  # noqa: E402
from samuel.nn.zero import zero_shape  # noqa: E402

# onnxruntime sums in another order than the compiled pass: outputs agree to float32 rounding.
# Absolute for the value, the chances and the expected points (all within -3..3); relative for
# the plies (PLIES_SCALE times a softplus: tens of plies) and for the policy's logits, to the
# largest of the position's (Zero's reach 90, and a small logit is a difference of large sums).
TOLERANCE = 1e-5

SHAPES = {
    "16 value": Network(20, (16,)),
    "64-32 value": Network(40, (64, 32)),
    "256-128 value and plies": Network(30, (256, 128), (value_head(), plies_head())),
    "48-32-16 heads on own trunks": Network(
        40,
        (48, 32, 16),
        (value_head(), Head(PLIES, 1, (8,), 0), Head(OUTCOMES, 6, (12, 4), 1)),
    ),
    "policy on own layer": Network(
        24, (32, 16, 8), (Head(POLICY, 40, (16,), 1), value_head(), Head(PLIES, 1, (), 2))
    ),
    "zero": zero_shape(30, 50),
    "valued by outcomes": Network(25, (24, 12), (outcomes_head(6),)),
    "valued by outcomes on own layer, plies": Network(
        12, (8, 8), (outcomes_head(4, (5,)), plies_head())
    ),
    "outcomes beside a value": Network(25, (24, 12), (outcomes_head(3), value_head())),
    "policy only": Network(10, (8,), (policy_head(12),)),
}
SHIPPED = sorted(path.name for path in NETWORKS_FOLDER.glob("shipped*.bin"))


def network(shape: Network, seed: int) -> np.ndarray:
    """A network of the shape whose every parameter, biases too, carries a signal."""
    net = shape.random(seed)
    rng = np.random.default_rng(seed + 1)
    net[PLAN:] += rng.normal(0.0, 0.1, shape.parameter_count).astype(np.float32)
    return net


def dense_inputs(inputs: int, rows: int, seed: int) -> np.ndarray:
    """Random dense inputs as positions have them: most 0, the set ones mostly 1, some a
    fraction or more; one row with none set and one with every one set."""
    rng = np.random.default_rng(seed)
    values = np.where(rng.random((rows, inputs)) < 0.6, 1.0, rng.uniform(0.05, 1.5, (rows, inputs)))
    x = np.where(rng.random((rows, inputs)) < 0.25, values, 0.0).astype(np.float32)
    x[0] = 0.0
    x[1] = values[1]
    return x


def samuel_outputs(net: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
    """The compiled passes' outputs of the network for each row of ``x``, named as the model
    names them."""
    shape = network_of(net)
    rows: dict[str, list] = {name: [] for name in output_names(net)}
    for row in x:
        active = np.flatnonzero(row).astype(np.int64)
        values = row[active].astype(np.float32)
        room = np.zeros(shape.forward_scratch, dtype=np.float32)
        value = N.forward(net, active, values, len(active), room)
        if "value" in rows:  # a value head's, or the expected points
            rows["value"].append(value)
        if shape.has(PLIES):
            rows["plies"].append(N.plies_left(net, room))
        if shape.has(OUTCOMES):
            at = N.outcomes(net, room)
            rows["outcomes"].append(room[at : at + shape.head(OUTCOMES).outputs].copy())
        if shape.has(POLICY):
            legal = np.arange(shape.actions, dtype=np.int64)
            logits = np.zeros(shape.actions, dtype=np.float32)
            N.policy_logits(net, legal, shape.actions, logits, room)
            rows["policy"].append(logits)
    return {name: np.array(found, dtype=np.float64) for name, found in rows.items()}


def assert_close(name: str, found: np.ndarray, expected: np.ndarray) -> float:
    """Assert the output agrees within TOLERANCE (relative for plies and logits); return the
    largest absolute difference."""
    found = np.asarray(found, dtype=np.float64)
    assert found.shape == expected.shape, (name, found.shape, expected.shape)
    scale = 1.0
    if name.endswith("plies"):
        scale = np.maximum(1.0, np.abs(expected))
    elif name.endswith("policy"):
        scale = np.maximum(1.0, np.abs(expected).max(axis=-1, keepdims=True))
    difference = np.abs(found - expected)
    assert np.all(difference <= TOLERANCE * scale), (name, float(difference.max()))
    return float(difference.max(initial=0.0))


def assert_model_matches(params: np.ndarray, parts: list[np.ndarray], labels, seed: int) -> None:
    runner = OnnxNetwork(params)
    x = dense_inputs(runner.inputs, 16, seed)
    found = runner.evaluate(x)
    assert list(found) == list(runner.outputs)
    for label, part in zip(labels, parts, strict=True):
        for name, expected in samuel_outputs(part, x).items():
            assert_close(name, found[f"{label}/{name}" if label else name], expected)


# --- the model against the compiled forward pass ---------------------------------------------


@pytest.mark.parametrize("name", SHAPES)
def test_every_shape_s_outputs_match_the_compiled_pass(name):
    shape = SHAPES[name]
    net = network(shape, 7)
    model = onnx_model(net)
    onnx.checker.check_model(model, full_check=True)
    assert [o.name for o in model.graph.output] == list(output_names(net))
    assert_model_matches(net, [net], [""], seed=3)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_network_s_outputs_match_the_compiled_pass(name):
    loaded = read_weights(NETWORKS_FOLDER / name)
    parts = network_parts(loaded.array)
    runner = OnnxNetwork(loaded.array)
    labels = runner.phases or ("",)
    assert len(labels) == len(parts)
    assert_model_matches(loaded.array, parts, labels, seed=5)


def test_the_outputs_are_named_by_head_and_phase():
    backgammon = read_weights(NETWORKS_FOLDER / "shipped-backgammon.bin").array
    assert output_names(backgammon) == ("outcomes", "value")
    zero = read_weights(NETWORKS_FOLDER / "shipped-zero.bin").array
    assert output_names(zero) == ("value", "plies", "policy")
    nardy = read_weights(NETWORKS_FOLDER / "shipped-nardy.bin").array
    assert output_names(nardy, ("start", "middle", "race"))[:3] == (
        "start/outcomes",
        "start/value",
        "middle/outcomes",
    )
    assert output_names(nardy)[0] == "phase0/outcomes"
    with pytest.raises(ShapeError, match="3 different phase names"):
        output_names(nardy, ("start", "start", "race"))


def test_the_model_keeps_the_plan_s_layouts_and_runs_on_onnxruntime_1_17():
    shape = SHAPES["48-32-16 heads on own trunks"]
    net = network(shape, 2)
    model = onnx_model(net)
    weights = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    w, b, _, n_in, n_out = shape.layers()[0]
    assert np.array_equal(weights["shared1/weights"], net[w:b].reshape(n_in, n_out))
    w, b, _, n_in, n_out = shape.layers()[1]
    assert np.array_equal(weights["shared2/weights"], net[w:b].reshape(n_out, n_in))
    assert model.opset_import[0].version <= 20 and model.ir_version <= 9  # onnxruntime 1.17's


def test_bad_inputs_and_arrays_are_refused():
    runner = OnnxNetwork(network(SHAPES["16 value"], 1))
    assert runner.evaluate(np.zeros((0, 20)))["value"].shape == (0,)
    for bad in (np.zeros((2, 19)), np.zeros(20), [["a"] * 20]):
        with pytest.raises(ValueError, match="inputs"):
            runner.evaluate(bad)
    with pytest.raises(ValueError, match="NaN"):
        runner.evaluate(np.full((1, 20), np.nan))
    with pytest.raises(ShapeError):
        onnx_model(np.zeros(200, dtype=np.float32))


# --- positions through onnxruntime against Samuel's evaluation -------------------------------


def random_states(name: str, count: int, seed: int) -> np.ndarray:
    """Kernel states of positions reached by random play, dice rolled or to roll, none over."""
    rules = get_game(name)
    rng = random.Random(seed)
    found = []
    position, plies = rules.initial_position(), 0
    while len(found) < count:
        if rules.decided_outcome(position) is not None or plies > 300:
            position, plies = rules.initial_position(), 0
            continue
        if rng.random() < 0.5:
            found.append(rules.encode(position))
        chances = rules.chance_outcomes(position)
        if chances:
            outcomes, weights = zip(*chances, strict=True)
            position = rules.play(position, rng.choices(outcomes, weights)[0])
        else:
            position = rules.play(position, rng.choice(rules.legal_moves(position)))
        plies += 1
    return np.stack(found).astype(np.int64)


def samuel_values(game: int, params: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The searches' network evaluator's value of each position (first player's view)."""
    phased = params[0] != 5.0
    evaluator = games.EVALUATOR_PHASED if phased else games.EVALUATOR_NETWORK
    scratch = np.zeros(evaluators.scratch_size(game, evaluator, params), dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    value = evaluation.phased_value if phased else evaluation.network_value
    return np.array([value(game, params, s, scratch, active) for s in states])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["backgammon", "nardy", "draughts", "tigers"])
def test_positions_get_samuel_s_values_and_chances(name):
    rules = get_game(name)
    game = rules.number
    params = load_network_or_phases(shipped_network(game), game)
    states = random_states(name, 60, seed=4)
    runner = onnx_runtime.onnx_network(game, params)
    found = onnx_runtime.network_values(game, runner, states)
    expected = samuel_values(game, params, states)
    assert_close("value", found, expected)
    if name in ("backgammon", "nardy"):
        assert runner.phases == (("start", "middle", "race") if name == "nardy" else ())
        chances = onnx_runtime.outcome_predictions(game, runner, states)
        assert_close("outcomes", chances, outcome_predictions(game, params, states))
        # both views occur, so the swap of wins and losses is tested
        signs = {games.network_sign(game, s) for s in states}
        assert signs == {-1, 1}
    else:
        with pytest.raises(ValueError, match="no outcome head"):
            onnx_runtime.outcome_predictions(game, runner, states)
    if name == "draughts":  # the side to move's view, turned for the first player
        assert {games.network_sign(game, s) for s in states} == {-1, 1}
    if name == "tigers":  # the shipped file's 52 inputs, loaded widened to the game's 58
        assert runner.inputs == 58 == onnx_runtime.position_inputs(game, states).shape[1]


@pytest.mark.slow
def test_the_dense_inputs_are_the_encoder_s_set_inputs():
    rules = get_game("backgammon")
    states = random_states("backgammon", 5, seed=2)
    dense = onnx_runtime.position_inputs(rules.number, states)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(games.MAX_SET_INPUTS, dtype=np.float32)
    for row, state in zip(dense, states, strict=True):
        n = games.network_inputs(rules.number, state, active, values)
        assert np.array_equal(row, N.dense_inputs(len(row), active, values, n))


def test_bad_positions_and_another_game_s_network_are_refused():
    backgammon = get_game("backgammon").number
    draughts = get_game("draughts").number
    with pytest.raises(ValueError, match=r"\(n, 4\) array"):
        onnx_runtime.position_inputs(backgammon, np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        onnx_runtime.position_inputs(backgammon, np.zeros((2, 4)))
    with pytest.raises(ValueError, match="not a Backgammon position"):
        onnx_runtime.position_inputs(backgammon, np.full((1, 4), -1, dtype=np.int64))
    params = load_network(shipped_network(backgammon), backgammon)
    with pytest.raises(ValueError, match="English draughts's network has 128 inputs"):
        onnx_runtime.onnx_network(draughts, params)


# --- samuel export --onnx --------------------------------------------------------------------


def test_export_writes_a_checked_model_that_runs(tmp_path, capsys):
    out = tmp_path / "backgammon.onnx"
    source = NETWORKS_FOLDER / "shipped-backgammon.bin"
    assert cli.main(["export", "--onnx", str(source), str(out)]) == 0
    said = capsys.readouterr().out
    assert said.strip() == (
        f"wrote {out}: Backgammon network 196-64-32: outcomes (6); outputs outcomes "
        "[batch, 6], value [batch]"
    )
    onnx.checker.check_model(str(out), full_check=True)
    model = onnx.load(str(out))
    assert {p.key: p.value for p in model.metadata_props}["samuel.game"] == "backgammon"
    session = onnxruntime.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    params = read_weights(source).array
    x = dense_inputs(196, 8, seed=9)
    chances, value = session.run(["outcomes", "value"], {"inputs": x})
    expected = samuel_outputs(params, x)
    assert_close("outcomes", chances, expected["outcomes"])
    assert_close("value", value, expected["value"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backgammon.onnx"]  # no temporary


def test_export_names_the_phases_and_widens_an_earlier_layout(tmp_path, capsys):
    nardy = tmp_path / "nardy.onnx"
    source = NETWORKS_FOLDER / "shipped-nardy.bin"
    assert cli.main(["export", "--onnx", str(source), str(nardy)]) == 0
    said = capsys.readouterr().out
    assert "network per phase (start, middle, race: 194-64-32: outcomes (6) each)" in said
    assert "start/outcomes [batch, 6], start/value [batch], middle/outcomes" in said
    tigers = tmp_path / "tigers.onnx"
    assert cli.main(["export", "--onnx", str(NETWORKS_FOLDER / "shipped.bin"), str(tigers)]) == 0
    assert "network 58-64-32: value (the file's 52 inputs widened" in capsys.readouterr().out
    session = onnxruntime.InferenceSession(str(tigers), providers=["CPUExecutionProvider"])
    x = dense_inputs(58, 8, seed=1)
    [value] = session.run(["value"], {"inputs": x})
    game = get_game("tigers").number
    widened = load_network(shipped_network(game), game)
    assert_close("value", value, samuel_outputs(widened, x)["value"])


@pytest.mark.parametrize(
    ("source", "out", "phrase"),
    [
        ("missing.bin", "out.onnx", "missing.bin"),
        ("corrupt.bin", "out.onnx", "corrupt.bin is too short (12 bytes)"),
        ("truncated.bin", "out.onnx", "truncated.bin is 2000 bytes; a network 128-64-32: value"),
        ("notes.bin", "out.onnx", "notes.bin is not a TSNN network"),
        ("SHIPPED", "nowhere/out.onnx", "its folder, nowhere, does not exist"),
        ("SHIPPED", "notes.bin/out.onnx", "its folder, notes.bin, is not a folder"),
        ("SHIPPED", ".", "cannot write the ONNX model .: it is a folder"),
        ("net.bin", "net.bin", "net.bin is the weights file itself"),
    ],
)
def test_export_mistakes_get_one_line_and_write_nothing(
    tmp_path, monkeypatch, capsys, source, out, phrase
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corrupt.bin").write_bytes(b"TSNN" + (5).to_bytes(4, "little") + b"\0" * 4)
    (tmp_path / "notes.bin").write_text("not a network\n")
    draughts = (NETWORKS_FOLDER / "shipped-draughts.bin").read_bytes()
    (tmp_path / "net.bin").write_bytes(draughts)
    (tmp_path / "truncated.bin").write_bytes(draughts[:2000])
    before = sorted(p.name for p in tmp_path.iterdir())
    shipped = str(NETWORKS_FOLDER / "shipped-draughts.bin")
    assert cli.main(["export", "--onnx", shipped if source == "SHIPPED" else source, out]) == 2
    error = capsys.readouterr().err
    assert phrase in error and error.count("\n") == 1, error
    assert error.startswith("samuel export: error: ") and "Traceback" not in error
    assert sorted(p.name for p in tmp_path.iterdir()) == before
