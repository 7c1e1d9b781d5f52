"""A network's shape, as data: its input count, one to three shared hidden layers of any widths,
and its heads, each optionally on hidden layers of its own (:class:`Network`).

A network travels as **one float32 array**: its *plan* (``PLAN`` numbers, exact small integers:
the shape and every layer's offset, :meth:`Network.plan`) and then its parameters. The compiled
kernels (:mod:`samuel.nn.network`) read the offsets from the plan, so one forward and one
backward pass serve every shape, and every piece of code that holds a network knows its shape
without guessing it from a length. :func:`network_of` reads the shape back and checks the plan
is exactly the one that shape has, so no array with a forged plan reaches a kernel.

**Parameters.** Layer by layer, each layer's weights then its biases: the shared layers first
(layer 1 *input-major*, input ``i``'s weights contiguous, so the sparse forward pass adds whole
rows; every other layer *unit-major*, unit ``k``'s incoming weights contiguous), then each head in
the order of ``heads``: its own hidden layers, then its output layer. So the first network
(``inputs -> 64 -> 32 -> 1 tanh``), the one with a plies-left head (its own 32 units on the first
layer) and Samuel Zero's (those two and a policy on the last layer) are laid out exactly as they
always were, and their files load bit for bit.

**Heads** (``HEADS``): ``value``, one tanh output in -1..1; ``plies``, one output,
``PLIES_SCALE * softplus``, in plies (seed 003's moves-left head); ``policy``, one linear logit
per action; ``outcomes``, independent sigmoid outputs, one per outcome class (e.g. a backgammon
side's win, gammon and backgammon). A network has each kind at most once. A network with an
outcome head and no value head is *valued by its outcomes*: the head has an even number of
outputs, the chances of winning by at least 1, 2 ... k points then of losing by at least 1 ... k,
and the network's value is the expected points (``network.expected_points``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HIDDEN = (64, 32)  # the shared layers of every network trained so far
HEAD_HIDDEN = 32  # the plies-left head's own layer, on the first shared layer

VALUE, PLIES, POLICY, OUTCOMES = range(4)
HEADS = ("value", "plies", "policy", "outcomes")
MAX_LAYERS = 3  # shared hidden layers
MAX_HEAD_LAYERS = 2  # a head's own hidden layers
MAX_WIDTH = 4096  # units in a layer
MAX_INPUTS = 1 << 16
MAX_OUTCOMES = 16
MAX_ACTIONS = 1 << 16
# Every offset is an exact float32 integer below 2**24 (16.7 million parameters, 64 MiB).
MAX_PARAMETERS = (1 << 24) - 1

# He initialisation's fan-in for layer 1: the inputs set at once in a typical position (about 20
# in both games: 4 tigers, up to 20 sheep and a few features of 58 inputs; up to 24 pieces of
# 128), not all.
HE_FAN_IN_LAYER1 = 20
# Policy weights start small (a tenth of He's scale): the priors start near uniform over the
# legal moves, so the first searches are not steered by noise.
POLICY_INIT_SCALE = 0.1

# The plan: where each number sits in the array's first PLAN entries.
PLAN_MARK = 5.0  # plan[MARK]: tells a network array from a bare parameter array
MARK, INPUTS, LAYERS, WIDTH, W, B, ACT, FORWARD_SCRATCH, SIZE = 0, 1, 2, 3, 6, 9, 12, 15, 16
HEAD_COUNT, ORDER = 17, 18  # the heads' number, and their kinds in the array's order
HEAD_BASE = 22  # then one block of HEAD_SLOTS per head kind, by kind
# A head's block: present, the shared layer it reads (0-based), its own layer count, their
# widths, weights, biases and activations (MAX_HEAD_LAYERS each), its outputs, their weights,
# biases and activations (the outputs' values, in scratch).
H_PRESENT, H_SOURCE, H_LAYERS, H_WIDTH, H_W, H_B, H_ACT = 0, 1, 2, 3, 5, 7, 9
H_OUTPUTS, H_OUT_W, H_OUT_B, H_OUT_ACT = 11, 12, 13, 14
HEAD_SLOTS = 15
# The plan takes a whole number of 64-byte cache lines, so each layer keeps the alignment it
# has from the array's start (a row of 64 weights misaligned by 8 bytes spans one line more).
PLAN = 96
assert HEAD_BASE + len(HEADS) * HEAD_SLOTS <= PLAN


@dataclass(frozen=True)
class Head:
    """One head: its kind (``VALUE``, ``PLIES``, ``POLICY``, ``OUTCOMES``), its outputs (1 for a
    value or plies; the actions of a policy; the outcome classes), its own hidden layers' widths
    (empty: none), and the shared layer it reads (0-based; -1: the last)."""

    kind: int
    outputs: int = 1
    hidden: tuple[int, ...] = ()
    source: int = -1

    @property
    def name(self) -> str:
        return HEADS[self.kind]


def value_head() -> Head:
    return Head(VALUE)


def plies_head() -> Head:
    """The moves-left head as it has always been: 32 units of its own on the first shared layer.
    It reads h1, not h2: a linear head on the value's h2 learned distances poorly once the value
    layers were frozen (rank correlation 0.27 against 0.61 for a small MLP on h1)."""
    return Head(PLIES, 1, (HEAD_HIDDEN,), 0)


def policy_head(actions: int) -> Head:
    return Head(POLICY, actions)


def outcomes_head(classes: int, hidden: tuple[int, ...] = ()) -> Head:
    return Head(OUTCOMES, classes, tuple(hidden))


class ShapeError(ValueError):
    """A shape no network can have, or an array whose plan is not its shape's."""


