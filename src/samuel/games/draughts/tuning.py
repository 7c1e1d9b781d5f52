"""What the tuner asks of English draughts (``descriptor.part("tuning")``, read by
:mod:`samuel.tune.games`): the feature that is the unit, the weights hill climbing changes and by
how much, and its classic evaluation.

Light on purpose (the command line builds its help from these): :func:`classic` imports the
classic evaluation, and with it the kernels, when a command runs.
"""

from __future__ import annotations

UNIT = "men"  # the feature whose weight is 1 and stays 1: one man
UNIT_NAME = "man"  # one unit of score, in words

# The weights hill climbing may change unless told otherwise (never the unit).
TUNABLE = ("kings", "advance", "back_row", "centre")

# The smallest change a hill-climbing mutation makes to each weight, in units per unit of the
# feature: about a third of the course's weight for the small positional features (3, 6 and 4
# hundredths of a man), a tenth of a man for the pieces, so that a round can move a small weight
# without swamping it.
STEP_FLOOR = {"men": 0.1, "kings": 0.1, "advance": 0.01, "back_row": 0.02, "centre": 0.015}

# Whether only the side to move keeps openings of different lengths apart (then a final match's
# openings must differ from the others' by an odd number of plies): yes, nothing else in a
# draughts position counts the plies played.
OPENINGS_BY_PARITY = True


def classic():
    """The game's classic evaluation module (its FEATURES, WEIGHTS, TABLES, load_weights and
    save_weights)."""
    from . import classic as module

    return module
