"""Self-play training in generations (``docs/training.md``), for any registered game.

Each generation plays ``games`` games of the network against itself, labels the positions with
TD(lambda) targets (with ``table_positions``, adds that many positions drawn from the game's
tablebase, Tigers & Sheep's, with their exact values and distances), keeps them in the sample
buffer by outcome, trains on the last ``buffer_generations`` generations (balanced epochs, random
orientations, Adam), and saves ``gen-NNN.bin`` and ``latest.bin`` (files that record the game).
Every ``match_every`` generations it plays matches against the generation that last played
matches and against the game's ``classic``.

A run resumes from ``start_from``, else the newest ``gen-NNN.bin`` in the out dir, else random
weights (seed ``0x5EED``); a file for another game is refused. With ``moves_left`` a network
without the moves-left head gets a new one; a network that has the head trains it, flag or not
(self-play never uses it: its searches read the value only). Generation numbers carry on from
the newest file in the out dir. Adam's state and the buffer are not saved, so they start empty
on a restart. Weights are written atomically, so a run stopped at any moment loses at most the
generation in progress. A generation whose training diverged (a parameter not finite) is never
saved: the run stops with :class:`TrainingDiverged`, and ``latest.bin`` stays the last good
generation.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.errors import CommandError, SamuelError
from samuel.evaluation.networks import (
    has_moves_left,
    load_network_or_phases,
    phased_network,
    random_network,
    random_phased_network,
    save_any_network,
)
from samuel.evaluation.outcomes import outcome_predictions
from samuel.files import check_output_folder, file_error, save_or_keep, write_atomically
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.base import GameRules
from samuel.nn import shape as nn_shape
from samuel.nn.network import NO_PLIES
from samuel.nn.phased import is_phased
from samuel.nn.shape import HIDDEN, PLIES, network_of, with_plies_head, without_head
from samuel.seeds import derive_seed

from .buffer import DRAW, FIRST_WIN, OUTCOMES, SECOND_WIN, SampleBuffer, Samples
from .config import (
    MOVES_LEFT_SEED,
    RANDOM_WEIGHTS_SEED,
    TABLE_POSITIONS_SEED,
    TRAINING_SEED,
    TrainConfig,
)
from .phase_training import mean_loss_phases, networks_of, optimisers, train_epoch_phases
from .selfplay import SelfPlaySettings, play_selfplay, play_selfplay_parts
from .targets import (
    outcome_vector,
    plies_left_targets,
    tablebase_plies,
    td_lambda_outcome_targets,
    td_lambda_targets,
)
from .trainer import plies_error

GENERATION_FILE = re.compile(r"^gen-(\d+)\.bin$")
START_FILE = "start.bin"  # the network a run started from, for `vs prev` when no file has it
SELFPLAY_CHUNK = 50  # games per compiled call, so the progress bar moves


class TrainingDiverged(SamuelError):
    """A generation's training left parameters that are not finite (too high a learning rate,
    usually); nothing of that generation was saved."""


@dataclass(frozen=True)
class GenerationReport:
    """One row of the training table (``docs/training.md``, "Reading the output"). "First" and
    "second" are the game's players (Tigers & Sheep: the tigers and the sheep)."""

    generation: int
    trained: int  # positions in each epoch
    first_wins: int
    second_wins: int
    draws: int
    first_before: float  # mean loss on first-player-win positions in the buffer, before training
    second_before: float
    first_after: float
    second_after: float
    vs_previous: float | None  # match score, only every match_every generations
    vs_classic: float | None
    train_seconds: float
    seconds: float
    # The moves-left head's mean absolute error, in plies, on the whole buffer before and after
    # training; None when the network has no head.
    plies_before: float | None = None
    plies_after: float | None = None


def game_seed(generation: int, game: int) -> int:
    """A game's seed, from (generation, game number) only: the same on any number of workers."""
    return derive_seed(generation, game)


