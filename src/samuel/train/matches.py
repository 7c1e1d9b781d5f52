"""The training loop's matches (`vs prev`, `vs classic`), played by :mod:`samuel.match`.

Each pair of games shares a seed and its 4 random opening moves, each player taking each side
once; the score is the share of points won, a draw worth half.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from samuel.backends import Backend

from .config import TrainConfig

OPENING_PLIES = 4


def training_match(
    config: TrainConfig, backend: Backend | None = None
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
            openings=OPENING_PLIES,
            ply_cap=config.ply_cap,
            workers=workers,
            game=config.game,
            backend=backend,
        ).score

    return play
