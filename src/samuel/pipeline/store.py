"""Opening the pipeline's store (SQLite by default, PostgreSQL by URL), its migrations, and the
bulk writes that must be fast: positions by the ten thousand, labels by the thousand.

One code path serves both databases; where they differ it is said here and nowhere else:

- **SQLite** (a file, one writer at a time): every write transaction begins ``IMMEDIATE``, so two
  ``run`` processes never both read and then both try to write (which SQLite would refuse to one
  of them); write-ahead logging lets readers go on meanwhile, and a busy timeout makes a writer
  wait its turn. Bulk inserts are ``INSERT OR IGNORE`` through ``executemany``.
- **PostgreSQL**: bulk inserts ``COPY`` into a temporary table, then ``INSERT ... ON CONFLICT DO
  NOTHING`` from it; migrations take an advisory lock, so two first runs do not both create the
  tables.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from samuel.errors import SamuelError
from samuel.games.kernels import STATE_SIZE

from .schema import SOURCES, Run, utc_now

MIGRATIONS = Path(__file__).parent / "migrations"
DEFAULT_DB_NAME = "pipeline.sqlite"
SQLITE_BUSY_MS = 60_000  # a writer waits this long for another's transaction to end
MIGRATION_LOCK = 0x5A4D55454C  # PostgreSQL advisory lock key held while migrating ("SAMUEL")
STATE_BYTES = STATE_SIZE * 8


class StoreError(SamuelError):
    """The store cannot be opened or used: a bad URL, an unreachable server, a newer schema."""


def database_url(db: str | None, folder: str | os.PathLike) -> str:
    """The URL of the store: ``db`` if it is a URL, a SQLite file at the path ``db``, or by
    default ``pipeline.sqlite`` in the pipeline's folder."""
    if db is not None and "://" in db:
        return db
    path = Path(folder) / DEFAULT_DB_NAME if db is None else Path(db)
    return f"sqlite:///{path.resolve()}"


def _sqlite_settings(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by sqlite3
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL keeps committed data across a crash
        cursor.execute("PRAGMA cache_size=-131072")  # 128 MiB: a big store's indexes stay hot
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin(connection: Connection) -> None:
        deferred = connection.get_execution_options().get("read_only", False)
        connection.exec_driver_sql("BEGIN" if deferred else "BEGIN IMMEDIATE")


def open_engine(url: str) -> Engine:
    """An engine for ``url``, with the settings the pipeline relies on; raises
    :class:`StoreError` for a URL it cannot use."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"not a database URL: {url[:80]!r}") from None
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise StoreError(
            f"the pipeline's store is SQLite or PostgreSQL, not {backend!r} "
            "(e.g. --db postgresql+psycopg://user@host/db)"
        )
    if backend == "sqlite" and parsed.database not in (None, "", ":memory:"):
        folder = Path(parsed.database).parent
        if not folder.is_dir():
            raise StoreError(f"no folder {folder} for the SQLite store {parsed.database}")
    try:
        engine = create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ImportError) as error:
        raise StoreError(f"cannot use {parsed.drivername!r}: {error}") from None
    if backend == "sqlite":
        _sqlite_settings(engine)
    return engine


def _alembic_config(connection: Connection):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> None:
    """Bring the store's schema to this code's newest migration (creating it if empty)."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config = _alembic_config(connection)
        head = ScriptDirectory.from_config(config).get_current_head()
        current = MigrationContext.configure(connection).get_current_revision()
        known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
        if current is not None and current not in known:
            raise StoreError(
                f"the store's schema ({current}) is newer than this samuel knows (newest: {head}): "
                "upgrade samuel"
            )
        if current != head:
            command.upgrade(config, "head")


@dataclass
class Store:
    """An open store: its engine, and the run (this process) that writes to it."""

    engine: Engine
    url: str
    run_id: int

    @classmethod
    def open(cls, url: str, command: str | None = None) -> Store:
        """Open (and migrate) the store at ``url`` and record this process as a run."""
        engine = open_engine(url)
        try:
            migrate(engine)
            with engine.begin() as connection:
                run_id = connection.execute(
                    Run.__table__.insert().returning(Run.id),
                    {
                        "host": socket.gethostname(),
                        "pid": os.getpid(),
                        "command": command if command is not None else " ".join(sys.argv),
                        "started_at": utc_now(),
                    },
                ).scalar_one()
        except DBAPIError as error:
            engine.dispose()
            raise StoreError(f"cannot open the store {safe_url(url)}: {error.orig}") from None
        return cls(engine=engine, url=url, run_id=run_id)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction: committed at the end, rolled back on an error."""
        with self.engine.begin() as connection:
            yield connection

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction (SQLite: one that never blocks a writer)."""
        with self.engine.connect().execution_options(read_only=True) as connection:
            with connection.begin():
                yield connection

    def close(self) -> None:
        self.engine.dispose()


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a malformed URL)"


