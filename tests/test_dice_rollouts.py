"""Rollout labels for the games with dice (samuel.train.dice_rollouts): the dice's design, the
antithetic pairs, the labels' arithmetic, their reproducibility and the checks of their input."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numba
import numpy as np
import pytest

from samuel.evaluation.networks import load_network_or_phases, shipped_network
from samuel.evaluation.outcomes import outcome_predictions
from samuel.evaluation.phases import position_phases
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.backgammon.board import ROLL_FLAG
from samuel.games.backgammon.rules import Position
from samuel.search.plied import PliedSearcher
from samuel.train.dice_rollouts import (
    DiceRolloutConfig,
    dice_rollout_labels,
    leaf_outcomes,
    rollout_rolls,
    summarize,
)

BACKGAMMON, NARDY = get_game("backgammon"), get_game("nardy")
NETWORK, PHASED = games.EVALUATOR_NETWORK, games.EVALUATOR_PHASED
QUICK = DiceRolloutConfig(rollouts=8, truncate_plies=4)


@pytest.fixture(scope="module")
def backgammon_net() -> np.ndarray:
    return load_network_or_phases(shipped_network(BACKGAMMON.number), BACKGAMMON.number)


@pytest.fixture(scope="module")
def nardy_nets() -> np.ndarray:
    return load_network_or_phases(shipped_network(NARDY.number), NARDY.number)


def start(rules) -> np.ndarray:
    return np.stack([rules.encode(rules.initial_position())])


def seeds(count: int, first: int = 11) -> np.ndarray:
    return np.arange(first, first + count, dtype=np.int64)


def random_positions(rules, count: int, seed: int) -> np.ndarray:
    """``count`` positions with dice to roll from one game of uniformly random plays (compiled
    calls, seeded), every third position kept, from the start on."""
    game, rng = rules.number, np.random.default_rng(seed)
    state = rules.encode(rules.initial_position())
    child = np.empty_like(state)
    room = games.move_room(game)
    moves, weights = np.zeros(room, dtype=np.int64), np.zeros(room, dtype=np.float64)
    kept, ply = [], 0
    while len(kept) < count:
        n = games.chance(game, state, moves, weights)
        if n == 0:  # the game is over: start again
            state = rules.encode(rules.initial_position())
            continue
        if ply % 3 == 0:
            kept.append(state.copy())
        ply += 1
        games.play(game, state, moves[rng.choice(n, p=weights[:n] / weights[:n].sum())], child)
        n = games.generate(game, child, moves)
        games.play(game, child, moves[rng.integers(n)], state)
    return np.stack(kept)


# --- the dice ----------------------------------------------------------------------------------


def sequences(rolls: np.ndarray) -> list[tuple[int, ...]]:
    return [tuple(row.ravel()) for row in rolls[:, :2]]


@pytest.mark.parametrize("reduction", ["stratified", "antithetic+stratified"])
def test_a_block_of_1296_rolls_every_sequence_of_two_rolls_once(reduction):
    rolls = rollout_rolls(5, 2 * 1296, 2, reduction)
    for block in (rolls[:1296], rolls[1296:]):
        assert len(set(sequences(block))) == 1296
    assert sequences(rolls[:1296]) != sequences(rolls[1296:])  # each block drawn afresh
    # plain dice repeat some sequences and miss others
    assert len(set(sequences(rollout_rolls(5, 1296, 2, "none")))) < 1000


@pytest.mark.parametrize("reduction", ["stratified", "antithetic+stratified"])
@pytest.mark.parametrize("k", [36, 144])
def test_fewer_rollouts_are_balanced_in_each_of_the_first_two_rolls(reduction, k):
    rolls = rollout_rolls(9, k, 2, reduction)
    for t in range(2):
        counts = Counter(map(tuple, rolls[:, t]))
        assert len(counts) == 36 and set(counts.values()) == {k // 36}


def test_the_design_is_seeded_and_each_rollouts_rolls_are_fair():
    firsts = np.stack(
        [rollout_rolls(seed, 2, 2, "antithetic+stratified")[0] for seed in range(720)]
    )
    assert not np.array_equal(firsts[0], firsts[1])
    # rollout 0's first two rolls over 720 seeds: each die uniform, the rolls unrelated
    for t in range(2):
        for die in range(2):
            counts = np.bincount(firsts[:, t, die], minlength=7)[1:]
            assert counts.min() > 80 and counts.max() < 160  # 120 expected
    assert abs(np.corrcoef(firsts[:, 0, 0], firsts[:, 1, 0])[0, 1]) < 0.15


@pytest.mark.parametrize("reduction", ["antithetic", "antithetic+stratified"])
def test_antithetic_partners_roll_the_opposite_dice_on_every_roll(reduction):
    rolls = rollout_rolls(3, 16, 12, reduction)
    assert np.array_equal(rolls[1::2], 7 - rolls[0::2])
    plain = rollout_rolls(3, 16, 12, "none")
    assert not np.array_equal(plain[1::2], 7 - plain[0::2])


# --- the labels --------------------------------------------------------------------------------


def test_rollouts_play_the_designed_rolls_every_sequence_once(backgammon_net):
    config = DiceRolloutConfig(rollouts=1296, truncate_plies=2)
    labels = dice_rollout_labels(
        BACKGAMMON.number, NETWORK, backgammon_net, start(BACKGAMMON), seeds(1), config, 2
    )
    played = labels.rolls[0]
    assert len({tuple(row) for row in played}) == 1296
    dice = rollout_rolls(11, 1296, 2, config.variance_reduction)
    assert np.array_equal(played, 10 * dice[:, :, 0] + dice[:, :, 1])
    assert labels.truncated[0] == 1296 and labels.capped[0] == 0
    assert labels.rollouts[0] == 1296 and labels.games == 1296 and labels.plies == 2 * 1296


def test_antithetic_rollouts_play_opposite_dice(backgammon_net):
    config = dataclasses.replace(QUICK, truncate_plies=6)
    labels = dice_rollout_labels(
        BACKGAMMON.number, NETWORK, backgammon_net, start(BACKGAMMON), seeds(1), config, 6
    )
    first, second = labels.rolls[0, 0::2], labels.rolls[0, 1::2]
    assert np.array_equal(second // 10, 7 - first // 10)
    assert np.array_equal(second % 10, 7 - first % 10)


@pytest.mark.parametrize("ply, k", [(0, 36), (2, 4)])
def test_a_truncated_rollout_takes_the_networks_chances_at_its_leaf(backgammon_net, ply, k):
    """Truncated after one ply: each rollout rolls, plays the play the plied search chooses at
    ``ply`` and takes the network's six chances there; worked out here with the plied
    searcher."""
    game = BACKGAMMON.number
    config = DiceRolloutConfig(rollouts=k, ply=ply, truncate_plies=1)
    root = random_positions(BACKGAMMON, 8, 4)[-1:]
    labels = dice_rollout_labels(game, NETWORK, backgammon_net, root, seeds(1), config, 1)
    searcher, leaves = PliedSearcher(game), []
    rolled, child = np.empty_like(root[0]), np.empty_like(root[0])
    for code in labels.rolls[0, :, 0].tolist():
        high, low = max(code // 10, code % 10), min(code // 10, code % 10)
        games.play(game, root[0], ROLL_FLAG | (10 * high + low), rolled)
        move = searcher.search(rolled, NETWORK, backgammon_net, ply).best_move
        games.play(game, rolled, move, child)
        leaves.append(child.copy())
    expected = outcome_predictions(game, backgammon_net, np.stack(leaves)).astype(np.float64)
    np.testing.assert_allclose(labels.outcomes[0], expected.mean(axis=0), atol=1e-6)
    means, equity, _ = summarize(expected[None], paired=True)
    np.testing.assert_allclose(labels.equity, equity, atol=1e-6)


def test_luck_one_ply_deep_leaves_every_rollout_the_mean_over_the_rolls(backgammon_net):
    """Truncated after one ply, a rollout's chances less its roll's luck are the mean over the
    21 rolls of the chances after each roll's best play (0 ply): the same for every rollout."""
    game = BACKGAMMON.number
    config = DiceRolloutConfig(rollouts=6, truncate_plies=1, luck=True)
    root = random_positions(BACKGAMMON, 8, 4)[-1:]
    labels = dice_rollout_labels(game, NETWORK, backgammon_net, root, seeds(1), config)
    searcher, leaves, chances = PliedSearcher(game), [], []
    rolled, child = np.empty_like(root[0]), np.empty_like(root[0])
    for high in range(1, 7):
        for low in range(1, high + 1):
            games.play(game, root[0], ROLL_FLAG | (10 * high + low), rolled)
            move = searcher.search(rolled, NETWORK, backgammon_net, 0).best_move
            games.play(game, rolled, move, child)
            leaves.append(child.copy())
            chances.append((1 if high == low else 2) / 36)
    predicted = outcome_predictions(game, backgammon_net, np.stack(leaves)).astype(np.float64)
    np.testing.assert_allclose(labels.outcomes[0], np.array(chances) @ predicted, atol=1e-6)
    assert labels.stderr[0] < 1e-6
    assert labels.variance_reduction == "antithetic+stratified+luck"


