"""The training configuration: every field is a ``samuel train`` option, with the seed's
defaults, and the whole config is saved next to every weights file it produced."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

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
    start_from: str | None = None  # start from this weights file (--from)
    depth: int = 3  # search depth in self-play and matches
    ply_cap: int = 200  # a game this long is a draw
    random_plies: int = 10  # random opening plies in self-play
    epsilon: float = 0.05  # chance of a random move after that
    lam: float = 0.7  # TD(lambda) blend (--lambda)
    buffer_generations: int = 5  # generations of samples to train on
    balance: bool = True  # balance the two players' wins (--no-balance turns off)
    epochs: int = 2  # passes over the samples per generation
    batch_size: int = 256  # positions per optimiser step
    learning_rate: float = 1e-3  # Adam's learning rate
    match_games: int = 100  # games per match
    match_every: int = 10  # play matches every this many generations
    workers: int | None = None  # threads/processes; None: every core (results don't depend on it)
    moves_left: bool = False  # give a network without the moves-left head one (a head is kept)
    moves_left_weight: float = 0.1  # the plies loss's weight against the value loss (lc0's)
    tablebase: str | None = None  # a game with a tablebase: exact plies-left targets where it holds
    heads_only: bool = False  # train the moves-left head alone; the value layers stay frozen
    table_positions: int = 0  # positions drawn from the tablebase per generation, exact targets

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
            (self.table_positions >= 0, "table positions must not be negative"),
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


def has_tablebase(game: str) -> bool:
    """Whether the game called ``game`` has a tablebase (its package's ``perfect`` part)."""
    descriptor = descriptors().get(game)
    return descriptor is not None and descriptor.part("perfect") is not None


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
