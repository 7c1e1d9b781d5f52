"""Self-play training: TD(lambda) labels, balancing, orientations, reproducibility, resuming,
for Tigers & Sheep and for draughts."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from samuel.errors import CommandError, FileError
from samuel.evaluation import kernels as evaluation
from samuel.evaluation.evaluators import scratch_size
from samuel.evaluation.networks import load_network, network_shape, random_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.draughts.rules import Position as DraughtsPosition
from samuel.games.tigers.board import SYMMETRIES
from samuel.games.tigers.rules import Position
from samuel.match.head_to_head import play_match
from samuel.nn import network as N
from samuel.nn.shape import PLAN, network_of
from samuel.nn.weights import save_network_array
from samuel.players import PlayerSpecError, SearchPlayer, make_player
from samuel.train import phase_training
from samuel.train.buffer import DRAW, FIRST_WIN, SECOND_WIN, SampleBuffer, Samples, balanced_epoch
from samuel.train.config import TrainConfig
from samuel.train.loop import TrainingDiverged, game_seed, train
from samuel.train.selfplay import SelfPlaySettings, play_selfplay
from samuel.train.targets import td_lambda_targets
from samuel.train.trainer import encode
from tests import game_numbers

TIGERS = game_numbers.TIGERS
TIGER_NETWORK = network_shape(TIGERS)


def load_parameters(path):
    return load_network(path, TIGERS)


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
        buffer.add_generation({FIRST_WIN: samples(generation + 1, 1.0), DRAW: samples(1, 0.0)})
    assert len(buffer.pool(FIRST_WIN)) == 2 + 3 and len(buffer.pool(DRAW)) == 2
    assert len(buffer.pool(SECOND_WIN)) == 0


def symmetric_network() -> np.ndarray:
    """A network whose first layer gives every point the row of its orbit's first point."""
    params = random_network(TIGERS, 21)
    w1, _, _, _, units = TIGER_NETWORK.layers()[0]  # input-major: a row of units per input
    for p in range(25):
        representative = min(int(SYMMETRIES[s, p]) for s in range(8))
        for offset in (0, 25):
            row = w1 + (offset + p) * units
            source = w1 + (offset + representative) * units
            params[row : row + units] = params[source : source + units]
    return params


def test_the_eight_orientations_of_a_sample_have_the_same_value_for_a_symmetric_net():
    params = symmetric_network()
    scratch = np.zeros(TIGER_NETWORK.forward_scratch, dtype=np.float32)
    position = Position.parse("T1S1T/1SS2/2T2/S3S/3ST T 12")
    states = np.repeat(position.encode()[None, :], 8, axis=0)
    e = encode(TIGERS, Samples(states, np.full(8, 0.5, np.float32)), np.arange(8))
    assert e.targets.tolist() == [0.5] * 8  # the symmetries keep the tigers' value

    def value(params, s):
        return N.forward(params, e.active[s], e.values[s], e.counts[s], scratch)

    values = [value(params, s) for s in range(8)]
    assert len({tuple(e.active[s, : e.counts[s]]) for s in range(8)}) == 8
    assert values == pytest.approx([values[0]] * 8, abs=1e-6)
    assert values[0] != pytest.approx(value(random_network(TIGERS, 22), 1), abs=1e-3)


