"""The pipeline's store: every table, as SQLAlchemy 2 models (docs/pipeline.md, "The schema").

One schema serves SQLite and PostgreSQL; Alembic's migrations (``migrations/``) create and change
it, and a test checks that they give exactly these models. What each table holds:

- ``runs``: each ``samuel pipeline run`` process (and each command that writes), for provenance.
- ``cycles``: one turn of the loop for one game, with the configuration it was planned with.
- ``work_units``: the units of work of a cycle's stages, claimed with leases (``work.py``).
- ``positions``: every position with its source and provenance; ``label_id`` points at its
  current label, ``priority`` is the relabeller's (``relabel.py``).
- ``labels``: every label ever given (append-only): the position's value by rollout or table,
  and the plies its games lasted (``plies``, the moves-left head's target).
- ``models``: the registry. ``status`` is the one source of truth for "the active model of a
  game" (the seed's pitfall: a status and a profile that drift apart).
- ``tournaments``: each gating match, candidate against champion and anchor.
- ``promotions``: the append-only log of every change of a game's active model.

Times are UTC. A position's state is the kernels' int64 row as little-endian bytes.
"""

from __future__ import annotations

import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Constraint names fixed by convention, so migrations name them the same on every database.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Where a position came from (the sources; `tablebase` only for Tigers & Sheep).
SOURCES = ("selfplay", "random", "expert", "tablebase")
# A model's life: trained (candidate), serving (active: one per game), lost its gate
# (rejected: kept, and can be gated again), replaced by a newer champion (retired).
STATUSES = ("candidate", "active", "rejected", "retired")
# How a label was found.
METHODS = ("rollout", "tablebase")


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict: JSON, datetime.datetime: DateTime(timezone=True)}


class Run(Base):
    """A process that wrote to the store: ``samuel pipeline run``, ``promote``, ..."""

    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    command: Mapped[str] = mapped_column(Text)  # the command line
    started_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)


class Model(Base):
    """A network in the registry: its file (relative to the pipeline's folder) and hash."""

    __tablename__ = "models"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), index=True)
    path: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    status: Mapped[str] = mapped_column(String(16), index=True)
    training: Mapped[dict] = mapped_column(JSON)  # the data summary, config and report
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)


