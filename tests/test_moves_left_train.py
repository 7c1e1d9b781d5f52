"""`samuel train` with the moves-left head: plies-left targets from self-play (and from the
tablebase), the options, the table's plies columns, resuming, and reproducibility."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from samuel.errors import CommandError
from samuel.evaluation.networks import load_network, random_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.tigers.board import FULL
from samuel.games.tigers.rules import Position
from samuel.games.tigers.tablebase.index import decode_index, layer_size
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.games.tigers.tablebase.sample import draw_positions
from samuel.nn import network as N
from samuel.nn.shape import PLAN, PLIES, network_of, plies_head, value_head, without_head
from samuel.nn.weights import read_network
from samuel.tablebase.build import build
from samuel.train import loop
from samuel.train.buffer import DRAW, FIRST_WIN, SECOND_WIN
from samuel.train.command import HEADER, format_row, table_header
from samuel.train.config import TrainConfig
from samuel.train.loop import (
    GenerationReport,
    label_games,
    table_samples,
    train,
    with_table_samples,
)
from samuel.train.selfplay import SelfPlayGames, SelfPlaySettings, play_selfplay
from samuel.train.targets import tablebase_plies, td_lambda_targets
from tests import game_numbers

TIGERS = game_numbers.TIGERS
QUIET = {"report": lambda row: None, "log": lambda line: None}


def hand_made_games(positions: list[list[np.ndarray]], results: list[int]) -> SelfPlayGames:
    """Self-play output for games given as their recorded positions, with made-up scores."""
    cap = max(len(game) for game in positions) + 1
    count = len(positions)
    states = np.zeros((count, cap, 4), dtype=np.int64)
    scores = np.zeros((count, cap), dtype=np.float32)
    for g, game in enumerate(positions):
        for t, state in enumerate(game):
            states[g, t] = state
            scores[g, t] = 0.1 * (t + 1) * (-1) ** g
    return SelfPlayGames(
        states,
        scores,
        np.zeros((count, cap), dtype=np.bool_),
        np.array([len(game) for game in positions], dtype=np.int64),
        np.array(results, dtype=np.int64),
    )


def marked(count: int, first: int) -> list[np.ndarray]:
    """``count`` distinct states (the first word numbers them; label_games reads no other)."""
    return [np.array([first + i, 0, 0, 0], dtype=np.int64) for i in range(count)]


def test_each_position_learns_the_plies_its_game_lasted_from_there():
    parts = [
        hand_made_games([marked(5, 0), marked(3, 10), []], [1, -1, 0]),
        hand_made_games([marked(2, 20)], [0]),
    ]
    samples = label_games(parts, 0.7)
    assert samples[FIRST_WIN].plies.tolist() == [5, 4, 3, 2, 1]
    assert samples[SECOND_WIN].plies.tolist() == [3, 2, 1]
    assert samples[DRAW].plies.tolist() == [2, 1]  # the empty game adds nothing
    assert samples[SECOND_WIN].states[:, 0].tolist() == [10, 11, 12]
    value = np.zeros(5, dtype=np.float32)  # and the value targets are as before
    part = parts[0]
    td_lambda_targets(part.scores[0, :5], part.random_moves[0, :5], 1.0, 0.7, value)
    assert samples[FIRST_WIN].targets.tolist() == value.tolist()


@pytest.fixture(scope="module")
def table_k2(tmp_path_factory):
    """The tablebase of the game won by 2 captures (built in seconds)."""
    directory = tmp_path_factory.mktemp("tablebase") / "k2"
    build(directory, 2, progress=False, log=lambda line: None)
    return load_tablebase(directory)


def table_positions(table, want, count: int, seed: int) -> list[Position]:
    """``count`` positions of the 2-capture game with the hand empty whose table value
    ``(outcome, plies)`` satisfies ``want``."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        captured, side = int(rng.integers(2)), bool(rng.integers(2))
        tigers, empty = decode_index(int(rng.integers(layer_size(captured))), captured + 1)
        position = Position(int(tigers), FULL & ~(int(tigers) | int(empty)), 0, side, 2)
        if want(*table.value(position)):
            found.append(position)
    return found


@pytest.mark.slow
def test_positions_the_tablebase_decides_learn_its_exact_distance(table_k2):
    game = game_numbers.tigers_and_sheep(2)
    decided = table_positions(table_k2, lambda outcome, plies: outcome != 0 and plies > 0, 6, 1)
    drawn = table_positions(table_k2, lambda outcome, plies: outcome == 0, 2, 2)
    in_hand = Position.initial(2)  # not in the table: keeps its game's length
    played = [in_hand, decided[0], drawn[0], decided[1], decided[2], drawn[1], decided[3]]
    parts = [hand_made_games([[p.encode() for p in played]], [1])]
    plain = label_games(parts, 0.7)[FIRST_WIN]
    exact = label_games(parts, 0.7, game, table_k2.layers)[FIRST_WIN]
    expected = []
    for t, position in enumerate(played):
        outcome, plies = (0, 0) if position.sheep_in_hand else table_k2.value(position)
        expected.append(float(plies) if outcome != 0 else 7.0 - t)
    assert plain.plies.tolist() == [7, 6, 5, 4, 3, 2, 1]
    assert exact.plies.tolist() == expected
    assert exact.plies.tolist() != plain.plies.tolist()
    assert exact.targets.tolist() == plain.targets.tolist()  # the value targets do not change


