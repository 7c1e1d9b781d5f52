"""Opening the pipeline's store (SQLite by default, PostgreSQL by URL), its migrations, and the
bulk writes that must be fast: positions by the ten thousand, labels by the thousand.

One code path serves both databases; where they differ it is said here and nowhere else:

- **SQLite** (a file, one writer at a time): every write transaction begins ``IMMEDIATE``, so two
  ``run`` processes never both read and then both try to write (which SQLite would refuse to one
  of them); write-ahead logging lets readers go on meanwhile, and a busy timeout makes a writer
  wait its turn. Bulk inserts are ``INSERT OR IGNORE`` through ``executemany``.
- **Both**: a position is found by its ``key`` (:func:`position_keys`, a 64-bit hash of its
  game, source and state) through a unique index on that one integer. An index on the 32-byte
  state with the two names beside it was three times larger, and since states are in effect
  random every new row dirtied a page of it: SQLite's inserts fell from 120,000 a second on an
  empty store to 33,000 at a few million positions (docs/pipeline.md, "The store").
- **PostgreSQL**: bulk inserts ``COPY`` into a temporary table, then ``INSERT ... ON CONFLICT DO
  NOTHING`` from it; migrations take an advisory lock, so two first runs do not both create the
  tables.
- **Reading only** (``Store.open(url, read_only=True)``, for ``status``, ``models``, ``check``):
  SQLite opens the file ``mode=ro`` (``immutable`` in a folder that takes no files, where no
  one can be writing) and never sets its journal mode; PostgreSQL's transactions are read-only.
  Nothing is migrated and no run is recorded, so a read-only file or file system can be read,
  and a store that does not exist is never created.
- **Failures of the store itself** (a full disk, a damaged file, a lock held too long, a lost
  server) become one-line :class:`StoreError` messages (:func:`describe_database_error`).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import socket
import sqlite3
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
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


# position_keys' constants: part of the stored data (migration 0003 filled the keys with them), so
# they never change.
_KEY_MULTIPLIERS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)
_KEY_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every bit of the result depends on every bit of ``z``."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_KEY_MULTIPLIERS[0])
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_KEY_MULTIPLIERS[1])
    return z ^ (z >> np.uint64(31))


def position_keys(game: str, source: str, states: np.ndarray) -> np.ndarray:
    """Each position's key: a 64-bit hash (as int64) of its game, source and state words, the
    store's unique index (one row per (state, source, game)). Two different positions share a
    key with probability about n^2 / 2^65 among n (3 in a million at ten million positions):
    the later one would be taken for stored and skipped, lost but never mixed up."""
    rows = np.ascontiguousarray(states, dtype="<i8")
    if rows.ndim != 2:
        raise ValueError(f"states must be rows, not an array of shape {rows.shape}")
    names = f"{game}\0{source}".encode()
    seed = int.from_bytes(hashlib.blake2b(names, digest_size=8).digest(), "little")
    with np.errstate(over="ignore"):
        key = np.full(len(rows), seed, dtype=np.uint64)
        for word in rows.view(np.uint64).T:
            key = _mix(key ^ (word + np.uint64(_KEY_GOLDEN)))
    return key.view(np.int64)


def stored_keys(rows) -> list[int]:
    """The keys of stored rows (each with ``game``, ``source`` and ``state``), in their order:
    one :func:`position_keys` call per (game, source) among them."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault((row.game, row.source), []).append(i)
    keys = [0] * len(rows)
    for (game, source), members in groups.items():
        states = states_from_bytes([rows[i].state for i in members])
        for i, key in zip(members, position_keys(game, source, states).tolist(), strict=True):
            keys[i] = key
    return keys


class StoreError(SamuelError):
    """The store cannot be opened or used: a bad URL, an unreachable server, a newer schema, a
    damaged file, a full disk."""


class NoPipelineError(StoreError):
    """The store does not exist (``missing``), or exists and holds no pipeline: an empty file, a
    database without the pipeline's tables. Only ``samuel pipeline run`` starts one."""

    def __init__(self, message: str, missing: bool) -> None:
        super().__init__(message)
        self.missing = missing


def database_url(db: str | None, folder: str | os.PathLike) -> str:
    """The URL of the store: ``db`` if it is a URL, a SQLite file at the path ``db``, or by
    default ``pipeline.sqlite`` in the pipeline's folder."""
    if db is not None and "://" in db:
        return db
    path = Path(folder) / DEFAULT_DB_NAME if db is None else Path(db)
    return f"sqlite:///{path.resolve()}"


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite store's URL (None for another database, or SQLite in memory)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def _sqlite_settings(engine: Engine, read_only: bool) -> None:
    @event.listens_for(engine, "connect")
    def connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by sqlite3
        cursor = dbapi_connection.cursor()
        if not read_only:  # a store that is read is never changed, not even its journal mode
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL keeps committed data across a crash
        cursor.execute("PRAGMA cache_size=-131072")  # 128 MiB: a big store's indexes stay hot
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin(connection: Connection) -> None:
        deferred = read_only or connection.get_execution_options().get("read_only", False)
        connection.exec_driver_sql("BEGIN" if deferred else "BEGIN IMMEDIATE")


