"""Labelled positions from self-play: reproducible on any number of threads, one row per
position with its game's result, written and read back, and bad files refused clearly."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from samuel.games.tigers.rules import Position
from samuel.players import PlayerSpecError
from samuel.tune.config import SelfPlayDataConfig
from samuel.tune.dataset import (
    DatasetError,
    load_positions,
    make_positions,
    save_positions,
    selfplay_player,
    split_by_game,
)

SMALL = SelfPlayDataConfig(games=6, player="classic:depth=1", random_plies=4, ply_cap=60, seed=3)


@pytest.fixture(scope="module")
def data():
    return make_positions(SMALL)


def test_the_positions_are_the_same_on_1_and_2_threads(data):
    numba.set_num_threads(1)
    try:
        alone = make_positions(SMALL)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for name in ("states", "results", "games", "plies", "random_moves", "scores"):
        assert np.array_equal(getattr(alone, name), getattr(data, name)), name


def test_each_game_is_its_positions_in_order_with_its_result(data):
    assert sorted(set(data.games.tolist())) == list(range(6))
    for g in range(6):
        rows = data.games == g
        assert np.array_equal(data.plies[rows], np.arange(rows.sum()))
        assert len(set(data.results[rows].tolist())) == 1
        assert data.random_moves[rows][:4].all()  # the random opening plies
        start = Position.decode(data.states[rows][0])
        assert start == Position.initial()
    assert data.states.dtype == np.int64 and data.results.dtype == np.int8
    assert len({int(r) for r in data.results}) >= 1 and set(data.results.tolist()) <= {-1, 0, 1}


def test_a_saved_file_reads_back_the_same(tmp_path, data):
    path = tmp_path / "sub" / "d.npz"
    save_positions(data, path)
    loaded = load_positions(path)
    for name in ("states", "results", "games", "plies", "random_moves", "scores"):
        assert np.array_equal(getattr(loaded, name), getattr(data, name)), name
    assert loaded.config["player"] == "classic:depth=1" and loaded.config["seed"] == 3
    assert [p.name for p in path.parent.iterdir()] == ["d.npz"]  # no temporary file left


def test_bad_files_are_refused_with_the_reason(tmp_path, data):
    with pytest.raises(DatasetError, match="does not exist"):
        load_positions(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(DatasetError, match="not a labelled positions file"):
        load_positions(tmp_path / "text.npz")
    np.savez(tmp_path / "partial.npz", states=data.states)
    with pytest.raises(DatasetError, match="lacks results"):
        load_positions(tmp_path / "partial.npz")


def test_the_split_is_by_game(data):
    games = np.repeat(np.arange(50), 7)
    held_out = split_by_game(games, 0.2, seed=1)
    assert not set(games[held_out].tolist()) & set(games[~held_out].tolist())
    assert len(set(games[held_out].tolist())) == 10
    assert np.array_equal(held_out, split_by_game(games, 0.2, seed=1))
    assert not np.array_equal(held_out, split_by_game(games, 0.2, seed=2))
    with pytest.raises(ValueError, match="at least two games"):
        split_by_game(np.zeros(5, dtype=np.int32), 0.2, seed=1)


@pytest.mark.parametrize(
    ("spec", "error", "phrase"),
    [
        ("random", ValueError, "does not search"),
        ("classic:time=1", ValueError, "searches by time"),
        ("classic:epsilon=0.1", ValueError, "--epsilon"),
        ("wizard", PlayerSpecError, "unknown player"),
    ],
)
def test_self_play_needs_a_player_that_searches_to_a_depth(spec, error, phrase):
    with pytest.raises(error, match=phrase):
        selfplay_player(spec)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="epsilon must be between 0 and 1"):
        SelfPlayDataConfig(epsilon=2.0)
    with pytest.raises(ValueError, match="games must be at least 1"):
        SelfPlayDataConfig(games=0)
