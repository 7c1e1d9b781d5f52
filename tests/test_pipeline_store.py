"""The pipeline's store, registry and leases, each test on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import datetime
import subprocess
import sys

import numpy as np
import pytest
from sqlalchemy import select, text, update

from samuel.evaluation.networks import random_network
from samuel.games import get_game
from samuel.games.kernels import STATE_SIZE
from samuel.pipeline import registry, work
from samuel.pipeline.schema import Base, Cycle, Model, Position, Promotion, Run, WorkUnit
from samuel.pipeline.store import (
    Provenance,
    Store,
    StoreError,
    database_url,
    insert_positions,
    position_keys,
    states_from_bytes,
)


@pytest.fixture
def store(database_url):
    opened = Store.open(database_url, command="test")
    yield opened
    opened.close()


def test_migrations_give_exactly_the_models(store):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def test_keys_depend_on_game_source_and_every_word_of_the_state():
    rng = np.random.default_rng(3)
    states = rng.integers(-(2**62), 2**62, size=(2000, STATE_SIZE))
    keys = position_keys("tigers", "selfplay", states)
    assert keys.dtype == np.int64 and len(np.unique(keys)) == len(states)
    assert np.array_equal(keys, position_keys("tigers", "selfplay", states.copy()))
    for word in range(STATE_SIZE):
        flipped = states.copy()
        flipped[:, word] ^= 1  # one bit of one word
        assert not np.any(position_keys("tigers", "selfplay", flipped) == keys)
    assert not np.any(position_keys("tigers", "random", states) == keys)
    assert not np.any(position_keys("draughts", "selfplay", states) == keys)


def test_a_store_at_0002_gets_keys_and_keeps_its_positions_and_labels(database_url):
    """Migration 0003 keys the stored positions and moves the unique index to the keys (on
    SQLite by copying the table that the labels point at)."""
    from alembic import command

    from samuel.pipeline.store import _alembic_config, open_engine

    rng = np.random.default_rng(5)
    states = rng.integers(0, 1 << 40, size=(5, STATE_SIZE))
    engine = open_engine(database_url)
    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), "0002")
    with engine.begin() as connection:
        sources = ["random", "random", "expert", "selfplay", "random"]
        for row, source in zip(states, sources, strict=True):
            connection.execute(
                text(
                    "INSERT INTO positions (game, state, source, ply, created_at) "
                    "VALUES ('tigers', :state, :source, 0, CURRENT_TIMESTAMP)"
                ),
                {"state": row.astype("<i8").tobytes(), "source": source},
            )
        connection.execute(
            text(
                "INSERT INTO labels (id, position_id, method, value, stderr, rollouts, "
                "truncated, created_at) VALUES (1, 3, 'rollout', 0.5, 0.1, 16, false, "
                "CURRENT_TIMESTAMP)"
            )
        )
        connection.execute(text("UPDATE positions SET label_id = 1 WHERE id = 3"))
    engine.dispose()
    store = Store.open(database_url, command="test")
    with store.read() as connection:
        rows = connection.execute(
            select(Position.id, Position.source, Position.key, Position.label_id).order_by(
                Position.id
            )
        ).all()
        label = connection.execute(text("SELECT position_id, value FROM labels")).one()
    assert [r.id for r in rows] == [1, 2, 3, 4, 5] and [r.label_id for r in rows][2] == 1
    for row, state in zip(rows, states, strict=True):
        assert row.key == position_keys("tigers", row.source, state[None])[0]
    assert tuple(label) == (3, 0.5)
    with store.write() as connection:  # the keys are the unique index now
        again = insert_positions(
            connection, "tigers", states[:2], Provenance("random", None, 1, None)
        )
        other = insert_positions(
            connection, "tigers", states[:2], Provenance("expert", None, 1, None)
        )
    assert (again, other) == (0, 2)
    store.close()


def test_opening_again_migrates_nothing_and_records_another_run(database_url):
    first = Store.open(database_url, command="one")
    second = Store.open(database_url, command="two")
    with second.read() as connection:
        commands = connection.execute(select(Run.command).order_by(Run.id)).scalars().all()
    assert commands == ["one", "two"]
    assert second.run_id == first.run_id + 1
    first.close()
    second.close()


def test_a_bad_url_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="SQLite or PostgreSQL"):
        Store.open("mysql://somewhere/db")
    with pytest.raises(StoreError, match="no folder"):
        Store.open(f"sqlite:///{tmp_path}/missing/store.sqlite")
    assert database_url(None, tmp_path) == f"sqlite:///{tmp_path.resolve()}/pipeline.sqlite"
    assert database_url("postgresql+psycopg://u@h/db", tmp_path) == "postgresql+psycopg://u@h/db"


def _states(rows: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 1 << 40, size=(rows, STATE_SIZE))


def test_positions_are_stored_once_per_source_with_their_provenance(store):
    states = _states(500)
    selfplay = Provenance("selfplay", None, 7, store.run_id, None)
    with store.write() as connection:
        assert insert_positions(connection, "tigers", states, selfplay, np.arange(500)) == 500
        assert insert_positions(connection, "tigers", states[:100], selfplay) == 0
        expert = Provenance("expert", None, 8, store.run_id)
        assert insert_positions(connection, "tigers", states[:100], expert) == 100
        assert insert_positions(connection, "draughts", states[:10], selfplay) == 10
    with store.read() as connection:
        rows = connection.execute(
            select(Position.state, Position.origin_game, Position.seed)
            .where(Position.game == "tigers", Position.source == "selfplay")
            .order_by(Position.origin_game)
        ).all()
    assert len(rows) == 500
    assert np.array_equal(states_from_bytes([row.state for row in rows]), states)
    assert [row.origin_game for row in rows] == list(range(500))
    assert {row.seed for row in rows} == {7}
    with pytest.raises(ValueError, match="unknown source"):
        Provenance("oracle", None, 1, 1)


def _register(store, folder, status="candidate", parent=None, seed=0):
    with store.write() as connection:
        return registry.register_model(
            connection,
            folder,
            "tigers",
            random_network(get_game("tigers").number, seed),
            parent_id=parent,
            status=status,
            training={"seed": seed},
            run_id=store.run_id,
        )


def test_check_finds_a_position_changed_outside_samuel(store, tmp_path):
    rng = np.random.default_rng(8)
    states = rng.integers(0, 1 << 40, size=(3, STATE_SIZE))
    with store.write() as connection:
        insert_positions(connection, "tigers", states, Provenance("random", None, 1, None))
        insert_positions(connection, "tigers", states[:1], Provenance("expert", None, 1, None))
    with store.read() as connection:
        assert registry.check(connection, tmp_path) == []
    changed = states[1].copy()
    changed[0] ^= 4
    with store.write() as connection:
        connection.execute(
            update(Position).where(Position.id == 2).values(state=changed.astype("<i8").tobytes())
        )
        connection.execute(update(Position).where(Position.id == 4).values(state=b"short"))
    with store.read() as connection:
        problems = registry.check(connection, tmp_path)
    assert [(p.what, p.text.split(" (")[0]) for p in problems] == [
        ("key", "2 positions do not match their keys")
    ]
    assert "ids 2, 4)" in problems[0].text


def test_promotion_is_one_logged_act_and_check_finds_tampering(store, tmp_path):
    first = _register(store, tmp_path, seed=1)
    second = _register(store, tmp_path, parent=first, seed=2)
    with store.write() as connection:
        assert registry.promote(connection, first, who="me", why="the start") is None
    with store.write() as connection:
        assert registry.promote(connection, second, who="me", why="it won") == first
        assert registry.active_model(connection, "tigers").id == second
        with pytest.raises(registry.RegistryError, match="already the active"):
            registry.promote(connection, second, who="me", why="again")
        with pytest.raises(registry.RegistryError, match="promote another one first"):
            registry.reject(connection, [second])
        with pytest.raises(registry.RegistryError, match="no model 99"):
            registry.promote(connection, 99, who="me", why="?")
    with store.read() as connection:
        log = connection.execute(select(Promotion.__table__).order_by(Promotion.id)).all()
        statuses = dict(connection.execute(select(Model.id, Model.status)).all())
        assert registry.check(connection, tmp_path) == []
        model = registry.get_model(connection, second)
    assert [(e.model_id, e.previous_id, e.why) for e in log] == [
        (first, None, "the start"),
        (second, first, "it won"),
    ]
    assert statuses == {first: "retired", second: "active"}
    assert np.array_equal(
        registry.load_model(tmp_path, model), random_network(get_game("tigers").number, 2)
    )

    # A model file changed behind the registry's back.
    path = tmp_path / model.path
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with store.read() as connection:
        problems = registry.check(connection, tmp_path)
    assert [p.what for p in problems] == ["hash"]
    with pytest.raises(registry.RegistryError, match="does not match"):
        registry.load_model(tmp_path, model)

    # Two active models (the store edited by hand), and an unregistered file.
    with store.write() as connection:
        connection.execute(update(Model).where(Model.id == first).values(status="active"))
    (tmp_path / "models" / "tigers-999999.bin").write_bytes(b"x")
    with store.read() as connection:
        problems = registry.check(connection, tmp_path)
        with pytest.raises(registry.RegistryError, match="2 active models"):
            registry.active_model(connection, "tigers")
    kinds = sorted(p.what for p in problems)
    assert kinds == ["active", "hash", "orphan"]
    # A file the store does not own is a problem: `run` refuses the folder until it is moved.
    assert [p.serious for p in problems if p.what == "orphan"] == [True]


def test_a_log_that_disagrees_with_the_statuses_is_found(store, tmp_path):
    first = _register(store, tmp_path, seed=1)
    second = _register(store, tmp_path, seed=2)
    with store.write() as connection:
        registry.promote(connection, first, who="me", why="start")
        # By hand: the status says the second model serves, the log still says the first.
        connection.execute(update(Model).where(Model.id == first).values(status="retired"))
        connection.execute(update(Model).where(Model.id == second).values(status="active"))
    with store.read() as connection:
        problems = registry.check(connection, tmp_path)
    assert [p.what for p in problems] == ["log"]
    assert "newest entry" in problems[0].text


def _cycle_with_units(store, units: int, folder) -> int:
    with store.write() as connection:
        model = registry.register_model(
            connection,
            folder,
            "tigers",
            random_network(0, 0),
            parent_id=None,
            status="active",
            training={},
            run_id=store.run_id,
        )
        cycle = connection.execute(
            Cycle.__table__.insert().returning(Cycle.id),
            {
                "game": "tigers",
                "number": 1,
                "stage": "generate",
                "config": {},
                "champion_id": model,
                "started_at": datetime.datetime.now(datetime.UTC),
            },
        ).scalar_one()
        for part in range(units):
            connection.execute(
                WorkUnit.__table__.insert(),
                {
                    "cycle_id": cycle,
                    "stage": "generate",
                    "part": part,
                    "task": {"part": part},
                    "state": "pending",
                    "attempts": 0,
                    "created_at": datetime.datetime.now(datetime.UTC),
                },
            )
    return cycle


def test_leases_hand_each_unit_to_one_run_and_free_a_dead_runs(database_url, tmp_path):
    first = Store.open(database_url, command="first")
    second = Store.open(database_url, command="second")
    cycle = _cycle_with_units(first, 3, tmp_path)
    a = work.claim(first, cycle, "generate")
    b = work.claim(second, cycle, "generate")
    assert (a.part, b.part) == (0, 1)
    c = work.claim(second, cycle, "generate")
    assert c.part == 2
    assert work.claim(first, cycle, "generate") is None  # every unit held by a live run

    # The second run's lease on part 2 runs out: the first takes the unit over, and the second
    # can no longer finish it (its output would be rolled back with the transaction).
    with first.write() as connection:
        past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)
        connection.execute(update(WorkUnit).where(WorkUnit.id == c.id).values(lease_until=past))
    taken = work.claim(first, cycle, "generate")
    assert taken.id == c.id and taken.attempts == 2
    with pytest.raises(work.LeaseLost):
        with second.write() as connection:
            connection.execute(text("UPDATE runs SET command = 'lost' WHERE id = :i"), {"i": 1})
            work.finish(connection, second, c, {"by": "second"})
    with first.read() as connection:
        assert connection.execute(select(Run.command).where(Run.id == 1)).scalar_one() == "first"
    with first.write() as connection:
        work.finish(connection, first, taken, {"by": "first"})
        work.finish(connection, first, a, {"by": "first"})
        assert work.stage_progress(connection, cycle, "generate") == (2, 3)

    # A run whose process has died: its unit is free at once, lease or not.
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    with first.write() as connection:
        connection.execute(update(Run).where(Run.id == second.run_id).values(pid=int(gone.stdout)))
    again = work.claim(first, cycle, "generate")
    assert again.id == b.id
    first.close()
    second.close()


def test_a_model_file_outside_the_models_folder_is_never_read(store, tmp_path):
    model_id = _register(store, tmp_path, seed=1)
    (tmp_path / "elsewhere.bin").write_bytes(b"not a network")
    with store.write() as connection:
        connection.execute(
            update(Model).where(Model.id == model_id).values(path="models/../elsewhere.bin")
        )
    with store.read() as connection:
        model = registry.get_model(connection, model_id)
        problems = registry.check(connection, tmp_path)
    with pytest.raises(registry.RegistryError, match="is not in"):
        registry.load_model(tmp_path, model)
    assert "file" in [p.what for p in problems]