@dataclass(frozen=True)
class Network:
    """A network's shape (see the module's docstring). The parameters are not here: they follow
    the plan in the network's array (:meth:`pack`)."""

    inputs: int
    hidden: tuple[int, ...] = HIDDEN
    heads: tuple[Head, ...] = (Head(VALUE),)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden", tuple(int(w) for w in self.hidden))
        heads = tuple(self.heads)
        for head in heads:
            _check_head(head, len(self.hidden))
        # a head that reads "the last" layer says which, so equal shapes compare equal
        last = len(self.hidden) - 1
        heads = tuple(
            Head(h.kind, h.outputs, tuple(h.hidden), h.source if h.source >= 0 else last)
            for h in heads
        )
        object.__setattr__(self, "heads", heads)
        if not 1 <= self.inputs <= MAX_INPUTS:
            raise ShapeError(f"a network has 1 to {MAX_INPUTS} inputs, not {self.inputs}")
        if not 1 <= len(self.hidden) <= MAX_LAYERS:
            raise ShapeError(f"a network has 1 to {MAX_LAYERS} hidden layers, not {self.hidden}")
        if not all(1 <= w <= MAX_WIDTH for w in self.hidden):
            raise ShapeError(f"a layer has 1 to {MAX_WIDTH} units: {self.hidden}")
        kinds = [h.kind for h in self.heads]
        if not kinds or len(set(kinds)) != len(kinds) or not set(kinds) <= set(range(len(HEADS))):
            raise ShapeError(f"a network has one to four heads, each kind once: {kinds}")
        outcomes = self.head(OUTCOMES)
        if outcomes is not None and not self.has(VALUE) and outcomes.outputs % 2:
            raise ShapeError(
                "a network valued by its outcome head has an even number of outcomes (wins by "
                f"1 ... k points, then losses), not {outcomes.outputs}"
            )
        if self.parameter_count > MAX_PARAMETERS:
            raise ShapeError(f"{self} has more than {MAX_PARAMETERS} parameters")

    # --- the shape's questions ------------------------------------------------------------------

    def head(self, kind: int) -> Head | None:
        return next((h for h in self.heads if h.kind == kind), None)

    def has(self, kind: int) -> bool:
        return self.head(kind) is not None

    @property
    def actions(self) -> int:
        """The policy's actions (0: no policy)."""
        policy = self.head(POLICY)
        return policy.outputs if policy else 0

    @property
    def parameter_count(self) -> int:
        return self._offsets()[0]

    @property
    def forward_scratch(self) -> int:
        """float32 scratch entries a forward pass and every head's outputs need."""
        return self._offsets()[1]

    @property
    def training_scratch(self) -> int:
        """Scratch entries a backward pass needs: the activations and their gradients."""
        return 2 * self.forward_scratch

    @property
    def size(self) -> int:
        """The length of the network's array: the plan and the parameters."""
        return PLAN + self.parameter_count

    def describe(self) -> str:
        """``58-64-32``, then its heads: ``value``, ``plies (32 on layer 1)``, ``policy (650)``."""
        parts = []
        for head in self.heads:
            extra = []
            if head.kind in (POLICY, OUTCOMES):
                extra.append(str(head.outputs))
            if head.hidden:
                own = "-".join(map(str, head.hidden))
                extra.append(f"{own} on layer {self._source(head) + 1}")
            parts.append(head.name + (f" ({', '.join(extra)})" if extra else ""))
        return "-".join(map(str, (self.inputs, *self.hidden))) + ": " + ", ".join(parts)

    def _source(self, head: Head) -> int:
        return head.source if head.source >= 0 else len(self.hidden) - 1

    def _offsets(self) -> tuple[int, int, list, list]:
        """(parameters, forward scratch, each shared layer's (w, b, act, n_in, n_out), each head's
        (own layers' (w, b, act, n_in, n_out), output (w, b, act, n_in, n_out)))."""
        at, act = PLAN, 0
        layers = []
        width = self.inputs
        for n in self.hidden:
            layers.append((at, at + width * n, act, width, n))
            at += width * n + n
            act += n
            width = n
        heads = []
        for head in self.heads:
            width = self.hidden[self._source(head)]
            own = []
            for n in head.hidden:
                own.append((at, at + width * n, act, width, n))
                at += width * n + n
                act += n
                width = n
            outputs = head.outputs
            heads.append((own, (at, at + width * outputs, act, width, outputs)))
            at += width * outputs + outputs
            if head.kind != POLICY:  # a policy's logits go where its caller says
                act += outputs
        return at - PLAN, act, layers, heads

    def layers(self) -> list[tuple[int, int, int, int, int]]:
        """Each shared layer's ``(weights, biases, activations, inputs, units)``: offsets in the
        array and in scratch."""
        return self._offsets()[2]

    def head_layers(self, kind: int) -> list[tuple[int, int, int, int, int]]:
        """The head's own layers and then its output layer, as :meth:`layers` gives them."""
        _, _, _, heads = self._offsets()
        for head, (own, out) in zip(self.heads, heads, strict=True):
            if head.kind == kind:
                return [*own, out]
        raise ShapeError(f"{self.describe()} has no {HEADS[kind]} head")

    def head_span(self, kind: int) -> tuple[int, int]:
        """Where the head's parameters start and end in the array."""
        layers = self.head_layers(kind)
        return layers[0][0], layers[-1][1] + layers[-1][4]

    # --- the array -------------------------------------------------------------------------------

    def plan(self) -> np.ndarray:
        """The plan, as the kernels read it (``PLAN`` float32 numbers)."""
        _, forward, layers, heads = self._offsets()
        plan = np.zeros(PLAN, dtype=np.float32)
        plan[MARK], plan[INPUTS], plan[LAYERS] = PLAN_MARK, self.inputs, len(self.hidden)
        for i, (w, b, act, _, n) in enumerate(layers):
            plan[WIDTH + i], plan[W + i], plan[B + i], plan[ACT + i] = n, w, b, act
        plan[FORWARD_SCRATCH], plan[SIZE] = forward, self.size
        plan[HEAD_COUNT] = len(self.heads)
        for i, head in enumerate(self.heads):
            plan[ORDER + i] = head.kind
        for head, (own, (w, b, act, _, outputs)) in zip(self.heads, heads, strict=True):
            at = HEAD_BASE + head.kind * HEAD_SLOTS
            plan[at + H_PRESENT], plan[at + H_SOURCE] = 1, self._source(head)
            plan[at + H_LAYERS] = len(own)
            for i, (lw, lb, lact, _, n) in enumerate(own):
                plan[at + H_WIDTH + i], plan[at + H_W + i] = n, lw
                plan[at + H_B + i], plan[at + H_ACT + i] = lb, lact
            plan[at + H_OUTPUTS], plan[at + H_OUT_W] = outputs, w
            plan[at + H_OUT_B], plan[at + H_OUT_ACT] = b, act
        return plan

    def pack(self, params: np.ndarray) -> np.ndarray:
        """The network's array: the plan, then ``params`` (its parameters, in order)."""
        params = np.asarray(params, dtype=np.float32)
        if params.shape != (self.parameter_count,):
            raise ShapeError(
                f"{self.describe()} has {self.parameter_count} parameters, not {params.shape}"
            )
        return np.concatenate([self.plan(), params])

    def random(self, seed: int) -> np.ndarray:
        """The network's array with He-initialised weights from ``seed``: normal weights scaled by
        sqrt(2 / fan_in) (layer 1's fan-in taken as ``HE_FAN_IN_LAYER1``, since only some of its
        inputs are set at once), zero biases, drawn layer by layer in the array's order; a policy
        head's from its own stream (``[seed, 1]``) at ``POLICY_INIT_SCALE`` of He's scale, so the
        other layers are the same with or without it. The first network, the one with the plies
        head and Zero's are drawn exactly as they always were."""
        array = np.zeros(self.size, dtype=np.float32)
        array[:PLAN] = self.plan()
        rng = np.random.default_rng(seed)
        for i, (w, b, _, n_in, n) in enumerate(self.layers()):
            fan_in = HE_FAN_IN_LAYER1 if i == 0 else n_in
            array[w:b] = rng.normal(0.0, np.sqrt(2.0 / fan_in), n_in * n)
        for head in self.heads:
            stream = np.random.default_rng([seed, 1]) if head.kind == POLICY else rng
            scale = POLICY_INIT_SCALE if head.kind == POLICY else 1.0
            for w, b, _, n_in, n in self.head_layers(head.kind):
                array[w:b] = stream.normal(0.0, scale * np.sqrt(2.0 / n_in), n_in * n)
        return array

    def with_heads(self, heads: tuple[Head, ...]) -> Network:
        return Network(self.inputs, self.hidden, heads)


