"""The hybrid evaluation's scale for Tigers & Sheep (the hybrid itself is game-neutral:
:mod:`samuel.evaluation.hybrid`). The network's output is in ``-1..1`` (an expected result), the
classic score in sheep; ``DEFAULT_SCALE`` says how many sheep one unit of network output is worth,
and ``docs/tuning.md`` explains the choice.
"""

from __future__ import annotations

# Sheep per unit of network output. Fitting the classic score to game results (samuel tune on
# classic self-play) gives K = 0.55 per sheep: a classic score e predicts the expected result
# tanh(K e / 2), so a network value v says what a classic score of about 2 v / K = 3.6 v sheep
# says. Two sheep, a little over half that, keeps the rule in charge while the network nudges
# (the seed's hybrid); scales 1, 2, 4 and 8 all scored alike in a probe (docs/tuning.md).
DEFAULT_SCALE = 2.0