def save_generation_record(path: Path, config: dict, source: str, row) -> None:
    """Write a generation's record beside its weights file ``path`` (``gen-NNN.json``): the
    run's config, what the run started from, the table row and the weights file's name."""
    record = {
        "config": config,
        "started_from": source,
        "report": row.__dict__,
        "weights": path.name,
    }
    write_atomically(path.with_suffix(".json"), (json.dumps(record, indent=2) + "\n").encode())


def newest_generation(out_dir: Path) -> tuple[int, Path | None]:
    """The highest generation number saved in ``out_dir`` and its file (0, None if none)."""
    best, best_path = 0, None
    if out_dir.is_dir():
        for path in out_dir.iterdir():
            match = GENERATION_FILE.match(path.name)
            if match and int(match.group(1)) > best:
                best, best_path = int(match.group(1)), path
    return best, best_path


def generation_path(out_dir: Path, generation: int) -> Path:
    return out_dir / f"gen-{generation:03d}.bin"


def starting_point(config: TrainConfig) -> tuple[np.ndarray, str, int]:
    """The parameters to start from, where they came from (and what became of the moves-left
    head), and the last generation number."""
    game = get_game(config.game).number
    out_dir = Path(config.out_dir)
    last, newest = newest_generation(out_dir)
    if config.start_from is None and newest is None:
        hidden = tuple(int(w) for w in config.hidden)
        if config.phases:
            params = random_phased_network(game, RANDOM_WEIGHTS_SEED, hidden)
        else:
            params = random_network(game, RANDOM_WEIGHTS_SEED, config.moves_left, hidden)
        head = " with a moves-left head" if config.moves_left else ""
        if config.phases:
            head += ", a network per phase"
        if hidden != HIDDEN:
            head += f", hidden layers {'-'.join(map(str, hidden))}"
        return params, f"random weights (seed {RANDOM_WEIGHTS_SEED:#x}){head}", last
    path = config.start_from if config.start_from is not None else str(newest)
    params = load_network_or_phases(path, game)
    if is_phased(params) != config.phases:
        if config.phases:  # every phase starts from the one network
            start = phased_network(game, without_head(params, PLIES))
            return start, f"{path} (as every phase's network)", last
        raise CommandError(f"{path} holds a network per phase: train it with --phases")
    if config.phases:
        return params, path, last
    if has_moves_left(params, game):
        return params, f"{path} (training its moves-left head)", last
    if config.moves_left:
        # The head's seed names the generation it joins at, so a run is the same wherever it
        # was resumed from.
        params = with_plies_head(params, derive_seed(MOVES_LEFT_SEED, last))
        return params, f"{path} (with a new moves-left head)", last
    return params, path, last


def self_play(
    params: np.ndarray,
    config: TrainConfig,
    generation: int,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
):
    """Play the generation's games: on this machine's threads in chunks, so that
    ``progress(games done)`` can be called, or as the units of a cluster ``backend``."""
    rules = get_game(config.game)
    root = rules.encode(rules.initial_position())
    seeds = np.array([game_seed(generation, g) for g in range(config.games)], dtype=np.int64)
    settings = SelfPlaySettings(
        game=rules.number,
        evaluator=games.EVALUATOR_PHASED if is_phased(params) else games.EVALUATOR_NETWORK,
        # self-play plays on the value alone, head or not
        params=params if is_phased(params) else without_head(params, PLIES),
        root=root,
        depth=config.depth,
        random_plies=config.random_plies,
        epsilon=config.epsilon,
        ply_cap=config.ply_cap,
    )
    if backend is not None and not isinstance(backend, LocalBackend):
        return play_selfplay_parts(backend, settings, seeds, progress)
    parts = []
    for start in range(0, config.games, SELFPLAY_CHUNK):
        parts.append(play_selfplay(settings, seeds[start : start + SELFPLAY_CHUNK]))
        if progress is not None:
            progress(min(config.games, start + SELFPLAY_CHUNK))
    return parts