def _check_head(head: Head, layers: int) -> None:
    if head.kind not in range(len(HEADS)):
        raise ShapeError(f"no head has kind {head.kind}")
    limit = {POLICY: MAX_ACTIONS, OUTCOMES: MAX_OUTCOMES}.get(head.kind, 1)
    if not 1 <= head.outputs <= limit:
        raise ShapeError(f"a {head.name} head has 1 to {limit} outputs, not {head.outputs}")
    if len(head.hidden) > MAX_HEAD_LAYERS or not all(1 <= w <= MAX_WIDTH for w in head.hidden):
        raise ShapeError(f"a head has up to {MAX_HEAD_LAYERS} layers of 1 to {MAX_WIDTH} units")
    if not -1 <= head.source < layers:
        raise ShapeError(f"a head reads one of the {layers} shared layers, not {head.source + 1}")


def network_of(array: np.ndarray) -> Network:
    """The shape of the network whose array is ``array``; :class:`ShapeError` unless its plan is
    exactly its shape's and its length the plan's (so a kernel can trust every offset)."""
    if not isinstance(array, np.ndarray) or array.ndim != 1 or array.shape[0] <= PLAN:
        raise ShapeError(f"a network is an array of its plan and parameters, not {_what(array)}")
    plan = np.asarray(array[:PLAN], dtype=np.float64)
    if plan[MARK] != PLAN_MARK or not np.all(plan == np.floor(plan)) or plan.min() < 0:
        raise ShapeError("the array does not start with a network's plan")
    if plan.max() > MAX_PARAMETERS + PLAN:
        raise ShapeError("the array's plan holds a number no network has")
    layers = int(plan[LAYERS])
    heads = []
    for kind in range(len(HEADS)):
        at = HEAD_BASE + kind * HEAD_SLOTS
        if plan[at + H_PRESENT]:
            own = int(plan[at + H_LAYERS])
            widths = tuple(int(w) for w in plan[at + H_WIDTH : at + H_WIDTH + min(own, 2)])
            heads.append((int(plan[at + H_OUT_W]), kind, widths, at))
    try:
        shape = Network(
            int(plan[INPUTS]),
            tuple(int(w) for w in plan[WIDTH : WIDTH + min(layers, MAX_LAYERS)]),
            tuple(
                Head(kind, int(plan[at + H_OUTPUTS]), widths, int(plan[at + H_SOURCE]))
                for _, kind, widths, at in sorted(heads)  # in the array's order
            ),
        )
    except ShapeError as error:
        raise ShapeError(f"the array's plan is no network's: {error}") from None
    if not np.array_equal(array[:PLAN], shape.plan()) or array.shape[0] != shape.size:
        raise ShapeError("the array's plan or length is not its shape's")
    return shape


