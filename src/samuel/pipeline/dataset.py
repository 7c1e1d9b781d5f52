"""Reading and labelling the stored positions, in chunks, so that a store of ten million
positions is sampled for training and walked in relabelling order without ever being in memory
whole.

- **Labels** are appended (``labels`` keeps every one) and each position points at its newest.
- **Training samples** are a bottom-k sketch: every labelled position gets a pseudo-random key
  from its state and the seed, and the ``k`` smallest keys are kept while the rows stream by.
  The sample is uniform, the same whatever order the database returns rows in, and costs memory
  for ``k`` positions only.
- **Relabelling priority** (``relabel.py``) is written into ``positions.priority`` chunk by chunk,
  and read back best first through the ``(game, priority)`` index.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection, bindparam, func, select, text, update

from samuel.games.kernels import STATE_SIZE

from .schema import Label, Position, utc_now
from .store import Store, states_from_bytes

CHUNK = 50_000  # rows fetched per round trip when streaming
OUTCOMES = 6  # a dice label's outcome chances (labels.outcomes)
OUTCOME_BYTES = np.dtype("<f4")  # how labels.outcomes stores each


@dataclass(frozen=True)
class LabelledPositions:
    """Positions with their current labels, as arrays."""

    ids: np.ndarray  # (n,) int64
    states: np.ndarray  # (n, STATE_SIZE) int64
    values: np.ndarray  # (n,) float32, first player's view
    stderr: np.ndarray  # (n,) float32
    groups: np.ndarray  # (n,) int64: the game each came from, -1 for none
    sources: np.ndarray  # (n,) str
    exact: np.ndarray  # (n,) bool: the label is exact (the table's, or a decided position's)
    # (n,) float32: the plies its games lasted from it (labels.plies), NaN where none is known
    plies_left: np.ndarray
    # (n, 6) float32: a dice label's six outcome chances (labels.outcomes), NaN rows for none
    outcomes: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, index: np.ndarray) -> LabelledPositions:
        return LabelledPositions(
            self.ids[index],
            self.states[index],
            self.values[index],
            self.stderr[index],
            self.groups[index],
            self.sources[index],
            self.exact[index],
            self.plies_left[index],
            self.outcomes[index],
        )

    @staticmethod
    def concatenate(parts: list[LabelledPositions]) -> LabelledPositions:
        if not parts:
            return LabelledPositions(
                np.zeros(0, np.int64),
                np.zeros((0, STATE_SIZE), np.int64),
                np.zeros(0, np.float32),
                np.zeros(0, np.float32),
                np.zeros(0, np.int64),
                np.zeros(0, dtype=object),
                np.zeros(0, dtype=bool),
                np.zeros(0, np.float32),
                np.zeros((0, OUTCOMES), np.float32),
            )
        return LabelledPositions(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in LabelledPositions.FIELDS)
        )

    FIELDS = (
        "ids", "states", "values", "stderr", "groups", "sources", "exact", "plies_left", "outcomes"
    )  # fmt: skip

    @property
    def has_outcomes(self) -> bool:
        """Whether every label has its six outcome chances (a game with dice)."""
        return bool(len(self)) and bool(np.isfinite(self.outcomes).all())


def load_states(connection: Connection, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The positions ``ids`` (in that order): (ids, states); ids that do not exist are left out."""
    found: dict[int, bytes] = {}
    for start in range(0, len(ids), 10_000):
        part = ids[start : start + 10_000]
        rows = connection.execute(
            select(Position.id, Position.state).where(Position.id.in_(part))
        ).all()
        found.update((row.id, row.state) for row in rows)
    kept = [i for i in ids if i in found]
    return np.array(kept, dtype=np.int64), states_from_bytes([found[i] for i in kept])


