"""What the analysis service (:mod:`samuel.analysis.positions`) asks of backgammon: the cube
decision before a roll, from the side on roll's six chances, as ``cube.py`` makes it (gnubg's
0-ply Janowski decision, the cube life of the position)."""

from __future__ import annotations

import numpy as np

from .cube import MatchScore, analyse, position_cube_life
from .rules import Position


def cube_decision(position: Position, chances: np.ndarray, cube):
    """The side on roll's cube decision in ``position`` (its dice still to roll) with its six
    ``chances`` and ``cube`` (a :class:`samuel.analysis.positions.CubeState`). Raises
    ValueError for a cube or score that cannot be."""
    from samuel.analysis.positions import CubeDecision

    found = np.array(chances, dtype=np.float64)
    found[3] = 1.0 - found[0]  # the head's two sigmoids need not add to one
    score = None
    if cube.away is not None:
        score = MatchScore(cube.away[0], cube.away[1], cube.crawford)
    life = position_cube_life(position.mover, position.opponent)
    found_analysis = analyse(found, cube.value, cube.owner, score, cube.jacoby, life)
    return CubeDecision(
        decision=found_analysis.decision.value,
        no_double=round(float(found_analysis.no_double), 6),
        double_take=round(float(found_analysis.double_take), 6),
        double_pass=round(float(found_analysis.double_pass), 6),
        unit="points a game per cube" if score is None else "chances of winning the match",
        available=found_analysis.available,
    )
