"""Self-play training: TD(lambda) labels, balancing, orientations, reproducibility, resuming."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.errors import FileError
from samuel.games import kernels as games
from samuel.games.tigers.board import SYMMETRIES
from samuel.games.tigers.rules import Position
from samuel.nn import network as N
from samuel.nn.weights import load_parameters, save_parameters
from samuel.train.buffer import DRAW, SHEEP_WIN, TIGER_WIN, SampleBuffer, Samples, balanced_epoch
from samuel.train.config import TrainConfig
from samuel.train.loop import TrainingDiverged, game_seed, train
from samuel.train.selfplay import play_selfplay
from samuel.train.targets import td_lambda_targets
from samuel.train.trainer import orient

SCORES = np.array([0.2, -0.4, 0.6, 0.1], dtype=np.float32)


def targets(lam: float, random_at: tuple[int, ...] = (), result: float = 1.0) -> list[float]:
    random_moves = np.zeros(len(SCORES), dtype=np.bool_)
    random_moves[list(random_at)] = True
    out = np.zeros(len(SCORES), dtype=np.float32)
    td_lambda_targets(SCORES, random_moves, result, lam, out)
    return out.tolist()


@pytest.mark.parametrize(
    ("lam", "random_at", "expected"),
    [
        (1.0, (), [1.0, 1.0, 1.0, 1.0]),
        (0.0, (), [-0.4, 0.6, 0.1, 1.0]),
        (0.7, (), [0.3637, 0.691, 0.73, 1.0]),
        (1.0, (2,), [0.6, 0.6, 0.6, 1.0]),
        (0.0, (2,), [-0.4, 0.6, 0.6, 1.0]),
        (0.7, (2,), [0.30, 0.6, 0.6, 1.0]),
        (0.7, (3,), [0.055, 0.25, 0.1, 0.1]),  # a random last move: no result learnt
    ],
)
def test_td_lambda_targets_match_hand_computed_values(lam, random_at, expected):
    assert targets(lam, random_at) == pytest.approx(expected, abs=1e-6)


def samples(count: int, label: float) -> Samples:
    states = np.zeros((count, 4), dtype=np.int64)
    states[:, 0] = np.arange(count)  # tell positions apart
    return Samples(states, np.full(count, label, dtype=np.float32))


def test_balancing_takes_the_mean_of_the_two_wins_and_every_draw():
    rng = np.random.default_rng(1)
    epoch = balanced_epoch(samples(10, 1.0), samples(4, -1.0), samples(3, 0.0), rng)
    tiger_rows = epoch.states[epoch.targets == 1.0, 0]
    sheep_rows = epoch.states[epoch.targets == -1.0, 0]
    draw_rows = epoch.states[epoch.targets == 0.0, 0]
    assert len(tiger_rows) == len(sheep_rows) == 7 and len(draw_rows) == 3
    assert len(set(tiger_rows.tolist())) == 7  # the bigger pool: a subset, each at most once
    assert set(sheep_rows.tolist()) == {0, 1, 2, 3}  # the smaller: every one, plus repeats
    assert sorted(draw_rows.tolist()) == [0, 1, 2]


def test_without_both_kinds_of_win_or_with_no_balance_everything_is_used():
    rng = np.random.default_rng(2)
    assert len(balanced_epoch(samples(10, 1.0), samples(0, -1.0), samples(3, 0.0), rng)) == 13
    assert (
        len(balanced_epoch(samples(10, 1.0), samples(4, -1.0), samples(3, 0.0), rng, balance=False))
        == 17
    )


def test_the_buffer_keeps_the_last_generations():
    buffer = SampleBuffer(2, 4)
    for generation in range(3):
        buffer.add_generation({TIGER_WIN: samples(generation + 1, 1.0), DRAW: samples(1, 0.0)})
    assert len(buffer.pool(TIGER_WIN)) == 2 + 3 and len(buffer.pool(DRAW)) == 2
    assert len(buffer.pool(SHEEP_WIN)) == 0


def symmetric_network() -> np.ndarray:
    """A network whose first layer gives every point the row of its orbit's first point."""
    params = N.random_parameters(21)
    for p in range(25):
        representative = min(int(SYMMETRIES[s, p]) for s in range(8))
        for offset in (0, 25):
            row = N.W1 + (offset + p) * N.HIDDEN1
            source = N.W1 + (offset + representative) * N.HIDDEN1
            params[row : row + N.HIDDEN1] = params[source : source + N.HIDDEN1]
    return params


