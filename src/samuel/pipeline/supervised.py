"""Stage 3 of the production loop: supervised training of the network on rollout labels.

The network (:mod:`samuel.evaluation.networks`) starts from a copy of the champion's parameters
and is trained with Adam (:mod:`samuel.train.trainer`: shuffled batches, each position in a random
one of its game's symmetric orientations) to bring its value of each stored position close to the
position's label. Everything is in the first player's view, in -1..1, as in :mod:`samuel.train`.

**Losses.** The trainer's kernels minimise ``(value - target)^2 / 2``; every figure this module
reports is the plain mean squared error, ``mean((value - target)^2)`` (twice the trainer's loss),
measured with the parameters held fixed (no augmentation, each position as it is).

**Validation split by game.** Positions of one game are alike (neighbouring positions share most
of their pieces and their label's future), so a random split by position would let the network be
judged on near-copies of what it trained on. :func:`split_by_group` holds out a random
``validation`` share of the *groups* (games): every position of a group lies on one side. A group
of -1 means "no game" (a random or expert position): each such position is a group of its own.

**Early stopping.** After each epoch the validation MSE is measured (and the training MSE, on
the whole training side or on a fixed random sample of ``TRAIN_MSE_SAMPLE`` of its positions);
training stops after ``patience`` epochs without a better validation MSE, or after ``epochs``,
and the parameters of the best epoch are returned (so the report's ``validation_mse`` is the
least of its ``history``). The start itself is not a candidate: if no epoch beats it, the best
epoch is still returned, and the report's ``baselines["start"]`` shows it (gating decides).

**Baselines** beside the result, each the validation MSE of a predictor fitted on the training
side only: ``constant``, the training targets' mean; ``classic``, the game's classic evaluation
squashed, ``tanh(a * score)`` with the scale ``a`` fitted by a 1-D search (a log grid, then
golden-section search; the report's ``classic_scale``); ``start``, the starting network.

**Per-sample weights** (optional, e.g. ``1 / stderr^2`` capped) weigh the training only: each
epoch draws its positions from the training side with replacement, with probabilities
proportional to the weights (the existing kernels take no weights; in expectation this is the
weighted MSE). The validation MSE, early stopping and every baseline stay unweighted.

**The moves-left head** (:mod:`samuel.nn.network`): a starting network that has it (or a config
with ``moves_left``, which gives a network without it a fresh head, its seed derived from the
config's) is trained on the plies targets too (``plies_left``: the plies each position's games
lasted, NaN where none is known), the Huber plies loss weighted by ``moves_left_weight`` against
the value loss (:func:`samuel.train.trainer.train_epoch`). Early stopping still watches the value
alone (what the gate plays with); the report gives the head's mean absolute error in plies on
the validation side (:func:`samuel.train.trainer.plies_error`) at the start and for the returned
epoch. A value-only network trains exactly as before.

**Outcome labels** (a game with dice: ``outcomes``, each position's six chances from rollouts
over dice, and ``targets`` its equity in points): the network's outcome head learns them (the
trainer's cross-entropy against the rollouts' means), and every MSE above is the mean squared
error of the six chances, ``mean((chance - label)^2)`` over positions and chances. The constant
baseline predicts the training side's mean chances; there is no classic baseline (a classic score
says nothing of gammons).

**Reproducible:** the split and the training draw their random numbers from the config's seed
only (:func:`samuel.seeds.derive_seed`), and the gradient kernels give the same sums on any
number of threads, so the same inputs and seed give bit-identical weights.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np

from samuel.evaluation import networks
from samuel.games import kernels as games
from samuel.nn.batches import batch_loss
from samuel.nn.network import NO_PLIES
from samuel.nn.shape import with_plies_head
from samuel.progress import progress_bar
from samuel.seeds import derive_seed
from samuel.train.buffer import Samples
from samuel.train.loop import TrainingDiverged
from samuel.train.trainer import MOVES_LEFT_WEIGHT, Adam, encode, plies_error, train_epoch

SPLIT_STREAM = 0x5C9117  # keeps the split's random numbers apart from everything else
TRAIN_STREAM = 0x5C9118  # the training's: shuffling, orientations, weighted draws
MEASURE_STREAM = 0x5C9119  # the training side's sample for the history's training MSE
HEAD_STREAM = 0x5C911A  # a fresh moves-left head's weights (config.moves_left)
PHASE_STREAM = 0x5C911B  # a phase's own seed, when each phase has its network
# The history's training MSE is measured on at most this many training positions (a fixed
# random sample; all of them if fewer): a forward pass over all of a large training side would
# cost about half an epoch, every epoch.
TRAIN_MSE_SAMPLE = 1 << 16
EVAL_CHUNK = 1 << 16  # positions encoded at once to measure an MSE (bounded memory)
NO_GROUP = -1  # a position from no game: a group of its own
OUTCOMES = 6  # a game with dice's outcome chances: P(win by >= 1, 2, 3 points), the same lost
# The classic baseline's scale search: a = 0 and a log grid, then golden-section search.
CLASSIC_GRID = np.concatenate([[0.0], np.logspace(-3.0, 2.0, 41)])
GOLDEN_STEPS = 40


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _is_number(value) -> bool:
    return (_is_int(value) or isinstance(value, float | np.floating)) and math.isfinite(value)


@dataclass(frozen=True)
class SupervisedConfig:
    """How to train; saved with the model (:meth:`to_json`)."""

    epochs: int = 40  # the most
    batch_size: int = 256
    learning_rate: float = 1e-3
    patience: int = 4  # stop after this many epochs without a better validation MSE
    validation: float = 0.1  # share of games (groups) held out for validation
    seed: int = 0
    # The plies loss's weight against the value loss, when the network has the moves-left head
    # (lc0's 0.1: the head learns without pulling the shared layers away from the value).
    moves_left_weight: float = MOVES_LEFT_WEIGHT
    moves_left: bool = False  # give a start without the moves-left head a fresh one

    def __post_init__(self) -> None:
        for name, least in (("epochs", 1), ("batch_size", 1), ("patience", 1)):
            value = getattr(self, name)
            if not _is_int(value) or value < least:
                raise ValueError(f"{name} must be an integer of at least {least}, not {value!r}")
        if not _is_number(self.learning_rate) or self.learning_rate <= 0:
            raise ValueError(
                f"learning_rate must be a finite number above 0, not {self.learning_rate!r}"
            )
        if not _is_number(self.validation) or not 0.0 < self.validation < 1.0:
            raise ValueError(
                f"validation (the share of games held out) must be between 0 and 1, "
                f"not {self.validation!r}"
            )
        if not _is_int(self.seed):
            raise ValueError(f"seed must be an integer, not {self.seed!r}")
        if not _is_number(self.moves_left_weight) or self.moves_left_weight < 0:
            raise ValueError(
                f"moves_left_weight must be a finite number of at least 0, "
                f"not {self.moves_left_weight!r}"
            )
        if not isinstance(self.moves_left, bool | np.bool_):
            raise ValueError(f"moves_left must be True or False, not {self.moves_left!r}")

    def to_json(self) -> dict:
        """The config as a JSON-able dict."""
        return {
            "epochs": int(self.epochs),
            "batch_size": int(self.batch_size),
            "learning_rate": float(self.learning_rate),
            "patience": int(self.patience),
            "validation": float(self.validation),
            "seed": int(self.seed),
            "moves_left_weight": float(self.moves_left_weight),
            "moves_left": bool(self.moves_left),
        }

    @staticmethod
    def from_json(data: dict | str) -> SupervisedConfig:
        """The config from :meth:`to_json`'s dict (or its JSON text); missing keys take their
        defaults, unknown ones are refused."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as error:
                raise ValueError(f"a supervised config is JSON: {error}") from None
        if not isinstance(data, dict):
            raise ValueError(f"a supervised config is a JSON object, not {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(SupervisedConfig)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown supervised config key(s): {', '.join(map(str, unknown))}; "
                f"the keys are: {', '.join(sorted(known))}"
            )
        return SupervisedConfig(**data)