def test_draughts_half_turn_images_agree_with_the_symmetrys_sign():
    """Draughts' half-turn swaps the colours: in the first player's (Black's) view a value
    changes sign; the network, which sees the side to move's view, gives both the same inputs
    and the same target, and the search's value of the image is minus the original's."""
    rules = get_game("draughts")
    params = random_network(game_numbers.DRAUGHTS, 3)
    room = max(
        scratch_size(game_numbers.DRAUGHTS, games.EVALUATOR_NETWORK, params),
        scratch_size(game_numbers.DRAUGHTS, games.EVALUATOR_CLASSIC, rules.classic_weights()),
    )
    scratch = np.zeros(room, dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    image = np.zeros(5, dtype=np.int64)
    assert (
        games.symmetry_sign(game_numbers.DRAUGHTS, 1)
        == -1
        == -games.symmetry_sign(game_numbers.DRAUGHTS, 0)
    )
    for text in ("B:W21,22,K30:B1,K2,9", "W:W18,23,24:BK5,6,7", "B:WK1:BK32"):
        position = DraughtsPosition.parse(text)
        state = rules.encode(position)
        games.transform(game_numbers.DRAUGHTS, state, 1, image)
        assert np.array_equal(image, rules.encode(rules.transform_position(position, 1)))
        value = evaluation.network_value(game_numbers.DRAUGHTS, params, state, scratch, active)
        mirrored = evaluation.network_value(game_numbers.DRAUGHTS, params, image, scratch, active)
        assert mirrored == -value != 0  # first player's view: the sign the symmetry gives
        for evaluator in (games.EVALUATOR_NETWORK, games.EVALUATOR_CLASSIC):
            weights = params if evaluator else rules.classic_weights()
            a = evaluation.evaluate(
                game_numbers.DRAUGHTS, evaluator, weights, state, scratch, active
            )
            b = evaluation.evaluate(
                game_numbers.DRAUGHTS, evaluator, weights, image, scratch, active
            )
            assert b == pytest.approx(-a, abs=1e-6)
        both = Samples(np.stack([state, state]), np.array([0.25, 0.25], np.float32))
        e = encode(game_numbers.DRAUGHTS, both, np.array([0, 1]))
        n = e.counts[0]
        assert e.counts[1] == n and np.array_equal(e.active[0, :n], e.active[1, :n])
        side = 1 if position.black_to_move else -1
        assert e.targets.tolist() == [0.25 * side] * 2  # the side to move's target, both times


def test_self_play_games_depend_only_on_their_seeds():
    params = random_network(TIGERS, 5)
    root = Position.initial().encode()
    seeds = np.array([game_seed(7, g) for g in range(6)], dtype=np.int64)

    def run(seeds):
        settings = SelfPlaySettings(
            game_numbers.TIGERS,
            games.EVALUATOR_NETWORK,
            params,
            root,
            depth=2,
            random_plies=4,
            epsilon=0.1,
            ply_cap=120,
        )
        return play_selfplay(settings, seeds)

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


@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_training_is_bit_identical_on_1_and_2_workers(tmp_path, game):
    settings = {"game": game}
    quiet = {"report": lambda row: None, "log": lambda line: None}
    one = train(tiny(tmp_path / "one", workers=1, **settings), **quiet)
    two = train(tiny(tmp_path / "two", workers=2, **settings), **quiet)
    assert one.tobytes() == two.tobytes()
    number = get_game(game).number
    assert not np.array_equal(one, random_network(number, 0x5EED))
    assert np.array_equal(load_network(tmp_path / "one" / "latest.bin", number), one)


def test_a_wider_network_trains_from_random_weights_and_keeps_its_shape_when_resumed(tmp_path):
    lines = []
    trained = train(tiny(tmp_path, generations=1, hidden=(96, 48, 16)), print, log=lines.append)
    assert "hidden layers 96-48-16" in lines[0]
    shape = network_of(trained)
    assert shape.hidden == (96, 48, 16) and shape.inputs == network_of(random_network(0, 1)).inputs
    assert network_of(load_network(tmp_path / "latest.bin", 0)) == shape
    resumed = train(tiny(tmp_path, generations=1), print, log=lines.append)  # --hidden: 64,32
    assert network_of(resumed) == shape and not np.array_equal(resumed, trained)


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


def test_the_learning_rate_falls_geometrically_to_the_final_one_over_the_run(tmp_path, monkeypatch):
    config = tiny(tmp_path, generations=3, learning_rate=1e-3, final_learning_rate=1e-5)
    assert [config.learning_rate_at(i) for i in range(3)] == pytest.approx([1e-3, 1e-4, 1e-5])
    assert tiny(tmp_path, learning_rate=2e-3).learning_rate_at(1) == 2e-3  # constant by default
    used = []
    real = phase_training.train_epoch

    def recording(game, params, adam, epoch, batch_size, learning_rate, *rest):
        used.append(learning_rate)
        return real(game, params, adam, epoch, batch_size, learning_rate, *rest)

    monkeypatch.setattr(phase_training, "train_epoch", recording)
    train(config, lambda row: None, log=lambda line: None)
    # every epoch of a generation trains at that generation's rate (two epochs each)
    assert used == pytest.approx([1e-3, 1e-3, 1e-4, 1e-4, 1e-5, 1e-5])
    with pytest.raises(CommandError, match="final learning rate must be more than 0"):
        tiny(tmp_path, final_learning_rate=0.0)


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
    nan = TIGER_NETWORK.random(1)
    nan[PLAN:] = np.nan
    with pytest.raises(ValueError, match="not all finite"):  # and the writer refuses them too
        save_network_array(nan, tmp_path / "nan.bin", TIGERS)
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


@pytest.mark.slow
def test_draughts_trains_end_to_end_from_the_command_line_and_its_network_plays(tmp_path):
    args = ["train", "--game", "draughts", "2", "6", str(tmp_path), "--depth", "1"]
    args += ["--ply-cap", "60", "--match-every", "2", "--match-games", "2", "--workers", "1"]
    run = subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0].split()[:6] == ["gen", "trained", "black", "white", "draws", "B"]
    assert [line.split()[0] for line in lines[1:]] == ["1", "2"]
    assert lines[2].split()[9].endswith("%") and lines[2].split()[10].endswith("%")  # matches
    latest = tmp_path / "latest.bin"
    draughts = get_game("draughts")
    for spec in (f"{latest}:depth=2", f"hybrid:net={latest},depth=2"):
        player = make_player(spec, draughts)
        assert isinstance(player, SearchPlayer)
    match = play_match(f"{latest}:depth=2", "random", 4, game="draughts", ply_cap=100)
    assert match.games == 4
    with pytest.raises(PlayerSpecError, match="a network for English draughts, not Tigers"):
        make_player(str(latest), get_game("tigers"))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["train"], ("tigers", 50, 500, "weights")),
        (["train", "--game", "draughts"], ("draughts", 200, 1000, "weights/draughts")),
        (["train", "--game", "draughts", "3", "10", "out"], ("draughts", 3, 10, "out")),
        (["train", "7"], ("tigers", 7, 500, "weights")),
    ],
)
def test_each_game_has_its_own_training_defaults(monkeypatch, argv, expected):
    from samuel import cli
    from samuel.train import command

    seen = []
    monkeypatch.setattr(command, "train", lambda config, *args, **kwargs: seen.append(config))
    args = cli.build_parser().parse_args(argv)
    command.command_train(args)
    [config] = seen
    assert (config.game, config.generations, config.games, config.out_dir) == expected
    assert config.depth == 3 and config.match_every == 10  # the rest stay the fields' defaults


def test_backgammon_trains_by_default_as_its_shipped_network_was_trained(monkeypatch):
    from samuel import cli
    from samuel.train import command

    seen = []
    monkeypatch.setattr(command, "train", lambda config, *args, **kwargs: seen.append(config))
    for argv in (["--game", "backgammon"], ["--game", "backgammon", "--final-learning-rate", "1"]):
        command.command_train(cli.build_parser().parse_args(["train", *argv]))
    default, given = seen
    assert (default.generations, default.games, default.out_dir) == (160, 500, "weights/backgammon")
    assert (default.buffer_generations, default.epochs, default.depth) == (2, 1, 1)
    assert (default.learning_rate, default.final_learning_rate) == (1e-3, 5e-5)
    assert given.final_learning_rate == 1.0  # an option given wins over the game's default
