"""What training needs of English draughts (``descriptor.part("training")``): its defaults where
they differ from the trainers' own, its earlier network inputs and the networks shipped for it.
"""

from __future__ import annotations

# ``samuel train``'s defaults where they differ from TrainConfig's fields (Tigers & Sheep's). A
# draughts game at depth 3 is quicker, and the network needs more of them: 200 generations of
# 1,000 games is the documented run (docs/draughts.md), about an hour on 2 cores. Its own folder
# keeps a run of one game from resuming from the other's weights.
TRAIN_DEFAULTS: dict[str, object] = {
    "generations": 200,
    "games": 1000,
    "out_dir": "weights/draughts",
}

# ``samuel zero-train``'s run folder when given none.
ZERO_FOLDER = "weights/zero-draughts"

# The network values a position by its value head (no outcome classes: a win is a win).
OUTCOME_CLASSES = 0

# No earlier input layout: the network has had its present inputs from the start.
EARLIER_INPUTS: tuple[int, ...] = ()

# The network shipped with the package (a file in samuel/nn/): the best of the documented
# training run (docs/draughts.md). No Zero network, no moves-left head.
SHIPPED = "shipped-draughts.bin"
SHIPPED_ZERO = None
SHIPPED_MOVES_LEFT = None