def test_the_leaf_is_valued_by_the_network_of_its_own_phase(nardy_nets):
    positions = random_positions(NARDY, 60, 2)
    assert len(set(position_phases(NARDY.number, positions))) >= 2
    found = leaf_outcomes(NARDY.number, PHASED, nardy_nets, positions)
    np.testing.assert_allclose(
        found, outcome_predictions(NARDY.number, nardy_nets, positions), atol=1e-6
    )


def test_nardy_rollouts_by_a_network_per_phase(nardy_nets):
    positions = random_positions(NARDY, 3, 8)
    labels = dice_rollout_labels(NARDY.number, PHASED, nardy_nets, positions, seeds(3), QUICK)
    assert np.all(labels.rollouts == 8) and np.all(labels.truncated == 8)
    assert np.all((labels.outcomes >= 0) & (labels.outcomes <= 1))
    assert np.all(labels.stderr > 0)


def decided(x_gammoned: bool) -> np.ndarray:
    """X has borne off all fifteen; O has fifteen on its 13 point (a gammon), or one of them on
    its bar (a backgammon)."""
    o = [0] * 25
    o[12] = 15
    if not x_gammoned:
        o[12], o[24] = 14, 1
    return Position((0,) * 25, tuple(o), False).encode()


def test_a_decided_position_gets_its_exact_result_without_games(backgammon_net):
    states = np.stack([decided(True), decided(False), decided(True)])
    states[2] = Position.decode(states[2]).transformed(1).encode()  # O won the gammon
    labels = dice_rollout_labels(
        BACKGAMMON.number, NETWORK, backgammon_net, states, seeds(3), QUICK
    )
    np.testing.assert_array_equal(
        labels.outcomes, [[1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 0]]
    )
    np.testing.assert_array_equal(labels.equity, [2, 3, -2])
    np.testing.assert_array_equal(labels.stderr, 0)
    np.testing.assert_array_equal(labels.rollouts, 0)
    assert labels.games == 0


