"""The network's file format (the seed's ``TSNN``), all little-endian. Version 5, written, holds
the network's whole shape (:class:`samuel.nn.shape.Network`):

=======  =====================================================
bytes    contents (version 5)
=======  =====================================================
0..4     ``TSNN``
4..8     version (u32, 5)
8..12    the game's number (u32)
12..16   inputs (u32)
16..20   shared hidden layers (u32, 1 to 3)
20..32   their widths (u32 each; 0 past the last)
32..36   heads (u32, 1 to 4)
36..     each head, in the parameters' order: kind (0 value, 1 plies, 2 policy, 3 outcomes),
         outputs, the shared layer it reads (from 0), its own layers (0 to 2) and their two
         widths (u32 each, 0 where there is none)
then     every parameter as f32, in the network's order (:mod:`samuel.nn.shape`)
=======  =====================================================

Version 6 holds **one network per phase** (:mod:`samuel.nn.phased`): magic, version (6), the
game, the number of phases (u32, 2 to ``MAX_PHASES``), then each phase's network, phase 0 first,
as a whole version 5 record (from its own ``TSNN`` on), all of the same game and inputs.

The older versions are read, and load as the networks they always were, bit for bit; all of
them have the shared layers 64-32:

- version 4, a Samuel Zero network: magic, version, game, inputs, 64, 32, heads (7: the value,
  plies left and the policy), the policy's actions, then the parameters;
- version 3: magic, version, game, inputs, 64, 32, heads (a bit set: 1 the value, 2 plies left);
- version 2: version 3 without the heads field, a value network;
- version 1 (the seed's): no game either (every version 1 file predates the other games, so it
  reads as game ``VERSION1_GAME``, 0, Tigers & Sheep).

Loading rejects a wrong magic, version, shape, file size or a parameter that is not finite or
larger than ``LARGEST_WEIGHT`` (whose forward pass could overflow) with a message that says which
(never quoting the file's bytes), and opens regular files only. It reads the game and the shape
from the header; whether they are the ones wanted is the caller's check
(:mod:`samuel.evaluation.networks`, which knows the games' names). Changing what an input *means*
without changing the sizes calls for bumping ``VERSION``. Files are written atomically: a
temporary file in the same folder, renamed into place.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import FileError, open_regular, write_atomically

from .phased import MAX_PHASES, pack_phases, phase_networks
from .shape import (
    HIDDEN,
    MAX_HEAD_LAYERS,
    MAX_LAYERS,
    PLAN,
    Head,
    Network,
    ShapeError,
    network_of,
    plies_head,
    policy_head,
    value_head,
)

MAGIC = b"TSNN"
VERSION = 5
PREFIX = struct.Struct("<4sI")  # magic, version: enough to tell the header's form
HEADERS = {
    1: struct.Struct("<4s4I"),  # magic, version, inputs, hidden 1, hidden 2
    2: struct.Struct("<4s5I"),  # magic, version, game, inputs, hidden 1, hidden 2
    3: struct.Struct("<4s6I"),  # magic, version, game, inputs, hidden 1, hidden 2, heads
    4: struct.Struct("<4s7I"),  # ... heads, actions: a Zero network
    5: struct.Struct("<4s8I"),  # magic, version, game, inputs, layers, 3 widths, heads
    6: struct.Struct("<4s3I"),  # magic, version, game, phases: then a version 5 record each
}
PHASED_VERSION = 6
HEAD_RECORD = struct.Struct("<6I")  # version 5: kind, outputs, source, layers, 2 widths
HEAD_VALUE = 1  # version 3's heads field's bits
HEAD_MOVES_LEFT = 2
HEAD_POLICY = 4
KNOWN_HEADS = (HEAD_VALUE, HEAD_VALUE | HEAD_MOVES_LEFT)
ZERO_VERSION = 4  # the version of a Zero network before version 5
ZERO_HEADS = HEAD_VALUE | HEAD_MOVES_LEFT | HEAD_POLICY
VERSION1_GAME = 0  # the game every version 1 file belongs to (they have no id)
MAX_HEADS = 4
# The largest weight a file may hold. Every network trained here has weights under 10 (the shipped
# ones: 3.5 to 8.4); a file with one past this holds no trained network, and one bounded so cannot
# overflow float32 in a forward pass: the inputs are at most 1 each and at most 128 are set, so
# with B = 1e4 and layers of at most 4096 units, h1 < 129 B, each further layer at most
# 4096 B times the one before, and after three shared layers and a head's output under
# 4096^3 x 129 B^4, about 1e29 (float32 reaches 3.4e38). Huge finite weights (3e38) made every
# evaluation NaN, and the search then said that the game was over.
LARGEST_WEIGHT = 1e4
# Files up to this size are opened, so that a network of other sizes is refused for its shape
# (the header says it) rather than for its size; only the header's size is ever read.
MAX_FILE_BYTES = 1 << 30


class WeightsFileError(SamuelError, ValueError):
    """A weights file that cannot be loaded (or is not for the game that wants it)."""


@dataclass(frozen=True)
class PhasedFile:
    """What a version 6 weights file holds: the game and one network per phase, packed
    (:mod:`samuel.nn.phased`)."""

    game: int
    networks: tuple[Network, ...]
    array: np.ndarray

    @property
    def inputs(self) -> int:
        return self.networks[0].inputs


@dataclass(frozen=True)
class NetworkFile:
    """What a weights file holds: the game it belongs to and its network (its array: the plan
    and the parameters, :mod:`samuel.nn.shape`)."""

    game: int
    network: Network
    array: np.ndarray

    @property
    def inputs(self) -> int:
        return self.network.inputs


def header_bytes(shape: Network) -> int:
    return HEADERS[VERSION].size + HEAD_RECORD.size * len(shape.heads)


def file_bytes(shape: Network) -> int:
    """The size of the file of a network of that shape."""
    return header_bytes(shape) + 4 * shape.parameter_count


def save_network_array(array: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the network ``array`` (plan and parameters) of game ``game`` in the TSNN format,
    version 5, atomically. Refuses (``ValueError``) an array that is no network's and parameters
    that are not finite: such a file could never be loaded, so the caller must stop first."""
    write_atomically(Path(path), _record(array, game))


