"""The tablebase on disk: one file per layer (captured count, side to move), with a checksum.

A layer file is a 128-byte header and then one code per position (one byte, uint8; codes in
:mod:`.values`), in index order (:mod:`.index`). The header, all
integers little-endian:

=======  ====  ==============================================================
offset   type  field
=======  ====  ==============================================================
0        8s    magic ``SAMUELTB``
8        u32   format version (1)
12       u32   captures to win (5 in the standard game)
16       u32   captured sheep (the layer)
20       u32   1 if the tigers are to move, else 0
24       u64   positions (= codes that follow)
32       u64   wins, draws, losses (3 x u64), for the side to move
56       u64   the same up to symmetry: positions, wins, draws, losses (4 x u64)
88       u32   longest win, longest loss, in plies (2 x u32)
96       32s   SHA-256 of header bytes 0..95 followed by the codes
=======  ====  ==============================================================

A file is written to a temporary name and renamed into place, so a file that exists is whole;
the build resumes at the first layer whose files are missing. Readers map the codes into memory
(``open_codes``) and read only the pages they touch.

Reading trusts nothing: only a regular file is opened (a FIFO or a folder is refused at once),
the header must describe a layer this program builds and the file must be exactly as long as the
header says, before any code is mapped. Every byte is a valid code (:mod:`.values`), and the
kernels index a layer by position, never by code, so the codes themselves need no check.
"""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.errors import SamuelError
from samuel.files import FileError, open_regular, write_atomically

from .counts import LayerCounts
from .index import MAX_CAPTURES_TO_WIN, layer_size
from .values import CODE_DTYPE

MAGIC = b"SAMUELTB"
VERSION = 1
HEADER = struct.Struct("<8sIIIIQ3Q4Q2I32s")
HEADER_SIZE = HEADER.size  # 128
CHECKED = 96  # header bytes covered by the checksum (all but the checksum itself)
HASH_BLOCK = 1 << 24  # codes hashed per step, so a big layer is not copied at once
# The largest layer file there is (5 captured, in the 6-capture variant: about 686 MB); a layer's
# exact size then comes from its header.
MAX_LAYER_BYTES = HEADER_SIZE + layer_size(MAX_CAPTURES_TO_WIN - 1) * CODE_DTYPE.itemsize


class TablebaseError(SamuelError, ValueError):
    """A tablebase directory or layer file that cannot be used."""


@dataclass(frozen=True, slots=True)
class LayerHeader:
    """What a layer file says about itself."""

    captures_to_win: int
    captured: int
    tiger_to_move: bool
    counts: LayerCounts
    checksum: bytes

    def pack(self) -> bytes:
        c = self.counts
        return HEADER.pack(
            MAGIC,
            VERSION,
            self.captures_to_win,
            self.captured,
            int(self.tiger_to_move),
            c.positions,
            c.wins,
            c.draws,
            c.losses,
            c.sym_positions,
            c.sym_wins,
            c.sym_draws,
            c.sym_losses,
            c.longest_win,
            c.longest_loss,
            self.checksum,
        )


def layer_path(directory: str | os.PathLike, captured: int, tiger_to_move: bool) -> Path:
    """``DIR/captured-2-tigers.tb``: the file of one layer."""
    side = "tigers" if tiger_to_move else "sheep"
    return Path(directory) / f"captured-{captured}-{side}.tb"


def _checksum(head: bytes, codes: np.ndarray) -> bytes:
    digest = hashlib.sha256(head[:CHECKED])
    for start in range(0, len(codes), HASH_BLOCK):
        digest.update(np.ascontiguousarray(codes[start : start + HASH_BLOCK]).view(np.uint8))
    return digest.digest()