def _read_only_sqlite(path: Path):
    """A function that opens the SQLite file at ``path`` read-only (``mode=ro``: SQLite itself
    refuses every write, and never creates the file). A store in a folder that takes no new
    files, with no write-ahead log beside it, is opened ``immutable`` (SQLite could not make
    the log's index there; with no log, no one is writing)."""
    name = urllib.parse.quote(str(path.resolve()))
    wal = path.with_name(path.name + "-wal")
    immutable = not os.access(path.parent, os.W_OK) and not wal.exists()
    uri = f"file:{name}?{'immutable=1' if immutable else 'mode=ro'}"

    def connect():
        return sqlite3.connect(uri, uri=True, check_same_thread=False)

    return connect


def open_engine(url: str, read_only: bool = False) -> Engine:
    """An engine for ``url``, with the settings the pipeline relies on; raises
    :class:`StoreError` for a URL it cannot use. ``read_only``: the database refuses writes
    (SQLite opens the file ``mode=ro``; PostgreSQL's transactions are read-only)."""
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
    options: dict = {}
    if read_only and backend == "sqlite" and parsed.database not in (None, "", ":memory:"):
        options["creator"] = _read_only_sqlite(Path(parsed.database))
    elif read_only and backend == "postgresql":
        options["connect_args"] = {"options": "-c default_transaction_read_only=on"}
    try:
        engine = create_engine(parsed, pool_pre_ping=True, **options)
    except (NoSuchModuleError, ImportError) as error:
        raise StoreError(f"cannot use {parsed.drivername!r}: {error}") from None
    if backend == "sqlite":
        _sqlite_settings(engine, read_only)
    return engine


def _scripts():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(config)


def head_revision() -> str:
    """This program's newest schema revision."""
    return _scripts().get_current_head()


def schema_revision(connection: Connection) -> str | None:
    """The store's schema revision (Alembic's), or None if it has none: no pipeline in it."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def check_pipeline(engine: Engine, url: str, older_is_fine: bool) -> None:
    """Raise :class:`NoPipelineError` if the store holds no pipeline, :class:`StoreError` if its
    schema is newer than this program's or (unless ``older_is_fine``) older."""
    with engine.connect() as connection:
        with connection.begin():
            revision = schema_revision(connection)
    where = safe_url(url)
    if revision is None:
        raise NoPipelineError(
            f"the store {where} holds no pipeline (no tables: `samuel pipeline run` starts one)",
            missing=False,
        )
    scripts = _scripts()
    head = scripts.get_current_head()
    if revision == head:
        return
    if revision not in {script.revision for script in scripts.walk_revisions()}:
        raise StoreError(
            f"the store's schema ({revision}) is newer than this samuel knows (newest: {head}): "
            "upgrade samuel"
        )
    if not older_is_fine:
        raise StoreError(
            f"the store {where} has an older schema ({revision}; this samuel's is {head}), and "
            "this command only reads: `samuel pipeline migrate DIR` upgrades it"
        )


def describe_database_error(error: BaseException, url: str) -> StoreError | None:
    """A one-line :class:`StoreError` for what the database said when the store itself failed (a
    full disk, a damaged file, a lock held too long, a lost server), or None for any other error
    (a bug, or a constraint the caller must word itself)."""
    from sqlalchemy import exc

    original = error.orig if isinstance(error, exc.DBAPIError) else error
    if isinstance(original, sqlite3.Error):
        if type(original) not in (sqlite3.OperationalError, sqlite3.DatabaseError):
            return None  # integrity and programming errors are the caller's (or bugs)
    else:
        try:
            import psycopg
        except ImportError:
            return None
        if not isinstance(original, psycopg.OperationalError | psycopg.InternalError):
            return None
    lines = str(original).strip().splitlines()
    said = lines[0].strip() if lines else type(original).__name__
    said = "".join(c if c.isprintable() else "?" for c in said)[:200]
    where = safe_url(url)
    lowered = said.lower()
    code = getattr(original, "sqlstate", None) or ""
    if "disk is full" in lowered or "no space left" in lowered or code == "53100":
        return StoreError(
            f"the store {where} is out of space ({said}): the work in flight was not stored, "
            "and what was stored before is intact; free some space and run again"
        )
    if (
        "malformed" in lowered
        or "not a database" in lowered
        or "corrupt" in lowered
        or "could not decode" in lowered
        or code in ("XX001", "XX002")
    ):
        return StoreError(
            f"the store {where} is damaged ({said}): restore it from a backup "
            "(`samuel pipeline check` verifies a store)"
        )
    if "readonly" in lowered or "read-only" in lowered:
        return StoreError(f"the store {where} cannot be written ({said})")
    if "locked" in lowered or "busy" in lowered:
        return StoreError(f"the store {where} is locked by another process ({said}): try again")
    return StoreError(f"the store {where}: {said}")


