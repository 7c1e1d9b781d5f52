"""Gradient tuning of the classic weights on labelled positions (the seed's Leorik devlog).

The classic score is a dot product, ``eval = sum(weight[i] * feature[i])`` (the first player's
view, in the game's unit: sheep for Tigers & Sheep, men for draughts; long nardy's evaluation is
the tanh of such a sum, and the sum is what is tuned), so once every position's features are
computed the engine is no longer needed: tuning is fitting a vector of one number per feature.
The features are the game's own (its ``classic.FEATURES``, computed by its compiled
``classic_features``: :mod:`samuel.tune.games`). A position's features are stored **sparse**, as
(index, value) pairs of its non-zero features in two flat arrays, with ``starts[p]`` where
position ``p``'s pairs begin (about 6 of Tigers & Sheep's 10 features are non-zero in a typical
position).

The prediction of the result is ``sigmoid(K * eval)``, the result mapped to ``0..1`` (a loss of
the first player 0, a draw 0.5, a win 1; in a game whose wins score points, long nardy's, the
points over the most a game scores: :func:`result_targets`); the error is the mean squared
difference.

1. ``K`` is fitted first, with the starting weights (a scan over a log grid, then golden-section
   search): it says how many units of classic score make how sure a result.
2. Then full-batch Adam (or plain gradient descent) on the weights, ``K`` fixed. The unit
   (``captured``, ``men``, ``pips``) stays as it starts (1; long nardy's pip 0.012, in the tanh's
   units): with ``K`` fixed it pins the scale (otherwise ``K`` and the weights could trade a
   common factor).

The gradient, ``d/dw_i = mean(2 (p - y) p (1 - p) K x_i)``, is computed in parallel over chunks
of ``CHUNK`` positions, each chunk by one thread into its own slot; the slots are then added in
chunk order. Floating-point addition is not associative, so this fixed order is what makes
tuning bit-identical on any number of threads.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from samuel.games import kernels as games
from samuel.jit import kernel, parallel_kernel

from .config import DEFAULT_GAME, TuneConfig
from .games import tuning_game

CHUNK = 4096  # positions per parallel work item: big enough to amortise, small to balance
ADAM_BETA1 = 0.9
ADAM_BETA2 = 0.999
ADAM_EPSILON = 1e-8
SCALE_LOW, SCALE_HIGH = 1e-3, 1e2  # the range searched for K, per unit (a sheep, a man)
SCALE_GRID = 61  # log-spaced points scanned before the golden-section search
# The default game's named classic features: what the functions below take unless told.
FEATURES = tuning_game(DEFAULT_GAME).features


@dataclass(frozen=True)
class SparseFeatures:
    """Every position's non-zero features: position ``p``'s are ``index[starts[p]:starts[p+1]]``
    with values ``value[...]``. Checked when made: the kernels read ``index``, ``value`` and
    the weights at these offsets with no bounds checks."""

    starts: np.ndarray  # int64, positions + 1
    index: np.ndarray  # uint8, the feature's number in the game's FEATURES
    value: np.ndarray  # float32
    feature_count: int = len(FEATURES)  # the game's features (the default game's unless told)

    def __post_init__(self) -> None:
        starts, index, value = self.starts, self.index, self.value
        if (starts.dtype, index.dtype, value.dtype) != (np.int64, np.uint8, np.float32):
            raise ValueError("sparse features are int64 starts, uint8 indices, float32 values")
        if starts.ndim != 1 or index.ndim != 1 or value.ndim != 1 or len(starts) == 0:
            raise ValueError("sparse features are three flat arrays, starts not empty")
        if starts[0] != 0 or starts[-1] != len(index) or len(index) != len(value):
            raise ValueError("sparse features: starts must run from 0 to the number of pairs")
        if not 0 < self.feature_count <= 256:  # an index is a uint8
            raise ValueError("sparse features: there are 1 to 256 features")
        if np.any(np.diff(starts) < 0) or np.any(index >= self.feature_count):
            raise ValueError("sparse features: starts must not decrease; indices < feature count")

    def __len__(self) -> int:
        return len(self.starts) - 1

    def subset(self, mask: np.ndarray) -> SparseFeatures:
        """The positions where ``mask`` is true, in order."""
        counts = np.diff(self.starts)[mask]
        starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        keep = np.repeat(mask, np.diff(self.starts))
        return SparseFeatures(starts, self.index[keep], self.value[keep], self.feature_count)


@kernel
def _features_of(game, state, tables, row):
    """Write a position's features into ``row``: the named ones, and the tables' if asked."""
    if tables:
        games.classic_weight_features(game, state, row)
    else:
        games.classic_features(game, state, row)


@parallel_kernel
def _dense_features(game, states, tables, out):
    for p in numba.prange(states.shape[0]):
        _features_of(game, states[p], tables, out[p])


@parallel_kernel
def _count_features(game, states, tables, width, counts):
    n = states.shape[0]
    for c in numba.prange((n + CHUNK - 1) // CHUNK):
        row = np.zeros(width, dtype=np.float32)
        for p in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            _features_of(game, states[p], tables, row)
            count = 0
            for i in range(width):
                count += row[i] != 0
            counts[p] = count


@parallel_kernel
def _fill_features(game, states, tables, width, starts, index, value):
    n = states.shape[0]
    for c in numba.prange((n + CHUNK - 1) // CHUNK):
        row = np.zeros(width, dtype=np.float32)
        for p in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            _features_of(game, states[p], tables, row)
            j = starts[p]
            for i in range(width):
                if row[i] != 0:
                    index[j] = i
                    value[j] = row[i]
                    j += 1


def checked_states(states: np.ndarray, game: str) -> np.ndarray:
    """Rows of kernel states of ``game``, checked: the kernels read their tables with them."""
    tuned = tuning_game(game)
    words = tuned.state_words  # Tigers & Sheep's positions are 4 words, draughts' 5
    states = np.ascontiguousarray(states, dtype=np.int64)
    if states.ndim != 2 or states.shape[1] != words:
        raise ValueError(f"states are rows of {words} numbers, not shape {states.shape}")
    problem = tuned.state_problem(states)
    if problem is not None:
        raise ValueError(problem)
    return states


def feature_width(game: str = DEFAULT_GAME, tables: bool = False) -> int:
    """How many features (and weights) a position of ``game`` has: the named ones, and with
    ``tables`` the piece-square tables' too."""
    tuned = tuning_game(game)
    return len(tuned.weights) if tables else len(tuned.features)


