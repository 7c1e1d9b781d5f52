"""The production loop on a game with dice (backgammon, long nardy): what differs from the other
games, in one place.

- **Positions** are stored with the dice still to roll: a position met in a game carries the
  roll its play answered, but the network values a position before the roll.
- **Labels** come from rollouts over dice (:mod:`samuel.train.dice_rollouts`): the pipeline's
  ``--rollouts`` K, ``--rollout-depth`` d played as the champion's ``d - 1`` ply (depth 1 is
  0 ply, as ``net:depth=1`` plays), ``--truncate-plies``, ``--variance-reduction`` as
  antithetic + quasi-random dice, and ``--luck`` each roll's luck subtracted. A label keeps the
  six outcome chances, the equity in points and its standard error.
- **The champion** may be one network or a network per phase (long nardy's shipped one): every
  stage values positions with the evaluator its parameters call for.
"""

from __future__ import annotations

import numpy as np

from samuel.games import descriptors
from samuel.games import kernels as games
from samuel.nn.phased import is_phased
from samuel.train.dice_rollouts import CLASSES, DiceRolloutConfig, leaf_outcomes

from .config import PipelineConfig
from .sources import PositionBatch, _batch

MAX_ROLLOUT_DEPTH = 3  # 2 ply, the most the plied search plays in a rollout


def has_dice(game: str) -> bool:
    """Whether the game (a registry name) is played with dice, by its ``pipeline`` part."""
    part = descriptors()[game].part("pipeline")
    return bool(getattr(part, "DICE", False))


def evaluator_of(params: np.ndarray) -> int:
    """The evaluator that reads these network parameters: one network, or a network per
    phase."""
    return games.EVALUATOR_PHASED if is_phased(params) else games.EVALUATOR_NETWORK


def rollout_config(config: PipelineConfig) -> DiceRolloutConfig:
    """The rollouts over dice the pipeline's configuration asks for (the module docstring)."""
    return DiceRolloutConfig(
        rollouts=config.rollouts,
        ply=config.rollout_depth - 1,
        truncate_plies=config.truncate_plies,
        variance_reduction="antithetic+stratified" if config.variance_reduction else "none",
        luck=config.luck,
    )


def check_config(config: PipelineConfig) -> str | None:
    """What a game with dice cannot do of this configuration, or None."""
    if config.rollout_depth > MAX_ROLLOUT_DEPTH:
        return (
            f"--rollout-depth {config.rollout_depth}: with dice a rollout plays at most 2 ply "
            f"(depth {MAX_ROLLOUT_DEPTH})"
        )
    if config.tablebase is not None or config.tablebase_positions:
        return "a game with dice has no tablebase"
    if config.moves_left:
        return "--moves-left: a rollout over dice does not count the plies left"
    return None


def to_roll(game: str, batch: PositionBatch) -> PositionBatch:
    """The batch's positions with their dice taken back, each kept once (its first game and
    ply)."""
    if len(batch) == 0:
        return batch
    part = descriptors()[game].part("pipeline")
    states = np.array(batch.states, dtype=np.int64, copy=True)
    states[:, 1] &= ~np.int64(part.DICE_MASK << part.DICE_SHIFT)  # word 1 keeps the dice
    return _batch(states, batch.games, batch.plies)


def equities(game: int, params: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The champion's 0-ply equity of each position (expected points, the first player's
    view): its six chances, wins less losses."""
    words = games.compiled_game(game).state_words
    chances = leaf_outcomes(
        game, evaluator_of(params), params, np.ascontiguousarray(states[:, :words])
    )
    return chances[:, :CLASSES].sum(axis=1) - chances[:, CLASSES:].sum(axis=1)
