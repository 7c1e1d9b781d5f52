"""Units of work, claimed with leases, so that a killed run loses only what it held.

A run claims a pending unit by writing itself as the owner with a lease (``LEASE`` from now),
and renews the lease while it works (a heartbeat thread). It finishes the unit in the same
transaction that stores the unit's output, and only if it still owns it: a run that lost its
lease (paused too long, taken over) rolls back everything it would have stored. A unit whose
lease ran out, or whose owner is a dead process on this machine, is claimed again by the next
run that looks, so ``kill -9`` at any moment loses at most the units in flight, and a restart
carries on at once.

Claiming on PostgreSQL skips rows another run is claiming (``FOR UPDATE SKIP LOCKED``); on
SQLite the claiming transaction holds the write lock (``store.py``), which serialises claims.
"""

from __future__ import annotations

import datetime
import os
import socket
import threading
from dataclasses import dataclass

from sqlalchemy import Connection, select, update

from samuel.errors import SamuelError

from .schema import Run, WorkUnit, utc_now
from .store import Store

LEASE = datetime.timedelta(seconds=60)  # how long a claim holds without a heartbeat
HEARTBEAT_SECONDS = 10.0  # how often a working run renews its lease
CLAIM_BATCH = 16  # pending units looked at per claim


class LeaseLost(SamuelError):
    """The unit was taken over by another run (its lease ran out): its output is discarded."""


@dataclass(frozen=True)
class ClaimedUnit:
    id: int
    cycle_id: int
    stage: str
    part: int
    task: dict
    attempts: int


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def _dead_runs(connection: Connection, owner_ids: set[int]) -> set[int]:
    """The runs among ``owner_ids`` that were processes on this machine and are gone."""
    if not owner_ids:
        return set()
    host = socket.gethostname()
    rows = connection.execute(select(Run.id, Run.host, Run.pid).where(Run.id.in_(owner_ids)))
    return {
        run_id
        for run_id, run_host, pid in rows
        if run_host == host and pid != os.getpid() and not _process_alive(pid)
    }


def claim(store: Store, cycle_id: int, stage: str) -> ClaimedUnit | None:
    """Claim a pending unit of the cycle's stage for this run, or None if every one is done or
    held by a live run."""
    now = utc_now()
    with store.write() as connection:
        rows = connection.execute(
            select(WorkUnit.__table__)
            .where(
                WorkUnit.cycle_id == cycle_id,
                WorkUnit.stage == stage,
                WorkUnit.state == "pending",
            )
            .order_by(WorkUnit.part)
            .limit(CLAIM_BATCH)
            .with_for_update(skip_locked=True)
        ).all()
        held = {
            row.owner_id
            for row in rows
            if row.owner_id is not None
            and row.lease_until is not None
            and _aware(row.lease_until) > now
        }
        dead = _dead_runs(connection, held)
        for row in rows:
            free = (
                row.owner_id is None
                or row.lease_until is None
                or _aware(row.lease_until) <= now
                or row.owner_id in dead
            )
            if not free:
                continue
            connection.execute(
                update(WorkUnit)
                .where(WorkUnit.id == row.id)
                .values(
                    owner_id=store.run_id,
                    lease_until=now + LEASE,
                    attempts=WorkUnit.attempts + 1,
                )
            )
            return ClaimedUnit(
                row.id, row.cycle_id, row.stage, row.part, dict(row.task), row.attempts + 1
            )
    return None


def _aware(moment: datetime.datetime) -> datetime.datetime:
    """SQLite gives times back without their zone; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=datetime.UTC)


def finish(connection: Connection, store: Store, unit: ClaimedUnit, result: dict) -> None:
    """Mark the unit done, in the caller's transaction (the one that stores its output); raises
    :class:`LeaseLost` (so the caller's transaction rolls back) if this run no longer owns it."""
    done = connection.execute(
        update(WorkUnit)
        .where(
            WorkUnit.id == unit.id,
            WorkUnit.owner_id == store.run_id,
            WorkUnit.state == "pending",
        )
        .values(state="done", result=result, done_at=utc_now(), lease_until=None)
    )
    if done.rowcount != 1:
        raise LeaseLost(f"unit {unit.id} ({unit.stage} {unit.part}) was taken over by another run")


def stage_progress(connection: Connection, cycle_id: int, stage: str) -> tuple[int, int]:
    """(done, total) units of a cycle's stage."""
    rows = (
        connection.execute(
            select(WorkUnit.state).where(WorkUnit.cycle_id == cycle_id, WorkUnit.stage == stage)
        )
        .scalars()
        .all()
    )
    return sum(1 for state in rows if state == "done"), len(rows)


class Heartbeat:
    """Renews a unit's lease every ``HEARTBEAT_SECONDS`` while the unit is worked on."""

    def __init__(self, store: Store, unit: ClaimedUnit, seconds: float = HEARTBEAT_SECONDS):
        self.store, self.unit, self.seconds = store, unit, seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease {unit.id}", daemon=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                with self.store.write() as connection:
                    connection.execute(
                        update(WorkUnit)
                        .where(
                            WorkUnit.id == self.unit.id,
                            WorkUnit.owner_id == self.store.run_id,
                            WorkUnit.state == "pending",
                        )
                        .values(lease_until=utc_now() + LEASE)
                    )
            except Exception:  # noqa: BLE001 - a missed beat only shortens the lease
                continue

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()
