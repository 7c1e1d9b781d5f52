"""Tigers & Sheep's tablebase, as generic code reaches it (``descriptor.part("perfect")``): the
``perfect`` player, ``--tablebase`` and the server's true values load it through these names;
a game without this module has no tablebase. ``samuel tablebase`` builds, verifies, probes and
scores with it (:mod:`samuel.tablebase`), training and tuning take exact targets from it, and the
pipeline draws positions from it.
"""

from samuel.games.tigers.board import CAPTURES_TO_WIN
from samuel.games.tigers.tablebase.files import TablebaseError
from samuel.games.tigers.tablebase.probe import DEFAULT_DIRECTORY, Tablebase, format_move_values
from samuel.games.tigers.tablebase.probe import load_tablebase as load
from samuel.games.tigers.tablebase.sample import draw_positions, table_size
from samuel.games.tigers.tablebase.values import describe

__all__ = [
    "CAPTURES_TO_WIN",
    "DEFAULT_DIRECTORY",
    "Tablebase",
    "TablebaseError",
    "build",
    "check_positions",
    "default_directory",
    "describe",
    "draw_positions",
    "format_move_values",
    "load",
    "table_size",
    "verify",
]


def default_directory(captures_to_win: int) -> str:
    """Where ``samuel tablebase build`` puts the table of the game won by ``captures_to_win``
    captures unless told: ``tablebase/`` for the standard game, ``tablebase-K/`` for K."""
    if captures_to_win == CAPTURES_TO_WIN:
        return DEFAULT_DIRECTORY
    return f"{DEFAULT_DIRECTORY}-{captures_to_win}"


def build(directory, captures_to_win=None, progress=True, log=print, bars=None):
    """Build (or finish building) the table in ``directory`` for the game won by
    ``captures_to_win`` captures (None: the standard 5): :mod:`.tablebase.build`, each layer's
    progress bar made by ``bars`` (:func:`samuel.progress.progress_bar` if None)."""
    from samuel.games.tigers.tablebase import build as building

    captures_to_win = CAPTURES_TO_WIN if captures_to_win is None else captures_to_win
    bars = building.progress_bar if bars is None else bars
    return building.build(directory, captures_to_win, progress=progress, log=log, bars=bars)


def verify(directory, checksums=True, log=print):
    """Check the table in ``directory``: :func:`.tablebase.verify.verify`."""
    from samuel.games.tigers.tablebase.verify import verify as check

    return check(directory, checksums=checksums, log=log)


def check_positions(game: int, states, layers) -> None:
    """Raise ValueError unless ``layers`` are the table of the game numbered ``game`` (a variant's
    captures to win) and every row of ``states`` (int64 rows of the game's words) is a position
    of it that is not over: what a kernel that looks the rows up in the table reads safely (numba
    checks no bounds)."""
    import numpy as np

    from samuel.games.tigers import compiled
    from samuel.games.tigers.board import SHEEP
    from samuel.games.tigers.states import state_problem
    from samuel.games.tigers.tablebase.index import layer_size
    from samuel.games.tigers.tablebase.values import CODE_DTYPE

    captures = compiled.captures_to_win(game)
    if not isinstance(layers, tuple) or len(layers) != 2 * captures:
        raise ValueError(
            f"the tablebase of the game won by {captures} captures has {2 * captures} layers"
        )
    for number, layer in enumerate(layers):
        if not (
            isinstance(layer, np.ndarray)
            and layer.ndim == 1
            and layer.dtype == CODE_DTYPE
            and layer.flags.c_contiguous
            and layer.flags.writeable == layers[0].flags.writeable
            and len(layer) == layer_size(number // 2)
        ):
            raise ValueError(f"layer {number} of the tablebase is not one of its rules' layers")
    problem = state_problem(states)
    if problem is not None:
        raise ValueError(f"not a {compiled.COMPILED.title} position: {problem}")
    captured = SHEEP - np.bitwise_count(states[:, 1])
    over = (states[:, 2] == 0) & (captured >= captures)
    if over.any():
        raise ValueError(f"states row {int(np.argmax(over))} is a game already over")
