"""What training needs of long nardy (``descriptor.part("training")``): its defaults where they
differ from the trainers' own, and its network's outcome classes.

The network is backgammon's kind (TD-Gammon's): no value head, but six sigmoid outputs, the side
to move's chances of winning, winning a mars or more and winning a koks, then the same of losing;
long nardy's results nest as backgammon's do (a koks is a mars, a mars a win), so its value is
the expected points (``samuel.nn.shape``) and TD(lambda) trains each output on the next
position's. Its inputs are its own (``kernels.set_inputs``).
"""

from __future__ import annotations

from .board import PHASES  # noqa: F401  (read by samuel train --phases; one network each)

# ``samuel train``'s defaults where they differ from TrainConfig's fields, as backgammon's: the
# dice vary the games (no random moves), a 1-ply search is what learning from scratch can
# afford, each generation trains once on its games and the one before at a falling rate
# (backgammon's recipe), and its own folder keeps a run of one game from resuming from another's
# weights.
TRAIN_DEFAULTS: dict[str, object] = {
    "generations": 100,
    "buffer_generations": 2,
    "epochs": 1,
    "final_learning_rate": 5e-5,
    "depth": 1,
    "random_plies": 0,
    "epsilon": 0.0,
    "ply_cap": 1000,
    "out_dir": "weights/nardy",
}

# ``samuel zero-train``'s run folder when given none (it refuses long nardy: no action space).
ZERO_FOLDER = "weights/zero-nardy"

# The classes of a win: win (oyn), mars, koks (the outcome head's 2 x 3 outputs).
OUTCOME_CLASSES = 3

# No earlier input layout; the network shipped as `net` (docs/nardy.md, "Strength").
EARLIER_INPUTS: tuple[int, ...] = ()
SHIPPED = "shipped-nardy.bin"
SHIPPED_ZERO = None
SHIPPED_MOVES_LEFT = None
