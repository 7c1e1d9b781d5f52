"""What the tuner asks of long nardy (``descriptor.part("tuning")``, read by
:mod:`samuel.tune.games`): the feature that is the unit, the weights hill climbing changes and by
how much, the commands' defaults where a game with dice needs others, and its classic
evaluation. Positions read from a data set are checked by the game's ``states`` part.

Light on purpose (the command line builds its help from these): :func:`classic` imports the
rules, and with them the kernels, when a command runs.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from . import DESCRIPTOR

# The unit: one pip of the race, the game's own measure of who is ahead (every die moves a
# checker its pips, and a race goes to the side with fewer to go). Its weight stays as the
# hand-set file has it (0.012, not 1): the evaluation is tanh of the weighted sum, so the scale
# of the weights is part of the play, and keeping the unit fixed keeps that scale.
UNIT = "pips"
UNIT_NAME = "pip"

# The weights hill climbing may change unless told otherwise (never the unit). The turn is left
# out: at a fixed depth every leaf of a search has the same side to roll, so it adds the same to
# every leaf and a match can hardly tell its values apart (gradient tuning still fits it).
TUNABLE = ("points", "home_points", "block", "head", "off")

# The smallest change a hill-climbing mutation makes to each weight, in the tanh's units per
# unit of the feature: about the default step (0.3) of the hand-set weight, so that a weight
# tuned down to near 0 still moves as far as the hand-set one would.
STEP_FLOOR = {
    "pips": 0.004,
    "points": 0.006,
    "home_points": 0.006,
    "block": 0.015,
    "head": 0.006,
    "off": 0.012,
    "turn": 0.03,
}

# Whether only the side to move keeps openings of different lengths apart: no, and with dice it
# does not matter (DICE below).
OPENINGS_BY_PARITY = False

# The dice vary every game: matches need no random openings (random plays would only add noise),
# and a match's dice come from its own seed, so the final match's games are not the rounds'
# even on openings of the same length (none).
DICE = True

# The tuning commands' defaults where long nardy needs its own (the fields of
# samuel.tune.config's configs). A 1-ply search, as training learns at: a 2-ply one searches
# every one of the other side's 21 rolls too. No random plies or moves, as in training: the dice
# vary the games. The game's ply cap: a game takes about 200 plies, beyond the default 200.
SELFPLAY_DEFAULTS: dict[str, object] = {
    "player": "classic:depth=1",
    "random_plies": 0,
    "epsilon": 0.0,
    "ply_cap": DESCRIPTOR.default_ply_cap,
}
# The weights are about a fiftieth of the other games' (a pip weighs 0.012, a man 1): Adam's
# steps, about the learning rate per weight and step, are a tenth of theirs.
TUNE_DEFAULTS: dict[str, object] = {
    "learning_rate": 0.0002,
    "match_depth": 1,
    "match_opening_plies": 0,
}
HILLCLIMB_DEFAULTS: dict[str, object] = {
    "depth": 1,
    "opening_plies": 0,
    "final_opening_plies": 0,
    "ply_cap": DESCRIPTOR.default_ply_cap,
}


def classic() -> SimpleNamespace:
    """The game's classic evaluation as the tuner reads it: its FEATURES (the weights' order),
    WEIGHTS (the same: no piece-square tables), TABLES (None), load_weights and save_weights
    (the files of :mod:`samuel.games.classic_file`, as ``classic:weights=FILE`` reads them)."""
    from samuel.games.classic_file import read_weights, write_weights

    from .rules import DEFAULT_WEIGHTS_FILE, FEATURES

    def load_weights(path=None) -> np.ndarray:
        return read_weights(DEFAULT_WEIGHTS_FILE if path is None else path, FEATURES)

    def save_weights(weights, path, note: str = "", extra: dict | None = None) -> None:
        write_weights(np.asarray(weights, dtype=np.float64), path, FEATURES, note, extra)

    return SimpleNamespace(
        FEATURES=FEATURES,
        WEIGHTS=FEATURES,
        TABLES=None,
        load_weights=load_weights,
        save_weights=save_weights,
    )
