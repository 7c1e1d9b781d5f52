"""Rollout labels, quick evaluations and tablebase labels (samuel.train.rollouts)."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.evaluation.networks import load_network, random_network, shipped_network
from samuel.games import kernels as games
from samuel.games.draughts.rules import RULES as DRAUGHTS_RULES
from samuel.games.tigers.board import FULL
from samuel.games.tigers.rules import RULES as TIGERS_RULES
from samuel.games.tigers.rules import Position
from samuel.games.tigers.tablebase.index import decode_index, layer_size
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.search.alphabeta import new_tables
from samuel.seeds import derive_seed
from samuel.tablebase.build import build
from samuel.train import rollouts
from samuel.train.rollouts import (
    RolloutConfig,
    evaluate_positions,
    rollout_labels,
    tablebase_labels,
)
from samuel.train.selfplay import SelfPlaySettings, play_selfplay
from tests import game_numbers

NETWORK = games.EVALUATOR_NETWORK
TIGERS, DRAUGHTS = game_numbers.TIGERS, game_numbers.DRAUGHTS
QUICK = RolloutConfig(rollouts=4, epsilon=0.1, ply_cap=80)
CORNERS = (1 << 0) | (1 << 4) | (1 << 20) | (1 << 24)


def network(game: int) -> np.ndarray:
    return random_network(game, 3)


def start(game: int) -> np.ndarray:
    rules = TIGERS_RULES if game == TIGERS else DRAUGHTS_RULES
    return rules.initial_position().encode()


def seeds_for(count: int, run: int = 0) -> np.ndarray:
    return np.array([derive_seed(run, i) for i in range(count)], dtype=np.int64)


def tigers_won() -> np.ndarray:
    """Five sheep captured: the tigers have won."""
    sheep = [p for p in range(25) if not CORNERS >> p & 1][:15]
    return np.array([CORNERS, sum(1 << p for p in sheep), 0, 0], dtype=np.int64)


def test_decided_positions_get_their_exact_result_without_games():
    labels = rollout_labels(
        TIGERS,
        NETWORK,
        network(TIGERS),
        np.stack([tigers_won(), start(TIGERS)]),
        seeds_for(2),
        QUICK,
    )
    assert labels.values[0] == 1.0 and labels.stderr[0] == 0.0 and labels.rollouts[0] == 0
    assert labels.rollouts[1] == 4 and labels.games == 4
    black_only = np.array(
        [[1, 0, 0, 0, 0], [0, 1 << 5, 0, 1, 0]], dtype=np.int64
    )  # side to move has none (the white man on square 6, not on its crowning row)
    labels = rollout_labels(DRAUGHTS, NETWORK, network(DRAUGHTS), black_only, seeds_for(2), QUICK)
    assert labels.values.tolist() == [1.0, -1.0] and labels.stderr.tolist() == [0.0, 0.0]
    assert labels.games == 0 and labels.plies == 0 and not labels.truncated.any()


@pytest.mark.parametrize("game", [TIGERS, DRAUGHTS])
def test_labels_depend_only_on_the_seeds_not_the_batch_or_threads(game):
    states = np.stack([start(game)] * 6)
    seeds = seeds_for(6, run=game)
    config = dataclasses.replace(QUICK, truncate_plies=30)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = rollout_labels(game, NETWORK, network(game), states, seeds, config)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = rollout_labels(game, NETWORK, network(game), states, seeds, config)
        part = rollout_labels(game, NETWORK, network(game), states[4:], seeds[4:], config)
    finally:
        numba.set_num_threads(before)
    for name in ("values", "stderr", "rollouts", "truncated"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
        assert np.array_equal(getattr(one, name)[4:], getattr(part, name)), name
    assert one.plies == two.plies and one.games == two.games == 24
    assert len(set(one.values.tolist())) > 1  # different seeds, different labels
    assert np.all(np.abs(one.values) <= 1.0) and np.all(one.stderr >= 0.0)


@pytest.mark.parametrize("reduced", [False, True])
def test_the_standard_error_shrinks_with_more_rollouts(reduced):
    states = np.stack([start(DRAUGHTS)] * 8)
    errors = []
    for k in (4, 16):
        config = RolloutConfig(
            rollouts=k, ply_cap=80, truncate_plies=24, variance_reduction=reduced
        )
        labels = rollout_labels(DRAUGHTS, NETWORK, network(DRAUGHTS), states, seeds_for(8), config)
        assert labels.rollouts.tolist() == [k] * 8
        errors.append(float(labels.stderr.mean()))
    assert errors[1] < 0.75 * errors[0]


def test_truncated_rollouts_stop_after_n_plies_and_take_the_evaluators_value():
    states = np.stack([start(TIGERS)] * 3)
    cut = dataclasses.replace(QUICK, truncate_plies=6)
    labels = rollout_labels(TIGERS, NETWORK, network(TIGERS), states, seeds_for(3), cut)
    assert labels.truncated.all() and labels.plies == 6 * labels.games  # no game ends so soon
    assert np.all(np.abs(labels.values) <= 1.0)
    assert not np.all(np.isin(labels.values * 4, [-4, -3, -2, -1, 0, 1, 2, 3, 4]))  # not results
    whole = rollout_labels(TIGERS, NETWORK, network(TIGERS), states, seeds_for(3), QUICK)
    assert not whole.truncated.any() and whole.plies > labels.plies


@pytest.mark.slow
def test_variance_reduction_spreads_no_wider_than_plain_monte_carlo():
    """Mid-game positions (self-play of the shipped network), 50 seeds each, 4 rollouts: the
    variance of each position's label over the seeds, averaged. Measured: VR 0.95 of plain Monte
    Carlo's here (0.78 to 0.99 over 40 positions x 40 seeds); the bound is loose, and the
    test deterministic (fixed seeds)."""
    params = load_network(shipped_network(TIGERS), TIGERS)
    settings = SelfPlaySettings(TIGERS, NETWORK, params, start(TIGERS), 2, 8, 0.1, 200)
    played = play_selfplay(settings, seeds_for(12, run=12))
    positions = np.stack([played.positions[g, played.plies[g] // 2] for g in range(12)])
    states = np.repeat(positions, 50, axis=0)
    seeds = seeds_for(len(states), run=13)
    variance = {}
    for reduced in (False, True):
        config = RolloutConfig(rollouts=4, epsilon=0.15, variance_reduction=reduced)
        labels = rollout_labels(TIGERS, NETWORK, params, states, seeds, config)
        variance[reduced] = float(labels.values.reshape(12, 50).var(axis=1).mean())
    assert variance[False] > 0.0
    assert variance[True] <= 1.1 * variance[False]


@pytest.mark.parametrize("lattice", [rollouts.PLAIN, rollouts.WEYL, rollouts.STRATIFIED])
def test_the_compiled_rollout_plays_what_its_python_says(lattice):
    """The kernel against its own Python body (which calls the same compiled helpers): a draw
    made only under a condition was once lost in compilation, and every random move was the
    first legal one."""
    params = load_network(shipped_network(TIGERS), TIGERS)
    tables = new_tables(
        10, 4, games.move_room(TIGERS), evaluators.scratch_size(TIGERS, NETWORK, params)
    )
    work = rollouts.rollout_work(TIGERS, 4, 200)
    play = rollouts.RolloutPlay(1, 0.5, 0, 200, lattice)
    plies = set()
    for k in range(4):
        arguments = (TIGERS, NETWORK, params, start(TIGERS), play, derive_seed(k))
        arguments += (0.25, derive_seed(k, 1), k % 2 == 1, tables, work)
        compiled = rollouts.play_rollout(*arguments)
        assert compiled == rollouts.play_rollout.py_func(*arguments)
        plies.add(compiled[1])
    assert len(plies) > 1  # the random moves differ from seed to seed


def test_static_evaluations_are_clamped_first_player_values():
    params = network(DRAUGHTS)
    position = DRAUGHTS_RULES.initial_position()
    states = np.stack([position.encode(), np.array([1, 0, 0, 0, 0], dtype=np.int64)])
    values = evaluate_positions(DRAUGHTS, NETWORK, params, states)
    assert values.dtype == np.float32 and values[1] == 1.0
    scratch = np.zeros(evaluators.scratch_size(DRAUGHTS, NETWORK, params), dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    direct = evaluation.evaluate(DRAUGHTS, NETWORK, params, states[0], scratch, active)
    assert values[0] == pytest.approx(max(-1.0, min(1.0, direct)), abs=1e-6)


@pytest.fixture(scope="module")
def two_captures(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tablebase") / "k2"
    build(directory, 2, progress=False, log=lambda line: None)
    return load_tablebase(directory)


@pytest.mark.slow
def test_tablebase_labels_agree_with_direct_probes(two_captures):
    rng = np.random.default_rng(5)
    positions = []
    for captured in (0, 1):
        for index in rng.integers(0, layer_size(captured + 1), 40):
            tigers, empty = decode_index(int(index), captured + 1)
            sheep = FULL & ~(int(tigers) | int(empty))
            positions.append(Position(int(tigers), sheep, 0, bool(rng.integers(2)), 2))
    states = np.stack([p.encode() for p in positions])
    extra = np.stack([start(TIGERS), tigers_won()])  # the hand full; the game over
    mask, values = tablebase_labels(two_captures, np.concatenate([states, extra]))
    assert mask.tolist() == [True] * len(positions) + [False, False]
    for position, value in zip(positions, values, strict=False):
        outcome, _ = two_captures.value(position)
        assert value == (outcome if position.tiger_to_move else -outcome)
    assert set(values[: len(positions)].tolist()) >= {1, -1}


def test_bad_inputs_are_refused_with_clear_errors(two_captures):
    params, states, seeds = network(TIGERS), np.stack([start(TIGERS)] * 2), seeds_for(2)
    bad_configs = [
        dict(rollouts=0),
        dict(rollouts=3),  # odd with antithetic pairs
        dict(depth=0),
        dict(depth=200),
        dict(epsilon=1.5),
        dict(epsilon=float("nan")),
        dict(ply_cap=0),
        dict(truncate_plies=-1),
        dict(truncate_plies=500),
        dict(lattice="sobol"),
        dict(lattice=["weyl"]),
    ]
    for changes in bad_configs:
        with pytest.raises(ValueError):
            RolloutConfig(**changes)
    RolloutConfig(rollouts=3, variance_reduction=False)  # odd is fine in plain Monte Carlo
    calls = [
        (TIGERS, NETWORK, params, states.astype(np.int32), seeds),
        (TIGERS, NETWORK, params, states[:, :3].copy(), seeds),
        (TIGERS, NETWORK, params, np.stack([start(TIGERS)] * 4)[::2], seeds),
        (TIGERS, NETWORK, params, states, seeds[:1]),
        (TIGERS, NETWORK, params, states, seeds.astype(np.float64)),
        (TIGERS, NETWORK, params[:-1], states, seeds),
        (TIGERS, NETWORK, np.full(len(params), np.nan, np.float32), states, seeds),
        (TIGERS, games.EVALUATOR_CLASSIC, params, states, seeds),
        (TIGERS, 7, params, states, seeds),
        (99, NETWORK, params, states, seeds),
        (DRAUGHTS, NETWORK, params, states, seeds),
    ]
    for call in calls:
        with pytest.raises(ValueError):
            rollout_labels(*call, QUICK)
    with pytest.raises(ValueError):
        evaluate_positions(TIGERS, NETWORK, params, states[:, :2].copy())
    padded = np.concatenate([states, np.ones((2, 1), dtype=np.int64)], axis=1)
    with pytest.raises(ValueError, match="padding"):
        rollout_labels(TIGERS, NETWORK, params, padded, seeds, QUICK)
    with pytest.raises(ValueError):
        tablebase_labels(object(), states)
    nonsense = np.array([[FULL, FULL, 0, 1]], dtype=np.int64)
    with pytest.raises(ValueError, match="not a Tigers"):
        tablebase_labels(two_captures, nonsense)


# --- rollouts that end at the tablebase ----------------------------------------------------------

TWO = game_numbers.tigers_and_sheep(2)  # the variant whose tablebase builds in seconds


def near_the_end_of_placement(count: int, seed: int) -> np.ndarray:
    """Variant positions with 1 or 2 sheep in hand, either side to move, not over: random
    legal moves from the start."""
    rng = np.random.default_rng(seed)
    moves = np.empty(games.move_room(TWO), dtype=np.int64)
    found = []
    while len(found) < count:
        hand, tigers_move = 1 + len(found) % 2, len(found) % 4 < 2
        state, child = start(TIGERS), np.empty(4, dtype=np.int64)
        while True:
            n = games.generate(TWO, state, moves)
            if games.result(TWO, state, n) != games.NOT_OVER or state[2] < hand:
                break
            if state[2] == hand and bool(state[3]) == tigers_move:
                found.append(state.copy())
                break
            games.play(TWO, state, moves[rng.integers(n)], child)
            state = child.copy()
    return np.stack(found)


def exact_value(table, state: np.ndarray) -> int:
    """Perfect play over the placements left, the table's value once the hand is empty: the
    first player's (the tigers') result, by plain minimax in Python."""
    moves = np.empty(games.move_room(TWO), dtype=np.int64)
    n = games.generate(TWO, state, moves)
    result = games.result(TWO, state, n)
    if result != games.NOT_OVER:
        return int(result)
    if state[2] == 0:
        mask, values = tablebase_labels(table, state[None])
        assert mask[0]
        return int(values[0])
    side = games.sign(TWO, state)
    best = -2
    for move in moves[:n].copy():
        child = np.empty(4, dtype=np.int64)
        games.play(TWO, state, move, child)
        best = max(best, side * exact_value(table, child))
    return side * best


def test_deep_enough_rollouts_end_at_the_table_with_the_perfect_play_value(two_captures):
    """At depth 4 the rollout's first search already sees the table below every line (at most
    4 plies to the hand's end), so with no random plies each rollout plays perfectly to the
    table: every label is the exact minimax value, with no spread. Without the table the same
    rollouts play on past the hand's end."""
    states = near_the_end_of_placement(16, seed=1)
    exact = [exact_value(two_captures, state) for state in states]
    assert set(exact) >= {1, -1} or set(exact) >= {1, 0}  # not all one value
    config = RolloutConfig(rollouts=4, depth=4, epsilon=0.0)
    labels = rollout_labels(TWO, NETWORK, network(TWO), states, seeds_for(16), config, two_captures)
    assert labels.values.tolist() == exact
    assert labels.stderr.tolist() == [0.0] * 16 and labels.rollouts.tolist() == [4] * 16
    assert not labels.exact.any() and not labels.truncated.any()
    to_empty = 2 * states[:, 2] - 1 + states[:, 3]  # plies until the last sheep is placed
    assert labels.plies <= 4 * int(to_empty.sum())
    assert labels.tabled.sum() > 0 and set(labels.tabled.tolist()) <= {0, 4}
    plain = rollout_labels(TWO, NETWORK, network(TWO), states, seeds_for(16), config)
    assert plain.plies > labels.plies and not plain.tabled.any()


