"""Build a game's tablebase (``samuel tablebase build``): every layer, each written as soon as it
is solved, an interrupted build resumed where it stopped.

The solver is the game's own, its ``perfect`` part's ``build`` (Tigers & Sheep's:
:mod:`samuel.games.tigers.tablebase.build`, which says how the layers are solved and kept); this
module runs it with the command's progress bars.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from samuel.progress import progress_bar

from . import tablebase_game


def build(
    directory: str | os.PathLike,
    captures_to_win: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
    game: str | None = None,
) -> list:
    """Build (or finish building) the tablebase of the game called ``game`` (the default game
    if None) in ``directory``, for the rule ``captures_to_win`` (None: the standard game's);
    return every layer's counts (the game's ``LayerResult``)."""
    _, perfect = tablebase_game(game)
    return perfect.build(directory, captures_to_win, progress=progress, log=log, bars=progress_bar)
