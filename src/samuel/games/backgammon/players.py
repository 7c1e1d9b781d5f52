"""Backgammon's own players, which ``samuel.players.make_player`` finds by name: ``gnubg``, GNU
Backgammon's network choosing each play (``gnubg[:ply=N,noise=X,level=NAME,seed=S]``), from the
PyPI bindings (``pip install 'samuel[gnubg]'``).

``level`` is one of gnubg's own playing levels, with its settings as gnubg's ``eval.c`` defines
them (``aecSettings`` and ``aiSettingsMoveFilter``); ``ply`` and ``noise`` override its plies and
noise. Without a level: 0-ply, no noise (gnubg's "expert"). gnubg plays cubeless money
backgammon here, the cube centred, as Samuel plays it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from samuel.games.game import Game

from .cube_game import ChancesCube
from .gnubg_bridge import LARGE, MAX_PLIES, NORMAL, Evaluator, load_gnubg
from .rules import Play

# gnubg's levels (eval.c's aecSettings and aiSettingsMoveFilter): plies, noise, move filter. All
# set gnubg's deterministic noise; those that search use its pruning networks below the top ply,
# as the Evaluator always does (at 0 plies they are not used).
LEVELS: dict[str, tuple[int, float, tuple]] = {
    "beginner": (0, 0.060, NORMAL),
    "casual": (0, 0.050, NORMAL),  # gnubg's "casual play"
    "intermediate": (0, 0.040, NORMAL),
    "advanced": (0, 0.015, NORMAL),
    "expert": (0, 0.0, NORMAL),
    "worldclass": (2, 0.0, NORMAL),
    "supremo": (2, 0.0, LARGE),
    "grandmaster": (3, 0.0, LARGE),
    "4ply": (4, 0.0, LARGE),
}
MAX_NOISE = 1.0  # a standard deviation of a whole point on each output: play by noise alone


@dataclass
class GnubgPlayer:
    """Plays gnubg's best play at its settings: every legal play scored as gnubg scores them
    (:class:`~samuel.games.backgammon.gnubg_bridge.Evaluator`), the best kept. The bindings are
    imported at the first move, in the process that plays it."""

    evaluator: Evaluator
    seed: int = 0  # gnubg's noise is keyed on the position, not on this (see Evaluator)
    spec: str = "gnubg"
    last: list = field(default_factory=list, repr=False)  # the last move's scored plays

    def choose_move(self, game: Game) -> Play:
        self.last = self.evaluator.score(game.position)
        return self.last[0].play

    # Its cube decisions: Janowski's from gnubg's own chances at its plies (the bindings give
    # no cubeful decisions; from gnubg's 0-ply chances these agree with gnubg 1.07's on all but
    # one of 110 money positions: tests/test_backgammon_cube.py).
    def offers_double(self, game: Game, cube) -> bool:
        return ChancesCube(self._chances).offers_double(game, cube)

    def takes(self, game: Game, cube) -> bool:
        return ChancesCube(self._chances).takes(game, cube)

    def _chances(self, position) -> np.ndarray:
        return np.array(self.evaluator.chances(position), dtype=np.float64)


def gnubg_player(
    options: dict[str, str], rules, spec: str, seed: int, depth: int | None
) -> GnubgPlayer:
    """The ``gnubg`` player of a spec's options (it pops those it knows). ``depth``, a caller's
    default search depth for Samuel's own players, does not apply: gnubg's plies are its own."""
    from samuel.players import PlayerSpecError, _number, quoted

    if rules.name != "backgammon":
        raise PlayerSpecError(f"{quoted(spec)}: gnubg plays backgammon only")
    level = options.pop("level", None)
    if level is not None and level not in LEVELS:
        raise PlayerSpecError(
            f"{quoted(spec)}: level must be one of gnubg's: {', '.join(LEVELS)}, not "
            f"{quoted(level)}"
        )
    plies, noise, filters = LEVELS[level or "expert"]
    spec_plies = _number(options, "ply", int, spec, 0, MAX_PLIES)
    spec_noise = _number(options, "noise", float, spec, 0.0, MAX_NOISE)
    plies = plies if spec_plies is None else spec_plies
    noise = noise if spec_noise is None else spec_noise
    try:
        load_gnubg()  # a missing install is said now, not at the first move
    except ImportError as error:
        raise PlayerSpecError(f"{quoted(spec)}: {error}") from None
    return GnubgPlayer(Evaluator(plies, noise, True, filters), seed=seed, spec=spec)


PLAYERS = {"gnubg": gnubg_player}