def save_phased_array(array: np.ndarray, path: str | os.PathLike, game: int) -> None:
    """Write the packed networks per phase ``array`` (:mod:`samuel.nn.phased`) of game ``game``
    as TSNN version 6, atomically; ValueError as :func:`save_network_array` says."""
    networks = phase_networks(array)
    head = HEADERS[PHASED_VERSION].pack(MAGIC, PHASED_VERSION, game, len(networks))
    write_atomically(Path(path), head + b"".join(_record(net, game) for net in networks))


def _record(array: np.ndarray, game: int) -> bytes:
    """The version 5 record (header and parameters) of the network ``array``."""
    shape = network_of(array)
    if not 0 <= game < 1 << 32:
        raise ValueError(f"a game id is a 32-bit number, not {game}")
    params = np.asarray(array[PLAN:])
    if not np.all(np.isfinite(params)):
        raise ValueError("refusing to save a network whose parameters are not all finite")
    widths = (*shape.hidden, 0, 0, 0)[:MAX_LAYERS]
    head = HEADERS[VERSION].pack(
        MAGIC, VERSION, game, shape.inputs, len(shape.hidden), *widths, len(shape.heads)
    )
    for h in shape.heads:
        own = (*h.hidden, 0, 0)[:MAX_HEAD_LAYERS]
        head += HEAD_RECORD.pack(h.kind, h.outputs, h.source, len(h.hidden), *own)
    return head + params.astype("<f4").tobytes()


def read_network(path: str | os.PathLike) -> NetworkFile:
    """Read a TSNN file of one network (versions 1 to 5); raise :class:`WeightsFileError`
    saying what is wrong with it, a file of one network per phase included."""
    loaded = read_weights(path)
    if isinstance(loaded, PhasedFile):
        raise WeightsFileError(
            f"weights file {path} holds one network per phase ({len(loaded.networks)} phases), "
            "where one network is wanted"
        )
    return loaded


