"""The Zero trainer's configuration (``samuel zero-train``, ``docs/zero.md``): every field is an
option, and the whole config is saved next to every weights file it produced."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from samuel.config_options import (
    even_games,
    fraction,
    non_negative_int,
    number,
    option_field,
    positive_float,
    positive_int,
    whole_number,
)
from samuel.errors import CommandError
from samuel.games import default_game, descriptors, registry
from samuel.search.puct import PuctSettings

from .config import has_tablebase, tablebase_titles

ZERO_WEIGHTS_SEED = 0x2E80  # the random network a run starts from when there is nothing to resume
ZERO_SELFPLAY_SEED = 0x2E81  # a game's seed: derived from (this, run seed, generation, game)
ZERO_TRAINING_SEED = 0x2E82  # shuffles and symmetries: from (this, run seed, generation)
# The sides of the games with a tablebase (Tigers & Sheep's tigers and sheep), which name where
# self-play's searches probe it.
TABLE_SIDES = tuple(
    side for d in descriptors().values() if d.part("perfect") is not None for side in d.sides
)
# Where self-play's searches probe the tablebase: the side named probes it inside the table too.
TABLE_SEARCHES = ("always", "before-entry", *TABLE_SIDES, "alternate")
TABLE_CHILDREN = ("none", "mistakes", "all")  # the value-only samples one move from the table's
non_negative_float = number(float, 0.0)  # a loss weight


@dataclass(frozen=True)
class ZeroConfig:
    """How ``samuel zero-train`` runs. Its fields from ``generations`` on are its options (the
    metadata's help says what each is), in the order of its help but for a few."""

    game: str = default_game()  # the game to learn (a registry name: samuel.games.registry)
    generations: int = option_field(
        20, "generations to train", type=positive_int, positional=True, nargs="?"
    )
    games: int = option_field(
        100, "self-play games per generation", type=positive_int, positional=True, nargs="?"
    )
    out_dir: str | None = option_field(  # None: per game
        None,
        "where weights are saved and resumed from (weights/zero; weights/zero-GAME for "
        "another game)",
        positional=True,
        nargs="?",
    )
    start_from: str | None = option_field(None, "start from this Zero network", flag="--from")
    seed: int = option_field(  # every game's and every shuffle's seed derives from it
        0, "the run's seed", type=non_negative_int
    )
    simulations: int = option_field(
        100,
        "PUCT simulations a move in self-play and matches",
        type=whole_number(1, 100_000),
        flag="--sims",
    )
    c_puct: float = option_field(  # AlphaZero's c_init (the search's default)
        1.25, "PUCT's exploration constant", type=number(float, 0.0, 100.0), flag="--cpuct"
    )
    fpu_reduction: float = option_field(  # lc0's (the search's default)
        0.44, "first-play urgency reduction", type=number(float, -10.0, 10.0), flag="--fpu"
    )
    noise_alpha: float = option_field(  # at the root: lc0's and AlphaZero chess's alpha
        0.3, "the noise's Dirichlet alpha", type=number(float, 1e-3, 100.0), flag="--alpha"
    )
    noise_fraction: float = option_field(  # its weight in the root's priors (AlphaZero's)
        0.25, "Dirichlet noise's weight in the root's priors", type=fraction, flag="--noise"
    )
    temperature_plies: int = option_field(  # then the most visited
        20,
        "plies played in proportion to the visits, then the most visited",
        type=non_negative_int,
        flag="--temp-plies",
    )
    ply_cap: int = option_field(  # a game this long is a draw (the TD(lambda) trainer's)
        200, "a draw", type=positive_int
    )
    # A game with a tablebase (Tigers & Sheep): self-play's searches see the positions this table
    # holds as exact, and
    # a game that a repetition or the ply cap stopped inside the table has the table's value of
    # its last position there (lc0's rescoring).
    tablebase: str | None = option_field(
        None,
        "Tigers: self-play's searches see this tablebase's positions as exact, and a game "
        "that a repetition or the ply cap stopped inside the table is scored by the table",
        metavar="DIR",
    )
    # Where self-play's searches probe it: "always", or "before-entry", only from the positions
    # before the game enters the table (inside it the network searches alone, as the zero player
    # does without a table, so self-play makes the mistakes the player would make there), or
    # "tigers" / "sheep": that side's searches always, the other's before the entry only (its
    # mistakes inside are played, and punished by a side that sees the table), or "alternate":
    # the tigers' in one game, the sheep's in the next.
    table_search: str = option_field(
        "always",
        "with --tablebase: which self-play searches probe it: always, or before-entry, only "
        "those before the game enters the table (inside it the network searches alone, as the "
        "zero player does without a table), or tigers or sheep: that side's always, the other "
        "side's before the entry only, so its mistakes inside are punished, or alternate: the "
        "tigers' in one game, the sheep's in the next",
        choices=TABLE_SEARCHES,
    )
    # Inside the table, a side whose searches do not probe it (table_search) plays the move its
    # own search chose, but its targets (visits, value) come from a second search that does.
    table_teaches: bool = option_field(
        False,
        "with a --table-search other than always: inside the table a search without it "
        "chooses the move, and a second search with it gives the position's policy and value "
        "targets",
        store=True,
    )
    # This share of each generation's games, spread evenly through it, is played with every
    # search seeing the table (as "always"); the rest as table_search says. The games with the
    # table on both sides keep showing the placement's worth under perfect play, while the others
    # show one side the cost of its own mistakes inside the table.
    always_share: float = option_field(
        0.0,
        "with a --table-search other than always: this share of each generation's games, "
        "spread evenly, has every search see the table",
        type=fraction,
    )
    # With table_search "tigers" or "sheep": this share of the one-sided games, spread evenly,
    # has the other side see the table instead, so that it too plays its own mistakes inside
    # the table now and then.
    swap_share: float = option_field(
        0.0,
        "with --table-search tigers or sheep: this share of the one-sided games, spread "
        "evenly, has the other side see the table instead",
        type=fraction,
    )
    # The value target of a position the table holds is its table value (exact), not the game's.
    table_targets: bool = option_field(
        False,
        "with --tablebase: the value target of each position the table holds is its "
        "table value, not the game's result",
        store=True,
    )
    # The positions before the game entered the table take the table's value of its entry as
    # their result, not the game's: the placement is judged by perfect play from where it ended,
    # whatever mistakes a side that does not see the table made after (table_search).
    entry_targets: bool = option_field(
        False,
        "with --tablebase: the positions before a game entered the table take the table's "
        "value of its entry as their result, not the game's",
        store=True,
    )
    # In the games where one side's searches see the table and the other's do not (table_search
    # "tigers", "sheep" or "alternate"), the seeing side's positions inside the table take their
    # table value as target, not the game's result: each side's value then learns inside the
    # table only from games against a perfect opponent, never from the other side's mistakes.
    seeing_targets: bool = option_field(
        False,
        "with --tablebase and a one-sided --table-search: in the games where one side's "
        "searches see the table and the other's do not, the seeing side's positions inside it "
        "take their table value as target, not the game's result",
        store=True,
    )
    # Each position the table holds adds value-only samples, with their table values: the
    # positions its moves lead to ("all"), or only its mistakes (the moves that give its value
    # away: "mistakes"), or none. Self-play's own games never show the network what a move its
    # table-seeing search avoided would have cost.
    table_children: str = option_field(
        "none",
        "with --tablebase: each position the table holds also trains the value on the "
        "positions its moves lead to (all), or its mistakes lead to (mistakes: the moves that "
        "give its value away), with their table values",
        choices=TABLE_CHILDREN,
    )
    buffer_generations: int = option_field(  # the replay window
        5, "generations of positions to train on", type=positive_int
    )
    epochs: int = option_field(2, "passes over them a generation", type=non_negative_int)
    batch_size: int = option_field(256, "positions per optimiser step", type=positive_int)
    learning_rate: float = option_field(1e-3, "Adam's learning rate", type=positive_float)
    policy_weight: float = option_field(  # the loss's terms' weights (samuel.nn.zero.LossWeights)
        1.0, "the policy loss's weight", type=non_negative_float
    )
    value_weight: float = option_field(1.0, "the value loss's weight", type=non_negative_float)
    plies_weight: float = option_field(  # lc0's moves-left weight, as the TD(lambda) trainer's
        0.1, "the plies loss's weight", type=non_negative_float
    )
    # The value target is the result times this ** (plies left - 1): 1 is AlphaZero's plain
    # result; below 1 a quick win is worth more than a slow one, and a slow loss less bad
    # ("lose slower"), which gives the side that nearly always loses something to learn from.
    value_discount: float = option_field(
        1.0,
        "the value target is the result times this ** (plies left - 1): below 1, win "
        "faster and lose slower",
        type=positive_float,
    )
    # The value target mixes in the search's value of the position with this weight:
    # (1 - q_weight) * the (discounted) result + q_weight * the root's mean value. 0 is
    # AlphaZero's result alone; the search's value says how good the position looked, not only
    # how the one game that followed it ended (its noisy moves included).
    q_weight: float = option_field(
        0.0,
        "the value target is (1 - this) * the result + this * the search's value of the position",
        type=non_negative_float,
    )
    # Below 1, the result's part of the value target is TD(lambda)'s return of the later
    # positions' search values (``zero_loop.lambda_returns``): a position learns what the
    # searches a few plies on saw, not only the one result of a mostly drawn game. 1: the
    # result (AlphaZero's).
    value_lambda: float = option_field(
        1.0,
        "below 1, the result's part of the value target is TD(lambda)'s return of the "
        "later positions' search values",
        type=non_negative_float,
        default_text="({default}: the result)",
    )
    # After the temperature's plies, a move is with this chance a uniformly random one (the
    # TD(lambda) trainer's epsilon): self-play then reaches the positions its mistakes lead to,
    # which the search's own moves never show the value. The positions before such a move take
    # the search's value where it was played as their result (zero_loop.explored_outcomes).
    epsilon: float = option_field(
        0.0,
        "after the temperature's plies, the chance of a random move in self-play; the "
        "positions before it learn the search's value where it was played",
        type=non_negative_float,
    )
    # The self-play searches' implicit minimax weight (PuctSettings.minimax; 0: plain PUCT).
    minimax: float = option_field(
        0.0,
        "the self-play searches' implicit minimax weight, 0 to 1",
        type=non_negative_float,
        default_text="(the zero player's minimax=W; {default}: plain PUCT)",
    )
    match_games: int = option_field(  # even: each opening is played twice
        20, "games per match", type=even_games
    )
    match_every: int = option_field(
        5, "play matches every this many generations", type=positive_int
    )
    classic_depth: int = option_field(
        3, "the depth of classic in the matches", type=whole_number(1, 20)
    )
    workers: int | None = option_field(  # None: every core
        None,
        "threads and match processes (every core); results don't depend on it",
        type=positive_int,
    )

    def __post_init__(self) -> None:
        games = registry()
        tabled = self.tablebase is None or has_tablebase(self.game)
        one_sided = ", ".join(TABLE_SIDES)
        checks = [
            (self.game in games, f"unknown game {self.game!r}; the games are: {', '.join(games)}"),
            (self.generations >= 1, "generations must be at least 1"),
            (self.games >= 1, "games must be at least 1"),
            (1 <= self.simulations <= 100_000, "simulations must be between 1 and 100000"),
            (self.temperature_plies >= 0, "temperature plies must not be negative"),
            (self.ply_cap >= 1, "ply cap must be at least 1"),
            (
                tabled,
                ""
                if tabled
                else f"--tablebase works for {tablebase_titles()} only, not "
                f"{games[self.game].title if self.game in games else self.game}: the tablebase "
                "holds its positions with the hand empty",
            ),
            (
                self.table_search in TABLE_SEARCHES,
                f"table search is one of {', '.join(TABLE_SEARCHES)}, not {self.table_search!r}",
            ),
            (
                self.table_children in TABLE_CHILDREN,
                f"table children is one of {', '.join(TABLE_CHILDREN)}, not "
                f"{self.table_children!r}",
            ),
            (
                self.tablebase is not None
                or (
                    self.table_search == "always"
                    and not self.table_targets
                    and not self.entry_targets
                    and not self.seeing_targets
                    and self.table_children == "none"
                ),
                "--table-search, --table-targets, --entry-targets, --seeing-targets and "
                "--table-children need --tablebase",
            ),
            (
                not self.table_teaches or self.table_search != "always",
                "--table-teaches needs a --table-search that leaves some searches without the "
                f"table: before-entry, {' or '.join(TABLE_SIDES)}",
            ),
            (0.0 <= self.always_share <= 1.0, "always share must be between 0 and 1"),
            (
                self.always_share == 0.0 or self.table_search != "always",
                "--always-share needs a --table-search that leaves some searches without the "
                f"table: before-entry, {' or '.join(TABLE_SIDES)}",
            ),
            (
                not self.seeing_targets or self.table_search in (*TABLE_SIDES, "alternate"),
                f"--seeing-targets needs a one-sided --table-search: {one_sided} or alternate",
            ),
            (0.0 <= self.swap_share <= 1.0, "swap share must be between 0 and 1"),
            (
                self.swap_share == 0.0 or self.table_search in TABLE_SIDES,
                f"--swap-share needs --table-search {' or '.join(TABLE_SIDES)}",
            ),
            (self.buffer_generations >= 1, "buffer generations must be at least 1"),
            (self.epochs >= 0, "epochs must not be negative"),
            (self.batch_size >= 1, "batch size must be at least 1"),
            (0.0 < self.learning_rate <= 1.0, "learning rate must be more than 0 and at most 1"),
            (
                min(self.policy_weight, self.value_weight, self.plies_weight) >= 0.0
                and self.policy_weight + self.value_weight + self.plies_weight > 0.0,
                "loss weights must not be negative, and one must be more than 0",
            ),
            (
                self.match_games >= 2 and self.match_games % 2 == 0,
                "match games must be an even number, at least 2 (each opening is played twice)",
            ),
            (0.0 < self.value_discount <= 1.0, "value discount must be more than 0 and at most 1"),
            (0.0 <= self.q_weight <= 1.0, "q weight must be between 0 and 1"),
            (0.0 <= self.value_lambda <= 1.0, "value lambda must be between 0 and 1"),
            (0.0 <= self.epsilon < 1.0, "epsilon must be at least 0 and below 1"),
            (
                self.epsilon == 0.0 or self.value_lambda == 1.0,
                "epsilon and a value lambda below 1 do not go together (the returns would "
                "reach past the exploring moves)",
            ),
            (self.match_every >= 1, "match every must be at least 1"),
            (1 <= self.classic_depth <= 20, "classic depth must be between 1 and 20"),
            (self.workers is None or self.workers >= 1, "workers must be at least 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise CommandError(message)
        self.settings()  # the search's own checks (c_puct, fpu, noise)

    def settings(self) -> PuctSettings:
        """The self-play search's settings (temperature aside: it depends on the ply)."""
        return PuctSettings(
            simulations=self.simulations,
            c_puct=self.c_puct,
            fpu_reduction=self.fpu_reduction,
            noise_alpha=self.noise_alpha,
            noise_fraction=self.noise_fraction,
            minimax=self.minimax,
        )

    @property
    def folder(self) -> str:
        """The run folder: ``out_dir``, else the game's (its ``training`` part's ZERO_FOLDER:
        ``weights/zero`` for Tigers & Sheep), else ``weights/zero-GAME``, so one game's run
        never resumes from another's."""
        if self.out_dir is not None:
            return self.out_dir
        part = descriptors()[self.game].part("training")
        folder = getattr(part, "ZERO_FOLDER", None)
        return folder if folder is not None else f"weights/zero-{self.game}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
