"""What training needs of backgammon (``descriptor.part("training")``): its defaults where they
differ from the trainers' own, and its network's outcome classes.

The network is TD-Gammon's kind: no value head, but six sigmoid outputs, the side to move's
chances of winning, winning a gammon or more and winning a backgammon, then the same of losing;
its value is the expected points (``samuel.nn.shape``), and TD(lambda) trains each output on the
next position's (seed 000's targets; TD-Gammon's).
"""

from __future__ import annotations

# ``samuel train``'s defaults where they differ from TrainConfig's fields: a game with dice
# needs no random moves to vary (the dice do it), and a 1-ply search (the play whose position
# the network likes best: TD-Gammon's) is what learning from scratch can afford; its own folder
# keeps a run of one game from resuming from another's weights.
# The samples and rate that trained the shipped network (docs/backgammon.md, "Strength"): each
# generation's games and the one before, one pass, at a rate falling from 1e-3 to 5e-5 over 160
# generations. Five generations of two passes at a constant rate learned more slowly for the
# same games and then lost ground.
TRAIN_DEFAULTS: dict[str, object] = {
    "generations": 160,
    "buffer_generations": 2,
    "epochs": 1,
    "final_learning_rate": 5e-5,
    "depth": 1,
    "random_plies": 0,
    "epsilon": 0.0,
    "ply_cap": 600,
    "out_dir": "weights/backgammon",
}

# ``samuel zero-train``'s run folder when given none (it refuses backgammon: no action space).
ZERO_FOLDER = "weights/zero-backgammon"

# The classes of a win: single game, gammon, backgammon (the outcome head's 2 x 3 outputs).
OUTCOME_CLASSES = 3

# No earlier input layout; the network shipped as `net` (docs/backgammon.md, "Strength").
EARLIER_INPUTS: tuple[int, ...] = ()
SHIPPED = "shipped-backgammon.bin"
SHIPPED_ZERO = None
SHIPPED_MOVES_LEFT = None