def test_the_tablebase_kernel_refuses_what_it_cannot_read_safely(table_k2, tmp_path):
    game = game_numbers.tigers_and_sheep(2)
    good = np.stack([Position.initial(2).encode()])
    plies = np.zeros(1, dtype=np.float32)
    tablebase_plies(game, good, table_k2.layers, plies)  # fine
    over = good.copy()  # 2 sheep captured, the hand empty: the 2-capture game is over
    over[0, 1] = FULL & ~over[0, 0] & ~0b1110
    over[0, 2] = 0
    bad_state = good.copy()
    bad_state[0, 1] = bad_state[0, 0]  # sheep on the tigers' points
    build(tmp_path / "k1", 1, progress=False, log=lambda line: None)
    cases = [
        (game_numbers.DRAUGHTS, good, table_k2.layers, plies, "has no tablebase"),
        (game, good.astype(np.int32), table_k2.layers, plies, "int64 array"),
        (game, good, table_k2.layers, np.zeros(2, np.float32), "float32 array of 1"),
        (game, good, load_tablebase(tmp_path / "k1").layers, plies, "has 4 layers"),
        (game, good, table_k2.layers[::-1], plies, "layer 0 of the tablebase"),
        (game, bad_state, table_k2.layers, plies, "states row 0 is not a position"),
        (game, over, table_k2.layers, plies, "row 0 is a game already over"),
    ]
    for case in cases:
        with pytest.raises(ValueError, match=case[-1]):
            tablebase_plies(*case[:-1])


def test_a_head_network_plays_self_play_exactly_like_its_value_part():
    params = random_network(TIGERS, 5, moves_left=True)
    root = Position.initial().encode()
    seeds = np.arange(4, dtype=np.int64)

    def play(params):
        settings = SelfPlaySettings(TIGERS, games.EVALUATOR_NETWORK, params, root, 2, 4, 0.1, 60)
        return play_selfplay(settings, seeds)

    with_head, without = play(params), play(without_head(params, PLIES))
    assert np.array_equal(with_head.positions, without.positions)
    assert np.array_equal(with_head.scores, without.scores)


def tiny(out_dir, **changes) -> TrainConfig:
    settings = dict(
        generations=2, games=12, out_dir=str(out_dir), depth=1, ply_cap=60, match_every=1000
    )
    return TrainConfig(**{**settings, **changes})


@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_moves_left_training_is_bit_identical_on_1_and_2_workers_and_trains_the_head(
    tmp_path, game
):
    one = train(tiny(tmp_path / "one", workers=1, moves_left=True, game=game), **QUIET)
    two = train(tiny(tmp_path / "two", workers=2, moves_left=True, game=game), **QUIET)
    assert one.tobytes() == two.tobytes()
    start = random_network(get_game(game).number, 0x5EED, moves_left=True)
    head = slice(*network_of(start).head_span(PLIES))
    assert not np.array_equal(one[head], start[head])
    saved = read_network(tmp_path / "one" / "latest.bin")
    assert saved.network.has(PLIES) and np.array_equal(saved.array, one)


@pytest.mark.slow
def test_train_moves_left_shows_the_plies_error_saves_the_head_and_resumes(tmp_path):
    args = ["train", "2", "8", str(tmp_path), "--depth", "1", "--ply-cap", "60"]
    args += ["--match-every", "2", "--match-games", "2", "--workers", "1", "--no-progress"]
    args += ["--moves-left", "--moves-left-weight", "0.2"]
    run = subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    assert "random weights (seed 0x5eed) with a moves-left head" in run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0] == table_header(("tigers", "sheep"), moves_left=True).strip()
    assert "plies before plies after" in lines[0]
    for line in lines[1:]:
        before, after = (float(x) for x in line.split()[9:11])
        assert before > 0 and after > 0
    assert lines[2].split()[11].endswith("%") and lines[2].split()[12].endswith("%")  # matches
    for name in ("gen-001.bin", "gen-002.bin", "latest.bin", "start.bin"):
        assert read_network(tmp_path / name).network.has(PLIES)
    record = json.loads((tmp_path / "gen-002.json").read_text())
    assert record["config"]["moves_left"] is True
    assert record["config"]["moves_left_weight"] == 0.2
    assert record["report"]["plies_after"] == pytest.approx(float(lines[2].split()[10]), abs=0.006)

    rows, log, heads = [], [], []
    train(tiny(tmp_path, generations=1), rows.append, log=log.append, on_start=heads.append)
    assert "gen-002.bin (training its moves-left head)" in log[-1] and heads == [True]
    assert rows[-1].generation == 3 and rows[-1].plies_after > 0
    assert read_network(tmp_path / "gen-003.bin").network.has(PLIES)


