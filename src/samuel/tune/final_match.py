"""The check that matters after tuning: the tuned weights against the ones tuning started from,
in a match at a fixed depth on openings the data was not made from.

A lower validation error says the evaluation predicts the labels better; only a match says
whether it plays better (the first tuner's error fell and it lost, docs/tuning.md). The openings
are ``match_opening_plies`` random plies, a length no data set's random openings had (the tuner
refuses one that did): while sheep are being placed, openings of different lengths can never
reach the same position (docs/tuning.md, "Openings never used in training"). In a game with dice
the match's dice, from its own seed stream, are what keeps its games apart from the data's. In a
game whose wins score points (long nardy) the score is the share of the points, and the points a
game are reported too (:mod:`samuel.tune.scores`).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from samuel.seeds import derive_seed

from .config import TuneConfig

MATCH_STREAM = 0x3A7C  # keeps the match's openings apart from the data's and the split's


def play_final_match(config: TuneConfig, tuned: str, log: Callable[[str], None]) -> dict:
    """Play ``config.match_games`` games of the weights in ``tuned`` against the start weights
    (each opening twice, the sides swapped); return what the weights file records."""
    from samuel.match.head_to_head import play_match

    from .games import tuning_game
    from .scores import match_score

    depth = config.match_depth
    start = f"classic:weights={config.start}" if config.start else "classic"
    log(
        f"final match: tuned against {start}, {config.match_games} games at depth {depth} on "
        f"{config.match_opening_plies}-ply openings"
    )
    result = play_match(
        f"classic:weights={tuned}:depth={depth}",
        f"{start}:depth={depth}",
        config.match_games,
        seed=derive_seed(config.seed, 0, MATCH_STREAM),
        openings=config.match_opening_plies,
        workers=config.workers or os.cpu_count() or 1,
        game=config.game,
    )
    score = match_score(result, tuning_game(config.game).max_points)
    log(f"final match: tuned scored {score.text()} over {result.games} games")
    record = {
        "games": result.games,
        "depth": depth,
        "opening_plies": config.match_opening_plies,
        "score": score.share,
        "score_low": score.low,
        "score_high": score.high,
    }
    if score.points is not None:
        record.update(
            points=score.points, points_low=score.points_low, points_high=score.points_high
        )
    return record
