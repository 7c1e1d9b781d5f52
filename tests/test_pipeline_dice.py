"""The production loop on the games with dice: positions stored with the dice to roll, labels by
rollouts over dice (six chances, the equity in points), the outcome head trained on them (a
network per phase for long nardy), gating by duplicate dice with points per game; on SQLite and
on a real PostgreSQL, through the command line."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from samuel.evaluation.networks import load_network_or_phases, random_phased_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.backgammon.states import state_problem
from samuel.nn.phased import is_phased, phase_networks
from samuel.pipeline import dataset
from samuel.pipeline.dice import to_roll
from samuel.pipeline.schema import Cycle, Label, Model, Position, Tournament
from samuel.pipeline.sources import PositionBatch
from samuel.pipeline.stages import STREAMS, state_seeds
from samuel.pipeline.store import Provenance, Store, insert_positions, states_from_bytes
from samuel.pipeline.supervised import (
    SupervisedConfig,
    split_by_group,
    train_supervised,
    train_supervised_phases,
)
from samuel.seeds import derive_seed
from samuel.train.dice_rollouts import DiceRolloutConfig, dice_rollout_labels, leaf_outcomes
from samuel.train.selfplay import SelfPlaySettings, play_selfplay
from tests.cli_process import samuel

# A cycle in seconds: a few games (two between quick experts), 40 random positions, 8 rollouts a
# position at 0 ply, a short training and gate.
TINY = [
    "--selfplay-games", "4", "--games-per-unit", "2", "--selfplay-depth", "1",
    "--expert-games", "2", "--experts", "{champion}:depth=1,classic:depth=1",
    "--random-positions", "40",
    "--rollouts", "8", "--rollout-depth", "1", "--label-chunk", "100", "--epochs", "2",
    "--patience", "1", "--gate-games", "16", "--gate-depth", "1", "--anchor-games", "4",
    "--relabel-positions", "30", "--workers", "1", "--no-progress",
    "--points0", "-2.5", "--points1", "-2", "--anchor-floor", "0",
]  # fmt: skip


@cache
def played_positions(name: str, count: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Every position (dice to roll) of ``count`` classic self-play games, and each one's game."""
    rules = get_game(name)
    settings = SelfPlaySettings(
        rules.number,
        games.EVALUATOR_CLASSIC,
        rules.classic_weights(),
        rules.encode(rules.initial_position()),
        depth=1,
        random_plies=0,
        epsilon=0.1,
        ply_cap=400,
    )
    played = play_selfplay(settings, np.arange(50, 50 + count, dtype=np.int64))
    states = np.concatenate([played.positions[g, : played.plies[g]] for g in range(count)])
    groups = np.repeat(np.arange(count), played.plies)
    batch = to_roll(name, PositionBatch(states, groups, np.zeros(len(states), np.int32)))
    words = games.compiled_game(rules.number).state_words
    return np.ascontiguousarray(batch.states[:, :words]), batch.games


# --- backgammon's states ---------------------------------------------------------------------


def test_backgammons_state_check_passes_positions_and_names_each_fault():
    states, _ = played_positions("backgammon")
    assert state_problem(states) is None
    start = get_game("backgammon").encode(get_game("backgammon").initial_position())
    faults = {
        "are not fifteen": lambda s: s.__setitem__(0, s[0] + 1),  # a 16th checker of X's
        "beyond the checkers": lambda s: s.__setitem__(3, s[3] | (1 << 41)),
        "neither 0": lambda s: s.__setitem__(1, s[1] | (77 << 41)),  # dice 7 and 7
        # an X checker moved from its 24-point (slot 23) to its 1-point, where O has two
        "both sides": lambda s: (s.__setitem__(0, s[0] + 1), s.__setitem__(1, s[1] - (1 << 28))),
    }
    for text, corrupt in faults.items():
        bad = np.tile(start, (3, 1))
        corrupt(bad[2])
        problem = state_problem(bad)
        assert problem is not None and "row 2" in problem and text in problem, problem
    assert "rows of 4" in state_problem(np.zeros((2, 5), np.int64))


