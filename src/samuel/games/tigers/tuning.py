"""What the tuner asks of Tigers & Sheep (``descriptor.part("tuning")``, read by
:mod:`samuel.tune.games`): the feature that is the unit, the weights hill climbing changes and by
how much, and its classic evaluation.

Light on purpose (the command line builds its help from these): :func:`classic` imports the
classic evaluation, and with it the kernels, when a command runs.
"""

from __future__ import annotations

UNIT = "captured"  # the feature whose weight is 1 and stays 1: one captured sheep
UNIT_NAME = "sheep"  # one unit of score, in words

# The weights hill climbing may change unless told otherwise (never the unit). sheep_in_hand and
# tiger_to_move are left out: at a fixed depth every leaf of a search has the same side to move
# and, in the placement phase, the same sheep in hand, so they add the same to every leaf and a
# match can hardly tell their values apart.
TUNABLE = (
    "tiger_mobility",
    "trapped_tigers",
    "capturable_sheep",
    "capture_now",
    "double_threat",
    "sheep_on_edge",
    "tigers_on_junctions",
)

# The smallest change a hill-climbing mutation makes to each weight, in units per unit of the
# feature: about a tenth of a sheep on a typical position (mobility counts about 20 moves, edge
# sheep about 10).
STEP_FLOOR = {
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
}

# Whether only the side to move keeps openings of different lengths apart (then a final match's
# openings must differ from the others' by an odd number of plies): no, the sheep in hand count
# the plies of the placement.
OPENINGS_BY_PARITY = False


def classic():
    """The game's classic evaluation module (its FEATURES, WEIGHTS, TABLES, load_weights and
    save_weights)."""
    from . import classic as module

    return module