@dataclass(frozen=True)
class SupervisedReport:
    """What a training did: the training data summary and config the model registry stores
    (:meth:`to_json`). Every MSE is ``mean((value - target)^2)`` on the validation side unless
    named otherwise."""

    game: int  # the games.kernels number
    train_positions: int
    validation_positions: int
    train_groups: int
    validation_groups: int
    epochs_run: int
    best_epoch: int  # 1-based: the epoch whose parameters were returned
    # (train MSE, validation MSE) after each epoch; the train MSE on at most TRAIN_MSE_SAMPLE
    history: list[tuple[float, float]]
    validation_mse: float  # the returned network's: min of the history's validation MSEs
    baselines: dict[str, float]  # "constant", "classic", "start": their validation MSE
    classic_scale: float | None  # the classic baseline's a in tanh(a * classic score)
    target_mean: float  # the training targets' mean (the constant baseline)
    weighted: bool  # trained with per-sample weights (by weighted draws)
    seconds: float  # wall time of the epochs (training and measuring)
    config: SupervisedConfig = field(default_factory=SupervisedConfig)
    # The moves-left head (None without it): the mean absolute error in plies on the validation
    # positions with a plies target (how many: plies_validation), at the start (a fresh head's
    # too) and of the returned network; None also where no validation position has a target.
    moves_left: bool = False  # the network trained (and returned) has the head
    plies_validation: int = 0
    plies_error_start: float | None = None
    plies_error: float | None = None
    outcomes: bool = False  # trained on six outcome chances: every MSE is theirs (docstring)

    @property
    def stopped_early(self) -> bool:
        return self.epochs_run < self.config.epochs

    def to_json(self) -> dict:
        return {
            "game": int(self.game),
            "train_positions": int(self.train_positions),
            "validation_positions": int(self.validation_positions),
            "train_groups": int(self.train_groups),
            "validation_groups": int(self.validation_groups),
            "epochs_run": int(self.epochs_run),
            "best_epoch": int(self.best_epoch),
            "history": [[float(t), float(v)] for t, v in self.history],
            "validation_mse": float(self.validation_mse),
            "baselines": {name: float(value) for name, value in self.baselines.items()},
            "classic_scale": _optional(self.classic_scale),
            "target_mean": float(self.target_mean),
            "weighted": bool(self.weighted),
            "seconds": float(self.seconds),
            "config": self.config.to_json(),
            "moves_left": bool(self.moves_left),
            "plies_validation": int(self.plies_validation),
            "plies_error_start": _optional(self.plies_error_start),
            "plies_error": _optional(self.plies_error),
            "outcomes": bool(self.outcomes),
        }

    @staticmethod
    def from_json(data: dict) -> SupervisedReport:
        values = dict(data)
        values["history"] = [(float(t), float(v)) for t, v in values["history"]]
        values["config"] = SupervisedConfig.from_json(values["config"])
        return SupervisedReport(**values)