def test_positions_are_stored_with_the_dice_to_roll():
    rules = get_game("backgammon")
    position = rules.initial_position()
    roll = rules.chance_outcomes(position)[3][0]
    rolled = rules.play(position, roll)
    assert rolled.dice is not None
    states = np.stack([rules.encode(rolled), rules.encode(position)])
    batch = to_roll("backgammon", PositionBatch(states, np.array([0, 0]), np.array([1, 0])))
    assert len(batch) == 1  # the two are one position once the dice are taken back
    assert rules.encode(rules.initial_position()).tolist() == batch.states[0].tolist()
    assert batch.plies.tolist() == [1]  # the first met


# --- the labels in the store ------------------------------------------------------------------


def test_dice_labels_keep_their_six_chances_through_the_store(tmp_path):
    store = Store.open(f"sqlite:///{tmp_path / 's.sqlite'}", command="test")
    states, _ = played_positions("backgammon")
    rows = np.zeros((5, games.STATE_SIZE), np.int64)
    rows[:, : states.shape[1]] = states[:5]
    chances = np.random.default_rng(1).random((5, 6)).astype(np.float32)
    with store.write() as connection:
        insert_positions(connection, "backgammon", rows, Provenance("selfplay", None, 1, None))
        ids = connection.execute(select(Position.id).order_by(Position.id)).scalars().all()
        with pytest.raises(ValueError, match="six"):
            dataset.add_labels(
                connection, np.array(ids), np.zeros(5), np.zeros(5), np.ones(5), np.zeros(5),
                method="rollout", model_id=None, unit_id=None, outcomes=chances[:, :5],
            )  # fmt: skip
        dataset.add_labels(
            connection, np.array(ids), np.arange(5) / 2, np.zeros(5), np.full(5, 8), np.zeros(5),
            method="rollout", model_id=None, unit_id=None, outcomes=chances, ply=1,
            variance="antithetic",
        )  # fmt: skip
    with store.read() as connection:
        part = dataset.labelled_after(connection, "backgammon", -1)
        ply, variance = connection.execute(select(Label.ply, Label.variance).limit(1)).one()
    store.close()
    assert part.has_outcomes and np.array_equal(part.outcomes, chances)
    assert part.values.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]  # equities in points, not clamped
    assert (ply, variance) == (1, "antithetic")


# --- training the chances ---------------------------------------------------------------------


def test_training_on_chances_learns_them_and_measures_their_mse():
    from samuel.evaluation.networks import load_network, shipped_network

    game = get_game("backgammon").number
    states, _ = played_positions("backgammon", 30)
    start = load_network(shipped_network(game), game)
    # Labels a network can learn: the start network's own chances with a win 0.15 likelier
    # (gammons and backgammons scaled with their side's chance, so the classes stay nested).
    own = leaf_outcomes(game, games.EVALUATOR_NETWORK, start, states)
    win = np.minimum(own[:, 0] + 0.15, 1.0)
    chances = np.concatenate(
        [own[:, :3] * (win / own[:, 0])[:, None], own[:, 3:] * ((1 - win) / own[:, 3])[:, None]],
        axis=1,
    )
    equity = chances[:, :3].sum(axis=1) - chances[:, 3:].sum(axis=1)
    # Held out by position (no game groups): a shift of every chance is learnable anywhere.
    groups = np.full(len(states), -1)
    config = SupervisedConfig(epochs=4, batch_size=64, learning_rate=1e-3, patience=4, seed=5)
    params, report = train_supervised(game, start, states, equity, groups, config, outcomes=chances)
    assert report.outcomes and "classic" not in report.baselines
    assert report.classic_scale is None and report.to_json()["classic_scale"] is None
    _, validation = split_by_group(groups, config.validation, config.seed)
    by_hand = np.mean(
        (leaf_outcomes(game, games.EVALUATOR_NETWORK, start, states[validation])
         - chances[validation].astype(np.float32)) ** 2
    )  # fmt: skip
    assert report.baselines["start"] == pytest.approx(by_hand, rel=1e-5)
    assert report.validation_mse < report.baselines["start"]
    again, _ = train_supervised(game, start, states, equity, groups, config, outcomes=chances)
    assert np.array_equal(params, again)
    for bad, text in (
        (chances[:, :5], "six|6"),
        (np.where(np.arange(6) == 2, 1.5, chances), "0..1"),
        (np.where(np.arange(6) == 0, np.nan, chances), "0..1"),
    ):
        with pytest.raises(ValueError, match=text):
            train_supervised(game, start, states, equity, groups, config, outcomes=bad)
    with pytest.raises(ValueError, match="-3..3"):
        train_supervised(game, start, states, equity + 5, groups, config, outcomes=chances)


