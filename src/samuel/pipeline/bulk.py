"""Importing labelled positions in bulk: millions of positions with their labels, for a store
filled from elsewhere (another store, a converted data set) and for the scale benchmark
(``benchmarks/pipeline.py``).

``dataset.add_labels`` is the loop's way (a few thousand labels a unit, each position updated by
its id); here the labels go in set-based, the same on both databases:

1. the positions through ``store.insert_positions`` (COPY on PostgreSQL, ``executemany`` on
   SQLite; those the source already has are skipped, and labelled again below);
2. the labels into a temporary table by the positions' keys (binary COPY / ``executemany``);
3. one ``INSERT INTO labels ... SELECT`` joining it to the positions through their unique
   key (``store.position_keys``), and one ``UPDATE ... FROM`` pointing each position at its new
   label (and clearing its relabelling priority, as ``add_labels`` does).

The caller feeds it in chunks (a few hundred thousand rows a call, one transaction each), so
memory holds one chunk, never the store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection

from samuel.games.kernels import STATE_SIZE

from .schema import METHODS, utc_now
from .store import STATE_BYTES, Provenance, binary_copy_block, insert_positions, position_keys


@dataclass(frozen=True)
class Imported:
    """What one import did: positions that were new, labels given (one per distinct state)."""

    positions: int
    labels: int


def _column(value, count: int, dtype, name: str) -> np.ndarray:
    array = np.asarray(value, dtype=dtype)
    if array.ndim == 0:
        return np.full(count, array, dtype=dtype)
    array = array.reshape(-1)
    if len(array) != count:
        raise ValueError(f"{name} has {len(array)} values for {count} states")
    return array


def import_labelled(
    connection: Connection,
    game: str,
    states: np.ndarray,
    values: np.ndarray,
    stderr: np.ndarray,
    provenance: Provenance,
    *,
    rollouts: np.ndarray | int = 0,
    truncated: np.ndarray | bool = False,
    method: str = "rollout",
    model_id: int | None = None,
    unit_id: int | None = None,
    origin_games: np.ndarray | None = None,
    plies: np.ndarray | None = None,
    plies_left: np.ndarray | float | None = None,
) -> Imported:
    """Store ``states`` of ``game`` from ``provenance``'s source with a label each (``values``
    in the first player's view, their standard errors, ``rollouts`` and ``truncated`` per row
    or for all), and make each label its position's current one. A state the source already
    has is not stored again but gets the new label; a state given twice gets its last label.
    ``plies`` is each position's ply in its game; ``plies_left`` the label's plies to the game's
    end (the moves-left head's target, ``labels.plies``), NaN or left out where none is known."""
    rows = np.ascontiguousarray(states, dtype="<i8")
    if rows.ndim != 2 or rows.shape[1] != STATE_SIZE:
        raise ValueError(f"states must be (n, {STATE_SIZE}) rows, not {rows.shape}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; methods are {', '.join(METHODS)}")
    count = len(rows)
    value_array = _column(values, count, np.float64, "values")
    stderr_array = _column(stderr, count, np.float64, "stderr")
    rollout_array = _column(rollouts, count, np.int32, "rollouts")
    truncated_array = _column(truncated, count, np.bool_, "truncated")
    plies_array = _column(np.nan if plies_left is None else plies_left, count, np.float64, "plies")
    if count == 0:
        return Imported(0, 0)
    if not (np.isfinite(value_array).all() and np.isfinite(stderr_array).all()):
        raise ValueError("values and stderr must be finite")
    if (plies_array < 0).any() or np.isinf(plies_array).any():
        raise ValueError("plies left must be at least 0 (NaN where unknown)")
    new = insert_positions(connection, game, rows, provenance, origin_games, plies)
    # One label per distinct state, its last: the position is labelled once per import.
    as_bytes = rows.view(np.dtype((np.void, STATE_BYTES))).reshape(count)
    _, last_reversed = np.unique(as_bytes[::-1], return_index=True)
    last = np.sort(count - 1 - last_reversed)
    label_rows = (
        position_keys(game, provenance.source, rows[last]),
        value_array[last],
        stderr_array[last],
        rollout_array[last],
        truncated_array[last],
        plies_array[last],
    )
    params = {
        "game": game,
        "source": provenance.source,
        "model_id": model_id,
        "method": method,
        "unit_id": unit_id,
        "now": utc_now(),
    }
    if connection.dialect.name == "postgresql":
        labelled = _copy_labels(connection, label_rows, params)
    else:
        labelled = _insert_labels_sqlite(connection, label_rows, params)
    return Imported(new, labelled)


LABEL_COLUMNS = (
    "position_id, model_id, method, value, stderr, rollouts, truncated, unit_id, created_at, plies"
)


def _copy_labels(connection: Connection, label_rows: tuple, params: dict) -> int:
    keys, values, stderr, rollouts, truncated, plies = label_rows
    raw = connection.connection.driver_connection
    with raw.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE IF NOT EXISTS labels_copy (key bigint NOT NULL, "
            "value float8 NOT NULL, stderr float8 NOT NULL, rollouts integer NOT NULL, "
            "truncated boolean NOT NULL, plies float8 NOT NULL)"
        )
        block = binary_copy_block(
            [
                (keys, ">i8"),
                (values, ">f8"),
                (stderr, ">f8"),
                (rollouts, ">i4"),
                (truncated.astype(np.uint8), "u1"),
                (plies, ">f8"),  # NaN for none: binary COPY blocks have no NULLs
            ]
        )
        with cursor.copy(
            "COPY labels_copy (key, value, stderr, rollouts, truncated, plies) FROM STDIN BINARY"
        ) as copy:
            copy.write(block)
        del block
        cursor.execute(
            f"WITH added AS (INSERT INTO labels ({LABEL_COLUMNS}) "
            "SELECT p.id, %(model_id)s::integer, %(method)s::varchar, i.value, i.stderr, "
            "i.rollouts, i.truncated, %(unit_id)s::integer, %(now)s::timestamptz, "
            "NULLIF(i.plies, 'NaN'::float8) "
            "FROM labels_copy i JOIN positions p ON p.key = i.key "
            "AND p.source = %(source)s::varchar AND p.game = %(game)s::varchar "
            "RETURNING id, position_id) "
            "UPDATE positions SET label_id = added.id, priority = NULL FROM added "
            "WHERE positions.id = added.position_id",
            params,
        )
        labelled = cursor.rowcount
        cursor.execute("TRUNCATE labels_copy")
    return labelled


def _insert_labels_sqlite(connection: Connection, label_rows: tuple, params: dict) -> int:
    """SQLite: the write transaction is the only writer (``BEGIN IMMEDIATE``), so the labels it
    adds are exactly those with ids above the largest before it."""
    keys, values, stderr, rollouts, truncated, plies = label_rows
    raw = connection.connection.driver_connection
    cursor = raw.cursor()
    cursor.execute(
        "CREATE TEMPORARY TABLE IF NOT EXISTS labels_in (key INTEGER NOT NULL, value REAL NOT "
        "NULL, stderr REAL NOT NULL, rollouts INTEGER NOT NULL, truncated INTEGER NOT NULL, "
        "plies REAL)"
    )
    cursor.execute("DELETE FROM labels_in")
    cursor.executemany(
        "INSERT INTO labels_in VALUES (?, ?, ?, ?, ?, ?)",
        zip(
            keys.tolist(),
            values.tolist(),
            stderr.tolist(),
            rollouts.tolist(),
            truncated.astype(int).tolist(),
            [None if math.isnan(m) else m for m in plies.tolist()],
            strict=True,
        ),
    )
    before = cursor.execute("SELECT coalesce(max(id), 0) FROM labels").fetchone()[0]
    cursor.execute(
        f"INSERT INTO labels ({LABEL_COLUMNS}) "
        "SELECT p.id, :model_id, :method, i.value, i.stderr, i.rollouts, i.truncated, "
        ":unit_id, :now, i.plies FROM labels_in i JOIN positions p ON p.key = i.key "
        "AND p.source = :source AND p.game = :game",
        params,
    )
    labelled = cursor.rowcount
    cursor.execute(
        "UPDATE positions SET label_id = labels.id, priority = NULL FROM labels "
        "WHERE labels.id > ? AND positions.id = labels.position_id",
        (before,),
    )
    cursor.execute("DELETE FROM labels_in")
    return labelled
