"""Position sources of the production loop (samuel.pipeline.sources): self-play, expert, random
and tablebase positions, for every game, from seeds alone. Tiny games at depth 1-2."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import numba
import numpy as np
import pytest

from samuel.evaluation import networks
from samuel.evaluation.networks import random_network
from samuel.games import get_game
from samuel.games import kernels as K
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.pipeline import sources as S
from samuel.seeds import derive_seed
from samuel.tablebase.build import build
from samuel.train.selfplay import SelfPlaySettings, play_selfplay
from tests import game_numbers

GAMES = ("tigers", "draughts")
QUIET = {"progress": False, "log": lambda line: None}


def classic(name):
    rules = get_game(name)
    return rules, rules.number, rules.classic_weights()


def check_positions(game: int, states: np.ndarray, min_moves: int = 1) -> list:
    """Every state decodes to a legal, undecided position (as the game's parser reads it back),
    with at least ``min_moves`` legal moves; no two are the same."""
    rules = S.game_rules(game)
    assert states.dtype == np.int64 and states.ndim == 2
    assert len(np.unique(states, axis=0)) == len(states)
    positions = []
    for state in states:
        position = S.decode_state(game, state)
        assert rules.parse_position(rules.format_position(position)) == position
        assert np.array_equal(rules.encode(position), state)
        assert rules.decided_outcome(position) is None
        assert len(rules.legal_moves(position)) >= min_moves
        positions.append(position)
    return positions


@pytest.fixture(scope="module")
def selfplay():
    """A few tiny self-play batches per game, and their measured distributions."""
    out = {}
    for name in GAMES:
        _, game, weights = classic(name)
        batch = S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 4, 1, seed=11, ply_cap=80)
        out[name] = (batch, S.measure_distribution(game, batch.states))
    return out


@pytest.fixture(scope="module")
def table_k2(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tb") / "k2"
    build(directory, 2, **QUIET)
    return load_tablebase(directory)


# --- self-play -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_selfplay_positions_are_legal_reproducible_and_traceable(name, selfplay):
    rules, game, weights = classic(name)
    batch, _ = selfplay[name]
    assert len(batch) > 20
    check_positions(game, batch.states)
    again = S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 4, 1, seed=11, ply_cap=80)
    assert np.array_equal(again.states, batch.states)
    assert np.array_equal(again.games, batch.games) and np.array_equal(again.plies, batch.plies)
    other = S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 4, 1, seed=12, ply_cap=80)
    assert not np.array_equal(other.states, batch.states)
    # games/plies say where each position was played: the same games, replayed by hand
    root = rules.encode(rules.initial_position())
    seeds = np.array([derive_seed(11, g) for g in range(4)], dtype=np.int64)
    settings = SelfPlaySettings(game, K.EVALUATOR_CLASSIC, weights, root, 1, 4, 0.05, 80)
    played = play_selfplay(settings, seeds)
    assert set(batch.games.tolist()) <= set(range(4)) and batch.plies.dtype == np.int32
    for state, g, ply in zip(batch.states, batch.games, batch.plies, strict=True):
        assert 0 <= ply < played.plies[g]
        assert np.array_equal(played.positions[g, ply], state)
    assert np.array_equal(batch.states[0], root)  # the start, once, from game 0
    assert (batch.games[0], batch.plies[0]) == (0, 0)


def test_selfplay_refuses_bad_inputs():
    _, game, weights = classic("tigers")
    with pytest.raises(ValueError, match="classic weights"):
        S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights[:-1], 2, 1, 0)
    with pytest.raises(ValueError, match="number of games"):
        S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 0, 1, 0)
    with pytest.raises(ValueError, match="depth"):
        S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 2, 0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        S.selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 2, 1, 0, epsilon=1.5)
    with pytest.raises(ValueError, match="no game"):
        S.selfplay_positions(77, K.EVALUATOR_CLASSIC, weights, 2, 1, 0)
    with pytest.raises(ValueError, match="evaluator"):
        S.selfplay_positions(game, 9, weights, 2, 1, 0)


# --- expert games --------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_expert_positions_are_decision_points_the_same_on_any_threads(name):
    _, game, weights = classic(name)
    players = S.ExpertPlayers(
        game,
        (
            S.ExpertPlayer("classic-1", K.EVALUATOR_CLASSIC, weights, 1),
            S.ExpertPlayer("classic-2", K.EVALUATOR_CLASSIC, weights, 2),
        ),
    )
    assert players.pairs() == [(0, 0), (0, 1), (1, 0), (1, 1)]
    batch = S.expert_positions(game, players, 5, seed=3, random_plies=2, ply_cap=60)
    assert len(batch) > 20
    check_positions(game, batch.states, min_moves=2)
    assert (batch.plies >= 2).all() and set(batch.games.tolist()) <= set(range(5))
    played = S.play_experts(game, players, 5, 3, 2, 60)
    assert played.pairs.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [0, 0]]
    for state, g, ply in zip(batch.states, batch.games, batch.plies, strict=True):
        assert np.array_equal(played.positions[g, ply], state) and ply < played.plies[g]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = S.expert_positions(game, players, 5, seed=3, random_plies=2, ply_cap=60)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(alone.states, batch.states)
    assert np.array_equal(alone.games, batch.games) and np.array_equal(alone.plies, batch.plies)


@pytest.mark.slow
def test_expert_hybrid_and_perfect_players(table_k2):
    game = game_numbers.tigers_and_sheep(2)
    rules = S.game_rules(game)
    players = S.default_expert_players(game, random_network(game, 5), table_k2)
    assert [p.name for p in players.players] == ["classic", "hybrid", "perfect"]
    shallow = S.ExpertPlayers(game, tuple(dataclasses.replace(p, depth=1) for p in players.players))
    batch = S.expert_positions(game, shallow, 9, seed=1, ply_cap=60)
    assert len(batch) > 10
    check_positions(game, batch.states, min_moves=2)
    played = S.play_experts(game, shallow, 9, 1, 4, 60)
    assert sorted(map(tuple, played.pairs.tolist())) == sorted(shallow.pairs())
    # the perfect player keeps a won position won: every move it chose from a table position
    # (hand empty) that the table calls a win for it leads to a position lost for the opponent
    for g in range(9):
        a, b = played.pairs[g]
        for ply in range(4, int(played.plies[g]) - 1):
            position = S.decode_state(game, played.positions[g, ply])
            mover = a if position.tiger_to_move else b
            if mover != 2 or position.sheep_in_hand or played.move_counts[g, ply] < 2:
                continue
            after = S.decode_state(game, played.positions[g, ply + 1])
            if table_k2.value(position)[0] > 0 and rules.decided_outcome(after) is None:
                assert table_k2.value(after)[0] < 0


def test_default_expert_players(monkeypatch, tmp_path):
    tigers = S.default_expert_players(game_numbers.TIGERS, None)
    assert [p.name for p in tigers.players] == ["classic", "hybrid"]  # the shipped network
    draughts = S.default_expert_players(game_numbers.DRAUGHTS, None)
    assert [p.name for p in draughts.players] == ["classic", "hybrid"]  # draughts' shipped one
    monkeypatch.setitem(networks.SHIPPED, game_numbers.DRAUGHTS, tmp_path / "none.bin")
    assert [p.name for p in S.default_expert_players(game_numbers.DRAUGHTS, None).players] == [
        "classic"
    ]
    net = random_network(game_numbers.DRAUGHTS, 1)
    assert [p.name for p in S.default_expert_players(game_numbers.DRAUGHTS, net).players] == [
        "classic",
        "hybrid",
    ]
    with pytest.raises(ValueError, match="network parameters"):
        S.default_expert_players(game_numbers.DRAUGHTS, net[:5])
    with pytest.raises(ValueError, match="not game"):
        S.expert_positions(game_numbers.DRAUGHTS, tigers, 1, 0)


def test_expert_players_refuse_a_table_of_other_rules(table_k2):
    _, game, weights = classic("tigers")
    with pytest.raises(ValueError, match="won by 2 captures, not 5"):
        S.ExpertPlayers(game, (S.ExpertPlayer("p", K.EVALUATOR_CLASSIC, weights, 2, table_k2),))
    draughts_weights = get_game("draughts").classic_weights()
    with pytest.raises(ValueError, match="no tablebase"):
        S.ExpertPlayers(
            game_numbers.DRAUGHTS,
            (S.ExpertPlayer("p", K.EVALUATOR_CLASSIC, draughts_weights, 2, table_k2),),
        )
    with pytest.raises(ValueError, match="non-empty"):
        S.ExpertPlayers(game, ())


# --- placement distributions and random positions -------------------------------------------


def count_tuples(game: int, states: np.ndarray) -> list[tuple[int, ...]]:
    distribution = S.measure_distribution(game, states)
    out = []
    for row, n in zip(distribution.counts, distribution.count_positions, strict=True):
        out += [tuple(int(v) for v in row)] * int(n)
    return out


@pytest.mark.parametrize("name", GAMES)
def test_random_positions_follow_the_distribution(name, selfplay):
    _, game, _ = classic(name)
    _, measured = selfplay[name]
    batch = S.random_positions(game, measured, 150, seed=4)
    assert len(batch) == 150 and (batch.games == -1).all() and (batch.plies == 0).all()
    check_positions(game, batch.states)
    again = S.random_positions(game, measured, 150, seed=4)
    assert np.array_equal(again.states, batch.states)
    assert not np.array_equal(S.random_positions(game, measured, 150, seed=5).states, batch.states)
    seen = set(map(tuple, measured.counts.tolist()))
    assert set(count_tuples(game, batch.states)) <= seen  # only measured count tuples
    # one count tuple given 9 times the weight of all others together dominates the sample
    top = int(np.argmax(measured.count_positions))
    weights = np.ones_like(measured.count_positions)
    weights[top] = 9 * (len(weights) - 1) if len(weights) > 1 else 1
    skewed = dataclasses.replace(measured, count_positions=weights)
    sample = Counter(count_tuples(game, S.random_positions(game, skewed, 200, seed=6).states))
    wanted = tuple(int(v) for v in measured.counts[top])
    assert sample.most_common(1)[0][0] == wanted and sample[wanted] > 0.6 * 200


@pytest.mark.parametrize("name", GAMES)
def test_one_measured_position_gives_its_counts_and_favours_its_squares(name, selfplay):
    _, game, _ = classic(name)
    batch, _ = selfplay[name]
    state = batch.states[len(batch) // 2 : len(batch) // 2 + 1]
    distribution = S.measure_distribution(game, np.repeat(state, 20, axis=0))
    assert len(distribution.counts) == 1 and distribution.positions == 20
    sample = S.random_positions(game, distribution, 60, seed=2)
    check_positions(game, sample.states)
    assert set(count_tuples(game, sample.states)) == {tuple(distribution.counts[0].tolist())}
    # pieces stand on the measured position's squares far more often than by chance (their
    # weight is 20.5 / 21 against 0.5 / 21 for the others)
    pieces = state[0, 0] | state[0, 1]
    hits = sum(bin(int(row[0] | row[1]) & int(pieces)).count("1") for row in sample.states)
    total = sum(bin(int(row[0] | row[1])).count("1") for row in sample.states)
    squares = 25 if name == "tigers" else 32
    chance = bin(int(pieces)).count("1") / squares
    assert hits / total > max(0.6, chance + 0.2)


@pytest.mark.parametrize("name", GAMES)
def test_distribution_json_round_trip_and_refusals(name, selfplay):
    _, game, _ = classic(name)
    _, distribution = selfplay[name]
    data = json.loads(json.dumps(distribution.to_json()))
    back = S.PlacementDistribution.from_json(data)
    assert back.to_json() == distribution.to_json()
    assert np.array_equal(back.occupied, distribution.occupied)

    def broken(change):
        copy = json.loads(json.dumps(data))
        change(copy)
        return copy

    cases = [
        (lambda d: d.pop("counts"), "lacks counts"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d.update(game=77), "no game"),
        (lambda d: d["counts"][0].update(positions=0), "positive"),
        (lambda d: d["counts"][0].update(values=[1, 2]), "regular"),
        (lambda d: d["counts"][0]["values"].__setitem__(0, -1), "negative"),
        (lambda d: d["counts"][0]["values"].__setitem__(0, "3"), "whole numbers"),
        (lambda d: d["counts"].append(d["counts"][0]), "twice"),
        (lambda d: d["counts"].clear(), "at least one"),
        (lambda d: d.update(kinds=d["kinds"][::-1]), "kinds"),
        (lambda d: d.update(bucket_lows=[1, 2]), "bucket"),
        (lambda d: d["placements"][d["kinds"][0]][0].update(positions=-1), "negative"),
        (lambda d: d["placements"][d["kinds"][0]][0]["occupied"].pop(), "regular"),
        (lambda d: d["placements"][d["kinds"][0]][0]["occupied"].__setitem__(0, 10**6), "more"),
    ]
    for change, message in cases:
        with pytest.raises(ValueError, match=message):
            S.PlacementDistribution.from_json(broken(change))
    with pytest.raises(ValueError, match="JSON object"):
        S.PlacementDistribution.from_json([])


def test_tigers_distribution_checks_the_sheep_add_up(selfplay):
    _, distribution = selfplay["tigers"]
    data = distribution.to_json()
    data["counts"][0]["values"][3] += 1  # captured no longer 20 - board - hand
    with pytest.raises(ValueError, match="make 20"):
        S.PlacementDistribution.from_json(data)


def test_measure_and_sample_refuse_bad_inputs(selfplay):
    _, tigers = selfplay["tigers"]
    batch, draughts = selfplay["draughts"]
    with pytest.raises(ValueError, match="no states"):
        S.measure_distribution(game_numbers.DRAUGHTS, batch.states[:0])
    with pytest.raises(ValueError, match="integer array"):
        S.measure_distribution(game_numbers.DRAUGHTS, batch.states[:, :2])
    with pytest.raises(ValueError, match="out of range|Tigers & Sheep position"):
        S.measure_distribution(game_numbers.TIGERS, batch.states)  # draughts rows
    with pytest.raises(ValueError, match="measured on game"):
        S.random_positions(game_numbers.DRAUGHTS, tigers, 5, 0)
    with pytest.raises(ValueError, match="number of positions"):
        S.random_positions(game_numbers.DRAUGHTS, draughts, 0, 0)
    # a distribution of decided positions only: the sheep have lost (5 captured)
    decided = dataclasses.replace(
        tigers,
        counts=np.array([[15, 0, 0, 5]], dtype=np.int64),
        count_positions=np.array([1], dtype=np.int64),
    )
    with pytest.raises(ValueError, match="decided"):
        S.random_positions(game_numbers.TIGERS, decided, 3, 0)


# --- tablebase positions -------------------------------------------------------------------


def test_tablebase_positions_have_exact_values(table_k2):
    game = game_numbers.tigers_and_sheep(2)
    batch, values = S.tablebase_positions(table_k2, 200, seed=8)
    assert len(batch) == 200 and values.shape == (200,) and values.dtype == np.float32
    positions = check_positions(game, batch.states)
    layers = Counter()
    for position, value in zip(positions, values, strict=True):
        assert position.sheep_in_hand == 0 and position.captured < 2
        outcome, _ = table_k2.value(position)
        assert value == (outcome if position.tiger_to_move else -outcome)
        layers[position.captured, position.tiger_to_move] += 1
    assert len(layers) == 4  # uniform over the layers: each drawn
    assert set(values.tolist()) <= {-1.0, 0.0, 1.0} and len(set(values.tolist())) > 1
    again, again_values = S.tablebase_positions(table_k2, 200, seed=8)
    assert np.array_equal(again.states, batch.states) and np.array_equal(again_values, values)


def test_tablebase_layers_follow_the_distribution(table_k2, selfplay):
    game = game_numbers.tigers_and_sheep(2)
    _, measured = selfplay["tigers"]
    # only one layer with the hand empty: 1 captured, tigers to move
    only = dataclasses.replace(
        measured,
        counts=np.array([[19, 0, 1, 1], [20, 0, 0, 0], [10, 10, 0, 0]], dtype=np.int64),
        count_positions=np.array([5, 0 + 1, 50], dtype=np.int64),
    )
    batch, _ = S.tablebase_positions(table_k2, 120, seed=1, distribution=only)
    positions = check_positions(game, batch.states)
    layers = Counter((p.captured, p.tiger_to_move) for p in positions)
    assert set(layers) == {(1, True), (0, False)} and layers[1, True] > layers[0, False]
    no_empty_hand = dataclasses.replace(
        measured,
        counts=np.array([[10, 10, 0, 0]], dtype=np.int64),
        count_positions=np.array([3], dtype=np.int64),
    )
    with pytest.raises(ValueError, match="hand empty"):
        S.tablebase_positions(table_k2, 10, seed=1, distribution=no_empty_hand)
    with pytest.raises(ValueError, match="too many"):
        S.tablebase_positions(table_k2, 10**7, seed=1)
    with pytest.raises(ValueError, match="needs a tablebase"):
        S.tablebase_positions(None, 10, seed=1)
