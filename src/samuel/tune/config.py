"""The configurations of ``samuel selfplay``, ``samuel tune`` and ``samuel hillclimb``: frozen
dataclasses whose fields are the commands' options, with commented defaults. Each run saves its
config beside what it made (in the ``.npz``, or in the weights file's ``tuning`` entry).

Light on purpose: building the command line imports this module, not the kernels.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from samuel.config_options import even_games, number, option_field
from samuel.errors import CommandError
from samuel.games import default_game

from .games import HILLCLIMB_DEFAULTS, SELFPLAY_DEFAULTS, TUNE_DEFAULTS
from .games import TUNABLE as _TUNABLE
from .games import UNIT as _UNIT

if TYPE_CHECKING:
    from samuel.match.sprt import Sprt


DEFAULT_GAME = default_game()


def _game_default(config, name: str, value) -> None:
    """Fill in a field left at None with the game's default (the config is frozen, and its saved
    form should say what was used)."""
    object.__setattr__(config, name, value)


def _features(text: str) -> tuple[str, ...]:
    """A comma-separated list of feature names; which names are features depends on --game,
    so the command's config checks them."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _per_game(defaults: dict[str, tuple[str, ...]]) -> str:
    """A default that depends on the game, as help text: ``tigers: a,b; draughts: c``."""
    return "; ".join(f"{game}: {','.join(names)}" for game, names in defaults.items())


