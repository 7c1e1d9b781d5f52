"""The moves-left head in ``samuel pipeline``: plies targets from rollouts and the tablebase, the
``labels.plies`` column (migration 0002), and the supervised trainer training the head."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from sqlalchemy import text

from samuel.evaluation.evaluators import scratch_size
from samuel.evaluation.networks import has_moves_left, load_network, random_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.tigers.board import FULL
from samuel.games.tigers.rules import Position
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.nn.network import NO_PLIES
from samuel.nn.shape import PLIES, with_plies_head, without_head
from samuel.pipeline import dataset, sources
from samuel.pipeline.bulk import import_labelled
from samuel.pipeline.store import Provenance, Store, _alembic_config, open_engine
from samuel.pipeline.supervised import SupervisedConfig, SupervisedReport, train_supervised
from samuel.search.alphabeta import new_tables
from samuel.seeds import derive_seed
from samuel.tablebase.build import build
from samuel.train import rollouts
from samuel.train.rollouts import RolloutConfig, rollout_labels, tablebase_distances
from samuel.train.selfplay import SelfPlaySettings, play_selfplay
from tests import game_numbers
from tests.test_pipeline_loop import LENIENT, TINY, samuel
from tests.test_pipeline_rollouts import network, seeds_for, start, tigers_won
from tests.test_pipeline_supervised import selfplay_positions, teacher_targets

TIGERS = game_numbers.TIGERS
NETWORK = games.EVALUATOR_NETWORK
STILL = RolloutConfig(rollouts=4, epsilon=0.0, ply_cap=80)  # no random plies
CORNERS = (1 << 0) | (1 << 4) | (1 << 20) | (1 << 24)


@pytest.fixture(scope="module")
def two_captures(tmp_path_factory):
    """The table of the game won by two captures (small: built in seconds)."""
    directory = tmp_path_factory.mktemp("tablebase") / "k2"
    build(directory, 2, progress=False, log=lambda line: None)
    return load_tablebase(directory)


def one_capture_from_the_end() -> np.ndarray:
    """Four sheep captured, the tigers to move; the tiger on a1 (point 0) can jump the sheep on
    point 1 into the empty point 2: the fifth capture ends the game."""
    empty = (1 << 2) | (1 << 7) | (1 << 12) | (1 << 13) | (1 << 17)
    sheep = FULL & ~CORNERS & ~empty
    assert sheep.bit_count() == 16  # 20 - 4 captured
    return Position(CORNERS, sheep, 0, True).encode()


# --- the store: migration 0002 ------------------------------------------------------------------


def test_a_store_at_0001_upgrades_to_0002_keeping_its_labels(database_url):
    from alembic import command

    engine = open_engine(database_url)
    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), "0001")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO positions (id, game, state, source, ply, created_at) "
                "VALUES (1, 'tigers', :state, 'random', 0, CURRENT_TIMESTAMP)"
            ),
            {"state": np.pad(start(TIGERS), (0, games.STATE_SIZE - 4)).astype("<i8").tobytes()},
        )
        connection.execute(
            text(
                "INSERT INTO labels (id, position_id, method, value, stderr, rollouts, "
                "truncated, created_at) VALUES (1, 1, 'rollout', 0.25, 0.1, 16, false, "
                "CURRENT_TIMESTAMP)"
            )
        )
        connection.execute(text("UPDATE positions SET label_id = 1"))
        columns = connection.execute(text("SELECT * FROM labels")).keys()
        assert "plies" not in columns
    engine.dispose()
    store = Store.open(database_url, command="test")  # migrates to the newest
    with store.read() as connection:
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        label = connection.execute(text("SELECT * FROM labels")).one()
    assert version >= "0002"  # and on to the newest
    assert (label.id, label.value, label.rollouts, label.plies) == (1, 0.25, 16, None)
    sample, total = dataset.sample_labelled(store, "tigers", 10, seed=1)
    assert total == 1 and sample.values.tolist() == [0.25] and np.isnan(sample.plies_left[0])
    store.close()


def test_labels_keep_their_plies_through_add_labels_bulk_imports_and_samples(database_url):
    store = Store.open(database_url, command="test")
    rng = np.random.default_rng(4)
    states = np.zeros((6, games.STATE_SIZE), dtype=np.int64)
    states[:, :4] = rng.integers(0, 1 << 20, size=(6, 4))
    plies = np.array([3.0, np.nan, 0.0, 12.5, np.nan, 40.0])
    with store.write() as connection:
        import_labelled(
            connection, "tigers", states[:3], np.zeros(3), 0.0,
            Provenance("tablebase", None, 1, store.run_id), method="tablebase",
            plies_left=plies[:3],
        )  # fmt: skip
        import_labelled(
            connection, "tigers", states[3:], np.zeros(3), 0.1,
            Provenance("random", None, 1, store.run_id),
        )  # fmt: skip
        ids = np.array(
            connection.execute(
                text("SELECT id FROM positions WHERE source = 'random' ORDER BY id")
            ).scalars().all()
        )  # fmt: skip
        dataset.add_labels(
            connection, ids, np.zeros(3), np.zeros(3), np.full(3, 4), np.zeros(3, bool),
            method="rollout", model_id=None, unit_id=None, plies_left=plies[3:],
        )  # fmt: skip
        with pytest.raises(ValueError, match="plies left"):
            import_labelled(
                connection, "tigers", states[:1], 0.0, 0.0,
                Provenance("random", None, 1, store.run_id), plies_left=-2.0,
            )  # fmt: skip
    sample, total = dataset.sample_labelled(store, "tigers", 10, seed=1)
    assert total == 6
    by_state = {tuple(s): p for s, p in zip(sample.states.tolist(), sample.plies_left, strict=True)}
    got = np.array([by_state[tuple(s)] for s in states.tolist()])
    assert np.array_equal(got, plies.astype(np.float32), equal_nan=True)
    assert sample.take(np.arange(2)).plies_left.shape == (2,)
    store.close()


# --- plies from rollouts and from the table -----------------------------------------------------


def test_rollouts_count_the_plies_to_the_games_end():
    states = np.stack([one_capture_from_the_end(), tigers_won(), start(TIGERS)])
    labels = rollout_labels(TIGERS, NETWORK, network(TIGERS), states, seeds_for(3), STILL)
    assert labels.values[0] == 1.0  # the capture ends it, in one ply
    assert labels.plies_left[0] == 1.0
    assert labels.plies_left[1] == 0.0 and labels.rollouts[1] == 0  # already over
    # Played to the end without a table, the plies left are the plies played.
    alone = rollout_labels(TIGERS, NETWORK, network(TIGERS), states[2:], seeds_for(1), STILL)
    assert alone.plies_left[0] == pytest.approx(alone.plies / alone.games)
    assert 0 < alone.plies_left[0] <= STILL.ply_cap
    # A truncated rollout's game did not end: no plies (the one-ply game ends before the cut).
    cut = dataclasses.replace(STILL, truncate_plies=6)
    truncated = rollout_labels(TIGERS, NETWORK, network(TIGERS), states, seeds_for(3), cut)
    assert truncated.plies_left[0] == 1.0 and truncated.plies_left[1] == 0.0
    assert truncated.truncated[2] and np.isnan(truncated.plies_left[2])
    assert labels.plies_left.dtype == np.float32


def test_the_moves_left_head_changes_no_rollout_value():
    """EVALUATOR_NETWORK reads the value part only: a network with the head labels exactly as
    the same network without it (and every check in the pipeline takes it)."""
    params = network(TIGERS)
    headed = with_plies_head(params, 7)
    states = np.stack([start(TIGERS)] * 3)
    config = dataclasses.replace(STILL, epsilon=0.1, truncate_plies=20)
    plain = rollout_labels(TIGERS, NETWORK, params, states, seeds_for(3), config)
    with_head = rollout_labels(TIGERS, NETWORK, headed, states, seeds_for(3), config)
    assert np.array_equal(plain.values, with_head.values)
    assert np.array_equal(plain.stderr, with_head.stderr)
    assert np.array_equal(
        rollouts.evaluate_positions(TIGERS, NETWORK, headed, states),
        rollouts.evaluate_positions(TIGERS, NETWORK, params, states),
    )
    assert np.array_equal(sources.check_params(TIGERS, NETWORK, headed), headed)
    with pytest.raises(ValueError, match="network parameters"):
        sources.check_params(TIGERS, NETWORK, headed[:-1])
    with pytest.raises(ValueError, match="network parameters"):
        rollouts.check_params(TIGERS, NETWORK, headed[:-1])
    players = sources.default_expert_players(TIGERS, headed)
    assert [p.name for p in players.players] == ["classic", "hybrid"]


def _hand_one_positions(rng: np.random.Generator, count: int) -> list[Position]:
    """Sheep to move with one sheep in hand (none or one captured), for the game won by two
    captures: the placement empties the hand, and the table holds what follows."""
    found = []
    while len(found) < count:
        points = rng.permutation(25)
        on_board = 19 - int(rng.integers(2))
        tigers = sum(1 << int(p) for p in points[:4])
        sheep = sum(1 << int(p) for p in points[4 : 4 + on_board])
        position = Position(tigers, sheep, 1, False, 2)
        if position.decided_outcome() is None:
            found.append(position)
    return found


@pytest.mark.slow
def test_the_table_gives_the_exact_distance_of_decided_positions(two_captures):
    game = game_numbers.tigers_and_sheep(2)
    rng = np.random.default_rng(8)
    held = [p.play(p.legal_moves()[0]) for p in _hand_one_positions(rng, 60)]
    held = [p for p in held if p.decided_outcome() is None]
    states = np.stack([p.encode() for p in held] + [start(TIGERS)])
    mask, values, plies = tablebase_distances(two_captures, states)
    assert mask.tolist() == [True] * len(held) + [False]
    outcomes = set()
    for position, value, distance in zip(held, values, plies, strict=False):
        outcome, exact = two_captures.value(position)
        outcomes.add(outcome)
        assert value == (outcome if position.tiger_to_move else -outcome)
        assert distance == exact if outcome != 0 else np.isnan(distance)
    assert np.isnan(plies[-1])
    assert {-1, 1} <= outcomes
    # A position the table holds is labelled exactly, with its distance.
    labels = rollout_labels(
        game, NETWORK, network(TIGERS), states[:-1], seeds_for(len(held)), STILL, two_captures
    )
    assert labels.exact.all() and np.array_equal(labels.plies_left, plies[:-1], equal_nan=True)


def test_a_rollout_that_ends_at_the_table_counts_its_plies_and_the_tables(two_captures):
    game = game_numbers.tigers_and_sheep(2)
    params = network(TIGERS)
    tables = new_tables(10, 4, games.move_room(game), scratch_size(game, NETWORK, params))
    work = rollouts.rollout_work(game, 4, 80)
    state = work[4]  # the position where the rollout stopped
    play = rollouts.RolloutPlay(1, 0.0, 0, 80, rollouts.PLAIN)
    decided = drawn = 0
    for k, position in enumerate(_hand_one_positions(np.random.default_rng(9), 30)):
        arguments = (game, NETWORK, params, position.encode(), play, derive_seed(k))
        arguments += (0.0, derive_seed(k, 1), False, tables, work)
        outcome, plies, cut, tabled, left = rollouts.play_rollout(*arguments, two_captures.layers)
        assert not cut and plies == 1  # one placement, then the hand is empty
        if not tabled:  # the placement ended the game (the tigers cannot move)
            assert left == 0 and Position.decode(state, 2).decided_outcome() is not None
            continue
        reached, distance = two_captures.value(Position.decode(state, 2))
        assert left == (distance if reached != 0 else -1)
        decided += reached != 0
        drawn += reached == 0
    assert decided and drawn
    # The label: the mean of (plies played + the table's distance), unknown if one was drawn.
    positions = np.stack([p.encode() for p in _hand_one_positions(np.random.default_rng(9), 30)])
    labels = rollout_labels(game, NETWORK, params, positions, seeds_for(30), STILL, two_captures)
    known = ~np.isnan(labels.plies_left)
    assert known.any() and (~known).any()
    assert (labels.plies_left[known] >= 1.0).all()
    assert (labels.tabled[~known] > 0).all()  # only a drawn table position leaves it unknown


def test_the_tablebase_source_stores_its_positions_with_their_distances(two_captures, tmp_path):
    """The generate stage's `tablebase` unit (here with the two-capture table, whose positions
    are Tigers & Sheep positions too): exact values and, for decided ones, the distance."""
    from samuel.pipeline import work
    from samuel.pipeline.config import PipelineConfig
    from samuel.pipeline.loop import _cycle, begin_cycle
    from samuel.pipeline.stages import Context
    from samuel.pipeline.stages import work as do_work

    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite'}", command="test")
    ctx = Context(store=store, folder=tmp_path, game="tigers", say=lambda line: None)
    ctx._tables["k2"] = two_captures
    config = PipelineConfig(
        selfplay_games=0, expert_games=0, random_positions=0, tablebase_positions=60,
        tablebase="k2",
    )  # fmt: skip
    cycle_id = begin_cycle(store, ctx, config)
    unit = work.claim(store, cycle_id, "generate")
    assert unit.task["kind"] == "tablebase"
    with store.read() as connection:
        cycle = _cycle(connection, cycle_id)
    store_output = do_work(ctx, cycle, unit)
    with store.write() as connection:
        store_output(connection)
    sample, total = dataset.sample_labelled(store, "tigers", 100, seed=1)
    store.close()
    assert total == 60
    _, values, plies = tablebase_distances(two_captures, sample.states)
    assert np.array_equal(sample.values, values.astype(np.float32))
    assert np.array_equal(sample.plies_left, plies, equal_nan=True)
    assert np.isnan(plies).any() and (~np.isnan(plies)).any()  # draws and decided ones


# --- the supervised trainer ---------------------------------------------------------------------


def _plies_left(name: str, count: int = 40) -> np.ndarray:
    """The plies from each position of :func:`selfplay_positions` to its game's end."""
    rules = get_game(name)
    settings = SelfPlaySettings(
        rules.number, games.EVALUATOR_CLASSIC, rules.classic_weights(),
        rules.encode(rules.initial_position()), depth=1, random_plies=6, epsilon=0.2, ply_cap=80,
    )  # fmt: skip
    played = play_selfplay(settings, np.arange(1000, 1000 + count, dtype=np.int64))
    return np.concatenate(
        [played.plies[g] - np.arange(played.plies[g]) for g in range(count)]
    ).astype(np.float64)


