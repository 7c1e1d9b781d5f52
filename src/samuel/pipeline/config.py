"""The pipeline's configuration: one frozen dataclass, every field a ``samuel pipeline run``
option. Each cycle is planned with, and stores, the configuration in force when it began, so a
change applies from the next cycle and the store says what every cycle did."""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass

from samuel.errors import CommandError

# Random and tablebase positions made by one unit of work (stages.py plans with them).
RANDOM_PER_UNIT = 1000
TABLEBASE_PER_UNIT = 2000
MAX_UNITS = 100_000  # units of work one stage may plan (each a row, planned in one transaction)
MAX_SEARCH_DEPTH = 127  # the search's deepest line is 128 plies, the root included
MAX_PLY_CAP = 10_000
MAX_GAMES = 1_000_000  # games in one unit or one match (sources.MAX_GAMES)
MAX_ELO = 1000.0  # an SPRT bound beyond this is no test (a score of 99.7%)
MAX_POINTS = 3.0  # a game's most points without the cube: an SPRT bound lies inside +-3
SOURCE_NAMES = ("selfplay", "random", "expert", "tablebase")


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
    # A game with dice's two expert players (specs, "FIRST,SECOND"); None: the game's own
    experts: str | None = None
    random_positions: int = 2000  # distribution-matched random positions per cycle
    tablebase_positions: int = 0  # Tigers & Sheep: positions drawn from the table, exact labels
    tablebase: str | None = None  # the table's folder: exact labels, `tablebase` source, perfect
    # Stage 2: labels by rollout.
    rollouts: int = 16  # K games per position
    rollout_depth: int = 2  # the champion's depth in rollouts (docs/pipeline.md: 2 beats 1)
    rollout_epsilon: float = 0.05  # share of plies played at random
    truncate_plies: int = 0  # 0: to the end; N: stop after N plies and take the network's value
    variance_reduction: bool = True  # antithetic pairs, low-discrepancy random plies
    luck: bool = False  # a game with dice: subtract each roll's luck (gnubg's control variate)
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
    # A network per phase: each phase's network must beat the champion's alone to be taken
    # (samuel.pipeline.phase_gate), before the gate
    phase_gate: bool = True
    # Stage 4: gating.
    gate_games: int = 200  # the most games against the champion (the SPRT may stop sooner)
    gate_depth: int = 2  # both networks' search depth in gating matches
    elo0: float = 0.0  # SPRT: H0, the candidate is no better ...
    elo1: float = 20.0  # ... H1, it is this much better
    # A game with dice tests points a game instead (duplicate dice, cube off): H0 and H1.
    points0: float = 0.0
    points1: float = 0.1
    # A game with a cube (backgammon) may gate with the cube on, and in matches to N points
    # (0: single games), whose wins the Elo SPRT (elo0, elo1) then tests.
    gate_cube: bool = False
    gate_match: int = 0
    anchor: str = "classic"  # the fixed opponent (a player spec, searching at gate_depth)
    anchor_games: int = 100
    anchor_floor: float = 0.5  # promoted only if it scores at least this against the anchor
    opening_plies: int = 4  # random opening plies of gating games
    # Stage 6: relabelling after a promotion.
    relabel_positions: int = 2000  # positions relabelled per promotion, in priority order
    workers: int = 0  # match worker processes; 0: every core (results do not depend on it)

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            _check_field(item.name, getattr(self, item.name))
        if self.variance_reduction and self.rollouts % 2:
            raise CommandError(
                f"{_option('rollouts')} must be even with variance reduction (antithetic pairs), "
                f"not {self.rollouts}"
            )
        for name in ("gate_games", "anchor_games"):
            value = getattr(self, name)
            if value % 2:
                raise CommandError(
                    f"{_option(name)} must be an even number, at least 2 (each opening is "
                    f"played twice), not {value}"
                )
        if not self.elo1 > self.elo0:
            raise CommandError(
                f"the SPRT's elo1 must be more than its elo0 (--elo1 {self.elo1:g}, "
                f"--elo0 {self.elo0:g})"
            )
        if not self.points1 > self.points0:
            raise CommandError(
                f"the points SPRT's points1 must be more than its points0 (--points1 "
                f"{self.points1:g}, --points0 {self.points0:g})"
            )
        if self.without is not None and self.without not in SOURCE_NAMES:
            raise CommandError(f"unknown source {self.without!r} to leave out")
        if self.tablebase_positions and self.tablebase is None:
            raise CommandError("tablebase positions need a tablebase (--tablebase DIR)")
        for what, count, per_unit in (
            ("self-play games", self.selfplay_games, self.games_per_unit),
            ("expert games", self.expert_games, self.games_per_unit),
            ("random positions", self.random_positions, RANDOM_PER_UNIT),
            ("tablebase positions", self.tablebase_positions, TABLEBASE_PER_UNIT),
        ):
            units = -(-count // per_unit)
            if units > MAX_UNITS:
                raise CommandError(
                    f"{count:,} {what} a cycle would be {units:,} units of work, more than "
                    f"{MAX_UNITS:,}" + (" (raise --games-per-unit)" if "games" in what else "")
                )

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> PipelineConfig:
        if not isinstance(data, dict):
            raise CommandError(f"a stored pipeline configuration is not a mapping: {data!r:.80}")
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise CommandError(f"unknown pipeline settings in the store: {', '.join(unknown)}")
        return cls(**data)

    def replace(self, **changes) -> PipelineConfig:
        return dataclasses.replace(self, **changes)


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


# Each field's kind and range: (type, least, most, least excluded). A number outside is refused
# before anything runs, whether it came from the command line or from a stored configuration.
_INT, _FLOAT = "int", "float"
FIELDS: dict[str, tuple[str, float | None, float | None, bool]] = {
    "seed": (_INT, 0, 2**63 - 1, False),
    "selfplay_games": (_INT, 0, 10**9, False),
    "selfplay_depth": (_INT, 1, MAX_SEARCH_DEPTH, False),
    "games_per_unit": (_INT, 1, MAX_GAMES, False),
    "random_plies": (_INT, 0, MAX_PLY_CAP, False),
    "selfplay_epsilon": (_FLOAT, 0.0, 1.0, False),
    "expert_games": (_INT, 0, 10**9, False),
    "random_positions": (_INT, 0, 10**10, False),
    "tablebase_positions": (_INT, 0, 10**10, False),
    "rollouts": (_INT, 1, 10_000, False),  # a label's noise falls as 1/sqrt(K): 16 to 256 do
    "rollout_depth": (_INT, 1, MAX_SEARCH_DEPTH, False),
    "rollout_epsilon": (_FLOAT, 0.0, 1.0, False),
    "truncate_plies": (_INT, 0, MAX_PLY_CAP, False),
    "label_chunk": (_INT, 1, 1_000_000, False),
    "train_positions": (_INT, 1, 10**10, False),
    "epochs": (_INT, 1, 100_000, False),
    "batch_size": (_INT, 1, 1 << 24, False),
    "learning_rate": (_FLOAT, 0.0, 1.0, True),
    "patience": (_INT, 1, 100_000, False),
    "validation": (_FLOAT, 0.0, 1.0, True),
    "moves_left_weight": (_FLOAT, 0.0, 1000.0, False),
    "gate_games": (_INT, 2, MAX_GAMES, False),
    "gate_depth": (_INT, 1, MAX_SEARCH_DEPTH, False),
    "elo0": (_FLOAT, -MAX_ELO, MAX_ELO, False),
    "elo1": (_FLOAT, -MAX_ELO, MAX_ELO, False),
    "points0": (_FLOAT, -MAX_POINTS, MAX_POINTS, True),
    "points1": (_FLOAT, -MAX_POINTS, MAX_POINTS, True),
    "anchor_games": (_INT, 2, MAX_GAMES, False),
    "anchor_floor": (_FLOAT, 0.0, 1.0, False),
    "opening_plies": (_INT, 0, MAX_PLY_CAP, False),
    "relabel_positions": (_INT, 0, 10**9, False),
    "workers": (_INT, 0, 4096, False),
    "gate_match": (_INT, 0, 25, False),
}
_FLAGS = ("variance_reduction", "luck", "moves_left", "phase_gate", "gate_cube")
_TEXTS = {"tablebase": True, "anchor": False, "without": True, "experts": True}  # may be None


def _check_field(name: str, value) -> None:
    """Refuse a field of the wrong type, or a number out of its range (NaN and infinities
    included), in one line that names the option."""
    if name in _FLAGS:
        if not isinstance(value, bool):
            raise CommandError(f"the setting {name} must be true or false, not {value!r:.40}")
        return
    if name in _TEXTS:
        if value is None and _TEXTS[name]:
            return
        if not isinstance(value, str) or not value:
            raise CommandError(f"{_option(name)} must be a non-empty text, not {value!r:.40}")
        return
    kind, low, high, low_open = FIELDS[name]
    if kind == _INT:
        if isinstance(value, bool) or not isinstance(value, int):
            raise CommandError(f"{_option(name)} must be a whole number, not {value!r:.40}")
    elif isinstance(value, bool) or not isinstance(value, int | float):
        raise CommandError(f"{_option(name)} must be a number, not {value!r:.40}")
    elif not math.isfinite(value):
        raise CommandError(f"{_option(name)} must be a finite number, not {value}")
    below = value <= low if low_open else value < low
    if below or value > high:
        least = f"more than {low:g}" if low_open else f"at least {low:g}"
        raise CommandError(
            f"{_option(name)} must be {least} and at most {high:g}, not {value:g}"
            if kind == _FLOAT
            else f"{_option(name)} must be from {low:,} to {high:,}, not {value:,}"
        )


# Memory: what the largest piece of one unit of work holds, estimated from the options, must fit
# the machine. Per position or game, in bytes, with room to spare: training's peak measured 740
# to 1,160 bytes a position (400,000 and 150,000 positions, the sample's chunks of rows
# included); a rollout's arrays take 26 bytes.
LABEL_BYTES_PER_ROLLOUT = 64  # a rollout's outcome, plies, flags and its share of the chunk
LABEL_BYTES_PER_POSITION = 512  # a position to label: its state, seed, label, ids, in and out
TRAIN_BYTES_PER_POSITION = 2048  # a sampled position: sketch, copies, features of an epoch
GAME_BYTES = 200 * 256  # a game's positions in a generating unit (200 plies, a few copies)
MEMORY_SHARE = 0.75  # a unit may use at most this share of the machine's memory


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (None where the system does not say)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def memory_needs(config: PipelineConfig) -> list[tuple[int, str]]:
    """The memory each stage's largest piece would need, estimated, with what drives it."""
    label = config.label_chunk * (
        config.rollouts * LABEL_BYTES_PER_ROLLOUT + LABEL_BYTES_PER_POSITION
    )
    return [
        (
            label,
            f"labelling {config.label_chunk:,} positions (--label-chunk) by "
            f"{config.rollouts:,} rollouts each (--rollouts)",
        ),
        (
            config.train_positions * TRAIN_BYTES_PER_POSITION,
            f"training on up to {config.train_positions:,} positions (--train-positions)",
        ),
        (
            config.games_per_unit * GAME_BYTES,
            f"a unit of {config.games_per_unit:,} games (--games-per-unit)",
        ),
        (
            config.relabel_positions * LABEL_BYTES_PER_POSITION,
            f"relabelling {config.relabel_positions:,} positions (--relabel-positions)",
        ),
    ]


def check_memory(config: PipelineConfig, memory: int | None = None) -> None:
    """Refuse a configuration a stage of which would not fit in ``memory`` (by default the
    machine's physical memory) with what the stage needs: better now than a MemoryError after
    an hour of work."""
    memory = machine_memory() if memory is None else memory
    if memory is None:
        return
    limit = int(memory * MEMORY_SHARE)
    for needed, what in memory_needs(config):
        if needed > limit:
            raise CommandError(
                f"{what} would need about {format_bytes(needed)} of memory; this machine has "
                f"{format_bytes(memory)} (a unit of work may use {format_bytes(limit)})"
            )


def format_bytes(size: int) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"