def label_games(
    parts,
    lam: float,
    game: int | None = None,
    tablebase: tuple[np.ndarray, ...] | None = None,
    params: np.ndarray | None = None,
) -> dict[int, Samples]:
    """TD(lambda)-labelled samples of the games (at least one part), by outcome; targets in the
    first player's view. Each position's plies-left target is how many plies its game lasted
    from there; given ``tablebase`` (the layers of the Tigers & Sheep ``game``'s table),
    positions that the table calls won or lost take its exact distance instead. Given the
    ``params`` of a network valued by its outcomes (:mod:`samuel.nn.shape`), the positions get
    outcome targets too, TD(lambda) over the network's own outcome chances."""
    state_size = parts[0].positions.shape[2]
    classes = 0
    shape = None if params is None else network_of(networks_of(params)[0])
    if shape is not None and not shape.has(nn_shape.VALUE):
        classes = shape.head(nn_shape.OUTCOMES).outputs // 2
    states = {FIRST_WIN: [], SECOND_WIN: [], DRAW: []}
    targets = {FIRST_WIN: [], SECOND_WIN: [], DRAW: []}
    plies = {FIRST_WIN: [], SECOND_WIN: [], DRAW: []}
    outcomes = {FIRST_WIN: [], SECOND_WIN: [], DRAW: []}
    for part in parts:
        for g in range(len(part.plies)):
            n = int(part.plies[g])
            if n == 0:
                continue
            result = int(part.results[g])
            outcome = FIRST_WIN if result > 0 else SECOND_WIN if result < 0 else DRAW
            labels = np.empty(n, dtype=np.float32)
            td_lambda_targets(
                part.scores[g, :n], part.random_moves[g, :n], float(result), lam, labels
            )
            states[outcome].append(part.positions[g, :n])
            targets[outcome].append(labels)
            plies[outcome].append(plies_left_targets(n))
            if classes:
                predicted = outcome_predictions(game, params, part.positions[g, :n])
                chances = np.empty_like(predicted)
                final = outcome_vector(result, classes)
                td_lambda_outcome_targets(predicted, part.random_moves[g, :n], final, lam, chances)
                outcomes[outcome].append(chances)
    samples = {}
    for o in states:
        if not states[o]:
            samples[o] = Samples.empty(state_size)
            continue
        samples[o] = Samples(
            np.concatenate(states[o]),
            np.concatenate(targets[o]),
            np.concatenate(plies[o]),
            np.concatenate(outcomes[o]) if classes else None,
        )
        if tablebase is not None:
            tablebase_plies(game, samples[o].states, tablebase, samples[o].plies)
    return samples


def table_samples(table, count: int, generation: int) -> dict[int, Samples]:
    """``count`` distinct undecided positions drawn from the tablebase ``table`` (a loaded
    ``Tablebase`` of a game with one: Tigers & Sheep) for ``generation``, by outcome: each learns
    its exact value (the first player's view, as self-play's targets) and its exact distance to
    the end (``NO_PLIES`` for a draw, which has none). The draws depend on the generation alone,
    not on the workers."""
    perfect = _perfect(table.rules.number)
    rng = np.random.default_rng(derive_seed(TABLE_POSITIONS_SEED, generation))
    states, outcomes, distances = perfect.draw_positions(table, count, rng)
    plies = np.where(outcomes != 0, distances, NO_PLIES).astype(np.float32)
    samples = {}
    for pool, outcome in ((FIRST_WIN, 1), (SECOND_WIN, -1), (DRAW, 0)):
        chosen = outcomes == outcome
        samples[pool] = Samples(states[chosen], outcomes[chosen].astype(np.float32), plies[chosen])
    return samples