def test_a_value_network_gets_a_head_when_asked_and_keeps_its_value_part(tmp_path):
    rows, log, heads = [], [], []
    train(tiny(tmp_path, generations=1), rows.append, log=log.append, on_start=heads.append)
    assert rows[-1].plies_before is None and heads == [False]
    assert not read_network(tmp_path / "gen-001.bin").network.has(PLIES)
    value = load_network(tmp_path / "gen-001.bin", TIGERS)
    train(tiny(tmp_path, generations=1, moves_left=True), rows.append, log=log.append)
    assert "gen-001.bin (with a new moves-left head)" in log[-1]
    start = load_network(tmp_path / "start.bin", TIGERS)
    assert network_of(start) == network_of(value).with_heads((value_head(), plies_head()))
    assert np.array_equal(start[PLAN : len(value)], value[PLAN:])  # the head comes last
    assert read_network(tmp_path / "gen-002.bin").network.has(PLIES) and rows[-1].plies_after > 0


def test_heads_only_adds_a_head_and_leaves_the_value_exactly_as_it_was(tmp_path):
    rows = []
    train(tiny(tmp_path, generations=1), rows.append, log=lambda line: None)
    value = load_network(tmp_path / "gen-001.bin", TIGERS)
    train(
        tiny(tmp_path, generations=2, moves_left=True, heads_only=True),
        rows.append,
        log=lambda line: None,
    )
    trained = load_network(tmp_path / "gen-003.bin", TIGERS)
    assert np.array_equal(without_head(trained, PLIES), value)
    # each generation's training brings the head nearer its own generation's plies
    assert all(row.plies_after < row.plies_before for row in rows[-2:])
    with pytest.raises(CommandError, match="give --moves-left too"):
        tiny(tmp_path, heads_only=True)


def test_a_value_only_table_looks_as_before():
    assert table_header(("tigers", "sheep")) == HEADER
    assert "plies" not in HEADER
    row = GenerationReport(4, 100, 5, 2, 1, 0.25, 0.5, 0.125, 0.25, None, 0.5, 0.5, 2.5)
    assert format_row(row) == (  # the row of a value-only run, as before the head
        "   4     100      5      2      1   0.2500   0.5000   0.1250   0.2500       -"
        "        50%    0.50     2.5"
    )
    headed = GenerationReport(**{**row.__dict__, "plies_before": 12.5, "plies_after": 9.75})
    assert format_row(headed).split()[9:12] == ["12.50", "9.75", "-"]
    header = table_header(("tigers", "sheep"), moves_left=True)
    assert len(format_row(headed)) - len(format_row(row)) == len(header) - len(HEADER)