def read_weights(path: str | os.PathLike) -> NetworkFile | PhasedFile:
    """Read a TSNN file of any version: one network, or one per phase (version 6); raise
    :class:`WeightsFileError` saying what is wrong with it.

    Only a regular file is opened (a FIFO or a folder is refused at once), and nothing past the
    header is read unless the file's size is exactly what the header's layers need.
    """
    path = Path(path)
    try:
        with open_regular(path, "weights file", MAX_FILE_BYTES) as file:
            size = os.fstat(file.fileno()).st_size
            head = file.read(PREFIX.size)
            version = _check_prefix(path, head, size)
            if version == PHASED_VERSION:
                return _read_phased(path, head + file.read(size - len(head)), size)
            head += file.read(HEADERS[version].size - PREFIX.size)
            if version == VERSION and len(head) == HEADERS[version].size:
                heads = min(HEADERS[version].unpack(head)[-1], MAX_HEADS)
                head += file.read(HEAD_RECORD.size * heads)
            game, shape, start = _check_header(path, head, size, version)
            data = file.read(size - start)
    except FileError as error:
        raise WeightsFileError(str(error)) from None
    except OSError as error:  # a read that fails (an I/O error)
        raise WeightsFileError(f"weights file {path} cannot be read: {error.strerror}") from None
    if len(data) != size - start:  # shrank while being read
        raise WeightsFileError(f"weights file {path} is shorter than its size said")
    params = np.frombuffer(data, dtype="<f4").astype(np.float32)
    problem = parameters_problem(params)
    if problem is not None:
        raise WeightsFileError(f"weights file {path} holds {problem}")
    return NetworkFile(game, shape, shape.pack(params))


def _read_phased(path: Path, data: bytes, size: int) -> PhasedFile:
    """The networks of a version 6 file's bytes ``data``: each a whole version 5 record."""
    if len(data) != size:
        raise WeightsFileError(f"weights file {path} is shorter than its size said")
    header = HEADERS[PHASED_VERSION]
    if size < header.size:
        raise _too_short(path, size)
    _, _, game, count = header.unpack_from(data)
    if not 2 <= count <= MAX_PHASES:
        raise WeightsFileError(
            f"weights file {path} says it holds {count} phases; a network per phase has 2 to "
            f"{MAX_PHASES}"
        )
    networks, at = [], header.size
    for phase in range(count):
        record_game, shape, start = _record_header(path, data, at, phase)
        end = start + 4 * shape.parameter_count
        if record_game != game or (networks and shape.inputs != network_of(networks[0]).inputs):
            raise WeightsFileError(
                f"weights file {path}: phase {phase}'s network is for another game or has other "
                "inputs than phase 0's"
            )
        params = np.frombuffer(data[start:end], dtype="<f4").astype(np.float32)
        problem = parameters_problem(params)
        if problem is not None:
            raise WeightsFileError(f"weights file {path}: phase {phase}'s network holds {problem}")
        networks.append(shape.pack(params))
        at = end
    if at != size:
        raise WeightsFileError(
            f"weights file {path} is {size} bytes; its {count} phase networks take {at}"
        )
    packed = pack_phases(networks)
    return PhasedFile(game, tuple(network_of(n) for n in networks), packed)


def _record_header(path: Path, data: bytes, at: int, phase: int) -> tuple[int, Network, int]:
    """The game, the shape and where the parameters start of the version 5 record at ``at`` of a
    version 6 file; checks that the file holds all of it."""
    header = HEADERS[VERSION]
    head = data[at : at + header.size]
    if len(head) < header.size or PREFIX.unpack_from(head) != (MAGIC, VERSION):
        raise WeightsFileError(
            f"weights file {path}: phase {phase}'s network is not a whole version {VERSION} record"
        )
    heads = min(header.unpack(head)[-1], MAX_HEADS)
    head = data[at : at + header.size + HEAD_RECORD.size * heads]
    game, shape, start = _check_header(path, head, len(data) - at, VERSION, whole=False)
    if at + start + 4 * shape.parameter_count > len(data):
        raise WeightsFileError(
            f"weights file {path} ends inside phase {phase}'s network ({shape.describe()})"
        )
    return game, shape, at + start


def parameters_problem(params: np.ndarray) -> str | None:
    """Why ``params`` cannot be a network's (parameters that are not finite, or one larger than
    :data:`LARGEST_WEIGHT`, whose forward pass can overflow), or None if they can."""
    values = np.asarray(params)
    if not np.all(np.isfinite(values)):
        return "parameters that are not finite"
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    if largest > LARGEST_WEIGHT:
        return (
            f"a weight of magnitude {largest:.3g}, past the largest a network may have "
            f"({LARGEST_WEIGHT:g}): its evaluations would overflow"
        )
    return None