def test_means_equity_and_standard_error_worked_out_by_hand():
    outcomes = np.array(
        [
            [
                [1, 1, 0, 0, 0, 0],  # a gammon won: +2
                [0, 0, 0, 1, 0, 0],  # a game lost: -1
                [1, 0, 0, 0, 0, 0],  # a game won: +1
                [0, 0, 0, 1, 1, 1],  # a backgammon lost: -3
            ]
        ],
        dtype=np.float64,
    )
    means, equity, stderr = summarize(outcomes, paired=False)
    np.testing.assert_allclose(means, [[0.5, 0.25, 0, 0.5, 0.25, 0.25]])
    np.testing.assert_allclose(equity, [-0.25])
    # games: deviations 2.25, -0.75, 1.25, -2.75 from -0.25; squares sum to 14.75
    np.testing.assert_allclose(stderr, [math.sqrt(14.75 / 3) / 2])
    # pairs: means 0.5 and -1, deviations +-0.75: variance 1.125, over two pairs
    _, _, paired = summarize(outcomes, paired=True)
    np.testing.assert_allclose(paired, [0.75])
    # one unit: no spread to measure, the bound 3 / sqrt(K)
    _, _, single = summarize(outcomes[:, :2], paired=True)
    np.testing.assert_allclose(single, [3 / math.sqrt(2)])