def with_table_samples(
    samples: dict[int, Samples], extra: dict[int, Samples], state_size: int
) -> dict[int, Samples]:
    """Each pool of ``samples`` followed by the same pool of ``extra``."""
    return {o: Samples.concatenate([samples[o], extra[o]], state_size) for o in OUTCOMES}


def outcome_counts(parts) -> tuple[int, int, int]:
    results = np.concatenate([p.results for p in parts])
    return int((results > 0).sum()), int((results < 0).sum()), int((results == 0).sum())


MatchFunction = Callable[[str, str, int], float]


def diverged(out_dir: Path, generation: int, learning_rate: float) -> TrainingDiverged:
    """The error that stops a run whose ``generation`` diverged, saying what was kept."""
    previous = generation_path(out_dir, generation - 1)
    kept = (
        f"latest.bin is still generation {generation - 1} ({previous})"
        if generation > 1 and previous.exists()
        else "no generation was saved"
    )
    return TrainingDiverged(
        f"generation {generation} diverged: training left parameters that are not finite "
        f"(NaN or infinite), so it was not saved and the run stops; {kept}. Try a smaller "
        f"--learning-rate than {learning_rate:g}"
    )


def _perfect(game: int):
    """The ``perfect`` part (the tablebase) of the game numbered ``game`` (a variant's number
    names its game); a CommandError in one line for a game without one."""
    from samuel.games import descriptor_of

    descriptor = descriptor_of(game)
    perfect = descriptor.part("perfect")
    if perfect is None:
        raise CommandError(f"--tablebase: {descriptor.title} has no tablebase")
    return perfect


def checked_tablebase(directory: str, game: str):
    """The tablebase in ``directory`` (a ``Tablebase``, mapped once per process), checked against
    the rule of the registry's ``game``; a CommandError in one line otherwise."""
    perfect = _perfect(get_game(game).number)
    try:
        table = perfect.load(directory)
    except perfect.TablebaseError as error:
        raise CommandError(f"--tablebase: {error}") from None
    rules = get_game(game)
    if getattr(rules, "captures_to_win", None) != table.captures_to_win:
        raise CommandError(
            f"--tablebase {directory} is the table of the game won by "
            f"{table.captures_to_win} captures, not of {rules!r}"
        )
    return table


def training_tablebase(config: TrainConfig, moves_left: bool):
    """``config.tablebase`` loaded (a ``Tablebase``) and checked against the game's rules, for
    exact plies-left targets (and ``config.table_positions`` positions a generation): only a run
    whose network has the moves-left head uses it."""
    table_size = _perfect(get_game(config.game).number).table_size
    if not moves_left:
        raise CommandError(
            f"--tablebase {config.tablebase}: the table gives the moves-left head exact "
            "plies-left targets, and this run's network has no head (add --moves-left)"
        )
    table = checked_tablebase(config.tablebase, config.game)
    if config.table_positions > table_size(table) // 2:
        raise CommandError(
            f"--table-positions {config.table_positions} is too many for a table of "
            f"{table_size(table)} positions (at most half of them)"
        )
    return table


