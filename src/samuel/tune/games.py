"""What the tuner asks of a game: its classic evaluation's features (names in the game's
``classic.py``, computed by its compiled ``classic_features`` through
:func:`samuel.games.kernels.classic_features`), its weights files, the feature that is the unit,
and how hill climbing changes the others.

Every game with a classic evaluation can be tuned. A game's weights are measured in one unit, a
feature whose weight is 1 and stays 1 (one captured sheep, one man): with the sigmoid's scale
``K`` fitted, it pins the scale of the weights, and the search reads scores in it.

The constants here are light (the command line builds its help from them); :func:`tuning_game`
imports the game's kernels when a command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from samuel.errors import CommandError

if TYPE_CHECKING:
    import numpy as np

# The feature that is each game's unit, and what one unit is called.
UNIT = {"tigers": "captured", "draughts": "men"}
UNIT_NAME = {"tigers": "sheep", "draughts": "man"}

# The weights hill climbing may change unless told otherwise (never the unit). Tigers & Sheep:
# sheep_in_hand and tiger_to_move are left out: at a fixed depth every leaf of a search has the
# same side to move and, in the placement phase, the same sheep in hand, so they add the same to
# every leaf and a match can hardly tell their values apart.
TUNABLE = {
    "tigers": (
        "tiger_mobility",
        "trapped_tigers",
        "capturable_sheep",
        "capture_now",
        "double_threat",
        "sheep_on_edge",
        "tigers_on_junctions",
    ),
    "draughts": ("kings", "advance", "back_row", "centre"),
}

# The smallest change a hill-climbing mutation makes to each weight, in units per unit of the
# feature. Tigers & Sheep: about a tenth of a sheep on a typical position (mobility counts about
# 20 moves, edge sheep about 10). Draughts: about a third of the course's weight for the small
# positional features (3, 6 and 4 hundredths of a man), a tenth of a man for the pieces, so that
# a round can move a small weight without swamping it.
STEP_FLOOR = {
    "tigers": {
        "captured": 0.1,
        "tiger_mobility": 0.005,
        "trapped_tigers": 0.05,
        "capturable_sheep": 0.05,
        "capture_now": 0.1,
        "double_threat": 0.1,
        "sheep_on_edge": 0.01,
        "tigers_on_junctions": 0.03,
        "sheep_in_hand": 0.01,
        "tiger_to_move": 0.1,
    },
    "draughts": {"men": 0.1, "kings": 0.1, "advance": 0.01, "back_row": 0.02, "centre": 0.015},
}


@dataclass(frozen=True)
class TuningGame:
    """One game as the tuner sees it."""

    name: str  # the registry name (samuel.games)
    title: str
    number: int  # its number in samuel.games.kernels
    state_words: int  # a position's int64 words (a row of a data set's states)
    sides: tuple[str, str]  # the first player (results and scores are its view) and the second
    features: tuple[str, ...]  # the classic evaluation's named features, in the weights' order
    weights: tuple[str, ...]  # those and then the piece-square tables' (classic.WEIGHTS)
    tables: Any  # the piece-square tables' layout (classic.TABLES, a classic_file.Tables)
    unit: str  # the feature whose weight is 1
    unit_name: str  # one unit of score, in words
    tunable: tuple[str, ...]  # hill climbing's default features
    step_floor: dict[str, float]  # hill climbing's smallest change per feature
    load_weights: Callable[..., np.ndarray]  # (path or None: the hand-written weights)
    save_weights: Callable[..., None]  # (weights, path, note="", extra=None)
    rules: Any  # the game's GameRules

    def check_features(self, names: tuple[str, ...]) -> None:
        """Raise :class:`CommandError` naming any of ``names`` that is not a feature."""
        unknown = [name for name in names if name not in self.features]
        if unknown:
            raise CommandError(
                f"unknown feature(s) {', '.join(unknown)}; the features of {self.title} are "
                f"{', '.join(self.features)}"
            )


def check_game(name: str) -> None:
    """Raise :class:`CommandError` unless the tuner knows the game called ``name``."""
    if name not in UNIT:
        raise CommandError(
            f"the tuner knows no game {name!r}; the games it tunes are {', '.join(UNIT)}"
        )


@cache
def tuning_game(name: str) -> TuningGame:
    """The game called ``name`` (a registry name), as the tuner sees it."""
    check_game(name)
    from samuel.games import get_game
    from samuel.games import kernels as games

    rules = get_game(name)
    if name == "tigers":
        from samuel.games.tigers import classic
    else:
        from samuel.games.draughts import classic
    return TuningGame(
        name=name,
        title=rules.title,
        number=rules.number,
        state_words=games.GAMES[rules.number].state_words,
        sides=rules.sides,
        features=classic.FEATURES,
        weights=classic.WEIGHTS,
        tables=classic.TABLES,
        unit=UNIT[name],
        unit_name=UNIT_NAME[name],
        tunable=TUNABLE[name],
        step_floor=STEP_FLOOR[name],
        load_weights=classic.load_weights,
        save_weights=classic.save_weights,
        rules=rules,
    )
