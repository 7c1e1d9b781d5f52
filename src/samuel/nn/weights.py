"""The network's file format (the seed's ``TSNN``), all little-endian. Version 3 records the game
and the network's heads; version 4, a Samuel Zero network's (:mod:`samuel.nn.zero`), adds its
policy's action count:

=======  =====================================================
bytes    contents (version 3, written)
=======  =====================================================
0..4     ``TSNN``
4..8     version (u32, 3)
8..12    the game's id (u32: its number in ``samuel.games.kernels``)
12..24   inputs, hidden 1, hidden 2 (u32 each)
24..28   heads (u32 bit set: 1 the value, 2 plies left, 4 the policy; the value is always
         there)
28..     every parameter as f32, in the flat array's order (the moves-left head's last)
=======  =====================================================

Version 4 has one more field, bytes 28..32: the policy's action count (u32, 1 to
``MAX_ACTIONS``); its heads are all three (7), and the parameters follow from byte 32 in the
Zero network's order (the value network with the moves-left head, then the policy). Only a
network with the policy is written as version 4: every other network's file is version 3, byte
for byte as before, and older programs refuse a Zero network for its version. The game and the
action count together say whose moves the policy is over: a file of one game is refused for
another (:mod:`samuel.games.networks`).

Version 2 (read only) is version 3 without the heads field: a value-only network. Version 1 (the
seed's, read only) has no game id either: bytes 8..20 are the layer sizes and the parameters
follow. Every version 1 file predates the other games, so it reads as game ``VERSION1_GAME``
(0, Tigers & Sheep). Older files therefore load as value-only networks and play as before.

Loading rejects a wrong magic, version, layer sizes, heads, action count, file size or a
parameter that is not finite or larger than ``LARGEST_WEIGHT`` (whose forward pass could
overflow) with a message that says which (never quoting the file's bytes), and
opens regular files only. It reads the game, the input count, the heads and the actions from the
header; whether they are the ones wanted is the caller's check (:mod:`samuel.games.networks`,
which knows the games' names).
Changing what an input *means* without changing the sizes calls for bumping ``VERSION``. Files are
written atomically: a temporary file in the same folder, renamed into place.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import FileError, open_regular, write_atomically

from .network import HIDDEN1, HIDDEN2, network_shape, parameter_count
from .zero import zero_inputs, zero_parameter_count

MAGIC = b"TSNN"
VERSION = 3
PREFIX = struct.Struct("<4sI")  # magic, version: enough to tell the header's form
HEADERS = {
    1: struct.Struct("<4s4I"),  # magic, version, inputs, hidden 1, hidden 2
    2: struct.Struct("<4s5I"),  # magic, version, game, inputs, hidden 1, hidden 2
    3: struct.Struct("<4s6I"),  # magic, version, game, inputs, hidden 1, hidden 2, heads
    4: struct.Struct("<4s7I"),  # ... heads, actions: a Zero network
}
HEAD_VALUE = 1  # the heads field's bits
HEAD_MOVES_LEFT = 2
HEAD_POLICY = 4
KNOWN_HEADS = (HEAD_VALUE, HEAD_VALUE | HEAD_MOVES_LEFT)
ZERO_VERSION = 4  # the version of a network with the policy head
ZERO_HEADS = HEAD_VALUE | HEAD_MOVES_LEFT | HEAD_POLICY
HEADER = HEADERS[VERSION]
ZERO_HEADER = HEADERS[ZERO_VERSION]
VERSION1_GAME = 0  # the game every version 1 file belongs to (they have no id)
# The most inputs a file may say its network has: far above any game's, and small enough that the
# size a header asks for stays within MAX_FILE_BYTES.
MAX_INPUTS = 1 << 16
# The most actions a file may say its policy has: far above any game's (650), and small enough
# that the size a header asks for stays within MAX_FILE_BYTES.
MAX_ACTIONS = 1 << 16
# The largest weight a file may hold. Every network trained here has weights under 10 (the shipped
# ones: 3.5 to 8.4); a file with one past this holds no trained network, and one bounded so cannot
# overflow float32 in a forward pass: the inputs are at most 1 each and at most 128 are set, so
# h1 < 129 B, h2 < 64 x 129 B^2 + B, and each head's output (value, plies, policy logit) is
# under 64 x 64 x 129 B^3 (with B = 1e4, about 5e17; float32 reaches 3.4e38). Huge finite weights
# (3e38) made every evaluation NaN, and the search then said that the game was over.
LARGEST_WEIGHT = 1e4
# Files up to this size are opened, so that a network of other layer sizes is refused for its
# layers (the header says them) rather than for its size; only the header's size is ever read.
MAX_FILE_BYTES = 1 << 30


class WeightsFileError(SamuelError, ValueError):
    """A weights file that cannot be loaded (or is not for the game that wants it)."""


@dataclass(frozen=True)
class NetworkFile:
    """What a weights file holds: the game it belongs to, its input count, its parameters
    (with the moves-left head's last, if it has one; a Zero network's policy after that)."""

    game: int
    inputs: int
    params: np.ndarray  # float32, parameter_count(inputs, moves_left) of them (or a Zero's)
    moves_left: bool = False
    actions: int = 0  # the policy's action count; 0: the network has no policy


def file_bytes(inputs: int, moves_left: bool = False, actions: int = 0) -> int:
    """The size of the file of a network of ``inputs`` inputs (with the moves-left head or not;
    a Zero network of ``actions`` actions if that is not 0, version 4)."""
    if actions:
        return ZERO_HEADER.size + 4 * zero_parameter_count(inputs, actions)
    return HEADER.size + 4 * parameter_count(inputs, moves_left)


def save_parameters(
    params: np.ndarray, path: str | os.PathLike, game: int, actions: int = 0
) -> None:
    """Write the parameters of a network of game ``game`` in the TSNN format, atomically: version
    3, the input count and the heads following from their number; or, with ``actions`` (not 0),
    a Zero network of that many actions (:mod:`samuel.nn.zero`), version 4. Refuses
    (``ValueError``) parameters that are not finite: such a file could never be loaded, so the
    caller must stop first."""
    if np.ndim(params) != 1:
        inputs, moves_left = -1, False
    elif actions:
        if not 1 <= actions <= MAX_ACTIONS:
            raise ValueError(f"a policy has 1 to {MAX_ACTIONS} actions, not {actions}")
        inputs, moves_left = zero_inputs(len(params), actions), True
    else:
        inputs, moves_left = network_shape(len(params))
    if inputs < 0:
        kind = f"Zero network's of {actions} actions" if actions else "network's"
        raise ValueError(f"{np.shape(params)} parameters are no {kind}")
    if not 0 <= game < 1 << 32:
        raise ValueError(f"a game id is a 32-bit number, not {game}")
    if not np.all(np.isfinite(params)):
        raise ValueError("refusing to save a network whose parameters are not all finite")
    path = Path(path)
    if actions:
        head = ZERO_HEADER.pack(
            MAGIC, ZERO_VERSION, game, inputs, HIDDEN1, HIDDEN2, ZERO_HEADS, actions
        )
    else:
        heads = HEAD_VALUE | (HEAD_MOVES_LEFT if moves_left else 0)
        head = HEADER.pack(MAGIC, VERSION, game, inputs, HIDDEN1, HIDDEN2, heads)
    write_atomically(path, head + np.asarray(params).astype("<f4").tobytes())


def read_network(path: str | os.PathLike) -> NetworkFile:
    """Read a TSNN file of either version; raise :class:`WeightsFileError` saying what is wrong
    with it.

    Only a regular file is opened (a FIFO or a folder is refused at once), and nothing past the
    header is read unless the file's size is exactly what the header's layers need.
    """
    path = Path(path)
    try:
        with open_regular(path, "weights file", MAX_FILE_BYTES) as file:
            size = os.fstat(file.fileno()).st_size
            head = file.read(PREFIX.size)
            version = _check_prefix(path, head, size)
            header = HEADERS[version]
            head += file.read(header.size - PREFIX.size)
            game, inputs, moves_left, actions, expected = _check_header(path, head, size, version)
            data = file.read(expected - header.size)
    except FileError as error:
        raise WeightsFileError(str(error)) from None
    except OSError as error:  # a read that fails (an I/O error)
        raise WeightsFileError(f"weights file {path} cannot be read: {error.strerror}") from None
    if len(data) != expected - header.size:  # shrank while being read
        raise WeightsFileError(f"weights file {path} is shorter than its size said")
    params = np.frombuffer(data, dtype="<f4").astype(np.float32)
    problem = parameters_problem(params)
    if problem is not None:
        raise WeightsFileError(f"weights file {path} holds {problem}")
    return NetworkFile(game, inputs, params, moves_left, actions)


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
    path: Path, head: bytes, size: int, version: int
) -> tuple[int, int, bool, int, int]:
    """The game, the input count, whether there is a moves-left head, the policy's actions (0:
    none) and the file size the header says."""
    header = HEADERS[version]
    if len(head) < header.size:
        raise _too_short(path, size)
    heads = HEAD_VALUE
    actions = 0
    if version == 1:
        _, _, inputs, hidden1, hidden2 = header.unpack(head)
        game = VERSION1_GAME
    elif version == 2:
        _, _, game, inputs, hidden1, hidden2 = header.unpack(head)
    elif version == ZERO_VERSION:
        _, _, game, inputs, hidden1, hidden2, heads, actions = header.unpack(head)
        if heads != ZERO_HEADS:
            raise WeightsFileError(
                f"weights file {path} says its heads are {heads:#x}; a version {ZERO_VERSION} "
                f"network has all three, the value, plies left and the policy ({ZERO_HEADS})"
            )
        if not 1 <= actions <= MAX_ACTIONS:
            raise WeightsFileError(
                f"weights file {path} says its policy has {actions} actions; 1 to {MAX_ACTIONS} "
                "are read"
            )
    else:
        _, _, game, inputs, hidden1, hidden2, heads = header.unpack(head)
        if heads not in KNOWN_HEADS:
            raise WeightsFileError(
                f"weights file {path} says its heads are {heads:#x}; this program knows the value "
                f"({HEAD_VALUE}) and plies left ({HEAD_MOVES_LEFT}), and the value is always there"
            )
    moves_left = bool(heads & HEAD_MOVES_LEFT)
    if (hidden1, hidden2) != (HIDDEN1, HIDDEN2) or not 1 <= inputs <= MAX_INPUTS:
        raise WeightsFileError(
            f"weights file {path} has layers {inputs}-{hidden1}-{hidden2}; this network is "
            f"INPUTS-{HIDDEN1}-{HIDDEN2} (1 to {MAX_INPUTS} inputs)"
        )
    if actions:
        expected = header.size + 4 * zero_parameter_count(inputs, actions)
        kind = f" with a policy of {actions} actions"
    else:
        expected = header.size + 4 * parameter_count(inputs, moves_left)
        kind = " with a moves-left head" if moves_left else ""
    if size != expected:
        raise WeightsFileError(
            f"weights file {path} is {size} bytes; a {inputs}-{HIDDEN1}-{HIDDEN2} network{kind} "
            f"takes {expected}"
        )
    return game, inputs, moves_left, actions, expected