def test_each_phase_learns_only_its_own_positions():
    game = get_game("nardy").number
    states, groups = played_positions("nardy", 4)
    from samuel.evaluation.phases import position_phases

    phases = position_phases(game, states)
    keep = phases != 2  # no race positions: the race network must come back as it was
    states, groups = states[keep], groups[keep]
    start = random_phased_network(game, 9)
    chances = np.full((len(states), 6), 0.25)
    chances[:, 0], chances[:, 3] = 0.6, 0.4
    equity = chances[:, :3].sum(axis=1) - chances[:, 3:].sum(axis=1)
    config = SupervisedConfig(epochs=2, batch_size=64, patience=2, seed=3)
    params, report = train_supervised_phases(
        game, start, states, equity, groups, config, outcomes=chances,
        names=("start", "middle", "race"),
    )  # fmt: skip
    assert is_phased(params)
    before, after = phase_networks(start), phase_networks(params)
    assert report.phases["race"] is None and np.array_equal(before[2], after[2])
    for phase in (0, 1):
        assert not np.array_equal(before[phase], after[phase])
    trained = [r for r in report.phases.values() if r is not None]
    assert sum(r.train_positions + r.validation_positions for r in trained) == len(states)
    assert report.to_json()["phases"]["race"] is None
    again, _ = train_supervised_phases(
        game, start, states, equity, groups, config, outcomes=chances,
        names=("start", "middle", "race"),
    )  # fmt: skip
    assert np.array_equal(params, again)


# --- the loop, end to end ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_backgammon_cycle_labels_over_dice_trains_the_chances_and_gates_on_points(
    database_url, tmp_path
):
    folder = str(tmp_path / "pipe")
    run = samuel("pipeline", "run", folder, "--db", database_url, "--game", "backgammon",
                 "--cycles", "1", *TINY)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "1 cycle(s) finished" in run.stdout
    rules = get_game("backgammon")
    store = Store.open(database_url)
    with store.read() as connection:
        cycle = connection.execute(select(Cycle.__table__)).one()
        positions = connection.execute(select(Position.id, Position.state)).all()
        labels = connection.execute(
            select(Label.__table__).join(Position, Position.label_id == Label.id)
        ).all()
        candidate = connection.execute(
            select(Model.__table__).where(Model.id == cycle.candidate_id)
        ).one()
        training = candidate.training
        tournament = connection.execute(select(Tournament.__table__)).one()
    store.close()
    words = games.compiled_game(rules.number).state_words
    states = states_from_bytes([p.state for p in positions])[:, :words]
    assert len(positions) > 50 and len(labels) == len(positions)
    position_type = type(rules.initial_position())
    assert all(position_type.decode(s).dice is None for s in states)  # with the dice to roll
    for label in labels:
        chances = np.frombuffer(label.outcomes, dtype="<f4")
        assert chances.shape == (6,) and ((chances >= 0) & (chances <= 1)).all()
        assert chances[0] >= chances[1] >= chances[2] and chances[3] >= chances[4] >= chances[5]
        if label.rollouts:  # played to the end: every game is won or lost
            assert chances[0] + chances[3] == pytest.approx(1.0, abs=1e-6)
        assert label.value == pytest.approx(chances[:3].sum() - chances[3:].sum(), abs=1e-5)
        assert (label.ply, label.variance) == (0, "antithetic+stratified")
        assert label.rollouts in (0, 8) and label.method == "rollout"

    # The labels the first champion gave are those a rollout from its file gives again.
    by_position = {label.position_id: label for label in labels}
    mine = [p for p in positions if by_position[p.id].model_id == cycle.champion_id][:12]
    assert mine
    champion = load_network_or_phases(tmp_path / "pipe" / "models" / "backgammon-000001.bin", 2)
    rows = states_from_bytes([p.state for p in mine])
    seed = derive_seed(0, cycle.number, STREAMS["label"])
    again = dice_rollout_labels(
        rules.number, games.EVALUATOR_NETWORK, champion, np.ascontiguousarray(rows[:, :words]),
        state_seeds(rows, seed), DiceRolloutConfig(rollouts=8, ply=0),
    )  # fmt: skip
    stored = np.array([np.frombuffer(by_position[p.id].outcomes, "<f4") for p in mine])
    assert np.allclose(stored, again.outcomes, atol=1e-6)

    report = training["report"]
    assert report["outcomes"] and "classic" not in report["baselines"]
    assert 0 < report["validation_mse"] < 0.25
    vs = tournament.report["vs_champion"]
    assert {"points_per_game", "points_low", "points_high"} <= set(vs)
    assert vs["points_low"] <= vs["points_per_game"] <= vs["points_high"]
    status = samuel("pipeline", "status", folder, "--db", database_url)  # the store's one game
    assert status.returncode == 0 and "points a game" in status.stdout
    assert "game: backgammon" in status.stdout
    assert samuel("pipeline", "check", folder, "--db", database_url).returncode == 0
    # What the expert positions are worth: two trainings, a match in points a game.
    ablate = samuel("pipeline", "ablate", folder, "--db", database_url, "--without", "expert",
                    "--games", "4", "--no-progress")  # fmt: skip
    assert ablate.returncode == 0, ablate.stderr
    assert "all sources vs without expert" in ablate.stdout and "points a game" in ablate.stdout