def _sprt(text: str):
    """An SPRT's bounds, ``elo0=0,elo1=10[,alpha=0.05,beta=0.05]`` (samuel.match.sprt)."""
    from samuel.match.sprt import parse_sprt

    try:
        return parse_sprt(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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
    """How the labelled positions are made. Every field is a ``samuel selfplay`` option (the
    metadata's help says what it is)."""

    games: int = option_field(2000, "self-play games to play", type=number(int, 1))
    out: str = option_field("data/selfplay.npz", "the .npz file to write")
    # a classic, network or hybrid spec
    player: str = option_field(
        "classic:depth=3", "who plays both sides, a searching player's spec searching to a depth"
    )
    random_plies: int = option_field(  # as in training
        10, "random opening plies, for diverse positions", type=number(int, 0)
    )
    epsilon: float = option_field(  # as in training
        0.05, "chance of a random move after the opening", type=number(float, 0.0, 1.0)
    )
    ply_cap: int = option_field(200, "a game this long is a draw", type=number(int, 1, 30_000))
    seed: int = option_field(
        0, "the run's seed: game g's seed comes from (seed, g)", type=number(int, 0)
    )
    # --workers and --game are every tuning command's (samuel.tune.commands)
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
    """How ``samuel tune`` runs. Every field is one of its options (the metadata's help says
    what it is)."""

    # labelled positions (samuel selfplay): one file, or several (games of different players)
    data: str | tuple[str, ...] = option_field(
        "data/selfplay.npz",
        "labelled positions of the game, .npz files from samuel selfplay (several: games "
        "of different players, taken together)",
        positional=True,
        nargs="+",
        parser_default=None,
    )
    out: str = option_field(
        "tuned.json", "where to write the tuned weights, a classic weights file"
    )
    start: str | None = option_field(  # None: the hand-written ones
        None, "weights to start from (the hand-written ones)"
    )
    validation: float = option_field(  # split by game, never by position
        0.1,
        "share of the games held out to validate on",
        type=number(float, 0.0, 0.99, low_open=True),
    )
    iterations: int = option_field(2000, "full-batch steps", type=number(int, 0))
    learning_rate: float = option_field(
        0.002,
        "step size; with adam, about the change per weight and step",
        type=number(float, 0.0, low_open=True),
    )
    optimizer: str = option_field("adam", "adam or plain gradient descent", choices=("adam", "gd"))
    # None: the game's unit (captured, men) only.
    fixed: tuple[str, ...] | None = option_field(
        None,
        "features whose weights stay as they start, the game's unit among them "
        f"({_per_game({game: (unit,) for game, unit in _UNIT.items()})})",
        type=_features,
        metavar="F1,F2",
    )
    seed: int = option_field(0, "picks the held-out games", type=number(int, 0))
    # --workers and --game are every tuning command's (samuel.tune.commands)
    workers: int | None = None  # threads (every core); the result does not depend on it
    game: str = DEFAULT_GAME  # the game of the data set and the weights
    tables: bool = option_field(  # they start at zero if absent
        True,
        "tune the named features alone, not the piece-square tables",
        flag="--no-tables",
        store=False,
    )
    label: str = option_field(  # samuel.tune.labels
        "result",
        "what a position is fitted to: its game's result, a deeper search's score, or rollouts",
        choices=("result", "search", "rollout"),
    )
    label_player: str = option_field(
        "classic:depth=5", "who searches (--label search) or plays the rollouts"
    )
    rollouts: int = option_field(16, "games a position with --label rollout", type=number(int, 1))
    tablebase: str | None = option_field(  # a tablebase folder (a game with one)
        None,
        "Tigers & Sheep: label positions with the hand empty by this tablebase's exact "
        "values, and report the error against them",
        metavar="DIR",
    )
    deduplicate: bool = option_field(
        False,
        "each distinct position once, its targets averaged (validation positions met in "
        "training games left out)",
        store=True,
    )
    # The final match, tuned against the start weights: games (0: none), depth, opening plies
    # (which must differ from the data's random plies, so that its openings were not the data's).
    match_games: int = option_field(
        400,
        "games of the final match, tuned against start, an even number; 0: none",
        type=number(int, 0),
    )
    match_depth: int = option_field(3, "the final match's search depth", type=number(int, 1, 20))
    match_opening_plies: int = option_field(
        5, "random opening plies of the final match, unlike the data's", type=number(int, 0, 40)
    )

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
        if game.max_points > 1 and self.label != "result":
            # Search labels read a score as the weighted sum in units, and rollouts' labels are
            # clamped to -1..1; long nardy's evaluation is a tanh, and its games score points.
            raise CommandError(
                f"--label {self.label} is not for {game.title}, whose games score points (up to "
                f"{game.max_points}): its positions are fitted to their games' points, --label "
                "result"
            )
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
    """How ``samuel hillclimb`` runs. Every field is one of its options (the metadata's help
    says what it is)."""

    rounds: int = option_field(40, "challengers to try", type=number(int, 0))
    games: int = option_field(
        200, "games per round, an even number; with --sprt the most", type=even_games
    )
    out_dir: str = option_field(
        "tuning/hillclimb", "where the log, champion and learned weights go"
    )
    start: str | None = option_field(  # None: the hand-written ones
        None, "weights to start from (the hand-written ones)"
    )
    depth: int = option_field(3, "search depth in every match", type=number(int, 1, 20))
    step: float = option_field(  # at least STEP_FLOOR
        0.3,
        "a change is about this share of the weight",
        type=number(float, 0.0, 10.0, low_open=True),
    )
    accept: float = option_field(  # without an SPRT
        0.55,
        "the score a challenger needs to become champion",
        type=number(float, 0.0, 1.0, low_open=True),
    )
    sprt: Sprt | None = option_field(
        None,
        "accept a challenger when this SPRT accepts H1 (instead of --accept)",
        type=_sprt,
        metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
    )
    features: tuple[str, ...] | None = option_field(  # None: the game's
        None,
        f"the weights that may change, never the unit ({_per_game(_TUNABLE)})",
        type=_features,
        metavar="F1,F2",
    )
    opening_plies: int = option_field(
        4, "random opening plies in the rounds", type=number(int, 0, 40)
    )
    final_games: int = option_field(  # fixed before it is played
        400, "games in the final match, learned vs start", type=even_games
    )
    final_opening_plies: int = option_field(
        5,
        "random opening plies in the final match; without dice, must differ from --opening-plies",
        type=number(int, 0, 40),
    )
    ply_cap: int = option_field(200, "a game this long is a draw", type=number(int, 1))
    seed: int = option_field(  # every round's and the final match's seeds come from it
        0, "the run's seed", type=number(int, 0)
    )
    # --workers and --game are every tuning command's (samuel.tune.commands)
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
                f"{game.unit} is the unit (one {game.unit_name}) and never changes: leave it out "
                "of the features",
            ),
            (
                0 <= self.opening_plies <= 40 and 0 <= self.final_opening_plies <= 40,
                "opening plies must be between 0 and 40",
            ),
            (
                # With dice, a match's dice (from its own seed) keep its games apart.
                game.dice or self.final_opening_plies != self.opening_plies,
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
            (
                # The SPRT counts games won, lost and drawn; a mars won is worth two wins.
                self.sprt is None or game.max_points == 1,
                f"--sprt tests games won, and {game.title} scores points (up to "
                f"{game.max_points} a game): accept challengers by --accept, their share of the "
                "points",
            ),
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


# Each config's games' own defaults (samuel.tune.games), by game and field.
GAME_DEFAULTS: dict[type, dict[str, dict[str, object]]] = {
    SelfPlayDataConfig: SELFPLAY_DEFAULTS,
    TuneConfig: TUNE_DEFAULTS,
    HillClimbConfig: HILLCLIMB_DEFAULTS,
}


def for_game(kind: type, game: str, **values):
    """The config ``kind`` (one of :data:`GAME_DEFAULTS`') of the game called ``game``: the
    fields in ``values``, the game's own defaults for the others it sets (long nardy's ply cap,
    depth, openings), the fields' defaults for the rest. What the commands run with."""
    from .games import check_game

    check_game(game)
    return kind(game=game, **{**GAME_DEFAULTS[kind].get(game, {}), **values})
