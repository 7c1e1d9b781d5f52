"""The hybrid evaluation's scale for English draughts (the hybrid itself is game-neutral:
:mod:`samuel.evaluation.hybrid`). The classic score is in men (Black's view), the network's value in
``-1..1``, turned from the side to move's view into Black's before the two are added.
"""

from __future__ import annotations

# Men per unit of network output. The draughts course's HYBRID_SCALE was 300 with a man worth 100
# (its Module 8: "about three men, a first guess, not tuned").
COURSE_SCALE = 3.0
# The tuned one: with the shipped network, a probe of scales 1 to 24 at depth 4 on openings used
# nowhere else (docs/draughts.md) scored higher with every larger scale up to 12, then no higher:
# the network, stronger than the rule, should lead and the rule break its ties.
DEFAULT_SCALE = 12.0
