"""The loop: ``samuel pipeline run`` for one game, for ever or for N cycles.

Each turn of a run: find the game's current cycle (starting the next one when the last is done),
move it on if its stage's units are all done (planning the next stage's units in the same
transaction), claim a unit of its stage, do it, and store its output with its completion. Runs
keep nothing in memory that the store does not have, so any number of them (on one database)
share the work, and a run killed at any moment loses only the units it held: the next run to
look claims them again (``work.py``).

The first cycle of a game starts from a champion: the network given with ``--init``, the
shipped network, or a random network from the seed, registered and promoted ("the starting
model") in the transaction that begins the cycle.

``--cycles N`` counts cycles, not this run's work: the run's cycles are the one under way when it
starts (or the next to begin) and the N - 1 after it, and the run stops once the last of them is
done, whoever did their units (another run may have, while this one was paused past its lease),
and never begins a cycle after them.

A cycle's configuration can be replaced (:func:`replan`) until it has trained its candidate: the
stage under way is planned again from the new one, and the stages after it use it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sqlalchemy import Connection, delete, func, select, update

from samuel.errors import CommandError
from samuel.evaluation.networks import load_network_or_phases, random_network, shipped_network
from samuel.progress import progress_bar
from samuel.seeds import derive_seed

from . import registry, stages, work
from .config import PipelineConfig
from .schema import Cycle, WorkUnit, utc_now
from .stages import DONE, STAGES, Context, plan
from .store import Store

POLL_SECONDS = 1.0  # how long a run waits when every unit of the stage is held by others
INITIAL_STREAM = 0x1417


def starting_params(ctx: Context, init: str | None, seed: int):
    """The first champion's parameters and how they were chosen."""
    if init is not None:
        return load_network_or_phases(init, ctx.number), f"the network {init}"
    shipped = shipped_network(ctx.number)
    if shipped is not None:
        return load_network_or_phases(shipped, ctx.number), "the shipped network"
    return random_network(ctx.number, derive_seed(seed, INITIAL_STREAM) & 0x7FFFFFFF), (
        f"a random network (seed {seed})"
    )


def _latest_cycle(connection: Connection, game: str, lock: bool = False):
    query = select(Cycle.__table__).where(Cycle.game == game).order_by(Cycle.number.desc()).limit(1)
    if lock:
        query = query.with_for_update()
    return connection.execute(query).one_or_none()


def _cycle(connection: Connection, cycle_id: int):
    return connection.execute(select(Cycle.__table__).where(Cycle.id == cycle_id)).one()


def latest_cycle(store: Store, game: str):
    """The game's newest cycle (done or under way), or None before the first."""
    with store.read() as connection:
        return _latest_cycle(connection, game)


def begin_cycle(
    store: Store,
    ctx: Context,
    config: PipelineConfig,
    init: str | None = None,
    last: int | None = None,
) -> int | None:
    """Start the game's next cycle (and its first champion, before the first cycle); return its
    id, or the id of the cycle under way. Two runs starting it at once make one cycle: the
    second finds it begun. None, and nothing begun, once cycle ``last`` is done (or a later one
    has begun)."""
    with store.write() as connection:
        latest = _latest_cycle(connection, ctx.game, lock=True)
        if latest is not None and last is not None:
            if latest.number > last or (latest.number == last and latest.stage == DONE):
                return None
        if latest is not None and latest.stage != DONE:
            return latest.id
        champion = registry.active_model(connection, ctx.game, lock=True)
        if champion is None:
            params, how = starting_params(ctx, init, config.seed)
            model_id = registry.register_model(
                connection,
                ctx.folder,
                ctx.game,
                params,
                parent_id=None,
                status="candidate",
                training={"start": how},
                run_id=store.run_id,
            )
            registry.promote(
                connection, model_id, who=registry.who(), why=f"the starting model: {how}"
            )
            champion_id = model_id
        else:
            champion_id = champion.id
        number = 1 if latest is None else latest.number + 1
        cycle_id = connection.execute(
            Cycle.__table__.insert().returning(Cycle.id),
            {
                "game": ctx.game,
                "number": number,
                "stage": STAGES[0],
                "config": config.to_json(),
                "champion_id": champion_id,
                "started_at": utc_now(),
            },
        ).scalar_one()
        _plan_from(connection, ctx, cycle_id, STAGES[0])
        return cycle_id


