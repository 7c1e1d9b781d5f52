"""Samuel Zero's training in generations (``docs/zero.md``, "The trainer"), for any game.

Each generation plays ``games`` games of the network against itself by PUCT
(:mod:`samuel.train.zero_selfplay`), keeps their positions with the visit-count policy targets,
the game results and the plies left in a replay window of the last ``buffer_generations``
generations, trains on the window (``epochs`` passes, shuffled, each position in a random one of
its game's symmetries, Adam on :func:`samuel.nn.batches.zero_batch_gradient`), and saves
``gen-NNN.bin``, its ``gen-NNN.json`` report and ``latest.bin``. Every ``match_every``
generations it plays matches, with the ``zero:`` player, against the generation that last
played matches and against the game's ``classic``.

Nothing of the hand-written evaluation enters self-play or the targets: a run starts from
random weights (seed ``ZERO_WEIGHTS_SEED``), and ``classic`` is only an opponent to measure by.

A run resumes from ``start_from``, else the newest ``gen-NNN.bin`` in the run folder, else random
weights, like the TD(lambda) trainer (:mod:`samuel.train.loop`): running the same command again
goes on. Adam's state and the replay window are not saved, so they start empty on a restart.
Files are written atomically; a generation whose training diverged is never saved.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.evaluation.networks import load_zero_network, random_zero_network, save_zero_network
from samuel.files import check_output_folder, file_error, save_or_keep
from samuel.games import actions as game_actions
from samuel.games import default_game, descriptors, get_game
from samuel.games import kernels as games
from samuel.nn.batches import adam_step, zero_batch_gradient
from samuel.nn.network import NO_PLIES
from samuel.search.puct import smallest_tree
from samuel.seeds import derive_seed

from .loop import (
    START_FILE,
    checked_tablebase,
    diverged,
    generation_path,
    newest_generation,
    save_generation_record,
)
from .trainer import ADAM_EPSILON, BETA1, BETA2, Adam
from .zero_config import ZERO_SELFPLAY_SEED, ZERO_TRAINING_SEED, ZERO_WEIGHTS_SEED, ZeroConfig
from .zero_selfplay import (
    IN_TABLE_ALL,
    IN_TABLE_NONE,
    NODES_PER_SIMULATION,
    encode_zero_samples,
    play_zero_games,
    table_children,
    zero_batch_loss,
)

SELFPLAY_CHUNK = 10  # games per compiled call, so the progress bar moves


@dataclass(frozen=True)
class ZeroGames:
    """The games of one batch: per-game arrays padded to the ply cap."""

    positions: np.ndarray  # (games, ply_cap, state words) int64
    legal: np.ndarray  # (games, ply_cap, max moves) int64: each position's distinct actions
    legal_counts: np.ndarray  # (games, ply_cap) int64
    policy: np.ndarray  # (games, ply_cap, max moves) float32: their shares of the visits
    root_values: np.ndarray  # (games, ply_cap) float32: the search's values, first player's view
    # (games, ply_cap) float32: the tablebase's values, first player's view; NaN where it does
    # not hold the position (everywhere without a table)
    table_values: np.ndarray
    plies: np.ndarray  # (games,) moves played in each game
    results: np.ndarray  # (games,) the first player's result: 1, 0, -1
    # (games, ply_cap) bool: the plies whose move was an exploring one (ZeroConfig.epsilon);
    # None: none was
    explored: np.ndarray | None = None
    # (games,) whose searches saw the table inside it in each game (play_zero_game's in_table);
    # None: every search's
    in_tables: np.ndarray | None = None

    def record(self) -> tuple[np.ndarray, ...]:
        """The arrays the self-play kernel fills, in order: ``play_zero_games``' ``record``
        (:func:`~samuel.train.zero_selfplay.play_zero_games`)."""
        return tuple(getattr(self, name) for name in RECORD_FIELDS)

    @staticmethod
    def empty(count: int, ply_cap: int, state_words: int, max_moves: int) -> ZeroGames:
        """Zeroed arrays for ``count`` games, for the self-play kernel to fill."""
        return ZeroGames(
            np.zeros((count, ply_cap, state_words), dtype=np.int64),
            np.zeros((count, ply_cap, max_moves), dtype=np.int64),
            np.zeros((count, ply_cap), dtype=np.int64),
            np.zeros((count, ply_cap, max_moves), dtype=np.float32),
            np.zeros((count, ply_cap), dtype=np.float32),
            np.full((count, ply_cap), np.nan, dtype=np.float32),
            np.zeros(count, dtype=np.int64),
            np.zeros(count, dtype=np.int64),
            np.zeros((count, ply_cap), dtype=np.bool_),
        )


# ZeroGames' fields that self-play fills (all but in_tables, which the caller knows).
RECORD_FIELDS = (
    "positions",
    "legal",
    "legal_counts",
    "policy",
    "root_values",
    "table_values",
    "plies",
    "results",
    "explored",
)


@dataclass(frozen=True)
class ZeroSamples:
    """Positions with their targets: the policy over the distinct legal actions, the game's
    result (first player's view) and the plies left to the end."""

    states: np.ndarray  # (n, state words) int64
    legal: np.ndarray  # (n, max moves) int64
    legal_counts: np.ndarray  # (n,) int64
    policy: np.ndarray  # (n, max moves) float32, summing to 1 over legal_counts entries
    results: np.ndarray  # (n,) float32
    plies: np.ndarray  # (n,) float32

    def __len__(self) -> int:
        return len(self.results)

    @staticmethod
    def concatenate(parts: list[ZeroSamples]) -> ZeroSamples:
        return ZeroSamples(*(np.concatenate([getattr(p, f) for p in parts]) for f in SAMPLE_FIELDS))

    def select(self, chosen: np.ndarray | slice) -> ZeroSamples:
        """The samples ``chosen`` (indices or a slice), in that order."""
        return ZeroSamples(*(getattr(self, f)[chosen] for f in SAMPLE_FIELDS))


SAMPLE_FIELDS = tuple(f.name for f in dataclasses.fields(ZeroSamples))


def zero_game_seed(run_seed: int, generation: int, game: int) -> int:
    """A game's seed, from (run seed, generation, game number) only: the same on any workers."""
    return derive_seed(ZERO_SELFPLAY_SEED, run_seed, generation, game)


def tree_nodes(game: int, simulations: int) -> int:
    """The nodes of a self-play search's tree of the game numbered ``game``: the zero player's
    40 a simulation, and at least the game's smallest tree."""
    return max(smallest_tree(game), NODES_PER_SIMULATION * (simulations + 1))


def selfplay_tablebase(config: ZeroConfig) -> tuple[np.ndarray, ...] | None:
    """The layers of ``config.tablebase`` (None without one), checked against the game's rule:
    loaded once per process (each worker of a cluster maps its own copy of the folder)."""
    if config.tablebase is None:
        return None
    table = checked_tablebase(config.tablebase, config.game)
    return table.layers


def game_table_searches(config: ZeroConfig) -> np.ndarray:
    """Each of a generation's games' ``in_table``
    (:func:`~samuel.train.zero_selfplay.play_zero_game`): which searches probe the table inside
    it, as ``config.table_search`` says ("alternate": the first side's in one game, the
    second's in the next; with "tigers" or "sheep", a ``config.swap_share`` of them the other
    side's), except for a ``config.always_share`` of the games, spread evenly
    through the generation, in which every search does."""
    always = _spread(np.arange(config.games), config.always_share)
    if config.table_search in ("always", "before-entry"):
        others = np.full(
            config.games, IN_TABLE_ALL if config.table_search == "always" else IN_TABLE_NONE
        )
    elif config.table_search == "alternate":
        others = np.where(np.cumsum(~always) % 2 == 1, 1, -1)  # counted among the others
    else:
        first = get_game(config.game).sides[0]
        side = 1 if config.table_search == first else -1
        swapped = _spread(np.cumsum(~always) - 1, config.swap_share)  # counted among the others
        others = np.where(swapped, -side, side)
    return np.where(always, IN_TABLE_ALL, others).astype(np.int64)


def _spread(index: np.ndarray, share: float) -> np.ndarray:
    """Which of the games numbered ``index`` (0, 1, ...) make up ``share`` of them, spread
    evenly: with 0.25, every fourth."""
    return np.floor((index + 1) * share) > np.floor(index * share)


def play_zero_selfplay(
    game: int,
    params: np.ndarray,
    config: ZeroConfig,
    seeds: np.ndarray,
    in_tables: np.ndarray,
) -> ZeroGames:
    """Play one game per seed, in parallel on numba's threads (``numba.set_num_threads``);
    with ``config.tablebase``, the searches probe it (inside it too, only before the game
    enters it, or one side's inside it: each game's entry of ``in_tables``, from
    :func:`game_table_searches`) and the games are rescored
    (:func:`~samuel.train.zero_selfplay.play_zero_game`)."""
    sizes = games.compiled_game(game)
    game_actions.action_count(game)  # ValueError for a game with no action space
    if sizes.chance_outcomes:
        raise ValueError(f"{sizes.title} has dice: Samuel Zero's self-play cannot roll them yet")
    rules = get_game(config.game)
    root = rules.encode(rules.initial_position())
    seeds = np.asarray(seeds, dtype=np.int64)
    in_tables = np.ascontiguousarray(in_tables, dtype=np.int64)
    valid = (IN_TABLE_ALL, IN_TABLE_NONE, 1, -1)
    if in_tables.shape != seeds.shape or not np.isin(in_tables, valid).all():
        raise ValueError("in_tables must hold one of IN_TABLE_ALL, IN_TABLE_NONE, 1, -1 a seed")
    out = ZeroGames.empty(len(seeds), config.ply_cap, len(root), sizes.max_moves)
    settings = config.settings()
    play_zero_games(
        game,
        np.ascontiguousarray(params, dtype=np.float32),
        root,
        settings.knobs(),
        config.temperature_plies,
        config.ply_cap,
        tree_nodes(game, settings.simulations),
        seeds,
        out.record(),
        selfplay_tablebase(config),
        in_tables,
        config.table_teaches,
        float(config.epsilon),
    )
    return dataclasses.replace(out, in_tables=in_tables.copy())


def _selfplay_unit(shared: tuple, unit: tuple[np.ndarray, np.ndarray]) -> ZeroGames:
    """A backend's unit: the games of its seeds (and their ``in_tables``), with the run's game,
    network and config."""
    return play_zero_selfplay(*shared, *unit)


def zero_self_play(
    params: np.ndarray,
    config: ZeroConfig,
    generation: int,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
) -> list[ZeroGames]:
    """The generation's games: on this machine's threads in chunks, so that ``progress(games
    done)`` can be called, or as the units of a cluster ``backend``; the same games on either."""
    game = get_game(config.game).number
    seeds = np.array(
        [zero_game_seed(config.seed, generation, g) for g in range(config.games)], dtype=np.int64
    )
    in_tables = game_table_searches(config)
    if backend is not None and not isinstance(backend, LocalBackend):
        units = [
            (seeds[part.start : part.stop], in_tables[part.start : part.stop])
            for part in backend.parts(len(seeds))
        ]

        def after(done: list[ZeroGames]) -> bool:
            progress(sum(len(part.plies) for part in done))
            return False

        shared = (game, params, config)
        return backend.run(_selfplay_unit, units, shared, None if progress is None else after)
    parts = []
    for start in range(0, config.games, SELFPLAY_CHUNK):
        chunk = slice(start, start + SELFPLAY_CHUNK)
        parts.append(play_zero_selfplay(game, params, config, seeds[chunk], in_tables[chunk]))
        if progress is not None:
            progress(min(config.games, start + SELFPLAY_CHUNK))
    return parts


def zero_samples(
    parts: list[ZeroGames],
    discount: float = 1.0,
    q_weight: float = 0.0,
    table_targets: bool = False,
    children_table: tuple[np.ndarray, ...] | None = None,
    game: int | None = None,
    mistakes_only: bool = False,
    entry_targets: bool = False,
    seeing_targets: bool = False,
    value_lambda: float = 1.0,
) -> ZeroSamples:
    """Every position of the games, with its targets, game by game in order. The value target
    is ``(1 - q_weight)`` times the game's result times ``discount ** (plies left - 1)``
    (``ZeroConfig.value_discount``; 1: the result itself) plus ``q_weight`` times the search's
    value of the position (``ZeroConfig.q_weight``), all in the first player's view. With
    ``value_lambda`` below 1 (``ZeroConfig.value_lambda``) the result's part is the λ-return
    of the searches' values of the positions after it (:func:`lambda_returns`). A game's
    exploring moves (``ZeroGames.explored``) cut its results (:func:`explored_outcomes`). With
    ``table_targets`` (``ZeroConfig.table_targets``) a position the tablebase holds has its
    table value instead: exact, whatever the game made of it. With ``entry_targets``
    (``ZeroConfig.entry_targets``) the positions before a game entered the table take the
    table's value of its entry as their result, in place of the game's. With ``seeing_targets``
    (``ZeroConfig.seeing_targets``) in a game where only one side's searches saw the table
    inside it (``ZeroGames.in_tables`` 1 or -1), that side's positions there take their table
    value. With ``children_table`` (the
    ``game``'s tablebase layers: ``ZeroConfig.table_children``) each game's positions are
    followed by value-only samples (no policy, no plies target) of the positions one move from
    those the table holds, with the table's values
    (:func:`~samuel.train.zero_selfplay.table_children`): every move's, or with
    ``mistakes_only`` only those of the moves that give the position's value away. ``game``
    is the games' number (None: the first registered game's)."""
    if game is None:
        game = descriptors()[default_game()].number
    chosen = {f: [] for f in SAMPLE_FIELDS}
    for part in parts:
        for g in range(len(part.plies)):
            n = int(part.plies[g])
            chosen["states"].append(part.positions[g, :n])
            chosen["legal"].append(part.legal[g, :n])
            chosen["legal_counts"].append(part.legal_counts[g, :n])
            chosen["policy"].append(part.policy[g, :n])
            plies_left = np.arange(n, 0, -1, dtype=np.float64)
            outcomes = np.full(n, float(part.results[g]))
            entry = _entry_outcomes(outcomes, part.table_values[g, :n]) if entry_targets else None
            cut = np.zeros(n, dtype=np.bool_)
            if part.explored is not None and part.explored[g, :n].any():
                cut = explored_outcomes(
                    outcomes, part.root_values[g, :n], part.explored[g, :n], entry
                )
            results = np.where(cut, outcomes, outcomes * discount ** (plies_left - 1.0))
            if value_lambda < 1.0:
                results = lambda_returns(results, part.root_values[g, :n], value_lambda)
            if q_weight > 0.0:
                results = (1.0 - q_weight) * results + q_weight * part.root_values[g, :n]
            if table_targets:
                exact = part.table_values[g, :n]
                results = np.where(np.isnan(exact), results, exact)
            elif seeing_targets and part.in_tables is not None and part.in_tables[g] in (1, -1):
                exact = part.table_values[g, :n]
                movers = np.array([games.sign(game, state) for state in part.positions[g, :n]])
                seen = ~np.isnan(exact) & (movers == part.in_tables[g])
                results = np.where(seen, exact, results)
            chosen["results"].append(results.astype(np.float32))
            chosen["plies"].append(plies_left.astype(np.float32))
            if children_table is not None:
                _add_children(chosen, game, part, g, children_table, mistakes_only)
    return ZeroSamples(*(np.concatenate(chosen[f]) for f in SAMPLE_FIELDS))


def lambda_returns(results: np.ndarray, searched: np.ndarray, lam: float) -> np.ndarray:
    """TD(λ)'s return of each position of one game: ``(1 - λ)`` times the sum over the later
    positions' search values ``searched[t + k]`` weighted ``λ ** (k - 1)``, plus ``λ`` to the
    number of later positions times the position's own result. λ = 1 gives the results; λ = 0
    the next position's search value (the last position keeps its result). A position's value
    then hears of what the searches saw a few plies later, not only of how the game ended.

    >>> lambda_returns(np.array([1.0, 1.0, 1.0]), np.array([0.0, 0.5, -0.5]), 0.5)
    array([0.375, 0.25 , 1.   ])
    """
    n = len(results)
    returns = np.empty(n, dtype=np.float64)
    later = 0.0  # (1 - λ) * sum of λ ** (k - 1) * searched[t + k]
    weight = 1.0  # λ ** (n - 1 - t)
    for t in range(n - 1, -1, -1):
        returns[t] = later + weight * results[t]
        later = (1.0 - lam) * searched[t] + lam * later
        weight *= lam
    return returns


def _entry_outcomes(outcomes: np.ndarray, table_values: np.ndarray) -> int | None:
    """Give the positions before the first one the table holds (``table_values`` not NaN) that
    position's table value as their outcome, and return its ply; a game that never entered the
    table keeps its own (None)."""
    held = np.flatnonzero(~np.isnan(table_values))
    if not len(held):
        return None
    outcomes[: held[0]] = table_values[held[0]]
    return int(held[0])


def explored_outcomes(
    outcomes: np.ndarray, searched: np.ndarray, explored: np.ndarray, entry: int | None = None
) -> np.ndarray:
    """Cut one game's outcomes at its exploring moves, as TD(λ) self-play cuts its traces: each
    position up to the next exploring move (that move's own position included) takes the
    search's value of the position where it was played (``searched``), since what followed the
    random move says nothing of the positions before it. With ``entry`` (``entry_targets``: the
    positions before it have the entry's table value, which assumes perfect play from there
    on) an exploring move at or after the entry leaves the positions before it as they are.
    Returns which positions were cut.

    >>> outcomes = np.array([1.0, 1.0, 1.0, 1.0])
    >>> explored_outcomes(outcomes, np.array([0.1, 0.2, 0.3, 0.4]), np.array([0, 1, 0, 0]))
    array([ True,  True, False, False])
    >>> outcomes
    array([0.2, 0.2, 1. , 1. ])
    """
    cut = np.zeros(len(outcomes), dtype=np.bool_)
    following = -1  # the next exploring ply
    for t in range(len(outcomes) - 1, -1, -1):
        if explored[t]:
            following = t
        if following >= 0 and (entry is None or t >= entry or following < entry):
            outcomes[t] = searched[following]
            cut[t] = True
    return cut


def _add_children(
    chosen: dict, game: int, part: ZeroGames, g: int, table, mistakes_only: bool
) -> None:
    """Append to ``chosen`` the value-only samples of the positions one move from game ``g``'s
    in the table (:func:`zero_samples`)."""
    n = int(part.plies[g])
    room = games.move_room(game)
    children = np.zeros((n * room, part.positions.shape[2]), dtype=np.int64)
    values = np.zeros(n * room, dtype=np.float32)
    k = table_children(game, part.positions[g], n, table, mistakes_only, children, values)
    chosen["states"].append(children[:k])
    chosen["legal"].append(np.zeros((k, part.legal.shape[2]), dtype=np.int64))
    chosen["legal_counts"].append(np.zeros(k, dtype=np.int64))
    chosen["policy"].append(np.zeros((k, part.policy.shape[2]), dtype=np.float32))
    chosen["results"].append(values[:k])
    chosen["plies"].append(np.full(k, NO_PLIES, dtype=np.float32))


@dataclass(frozen=True)
class EncodedZero:
    """Samples as the network reads them (``zero_batch_gradient``'s arrays)."""

    active: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    legal: np.ndarray
    legal_counts: np.ndarray
    policy: np.ndarray
    targets: np.ndarray
    plies: np.ndarray


def encode_zero(game: int, samples: ZeroSamples, symmetries: np.ndarray | None = None):
    """The samples' network inputs, actions and value targets, each under its symmetry (default:
    as they are)."""
    sizes = games.compiled_game(game)
    n = len(samples)
    if symmetries is None:
        symmetries = np.zeros(n, dtype=np.int64)
    active = np.empty((n, sizes.most_set_inputs), dtype=np.int64)
    values = np.empty((n, sizes.most_set_inputs), dtype=np.float32)
    counts = np.empty(n, dtype=np.int64)
    legal = np.zeros_like(samples.legal)
    targets = np.empty(n, dtype=np.float32)
    encode_zero_samples(
        game,
        np.ascontiguousarray(samples.states),
        np.ascontiguousarray(symmetries, dtype=np.int64),
        samples.legal,
        samples.legal_counts,
        samples.results,
        active,
        values,
        counts,
        legal,
        targets,
    )
    return EncodedZero(
        active, values, counts, legal, samples.legal_counts, samples.policy, targets, samples.plies
    )


def zero_losses(game: int, params: np.ndarray, samples: ZeroSamples) -> tuple[float, ...]:
    """The mean policy cross-entropy, value squared error ``(v - z)^2`` and plies loss (Huber
    of the error over 20 plies) of the samples, unweighted (NaNs if there are none)."""
    if len(samples) == 0:
        return (float("nan"),) * 3
    e = encode_zero(game, samples)
    policy, value, plies = zero_batch_loss(
        params,
        e.active,
        e.values,
        e.counts,
        e.legal,
        e.legal_counts,
        e.policy,
        e.targets,
        e.plies,
    )
    n = len(samples)
    return policy / n, 2.0 * value / n, plies / n


def train_zero_epoch(
    game: int,
    params: np.ndarray,
    adam: Adam,
    samples: ZeroSamples,
    config: ZeroConfig,
    rng: np.random.Generator,
) -> None:
    """One pass over the samples: shuffled, each in a random symmetry, in batches of
    ``config.batch_size``, an Adam step on each batch's mean gradient."""
    n = len(samples)
    if n == 0:
        return
    sizes = games.compiled_game(game)
    order = rng.permutation(n)
    symmetries = rng.integers(0, sizes.symmetries, size=n)
    grad = np.zeros(len(params), dtype=np.float32)
    for start in range(0, n, config.batch_size):
        chosen = order[start : start + config.batch_size]
        e = encode_zero(game, samples.select(chosen), symmetries[chosen])
        zero_batch_gradient(
            params,
            e.active,
            e.values,
            e.counts,
            e.legal,
            e.legal_counts,
            e.policy,
            e.targets,
            e.plies,
            np.float32(config.policy_weight),
            np.float32(config.value_weight),
            np.float32(config.plies_weight),
            grad,
        )
        adam.step += 1
        adam_step(
            params,
            grad,
            adam.m,
            adam.v,
            adam.step,
            config.learning_rate,
            BETA1,
            BETA2,
            ADAM_EPSILON,
            np.float32(1.0 / len(chosen)),
        )


@dataclass(frozen=True)
class ZeroReport:
    """One row of the Zero trainer's table. "First" and "second" are the game's players."""

    generation: int
    trained: int  # positions in the replay window (each epoch's)
    first_wins: int
    second_wins: int
    draws: int
    mean_plies: float  # the generation's games' mean length
    policy_before: float  # mean losses on the window, before and after training
    value_before: float
    plies_loss_before: float  # the plies head: Huber of the error over 20 plies
    policy_after: float
    value_after: float
    plies_loss_after: float
    vs_previous: float | None  # match scores, only every match_every generations
    vs_classic: float | None
    train_seconds: float
    seconds: float


def zero_starting_point(config: ZeroConfig) -> tuple[np.ndarray, str, int]:
    """The Zero network to start from, where it came from, and the last generation number."""
    game = get_game(config.game).number
    last, newest = newest_generation(Path(config.folder))
    if config.start_from is None and newest is None:
        params = random_zero_network(game, ZERO_WEIGHTS_SEED)
        return params, f"random weights (seed {ZERO_WEIGHTS_SEED:#x})", last
    path = config.start_from if config.start_from is not None else str(newest)
    return load_zero_network(path, game), path, last


def zero_player(path: Path, config: ZeroConfig) -> str:
    """The ``zero:`` player spec of a network for the matches."""
    return f"zero:net={path},sims={config.simulations}"


ZeroMatch = Callable[[str, str, int], float]


def train_zero(
    config: ZeroConfig,
    report: Callable[[ZeroReport], None],
    play_match: ZeroMatch | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    log: Callable[[str], None] = print,
    backend: Backend | None = None,
    on_start: Callable[[], None] | None = None,
) -> np.ndarray:
    """Run ``config.generations`` generations; call ``report`` after each; return the network.

    ``play_match(first_spec, second_spec, seed)`` plays a match of ``config.match_games`` games
    and returns the first player's score; without it no matches are played.
    ``progress(stage, done, total)`` is told how the generation's self-play is going.
    ``on_start()`` is called after the "starting from" line (the command prints its header).
    Self-play runs on ``backend`` (:mod:`samuel.backends`), by default this machine's threads.
    """
    game = get_game(config.game).number
    if config.workers is not None:
        numba.set_num_threads(min(config.workers, numba.config.NUMBA_NUM_THREADS))
    selfplay_tablebase(config)  # a bad table stops the run before anything is written
    out_dir = check_output_folder(config.folder, "run folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise file_error("create the run folder", out_dir, error) from None
    params, source, last = zero_starting_point(config)
    log(f"starting from {source}; generations {last + 1} to {last + config.generations}")
    if on_start is not None:
        on_start()
    start_file = out_dir / START_FILE
    save_zero_network(params, start_file, game)
    adam = Adam(len(params))
    window: list[ZeroSamples] = []
    children_table = selfplay_tablebase(config) if config.table_children != "none" else None
    for generation in range(last + 1, last + config.generations + 1):
        started = time.perf_counter()
        parts = zero_self_play(
            params,
            config,
            generation,
            None if progress is None else lambda done: progress("self-play", done, config.games),
            backend,
        )
        latest = zero_samples(
            parts,
            config.value_discount,
            config.q_weight,
            config.table_targets,
            children_table,
            game,
            config.table_children == "mistakes",
            config.entry_targets,
            config.seeing_targets,
            config.value_lambda,
        )
        window = [*window, latest][-config.buffer_generations :]
        samples = ZeroSamples.concatenate(window)
        before = zero_losses(game, params, samples)
        rng = np.random.default_rng([ZERO_TRAINING_SEED, config.seed, generation])
        train_started = time.perf_counter()
        for _ in range(config.epochs):
            train_zero_epoch(game, params, adam, samples, config, rng)
        train_seconds = time.perf_counter() - train_started
        if not np.all(np.isfinite(params)):
            raise diverged(out_dir, generation, config.learning_rate)
        after = zero_losses(game, params, samples)
        path = generation_path(out_dir, generation)
        save_or_keep(
            path,
            f"network of generation {generation}",
            lambda p: save_zero_network(params, p, game),
        )
        save_zero_network(params, out_dir / "latest.bin", game)
        vs_previous = vs_classic = None
        if play_match is not None and generation % config.match_every == 0:
            previous = generation_path(out_dir, generation - config.match_every)
            previous = previous if previous.exists() else start_file
            spec = zero_player(path, config)
            vs_previous = play_match(spec, zero_player(previous, config), generation)
            vs_classic = play_match(spec, f"classic:depth={config.classic_depth}", generation)
        results = np.concatenate([p.results for p in parts])
        plies = np.concatenate([p.plies for p in parts])
        row = ZeroReport(
            generation,
            len(samples),
            int((results > 0).sum()),
            int((results < 0).sum()),
            int((results == 0).sum()),
            float(plies.mean()),
            *before,
            *after,
            vs_previous,
            vs_classic,
            train_seconds,
            time.perf_counter() - started,
        )
        save_generation_record(path, config.to_dict(), source, row)
        report(row)
    return params