def state_bytes(states: np.ndarray) -> list[bytes]:
    """Each state row as the bytes a position is stored as (little-endian int64 words)."""
    rows = np.ascontiguousarray(states, dtype="<i8")
    if rows.ndim != 2 or rows.shape[1] != STATE_SIZE:
        raise ValueError(f"states must be (n, {STATE_SIZE}) rows, not {rows.shape}")
    return [row.tobytes() for row in rows]


def states_from_bytes(blobs: list[bytes]) -> np.ndarray:
    """The state rows back from their stored bytes."""
    if any(len(blob) != STATE_BYTES for blob in blobs):
        raise StoreError(f"a stored position is not {STATE_BYTES} bytes: the store is damaged")
    data = b"".join(blobs)
    return np.frombuffer(data, dtype="<i8").reshape(len(blobs), STATE_SIZE).astype(np.int64)


POSITION_COLUMNS = (
    "game",
    "state",
    "source",
    "model_id",
    "seed",
    "run_id",
    "unit_id",
    "origin_game",
    "ply",
    "created_at",
)


@dataclass(frozen=True)
class Provenance:
    """Who made a batch of positions: the source, the model that played (if any), the seed of
    the games, the run and unit of work."""

    source: str
    model_id: int | None
    seed: int | None
    run_id: int | None
    unit_id: int | None = None

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r}; sources are {', '.join(SOURCES)}")


def insert_positions(
    connection: Connection,
    game: str,
    states: np.ndarray,
    provenance: Provenance,
    origin_games: np.ndarray | None = None,
    plies: np.ndarray | None = None,
) -> int:
    """Store positions (those this source already has are skipped); return how many were new.

    ``origin_games`` says which game each came from (for the validation split by game; None for
    a position from no game), ``plies`` its ply there."""
    count = len(states)
    blobs = state_bytes(states)
    origins = [None] * count if origin_games is None else [int(g) for g in origin_games]
    origins = [None if g is not None and g < 0 else g for g in origins]
    ply_list = [0] * count if plies is None else [int(p) for p in plies]
    if len(origins) != count or len(ply_list) != count:
        raise ValueError("states, origin_games and plies must have the same length")
    now = utc_now()
    p = provenance
    rows = [
        (game, blob, p.source, p.model_id, p.seed, p.run_id, p.unit_id, origin, ply, now)
        for blob, origin, ply in zip(blobs, origins, ply_list, strict=True)
    ]
    if not rows:
        return 0
    if connection.dialect.name == "postgresql":
        return _copy_positions(connection, rows)
    columns = ", ".join(POSITION_COLUMNS)
    marks = ", ".join("?" * len(POSITION_COLUMNS))
    cursor = connection.connection.driver_connection.cursor()
    before = connection.connection.driver_connection.total_changes
    cursor.executemany(f"INSERT OR IGNORE INTO positions ({columns}) VALUES ({marks})", rows)
    return connection.connection.driver_connection.total_changes - before


def _copy_positions(connection: Connection, rows: list[tuple]) -> int:
    """PostgreSQL: COPY into a temporary table, then insert what is new."""
    columns = ", ".join(POSITION_COLUMNS)
    raw = connection.connection.driver_connection
    with raw.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS positions_in AS SELECT {columns} "
            "FROM positions WITH NO DATA"
        )
        with cursor.copy(f"COPY positions_in ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cursor.execute(
            f"INSERT INTO positions ({columns}) SELECT {columns} FROM positions_in "
            "ON CONFLICT (state, source, game) DO NOTHING"
        )
        inserted = cursor.rowcount
        cursor.execute("TRUNCATE positions_in")
    return inserted