def _too_short(path: Path, size: int) -> WeightsFileError:
    return WeightsFileError(f"weights file {path} is too short ({size} bytes) to be a TSNN network")


def _check_prefix(path: Path, head: bytes, size: int) -> int:
    if len(head) < PREFIX.size:
        raise _too_short(path, size)
    magic, version = PREFIX.unpack(head)
    if magic != MAGIC:
        raise WeightsFileError(
            f"weights file {path} is not a TSNN network (it does not start with TSNN)"
        )
    if version not in HEADERS:
        raise WeightsFileError(
            f"weights file {path} is version {version}; this program reads versions "
            f"{', '.join(map(str, HEADERS))}"
        )
    return version


def _check_header(
    path: Path, head: bytes, size: int, version: int, whole: bool = True
) -> tuple[int, Network, int]:
    """The game, the network's shape and where its parameters start, from the header; checks
    that the file's size is what they need (``whole=False``: a record inside a larger file,
    whose caller checks its end)."""
    header = HEADERS[version]
    if len(head) < header.size:
        raise _too_short(path, size)
    fields = header.unpack(head[: header.size])[2:]
    if version == 1:
        game, (inputs, *hidden) = VERSION1_GAME, fields
    else:
        game, inputs, *rest = fields
    try:
        if version == VERSION:
            shape = _read_shape(path, head, size, inputs, rest)
        else:
            shape = _older_shape(path, version, inputs, rest if version > 1 else hidden)
    except ShapeError as error:
        raise WeightsFileError(f"weights file {path} holds no network Samuel knows: {error}") from (
            None
        )
    start = len(head)
    expected = start + 4 * shape.parameter_count
    if whole and size != expected:
        raise WeightsFileError(
            f"weights file {path} is {size} bytes; a network {shape.describe()} takes {expected}"
        )
    return game, shape, start


def _read_shape(path: Path, head: bytes, size: int, inputs: int, rest: list) -> Network:
    layers, *widths, heads = rest
    if not 1 <= layers <= MAX_LAYERS or not 1 <= heads <= MAX_HEADS:
        raise ShapeError(f"{layers} hidden layers and {heads} heads")
    if any(widths[layers:]):
        raise ShapeError(f"widths {widths} past its {layers} hidden layers")
    start = HEADERS[VERSION].size
    if len(head) < start + HEAD_RECORD.size * heads:
        raise _too_short(path, size)
    records = []
    for i in range(heads):
        record = HEAD_RECORD.unpack_from(head, start + i * HEAD_RECORD.size)
        kind, outputs, source, own, *own_widths = record
        if own > MAX_HEAD_LAYERS or any(own_widths[own:]):
            raise ShapeError(f"a head of {own} layers of its own, widths {own_widths}")
        records.append(Head(kind, outputs, tuple(own_widths[:own]), source))
    return Network(inputs, tuple(widths[:layers]), tuple(records))


def _older_shape(path: Path, version: int, inputs: int, rest: list) -> Network:
    """The shape of a file of version 1 to 4: 64-32, with the heads its fields say."""
    hidden, extra = tuple(rest[:2]), rest[2:]
    if hidden != HIDDEN:
        raise ShapeError(f"layers {inputs}-{hidden[0]}-{hidden[1]}; version {version} has 64-32")
    if version == ZERO_VERSION:
        heads, actions = extra
        if heads != ZERO_HEADS:
            raise ShapeError(
                f"heads {heads:#x}; a version {ZERO_VERSION} network has all three, the value, "
                f"plies left and the policy ({ZERO_HEADS})"
            )
        return Network(inputs, HIDDEN, (value_head(), plies_head(), policy_head(actions)))
    heads = extra[0] if extra else HEAD_VALUE
    if heads not in KNOWN_HEADS:
        raise ShapeError(
            f"heads {heads:#x}; version {version} knows the value ({HEAD_VALUE}) and plies left "
            f"({HEAD_MOVES_LEFT}), and the value is always there"
        )
    if heads & HEAD_MOVES_LEFT:
        return Network(inputs, HIDDEN, (value_head(), plies_head()))
    return Network(inputs, HIDDEN, (value_head(),))