@pytest.mark.slow
def test_a_long_nardy_cycle_trains_a_network_per_phase(tmp_path):
    folder = tmp_path / "pipe"
    run = samuel("pipeline", "run", str(folder), "--game", "nardy", "--cycles", "1", *TINY)
    assert run.returncode == 0, run.stderr
    store = Store.open(f"sqlite:///{folder / 'pipeline.sqlite'}")
    with store.read() as connection:
        cycle = connection.execute(select(Cycle.__table__)).one()
        model = connection.execute(
            select(Model.__table__).where(Model.id == cycle.candidate_id)
        ).one()
    store.close()
    params = load_network_or_phases(folder / model.path, get_game("nardy").number)
    assert is_phased(params)  # the candidate is a network per phase, as the shipped champion
    phases = model.training["report"]["phases"]
    assert set(phases) == {"start", "middle", "race"}
    assert phases["start"] is not None and phases["start"]["outcomes"]
    # Phase by phase first: each trained phase's hybrid played the champion; the registry
    # records where each phase's network came from.
    selection = model.training["phase_selection"]
    assert set(selection["matches"]) <= {"start", "middle", "race"} and selection["matches"]
    origins = model.training["phase_models"]
    assert set(origins) == {"start", "middle", "race"}
    assert {origins[name] for name in selection["taken"]} <= {model.id}
    assert set(origins.values()) <= {cycle.champion_id, model.id}
    listed = samuel("pipeline", "models", str(folder), "--game", "nardy")
    assert f"start<-{origins['start']}" in listed.stdout


def test_what_a_game_with_dice_cannot_do_is_refused_in_a_line(tmp_path):
    for options, text in (
        (["--rollout-depth", "4"], "at most 2 ply"),
        (["--moves-left"], "plies left"),
        (["--tablebase", str(tmp_path)], "no tablebase"),
        (["--experts", "nosuchplayer"], "--experts"),
        (["--experts", "a,b,c"], "one or two player specs"),
        (["--game", "tigers", "--experts", "classic"], "a game with dice's expert players"),
        (["--game", "tigers", "--luck"], "has no dice"),
        (["--game", "nardy", "--gate-cube"], "a game with the doubling cube"),
        (["--gate-match", "30"], "--gate-match"),
    ):
        run = samuel("pipeline", "run", str(tmp_path / "p"), "--game", "backgammon", *options)
        assert run.returncode == 2 and text in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert not (tmp_path / "p" / "models").exists() or not any(
        (tmp_path / "p" / "models").iterdir()
    )


