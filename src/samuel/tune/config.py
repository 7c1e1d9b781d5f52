"""The configurations of ``samuel selfplay``, ``samuel tune`` and ``samuel hillclimb``: frozen
dataclasses whose fields are the commands' options, with commented defaults. Each run saves its
config beside what it made (in the ``.npz``, or in the weights file's ``tuning`` entry).

Light on purpose: building the command line imports this module, not the kernels.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from samuel.errors import CommandError
from samuel.games import default_game

from .games import TUNABLE as _TUNABLE

if TYPE_CHECKING:
    from samuel.match.sprt import Sprt


DEFAULT_GAME = default_game()


def _game_default(config, name: str, value) -> None:
    """Fill in a field left at None with the game's default (the config is frozen, and its saved
    form should say what was used)."""
    object.__setattr__(config, name, value)


def _has_tablebase(game: str) -> bool:
    """Whether the game called ``game`` has a tablebase (its package's ``perfect`` part)."""
    from samuel.games import descriptors

    descriptor = descriptors().get(game)
    return descriptor is not None and descriptor.part("perfect") is not None


def _tablebase_games() -> str:
    """The refusal of a tablebase for a game without one: which games have one."""
    from samuel.games import descriptors

    titles = [d.title for d in descriptors().values() if d.part("perfect") is not None]
    return f"only {' and '.join(titles) or 'no game'} has a tablebase"


@dataclass(frozen=True)
class SelfPlayDataConfig:
    """How the labelled positions are made. Every field is a ``samuel selfplay`` option."""

    games: int = 2000  # self-play games to play
    out: str = "data/selfplay.npz"  # the file to write
    player: str = "classic:depth=3"  # who plays both sides: a classic, network or hybrid spec
    random_plies: int = 10  # random opening plies, for diverse positions (as in training)
    epsilon: float = 0.05  # chance of a random move after the opening (as in training)
    ply_cap: int = 200  # a game this long is a draw
    seed: int = 0  # the run's seed: game g's seed comes from (seed, g)
    workers: int | None = None  # threads (every core); the file does not depend on it
    game: str = DEFAULT_GAME  # the game played (a registry name)

    def __post_init__(self) -> None:
        from .games import check_game

        check_game(self.game)
        checks = [
            (self.games >= 1, "games must be at least 1"),
            (self.random_plies >= 0, "random plies must not be negative"),
            (0.0 <= self.epsilon <= 1.0, "epsilon must be between 0 and 1"),
            (1 <= self.ply_cap <= 30_000, "ply cap must be between 1 and 30000"),
            (self.seed >= 0, "seed must not be negative"),
            (self.workers is None or self.workers >= 1, "workers must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise CommandError(message)


@dataclass(frozen=True)
class TuneConfig:
    """How ``samuel tune`` runs. Every field is one of its options."""

    # labelled positions (samuel selfplay): one file, or several (games of different players)
    data: str | tuple[str, ...] = "data/selfplay.npz"
    out: str = "tuned.json"  # where the tuned weights go (a classic weights file)
    start: str | None = None  # weights to start from (None: the hand-written ones)
    validation: float = 0.1  # share of the games held out (split by game, never by position)
    iterations: int = 2000  # full-batch steps
    learning_rate: float = 0.002  # Adam: about this much per weight and step
    optimizer: str = "adam"  # adam or gd
    # Features whose weights stay as they start; None: the game's unit (captured, men) only.
    fixed: tuple[str, ...] | None = None
    seed: int = 0  # picks the held-out games
    workers: int | None = None  # threads (every core); the result does not depend on it
    game: str = DEFAULT_GAME  # the game of the data set and the weights
    tables: bool = True  # tune the piece-square tables too (they start at zero if absent)
    label: str = "result"  # result, search or rollout (samuel.tune.labels)
    label_player: str = "classic:depth=5"  # who searches (search) or plays out (rollout)
    rollouts: int = 16  # games per position with label rollout
    tablebase: str | None = None  # a tablebase folder (a game with one), exact where it holds
    deduplicate: bool = False  # each distinct position once, its targets averaged
    # The final match, tuned against the start weights: games (0: none), depth, opening plies
    # (which must differ from the data's random plies, so that its openings were not the data's).
    match_games: int = 400
    match_depth: int = 3
    match_opening_plies: int = 5

    def __post_init__(self) -> None:
        from .games import tuning_game

        game = tuning_game(self.game)
        if self.fixed is None:
            _game_default(self, "fixed", (game.unit,))
        if isinstance(self.data, str):
            _game_default(self, "data", (self.data,))
        elif isinstance(self.data, list):
            _game_default(self, "data", tuple(self.data))
        tabled = self.tablebase is None or _has_tablebase(self.game)
        checks = [
            (0.0 < self.validation < 1.0, "validation must be between 0 and 1"),
            (self.iterations >= 0, "iterations must not be negative"),
            (
                self.learning_rate > 0 and math.isfinite(self.learning_rate),
                "learning rate must be a number more than 0",
            ),
            (self.optimizer in ("adam", "gd"), "optimizer must be adam or gd"),
            (self.seed >= 0, "seed must not be negative"),
            (self.workers is None or self.workers >= 1, "workers must be at least 1"),
            (len(self.data) >= 1, "give at least one data set"),
            (
                self.label in ("result", "search", "rollout"),
                "label must be result, search or rollout",
            ),
            (self.rollouts >= 1, "rollouts must be at least 1"),
            (tabled, "" if tabled else _tablebase_games()),
            (self.match_games >= 0 and self.match_games % 2 == 0, "match games must be even"),
            (1 <= self.match_depth <= 20, "match depth must be between 1 and 20"),
            (0 <= self.match_opening_plies <= 40, "match opening plies must be between 0 and 40"),
        ]
        for ok, message in checks:
            if not ok:
                raise CommandError(message)
        game.check_features(self.fixed)
        if game.unit not in self.fixed:
            raise CommandError(
                f"{game.unit} is the unit (one {game.unit_name}) and must stay fixed: with K "
                "fixed it pins the scale of the weights"
            )


# The default game's weights a round may change by default (each game's: samuel.tune.games).
TUNABLE = _TUNABLE.get(DEFAULT_GAME, ())


@dataclass(frozen=True)
class HillClimbConfig:
    """How ``samuel hillclimb`` runs. Every field is one of its options."""

    rounds: int = 40  # challengers to try
    games: int = 200  # games per round (with an SPRT, the most)
    out_dir: str = "tuning/hillclimb"  # logs, the champion and the learned weights
    start: str | None = None  # the weights to start from (None: the hand-written ones)
    depth: int = 3  # search depth in every match
    step: float = 0.3  # a change is about this share of the weight (at least STEP_FLOOR)
    accept: float = 0.55  # the score a challenger needs (without an SPRT)
    sprt: Sprt | None = None  # accept a challenger when this test accepts H1
    features: tuple[str, ...] | None = None  # the weights that may change (None: the game's)
    opening_plies: int = 4  # random opening plies in the rounds' matches
    final_games: int = 400  # games in the final match, fixed before it is played
    final_opening_plies: int = 5  # random opening plies in the final match (not the rounds')
    ply_cap: int = 200  # a game this long is a draw
    seed: int = 0  # the run's seed: every round's and the final match's seeds come from it
    workers: int = 1  # match worker processes; the results do not depend on it
    game: str = DEFAULT_GAME  # the game the matches are played on

    def __post_init__(self) -> None:
        from .games import tuning_game

        game = tuning_game(self.game)
        if self.features is None:
            _game_default(self, "features", game.tunable)
        game.check_features(self.features)
        checks = [
            (self.rounds >= 0, "rounds must not be negative"),
            (
                self.games >= 2 and self.games % 2 == 0,
                "games per round must be an even number, at least 2 (each opening is played twice)",
            ),
            (
                self.final_games >= 2 and self.final_games % 2 == 0,
                "final games must be an even number, at least 2",
            ),
            (1 <= self.depth <= 20, "depth must be between 1 and 20"),
            (0.0 < self.step <= 10.0, "step must be more than 0 and at most 10"),
            (0.0 < self.accept <= 1.0, "accept must be more than 0 and at most 1"),
            (len(self.features) >= 1, "at least one feature must be tunable"),
            (
                game.unit not in self.features,
                f"{game.unit} is the unit (one {game.unit_name}) and stays at 1: leave it out "
                "of the features",
            ),
            (
                0 <= self.opening_plies <= 40 and 0 <= self.final_opening_plies <= 40,
                "opening plies must be between 0 and 40",
            ),
            (
                self.final_opening_plies != self.opening_plies,
                "the final match's openings must differ in length from the rounds' (that is what "
                "keeps them apart: see docs/tuning.md)",
            ),
            (
                # In a game where only the side to move keeps openings of different lengths
                # apart (draughts: nothing else counts the plies played), the lengths must
                # differ in parity.
                not game.openings_by_parity
                or (self.final_opening_plies - self.opening_plies) % 2 == 1,
                f"at {game.name} the final match's openings must be an odd number of plies "
                "longer or shorter than the rounds' (then the side to move differs, so no "
                "opening position repeats: see docs/tuning.md)",
            ),
            (
                self.ply_cap > max(self.opening_plies, self.final_opening_plies),
                "the ply cap must be longer than the openings",
            ),
            (self.seed >= 0, "seed must not be negative"),
            (self.workers >= 1, "workers must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise CommandError(message)
        for character in ",:":
            if character in self.out_dir:
                raise CommandError(
                    f"the out dir must not contain {character!r}: its files are "
                    f"named in player specs (classic:weights=FILE)"
                )

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
