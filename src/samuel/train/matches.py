"""The training loop's matches (`vs prev`, `vs classic`), played by :mod:`samuel.match`.

Each pair of games shares a seed and its random opening moves (the game's number of them: 4, or
none in a game with dice, whose pairs share their dice), each player taking each side once; the
score is the share of points won, a draw worth half.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from samuel.backends import Backend

from .config import TrainConfig

if TYPE_CHECKING:
    from .zero_config import ZeroConfig


def training_match(
    config: TrainConfig | ZeroConfig, backend: Backend | None = None
) -> Callable[[str, str, int], float]:
    """A function ``(first_spec, second_spec, seed) -> first's score`` for :func:`train`, its
    pairs played by ``backend`` (by default this machine's processes)."""
    from samuel.match.head_to_head import play_match

    workers = config.workers or os.cpu_count() or 1

    def play(first: str, second: str, seed: int) -> float:
        return play_match(
            first,
            second,
            config.match_games,
            seed=seed,
            ply_cap=config.ply_cap,
            workers=workers,
            game=config.game,
            backend=backend,
        ).score

    return play
