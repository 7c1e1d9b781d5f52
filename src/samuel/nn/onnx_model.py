"""A Samuel network as an ONNX model, and onnxruntime running one: ``samuel export --onnx`` writes
it, and the server's ``--runtime onnx`` evaluates through it (:class:`OnnxNetwork`). The module is
named so as not to shadow the ``onnx`` package; ``onnx`` and ``onnxruntime`` (the ``onnx`` extra)
are imported only when a model is built or run, so the core never needs them.

**The model** (opset ``OPSET``, IR version ``IR_VERSION``: what onnxruntime 1.17 and later run)
computes exactly what the compiled forward pass (:mod:`samuel.nn.network`) does, densely, for a
batch at once. Its one input, ``inputs``, is float32 ``[batch, inputs]``: each row a position's
inputs, dense (0 where an input is not set; the game's encoder lists the set ones). Its outputs,
one per head, in the order of the network's heads:

- ``value``: float32 ``[batch]``, the value head's ``tanh``, in the view the game's encoding
  gives (the first player's, or the side to move's: the model knows no game);
- ``plies``: ``[batch]``, the moves-left head's ``PLIES_SCALE * softplus``, in plies;
- ``policy``: ``[batch, actions]``, the policy's raw logits over every action (a softmax over the
  legal moves' logits gives the priors, :mod:`samuel.nn.zero`);
- ``outcomes``: ``[batch, outcomes]``, the outcome head's sigmoids;
- and, for a network *valued by its outcomes* (an outcome head, no value head), ``value`` too,
  last: the expected points, the first half's chances less the second's, as the compiled forward
  pass values such a network (``network.expected_points``).

The hidden activation is Samuel's, ReLU, on every hidden layer. The weights are initializers laid
out as the plan lays them out (:mod:`samuel.nn.shape`): layer 1 input-major, ``[inputs, units]``,
read by a ``Gemm``; every other layer unit-major, ``[units, inputs]``, read by a ``Gemm`` with
``transB``. The sums run in another order than the compiled pass's, so the outputs agree to
float32 rounding (``tests/test_onnx.py``), not bit for bit.

**A network per phase** (:mod:`samuel.nn.phased`: long nardy's start, middle and race) is one
model of all its phases' networks side by side, each reading the same ``inputs``, its outputs
named with its phase's name first: ``start/value``, ``middle/outcomes``... Which phase a position
is in is the game's to say (the compiled ``phase``), so the caller picks each row's outputs
from its phase's (:mod:`samuel.evaluation.onnx_runtime` does). One model keeps the phases in one
file and one session; the price, every phase computed for every row, is small beside a session
call's overhead at the batch sizes an analysis asks for.

**What is not in the model.** A weights file holds its game's number and its networks only; the
model's metadata records the shapes and the phases (``samuel.shape``, ``samuel.phases``), and
``samuel export`` adds the game's (``samuel.game``, ``samuel.game_number``). What
else changes an evaluation is the player's, not the network's, and stays out: the moves-left
evaluator's nudge (its threshold, effect and slope are player options, its reference the
search's root: ``evaluation/moves_left.py``), the hybrid's classic score and scale, and the turn
of a side-to-move value into the first player's view (the game's ``network_sign``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import write_atomically

from .network import PLIES_SCALE
from .phased import is_phased, phase_networks, phases_of
from .shape import OUTCOMES, PLIES, POLICY, VALUE, Network, ShapeError, network_of

OPSET = 17  # Gemm, Relu, Tanh, Softplus, Sigmoid and Reshape as onnxruntime 1.17 runs them
IR_VERSION = 8  # opset 17's; onnx's own default is newer than onnxruntime 1.17 reads
INPUT = "inputs"
PRODUCER = "samuel"
INSTALL = "pip install 'samuel[onnx]'"


class OnnxUnavailableError(SamuelError, ImportError):
    """``onnx`` or ``onnxruntime`` is not installed: the message says how to install it."""


def _load(package: str):
    """The ``onnx`` or ``onnxruntime`` module, or :class:`OnnxUnavailableError`."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise OnnxUnavailableError(f"ONNX needs the {package} package: {INSTALL}") from None


def check_available() -> None:
    """Raise :class:`OnnxUnavailableError` unless onnx and onnxruntime can be imported."""
    _load("onnx")
    _load("onnxruntime")


def network_parts(params: np.ndarray) -> list[np.ndarray]:
    """The network arrays in ``params``: itself, or each phase's network of a network per phase
    (phase 0 first); :class:`ShapeError` for an array that is neither, or phases of other inputs."""
    if is_phased(params):
        phases_of(params)  # checks the header and every offset
        parts = phase_networks(params)
    else:
        network_of(params)
        parts = [params]
    inputs = {network_of(part).inputs for part in parts}
    if len(inputs) != 1:
        raise ShapeError(f"the phases' networks have different input counts: {sorted(inputs)}")
    return parts


