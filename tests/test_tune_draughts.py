"""Tuning English draughts: its classic features as the plain reference computes them, its data
sets checked row by row before any kernel sees them, files of the other game refused, hill
climbing on draughts, and selfplay -> tune -> play through the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from samuel.games.draughts import classic
from samuel.games.draughts.rules import Position
from samuel.tune import gradient as G
from samuel.tune.config import HillClimbConfig, SelfPlayDataConfig, TuneConfig
from samuel.tune.dataset import (
    DatasetError,
    LabelledPositions,
    load_positions,
    make_positions,
    save_positions,
)
from samuel.tune.hillclimb import hill_climb, mutate
from tests.cli_process import samuel
from tests.reference import tuning as reference

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def positions():
    found = reference.random_draughts_positions(300, seed=5)
    assert any(p.kings for p in found) and any(not p.black_to_move for p in found)
    return np.array([p.encode() for p in found], dtype=np.int64)


# --- the features -----------------------------------------------------------------------------


def test_the_features_kernel_agrees_with_the_plain_reference(positions):
    dense = G.dense_features(positions, "draughts")
    assert dense.shape == (len(positions), classic.FEATURE_COUNT)
    for row, state in zip(dense, positions, strict=True):
        board = reference.draughts_board(int(state[0]), int(state[1]), int(state[2]))
        assert row.tolist() == reference.draughts_features(board), Position.decode(state)


def test_the_sparse_dot_product_is_the_classic_evaluation(positions):
    features = G.sparse_features(positions, "draughts")
    assert features.feature_count == classic.FEATURE_COUNT
    weights = np.random.default_rng(2).normal(0.0, 0.3, classic.FEATURE_COUNT)
    scratch = np.zeros(classic.FEATURE_COUNT, dtype=np.float32)
    expected = [classic.classic_evaluate(*s[:4], weights, scratch) for s in positions]
    assert np.allclose(G.evaluations(features, weights), expected)


def test_the_gradient_matches_finite_differences(positions):
    features = G.sparse_features(positions, "draughts")
    dense = G.dense_features(positions, "draughts").astype(np.float64)
    target = G.result_targets(np.random.default_rng(4).choice([-1, 0, 1], len(positions)))
    weights = classic.load_weights()
    error, grad = G.error_gradient(features, target, weights, 0.3)
    assert error == pytest.approx(reference.mean_squared_error(dense, target, weights, 0.3))
    assert np.allclose(
        grad, reference.finite_difference_gradient(dense, target, weights, 0.3), atol=1e-7
    )


def test_a_tigers_row_is_not_a_draughts_state():
    with pytest.raises(ValueError, match="rows of 5"):
        G.dense_features(np.zeros((2, 4), dtype=np.int64), "draughts")


# --- data sets --------------------------------------------------------------------------------


SMALL = SelfPlayDataConfig(
    games=4, player="classic:depth=1", random_plies=4, ply_cap=80, seed=2, game="draughts"
)


@pytest.fixture(scope="module")
def data():
    return make_positions(SMALL)


def test_draughts_self_play_records_its_game_and_five_word_states(tmp_path, data):
    assert data.game == "draughts" and data.states.shape[1] == 5
    assert Position.decode(data.states[0]) == Position.initial()
    save_positions(data, tmp_path / "d.npz")
    loaded = load_positions(tmp_path / "d.npz", "draughts")
    assert loaded.game == "draughts" and np.array_equal(loaded.states, data.states)
    assert load_positions(tmp_path / "d.npz").game == "draughts"  # any game asked for


def test_a_file_of_the_other_game_is_refused(tmp_path, data):
    save_positions(data, tmp_path / "d.npz")
    with pytest.raises(DatasetError, match="positions of English draughts, not Tigers & Sheep"):
        load_positions(tmp_path / "d.npz", "tigers")
    tigers = make_positions(SelfPlayDataConfig(games=2, player="classic:depth=1", ply_cap=30))
    save_positions(tigers, tmp_path / "t.npz")
    with pytest.raises(DatasetError, match="positions of Tigers & Sheep, not English draughts"):
        load_positions(tmp_path / "t.npz", "draughts")
    # A Tigers & Sheep file from before files named their game loads as Tigers & Sheep.
    old = LabelledPositions(
        *(getattr(tigers, name) for name in ("states", "results", "games", "plies")),
        tigers.random_moves,
        tigers.scores,
        {key: value for key, value in tigers.config.items() if key != "game"},
    )
    save_positions(old, tmp_path / "old.npz")
    assert load_positions(tmp_path / "old.npz", "tigers").game == "tigers"
    with pytest.raises(DatasetError, match="positions of Tigers & Sheep, not English draughts"):
        load_positions(tmp_path / "old.npz", "draughts")


def _start_rows(rows: int = 4) -> dict:
    return {
        "states": np.tile(Position.initial().encode(), (rows, 1)),
        "results": np.zeros(rows, dtype=np.int8),
        "games": np.arange(rows, dtype=np.int32) // 2,
        "plies": np.arange(rows, dtype=np.int16) % 2,
        "random_moves": np.zeros(rows, dtype=np.bool_),
        "scores": np.zeros(rows, dtype=np.float32),
    }


# A row of the start position's states with these columns changed, and what the refusal says.
BLACK, WHITE, KINGS, SIDE, QUIET = range(5)
BAD_STATES = {
    "black_off_the_board": ((0, {BLACK: (1 << 32) | 1}), "states row 0 .*black must be a 32-bit"),
    "negative_white": ((1, {WHITE: -1}), "states row 1 .*white must be a 32-bit mask"),
    "kings_off_the_board": ((2, {KINGS: 1 << 40}), "states row 2 .*kings must be a 32-bit mask"),
    "both_colours": ((3, {WHITE: (0xFFF << 20) | 1}), "states row 3 .*1 hold both a black and"),
    "king_of_neither": ((0, {KINGS: 1 << 15}), "states row 0 .*kings on 16 belong to neither"),
    "thirteen_black": ((1, {BLACK: 0x1FFF}), "states row 1 .*13 pieces, more than 12"),
    "black_man_crowned": (
        (2, {BLACK: 1 << 28, WHITE: 1 << 20}),
        "states row 2 .*a black man stands on 29, where it would be a king",
    ),
    "white_man_crowned": (
        (3, {BLACK: 1 << 10, WHITE: 1 << 3}),
        "states row 3 .*a white man stands on 4, where it would be a king",
    ),
    "side_two": ((0, {SIDE: 2}), "states row 0 .*black to move .column 3. is not 0 or 1"),
    "side_negative": ((1, {SIDE: -1}), "states row 1 .*black to move .*not 0 or 1"),
    "quiet_negative": ((2, {QUIET: -1}), "states row 2 .*quiet plies .column 4. are not 0 to 80"),
    "quiet_too_many": ((3, {QUIET: 81}), "states row 3 .*quiet plies .*not 0 to 80"),
    "second_bad_row_named": ((2, {BLACK: 0x1FFF}), "states row 2 .*13 pieces"),
}
BAD_FILES = {
    "rows_of_four": ("states is int64 of shape .4x4., expected int64 with rows of 5", None),
    "game_unknown": ("config names no game this program tunes", "chess"),
    "game_not_text": ("config names no game this program tunes", 5),
}


def _write_bad_files(folder: Path) -> None:
    for name, ((row, columns), _) in BAD_STATES.items():
        arrays = _start_rows()
        for column, value in columns.items():
            arrays["states"][row, column] = value
        if name == "second_bad_row_named":  # a later row bad in another way: row 2 is named
            arrays["states"][3, SIDE] = 7
        data = LabelledPositions(**arrays, config={"games": 2, "game": "draughts"})
        save_positions(data, folder / f"{name}.npz")
    arrays = _start_rows()
    arrays["states"] = arrays["states"][:, :4]
    np.savez(folder / "rows_of_four.npz", **arrays, config=np.array('{"game": "draughts"}'))
    for name in ("game_unknown", "game_not_text"):
        config = json.dumps({"game": BAD_FILES[name][1]})
        np.savez(folder / f"{name}.npz", **_start_rows(), config=np.array(config))


def load_each(folder: str) -> None:
    """Run in a child process by the test below: load every file of ``folder`` as draughts and
    print its name and the refusal (or, for a file that loads, put it through the tuner's
    kernels). A crash in a kernel ends the child, not the test run."""
    for path in sorted(Path(folder).glob("*.npz")):
        print(f"trying: {path.stem}", file=sys.stderr, flush=True)
        try:
            data = load_positions(path, "draughts")
        except DatasetError as error:
            print(f"{path.stem}\t{error}", flush=True)
            continue
        features = G.sparse_features(data.states, "draughts")
        G.error_gradient(features, G.result_targets(data.results), classic.load_weights(), 1.0)
        print(f"{path.stem}\tloaded", flush=True)


@pytest.mark.slow
def test_each_bad_draughts_value_is_refused_with_a_clear_message_and_no_crash(tmp_path):
    _write_bad_files(tmp_path)
    child = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-c",
            "import sys; from tests.test_tune_draughts import load_each; load_each(sys.argv[1])",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    said = dict(line.split("\t", 1) for line in child.stdout.splitlines())
    expected = {name: phrase for name, (_, phrase) in BAD_STATES.items()}
    expected |= {name: phrase for name, (phrase, _) in BAD_FILES.items()}
    assert set(said) == set(expected)
    for name, phrase in expected.items():
        assert re.search(phrase, said[name]), (name, said[name])
        assert str(tmp_path / f"{name}.npz") in said[name]


# --- settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({"fixed": ("captured",)}, "unknown feature.*captured.*features of English draughts"),
        ({"fixed": ("kings",)}, "men is the unit .one man. and must stay fixed"),
    ],
)
def test_bad_draughts_tuning_settings_are_refused(changes, phrase):
    with pytest.raises(ValueError, match=phrase):
        TuneConfig(game="draughts", **changes)


def test_the_game_s_defaults_are_filled_in():
    assert TuneConfig(game="draughts").fixed == ("men",)
    assert TuneConfig().fixed == ("captured",)
    assert HillClimbConfig(game="draughts").features == ("kings", "advance", "back_row", "centre")
    with pytest.raises(ValueError, match="men is the unit"):
        HillClimbConfig(game="draughts", features=("men",))
    with pytest.raises(ValueError, match="odd number of plies"):
        HillClimbConfig(game="draughts", opening_plies=4, final_opening_plies=6)
    HillClimbConfig(opening_plies=4, final_opening_plies=6)  # Tigers & Sheep: any other length
    with pytest.raises(ValueError, match="knows no game"):
        SelfPlayDataConfig(game="chess")


# --- hill climbing ----------------------------------------------------------------------------


def test_a_mutation_changes_one_draughts_weight():
    weights = classic.load_weights()
    tunable = HillClimbConfig(game="draughts").features
    for number in range(1, 20):
        feature, changed = mutate(weights, tunable, 0.3, 4, number, "draughts")
        differs = np.flatnonzero(changed != weights)
        assert [classic.FEATURES[i] for i in differs] == [feature] and changed[0] == 1.0


def test_hill_climbing_plays_draughts_and_writes_draughts_weights(tmp_path):
    config = HillClimbConfig(
        game="draughts",
        rounds=2,
        games=2,
        out_dir=str(tmp_path / "hc"),
        depth=1,
        accept=0.5,
        final_games=2,
        ply_cap=60,
        workers=1,
        seed=1,
    )
    lines: list[str] = []
    run = hill_climb(config, log=lines.append)
    out = tmp_path / "hc"
    learned = classic.load_weights(out / "learned.json")
    assert list(run["learned"]) == list(classic.FEATURES)
    assert learned.tolist() == list(run["learned"].values())
    champion = classic.load_weights()
    for row in map(json.loads, (out / "rounds.jsonl").read_text().splitlines()):
        assert row["feature"] in config.features
        if row["accepted"]:
            champion[classic.FEATURES.index(row["feature"])] = row["after"]
    assert np.array_equal(champion, learned)
    saved = json.loads((out / "learned.json").read_text())["tuning"]
    assert saved["config"]["game"] == "draughts" and saved["final"]["games"] == 2
    assert sum(line.startswith("round ") for line in lines) == 2


# --- the command line -------------------------------------------------------------------------


@pytest.mark.slow
def test_selfplay_tune_and_play_draughts_from_the_command_line(tmp_path):
    data, tuned = tmp_path / "d.npz", tmp_path / "tuned.json"
    run = samuel(
        "selfplay",
        "--game",
        "draughts",
        "--games",
        "20",
        "--player",
        "classic:depth=1",
        "--ply-cap",
        "120",
        "--out",
        str(data),
        "--workers",
        "1",
        "--no-progress",
    )
    assert run.returncode == 0, run.stderr
    assert "20 games" in run.stdout and "black won" in run.stdout and "white won" in run.stdout
    assert load_positions(data).game == "draughts"

    run = samuel("tune", str(data), "--out", str(tuned))  # the default game is tigers
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "positions of English draughts, not Tigers & Sheep" in run.stderr
    assert "--game draughts" in run.stderr and not tuned.exists()

    run = samuel("tune", "--game", "draughts", str(data), "--out", str(tuned), "--iterations", "50")
    assert run.returncode == 0, run.stderr
    assert "per man" in run.stdout and "men " in run.stdout
    weights = classic.load_weights(tuned)  # a draughts classic weights file
    assert weights[0] == 1.0 and not np.array_equal(weights, classic.load_weights())
    document = json.loads(tuned.read_text())
    assert document["tuning"]["config"]["game"] == "draughts"
    assert document["tuning"]["config"]["fixed"] == ["men"]

    run = samuel(
        "play",
        "--game",
        "draughts",
        "-B",
        f"classic:weights={tuned}:depth=2",
        "-W",
        "random",
        "--record",
        str(tmp_path / "game.pdn"),
    )
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout
    run = samuel(
        "match",
        "--game",
        "draughts",
        f"classic:weights={tuned}",
        "classic",
        "--games",
        "2",
        "--depth",
        "1",
        "--workers",
        "1",
        "--no-progress",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr

    run = samuel("play", "-S", f"classic:weights={tuned}", "-T", "random")
    assert run.returncode == 2 and "missing" in run.stderr  # not a Tigers & Sheep file


@pytest.mark.slow
def test_the_draughts_features_are_checked_on_the_command_line(tmp_path):
    run = samuel("tune", "--game", "draughts", "x.npz", "--fixed", "men,captured", cwd=tmp_path)
    assert run.returncode == 2 and "unknown feature(s) captured" in run.stderr
    run = samuel(
        "hillclimb", "--game", "draughts", "--features", "men", "--out-dir", "h", cwd=tmp_path
    )
    assert run.returncode == 2 and "men is the unit" in run.stderr
    assert not (tmp_path / "h").exists()
