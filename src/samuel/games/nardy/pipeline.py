"""What the production loop (:mod:`samuel.pipeline`) needs of long nardy
(``descriptor.part("pipeline")``): its rules, a kernel state read back as a position, how a
position met in a game becomes one the loop stores, what its random positions are drawn from
(:mod:`samuel.pipeline.dice_random`), and its expert players.

Long nardy has dice, so the loop labels its positions by rollouts over dice
(:mod:`samuel.train.dice_rollouts`: six outcome chances and the equity in points) and trains the
network's outcome head (a network per phase) on them.
"""

from __future__ import annotations

import numpy as np

# Where a state keeps its dice and its side to move (word 1), for samuel.pipeline.dice and
# samuel.pipeline.dice_random.
from .board import DICE_MASK, DICE_SHIFT, TURN_BIT  # noqa: F401

DICE = True  # labels by rollouts over dice, in points; gating by duplicate dice
EXPERT_DEPTHS: dict[str, int] = {}  # no compiled experts: its experts are player specs
# No outside program plays long nardy: the champion at 1 ply against the classic evaluation at 1
# ply ({champion}: the cycle's champion network, samuel.pipeline.dice_experts).
EXPERT_PLAYERS = ("{champion}:depth=2", "classic:depth=2")
SIDE_COUNTS = 24  # a side's counts in a Position: its points 1-24 (no bar)


def across(point: int) -> int:
    """A side's point index (0 for its 1-point) as the other side numbers it."""
    return (point + 12) % 24


def rules(number: int):
    """The rules of the game numbered ``number`` (long nardy has no variants)."""
    from .rules import RULES

    return RULES


def decode(rules, state: np.ndarray):
    """The position of a kernel state row (the game's words)."""
    return type(rules.initial_position()).decode(state)