def dense_features(
    states: np.ndarray, game: str = DEFAULT_GAME, tables: bool = False
) -> np.ndarray:
    """The classic features of every position of ``game`` (rows of kernel states), float32,
    with the piece-square tables' if ``tables``. Raises :class:`ValueError` for a row that is
    not a possible position (the kernel would read outside its tables)."""
    states = checked_states(states, game)
    out = np.zeros((len(states), feature_width(game, tables)), dtype=np.float32)
    _dense_features(tuning_game(game).number, states, tables, out)
    return out


def sparse_features(
    states: np.ndarray, game: str = DEFAULT_GAME, tables: bool = False
) -> SparseFeatures:
    """The classic features of every position of ``game``, sparse (as :func:`dense_features`,
    without ever holding the dense rows: a million positions with tables would take 0.5 GB)."""
    states = checked_states(states, game)
    number, width = tuning_game(game).number, feature_width(game, tables)
    counts = np.zeros(len(states), dtype=np.int64)
    _count_features(number, states, tables, width, counts)
    starts = np.zeros(len(states) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    index = np.zeros(starts[-1], dtype=np.uint8)
    value = np.zeros(starts[-1], dtype=np.float32)
    _fill_features(number, states, tables, width, starts, index, value)
    return SparseFeatures(starts, index, value, width)


@kernel
def _evaluate(starts, index, value, weights, p):
    # Four running sums, not one: each addition then waits for the one four pairs back, not the
    # last, and with the tables' tens of features a position that chain was the bottleneck.
    end = starts[p + 1]
    a0 = a1 = a2 = a3 = 0.0
    j = starts[p]
    while j + 4 <= end:
        a0 += weights[index[j]] * value[j]
        a1 += weights[index[j + 1]] * value[j + 1]
        a2 += weights[index[j + 2]] * value[j + 2]
        a3 += weights[index[j + 3]] * value[j + 3]
        j += 4
    while j < end:
        a0 += weights[index[j]] * value[j]
        j += 1
    return (a0 + a1) + (a2 + a3)


@kernel
def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


@parallel_kernel
def _evaluate_all(starts, index, value, weights, out):
    for p in numba.prange(out.shape[0]):
        out[p] = _evaluate(starts, index, value, weights, p)


def _checked_weights(features: SparseFeatures, weights: np.ndarray) -> np.ndarray:
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape != (features.feature_count,):
        raise ValueError(f"expected {features.feature_count} weights, not shape {weights.shape}")
    return weights


def _checked_target(features: SparseFeatures, target: np.ndarray) -> np.ndarray:
    target = np.ascontiguousarray(target, dtype=np.float64)
    if target.shape != (len(features),):
        raise ValueError(f"expected a target per position ({len(features)}), not {target.shape}")
    return target


def evaluations(features: SparseFeatures, weights: np.ndarray) -> np.ndarray:
    """Every position's classic score from its sparse features (float64)."""
    out = np.empty(len(features), dtype=np.float64)
    _evaluate_all(
        features.starts, features.index, features.value, _checked_weights(features, weights), out
    )
    return out


@parallel_kernel
def _squared_error(starts, index, value, target, weights, k):
    n = target.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    partial = np.zeros(chunks, dtype=np.float64)
    for c in numba.prange(chunks):
        total = 0.0
        for p in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            error = _sigmoid(k * _evaluate(starts, index, value, weights, p)) - target[p]
            total += error * error
        partial[c] = total
    total = 0.0
    for c in range(chunks):
        total += partial[c]
    return total


@parallel_kernel
def _gradient(starts, index, value, target, weights, k, grad):
    """Write the summed gradient of the squared errors into ``grad``; return their sum."""
    n = target.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    partial = np.zeros((chunks, grad.shape[0]), dtype=np.float64)
    errors = np.zeros(chunks, dtype=np.float64)
    for c in numba.prange(chunks):
        local = partial[c]
        total = 0.0
        for p in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            begin, end = starts[p], starts[p + 1]  # read once: the stores below could alias them
            # _evaluate's four sums, written out here: calling it cost 15% of the iteration
            # (benchmarks/tune_speed.py: 396 against 468 million non-zero features a second).
            a0 = a1 = a2 = a3 = 0.0
            j = begin
            while j + 4 <= end:
                a0 += weights[index[j]] * value[j]
                a1 += weights[index[j + 1]] * value[j + 1]
                a2 += weights[index[j + 2]] * value[j + 2]
                a3 += weights[index[j + 3]] * value[j + 3]
                j += 4
            while j < end:
                a0 += weights[index[j]] * value[j]
                j += 1
            predicted = 1.0 / (1.0 + math.exp(-k * ((a0 + a1) + (a2 + a3))))
            error = predicted - target[p]
            total += error * error
            slope = 2.0 * error * predicted * (1.0 - predicted) * k
            for j in range(begin, end):
                local[index[j]] += slope * value[j]
        errors[c] = total
    grad[:] = 0.0
    total = 0.0
    for c in range(chunks):
        grad += partial[c]
        total += errors[c]
    return total


def result_targets(results: np.ndarray, max_points: int = 1) -> np.ndarray:
    """Results (the first player's view: 1, 0, -1) as targets in 0..1 (1, 0.5, 0), float64.

    In a game whose wins score up to ``max_points`` (long nardy: a win 1, a mars 2, a koks 3) a
    result is the first player's points, and its target is those points scaled from
    ``-max_points..max_points`` into 0..1: a koks lost 0, a plain win 2/3, a koks won 1. The
    mean target of positions alike is then their expected points so scaled, so ``sigmoid(K *
    eval)`` is fitted to the expected points, what a match scores; a win counted 1 whatever its
    kind would fit the chance of winning alone, blind to the mars and koks that matches count."""
    points = np.asarray(results, dtype=np.float64)
    return (points / max_points + 1.0) / 2.0


def mean_squared_error(
    features: SparseFeatures, target: np.ndarray, weights: np.ndarray, k: float
) -> float:
    """``mean((sigmoid(k * eval) - target)^2)`` over the positions."""
    total = _squared_error(
        features.starts,
        features.index,
        features.value,
        _checked_target(features, target),
        _checked_weights(features, weights),
        float(k),
    )
    return total / len(target)


def error_gradient(
    features: SparseFeatures, target: np.ndarray, weights: np.ndarray, k: float
) -> tuple[float, np.ndarray]:
    """The mean squared error and its gradient with respect to the weights."""
    grad = np.zeros(features.feature_count, dtype=np.float64)
    total = _gradient(
        features.starts,
        features.index,
        features.value,
        _checked_target(features, target),
        _checked_weights(features, weights),
        float(k),
        grad,
    )
    return total / len(target), grad / len(target)


def fit_scale(
    features: SparseFeatures, target: np.ndarray, weights: np.ndarray, tolerance: float = 1e-6
) -> float:
    """The ``K`` that minimises the error with these weights: the best of a log-spaced scan over
    ``SCALE_LOW..SCALE_HIGH``, refined by golden-section search between its neighbours."""
    grid = np.geomspace(SCALE_LOW, SCALE_HIGH, SCALE_GRID)
    errors = [mean_squared_error(features, target, weights, k) for k in grid]
    best = int(np.argmin(errors))
    low, high = grid[max(0, best - 1)], grid[min(SCALE_GRID - 1, best + 1)]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = low + (1 - ratio) * (high - low), low + ratio * (high - low)
    error_a = mean_squared_error(features, target, weights, a)
    error_b = mean_squared_error(features, target, weights, b)
    while high - low > tolerance * max(1.0, abs(low)):
        if error_a <= error_b:
            high, b, error_b = b, a, error_a
            a = low + (1 - ratio) * (high - low)
            error_a = mean_squared_error(features, target, weights, a)
        else:
            low, a, error_a = a, b, error_b
            b = low + ratio * (high - low)
            error_b = mean_squared_error(features, target, weights, b)
    return float((low + high) / 2)


def trainable_mask(fixed: tuple[str, ...], features: tuple[str, ...] = FEATURES) -> np.ndarray:
    """True for the ``features`` (a game's, the default game's unless told) whose weights tuning
    may change: those not in ``fixed``."""
    unknown = [name for name in fixed if name not in features]
    if unknown:
        raise ValueError(
            f"unknown feature(s) {', '.join(unknown)}; the features are {', '.join(features)}"
        )
    return np.array([name not in fixed for name in features])


def descend(
    features: SparseFeatures,
    target: np.ndarray,
    weights: np.ndarray,
    k: float,
    iterations: int,
    learning_rate: float,
    trainable: np.ndarray,
    optimizer: str = "adam",
    report: Callable[[int, float, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Full-batch descent on the mean squared error from ``weights`` (not changed); return the
    new weights. ``report(iteration, error before the step, weights)`` is called every step.

    ``optimizer`` is ``"adam"`` (steps of about ``learning_rate`` per weight, whatever the
    feature's size) or ``"gd"`` (``weights -= learning_rate * gradient``).
    """
    if optimizer not in ("adam", "gd"):
        raise ValueError(f"the optimizer is adam or gd, not {optimizer!r}")
    weights = np.array(weights, dtype=np.float64)
    m = np.zeros_like(weights)
    v = np.zeros_like(weights)
    for step in range(1, iterations + 1):
        error, grad = error_gradient(features, target, weights, k)
        grad[~trainable] = 0.0
        if report is not None:
            report(step, error, weights)
        if optimizer == "gd":
            weights -= learning_rate * grad
            continue
        m = ADAM_BETA1 * m + (1 - ADAM_BETA1) * grad
        v = ADAM_BETA2 * v + (1 - ADAM_BETA2) * grad * grad
        m_hat = m / (1 - ADAM_BETA1**step)
        v_hat = v / (1 - ADAM_BETA2**step)
        weights -= learning_rate * m_hat / (np.sqrt(v_hat) + ADAM_EPSILON)
    return weights


@dataclass(frozen=True)
class TuneResult:
    weights: np.ndarray  # the tuned weights
    start: np.ndarray  # the weights tuning started from
    k: float  # the sigmoid's scale, per unit (a sheep, a man)
    errors: dict[str, dict[str, float]]  # {"mean result"|"start"|"tuned": {"train", "validation"}}
    train_positions: int
    validation_positions: int
    train_games: int
    validation_games: int
    match: dict | None = None  # the final match, tuned against start (None: not played)


def _targets(config: TuneConfig, data, k: float, log: Callable[[str], None]) -> np.ndarray:
    """Every row's target in 0..1 from the label source, the tablebase's where it knows."""
    from . import labels

    if config.label == "result":
        target = result_targets(data.results, tuning_game(config.game).max_points)
    elif config.label == "search":
        started = time.perf_counter()
        scores = labels.search_scores(config.game, config.label_player, data.states)
        target = labels.squash(scores, k)
        log(
            f"search labels by {config.label_player}: {len(scores):,} positions in "
            f"{time.perf_counter() - started:.0f} s"
        )
    else:
        target = labels.rollout_targets(
            config.game, config.label_player, data.states, config.rollouts, config.seed
        )
        log(f"rollout labels: {config.rollouts} games a position by {config.label_player}")
    if config.tablebase is not None:
        known, exact = labels.tablebase_targets(config.tablebase, data.states, config.game)
        target = np.where(known, exact, target)
        log(f"tablebase values for {known.sum():,} positions with the hand empty")
    return target


def tune(config: TuneConfig, log: Callable[[str], None] = print) -> TuneResult:
    """Load the data, split it by game, label it, fit ``K``, descend, write the tuned weights,
    and play them against the start weights."""
    from samuel.files import save_or_keep

    from .dataset import load_many, seen_in, split_by_game, unique_positions

    game = tuning_game(config.game)
    if config.workers is not None:
        numba.set_num_threads(min(config.workers, numba.config.NUMBA_NUM_THREADS))
    data = load_many(config.data, config.game)
    _check_match_openings(config, data.config["parts"])
    start = game.load_weights(config.start)
    width = len(game.weights) if config.tables else len(game.features)
    start = np.concatenate([start, np.zeros(width - len(start))])[:width]
    if np.any(start[len(game.features) :]) and not config.tables:
        log("the start's tables are left out (--no-tables)")
    held_out = split_by_game(data.games, config.validation, config.seed)
    train_games = len(np.unique(data.games[~held_out]))
    valid_games = len(np.unique(data.games[held_out]))
    # K first, on the games' results with the start weights: it converts the evaluation's units
    # into odds, which the search labels are squashed by.
    results = result_targets(data.results, game.max_points)
    named = sparse_features(data.states[~held_out], config.game, config.tables)
    k = fit_scale(named, results[~held_out], start)
    log(
        f"sigmoid scale K = {_scale_text(k, game, start)} (fitted on the training games' "
        f"{'results' if game.max_points == 1 else 'points'}, start weights)"
    )
    target = _targets(config, data, k, log)
    if config.label != "search" and (config.label == "rollout" or config.tablebase is not None):
        # K again, on what is fitted now: exact values are surer than results. Never for search
        # labels: they are scores squashed by this K, and a new one would rescale the weights
        # against the unit (a K half as large doubles every fitted weight but the unit's).
        k = fit_scale(named, target[~held_out], start)
        log(f"sigmoid scale K = {_scale_text(k, game, start)} on the labels")
    train_states, train_y = data.states[~held_out], target[~held_out]
    valid_states, valid_y = data.states[held_out], target[held_out]
    if config.deduplicate:
        rows = len(data)
        train_states, train_y = unique_positions(train_states, train_y)
        valid_states, valid_y = unique_positions(valid_states, valid_y)
        fresh = ~seen_in(valid_states, train_states)  # validate on positions never trained on
        valid_states, valid_y = valid_states[fresh], valid_y[fresh]
        log(
            f"{rows:,} rows, {len(train_states) + len(valid_states):,} distinct positions "
            "(validation positions also met in training games left out)"
        )
    train = sparse_features(train_states, config.game, config.tables)
    valid = sparse_features(valid_states, config.game, config.tables)
    log(
        f"{len(train):,} positions from {train_games} games to train on, {len(valid):,} from "
        f"{valid_games} other games to validate on; {len(train.index) / max(1, len(train)):.1f} "
        "non-zero features a position"
    )

    def errors(weights: np.ndarray) -> dict[str, float]:
        return {
            "train": mean_squared_error(train, train_y, weights, k),
            "validation": mean_squared_error(valid, valid_y, weights, k),
        }

    mean = float(train_y.mean())
    baseline = {
        "train": float(np.mean((train_y - mean) ** 2)),
        "validation": float(np.mean((valid_y - mean) ** 2)),
    }
    table = {"mean result": baseline, "start": errors(start)}
    log(
        f"baseline errors  train {baseline['train']:.5f}  validation {baseline['validation']:.5f}"
        f"  (always predicting the mean target, {mean:.3f})"
    )
    log(
        f"start weights    train {table['start']['train']:.5f}  validation "
        f"{table['start']['validation']:.5f}"
    )
    every = max(1, config.iterations // 10)

    def report(step: int, error: float, weights: np.ndarray) -> None:
        if step == 1 or step % every == 0:
            log(
                f"  step {step:6d}  train {error:.5f}  validation "
                f"{mean_squared_error(valid, valid_y, weights, k):.5f}"
            )

    started = time.perf_counter()
    weights = descend(
        train,
        train_y,
        start,
        k,
        config.iterations,
        config.learning_rate,
        trainable_mask(config.fixed, game.weights[:width]),
        config.optimizer,
        report,
    )
    seconds = time.perf_counter() - started
    table["tuned"] = errors(weights)
    log(
        f"tuned weights    train {table['tuned']['train']:.5f}  validation "
        f"{table['tuned']['validation']:.5f}  ({config.iterations} steps in {seconds:.1f} s, "
        f"validation errors included)"
    )
    if config.tablebase is not None:
        table["tablebase"] = _tablebase_errors(config, valid_states, valid, start, weights, k, log)
    for name, before, after in zip(game.features, start, weights, strict=False):
        log(f"  {name:20s} {before:+9.4f} -> {after:+9.4f}")
    if config.tables and game.tables is not None:  # long nardy's evaluation has none
        _log_tables(game, weights, log)
    record = {
        "method": "gradient",
        "config": dataclasses.asdict(config),
        "k": k,
        "errors": table,
        "positions": {"train": len(train), "validation": len(valid)},
        "games": {"train": train_games, "validation": valid_games},
    }

    def save(path) -> None:
        game.save_weights(
            weights,
            path,
            note=f"gradient-tuned by samuel tune on {', '.join(config.data)}",
            extra={"tuning": record},
        )

    # The descent may have taken minutes: weights that cannot be written are kept elsewhere.
    save_or_keep(config.out, "tuned weights", save)
    written = config.out
    log(f"tuned weights written to {written} (play them: classic:weights={written})")
    match = None
    if config.match_games:
        from .final_match import play_final_match

        match = play_final_match(config, written, log)
        record["match"] = match
        save_or_keep(written, "tuned weights", save)
    result = TuneResult(
        weights, start, k, table, len(train), len(valid), train_games, valid_games, match
    )
    return result


def _scale_text(k: float, game, start: np.ndarray) -> str:
    """``K`` as the log says it: per unit. Where the unit's weight is not 1 (long nardy's pip
    weighs 0.012 in the tanh's units) the evaluation is in other units than the unit: both."""
    unit_weight = float(start[game.features.index(game.unit)])
    if unit_weight == 1.0:
        return f"{k:.4f} per {game.unit_name}"
    return f"{k:.4f} on the weighted sum ({k * unit_weight:.5f} per {game.unit_name})"


def _check_match_openings(config: TuneConfig, parts: list[dict]) -> None:
    """Refuse a final match whose openings are as long as some data set's random openings (in
    a game with dice, the match's own dice keep its games apart: any length)."""
    from samuel.errors import CommandError

    if not config.match_games or tuning_game(config.game).dice:
        return
    for part in parts:
        plies = part.get("random_plies")
        if plies is None:
            continue
        # In a game where only the side to move keeps openings of different lengths apart
        # (draughts; as in hill climbing's final match), the lengths must differ in parity.
        parity = tuning_game(config.game).openings_by_parity
        difference = plies - config.match_opening_plies
        if (difference % 2 == 0) if parity else difference == 0:
            raise CommandError(
                f"the final match's openings ({config.match_opening_plies} plies) must differ in "
                f"length{' by an odd number of plies' if parity else ''} from "
                f"the data's random openings ({part.get('file', 'a data set')}): then they are "
                "not the openings the data was made from"
            )


def _tablebase_errors(config, states, features, start, weights, k, log) -> dict[str, float]:
    """The error against the tablebase's exact values on the validation positions it holds."""
    from .labels import tablebase_targets

    known, exact = tablebase_targets(config.tablebase, states, config.game)
    if not known.any():
        log("no validation position has the hand empty: no tablebase error")
        return {}
    held = features.subset(known)
    before = mean_squared_error(held, exact[known], start, k)
    after = mean_squared_error(held, exact[known], weights, k)
    log(
        f"against the tablebase ({known.sum():,} validation positions with the hand empty): "
        f"start {before:.5f}, tuned {after:.5f}"
    )
    return {"positions": int(known.sum()), "start": before, "tuned": after}


def _log_tables(game, weights: np.ndarray, log: Callable[[str], None]) -> None:
    """Each table's range, one line a kind and phase."""
    tables = game.tables
    grid = weights[len(game.features) :].reshape(
        len(tables.kinds), tables.squares, len(tables.phases)
    )
    for k, kind in enumerate(tables.kinds):
        for h, phase in enumerate(tables.phases):
            row = grid[k, :, h]
            log(f"  {kind} {phase:8s} table from {row.min():+.3f} to {row.max():+.3f}")