def test_the_trainer_with_the_head_lowers_its_plies_error():
    states, groups = selfplay_positions("tigers")
    targets = teacher_targets(TIGERS, states)
    plies = _plies_left("tigers")
    plies[::7] = np.nan  # some positions without a plies target
    config = SupervisedConfig(
        epochs=8, batch_size=64, learning_rate=3e-3, patience=8, seed=2, moves_left=True
    )
    start_params = random_network(TIGERS, 1)
    params, report = train_supervised(
        TIGERS, start_params, states, targets, groups, config, plies_left=plies
    )
    assert has_moves_left(params, TIGERS) and report.moves_left
    assert report.plies_validation > 0
    assert report.plies_error < 0.8 * report.plies_error_start  # measured: 11.2 -> 8.0
    assert report.validation_mse < report.baselines["start"]
    saved = report.to_json()
    assert SupervisedReport.from_json(json.loads(json.dumps(saved))) == report
    # The same again: reproducible, the head's seed derived from the config's.
    again, _ = train_supervised(
        TIGERS, start_params, states, targets, groups, config, plies_left=plies
    )
    assert np.array_equal(params, again)
    # A start that has the head trains it without being asked.
    headed = with_plies_head(start_params, 5)
    config = dataclasses.replace(config, moves_left=False, epochs=2)
    params, report = train_supervised(
        TIGERS, headed, states, targets, groups, config, plies_left=plies
    )
    assert has_moves_left(params, TIGERS) and report.plies_error is not None
    with pytest.raises(ValueError, match="plies left are at least 0"):
        train_supervised(TIGERS, headed, states, targets, groups, config, plies_left=-plies - 2)