def phase_labels(params: np.ndarray, phase_names: Sequence[str] | None = None) -> tuple[str, ...]:
    """The names the outputs of each phase start with: ``phase_names`` (the game's, one a
    phase), or ``phase0``, ``phase1`` ... without them; () for one network."""
    parts = network_parts(params)
    if not is_phased(params):
        return ()
    if phase_names is None:
        return tuple(f"phase{p}" for p in range(len(parts)))
    names = tuple(str(name) for name in phase_names)
    if len(names) != len(parts) or len(set(names)) != len(names) or not all(names):
        raise ShapeError(
            f"a network of {len(parts)} phases needs {len(parts)} different phase names, not "
            f"{list(names)}"
        )
    return names


def head_outputs(shape: Network) -> tuple[str, ...]:
    """The model's outputs of one network, in order: its heads', then ``value`` for a network
    valued by its outcomes."""
    names = [head.name for head in shape.heads]
    if _valued_by_outcomes(shape):
        names.append("value")
    return tuple(names)


def output_names(params: np.ndarray, phase_names: Sequence[str] | None = None) -> tuple[str, ...]:
    """Every output of the model of ``params``, in order (``start/value``... for phases)."""
    labels = phase_labels(params, phase_names)
    parts = network_parts(params)
    if not labels:
        return head_outputs(network_of(parts[0]))
    return tuple(
        f"{label}/{name}"
        for label, part in zip(labels, parts, strict=True)
        for name in head_outputs(network_of(part))
    )


def _valued_by_outcomes(shape: Network) -> bool:
    return shape.has(OUTCOMES) and not shape.has(VALUE)


