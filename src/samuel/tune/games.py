"""What the tuner asks of a game: its classic evaluation's features (names in the game's
``classic.py``, computed by its compiled ``classic_features`` through
:func:`samuel.games.kernels.classic_features`), its weights files, the feature that is the unit,
and how hill climbing changes the others.

Every game with a classic evaluation can be tuned. A game's weights are measured in one unit, a
feature whose weight is 1 and stays 1 (one captured sheep, one man): with the sigmoid's scale
``K`` fitted, it pins the scale of the weights, and the search reads scores in it. Long nardy's
unit, a pip, keeps its hand-set weight instead (0.012): its evaluation is the tanh of the
weighted sum, so that scale is part of how it plays.

Each game says what the tuner needs of it in its package's ``tuning`` part (its unit, its hill
climbing's features and steps, its classic evaluation; a game whose package has no ``states``
part, its check of positions read from a data set; a game with dice, ``DICE`` and the commands'
defaults it needs); a game without that part is not tuned.

A game whose wins score more than a point (long nardy: a mars 2, a koks 3) records its results as
the first player's points, and the tuner's targets and matches count them
(:func:`samuel.tune.gradient.result_targets`, :mod:`samuel.tune.scores`).

The constants here are light (the command line builds its help from them); :func:`tuning_game`
imports the game's kernels when a command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from samuel.errors import CommandError
from samuel.games import descriptors

if TYPE_CHECKING:
    import numpy as np


def _tuning_parts() -> dict[str, Any]:
    """Each game's ``tuning`` part by registry name: the games the tuner knows."""
    found = {}
    for name, descriptor in descriptors().items():
        part = descriptor.part("tuning")
        if part is not None:
            found[name] = part
    return found


_PARTS = _tuning_parts()

# The feature that is each game's unit, and what one unit is called.
UNIT = {name: part.UNIT for name, part in _PARTS.items()}
UNIT_NAME = {name: part.UNIT_NAME for name, part in _PARTS.items()}
# The weights hill climbing may change unless told otherwise (never the unit).
TUNABLE = {name: tuple(part.TUNABLE) for name, part in _PARTS.items()}
# The smallest change a hill-climbing mutation makes to each weight, in units per unit of the
# feature.
STEP_FLOOR = {name: dict(part.STEP_FLOOR) for name, part in _PARTS.items()}


def _own_defaults(command: str) -> dict[str, dict[str, object]]:
    """The games' own ``{command}_DEFAULTS`` (``SELFPLAY``, ``TUNE``, ``HILLCLIMB``), by game;
    a game that has none is left out."""
    found = {name: dict(getattr(part, f"{command}_DEFAULTS", {})) for name, part in _PARTS.items()}
    return {name: values for name, values in found.items() if values}


# Each command's defaults where a game needs its own (long nardy: a 1-ply search, its ply cap,
# no random openings), by the config's field: {game: {field: value}}.
SELFPLAY_DEFAULTS = _own_defaults("SELFPLAY")
TUNE_DEFAULTS = _own_defaults("TUNE")
HILLCLIMB_DEFAULTS = _own_defaults("HILLCLIMB")


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
    # only the side to move keeps openings of different lengths apart: a final match's openings
    # must then differ from the others' by an odd number of plies
    openings_by_parity: bool
    # the dice vary every game: no random openings needed, and a match's own dice keep its games
    # apart from another's
    dice: bool
    max_points: int  # the most a game scores (1; long nardy's koks 3): results are points
    state_problem: Callable[[np.ndarray], str | None]  # what is wrong with rows of states
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


def state_check(name: str) -> Callable[[np.ndarray], str | None]:
    """The check of rows of states of the game called ``name`` (one the tuner knows): its
    package's ``states`` part's."""
    from samuel.games.states import STATE_PROBLEMS

    check_game(name)
    return STATE_PROBLEMS[name]


@cache
def tuning_game(name: str) -> TuningGame:
    """The game called ``name`` (a registry name), as the tuner sees it."""
    check_game(name)
    from samuel.games import get_game
    from samuel.games import kernels as games

    rules = get_game(name)
    part = _PARTS[name]
    classic = part.classic()
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
        openings_by_parity=bool(part.OPENINGS_BY_PARITY),
        dice=bool(getattr(part, "DICE", False)),
        max_points=max(rules.outcome_classes),
        state_problem=state_check(name),
        load_weights=classic.load_weights,
        save_weights=classic.save_weights,
        rules=rules,
    )
