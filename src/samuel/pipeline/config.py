"""The pipeline's configuration: one frozen dataclass, every field a ``samuel pipeline run``
option. Each cycle is planned with, and stores, the configuration in force when it began, so a
change applies from the next cycle and the store says what every cycle did."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from samuel.errors import CommandError


@dataclass(frozen=True)
class PipelineConfig:
    seed: int = 0  # every random choice of the loop derives from it
    # Stage 1: positions.
    selfplay_games: int = 200  # self-play games of the champion per cycle
    selfplay_depth: int = 2
    games_per_unit: int = 50  # self-play or expert games in one unit of work
    random_plies: int = 4  # random opening plies of self-play and expert games
    selfplay_epsilon: float = 0.05  # random moves in self-play after the opening
    expert_games: int = 20  # games between the strongest players per cycle
    random_positions: int = 2000  # distribution-matched random positions per cycle
    tablebase_positions: int = 0  # Tigers & Sheep: positions drawn from the table, exact labels
    tablebase: str | None = None  # the table's folder: exact labels, `tablebase` source, perfect
    # Stage 2: labels by rollout.
    rollouts: int = 16  # K games per position
    rollout_depth: int = 2  # the champion's depth in rollouts (docs/pipeline.md: 2 beats 1)
    rollout_epsilon: float = 0.05  # share of plies played at random
    truncate_plies: int = 0  # 0: to the end; N: stop after N plies and take the network's value
    variance_reduction: bool = True  # antithetic pairs, low-discrepancy random plies
    label_chunk: int = 500  # positions per labelling unit
    # Stage 3: supervised training.
    train_positions: int = 200_000  # the most labelled positions sampled for one training
    epochs: int = 40
    batch_size: int = 256
    learning_rate: float = 1e-3
    patience: int = 4  # early stopping
    validation: float = 0.1  # share of games held out
    without: str | None = None  # leave this source out of training (what `ablate` compares)
    # The moves-left head: a champion without it gets a fresh one in its candidate (a champion
    # with it always trains it), learning the plies the labels' games lasted; its loss weight
    # against the value's (lc0's 0.1).
    moves_left: bool = False
    moves_left_weight: float = 0.1
    # Stage 4: gating.
    gate_games: int = 200  # the most games against the champion (the SPRT may stop sooner)
    gate_depth: int = 2  # both networks' search depth in gating matches
    elo0: float = 0.0  # SPRT: H0, the candidate is no better ...
    elo1: float = 20.0  # ... H1, it is this much better
    anchor: str = "classic"  # the fixed opponent (a player spec, searching at gate_depth)
    anchor_games: int = 100
    anchor_floor: float = 0.5  # promoted only if it scores at least this against the anchor
    opening_plies: int = 4  # random opening plies of gating games
    # Stage 6: relabelling after a promotion.
    relabel_positions: int = 2000  # positions relabelled per promotion, in priority order
    workers: int = 0  # match worker processes; 0: every core (results do not depend on it)

    def __post_init__(self) -> None:
        positive = (
            "selfplay_depth",
            "games_per_unit",
            "rollouts",
            "rollout_depth",
            "label_chunk",
            "train_positions",
            "epochs",
            "batch_size",
            "patience",
            "gate_depth",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise CommandError(f"{name.replace('_', ' ')} must be at least 1")
        not_negative = (
            "seed",
            "selfplay_games",
            "random_plies",
            "expert_games",
            "random_positions",
            "tablebase_positions",
            "truncate_plies",
            "relabel_positions",
            "workers",
        )
        for name in not_negative:
            if getattr(self, name) < 0:
                raise CommandError(f"{name.replace('_', ' ')} must not be negative")
        for name in ("selfplay_epsilon", "rollout_epsilon", "anchor_floor"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise CommandError(f"{name.replace('_', ' ')} must be between 0 and 1")
        if not 0.0 < self.validation < 1.0:
            raise CommandError("validation must be between 0 and 1 (a share of the games)")
        if self.variance_reduction and self.rollouts % 2:
            raise CommandError("rollouts must be even with variance reduction (antithetic pairs)")
        for name in ("gate_games", "anchor_games"):
            value = getattr(self, name)
            if value < 2 or value % 2:
                raise CommandError(
                    f"{name.replace('_', ' ')} must be an even number, at least 2 "
                    "(each opening is played twice)"
                )
        if not self.elo1 > self.elo0:
            raise CommandError("the SPRT's elo1 must be more than its elo0")
        if self.learning_rate <= 0:
            raise CommandError("learning rate must be more than 0")
        if not (math.isfinite(self.moves_left_weight) and self.moves_left_weight >= 0):
            raise CommandError("moves left weight must be a finite number, at least 0")
        if self.without is not None and self.without not in (
            "selfplay",
            "random",
            "expert",
            "tablebase",
        ):
            raise CommandError(f"unknown source {self.without!r} to leave out")
        if self.tablebase_positions and self.tablebase is None:
            raise CommandError("tablebase positions need a tablebase (--tablebase DIR)")

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> PipelineConfig:
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise CommandError(f"unknown pipeline settings in the store: {', '.join(unknown)}")
        return cls(**data)

    def replace(self, **changes) -> PipelineConfig:
        return dataclasses.replace(self, **changes)