def test_bad_moves_left_settings_are_refused(tmp_path, table_k2):
    for weight in (0.0, -1.0, math.nan):
        with pytest.raises(CommandError, match="moves-left weight must be more than 0"):
            tiny(tmp_path, moves_left_weight=weight)
    with pytest.raises(CommandError, match="--tablebase works for Tigers & Sheep only"):
        tiny(tmp_path, game="draughts", tablebase="tb")

    def refused(config, phrase):
        with pytest.raises(CommandError, match=phrase):
            train(config, lambda row: pytest.fail("played"), log=lambda line: None)

    directory = str(table_k2.directory)
    refused(tiny(tmp_path / "a", tablebase=directory), r"has no head \(add --moves-left\)")
    refused(tiny(tmp_path / "b", tablebase=directory, moves_left=True), "won by 2 captures")
    refused(tiny(tmp_path / "c", tablebase=str(tmp_path / "no"), moves_left=True), "no tablebase")
    run = subprocess.run(
        [sys.executable, "-m", "samuel.cli", "train", "1", "2", str(tmp_path / "d")]
        + ["--moves-left-weight", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "'0' must be more than 0" in run.stderr
    assert "Traceback" not in run.stderr


# --- positions drawn from the tablebase (--table-positions) ----------------------------------


def test_drawn_table_positions_are_distinct_undecided_with_the_tables_value_and_distance(table_k2):
    states, outcomes, plies = draw_positions(table_k2, 300, 7)
    assert states.shape == (300, 4) and states.dtype == np.int64
    assert len({tuple(row) for row in states.tolist()}) == 300
    layers = set()
    for state, outcome, distance in zip(states, outcomes, plies, strict=True):
        position = Position.decode(state, 2)
        assert position.sheep_in_hand == 0 and position.captured < 2
        assert position.decided_outcome() is None and position.legal_moves()
        value, exact = table_k2.value(position)  # the side to move's view
        assert outcome == (value if position.tiger_to_move else -value) and distance == exact
        layers.add((position.captured, position.tiger_to_move))
    assert layers == {(0, False), (0, True), (1, False), (1, True)}
    assert set(outcomes.tolist()) == {-1, 0, 1}
    again = draw_positions(table_k2, 300, np.random.default_rng(7))  # a seed or its Generator
    assert all(np.array_equal(a, b) for a, b in zip(again, (states, outcomes, plies), strict=True))
    other = draw_positions(table_k2, 300, 8)
    assert not np.array_equal(other[0], states)
    only = draw_positions(table_k2, 50, 1, layer_weights=[0, 0, 0, 1])  # 1 captured, tigers
    assert {Position.decode(s, 2).captured for s in only[0]} == {1}
    with pytest.raises(ValueError, match="too many"):
        draw_positions(table_k2, 10**8, 1)
    with pytest.raises(ValueError, match="layer weights"):
        draw_positions(table_k2, 5, 1, layer_weights=[1, 1])


def test_a_generations_table_samples_learn_exact_values_and_distances_by_outcome(table_k2):
    samples = table_samples(table_k2, 200, generation=3)
    assert sum(len(samples[o]) for o in (FIRST_WIN, SECOND_WIN, DRAW)) == 200
    for pool, outcome in ((FIRST_WIN, 1), (SECOND_WIN, -1), (DRAW, 0)):
        assert len(samples[pool]) > 0
        assert samples[pool].targets.tolist() == [float(outcome)] * len(samples[pool])
        for state, plies in zip(samples[pool].states, samples[pool].plies, strict=True):
            _, distance = table_k2.value(Position.decode(state, 2))
            assert plies == (distance if outcome else N.NO_PLIES)
    again = table_samples(table_k2, 200, generation=3)
    later = table_samples(table_k2, 200, generation=4)
    assert np.array_equal(again[FIRST_WIN].states, samples[FIRST_WIN].states)
    assert not np.array_equal(later[FIRST_WIN].states, samples[FIRST_WIN].states)
    played = label_games([hand_made_games([marked(3, 0)], [-1])], 0.7)
    merged = with_table_samples(played, samples, 4)
    assert merged[SECOND_WIN].states[:3, 0].tolist() == [0, 1, 2]  # self-play's first
    assert np.array_equal(merged[SECOND_WIN].plies[3:], samples[SECOND_WIN].plies)
    assert len(merged[FIRST_WIN]) == len(samples[FIRST_WIN])


def test_a_run_adds_its_table_positions_to_every_generation(tmp_path, table_k2, monkeypatch):
    # The registered game is won by 5 captures; the 2-capture table stands in for its table
    # (its positions are positions of that game too), and self-play keeps its games' lengths.
    plain_labels = label_games
    monkeypatch.setattr(loop, "training_tablebase", lambda config, moves_left: table_k2)
    monkeypatch.setattr(
        loop, "label_games", lambda parts, lam, game, tablebase, params: plain_labels(parts, lam)
    )
    added = []
    drawn = table_samples

    def recorded(table, count, generation):
        added.append((count, generation))
        return drawn(table, count, generation)

    monkeypatch.setattr(loop, "table_samples", recorded)
    runs = {}
    for name, count, workers in (("none", 0, 1), ("one", 40, 1), ("two", 40, 2)):
        rows = []
        config = tiny(tmp_path / name, moves_left=True, tablebase="tb", workers=workers)
        params = train(
            dataclasses.replace(config, table_positions=count), rows.append, log=lambda x: None
        )
        runs[name] = params, rows
    assert added == [(40, 1), (40, 2), (40, 1), (40, 2)]
    assert runs["one"][0].tobytes() == runs["two"][0].tobytes()
    assert runs["one"][1][0].trained > runs["none"][1][0].trained
    record = json.loads((tmp_path / "one" / "gen-002.json").read_text())
    assert record["config"]["table_positions"] == 40


@pytest.mark.slow
def test_table_positions_need_the_tablebase(tmp_path):
    with pytest.raises(CommandError, match="give --tablebase too"):
        tiny(tmp_path, moves_left=True, table_positions=10)
    with pytest.raises(CommandError, match="table positions must not be negative"):
        tiny(tmp_path, moves_left=True, tablebase="tb", table_positions=-1)
    run = subprocess.run(
        [sys.executable, "-m", "samuel.cli", "train", "1", "2", str(tmp_path / "d")]
        + ["--moves-left", "--table-positions", "10"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and "give --tablebase too" in run.stderr
    assert "Traceback" not in run.stderr
