"""Sampling stored positions for training and walking them in relabelling order, on SQLite and
on a real PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select

from samuel.games.kernels import STATE_SIZE
from samuel.pipeline import dataset
from samuel.pipeline.relabel import RECENCY_WEIGHT, prioritise
from samuel.pipeline.schema import Position
from samuel.pipeline.store import Provenance, Store, insert_positions


@pytest.fixture
def store(database_url):
    opened = Store.open(database_url, command="test")
    yield opened
    opened.close()


def _fill(store, count: int, source: str = "selfplay", seed: int = 0) -> np.ndarray:
    states = np.random.default_rng(seed).integers(0, 1 << 40, size=(count, STATE_SIZE))
    with store.write() as connection:
        insert_positions(
            connection, "tigers", states, Provenance(source, None, seed, store.run_id),
            np.arange(count) // 10,
        )  # fmt: skip
    return states


def _ids(store, source: str) -> np.ndarray:
    with store.read() as connection:
        return np.array(
            connection.execute(
                select(Position.id).where(Position.source == source).order_by(Position.id)
            ).scalars().all()
        )  # fmt: skip


def _label(store, ids, values, stderr, rollouts):
    with store.write() as connection:
        dataset.add_labels(
            connection, ids, values, stderr, rollouts, np.zeros(len(ids), bool),
            method="rollout", model_id=None, unit_id=None,
        )  # fmt: skip


def test_training_samples_are_the_same_whatever_the_chunks_and_leave_a_source_out(store):
    _fill(store, 300, "selfplay", seed=1)
    _fill(store, 100, "random", seed=2)
    for source in ("selfplay", "random"):
        ids = _ids(store, source)
        _label(store, ids, np.linspace(-1, 1, len(ids)), np.full(len(ids), 0.1),
               np.full(len(ids), 16))  # fmt: skip
    whole, total = dataset.sample_labelled(store, "tigers", 120, seed=5)
    chunked, _ = dataset.sample_labelled(store, "tigers", 120, seed=5, chunk=7)
    other, _ = dataset.sample_labelled(store, "tigers", 120, seed=6)
    assert total == 400 and len(whole) == 120
    assert np.array_equal(whole.ids, chunked.ids)
    assert np.array_equal(whole.states, chunked.states)
    assert not np.array_equal(np.sort(whole.ids), np.sort(other.ids))
    assert 10 < np.count_nonzero(whole.sources == "random") < 60  # about a quarter
    without, total = dataset.sample_labelled(store, "tigers", 1000, seed=5, without="random")
    assert total == 300 and set(without.sources) == {"selfplay"}
    assert set(without.groups) == set(range(30))  # each position's game, for the split


def test_relabelling_walks_the_most_urgent_first_and_leaves_exact_labels(store):
    _fill(store, 50)
    ids = _ids(store, "selfplay")
    labels = np.zeros(50)
    stderr = np.zeros(50)
    rollouts = np.full(50, 16)
    labels[7], stderr[11], rollouts[3] = 0.9, 0.5, 0  # a disagreement, a noisy label, an exact one
    labels[3] = 1.0  # the exact one disagrees most, but is never relabelled
    _label(store, ids, labels, stderr, rollouts)
    done = prioritise(store, "tigers", lambda states: np.zeros(len(states), np.float32))
    assert done == 50
    with store.read() as connection:
        order = dataset.by_priority(connection, "tigers", 50)
    assert ids[3] not in order and len(order) == 49
    assert order[:2] == [ids[7], ids[11]]
    assert order[2] == ids[-1]  # then the newest: recency alone
    assert RECENCY_WEIGHT < 0.5
    _label(store, ids[[7]], [0.0], [0.1], [16])  # relabelled: out of the walk
    with store.read() as connection:
        assert dataset.by_priority(connection, "tigers", 1) == [ids[11]]
