"""Every place where work fans out gives the same results on any backend (samuel.backends).

``ScrambledBackend`` stands in for a cluster without Ray: it cuts thread-parallel work into many
uneven parts, runs the units in a shuffled order (each input and result through pickle, as if it
crossed to another process) and hands the results back in unit order, honouring ``after``. Self-
play files, hill climbing, tablebase scoring, the pipeline's self-play, expert games, rollout
labels and gate, and a whole pipeline cycle must give the local backend's results exactly; so a
unit's seeds come from global game or position numbers, never from the part it landed in.
"""

from __future__ import annotations

import dataclasses
import pickle
import random

import numpy as np
import pytest

from samuel.backends import MAX_UNITS, LocalBackend, split, unit_count
from samuel.evaluation.networks import random_network, save_network
from samuel.games import get_game
from samuel.games import kernels as K
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.tablebase.build import build
from tests import game_numbers

QUIET = {"progress": False, "log": lambda line: None}


class ScrambledBackend:
    """Uneven parts, units run in a shuffled order, results in unit order."""

    name = "scrambled"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.runs: list[int] = []  # how many units each run had
        self.functions: list[str] = []  # the function each run ran

    def parts(self, count: int) -> list[range]:
        if count <= 1:
            return [range(count)]
        cuts = sorted(self.rng.sample(range(1, count), min(count - 1, max(1, count // 2))))
        bounds = [0, *cuts, count]
        return [range(low, high) for low, high in zip(bounds, bounds[1:], strict=False)]

    def run(self, function, units, shared=None, after=None) -> list:
        assert pickle.loads(pickle.dumps(function)) is function  # module-level: crosses by name
        units = list(units)
        self.runs.append(len(units))
        self.functions.append(function.__name__)
        shared = pickle.loads(pickle.dumps(shared))
        order = list(range(len(units)))
        self.rng.shuffle(order)
        results = {}
        for index in order:
            unit = pickle.loads(pickle.dumps(units[index]))
            results[index] = pickle.dumps(function(shared, unit))
        done: list = []
        for index in range(len(units)):
            done.append(pickle.loads(results[index]))
            if after is not None and after(done):
                break
        return done


def same_arrays(a, b, names) -> None:
    for name in names:
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name


def test_the_scrambled_backend_cuts_unevenly_and_keeps_unit_order():
    backend = ScrambledBackend(1)
    parts = backend.parts(10)
    assert len(parts) > 2 and [i for part in parts for i in part] == list(range(10))
    assert len({len(part) for part in parts}) > 1
    assert backend.run(_square, [1, 2, 3, 4], shared=10) == [11, 14, 19, 26]
    seen = []
    assert backend.run(_square, [1, 2, 3], 0, lambda done: seen.append(len(done)) or True) == [1]
    assert seen == [1]
    assert LocalBackend().parts(10) == [range(10)]


def test_work_is_cut_into_four_units_a_cpu_one_an_item_at_least_and_at_most_max_units():
    assert unit_count(10, 2) == 8
    assert unit_count(3, 2) == 3 and unit_count(0, 2) == 1
    assert unit_count(50_000, 3200) == MAX_UNITS  # 100 machines of 32 cores
    for count, pieces in ((10, 8), (7, 3), (5, 9), (0, 4), (50_000, MAX_UNITS)):
        ranges = split(count, pieces)
        assert [i for part in ranges for i in part] == list(range(count))
        assert len(ranges) == max(1, min(pieces, count))
        assert max(map(len, ranges)) - min(map(len, ranges)) <= 1


def _square(shared, unit):
    return shared + unit * unit


# --- samuel selfplay ---------------------------------------------------------------------------


def test_a_selfplay_file_is_the_same_on_any_backend():
    from samuel.tune.config import SelfPlayDataConfig
    from samuel.tune.dataset import ARRAYS, make_positions

    config = SelfPlayDataConfig(
        games=9, player="classic:depth=1", random_plies=4, ply_cap=40, seed=3
    )
    local = make_positions(config, backend=LocalBackend())
    backend = ScrambledBackend(2)
    done = []
    scrambled = make_positions(config, done.append, backend)
    assert backend.runs and backend.runs[0] > 2
    same_arrays(local, scrambled, ARRAYS)
    assert local.config == scrambled.config
    assert done[-1] == 9 and done == sorted(done)


# --- samuel hillclimb --------------------------------------------------------------------------


def test_a_hill_climb_is_the_same_on_any_backend(tmp_path):
    from samuel.tune.config import HillClimbConfig
    from samuel.tune.hillclimb import hill_climb

    def climb(folder, backend):
        config = HillClimbConfig(
            rounds=2, games=4, out_dir=str(tmp_path / folder), depth=1, final_games=4,
            workers=1, seed=5,
        )  # fmt: skip
        return hill_climb(config, log=lambda line: None, backend=backend)

    local = climb("local", None)
    backend = ScrambledBackend(3)
    scrambled = climb("scrambled", backend)
    assert backend.functions == ["_play_pair_unit"] * 3  # two rounds and the final match
    for run in (local, scrambled):
        del run["config"]["out_dir"]
    assert local == scrambled


# --- samuel tablebase score --------------------------------------------------------------------


@pytest.fixture(scope="module")
def table_k2(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tablebase") / "k2"
    build(directory, 2, **QUIET)
    return load_tablebase(directory)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("positions", "max_games"),
    [(30, None), (25, 12)],  # enough games; too few (the sample stops short)
)
def test_a_tablebase_score_is_the_same_on_any_backend(table_k2, positions, max_games):
    from samuel.tablebase.score import score_player

    start = table_k2.rules.parse_position("TSSST/SSSSS/SSSSS/SSS2/TS1ST S 2")
    common = dict(positions=positions, seed=4, start=start, max_games=max_games)
    local = score_player("random", table_k2, **common)
    shown = []
    scrambled = score_player(
        "random", table_k2, progress=shown.append, backend=ScrambledBackend(4), **common
    )
    assert scrambled == local
    assert len(local.moves) == (positions if max_games is None else len(local.moves))
    assert shown and shown[-1] == len(local.moves) and shown == sorted(shown)


# --- samuel pipeline: self-play, rollout labels, the gate, a whole cycle ------------------------


@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_pipeline_selfplay_positions_are_the_same_on_any_backend(name):
    from samuel.pipeline.fanout import selfplay_positions_on

    rules = get_game(name)
    args = (rules.number, K.EVALUATOR_CLASSIC, rules.classic_weights(), 7, 1)
    local = selfplay_positions_on(None, *args, seed=11, ply_cap=60)
    scrambled = selfplay_positions_on(ScrambledBackend(5), *args, seed=11, ply_cap=60)
    same_arrays(local, scrambled, ("states", "games", "plies"))
    assert len(local) > 20


@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_pipeline_expert_positions_are_the_same_on_any_backend(name):
    from samuel.pipeline import sources as S
    from samuel.pipeline.fanout import expert_positions_on

    rules = get_game(name)
    game, weights = rules.number, rules.classic_weights()
    players = S.ExpertPlayers(
        game,
        (
            S.ExpertPlayer("classic-1", K.EVALUATOR_CLASSIC, weights, 1),
            S.ExpertPlayer("classic-2", K.EVALUATOR_CLASSIC, weights, 2),
        ),
    )
    local = expert_positions_on(None, game, players, 9, seed=3, random_plies=2, ply_cap=60)
    backend = ScrambledBackend(10)
    scrambled = expert_positions_on(backend, game, players, 9, seed=3, random_plies=2, ply_cap=60)
    assert backend.runs[0] > 2
    same_arrays(local, scrambled, ("states", "games", "plies"))
    assert len(local) > 20


def test_perfect_experts_read_their_table_on_any_backend(table_k2):
    from samuel.pipeline import sources as S
    from samuel.pipeline.fanout import expert_positions_on

    game = game_numbers.tigers_and_sheep(2)
    players = S.default_expert_players(game, random_network(game, 5), table_k2)
    shallow = S.ExpertPlayers(game, tuple(dataclasses.replace(p, depth=1) for p in players.players))
    local = expert_positions_on(None, game, shallow, 9, seed=1, ply_cap=60)
    scrambled = expert_positions_on(ScrambledBackend(11), game, shallow, 9, seed=1, ply_cap=60)
    same_arrays(local, scrambled, ("states", "games", "plies"))


@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_rollout_labels_are_the_same_on_any_backend(name):
    from samuel.pipeline.fanout import rollout_labels_on
    from samuel.pipeline.sources import selfplay_positions
    from samuel.pipeline.stages import state_seeds
    from samuel.train.rollouts import RolloutConfig

    rules = get_game(name)
    game, weights = rules.number, rules.classic_weights()
    states = selfplay_positions(game, K.EVALUATOR_CLASSIC, weights, 2, 1, seed=7, ply_cap=40)
    states = states.states[:24]
    seeds = state_seeds(states, 99)
    config = RolloutConfig(rollouts=4, epsilon=0.1, ply_cap=60)
    params = random_network(game, 3)
    local = rollout_labels_on(None, game, K.EVALUATOR_NETWORK, params, states, seeds, config)
    backend = ScrambledBackend(6)
    scrambled = rollout_labels_on(backend, game, K.EVALUATOR_NETWORK, params, states, seeds, config)
    assert backend.runs[0] > 2
    names = ("values", "stderr", "rollouts", "truncated", "exact", "tabled", "plies_left")
    same_arrays(local, scrambled, names)
    assert (local.plies, local.games) == (scrambled.plies, scrambled.games)
    with pytest.raises(ValueError, match="one seed per position"):
        rollout_labels_on(backend, game, K.EVALUATOR_NETWORK, params, states, seeds[:3], config)


def test_rollout_labels_ending_at_the_table_are_the_same_on_any_backend(table_k2):
    from samuel.pipeline.fanout import rollout_labels_on
    from samuel.train.rollouts import RolloutConfig
    from tests.test_pipeline_rollouts import TWO, near_the_end_of_placement, seeds_for

    states = near_the_end_of_placement(10, seed=5)
    seeds = seeds_for(10, run=6)
    config = RolloutConfig(rollouts=4, epsilon=0.3)
    params = random_network(TWO, 3)
    args = (TWO, K.EVALUATOR_NETWORK, params, states, seeds, config, table_k2)
    local = rollout_labels_on(None, *args)
    scrambled = rollout_labels_on(ScrambledBackend(7), *args)
    names = ("values", "stderr", "rollouts", "truncated", "exact", "tabled", "plies_left")
    same_arrays(local, scrambled, names)
    assert local.tabled.sum() > 0 and local.plies == scrambled.plies


def _match_figures(result) -> tuple:
    """A match's results without its clock (as text: a NaN is not equal to itself)."""
    return (result.pairs, repr(result.statistics), repr(result.sprt), result.config)


def test_a_gate_is_the_same_on_any_backend(tmp_path):
    from samuel.pipeline.config import PipelineConfig
    from samuel.pipeline.gating import gate

    game = get_game("tigers").number
    paths = []
    for seed in (1, 2):
        paths.append(tmp_path / f"net{seed}.bin")
        save_network(random_network(game, seed), paths[-1], game)
    config = PipelineConfig(gate_games=8, gate_depth=1, anchor_games=2, workers=1)
    common = dict(champion_anchor_known=False)
    local = gate("tigers", paths[0], paths[1], config, 3, **common)
    scrambled = gate("tigers", paths[0], paths[1], config, 3, backend=ScrambledBackend(8), **common)
    for name in ("vs_champion", "vs_anchor", "champion_vs_anchor"):
        assert _match_figures(getattr(local, name)) == _match_figures(getattr(scrambled, name))
    assert (local.promote, local.reason) == (scrambled.promote, scrambled.reason)


def _cycle_contents(folder):
    from sqlalchemy import select

    from samuel.pipeline.schema import Cycle, Label, Position, Tournament
    from samuel.pipeline.store import Store

    store = Store.open(f"sqlite:///{folder / 'pipeline.sqlite'}")
    try:
        with store.read() as connection:
            positions = connection.execute(
                select(Position.state, Position.source, Position.origin_game, Position.ply)
                .order_by(Position.id)
            ).all()  # fmt: skip
            labels = connection.execute(
                select(Position.state, Label.value, Label.stderr, Label.rollouts, Label.method)
                .join(Label, Label.position_id == Position.id)
                .order_by(Position.state, Label.id)
            ).all()  # fmt: skip
            cycle = connection.execute(select(Cycle.stage, Cycle.candidate_id)).one()
            tournament = connection.execute(select(Tournament.decision)).scalar_one()
    finally:
        store.close()
    models = sorted((folder / "models").rglob("*.bin"))
    return positions, labels, tuple(cycle), tournament, [path.read_bytes() for path in models]


@pytest.mark.slow
def test_a_pipeline_cycle_is_the_same_on_any_backend(tmp_path):
    """Every stage with the backend (self-play, labelling, the gate, relabelling) and the rest:
    the same positions, labels, candidate and decision."""
    from samuel.pipeline.config import PipelineConfig
    from samuel.pipeline.loop import run
    from samuel.pipeline.stages import Context
    from samuel.pipeline.store import Store

    config = PipelineConfig(
        selfplay_games=4, games_per_unit=2, selfplay_depth=1, expert_games=2,
        random_positions=20, rollouts=2, rollout_depth=1, label_chunk=60, epochs=2, patience=1,
        gate_games=16, gate_depth=1, anchor_games=2, relabel_positions=20, workers=1,
        elo0=-600, elo1=-500, anchor_floor=0,
    )  # fmt: skip
    contents = []
    scrambled_backend = ScrambledBackend(9)
    for folder, backend in (("local", None), ("scrambled", scrambled_backend)):
        path = tmp_path / folder
        path.mkdir()
        store = Store.open(f"sqlite:///{path / 'pipeline.sqlite'}", command="test")
        try:
            ctx = Context(store, path, "tigers", say=lambda line: None, backend=backend)
            run(store, ctx, config, cycles=1)
        finally:
            store.close()
        contents.append(_cycle_contents(path))
    local, scrambled = contents
    assert local[2][0] == "done" and local[3] == "promote"  # the relabel stage ran
    assert len(local[0]) > 20 and len(local[1]) > len(local[0])
    assert local == scrambled
    ran = scrambled_backend.functions
    # self-play (two units of two games), labelling and relabelling, the gate's three matches
    assert ran.count("_selfplay_unit") == 2 and ran.count("_play_pair_unit") == 3
    assert ran.count("_expert_unit") == 1
    assert ran.count("_label_unit") >= 2


# --- the command line --------------------------------------------------------------------------


def test_a_backend_samuel_does_not_know_and_an_address_without_ray_are_refused(tmp_path, capsys):
    from samuel.cli import main

    out = str(tmp_path / "d.npz")
    with pytest.raises(SystemExit) as refused:
        main(["selfplay", "--games", "2", "--out", out, "--backend", "bogus"])
    assert refused.value.code == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err
    status = main(["selfplay", "--games", "2", "--out", out, "--ray-address", "127.0.0.1:1"])
    assert status == 2
    assert "--ray-address needs --backend ray" in capsys.readouterr().err
    assert not (tmp_path / "d.npz").exists()
    for command in (["hillclimb"], ["tablebase", "score", "random"], ["pipeline", "run", "x"]):
        with pytest.raises(SystemExit):
            main([*command, "--backend", "bogus"])
        assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_the_pipeline_context_keeps_the_backend_out_of_the_configuration():
    from samuel.pipeline.config import PipelineConfig

    assert "backend" not in {field.name for field in dataclasses.fields(PipelineConfig)}


# --- the loop on dice: rollouts over dice and expert games -------------------------------------


def test_dice_labels_and_expert_games_are_the_same_on_any_backend():
    from samuel.evaluation.networks import load_network, shipped_network
    from samuel.pipeline.dice_experts import expert_positions
    from samuel.pipeline.fanout import dice_rollout_labels_on
    from samuel.train.dice_rollouts import DiceRolloutConfig

    game = get_game("backgammon").number
    params = load_network(shipped_network(game), game)
    experts = ("classic:depth=1", "random")
    local_games = expert_positions("backgammon", *experts, 5, seed=3)
    backend = ScrambledBackend(7)
    scrambled_games = expert_positions("backgammon", *experts, 5, seed=3, backend=backend)
    same_arrays(local_games, scrambled_games, ("states", "games", "plies"))
    assert backend.functions == ["_expert_games"] and backend.runs[0] > 1

    states = np.ascontiguousarray(local_games.states[:9])
    seeds = np.arange(100, 109, dtype=np.int64)
    config = DiceRolloutConfig(rollouts=4, truncate_plies=6)
    local = dice_rollout_labels_on(None, game, K.EVALUATOR_NETWORK, params, states, seeds, config)
    scrambled = dice_rollout_labels_on(
        backend, game, K.EVALUATOR_NETWORK, params, states, seeds, config
    )
    same_arrays(local, scrambled, ("outcomes", "equity", "stderr", "rollouts", "truncated"))
    assert (local.games, local.plies) == (scrambled.games, scrambled.plies)
    assert backend.functions[-1] == "_dice_label_unit" and backend.runs[-1] > 2