def test_the_eight_orientations_of_a_sample_have_the_same_value_for_a_symmetric_net():
    params = symmetric_network()
    scratch = np.zeros(N.SCRATCH, dtype=np.float32)
    position = Position.parse("T1S1T/1SS2/2T2/S3S/3ST T 12")
    states = np.repeat(position.encode()[None, :], 8, axis=0)
    tigers, sheep = np.zeros(8, np.int64), np.zeros(8, np.int64)
    orient(states, np.arange(8), tigers, sheep)
    values = [N.forward(params, tigers[s], sheep[s], 12, 1, scratch) for s in range(8)]
    assert len({(int(t), int(s)) for t, s in zip(tigers, sheep, strict=True)}) == 8
    assert values == pytest.approx([values[0]] * 8, abs=1e-6)
    assert values[0] != pytest.approx(
        N.forward(N.random_parameters(22), tigers[1], sheep[1], 12, 1, scratch), abs=1e-3
    )


def test_self_play_games_depend_only_on_their_seeds():
    params = N.random_parameters(5)
    root = Position.initial().encode()
    seeds = np.array([game_seed(7, g) for g in range(6)], dtype=np.int64)

    def run(seeds):
        return play_selfplay(
            games.TIGERS_AND_SHEEP,
            games.EVALUATOR_NETWORK,
            params,
            root,
            depth=2,
            random_plies=4,
            epsilon=0.1,
            ply_cap=120,
            seeds=seeds,
        )

    together, alone = run(seeds), run(seeds[3:4])
    assert np.array_equal(together.positions[3], alone.positions[0])
    assert np.array_equal(together.random_moves[3], alone.random_moves[0])
    assert together.random_moves[:, :4].all()  # the random opening plies
    assert len({together.plies[g] for g in range(6)}) > 1  # different seeds, different games


def tiny(out_dir, **changes) -> TrainConfig:
    settings = dict(
        generations=2, games=24, out_dir=str(out_dir), depth=2, ply_cap=80, match_every=1000
    )
    return TrainConfig(**{**settings, **changes})


def test_training_is_bit_identical_on_1_and_2_workers(tmp_path):
    one = train(tiny(tmp_path / "one", workers=1), lambda row: None, log=lambda line: None)
    two = train(tiny(tmp_path / "two", workers=2), lambda row: None, log=lambda line: None)
    assert one.tobytes() == two.tobytes()
    assert not np.array_equal(one, N.random_parameters(0x5EED))


def test_a_run_resumes_from_the_newest_generation_and_numbers_carry_on(tmp_path):
    rows, lines = [], []
    train(tiny(tmp_path), rows.append, log=lines.append)
    assert [row.generation for row in rows] == [1, 2]
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert {"gen-001.bin", "gen-002.bin", "gen-001.json", "gen-002.json", "latest.bin"} <= set(
        saved
    )
    assert np.array_equal(
        load_parameters(tmp_path / "latest.bin"), load_parameters(tmp_path / "gen-002.bin")
    )
    train(tiny(tmp_path, generations=1), rows.append, log=lines.append)
    assert rows[-1].generation == 3
    assert "gen-002.bin" in lines[-1]
    train(
        tiny(tmp_path, generations=1, start_from=str(tmp_path / "gen-001.bin")),
        rows.append,
        log=lines.append,
    )
    assert rows[-1].generation == 4 and "gen-001.bin" in lines[-1]


def test_a_diverged_generation_is_not_saved_and_latest_stays_the_last_good_one(tmp_path):
    train(tiny(tmp_path, generations=1), lambda row: None, log=lambda line: None)
    good = (tmp_path / "gen-001.bin").read_bytes()
    with pytest.raises(TrainingDiverged, match=r"generation 2 diverged.*latest.bin is still"):
        train(
            tiny(tmp_path, generations=2, learning_rate=1e30),
            lambda row: None,
            log=lambda line: None,
        )
    assert not (tmp_path / "gen-002.bin").exists() and not (tmp_path / "gen-002.json").exists()
    assert (tmp_path / "latest.bin").read_bytes() == good
    assert np.isfinite(load_parameters(tmp_path / "latest.bin")).all()
    with pytest.raises(ValueError, match="not all finite"):  # and the writer refuses them too
        save_parameters(np.full(N.PARAMS, np.nan, dtype=np.float32), tmp_path / "nan.bin")
    assert not (tmp_path / "nan.bin").exists()


def test_a_run_folder_that_cannot_be_written_is_refused_before_any_game(tmp_path):
    (tmp_path / "file").write_text("")
    for out_dir, reason in (
        (tmp_path / "file", "it is not a folder"),
        (tmp_path / "file" / "run", "a part of its path"),
        ("/proc/run", "no file can be created in /proc"),
    ):
        with pytest.raises(FileError, match=reason):
            train(tiny(out_dir), lambda row: pytest.fail("played"), log=lambda line: None)
