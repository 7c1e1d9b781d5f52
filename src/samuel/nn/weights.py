"""The network's file format (the seed's ``TSNN``), all little-endian:

=======  =====================================================
bytes    contents
=======  =====================================================
0..4     ``TSNN``
4..8     version (u32, currently 1)
8..20    inputs, hidden 1, hidden 2 (u32 each)
20..     every parameter as f32, in the flat array's order
=======  =====================================================

Loading rejects a wrong magic, version, layer sizes, file size or a parameter that is not finite
with a message that says which (never quoting the file's bytes), and opens regular files only.
Changing what an input *means* without changing the sizes calls for bumping ``VERSION``.
Files are written atomically: a temporary file in the same folder, renamed into place.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import FileError, open_regular, write_atomically

from .network import HIDDEN1, HIDDEN2, INPUTS, PARAMS

MAGIC = b"TSNN"
VERSION = 1
HEADER = struct.Struct("<4s4I")  # magic, version, inputs, hidden 1, hidden 2
FILE_BYTES = HEADER.size + 4 * PARAMS  # the one size a loadable file has
# Files up to this size are opened, so that a network of other layer sizes is refused for its
# layers (the header says them) rather than for its size; only ``FILE_BYTES`` are ever read.
MAX_FILE_BYTES = 1 << 30


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
    """Read a TSNN file; raise :class:`WeightsFileError` saying what is wrong with it.

    Only a regular file is opened (a FIFO or a folder is refused at once), and nothing past the
    header is read unless the file's size is exactly what the header's layers need.
    """
    path = Path(path)
    try:
        with open_regular(path, "weights file", MAX_FILE_BYTES) as file:
            size = os.fstat(file.fileno()).st_size
            head = file.read(HEADER.size)
            _check_header(path, head, size)
            data = file.read(FILE_BYTES - HEADER.size)
    except FileError as error:
        raise WeightsFileError(str(error)) from None
    except OSError as error:  # a read that fails (an I/O error)
        raise WeightsFileError(f"weights file {path} cannot be read: {error.strerror}") from None
    if len(data) != FILE_BYTES - HEADER.size:  # shrank while being read
        raise WeightsFileError(f"weights file {path} is shorter than its size said")
    params = np.frombuffer(data, dtype="<f4").astype(np.float32)
    if not np.all(np.isfinite(params)):
        raise WeightsFileError(f"weights file {path} holds parameters that are not finite")
    return params


def _check_header(path: Path, head: bytes, size: int) -> None:
    if len(head) < HEADER.size:
        raise WeightsFileError(
            f"weights file {path} is too short ({size} bytes) to be a TSNN network"
        )
    magic, version, inputs, hidden1, hidden2 = HEADER.unpack(head)
    if magic != MAGIC:
        raise WeightsFileError(
            f"weights file {path} is not a TSNN network (it does not start with TSNN)"
        )
    if version != VERSION:
        raise WeightsFileError(
            f"weights file {path} is version {version}; this program reads version {VERSION}"
        )
    if (inputs, hidden1, hidden2) != (INPUTS, HIDDEN1, HIDDEN2):
        raise WeightsFileError(
            f"weights file {path} has layers {inputs}-{hidden1}-{hidden2}; this network is "
            f"{INPUTS}-{HIDDEN1}-{HIDDEN2}"
        )
    if size != FILE_BYTES:
        raise WeightsFileError(
            f"weights file {path} is {size} bytes; a {INPUTS}-{HIDDEN1}-"
            f"{HIDDEN2} network takes {FILE_BYTES}"
        )