def _plan_from(connection: Connection, ctx: Context, cycle_id: int, stage: str) -> str:
    """Move the cycle to ``stage`` and plan its units; stages with nothing to do are passed.
    Returns the stage the cycle is left at."""
    index = STAGES.index(stage)
    while True:
        connection.execute(update(Cycle).where(Cycle.id == cycle_id).values(stage=stage))
        cycle = _cycle(connection, cycle_id)
        tasks = plan(connection, ctx, cycle, stage)
        now = utc_now()
        if tasks:
            connection.execute(
                WorkUnit.__table__.insert(),
                [
                    {
                        "cycle_id": cycle_id,
                        "stage": stage,
                        "part": part,
                        "task": task,
                        "state": "pending",
                        "attempts": 0,
                        "created_at": now,
                    }
                    for part, task in enumerate(tasks)
                ],
            )
            return stage
        index += 1
        if index == len(STAGES):
            connection.execute(
                update(Cycle).where(Cycle.id == cycle_id).values(stage=DONE, finished_at=now)
            )
            return DONE
        stage = STAGES[index]


def advance(store: Store, ctx: Context, cycle_id: int) -> str:
    """If every unit of the cycle's stage is done, plan the next stage; return the stage."""
    with store.write() as connection:
        cycle = connection.execute(
            select(Cycle.__table__).where(Cycle.id == cycle_id).with_for_update()
        ).one()
        if cycle.stage == DONE:
            return DONE
        done, total = work.stage_progress(connection, cycle_id, cycle.stage)
        if done < total:
            return cycle.stage
        index = STAGES.index(cycle.stage) + 1
        if index == len(STAGES):
            connection.execute(
                update(Cycle).where(Cycle.id == cycle_id).values(stage=DONE, finished_at=utc_now())
            )
            return DONE
        return _plan_from(connection, ctx, cycle_id, STAGES[index])


@dataclass
class RunReport:
    cycles: list[int] = field(default_factory=list)  # numbers of the cycles finished
    units: int = 0  # units this run did


def run(
    store: Store,
    ctx: Context,
    config: PipelineConfig,
    cycles: int | None = None,
    init: str | None = None,
) -> RunReport:
    """Work on the game's cycles until ``cycles`` of them have finished (None: for ever): the
    cycle under way when the run starts (or the next to begin) and the ones after it, whoever
    does their units; the run begins no cycle after them (the module's docstring)."""
    report = RunReport()
    bar = None
    shown = None
    first = last = None
    if cycles is not None:
        latest = latest_cycle(store, ctx.game)
        first = 1 if latest is None else latest.number + (1 if latest.stage == DONE else 0)
        last = first + cycles - 1
    while True:
        cycle_id = begin_cycle(store, ctx, config, init, last=last)
        if cycle_id is None:
            break
        stage = advance(store, ctx, cycle_id)
        with store.read() as connection:
            cycle = _cycle(connection, cycle_id)
            if stage != DONE:
                done, total = work.stage_progress(connection, cycle_id, stage)
        if stage == DONE:
            if bar is not None:
                bar.close()
                bar = None
            if cycle.number not in report.cycles:
                report.cycles.append(cycle.number)
                ctx.say(describe_cycle(store, cycle_id))
            shown = None
            if last is not None and cycle.number >= last:
                break
            continue
        if shown != (cycle_id, stage):
            if bar is not None:
                bar.close()
            bar = progress_bar(
                total, f"{ctx.game} cycle {cycle.number} {stage}", enabled=ctx.progress
            )
            bar.update(done)
            shown = (cycle_id, stage)
        unit = work.claim(store, cycle_id, stage)
        if unit is None:
            time.sleep(POLL_SECONDS)
            continue
        with store.read() as connection:  # the plan the unit belongs to (replan may change it)
            cycle = _cycle(connection, cycle_id)
        with work.Heartbeat(store, unit):
            store_output = stages.work(ctx, cycle, unit)
        try:
            with store.write() as connection:
                result = store_output(connection)
                work.finish(connection, store, unit, result)
        except work.LeaseLost as lost:
            ctx.say(f"{lost}; its output was dropped")
            continue
        report.units += 1
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    if first is not None:  # the run's cycles that others finished while it was not looking
        with store.read() as connection:
            rows = connection.execute(
                select(Cycle.id, Cycle.number)
                .where(
                    Cycle.game == ctx.game,
                    Cycle.number.between(first, last),
                    Cycle.stage == DONE,
                )
                .order_by(Cycle.number)
            ).all()
        for row in rows:
            if row.number not in report.cycles:
                report.cycles.append(row.number)
                ctx.say(describe_cycle(store, row.id))
        report.cycles.sort()
    return report


