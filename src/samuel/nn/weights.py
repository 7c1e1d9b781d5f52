"""The network's file format (the seed's ``TSNN``), all little-endian:

=======  =====================================================
bytes    contents
=======  =====================================================
0..4     ``TSNN``
4..8     version (u32, currently 1)
8..20    inputs, hidden 1, hidden 2 (u32 each)
20..     every parameter as f32, in the flat array's order
=======  =====================================================

Loading rejects a wrong magic, version, layer sizes or file size with a message that says which.
Changing what an input *means* without changing the sizes calls for bumping ``VERSION``.
Files are written atomically: a temporary file in the same folder, renamed into place.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import write_atomically

from .network import HIDDEN1, HIDDEN2, INPUTS, PARAMS

MAGIC = b"TSNN"
VERSION = 1
HEADER = struct.Struct("<4s4I")  # magic, version, inputs, hidden 1, hidden 2


class WeightsFileError(SamuelError, ValueError):
    """A weights file that cannot be loaded."""


def save_parameters(params: np.ndarray, path: str | os.PathLike) -> None:
    """Write the parameters in the TSNN format, atomically. Refuses (``ValueError``) parameters
    that are not finite: such a file could never be loaded, so the caller must stop first."""
    if params.shape != (PARAMS,):
        raise ValueError(f"expected {PARAMS} parameters, not {params.shape}")
    if not np.all(np.isfinite(params)):
        raise ValueError("refusing to save a network whose parameters are not all finite")
    path = Path(path)
    data = HEADER.pack(MAGIC, VERSION, INPUTS, HIDDEN1, HIDDEN2) + params.astype("<f4").tobytes()
    write_atomically(path, data)


def load_parameters(path: str | os.PathLike) -> np.ndarray:
    """Read a TSNN file; raise :class:`WeightsFileError` saying what is wrong with it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise WeightsFileError(f"weights file {path} does not exist") from None
    except IsADirectoryError:
        raise WeightsFileError(f"weights file {path} is a directory") from None
    if len(data) < HEADER.size:
        raise WeightsFileError(
            f"weights file {path} is too short ({len(data)} bytes) to be a TSNN network"
        )
    magic, version, inputs, hidden1, hidden2 = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise WeightsFileError(f"weights file {path} does not start with TSNN")  # no bytes quoted
    if version != VERSION:
        raise WeightsFileError(
            f"weights file {path} is version {version}; this program reads version {VERSION}"
        )
    if (inputs, hidden1, hidden2) != (INPUTS, HIDDEN1, HIDDEN2):
        raise WeightsFileError(
            f"weights file {path} has layers {inputs}-{hidden1}-{hidden2}; this network is "
            f"{INPUTS}-{HIDDEN1}-{HIDDEN2}"
        )
    expected = HEADER.size + 4 * PARAMS
    if len(data) != expected:
        raise WeightsFileError(
            f"weights file {path} is {len(data)} bytes; a {INPUTS}-{HIDDEN1}-"
            f"{HIDDEN2} network takes {expected}"
        )
    params = np.frombuffer(data, dtype="<f4", offset=HEADER.size).astype(np.float32)
    if not np.all(np.isfinite(params)):
        raise WeightsFileError(f"weights file {path} holds parameters that are not finite")
    return params
