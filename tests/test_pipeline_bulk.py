"""Bulk import of labelled positions (samuel.pipeline.bulk), on SQLite and on PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select

from samuel.games.kernels import STATE_SIZE
from samuel.pipeline import dataset, registry
from samuel.pipeline.bulk import import_labelled
from samuel.pipeline.schema import Label, Position
from samuel.pipeline.store import Provenance, Store, insert_positions, states_from_bytes


@pytest.fixture
def store(database_url):
    opened = Store.open(database_url, command="test")
    yield opened
    opened.close()


def _states(count, seed=0):
    rng = np.random.default_rng(seed)
    states = rng.integers(0, 2**25, (count, STATE_SIZE), dtype=np.int64)
    states[:, 0] = np.arange(count)  # distinct
    return states


def _current(store, game="tigers"):
    """Each position of the game by state bytes: (source, origin, ply, value, stderr,
    rollouts, truncated, method) of its current label (None if unlabelled)."""
    with store.read() as connection:
        rows = connection.execute(
            select(
                Position.state,
                Position.source,
                Position.origin_game,
                Position.ply,
                Position.priority,
                Label.value,
                Label.stderr,
                Label.rollouts,
                Label.truncated,
            )
            .outerjoin(Label, Label.id == Position.label_id)
            .where(Position.game == game)
        ).all()
    return {
        (row.state, row.source): (
            row.origin_game,
            row.ply,
            row.value,
            row.stderr,
            row.rollouts,
            row.truncated,
            row.priority,
        )
        for row in rows
    }


@pytest.mark.slow
def test_imported_positions_and_labels_are_exactly_right(store, tmp_path):
    states = _states(300)
    values = np.linspace(-1, 1, 300)
    stderr = np.linspace(0, 0.5, 300)
    selfplay = Provenance("selfplay", None, 5, store.run_id)
    with store.write() as connection:
        # 100 already stored (unlabelled) by the loop's insert, one already from another source
        insert_positions(connection, "tigers", states[:100], selfplay)
        insert_positions(connection, "tigers", states[:1], Provenance("expert", None, 1, None))
        done = import_labelled(
            connection,
            "tigers",
            states,
            values,
            stderr,
            selfplay,
            rollouts=np.arange(300),
            truncated=np.arange(300) % 2 == 1,
            model_id=None,
            origin_games=np.arange(300) - 1,
            plies=np.arange(300) % 7,
        )
    assert (done.positions, done.labels) == (200, 300)
    current = _current(store)
    assert len(current) == 301
    for i, state in enumerate(states):
        origin, ply, value, error, rollouts, truncated, priority = current[
            (state.astype("<i8").tobytes(), "selfplay")
        ]
        if i >= 100:  # stored by the import: its origin and ply
            assert (origin, ply) == (None if i == 0 else i - 1, i % 7)
        assert value == pytest.approx(values[i])
        assert error == pytest.approx(stderr[i])
        assert (rollouts, truncated, priority) == (i, i % 2 == 1, None)
    assert current[(states[0].astype("<i8").tobytes(), "expert")][2] is None  # not labelled
    with store.read() as connection:
        assert registry.check(connection, tmp_path) == []
        assert dataset.count_positions(connection, "tigers") == {
            ("selfplay", True): 300,
            ("expert", False): 1,
        }
    sample, total = dataset.sample_labelled(store, "tigers", 1000, seed=1)
    assert total == 300
    order = np.argsort(sample.states[:, 0])
    assert np.array_equal(sample.states[order], states)
    assert np.allclose(sample.values[order], values.astype(np.float32))


def test_importing_again_relabels_and_the_last_label_of_a_state_wins(store, tmp_path):
    states = _states(50, seed=1)
    random = Provenance("random", None, 9, store.run_id)
    with store.write() as connection:
        import_labelled(connection, "tigers", states, np.zeros(50), np.full(50, 0.1), random)
        ids = np.array(
            connection.execute(select(Position.id).where(Position.game == "tigers")).scalars().all()
        )
        dataset.set_priorities(connection, ids, np.ones(len(ids)))
    twice = np.concatenate([states[:20], states[:10]])
    values = np.concatenate([np.full(20, 0.5), np.full(10, -0.5)])
    with store.write() as connection:
        done = import_labelled(
            connection, "tigers", twice, values, 0.2, random, rollouts=64, method="tablebase"
        )
    assert (done.positions, done.labels) == (0, 20)
    current = _current(store)
    for i, state in enumerate(states):
        _, _, value, error, rollouts, _, priority = current[(state.tobytes(), "random")]
        if i < 10:
            assert (value, error, rollouts, priority) == (-0.5, 0.2, 64, None)
        elif i < 20:
            assert (value, error, rollouts, priority) == (0.5, 0.2, 64, None)
        else:
            assert (value, error, rollouts, priority) == (0.0, 0.1, 0, 1.0)
    with store.read() as connection:
        assert connection.execute(select(Label.id)).all().__len__() == 70
        assert registry.check(connection, tmp_path) == []
        stored = connection.execute(select(Position.state)).scalars().all()
    assert len(states_from_bytes(stored)) == 50


def test_bad_imports_are_refused(store):
    random = Provenance("random", None, 9, store.run_id)
    with store.write() as connection:
        with pytest.raises(ValueError, match="values has 2 values"):
            import_labelled(connection, "tigers", _states(3), [0.0, 1.0], 0.0, random)
        with pytest.raises(ValueError, match="unknown method"):
            import_labelled(connection, "tigers", _states(3), 0.0, 0.0, random, method="guess")
        with pytest.raises(ValueError, match="finite"):
            import_labelled(connection, "tigers", _states(1), [np.nan], 0.0, random)
        assert import_labelled(connection, "tigers", _states(0), [], [], random).labels == 0


def test_prioritise_walks_every_labelled_position_in_chunks(store, monkeypatch):
    from samuel.pipeline import relabel

    monkeypatch.setattr(relabel, "CHUNK", 7)
    states = _states(60, seed=2)
    expert = Provenance("expert", None, 3, store.run_id)
    values, stderr = np.linspace(-1, 1, 40), np.linspace(0.3, 0, 40)
    with store.write() as connection:
        insert_positions(connection, "tigers", states[40:], expert)  # unlabelled
        import_labelled(connection, "tigers", states[:40], values, stderr, expert, rollouts=16)
        import_labelled(connection, "draughts", states[:5], 0.0, 0.0, expert)

    def quick(batch):
        return np.tanh(batch[:, 1] / 2**24 - 1)

    assert relabel.prioritise(store, "tigers", quick) == 40
    with store.read() as connection:
        rows = connection.execute(
            select(Position.id, Position.state, Position.priority, Label.value, Label.stderr)
            .outerjoin(Label, Label.id == Position.label_id)
            .where(Position.game == "tigers")
            .order_by(Position.id)
        ).all()
        best = dataset.by_priority(connection, "tigers", 10)
        other = connection.execute(
            select(Position.priority).where(Position.game == "draughts")
        ).scalars()
        assert set(other) == {None}
    ids = np.array([r.id for r in rows])
    labelled = [r for r in rows if r.value is not None]
    assert len(labelled) == 40 and all(r.priority is None for r in rows if r.value is None)
    expected = relabel.priorities(
        quick(states_from_bytes([r.state for r in labelled])),
        np.array([r.value for r in labelled], np.float32),
        np.array([r.stderr for r in labelled], np.float32),
        np.array([r.id for r in labelled]),
        int(ids.min()),
        int(ids.max()),
    )
    assert np.allclose([r.priority for r in labelled], expected)
    by_hand = [r.id for _, r in sorted(zip(-expected, labelled, strict=True), key=lambda x: x[0])]
    assert best == by_hand[:10]