def add_labels(
    connection: Connection,
    position_ids: np.ndarray,
    values: np.ndarray,
    stderr: np.ndarray,
    rollouts: np.ndarray,
    truncated: np.ndarray,
    *,
    method: str,
    model_id: int | None,
    unit_id: int | None,
    plies_left: np.ndarray | None = None,
    outcomes: np.ndarray | None = None,
    ply: int | None = None,
    variance: str | None = None,
) -> int:
    """Append a label for each position and make it the position's current one. ``plies_left``
    (the plies its games lasted from it: the ``plies`` column) is NaN, or left out, where none
    is known. A rollout over dice gives ``outcomes`` (n, 6), its ``ply`` and ``variance``
    reduction too."""
    now = utc_now()
    if plies_left is None:
        plies_left = np.full(len(position_ids), np.nan)
    blobs: list[bytes | None] = [None] * len(position_ids)
    if outcomes is not None:
        outcomes = np.asarray(outcomes, dtype=OUTCOME_BYTES)
        if outcomes.shape != (len(position_ids), OUTCOMES) or not np.isfinite(outcomes).all():
            raise ValueError(
                f"outcomes are six finite chances a position, ({len(position_ids)}, {OUTCOMES}), "
                f"not {outcomes.shape}"
            )
        blobs = [row.tobytes() for row in outcomes]
    rows = [
        {
            "position_id": int(p),
            "model_id": model_id,
            "method": method,
            "value": float(v),
            "stderr": float(e),
            "rollouts": int(k),
            "truncated": bool(t),
            "unit_id": unit_id,
            "created_at": now,
            "plies": float(m) if np.isfinite(m) else None,
            "outcomes": blob,
            "ply": ply,
            "variance": variance,
        }
        for p, v, e, k, t, m, blob in zip(
            position_ids, values, stderr, rollouts, truncated, plies_left, blobs, strict=True
        )
    ]
    if not rows:
        return 0
    inserted = connection.execute(
        Label.__table__.insert().returning(
            Label.id, Label.position_id, sort_by_parameter_order=True
        ),
        rows,
    ).all()
    connection.execute(
        update(Position.__table__)
        .where(Position.__table__.c.id == bindparam("pid"))
        .values(label_id=bindparam("lid"), priority=None),
        [{"pid": row.position_id, "lid": row.id} for row in inserted],
    )
    return len(inserted)


def unlabelled_ids(connection: Connection, game: str) -> list[int]:
    """The positions of ``game`` that have no label yet, oldest first."""
    return list(
        connection.execute(
            select(Position.id)
            .where(Position.game == game, Position.label_id.is_(None))
            .order_by(Position.id)
        ).scalars()
    )


def stream_labelled(
    store: Store, game: str, without: str | None = None, chunk: int = CHUNK
) -> Iterator[LabelledPositions]:
    """Every labelled position of ``game`` (leaving out one source), ``chunk`` at a time in id
    order, each chunk read in a transaction of its own (:func:`labelled_after`)."""
    after = -1
    while True:
        with store.read() as connection:
            part = labelled_after(connection, game, after, chunk, without)
        if len(part) == 0:
            return
        yield part
        after = int(part.ids[-1])