def train(
    config: TrainConfig,
    report: Callable[[GenerationReport], None],
    play_match: MatchFunction | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    log: Callable[[str], None] = print,
    on_start: Callable[[bool], None] | None = None,
    backend: Backend | None = None,
) -> np.ndarray:
    """Run ``config.generations`` generations; call ``report`` after each. Returns the network.

    ``play_match(first_spec, second_spec, seed)`` plays a match of ``config.match_games`` games
    and returns the first player's score (share of points); without it no matches are played.
    ``progress(stage, done, total)`` is told how the generation's self-play is going.
    ``on_start(moves_left)`` is told, after the "starting from" line, whether the run's network
    has the moves-left head (then each report has its plies-left errors). Self-play runs on
    ``backend`` (:mod:`samuel.backends`), by default this machine's threads; the games, and so
    the network, are the same on any.
    """
    rules: GameRules = get_game(config.game)
    game = rules.number
    if config.workers is not None:
        numba.set_num_threads(min(config.workers, numba.config.NUMBA_NUM_THREADS))
    out_dir = check_output_folder(config.out_dir, "run folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise file_error("create the run folder", out_dir, error) from None
    params, source, last = starting_point(config)
    moves_left = not is_phased(params) and has_moves_left(params, game)
    table = None if config.tablebase is None else training_tablebase(config, moves_left)
    tablebase = None if table is None else table.layers
    log(f"starting from {source}; generations {last + 1} to {last + config.generations}")
    if on_start is not None:
        on_start(moves_left)
    start_file = out_dir / START_FILE
    save_any_network(params, start_file, game)
    adams = optimisers(params)
    state_size = games.compiled_game(game).state_words  # the game's own width
    buffer = SampleBuffer(config.buffer_generations, state_size)
    for generation in range(last + 1, last + config.generations + 1):
        started = time.perf_counter()
        parts = self_play(
            params,
            config,
            generation,
            None if progress is None else lambda done: progress("self-play", done, config.games),
            backend,
        )
        samples = label_games(parts, config.lam, game, tablebase, params)
        if config.table_positions:
            extra = table_samples(table, config.table_positions, generation)
            samples = with_table_samples(samples, extra, state_size)
        buffer.add_generation(samples)
        first_pool, second_pool = buffer.pool(FIRST_WIN), buffer.pool(SECOND_WIN)
        first_before = mean_loss_phases(game, params, first_pool)
        second_before = mean_loss_phases(game, params, second_pool)
        plies_before = plies_after = None
        if moves_left:  # the head's error on the whole buffer, draws too
            whole = Samples.concatenate([first_pool, second_pool, buffer.pool(DRAW)], state_size)
            plies_before = plies_error(game, params, whole)
        rng = np.random.default_rng([TRAINING_SEED, generation])
        learning_rate = config.learning_rate_at(generation - last - 1)
        train_started = time.perf_counter()
        trained = 0
        for _ in range(config.epochs):
            epoch = buffer.epoch(rng, config.balance)
            trained = len(epoch)
            train_epoch_phases(
                game,
                params,
                adams,
                epoch,
                config.batch_size,
                learning_rate,
                rng,
                config.moves_left_weight,
                config.heads_only,
            )
        train_seconds = time.perf_counter() - train_started
        if not np.all(np.isfinite(params)):
            raise diverged(out_dir, generation, learning_rate)
        first_after = mean_loss_phases(game, params, first_pool)
        second_after = mean_loss_phases(game, params, second_pool)
        if moves_left:
            plies_after = plies_error(game, params, whole)
        path = generation_path(out_dir, generation)
        # Generation files first, latest.bin last: latest.bin is always a whole, good network.
        save_or_keep(
            path, f"network of generation {generation}", lambda p: save_any_network(params, p, game)
        )
        save_any_network(params, out_dir / "latest.bin", game)
        vs_previous = vs_classic = None
        if play_match is not None and generation % config.match_every == 0:
            # Against the generation that last played matches, or the starting network if
            # that generation's file is missing.
            previous = generation_path(out_dir, generation - config.match_every)
            previous = previous if previous.exists() else start_file
            spec = f"{path}:depth={config.depth}"
            vs_previous = play_match(spec, f"{previous}:depth={config.depth}", generation)
            vs_classic = play_match(spec, f"classic:depth={config.depth}", generation)
        first_wins, second_wins, draws = outcome_counts(parts)
        row = GenerationReport(
            generation,
            trained,
            first_wins,
            second_wins,
            draws,
            first_before,
            second_before,
            first_after,
            second_after,
            vs_previous,
            vs_classic,
            train_seconds,
            time.perf_counter() - started,
            plies_before,
            plies_after,
        )
        save_generation_record(path, config.to_dict(), source, row)
        report(row)
    return params