@dataclass
class Replanned:
    """What :func:`replan` did."""

    number: int  # the cycle's number
    stage: str  # the stage under way, planned again
    units: int  # its units planned again (those not done)
    kept: int  # its units already done, kept


def replan(store: Store, ctx: Context, config: PipelineConfig) -> Replanned:
    """Replace the configuration of the game's cycle under way by ``config``, while the cycle has
    not trained its candidate; raise :class:`CommandError` saying why not otherwise.

    The stages done keep what they made. The stage under way keeps its units that are done; the
    others are deleted (a run working on one loses it: its output is dropped, as when a lease is
    lost) and the stage is planned again from ``config``, leaving out the tasks that a unit
    already did. The stages after it are planned from ``config`` when they come. One
    transaction: every run sees the old plan or the new one."""
    with store.write() as connection:
        cycle = _latest_cycle(connection, ctx.game, lock=True)
        if cycle is None or cycle.stage == DONE:
            raise CommandError(
                f"no {ctx.game} cycle is under way: `samuel pipeline run` plans the next one with "
                "the options it is given"
            )
        if cycle.candidate_id is not None or STAGES.index(cycle.stage) > STAGES.index("train"):
            raise CommandError(
                f"{ctx.game} cycle {cycle.number} has trained its candidate (model "
                f"{cycle.candidate_id}): its plan can no longer change; give the options to "
                "`samuel pipeline run`, and they apply from the next cycle"
            )
        connection.execute(
            update(Cycle).where(Cycle.id == cycle.id).values(config=config.to_json())
        )
        connection.execute(
            delete(WorkUnit).where(
                WorkUnit.cycle_id == cycle.id,
                WorkUnit.stage == cycle.stage,
                WorkUnit.state != "done",
            )
        )
        kept = connection.execute(
            select(WorkUnit.part, WorkUnit.task).where(
                WorkUnit.cycle_id == cycle.id, WorkUnit.stage == cycle.stage
            )
        ).all()
        done = [dict(row.task) for row in kept]
        tasks = [
            task
            for task in plan(connection, ctx, _cycle(connection, cycle.id), cycle.stage)
            if task not in done
        ]
        start = max((row.part for row in kept), default=-1) + 1
        if tasks:
            now = utc_now()
            connection.execute(
                WorkUnit.__table__.insert(),
                [
                    {
                        "cycle_id": cycle.id,
                        "stage": cycle.stage,
                        "part": start + number,
                        "task": task,
                        "state": "pending",
                        "attempts": 0,
                        "created_at": now,
                    }
                    for number, task in enumerate(tasks)
                ],
            )
    return Replanned(cycle.number, cycle.stage, len(tasks), len(kept))


def describe_cycle(store: Store, cycle_id: int) -> str:
    """One line on a finished cycle: its units' results summed up."""
    with store.read() as connection:
        cycle = _cycle(connection, cycle_id)
        rows = connection.execute(
            select(WorkUnit.stage, WorkUnit.result).where(WorkUnit.cycle_id == cycle_id)
        ).all()
        units = connection.execute(
            select(func.count()).select_from(WorkUnit).where(WorkUnit.cycle_id == cycle_id)
        ).scalar_one()
    new = sum((r.result or {}).get("new", 0) for r in rows if r.stage in ("generate", "random"))
    labelled = sum((r.result or {}).get("positions", 0) for r in rows if r.stage == "label")
    relabelled = sum((r.result or {}).get("positions", 0) for r in rows if r.stage == "relabel")
    gate = next((r.result for r in rows if r.stage == "gate"), None)
    trained = next((r.result for r in rows if r.stage == "train"), None)
    verdict = "no gate" if gate is None else f"{gate['decision']}: {gate['reason']}"
    training = ""
    if trained is not None:
        baselines = ", ".join(f"{k} {v:.4f}" for k, v in trained["baselines"].items())
        plies = ""
        if "plies_error" in trained:  # the moves-left head's
            from .status import plies_error_text

            plies = "; " + plies_error_text(*trained["plies_error"])
        if "phases_taken" in trained:  # a network per phase, phase by phase
            taken = ", ".join(trained["phases_taken"]) or "none alone: gated whole"
            plies += f"; phases that beat the champion's: {taken}"
        training = (
            f" (validation MSE {trained['validation_mse']:.4f}; baselines: {baselines}{plies})"
        )
    return (
        f"{cycle.game} cycle {cycle.number} done ({units} units): {new} new positions, "
        f"{labelled} labelled, {relabelled} relabelled; candidate {cycle.candidate_id}"
        f"{training}, {verdict}"
    )
