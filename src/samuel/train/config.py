"""The training configuration: every field is a ``samuel train`` option, with the seed's
defaults, and the whole config is saved next to every weights file it produced."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from samuel.config_options import (
    fraction,
    hidden_widths,
    non_negative_int,
    option_field,
    positive_float,
    positive_int,
)
from samuel.errors import CommandError
from samuel.games import default_game, descriptors, registry

RANDOM_WEIGHTS_SEED = 0x5EED  # the network a run starts from when there is nothing to resume
TRAINING_SEED = 0x7EA1  # shuffles, orientations and balancing draw from (this, generation)
MOVES_LEFT_SEED = 0x40E5  # a head added to a resumed network draws from (this, last generation)
TABLE_POSITIONS_SEED = 0x7AB1E  # a generation's tablebase positions draw from (this, generation)


@dataclass(frozen=True)
class TrainConfig:
    game: str = default_game()  # the game to learn (a registry name: samuel.games.registry)
    generations: int = 50  # generations to train
    games: int = 500  # self-play games per generation
    out_dir: str = "weights"  # where weights are saved and resumed from
    # From here on the fields are ``samuel train``'s options, their help in their metadata.
    start_from: str | None = option_field(None, "start from this weights file", flag="--from")
    depth: int = option_field(3, "search depth in self-play and matches", type=positive_int)
    ply_cap: int = option_field(200, "a game this long is a draw", type=positive_int)
    random_plies: int = option_field(10, "random opening plies in self-play", type=non_negative_int)
    epsilon: float = option_field(0.05, "chance of a random move after that", type=fraction)
    lam: float = option_field(0.7, "TD(lambda) blend", flag="--lambda", type=fraction)
    buffer_generations: int = option_field(
        5, "generations of samples to train on", type=positive_int
    )
    balance: bool = option_field(  # balance the two players' wins
        True, "train on all positions without balancing outcomes", flag="--no-balance", store=False
    )
    epochs: int = option_field(2, "passes over the samples per generation", type=non_negative_int)
    batch_size: int = option_field(256, "positions per optimiser step", type=positive_int)
    learning_rate: float = option_field(1e-3, "Adam's learning rate", type=positive_float)
    final_learning_rate: float | None = option_field(  # None: the rate stays constant
        None,
        "let the learning rate fall geometrically from --learning-rate to this over the "
        "run's generations; none keeps it constant",
        type=positive_float,
        metavar="RATE",
    )
    match_games: int = option_field(100, "games per match", type=positive_int)
    match_every: int = option_field(
        10, "play matches every this many generations", type=positive_int
    )
    workers: int | None = option_field(  # None: every core
        None,
        "threads and match processes (every core); results don't depend on it",
        type=positive_int,
    )
    moves_left: bool = option_field(  # a head is kept
        False,
        "give the network a moves-left head if it has none (a head is always trained)",
        store=True,
    )
    phases: bool = option_field(  # seed 001's routing
        False,
        "train one network per phase of the game, each on its own phase's positions, the "
        "search valuing each position by its phase's network (long nardy)",
        store=True,
    )
    moves_left_weight: float = option_field(  # lc0's
        0.1, "the plies-left loss's weight against the value loss", type=positive_float, metavar="W"
    )
    tablebase: str | None = option_field(  # a game with a tablebase: exact targets where it holds
        None,
        "exact plies-left targets from this tablebase once the hand is empty (Tigers)",
        metavar="DIR",
    )
    heads_only: bool = option_field(  # the value layers stay frozen
        False,
        "with --moves-left: train the head alone, the value layers frozen (the network "
        "plays exactly as before when the search ignores the head)",
        store=True,
    )
    hidden: tuple[int, ...] = option_field(  # a resumed network keeps its own
        (64, 32),
        "the hidden layers' widths of a network started from random weights",
        type=hidden_widths,
        metavar="W,W",
        default_text="(64,32)",
    )
    table_positions: int = option_field(  # exact targets
        0,
        "with --tablebase: add N positions drawn from the table to each generation, with "
        "their exact values and distances",
        type=non_negative_int,
        metavar="N",
    )

    def __post_init__(self) -> None:
        games = registry()
        tabled = self.tablebase is None or has_tablebase(self.game)
        checks = [
            (self.game in games, f"unknown game {self.game!r}; the games are: {', '.join(games)}"),
            (self.generations >= 1, "generations must be at least 1"),
            (self.games >= 1, "games must be at least 1"),
            (1 <= self.depth <= 20, "depth must be between 1 and 20"),
            (self.ply_cap >= 1, "ply cap must be at least 1"),
            (self.random_plies >= 0, "random plies must not be negative"),
            (0.0 <= self.epsilon <= 1.0, "epsilon must be between 0 and 1"),
            (0.0 <= self.lam <= 1.0, "lambda must be between 0 and 1"),
            (self.buffer_generations >= 1, "buffer generations must be at least 1"),
            (self.epochs >= 0, "epochs must not be negative"),
            (self.batch_size >= 1, "batch size must be at least 1"),
            (self.learning_rate > 0.0, "learning rate must be more than 0"),
            (
                self.final_learning_rate is None or self.final_learning_rate > 0.0,
                "final learning rate must be more than 0",
            ),
            (
                self.match_games >= 2 and self.match_games % 2 == 0,
                "match games must be an even number, at least 2 (each opening is played twice)",
            ),
            (self.match_every >= 1, "match every must be at least 1"),
            (self.workers is None or self.workers >= 1, "workers must be at least 1"),
            (
                math.isfinite(self.moves_left_weight) and self.moves_left_weight > 0.0,
                "moves-left weight must be more than 0 (a network with the head always trains "
                "it; to leave plies out, train from a file without the head)",
            ),
            (
                not self.heads_only or self.moves_left,
                "--heads-only trains the moves-left head alone: give --moves-left too",
            ),
            (
                tabled,
                ""
                if tabled
                else f"--tablebase works for {tablebase_titles()} only, not "
                f"{games[self.game].title if self.game in games else self.game}: the tablebase "
                f"solves {tablebase_titles()} endings",
            ),
            (
                not self.phases or len(phase_names(self.game)) > 1,
                f"--phases trains a network per phase, and {self.game} is played in one phase"
                f"{'' if not phased_games() else '; the games with phases: ' + phased_games()}",
            ),
            (
                not (self.phases and (self.moves_left or self.tablebase is not None)),
                "--phases trains value networks alone: leave out --moves-left and --tablebase",
            ),
            (self.table_positions >= 0, "table positions must not be negative"),
            (
                1 <= len(self.hidden) <= 3 and all(1 <= int(w) <= 4096 for w in self.hidden),
                f"a network has one to three hidden layers of 1 to 4096 units, not {self.hidden}",
            ),
            (
                self.table_positions == 0 or self.tablebase is not None,
                "--table-positions draws positions from the tablebase: give --tablebase too",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise CommandError(message)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def learning_rate_at(self, index: int) -> float:
        """The learning rate of this run's generation ``index`` (0 for its first): constant, or
        falling geometrically to ``final_learning_rate`` at its last. A network's temporal
        differences stay noisy, so a constant rate keeps the weights wandering once the
        network has learned what it can at that rate (backgammon's lost ground after about
        40,000 games); a falling one lets them settle."""
        if self.final_learning_rate is None or self.generations == 1:
            return self.learning_rate
        fraction_done = index / (self.generations - 1)
        return self.learning_rate * (self.final_learning_rate / self.learning_rate) ** fraction_done


def has_tablebase(game: str) -> bool:
    """Whether the game called ``game`` has a tablebase (its package's ``perfect`` part)."""
    descriptor = descriptors().get(game)
    return descriptor is not None and descriptor.part("perfect") is not None


def phase_names(game: str) -> tuple[str, ...]:
    """The phases of the game called ``game`` (its ``training`` part's ``PHASES``), or () for
    a game played in one phase."""
    descriptor = descriptors().get(game)
    part = None if descriptor is None else descriptor.part("training")
    return tuple(getattr(part, "PHASES", ()))


def phased_games() -> str:
    """The registry names of the games with phases, for an error message."""
    return ", ".join(name for name in descriptors() if len(phase_names(name)) > 1)


def tablebase_titles() -> str:
    """The games that have a tablebase, for people: "Tigers & Sheep"."""
    return " and ".join(d.title for d in descriptors().values() if d.part("perfect") is not None)


def _game_defaults() -> dict[str, dict[str, object]]:
    found = {}
    for name, descriptor in descriptors().items():
        part = descriptor.part("training")
        if part is not None and part.TRAIN_DEFAULTS:
            found[name] = dict(part.TRAIN_DEFAULTS)
    return found


# Each game's own defaults where they differ from the fields' (Tigers & Sheep's): its package's
# ``training`` part's TRAIN_DEFAULTS (draughts: more generations of more games, its own folder).
GAME_DEFAULTS: dict[str, dict[str, object]] = _game_defaults()


def game_defaults(game: str) -> TrainConfig:
    """The configuration ``samuel train --game GAME`` runs with when given no other option."""
    return TrainConfig(game=game, **GAME_DEFAULTS.get(game, {}))
