"""What training needs of Tigers & Sheep (``descriptor.part("training")``): its defaults where
they differ from the trainers' own, its earlier network inputs and the networks shipped for it.
"""

from __future__ import annotations

from .kernels import SEED_NETWORK_INPUTS

# ``samuel train``'s defaults where they differ from TrainConfig's fields: none, the fields'
# defaults are Tigers & Sheep's (the seed's).
TRAIN_DEFAULTS: dict[str, object] = {}

# ``samuel zero-train``'s run folder when given none (other games: weights/zero-GAME).
ZERO_FOLDER = "weights/zero"

# The network values a position by its value head (no outcome classes: a win is a win).
OUTCOME_CLASSES = 0

# The earlier input layouts of the network, each the start of its present one: a file of one of
# them loads as the present network with no weight on the inputs added since (network.widen).
# The seed's network had the raw position only (kernels.py).
EARLIER_INPUTS = (SEED_NETWORK_INPUTS,)

# The networks shipped with the package (files in samuel/nn/): the best of the documented
# training run, picked by a screen and confirmed by a fresh match (docs/training.md); the Samuel
# Zero network (docs/zero.md), the ``zero`` player's default; and the shipped network with a
# moves-left head trained alone (docs/moves-left.md): its value is bit-for-bit the shipped
# network's, and ``net:moves_left=on`` plays it.
SHIPPED = "shipped.bin"
SHIPPED_ZERO = "shipped-zero.bin"
SHIPPED_MOVES_LEFT = "shipped-moves-left.bin"
