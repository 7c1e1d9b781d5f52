"""The hybrid evaluation's scale for English draughts (the hybrid itself is game-neutral:
:mod:`samuel.games.hybrid`). The classic score is in men (Black's view), the network's value in
``-1..1``, turned from the side to move's view into Black's before the two are added.
"""

from __future__ import annotations

# Men per unit of network output: the draughts course's HYBRID_SCALE of 300 with a man worth 100
# (shared/seeds/002_*, Module 8: "about three men, a first guess, not tuned").
DEFAULT_SCALE = 3.0
