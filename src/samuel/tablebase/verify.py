"""Check a built tablebase (``samuel tablebase verify``): every file's checksum, and every
position against its moves.

The check is the game's own, its ``perfect`` part's ``verify`` (Tigers & Sheep's:
:mod:`samuel.games.tigers.tablebase.verify`, which says why a table that passes is exactly
right).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from . import tablebase_game


def verify(
    directory: str | os.PathLike,
    checksums: bool = True,
    log: Callable[[str], None] = print,
    game: str | None = None,
):
    """Check every layer file of the tablebase in ``directory`` of the game called ``game`` (the
    default game if None): the checksums, the counts in the headers, and every position against
    its moves (all cores). Returns the game's ``VerifyReport``."""
    _, perfect = tablebase_game(game)
    return perfect.verify(directory, checksums=checksums, log=log)