def _alembic_config(connection: Connection):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> None:
    """Bring the store's schema to this code's newest migration (creating it if empty)."""
    with engine.connect() as outside:
        if engine.dialect.name == "sqlite":
            # Off outside the transaction (SQLite ignores it inside): a migration that copies a
            # table drops the old one, which foreign keys pointing at it would forbid. Checked
            # before committing below, and on again for the connection's next user.
            outside.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")
        try:
            _migrate(outside)
        finally:
            if engine.dialect.name == "sqlite":
                outside.connection.driver_connection.execute("PRAGMA foreign_keys=ON")


def _migrate(connection: Connection) -> None:
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    with connection.begin():
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
            if connection.dialect.name == "sqlite":
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
                if broken is not None:
                    raise StoreError(f"migrating broke a foreign key ({tuple(broken)}): not saved")


AFTER_TRANSACTION = "samuel_after_transaction"  # connection.info: what to do after it ends


def after_transaction(
    connection: Connection, committed: Callable[[], None], rolled_back: Callable[[], None]
) -> bool:
    """Have ``committed`` called once the transaction of :meth:`Store.write` that ``connection``
    is in commits, or ``rolled_back`` if it does not (files that belong with the rows written:
    ``registry.register_model``). False (and nothing done) outside :meth:`Store.write`."""
    hooks = connection.info.get(AFTER_TRANSACTION)
    if hooks is None:
        return False
    hooks.append((committed, rolled_back))
    return True


def _store_file_problem(url: str) -> NoPipelineError | None:
    """For a SQLite store: the error that says its file is missing or empty, if it is."""
    path = sqlite_file(url)
    if path is None:
        return None
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return NoPipelineError(
            f"no store {path} (`samuel pipeline run` starts a pipeline)", missing=True
        )
    except OSError:
        return None  # opening it says why
    if size == 0:
        return NoPipelineError(f"the store {path} is empty (0 bytes): it holds no pipeline", False)
    return None