def _optional(value: float | None) -> float | None:
    """A float for JSON, None for none (JSON has no NaN: PostgreSQL refuses it)."""
    return None if value is None or not math.isfinite(value) else float(value)


# --- checks (every array is checked before any kernel reads it) --------------------------------


def _game_name(game: int) -> str:
    """The registry name of the game numbered ``game`` (variants included)."""
    from .sources import game_name

    return game_name(game)


def _checked_states(game: int, states) -> np.ndarray:
    """The states as contiguous int64 rows of the game's words; a ValueError naming the first bad
    row of any that is not a position. Rows may be the game's ``state_words`` or the common
    ``STATE_SIZE`` words (the words past the game's then 0)."""
    from samuel.games.states import STATE_PROBLEMS

    words = games.compiled_game(game).state_words
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] not in (words, games.STATE_SIZE):
        raise ValueError(
            f"states are rows of {words} (or {games.STATE_SIZE}) integers, "
            f"not an array of shape {states.shape}"
        )
    if states.dtype.kind not in "iu":
        raise ValueError(f"states are integers, not {states.dtype}")
    if states.shape[1] > words and (states[:, words:] != 0).any():
        row = int(np.argmax((states[:, words:] != 0).any(axis=1)))
        raise ValueError(f"states row {row} has non-zero words past the game's {words}")
    states = np.ascontiguousarray(states[:, :words], dtype=np.int64)
    problem = STATE_PROBLEMS[_game_name(game)](states)
    if problem is not None:
        raise ValueError(problem)
    return states