def test_a_value_only_network_trains_exactly_as_before():
    states, groups = selfplay_positions("tigers")
    targets = teacher_targets(TIGERS, states)
    start_params = random_network(TIGERS, 1)
    config = SupervisedConfig(epochs=2, batch_size=64, seed=9)
    before, report_before = train_supervised(TIGERS, start_params, states, targets, groups, config)
    plies = _plies_left("tigers")
    after, report_after = train_supervised(
        TIGERS, start_params, states, targets, groups, config, plies_left=plies
    )
    assert np.array_equal(before, after) and len(after) == len(start_params)
    assert report_before.history == report_after.history
    assert not report_after.moves_left and report_after.plies_error is None
    # The value part of a head network: what the gate plays with is a value network.
    assert np.array_equal(without_head(with_plies_head(after, 3), PLIES), after)
    assert NO_PLIES < 0


# --- the loop, end to end -----------------------------------------------------------------------


@pytest.mark.slow
def test_a_cycle_with_moves_left_trains_and_promotes_a_network_with_the_head(tmp_path):
    folder = tmp_path / "pipe"
    db = f"sqlite:///{tmp_path / 'store.sqlite'}"
    run = samuel("pipeline", "run", str(folder), "--db", db, "--game", "tigers", "--cycles", "2",
                 "--moves-left", *TINY, *LENIENT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "plies-left MAE" in run.stdout
    store = Store.open(db)
    with store.read() as connection:
        counted = connection.execute(
            text("SELECT count(*), count(plies), min(plies) FROM labels")
        ).one()
        active = connection.execute(
            text("SELECT path FROM models WHERE status = 'active'")
        ).scalar_one()
    store.close()
    labels, with_plies, least = counted
    assert 0 < with_plies <= labels and least >= 0
    assert has_moves_left(load_network(folder / active, TIGERS), TIGERS)
    models = samuel("pipeline", "models", str(folder), "--db", db)
    assert models.returncode == 0 and "plies-left MAE" in models.stdout