def test_labels_are_the_same_on_one_and_two_threads_and_in_any_batch(backgammon_net):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here")
    positions = random_positions(BACKGAMMON, 4, 6)
    config = dataclasses.replace(QUICK, ply=1, rollouts=6, truncate_plies=3)
    runs = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            runs.append(
                dice_rollout_labels(
                    BACKGAMMON.number, NETWORK, backgammon_net, positions, seeds(4), config, 3
                )
            )
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    one, two = runs
    for field in ("outcomes", "equity", "stderr", "rolls", "truncated"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))
    alone = dice_rollout_labels(
        BACKGAMMON.number, NETWORK, backgammon_net, positions[2:3], seeds(4)[2:3], config, 3
    )
    np.testing.assert_array_equal(alone.outcomes[0], one.outcomes[2])
    other = dice_rollout_labels(
        BACKGAMMON.number, NETWORK, backgammon_net, positions, seeds(4, first=99), config, 3
    )
    assert not np.array_equal(other.outcomes, one.outcomes)


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"rollouts": 7}, "pairs"),
        ({"rollouts": 0}, "rollouts"),
        ({"ply": 4}, "ply"),
        ({"truncate_plies": -1}, "truncate_plies"),
        ({"variance_reduction": "quasi"}, "variance_reduction"),
        ({"threshold": float("nan")}, "threshold"),
        ({"rollouts": 2.0}, "whole number"),
        ({"luck": 1}, "luck"),
    ],
)
def test_a_bad_config_is_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        DiceRolloutConfig(**settings)


def test_bad_input_is_refused_before_any_kernel(backgammon_net):
    game, root = BACKGAMMON.number, start(BACKGAMMON)
    with pytest.raises(ValueError, match="no dice"):
        dice_rollout_labels(get_game("draughts").number, 0, np.zeros(1), root, seeds(1), QUICK)
    with pytest.raises(ValueError, match="int64"):
        dice_rollout_labels(game, NETWORK, backgammon_net, root.astype(np.int32), seeds(1), QUICK)
    stray = root.copy()
    stray[0, 1] |= 1 << 62
    with pytest.raises(ValueError, match="not a Backgammon position"):
        dice_rollout_labels(game, NETWORK, backgammon_net, stray, seeds(1), QUICK)
    with pytest.raises(ValueError, match="one seed per position"):
        dice_rollout_labels(game, NETWORK, backgammon_net, root, seeds(2), QUICK)
    with pytest.raises(ValueError, match="NaN"):
        dice_rollout_labels(game, NETWORK, backgammon_net * np.nan, root, seeds(1), QUICK)
    classic = BACKGAMMON.classic_weights()
    with pytest.raises(ValueError, match="outcome head"):
        dice_rollout_labels(game, games.EVALUATOR_CLASSIC, classic, root, seeds(1), QUICK)
    played_out = DiceRolloutConfig(rollouts=2, luck=True)
    with pytest.raises(ValueError, match="outcome head"):
        dice_rollout_labels(game, games.EVALUATOR_CLASSIC, classic, root, seeds(1), played_out)
    with pytest.raises(ValueError, match="record_rolls"):
        dice_rollout_labels(game, NETWORK, backgammon_net, root, seeds(1), QUICK, 100)
    with pytest.raises(ValueError, match="DiceRolloutConfig"):
        dice_rollout_labels(game, NETWORK, backgammon_net, root, seeds(1), {"rollouts": 8})