def is_network_array(array) -> bool:
    try:
        network_of(array)
    except ShapeError:
        return False
    return True


def _what(array) -> str:
    return f"an array of shape {np.shape(array)}" if hasattr(array, "shape") else repr(type(array))


def widen(array: np.ndarray, wider: int) -> np.ndarray:
    """The network ``array`` as one of ``wider`` inputs whose new inputs, after the old ones,
    have no weight: the same function of the old inputs, whatever the new ones are set to. Works
    for every shape: layer 1 is input-major and comes first, so nothing after it changes but
    its place."""
    shape = network_of(array)
    if not shape.inputs <= wider:
        raise ShapeError(f"cannot widen a network of {shape.inputs} inputs to {wider}")
    wide = Network(wider, shape.hidden, shape.heads)
    split = PLAN + shape.inputs * shape.hidden[0]
    rows = np.zeros((wider - shape.inputs) * shape.hidden[0], dtype=np.float32)
    return np.concatenate([wide.plan(), array[PLAN:split], rows, array[split:]])


def without_head(array: np.ndarray, kind: int) -> np.ndarray:
    """The network ``array`` without its head of that kind (itself if it has none): every other
    layer's parameters as they were, so every other output is the same."""
    shape = network_of(array)
    if not shape.has(kind):
        return array
    start, end = shape.head_span(kind)
    rest = shape.with_heads(tuple(h for h in shape.heads if h.kind != kind))
    return np.concatenate([rest.plan(), array[PLAN:start], array[end:]])


def with_plies_head(array: np.ndarray, seed: int) -> np.ndarray:
    """The network ``array`` with a new plies head after its other parameters (its own layer He
    weights from ``seed``, its output small ones, so it starts near ``PLIES_SCALE * log 2`` plies
    everywhere); a network that has the head already is returned as it is (a copy)."""
    shape = network_of(array)
    if shape.has(PLIES):
        return np.array(array, dtype=np.float32)
    wider = shape.with_heads((*shape.heads, plies_head()))
    (w, b, _, n_in, n), (w_out, b_out, _, width, _) = wider.head_layers(PLIES)
    rng = np.random.default_rng(seed)
    head = np.zeros(wider.size - shape.size, dtype=np.float32)
    at = shape.size
    head[w - at : b - at] = rng.normal(0.0, np.sqrt(2.0 / n_in), n_in * n)
    head[w_out - at : b_out - at] = rng.normal(0.0, 0.1 * np.sqrt(2.0 / width), width)
    return np.concatenate([wider.plan(), array[PLAN:], head])