class _Graph:
    """The nodes and initializers of a model as they are added."""

    def __init__(self, onnx) -> None:
        self.onnx = onnx
        self.nodes: list = []
        self.initializers: list = []

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(self.onnx.numpy_helper.from_array(value, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, **attributes) -> str:
        self.nodes.append(
            self.onnx.helper.make_node(op, inputs, [output], name=output, **attributes)
        )
        return output

    def dense(self, x: str, params: np.ndarray, layer, name: str, input_major: bool) -> str:
        """``W x + b`` for the layer ``(w, b, _, n_in, n_out)`` of ``params``, its weights as
        the array lays them out: ``[n_in, n_out]`` input-major, else ``[n_out, n_in]``."""
        w, b, _, n_in, n_out = layer
        rows = (n_in, n_out) if input_major else (n_out, n_in)
        weights = self.constant(f"{name}/weights", params[w:b].reshape(rows))
        biases = self.constant(f"{name}/biases", params[b : b + n_out].copy())
        transposed = 0 if input_major else 1
        return self.node("Gemm", [x, weights, biases], f"{name}/sum", transB=transposed)

    def relu_layer(self, x: str, params: np.ndarray, layer, name: str, input_major: bool) -> str:
        return self.node("Relu", [self.dense(x, params, layer, name, input_major)], name)


def _add_network(graph: _Graph, params: np.ndarray, prefix: str) -> list[tuple[str, list]]:
    """Add one network reading ``inputs``; return its outputs' names and shapes."""
    shape = network_of(params)
    params = np.asarray(params, dtype=np.float32)
    shared = []
    x = INPUT
    for i, layer in enumerate(shape.layers()):
        x = graph.relu_layer(x, params, layer, f"{prefix}shared{i + 1}", input_major=i == 0)
        shared.append(x)
    if shape.has(VALUE) or shape.has(PLIES):  # their [batch, 1] made [batch]
        flat = graph.constant(f"{prefix}flat", np.array([-1], dtype=np.int64))
    outputs = []
    for head in shape.heads:
        name = f"{prefix}{head.name}"
        *own, last = shape.head_layers(head.kind)
        x = shared[head.source]
        for i, layer in enumerate(own):
            x = graph.relu_layer(x, params, layer, f"{name}/hidden{i + 1}", input_major=False)
        z = graph.dense(x, params, last, f"{name}/output", input_major=False)
        if head.kind == VALUE:
            graph.node("Reshape", [graph.node("Tanh", [z], f"{name}/tanh"), flat], name)
        elif head.kind == PLIES:
            soft = graph.node("Softplus", [z], f"{name}/softplus")
            scale = graph.constant(f"{name}/scale", np.array(PLIES_SCALE, dtype=np.float32))
            plies = graph.node("Mul", [soft, scale], f"{name}/scaled")
            graph.node("Reshape", [plies, flat], name)
        elif head.kind == POLICY:
            graph.node("Identity", [z], name)
        else:
            graph.node("Sigmoid", [z], name)
        one = head.kind in (VALUE, PLIES)
        outputs.append((name, ["batch"] if one else ["batch", head.outputs]))
    if _valued_by_outcomes(shape):
        # the expected points: wins by at least 1 ... k less losses by at least 1 ... k
        half = shape.head(OUTCOMES).outputs // 2
        signs = np.concatenate([np.ones(half), -np.ones(half)]).astype(np.float32)
        weights = graph.constant(f"{prefix}value/signs", signs)
        name = graph.node("MatMul", [f"{prefix}outcomes", weights], f"{prefix}value")
        outputs.append((name, ["batch"]))
    return outputs


def onnx_model(
    params: np.ndarray,
    phase_names: Sequence[str] | None = None,
    metadata: Mapping[str, str] | None = None,
):
    """The ONNX model (an ``onnx.ModelProto``) of the network ``params`` (a network's array, or a
    network per phase's packed array, whose outputs start with ``phase_names``: see
    :func:`phase_labels`), with ``metadata`` added to its own (names as ``samuel.game``).
    :class:`ShapeError` for an array that is no network; :class:`OnnxUnavailableError` without
    the ``onnx`` package."""
    onnx = _load("onnx")
    params = np.asarray(params, dtype=np.float32)
    parts = network_parts(params)
    labels = phase_labels(params, phase_names) or ("",)
    graph = _Graph(onnx)
    outputs = []
    for label, part in zip(labels, parts, strict=True):
        outputs += _add_network(graph, part, f"{label}/" if label else "")
    float32 = onnx.TensorProto.FLOAT
    inputs = network_of(parts[0]).inputs
    model = onnx.helper.make_model(
        onnx.helper.make_graph(
            graph.nodes,
            "samuel_network",
            [onnx.helper.make_tensor_value_info(INPUT, float32, ["batch", inputs])],
            [onnx.helper.make_tensor_value_info(name, float32, dims) for name, dims in outputs],
            graph.initializers,
        ),
        opset_imports=[onnx.helper.make_opsetid("", OPSET)],
        ir_version=IR_VERSION,
        producer_name=PRODUCER,
    )
    assert [name for name, _ in outputs] == list(output_names(params, phase_names))
    shapes = "; ".join(network_of(part).describe() for part in parts)
    props = {"samuel.shape": shapes}
    if labels != ("",):
        props["samuel.phases"] = ", ".join(labels)
    onnx.helper.set_model_props(model, {**props, **dict(metadata or {})})
    return model


def describe_outputs(model) -> str:
    """The model's outputs with their shapes: ``outcomes [batch, 6], value [batch]``."""
    described = []
    for output in model.graph.output:
        dims = [d.dim_param or str(d.dim_value) for d in output.type.tensor_type.shape.dim]
        described.append(f"{output.name} [{', '.join(dims)}]")
    return ", ".join(described)


def save_onnx(
    params: np.ndarray,
    path: str | os.PathLike,
    phase_names: Sequence[str] | None = None,
    metadata: Mapping[str, str] | None = None,
):
    """Write :func:`onnx_model` of ``params`` to ``path``, atomically (a temporary file in the
    same folder, renamed into place); return the model."""
    model = onnx_model(params, phase_names, metadata)
    write_atomically(Path(path), model.SerializeToString())
    return model


class OnnxNetwork:
    """A network run by onnxruntime: an inference session made from the network's array in
    memory (no file). :meth:`evaluate` takes a batch of dense inputs and gives each output of
    the model (:func:`output_names`) by name. Many threads may call it at once (onnxruntime's
    sessions run concurrently), so one per network serves a whole server.

    ``threads``: onnxruntime's threads for one call; 1 by default, since a server runs many
    calls at once, each on its own thread, and these small networks gain nothing from splitting
    one batch (0: onnxruntime's own choice, every core)."""

    def __init__(
        self,
        params: np.ndarray,
        phase_names: Sequence[str] | None = None,
        threads: int = 1,
    ) -> None:
        runtime = _load("onnxruntime")
        model = onnx_model(params, phase_names)
        options = runtime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: its notes on graph rewrites are not ours
        self.params = np.array(params, dtype=np.float32)  # a copy: the model is of these
        self.params.setflags(write=False)
        self.phases = phase_labels(self.params, phase_names)
        self.inputs = network_of(network_parts(self.params)[0]).inputs
        self.outputs = output_names(self.params, phase_names)
        self._session = runtime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def output(self, head: str, phase: int | None = None) -> str:
        """The name of the output ``head`` (``value``...) of phase number ``phase`` (None: of the
        one network); KeyError if the model has no such output."""
        name = head if phase is None else f"{self.phases[phase]}/{head}"
        if name not in self.outputs:
            raise KeyError(f"the model has no output {name!r}; it has {', '.join(self.outputs)}")
        return name

    def evaluate(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        """Every output of the model for the dense ``inputs`` (``[batch, inputs]``, numbers):
        ``value`` and ``plies`` ``[batch]``, ``policy`` and ``outcomes`` ``[batch, n]``, float32.
        ValueError for inputs of another shape, or not all finite."""
        try:
            batch = np.ascontiguousarray(inputs, dtype=np.float32)
        except (TypeError, ValueError):
            raise ValueError("a network's inputs are an array of numbers") from None
        if batch.ndim != 2 or batch.shape[1] != self.inputs:
            raise ValueError(
                f"the network's inputs are a [batch, {self.inputs}] array, not one of shape "
                f"{list(batch.shape)}"
            )
        if not np.isfinite(batch).all():
            raise ValueError("the network's inputs hold a NaN or an infinity")
        results = self._session.run(list(self.outputs), {INPUT: batch})
        return dict(zip(self.outputs, results, strict=True))