def test_random_rollouts_end_where_the_hand_empties_with_the_tables_value(two_captures):
    """Every ply random (epsilon 1, plain Monte Carlo: no search, so the table cannot change a
    move): the rollout replayed in Python from its stream stops at the first position with the
    hand empty and takes the table's value there, or at the game's end if that comes first."""
    states = near_the_end_of_placement(8, seed=2)
    seeds = seeds_for(8, run=3)
    config = RolloutConfig(rollouts=6, epsilon=1.0, variance_reduction=False)
    labels = rollout_labels(TWO, NETWORK, network(TWO), states, seeds, config, two_captures)
    moves = np.empty(games.move_room(TWO), dtype=np.int64)
    total, ended = 0, []
    for i, root in enumerate(states):
        outcomes, tabled = [], 0
        for j in range(6):
            rng, _, _ = rollouts._rollout_stream(seeds[i], j, rollouts.PLAIN)
            state = root.copy()
            while True:
                n = games.generate(TWO, state, moves)
                result = games.result(TWO, state, n)
                if result != games.NOT_OVER:
                    outcomes.append(float(result))
                    break
                if state[2] == 0:
                    outcomes.append(float(tablebase_labels(two_captures, state[None])[1][0]))
                    tabled += 1
                    break
                _, rng = rollouts._uniform(rng)  # the coin (always random at epsilon 1)
                u, rng = rollouts._uniform(rng)
                child = np.empty(4, dtype=np.int64)
                games.play(TWO, state, moves[min(int(u * n), n - 1)], child)
                state = child
                total += 1
        assert labels.values[i] == np.float32(np.mean(outcomes)), i
        ended.append(tabled)
    assert labels.tabled.tolist() == ended and sum(ended) > 0
    assert labels.plies == total