def sample_keys(states: np.ndarray, seed: int) -> np.ndarray:
    """A pseudo-random 63-bit key of each state under ``seed`` (splitmix64 over its words)."""
    with np.errstate(over="ignore"):
        key = np.full(len(states), np.uint64(seed & 0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
        for word in range(states.shape[1]):
            key ^= states[:, word].astype(np.uint64)
            key += np.uint64(0x9E3779B97F4A7C15)
            key ^= key >> np.uint64(30)
            key *= np.uint64(0xBF58476D1CE4E5B9)
            key ^= key >> np.uint64(27)
            key *= np.uint64(0x94D049BB133111EB)
            key ^= key >> np.uint64(31)
    return (key >> np.uint64(1)).astype(np.int64)


def sample_labelled(
    store: Store,
    game: str,
    count: int,
    seed: int,
    without: str | None = None,
    chunk: int = CHUNK,
) -> tuple[LabelledPositions, int]:
    """A uniform sample of at most ``count`` labelled positions (a bottom-k sketch over the
    stream); returns it (in key order) and how many labelled positions there were in all."""
    kept: LabelledPositions | None = None
    kept_keys = np.zeros(0, dtype=np.int64)
    total = 0
    for part in stream_labelled(store, game, without, chunk):
        total += len(part)
        keys = sample_keys(part.states, seed)
        if kept is None:
            kept, kept_keys = part, keys
        else:
            kept = LabelledPositions.concatenate([kept, part])
            kept_keys = np.concatenate([kept_keys, keys])
        if len(kept_keys) > count:
            best = np.argpartition(kept_keys, count - 1)[:count]
            kept, kept_keys = kept.take(best), kept_keys[best]
    if kept is None:
        return LabelledPositions.concatenate([]), 0
    order = np.lexsort((kept.ids, kept_keys))  # ties (the same state twice) by id
    return kept.take(order), total


def count_positions(connection: Connection, game: str) -> dict[tuple[str, bool], int]:
    """How many positions of ``game`` each source has, labelled (True) or not."""
    rows = connection.execute(
        select(Position.source, Position.label_id.is_not(None), func.count())
        .where(Position.game == game)
        .group_by(Position.source, Position.label_id.is_not(None))
    ).all()
    return {(source, bool(labelled)): count for source, labelled, count in rows}


def set_priorities(connection: Connection, ids: np.ndarray, priorities: np.ndarray) -> None:
    """Give the positions ``ids`` these relabelling priorities, in bulk: ``executemany`` in id
    order on SQLite, binary COPY into a temporary table and one ``UPDATE ... FROM`` on
    PostgreSQL."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    priorities = np.asarray(priorities, dtype=np.float64).reshape(-1)
    if len(ids) != len(priorities):
        raise ValueError("ids and priorities must have the same length")
    if len(ids) == 0:
        return
    order = np.argsort(ids, kind="stable")
    ids, priorities = ids[order], priorities[order]
    raw = connection.connection.driver_connection
    if connection.dialect.name == "postgresql":
        from .store import binary_copy_block

        with raw.cursor() as cursor:
            cursor.execute(
                "CREATE TEMPORARY TABLE IF NOT EXISTS priorities_copy "
                "(id bigint NOT NULL, priority float8 NOT NULL)"
            )
            with cursor.copy("COPY priorities_copy (id, priority) FROM STDIN BINARY") as copy:
                copy.write(binary_copy_block([(ids, ">i8"), (priorities, ">f8")]))
            cursor.execute(
                "UPDATE positions SET priority = priorities_copy.priority FROM priorities_copy "
                "WHERE positions.id = priorities_copy.id"
            )
            cursor.execute("TRUNCATE priorities_copy")
        return
    cursor = raw.cursor()
    cursor.executemany(
        "UPDATE positions SET priority = ? WHERE id = ?",
        zip(priorities.tolist(), ids.tolist(), strict=True),
    )


def labelled_after(
    connection: Connection,
    game: str,
    after: int,
    chunk: int = CHUNK,
    without: str | None = None,
) -> LabelledPositions:
    """The next ``chunk`` labelled positions of ``game`` with ids above ``after``, in id order
    (leaving out the source ``without``). Walks the primary key (SQLite: ``NOT INDEXED``, which
    its planner would otherwise trade for the game's index and a sort of all of it), so a chunk
    costs its own rows whatever the store's size."""
    hint = " NOT INDEXED" if connection.dialect.name == "sqlite" else ""
    leave_out = " AND p.source != :without" if without is not None else ""
    rows = connection.execute(
        text(
            "SELECT p.id, p.state, p.origin_game, p.source, l.value, l.stderr, l.rollouts, "
            "l.plies, l.outcomes "
            f"FROM positions AS p{hint} JOIN labels AS l ON l.id = p.label_id "
            f"WHERE p.game = :game AND p.id > :after{leave_out} ORDER BY p.id LIMIT :chunk"
        ),
        {"game": game, "after": after, "chunk": chunk, "without": without},
    ).all()
    return LabelledPositions(
        np.array([r.id for r in rows], dtype=np.int64),
        states_from_bytes([r.state for r in rows]),
        np.array([r.value for r in rows], dtype=np.float32),
        np.array([r.stderr for r in rows], dtype=np.float32),
        np.array([-1 if r.origin_game is None else r.origin_game for r in rows], np.int64),
        np.array([r.source for r in rows], dtype=object),
        np.array([r.rollouts == 0 for r in rows], dtype=bool),
        np.array([np.nan if r.plies is None else r.plies for r in rows], dtype=np.float32),
        _outcomes([r.outcomes for r in rows]),
    )


def _outcomes(blobs: list[bytes | None]) -> np.ndarray:
    """labels.outcomes read back: (n, 6) float32, a NaN row where a label has none."""
    out = np.full((len(blobs), OUTCOMES), np.nan, dtype=np.float32)
    for i, blob in enumerate(blobs):
        if blob is not None:
            out[i] = np.frombuffer(bytes(blob), dtype=OUTCOME_BYTES, count=OUTCOMES)
    return out


def by_priority(connection: Connection, game: str, count: int) -> list[int]:
    """The ``count`` positions of ``game`` with the highest relabelling priority, best first."""
    return list(
        connection.execute(
            select(Position.id)
            .where(Position.game == game, Position.priority.is_not(None))
            .order_by(Position.priority.desc(), Position.id)
            .limit(count)
        ).scalars()
    )