def write_layer(
    directory: str | os.PathLike,
    captures_to_win: int,
    captured: int,
    tiger_to_move: bool,
    codes: np.ndarray,
    counts: LayerCounts,
) -> Path:
    """Write one layer file atomically (a temporary file renamed into place); return its path."""
    codes = np.ascontiguousarray(codes, dtype=CODE_DTYPE)
    if len(codes) != layer_size(captured) or counts.positions != len(codes):
        raise ValueError(f"layer {captured} has {layer_size(captured)} positions, not {len(codes)}")
    header = LayerHeader(captures_to_win, captured, tiger_to_move, counts, bytes(32))
    head = header.pack()
    header = LayerHeader(captures_to_win, captured, tiger_to_move, counts, _checksum(head, codes))
    path = layer_path(directory, captured, tiger_to_move)
    write_atomically(path, header.pack() + codes.tobytes())
    return path


def _open_layer(path: Path):
    try:
        return open_regular(path, "tablebase layer", MAX_LAYER_BYTES)
    except FileError as error:
        raise TablebaseError(str(error)) from None


def _check_header(path: Path, head: bytes, size: int) -> LayerHeader:
    if len(head) < HEADER_SIZE or head[:8] != MAGIC:
        raise TablebaseError(f"{path} is not a tablebase layer file (no {MAGIC.decode()} header)")
    fields = HEADER.unpack(head)
    version, captures_to_win, captured, tiger_to_move, positions = fields[1:6]
    if version != VERSION:
        raise TablebaseError(f"{path}: format version {version}; this program reads {VERSION}")
    if (
        not 1 <= captures_to_win <= MAX_CAPTURES_TO_WIN
        or not 0 <= captured < captures_to_win
        or tiger_to_move not in (0, 1)
        or positions != layer_size(captured)
    ):
        raise TablebaseError(
            f"{path}: the header describes no layer this program builds (games of 1 to "
            f"{MAX_CAPTURES_TO_WIN} captures, each layer of its exact size)"
        )
    if size != HEADER_SIZE + positions * CODE_DTYPE.itemsize:
        raise TablebaseError(
            f"{path}: {size} bytes, but the header says "
            f"{HEADER_SIZE + positions * CODE_DTYPE.itemsize}"
        )
    counts = LayerCounts(positions, *fields[6:15])
    return LayerHeader(captures_to_win, captured, bool(tiger_to_move), counts, fields[15])


def read_header(path: str | os.PathLike) -> LayerHeader:
    """The header of a layer file, checked for form and size (not the checksum: see
    :func:`checksum_ok`). Raises :class:`TablebaseError` saying what is wrong."""
    path = Path(path)
    with _open_layer(path) as file:
        return _check_header(path, file.read(HEADER_SIZE), os.fstat(file.fileno()).st_size)


def open_codes(path: str | os.PathLike) -> np.ndarray:
    """The codes of a layer file, memory-mapped read-only (a plain ndarray view), after the
    checks of :func:`read_header` on the same open file."""
    path = Path(path)
    with _open_layer(path) as file:
        header = _check_header(path, file.read(HEADER_SIZE), os.fstat(file.fileno()).st_size)
        mapped = np.memmap(
            file, dtype=CODE_DTYPE, mode="r", offset=HEADER_SIZE, shape=(header.counts.positions,)
        )
    return mapped.view(np.ndarray)


def checksum_ok(path: str | os.PathLike) -> bool:
    """True if the file's SHA-256 matches its header and codes."""
    path = Path(path)
    with _open_layer(path) as file:
        head = file.read(HEADER_SIZE)
        header = _check_header(path, head, os.fstat(file.fileno()).st_size)
        mapped = np.memmap(
            file, dtype=CODE_DTYPE, mode="r", offset=HEADER_SIZE, shape=(header.counts.positions,)
        )
        return _checksum(head, mapped.view(np.ndarray)) == header.checksum


def find_captures_to_win(directory: str | os.PathLike) -> int:
    """The rules the tablebase in ``directory`` was built for (from its layer-0 sheep file)."""
    path = layer_path(directory, 0, False)
    if not path.exists():
        raise TablebaseError(
            f"no tablebase in {directory}: {path.name} is missing "
            "(build one with `samuel tablebase build`)"
        )
    return read_header(path).captures_to_win