class Cycle(Base):
    """One turn of the loop for one game: its stages run in order (``loop.STAGES``)."""

    __tablename__ = "cycles"
    __table_args__ = (UniqueConstraint("game", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    number: Mapped[int] = mapped_column(Integer)  # 1, 2, ... for its game
    stage: Mapped[str] = mapped_column(String(16))  # the stage being worked on, or "done"
    config: Mapped[dict] = mapped_column(JSON)  # the pipeline configuration it was planned with
    champion_id: Mapped[int] = mapped_column(ForeignKey("models.id"))  # active when it began
    candidate_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"))
    started_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)
    finished_at: Mapped[datetime.datetime | None]


class WorkUnit(Base):
    """A unit of work: claimed by a run for a lease, done in the transaction that stores its
    output, so a killed run loses only the units it held."""

    __tablename__ = "work_units"
    __table_args__ = (
        UniqueConstraint("cycle_id", "stage", "part"),
        Index("ix_work_units_claimable", "state", "lease_until"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    cycle_id: Mapped[int] = mapped_column(ForeignKey("cycles.id"))
    stage: Mapped[str] = mapped_column(String(16))
    part: Mapped[int] = mapped_column(Integer)  # its number within the stage
    task: Mapped[dict] = mapped_column(JSON)  # what to do (kind, sizes, seed, ids)
    state: Mapped[str] = mapped_column(String(8), default="pending")  # pending, done
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id"))
    lease_until: Mapped[datetime.datetime | None]
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)
    done_at: Mapped[datetime.datetime | None]


class Position(Base):
    """A position and where it came from. One row per (state, source, game): a source never
    stores a position twice, so leaving a source out of training (``ablate``) is exact. The
    unique index is on ``key``, a 64-bit hash of the three (``store.position_keys``): an index
    on one integer is a third the size of one on the state and names, which keeps bulk inserts
    fast as the store grows (migration 0003).

    The provenance ids (model, run, unit) are not foreign keys: a bulk insert's rows all name
    the same few, and checking them row by row cost PostgreSQL half its insert rate; `check`
    verifies them instead."""

    __tablename__ = "positions"
    __table_args__ = (
        UniqueConstraint("key"),
        Index("ix_positions_game_label_id", "game", "label_id"),
        Index("ix_positions_game_priority", "game", "priority"),
    )
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    state: Mapped[bytes] = mapped_column(LargeBinary)
    key: Mapped[int] = mapped_column(BigInteger)  # store.position_keys(game, source, state)
    source: Mapped[str] = mapped_column(String(16))
    model_id: Mapped[int | None] = mapped_column(Integer)  # the model that played it
    seed: Mapped[int | None] = mapped_column(BigInteger)  # the seed of the games it came from
    run_id: Mapped[int | None] = mapped_column(Integer)
    unit_id: Mapped[int | None] = mapped_column(Integer)
    origin_game: Mapped[int | None] = mapped_column(BigInteger)  # its game (validation split)
    ply: Mapped[int] = mapped_column(SmallInteger, default=0)
    created_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)
    # Its current label: the newest of its labels, kept here so training and relabelling read
    # one row per position (no foreign key: labels point back at positions; `check` verifies).
    label_id: Mapped[int | None] = mapped_column(BigInteger().with_variant(Integer, "sqlite"))
    priority: Mapped[float | None] = mapped_column(Float)


class Label(Base):
    """A value given to a position: a rollout's mean (with its standard error) or the table's."""

    __tablename__ = "labels"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    position_id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), ForeignKey("positions.id"), index=True
    )
    model_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))  # None: the table
    method: Mapped[str] = mapped_column(String(16))
    # first player's view: -1..1, or for a game with dice the equity in points (-3..3)
    value: Mapped[float] = mapped_column(Float)
    stderr: Mapped[float] = mapped_column(Float)
    rollouts: Mapped[int] = mapped_column(Integer)
    truncated: Mapped[bool] = mapped_column(Boolean)
    unit_id: Mapped[int | None] = mapped_column(ForeignKey("work_units.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)
    # The plies its games lasted from the position to their end, the mean over its rollouts (the
    # table's distance for a decided position): the moves-left head's target. None where no game
    # ended (truncated rollouts, a drawn table position) and for labels made before migration 0002.
    plies: Mapped[float | None] = mapped_column(Float)
    # A rollout over dice's (migration 0004; None for the other games' labels): the six outcome
    # chances its rollouts averaged (six little-endian float32: P(win by >= 1, 2, 3 points),
    # then the same lost, the first player's view), the champion's plies in them, and the
    # variance reduction of their dice (samuel.train.dice_rollouts.VARIANCE_REDUCTIONS).
    outcomes: Mapped[bytes | None] = mapped_column(LargeBinary)
    ply: Mapped[int | None] = mapped_column(SmallInteger)
    variance: Mapped[str | None] = mapped_column(String(24))


class Tournament(Base):
    """A gating match: the candidate against the champion (paired openings, SPRT on pairs) and
    against the fixed anchor."""

    __tablename__ = "tournaments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    candidate_id: Mapped[int] = mapped_column(ForeignKey("models.id"))
    champion_id: Mapped[int] = mapped_column(ForeignKey("models.id"))
    games: Mapped[int] = mapped_column(Integer)  # against the champion
    score: Mapped[float] = mapped_column(Float)  # the candidate's share of the points
    pentanomial: Mapped[dict] = mapped_column(JSON)  # pair points 0, 0.5, 1, 1.5, 2: counts
    llr: Mapped[float] = mapped_column(Float)
    lower: Mapped[float] = mapped_column(Float)
    upper: Mapped[float] = mapped_column(Float)
    elo0: Mapped[float] = mapped_column(Float)
    elo1: Mapped[float] = mapped_column(Float)
    # A game with dice's SPRT is on points a game (migration 0004; None for the other games).
    points0: Mapped[float | None] = mapped_column(Float)
    points1: Mapped[float | None] = mapped_column(Float)
    sprt: Mapped[str] = mapped_column(String(16))  # "H1" accepted, "H0", or "undecided"
    anchor: Mapped[str] = mapped_column(Text)  # the anchor's player spec
    anchor_games: Mapped[int] = mapped_column(Integer)
    anchor_score: Mapped[float] = mapped_column(Float)
    anchor_low: Mapped[float] = mapped_column(Float)  # the anchor score's 95% range
    anchor_high: Mapped[float] = mapped_column(Float)
    decision: Mapped[str] = mapped_column(String(16))  # "promote" or "reject"
    report: Mapped[dict] = mapped_column(JSON)  # both matches' full statistics
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id"))
    created_at: Mapped[datetime.datetime] = mapped_column(default=utc_now)


class Promotion(Base):
    """The append-only promotion log: every change of a game's active model, who made it and
    why. The newest entry of a game names its active model (``samuel pipeline check``)."""

    __tablename__ = "promotions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), index=True)
    model_id: Mapped[int] = mapped_column(ForeignKey("models.id"))
    previous_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"))
    who: Mapped[str] = mapped_column(Text)
    why: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime.datetime] = mapped_column(default=utc_now)