def test_positions_the_table_holds_get_its_exact_value_without_games(two_captures):
    rng = np.random.default_rng(7)
    held = []
    for index in rng.integers(0, layer_size(1), 6):
        tigers, empty = decode_index(int(index), 1)
        held.append(np.array([tigers, FULL & ~(int(tigers) | int(empty)), 0, index % 2]))
    states = np.concatenate([np.stack(held).astype(np.int64), near_the_end_of_placement(2, 4)])
    config = RolloutConfig(rollouts=4, epsilon=0.1)
    labels = rollout_labels(TWO, NETWORK, network(TWO), states, seeds_for(8), config, two_captures)
    _, values = tablebase_labels(two_captures, states[:6])
    assert labels.exact.tolist() == [True] * 6 + [False] * 2
    assert labels.values[:6].tolist() == values.tolist()
    assert labels.rollouts.tolist() == [0] * 6 + [4] * 2 and labels.games == 8
    assert labels.stderr[:6].tolist() == [0.0] * 6 and labels.tabled[:6].tolist() == [0] * 6


def test_a_table_of_another_game_or_variant_is_refused(two_captures):
    states = np.stack([start(TIGERS)] * 2)
    with pytest.raises(ValueError, match="won by 2 captures"):
        rollout_labels(TIGERS, NETWORK, network(TIGERS), states, seeds_for(2), QUICK, two_captures)
    draughts = np.stack([start(DRAUGHTS)] * 2)
    with pytest.raises(ValueError, match="cannot label positions of"):
        rollout_labels(
            DRAUGHTS, NETWORK, network(DRAUGHTS), draughts, seeds_for(2), QUICK, two_captures
        )
    with pytest.raises(ValueError, match="Tablebase"):
        rollout_labels(TWO, NETWORK, network(TWO), states, seeds_for(2), QUICK, object())