def test_luck_is_a_setting_the_labels_record():
    from samuel.pipeline.config import PipelineConfig
    from samuel.pipeline.dice import rollout_config

    config = PipelineConfig.from_json(PipelineConfig(luck=True).to_json())
    assert rollout_config(config).luck and rollout_config(config).name.endswith("+luck")
    assert not rollout_config(PipelineConfig()).luck
    plain = rollout_config(PipelineConfig(luck=True, variance_reduction=False))
    assert plain.name == "none+luck"


# --- the sources: random positions matched to real ones, and expert games ---------------------


@pytest.mark.parametrize("name", ["backgammon", "nardy"])
def test_random_positions_match_the_real_ones_counts_and_keep_the_rules(name):
    from samuel.games.states import STATE_PROBLEMS
    from samuel.pipeline.dice_random import (
        DiceDistribution,
        dice_random_positions,
        measure_dice_distribution,
    )

    real, _ = played_positions(name, 12)
    distribution = measure_dice_distribution(name, real)
    again = DiceDistribution.from_json(distribution.to_json())
    assert again == distribution
    batch = dice_random_positions(name, again, 400, seed=7)
    assert len(batch) > 350  # a few draws may repeat a position (kept once)
    assert STATE_PROBLEMS[name](batch.states) is None
    rules = get_game(name)
    position_type = type(rules.initial_position())
    drawn = [position_type.decode(s) for s in batch.states]
    assert all(p.dice is None and rules.decided_outcome(p) is None for p in drawn)
    # The share of positions where a side has borne off, and where the first side is to move,
    # match the real ones' (400 draws: a standard error of about 0.025).
    for side in (0, 1):
        real_off = np.mean([t[side * (len(t) // 2)] > 0 for t in _tuples(distribution)])
        slots = import_module(f"samuel.games.{name}.states").side_slots
        drawn_off = np.mean(slots(batch.states, side)[:, -1] > 0)
        assert drawn_off == pytest.approx(real_off, abs=0.1)
    real_first = np.mean([t[-1] for t in _tuples(distribution)])
    drawn_first = np.mean([rules.side_to_move(p) == 0 for p in drawn])
    assert drawn_first == pytest.approx(real_first, abs=0.1)
    same = dice_random_positions(name, again, 400, seed=7)
    assert np.array_equal(same.states, batch.states)
    other = dice_random_positions(name, again, 400, seed=8)
    assert not np.array_equal(other.states, batch.states)
    with pytest.raises(ValueError, match="not one of"):
        dice_random_positions("tigers" if name == "nardy" else "nardy", again, 1, seed=1)


def _tuples(distribution) -> list[tuple[int, ...]]:
    """Each real position's count tuple, as often as it was met."""
    pairs = zip(distribution.tuples, distribution.counts, strict=True)
    return [t for t, n in pairs for _ in range(n)]


def test_expert_positions_come_from_gnubgs_own_games_with_the_dice_to_roll():
    pytest.importorskip("gnubg")
    from samuel.pipeline.dice_experts import expert_positions, expert_specs, with_champion

    assert expert_specs("backgammon", None) == ("gnubg:level=worldclass",) * 2
    assert expert_specs("backgammon", "gnubg:ply=0,noise=0.1,classic:depth=2") == (
        "gnubg:ply=0,noise=0.1",
        "classic:depth=2",
    )
    assert expert_specs("nardy", "classic") == ("classic", "classic")
    assert with_champion("{champion}:depth=2", Path("/m/x.bin")) == "/m/x.bin:depth=2"
    with pytest.raises(ValueError, match="one or two"):
        expert_specs("backgammon", "a,b,c")
    batch = expert_positions("backgammon", "gnubg:level=expert", "gnubg:level=expert", 3, seed=4)
    rules = get_game("backgammon")
    position_type = type(rules.initial_position())
    assert len(batch) > 60 and set(batch.games.tolist()) == {0, 1, 2}
    assert all(position_type.decode(s).dice is None for s in batch.states)
    # The same games on two worker processes as on one.
    again = expert_positions(
        "backgammon", "gnubg:level=expert", "gnubg:level=expert", 3, seed=4, workers=2
    )
    assert np.array_equal(again.states, batch.states)
    assert np.array_equal(again.games, batch.games)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["label", "relabel"])
def test_a_long_nardy_run_killed_while_it_labels_loses_no_label_and_doubles_none(tmp_path, stage):
    from tests.test_pipeline_loop import killed_mid_stage_and_restarted

    folder = str(tmp_path / "pipe")
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    # Units of 10 positions, 24 rollouts each: a stage lasts seconds. Relabelling follows a
    # promotion, which TINY's gate makes sure of; labelling is killed in a cycle that rejects.
    gate = (
        ["--relabel-positions", "300"]
        if stage == "relabel"
        else ["--points0", "2", "--points1", "2.5"]
    )
    args = ["pipeline", "run", folder, "--db", url, "--game", "nardy", "--cycles", "1", *TINY,
            "--rollouts", "24", "--label-chunk", "10", "--selfplay-games", "6",
            "--random-positions", "0", "--expert-games", "0", *gate]  # fmt: skip
    killed_mid_stage_and_restarted(url, folder, args, stage)


@pytest.mark.slow
def test_each_phase_is_taken_only_if_its_network_alone_beats_the_champions(tmp_path):
    from samuel.evaluation.networks import save_phased_network, shipped_network
    from samuel.nn.phased import pack_phases
    from samuel.pipeline.config import PipelineConfig
    from samuel.pipeline.phase_gate import select_phases

    game = get_game("nardy").number
    shipped = phase_networks(load_network_or_phases(shipped_network(game), game))
    weak = phase_networks(random_phased_network(game, 4))
    names = ("start", "middle", "race")
    # The champion's start network is a random one, the candidate's race network is: the
    # candidate's start should be taken, its race left, its middle (the same) not even played.
    champion = pack_phases([weak[0], shipped[1], shipped[2]])
    candidate = pack_phases([shipped[0], shipped[1], weak[2]])
    config = PipelineConfig(
        gate_games=60, gate_depth=1, points0=-0.2, points1=0.2, workers=1, seed=1
    )
    champion_file = tmp_path / "champion.bin"  # as the registry keeps it
    save_phased_network(champion, champion_file, game)
    chosen = select_phases(
        "nardy", champion, champion_file, candidate, names, tmp_path, "t", config, seed=5
    )
    assert chosen.taken == ("start",)
    assert set(chosen.matches) == {"start", "race"}
    assert chosen.matches["start"]["sprt"] == "H1" and chosen.matches["race"]["sprt"] != "H1"
    assert chosen.matches["start"]["points_per_game"] > 0
    assert np.array_equal(chosen.params, pack_phases(shipped))
    assert not (tmp_path / "gating").exists()  # the hybrids' files are gone
    # No phase passes alone: the candidate is gated whole.
    whole = pack_phases([weak[0], shipped[1], weak[2]])
    none = select_phases("nardy", champion, champion_file, whole, names, tmp_path, "t", config,
                         seed=5)  # fmt: skip
    assert none.taken == () and set(none.matches) == {"race"}
    assert np.array_equal(none.params, whole)


@pytest.mark.slow
def test_backgammon_gates_by_three_point_matches_with_the_cube(tmp_path):
    folder = tmp_path / "pipe"
    run = samuel("pipeline", "run", str(folder), "--game", "backgammon", "--cycles", "1", *TINY,
                 "--gate-match", "3", "--gate-cube", "--gate-games", "6", "--elo0", "-600",
                 "--elo1", "-500")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "3-point matches in" in run.stdout
    store = Store.open(f"sqlite:///{folder / 'pipeline.sqlite'}")
    with store.read() as connection:
        tournament = connection.execute(select(Tournament.__table__)).one()
    store.close()
    assert tournament.games <= 6 and tournament.points0 is None  # the Elo test, on matches
    assert (tournament.elo0, tournament.elo1) == (-600, -500)