def _checked_vector(name: str, values, n: int) -> np.ndarray:
    values = np.asarray(values)
    if values.shape != (n,):
        raise ValueError(f"{name} must have one entry per state ({n}), not shape {values.shape}")
    return values


def _checked_targets(targets, n: int, most: float = 1.0) -> np.ndarray:
    targets = _checked_vector("targets", targets, n)
    if targets.dtype.kind not in "iuf":
        raise ValueError(f"targets are numbers, not {targets.dtype}")
    targets = targets.astype(np.float64)
    bad = ~(np.abs(targets) <= most)  # NaN too
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"targets row {row} is {targets[row]}: a target is a finite value in "
            f"-{most:g}..{most:g} (the first player's view)"
        )
    return targets


def _checked_outcomes(outcomes, n: int) -> np.ndarray:
    """Six chances a position, each in 0..1 (the first player's view), as float32."""
    outcomes = np.asarray(outcomes)
    if outcomes.shape != (n, OUTCOMES) or outcomes.dtype.kind != "f":
        raise ValueError(
            f"outcomes are ({n}, {OUTCOMES}) chances, not {outcomes.dtype} {outcomes.shape}"
        )
    bad = ~((outcomes >= 0.0) & (outcomes <= 1.0)).all(axis=1)  # NaN too
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"outcomes row {row} is not six chances in 0..1: {outcomes[row]}")
    return np.ascontiguousarray(outcomes, dtype=np.float32)


def _checked_groups(groups, n: int | None = None) -> np.ndarray:
    groups = np.asarray(groups)
    if n is not None:
        groups = _checked_vector("groups", groups, n)
    elif groups.ndim != 1:
        raise ValueError(f"groups are a 1-D array of integers, not shape {groups.shape}")
    if groups.dtype.kind not in "iu" or groups.dtype == np.uint64:
        raise ValueError(f"groups are integers (game numbers, -1 for none), not {groups.dtype}")
    groups = groups.astype(np.int64)
    bad = groups < NO_GROUP
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"groups row {row} is {groups[row]}: a group is a game's number (0 or more) "
            "or -1 for a position of no game"
        )
    return groups


def _checked_plies(plies, n: int) -> np.ndarray:
    """The plies-left targets as the trainer takes them: float32, ``NO_PLIES`` for none (NaN or
    ``NO_PLIES`` given), the rest finite and at least 0."""
    plies = _checked_vector("plies_left", plies, n)
    if plies.dtype.kind not in "iuf":
        raise ValueError(f"plies_left are numbers, not {plies.dtype}")
    plies = plies.astype(np.float64)
    none = np.isnan(plies) | (plies == NO_PLIES)
    bad = ~none & ~(np.isfinite(plies) & (plies >= 0))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"plies_left row {row} is {plies[row]}: plies left are at least 0 (NaN for none)"
        )
    return np.where(none, NO_PLIES, plies).astype(np.float32)


