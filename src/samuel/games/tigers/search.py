"""What the searches need of Tigers & Sheep beyond its compiled interface: the check of a
tablebase's layers before a kernel reads them (numba checks no bounds). The PUCT search reaches it
as its game's ``search`` part (:meth:`samuel.games.descriptor.GameDescriptor.part`); a game
without one has no tablebase.
"""

from __future__ import annotations

import numpy as np

from . import kernels
from .tablebase.index import layer_size
from .tablebase.values import CODE_DTYPE

VARIANT_SHIFT = 8  # a game number's bits above this are its variant: the captures that win


def check_tablebase(game: int, tablebase: tuple[np.ndarray, ...]) -> None:
    """Raise ValueError unless ``tablebase`` is the layers of the tablebase of the game numbered
    ``game``: one per count of captured sheep below the captures that win and side to move, of
    bytes."""
    captures = (game >> VARIANT_SHIFT) or kernels.CAPTURES_TO_WIN
    if not isinstance(tablebase, tuple) or len(tablebase) != 2 * captures:
        raise ValueError(
            f"a tablebase of the game won by {captures} captures has {2 * captures} layers"
        )
    for index, layer in enumerate(tablebase):
        size = layer_size(index // 2)  # layers[2 * captured + tiger_to_move]
        if not isinstance(layer, np.ndarray) or layer.shape != (size,) or layer.dtype != CODE_DTYPE:
            raise ValueError(f"tablebase layer {index} is not {size} codes of type {CODE_DTYPE}")