def test_labels_with_the_table_are_the_same_on_one_and_two_threads(two_captures):
    states = near_the_end_of_placement(8, seed=5)
    seeds = seeds_for(8, run=6)
    config = RolloutConfig(rollouts=4, epsilon=0.3)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = rollout_labels(TWO, NETWORK, network(TWO), states, seeds, config, two_captures)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = rollout_labels(TWO, NETWORK, network(TWO), states, seeds, config, two_captures)
    finally:
        numba.set_num_threads(before)
    for name in ("values", "stderr", "rollouts", "truncated", "exact", "tabled"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert one.plies == two.plies and one.tabled.sum() > 0


def test_a_row_that_is_no_position_is_refused_before_any_kernel():
    from samuel.evaluation.networks import random_network
    from samuel.train.rollouts import RolloutConfig, evaluate_positions, rollout_labels

    params = random_network(0, 1)
    bad = np.zeros((1, games.STATE_SIZE), dtype=np.int64)
    bad[0, 0] = (1 << 25) | 0b11111  # a tiger off the board, and five tigers
    with pytest.raises(ValueError, match="not a position"):
        rollout_labels(0, games.EVALUATOR_NETWORK, params, bad, np.zeros(1, np.int64),
                       RolloutConfig(rollouts=2))  # fmt: skip
    with pytest.raises(ValueError, match="not a position"):
        evaluate_positions(0, games.EVALUATOR_NETWORK, params, bad)