def _checked_weights(weights, n: int) -> np.ndarray:
    weights = _checked_vector("weights", weights, n)
    if weights.dtype.kind not in "iuf":
        raise ValueError(f"weights are numbers, not {weights.dtype}")
    weights = weights.astype(np.float64)
    bad = ~(np.isfinite(weights) & (weights >= 0))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"weights row {row} is {weights[row]}: a weight is finite and >= 0")
    return weights


def _checked_params(game: int, params) -> np.ndarray:
    """A copy of the game's network (with the moves-left head or not) as float32."""
    params = np.asarray(params)
    networks.check_network(params, game)
    if params.dtype.kind != "f" or not np.isfinite(params).all():
        raise ValueError("the starting network's parameters must be finite floating-point numbers")
    return np.array(params, dtype=np.float32)  # a copy: the champion's array is never changed


# --- the split ------------------------------------------------------------------------------


def _group_keys(groups: np.ndarray) -> np.ndarray:
    """Each position's group, with every -1 turned into a group of its own (numbers past the
    largest game number)."""
    keys = groups.copy()
    loose = keys == NO_GROUP
    first = int(keys.max()) + 1 if len(keys) else 0
    keys[loose] = first + np.arange(int(loose.sum()), dtype=np.int64)
    return keys


def split_by_group(groups: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The indices ``(train, validation)`` (sorted int64) of a split that holds out every
    position of a random ``fraction`` of the groups (rounded, at least one group and at least one
    left to train on); a position of group -1 is a group of its own. Which groups are held out
    depends on the seed and the set of group numbers only. A ValueError for fewer than two groups
    (a side would be empty)."""
    if not _is_number(fraction) or not 0.0 < fraction < 1.0:
        raise ValueError(f"the validation share must be between 0 and 1, not {fraction!r}")
    if not _is_int(seed):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    keys = _group_keys(_checked_groups(groups))
    ids = np.unique(keys)
    if len(ids) < 2:
        raise ValueError(
            f"splitting by game needs positions of at least two games (groups), not {len(ids)}: "
            "the training or the validation side would be empty"
        )
    count = min(len(ids) - 1, max(1, round(fraction * len(ids))))
    rng = np.random.default_rng(derive_seed(int(seed), SPLIT_STREAM))
    held_out = rng.permutation(ids)[:count]
    validation = np.isin(keys, held_out)
    return np.flatnonzero(~validation), np.flatnonzero(validation)


# --- measuring --------------------------------------------------------------------------------


def _mse(game: int, params: np.ndarray, states: np.ndarray, targets: np.ndarray) -> float:
    """``mean((value - target)^2)`` of checked arrays, encoded a chunk at a time."""
    n = len(targets)
    if n == 0:
        return float("nan")
    total = 0.0
    for start in range(0, n, EVAL_CHUNK):
        part = slice(start, start + EVAL_CHUNK)
        e = encode(game, Samples(states[part], targets[part]))
        total += batch_loss(params, e.active, e.values, e.counts, e.targets)
    return 2.0 * total / n


def _outcome_mse(game: int, params: np.ndarray, states: np.ndarray, outcomes: np.ndarray) -> float:
    """``mean((chance - label)^2)`` over positions and their six chances, checked arrays."""
    from samuel.train.dice_rollouts import leaf_outcomes

    if len(states) == 0:
        return float("nan")
    total = 0.0
    for start in range(0, len(states), EVAL_CHUNK):
        part = slice(start, start + EVAL_CHUNK)
        chances = leaf_outcomes(game, games.EVALUATOR_NETWORK, params, states[part])
        total += float(((chances - outcomes[part]) ** 2).sum())
    return total / (len(states) * OUTCOMES)


def network_mse(game: int, params: np.ndarray, states: np.ndarray, targets: np.ndarray) -> float:
    """The network's ``mean((value - target)^2)`` on the positions (targets in the first
    player's view): exactly what :func:`train_supervised`'s history measures."""
    states = _checked_states(game, states)
    targets = _checked_targets(targets, len(states)).astype(np.float32)
    if len(states) == 0:
        raise ValueError("there are no positions to measure")
    params = _checked_params(game, params)
    return _mse(game, params, states, targets)


def classic_scores(game: int, states: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The classic evaluation's score of each position (the first player's view, in the game's
    unit), float64: its compiled features times the weights (default: the game's own)."""
    return _classic_scores(game, _checked_states(game, states), weights)


def _classic_scores(game: int, states: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    from samuel.games import get_game
    from samuel.tune.gradient import dense_features

    name = _game_name(game)
    if weights is None:
        weights = get_game(name).classic_weights()
    weights = np.asarray(weights, dtype=np.float64)
    features = dense_features(states, name)  # checks the states again, before its kernel
    if weights.shape != (features.shape[1],):
        raise ValueError(f"expected {features.shape[1]} classic weights, not {weights.shape}")
    return features.astype(np.float64) @ weights


def _squashed_mse(scale: float, scores: np.ndarray, targets: np.ndarray) -> float:
    return float(np.mean((np.tanh(scale * scores) - targets) ** 2))


def fit_classic_scale(scores: np.ndarray, targets: np.ndarray) -> float:
    """The ``a >= 0`` that makes ``tanh(a * score)`` closest to the targets (least MSE): the best
    of a log grid (and 0), then golden-section search between its neighbours."""
    errors = [_squashed_mse(a, scores, targets) for a in CLASSIC_GRID]
    best = int(np.argmin(errors))
    low = CLASSIC_GRID[max(0, best - 1)]
    high = CLASSIC_GRID[min(len(CLASSIC_GRID) - 1, best + 1)]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = _squashed_mse(a, scores, targets), _squashed_mse(b, scores, targets)
    for _ in range(GOLDEN_STEPS):
        if fa <= fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = _squashed_mse(a, scores, targets)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = _squashed_mse(b, scores, targets)
    found = a if fa <= fb else b
    # The search stays between the grid's neighbours; keep the grid's point if it is better.
    if errors[best] < _squashed_mse(found, scores, targets):
        return float(CLASSIC_GRID[best])
    return float(found)


# --- training ---------------------------------------------------------------------------------


def train_supervised(
    game: int,
    params: np.ndarray,
    states: np.ndarray,
    targets: np.ndarray,
    groups: np.ndarray,
    config: SupervisedConfig,
    weights: np.ndarray | None = None,
    progress: bool = False,
    plies_left: np.ndarray | None = None,
    outcomes: np.ndarray | None = None,
) -> tuple[np.ndarray, SupervisedReport]:
    """Train a copy of ``params`` (the champion) on the labelled positions, as the module says;
    return the best epoch's parameters and the report.

    ``states``: the kernels' int64 rows; ``targets``: labels in -1..1, the first player's view;
    ``groups``: each position's game (-1: none); ``weights``: optional per-sample weights (>= 0)
    for the training draws; ``plies_left``: optional plies-left targets for the moves-left head
    (NaN or ``NO_PLIES`` for none); ``outcomes``: a game with dice's six chances a position (the
    module docstring; ``targets`` are then equities in points). Every array is checked first (a
    ValueError says what is wrong); :class:`~samuel.train.loop.TrainingDiverged` if the
    parameters stop being finite."""
    if not isinstance(config, SupervisedConfig):
        raise ValueError(f"config must be a SupervisedConfig, not {type(config).__name__}")
    states = _checked_states(game, states)
    n = len(states)
    if n == 0:
        raise ValueError("there are no positions to train on")
    chances = None if outcomes is None else _checked_outcomes(outcomes, n)
    targets = _checked_targets(targets, n, 1.0 if chances is None else float(OUTCOMES // 2))
    groups = _checked_groups(groups, n)
    if weights is not None:
        weights = _checked_weights(weights, n)
    if plies_left is None:
        plies = np.full(n, NO_PLIES, np.float32)
    else:
        plies = _checked_plies(plies_left, n)
    start = _checked_params(game, params)
    if config.moves_left:
        start = with_plies_head(start, derive_seed(int(config.seed), HEAD_STREAM))
    head = networks.has_moves_left(start, game)

    train, validation = split_by_group(groups, config.validation, config.seed)
    keys = _group_keys(groups)
    if weights is not None:
        train_weights = weights[train]
        if not train_weights.sum() > 0:
            raise ValueError("every training position has weight 0: there is nothing to train on")
        draw = train_weights / train_weights.sum()
    # A network valued by its outcomes learns the chances; its value targets (the equity
    # scaled into -1..1) reach only a value head, which such a network has not.
    targets32 = (targets if chances is None else targets / (OUTCOMES // 2)).astype(np.float32)
    train_samples = Samples(
        states[train], targets32[train], plies[train], None if chances is None else chances[train]
    )
    valid_states, valid_targets = states[validation], targets32[validation]
    if chances is not None:  # what the MSEs measure: the chances
        valid_targets = chances[validation]
    valid_plies = Samples(states[validation], targets32[validation], plies[validation])
    plies_validation = int((valid_plies.plies != NO_PLIES).sum()) if head else 0
    measured_targets = train_samples.targets if chances is None else train_samples.outcomes
    measured_states = train_samples.states
    if len(train) > TRAIN_MSE_SAMPLE:
        sample = np.random.default_rng(derive_seed(int(config.seed), MEASURE_STREAM))
        measured = np.sort(sample.choice(len(train), size=TRAIN_MSE_SAMPLE, replace=False))
        measured_states, measured_targets = measured_states[measured], measured_targets[measured]

    def measure(params: np.ndarray, states: np.ndarray, wanted: np.ndarray) -> float:
        if chances is None:
            return _mse(game, params, states, wanted)
        return _outcome_mse(game, params, states, wanted)

    # Baselines, fitted on the training side, measured on the validation side.
    target_mean = float(np.mean(targets[train]))
    if chances is None:
        scores = _classic_scores(game, states, None)
        scale = fit_classic_scale(scores[train], targets[train])
        baselines = {
            "constant": float(np.mean((target_mean - targets[validation]) ** 2)),
            "classic": _squashed_mse(scale, scores[validation], targets[validation]),
        }
    else:
        scale = None
        mean_chances = chances[train].astype(np.float64).mean(axis=0)
        baselines = {"constant": float(np.mean((mean_chances - valid_targets) ** 2))}
    baselines["start"] = measure(start, valid_states, valid_targets)

    rng = np.random.default_rng(derive_seed(int(config.seed), TRAIN_STREAM))
    current = start.copy()
    adam = Adam(len(current))
    history: list[tuple[float, float]] = []
    best_mse, best_params, best_epoch, waited = math.inf, current.copy(), 0, 0
    began = time.perf_counter()
    with progress_bar(config.epochs, "supervised training", progress, unit="epoch") as bar:
        for epoch in range(1, config.epochs + 1):
            if weights is None:
                epoch_samples = train_samples
            else:
                epoch_samples = train_samples.take(rng.choice(len(train), size=len(train), p=draw))
            train_epoch(
                game,
                current,
                adam,
                epoch_samples,
                config.batch_size,
                config.learning_rate,
                rng,
                config.moves_left_weight,
            )
            if not np.isfinite(current).all():
                raise TrainingDiverged(
                    f"epoch {epoch} left parameters that are not finite "
                    f"(try a learning rate below {config.learning_rate})"
                )
            train_mse = measure(current, measured_states, measured_targets)
            valid_mse = measure(current, valid_states, valid_targets)
            history.append((train_mse, valid_mse))
            if valid_mse < best_mse:
                best_mse, best_params, best_epoch, waited = valid_mse, current.copy(), epoch, 0
            else:
                waited += 1
            bar.update(1)
            bar.set_postfix_str(f"validation MSE {valid_mse:.4f} (best {best_mse:.4f})")
            if waited >= config.patience:
                break
    seconds = time.perf_counter() - began
    errors = (None, None)
    if plies_validation:
        errors = tuple(plies_error(game, p, valid_plies) for p in (start, best_params))

    report = SupervisedReport(
        game=int(game),
        train_positions=len(train),
        validation_positions=len(validation),
        train_groups=len(np.unique(keys[train])),
        validation_groups=len(np.unique(keys[validation])),
        epochs_run=len(history),
        best_epoch=best_epoch,
        history=history,
        validation_mse=best_mse,
        baselines=baselines,
        classic_scale=scale,
        target_mean=target_mean,
        weighted=weights is not None,
        seconds=seconds,
        config=config,
        moves_left=head,
        plies_validation=plies_validation,
        plies_error_start=errors[0],
        plies_error=errors[1],
        outcomes=chances is not None,
    )
    return best_params, report


@dataclass(frozen=True)
class PhasedReport:
    """What a training of a network per phase did: each phase's own report (None for a phase
    with no position to learn from, whose network is kept as it was), and the figures of the
    whole, each phase's weighted by its validation positions."""

    phases: dict[str, SupervisedReport | None]

    def _weighted(self, value) -> float:
        reports = [r for r in self.phases.values() if r is not None and r.validation_positions]
        total = sum(r.validation_positions for r in reports)
        if not total:
            return float("nan")
        return sum(value(r) * r.validation_positions for r in reports) / total

    @property
    def validation_mse(self) -> float:
        return self._weighted(lambda r: r.validation_mse)

    @property
    def baselines(self) -> dict[str, float]:
        names = {name for r in self.phases.values() if r is not None for name in r.baselines}
        return {name: self._weighted(lambda r, n=name: r.baselines[n]) for name in sorted(names)}

    moves_left = False  # a network per phase has no moves-left head

    def to_json(self) -> dict:
        return {
            "validation_mse": _optional(self.validation_mse),
            "baselines": {name: _optional(v) for name, v in self.baselines.items()},
            "phases": {
                name: None if report is None else report.to_json()
                for name, report in self.phases.items()
            },
        }


def train_supervised_phases(
    game: int,
    params: np.ndarray,
    states: np.ndarray,
    targets: np.ndarray,
    groups: np.ndarray,
    config: SupervisedConfig,
    progress: bool = False,
    outcomes: np.ndarray | None = None,
    names: tuple[str, ...] = (),
) -> tuple[np.ndarray, PhasedReport]:
    """:func:`train_supervised` for a network per phase (:mod:`samuel.nn.phased`): each
    phase's network learns from the positions of its own phase only, its seed derived from the
    config's and the phase's number; a phase with no positions keeps its network. ``names``:
    the phases' names for the report (default their numbers)."""
    from samuel.evaluation.phases import position_phases
    from samuel.nn.phased import pack_phases, phase_networks

    networks.check_phased(params, game)
    states = _checked_states(game, states)
    phases = position_phases(game, states)
    trained, reports = [], {}
    for phase, network in enumerate(phase_networks(params)):
        name = names[phase] if phase < len(names) else str(phase)
        index = np.flatnonzero(phases == phase)
        if len(index) == 0:
            trained.append(network.copy())
            reports[name] = None
            continue
        phase_config = dataclasses.replace(
            config, seed=derive_seed(int(config.seed), PHASE_STREAM, phase) & 0x7FFFFFFF
        )
        result, report = train_supervised(
            game,
            network,
            states[index],
            np.asarray(targets)[index],
            np.asarray(groups)[index],
            phase_config,
            progress=progress,
            outcomes=None if outcomes is None else np.asarray(outcomes)[index],
        )
        trained.append(result)
        reports[name] = report
    return pack_phases(trained), PhasedReport(reports)