@dataclass
class Store:
    """An open store: its engine, and the run (this process) that writes to it (none when the
    store was opened read-only)."""

    engine: Engine
    url: str
    run_id: int | None
    read_only: bool = field(default=False)

    @classmethod
    def open(
        cls,
        url: str,
        command: str | None = None,
        *,
        read_only: bool = False,
        create: bool = True,
    ) -> Store:
        """Open the store at ``url``. By default migrate it (creating the pipeline's tables in a
        new store) and record this process as a run. ``create=False``: the store must exist and
        hold a pipeline (:class:`NoPipelineError` otherwise). ``read_only``: nothing is written,
        not even the run (the database refuses writes; the schema must be this program's)."""
        if read_only or not create:
            problem = _store_file_problem(url)
            if problem is not None:
                raise problem
        engine = open_engine(url, read_only=read_only)
        try:
            if read_only or not create:
                check_pipeline(engine, url, older_is_fine=not read_only)
            if read_only:
                return cls(engine=engine, url=url, run_id=None, read_only=True)
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
        except (DBAPIError, sqlite3.Error) as error:
            engine.dispose()
            described = describe_database_error(error, url)
            original = getattr(error, "orig", error)
            raise (
                described or StoreError(f"cannot open the store {safe_url(url)}: {original}")
            ) from None
        except BaseException:
            engine.dispose()
            raise
        return cls(engine=engine, url=url, run_id=run_id)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction: committed at the end, rolled back on an error. What was asked
        with :func:`after_transaction` is done once it has committed or rolled back."""
        if self.read_only:
            raise StoreError(f"the store {safe_url(self.url)} was opened read-only")
        with self.engine.connect() as connection:
            hooks: list[tuple[Callable[[], None], Callable[[], None]]] = []
            connection.info[AFTER_TRANSACTION] = hooks
            try:
                with connection.begin():
                    yield connection
            except BaseException:
                for _, rolled_back in hooks:
                    rolled_back()
                raise
            finally:
                connection.info.pop(AFTER_TRANSACTION, None)
            for committed, _ in hooks:
                committed()

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
    "key",
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
    rows = np.ascontiguousarray(states, dtype="<i8")
    if rows.ndim != 2 or rows.shape[1] != STATE_SIZE:
        raise ValueError(f"states must be (n, {STATE_SIZE}) rows, not {rows.shape}")
    count = len(rows)
    origins = (
        np.full(count, -1, dtype=np.int64)
        if origin_games is None
        else np.asarray(origin_games, dtype=np.int64).reshape(-1)
    )
    ply_array = (
        np.zeros(count, dtype=np.int64)
        if plies is None
        else np.asarray(plies, dtype=np.int64).reshape(-1)
    )
    if len(origins) != count or len(ply_array) != count:
        raise ValueError("states, origin_games and plies must have the same length")
    if count == 0:
        return 0
    if ply_array.min() < -(2**15) or ply_array.max() >= 2**15:
        raise ValueError("a ply does not fit the store's smallint")
    origins = np.where(origins < 0, -1, origins)  # negative: from no game (stored as NULL)
    if connection.dialect.name == "postgresql":
        return _copy_positions(connection, game, rows, provenance, origins, ply_array)
    now = utc_now()
    p = provenance
    blobs = state_bytes(rows)
    keys = position_keys(game, p.source, rows).tolist()
    origin_list = [None if g < 0 else g for g in origins.tolist()]
    columns = ", ".join(POSITION_COLUMNS)
    marks = ", ".join("?" * len(POSITION_COLUMNS))
    raw = connection.connection.driver_connection
    cursor = raw.cursor()
    before = raw.total_changes
    cursor.executemany(
        f"INSERT OR IGNORE INTO positions ({columns}) VALUES ({marks})",
        zip(
            itertools.repeat(game),
            blobs,
            keys,
            itertools.repeat(p.source),
            itertools.repeat(p.model_id),
            itertools.repeat(p.seed),
            itertools.repeat(p.run_id),
            itertools.repeat(p.unit_id),
            origin_list,
            ply_array.tolist(),
            itertools.repeat(now),
        ),
    )
    return raw.total_changes - before


COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, no header extension
COPY_TRAILER = b"\xff\xff"


def binary_copy_block(fields: list[tuple[np.ndarray, str]]) -> bytes:
    """PostgreSQL's binary COPY data for rows of fixed-size, non-null fields, built in one
    piece by numpy: ``fields`` are (column array, big-endian numpy type such as ``">i8"``, or
    ``"V40"`` for a bytea of 40 bytes per row given as an (n, 40) uint8 or (n, 5) int64 array)."""
    count = len(fields[0][0])
    layout = [("fields", ">i2")]
    for number, (_, kind) in enumerate(fields):
        layout += [(f"length{number}", ">i4"), (f"value{number}", kind)]
    block = np.empty(count, dtype=np.dtype(layout))
    block["fields"] = len(fields)
    for number, (column, kind) in enumerate(fields):
        size = np.dtype(kind).itemsize
        block[f"length{number}"] = size
        if kind.startswith("V"):
            raw = np.ascontiguousarray(column).view(np.uint8).reshape(count, size)
            block[f"value{number}"] = raw.view(np.dtype(kind)).reshape(count)
        else:
            block[f"value{number}"] = column
    return COPY_HEADER + block.tobytes() + COPY_TRAILER


def _copy_positions(
    connection: Connection,
    game: str,
    states: np.ndarray,
    provenance: Provenance,
    origins: np.ndarray,
    plies: np.ndarray,
) -> int:
    """PostgreSQL: binary COPY of what differs by row (state, origin game, ply) into a temporary
    table, then one INSERT ... SELECT of what is new, the batch's provenance as parameters."""
    raw = connection.connection.driver_connection
    p = provenance
    with raw.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE IF NOT EXISTS positions_copy "
            "(state bytea NOT NULL, key bigint NOT NULL, origin_game bigint NOT NULL, "
            "ply smallint NOT NULL)"
        )
        keys = position_keys(game, p.source, states)
        block = binary_copy_block(
            [(states, f"V{STATE_BYTES}"), (keys, ">i8"), (origins, ">i8"), (plies, ">i2")]
        )
        with cursor.copy(
            "COPY positions_copy (state, key, origin_game, ply) FROM STDIN BINARY"
        ) as copy:
            copy.write(block)
        del block
        cursor.execute(
            f"INSERT INTO positions ({', '.join(POSITION_COLUMNS)}) "
            "SELECT %(game)s::varchar, state, key, %(source)s::varchar, %(model_id)s::integer, "
            "%(seed)s::bigint, %(run_id)s::integer, %(unit_id)s::integer, "
            "NULLIF(origin_game, -1), ply, %(now)s::timestamptz FROM positions_copy "
            "ON CONFLICT (key) DO NOTHING",
            {
                "game": game,
                "source": p.source,
                "model_id": p.model_id,
                "seed": p.seed,
                "run_id": p.run_id,
                "unit_id": p.unit_id,
                "now": utc_now(),
            },
        )
        inserted = cursor.rowcount
        cursor.execute("TRUNCATE positions_copy")
    return inserted
