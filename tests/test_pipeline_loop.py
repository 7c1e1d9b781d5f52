"""``samuel pipeline`` end to end, with tiny sizes, on SQLite and on a real PostgreSQL: whole
cycles through the command line, a run killed with SIGKILL in the middle of a stage and
restarted, and ``check`` catching a tampered model file and two active models."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select, update

from samuel.evaluation.networks import load_network, shipped_network
from samuel.nn.weights import read_network
from samuel.pipeline.schema import Cycle, Label, Model, Position, Promotion, Tournament, WorkUnit
from samuel.pipeline.store import Store
from tests.game_numbers import TIGERS

# A cycle in seconds: a few games, two rollouts a position, a short training, a short gate.
TINY = [
    "--selfplay-games", "4", "--games-per-unit", "2", "--selfplay-depth", "1",
    "--expert-games", "2", "--random-positions", "40", "--rollouts", "2",
    "--rollout-depth", "1", "--label-chunk", "60", "--epochs", "2", "--patience", "1",
    "--gate-games", "16", "--gate-depth", "1", "--anchor-games", "2", "--relabel-positions",
    "30", "--workers", "1", "--no-progress",
]  # fmt: skip
# A gate that lets an equal candidate through: H1 is "no more than 500 Elo worse".
LENIENT = ["--elo0", "-600", "--elo1", "-500", "--anchor-floor", "0"]
STRICT = ["--elo0", "400", "--elo1", "500"]


def samuel(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _db_args(database_url: str) -> list[str]:
    return ["--db", database_url]


@pytest.mark.slow
def test_cycles_run_end_to_end_and_check_catches_tampering(database_url, tmp_path):
    folder = str(tmp_path / "pipe")
    db = _db_args(database_url)
    run = samuel("pipeline", "run", folder, *db, "--game", "tigers", "--cycles", "1",
                 *TINY, *LENIENT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "1 cycle(s) finished" in run.stdout
    store = Store.open(database_url)
    with store.read() as connection:
        cycle = connection.execute(select(Cycle.__table__)).one()
        sources = dict(
            connection.execute(
                select(Position.source, func.count()).group_by(Position.source)
            ).all()
        )
        unlabelled = connection.execute(
            select(func.count()).select_from(Position).where(Position.label_id.is_(None))
        ).scalar_one()
        log = connection.execute(select(Promotion.__table__).order_by(Promotion.id)).all()
        tournament = connection.execute(select(Tournament.__table__)).one()
        labels = connection.execute(select(func.count()).select_from(Label)).scalar_one()
        relabel_units = connection.execute(
            select(func.count()).select_from(WorkUnit).where(WorkUnit.stage == "relabel")
        ).scalar_one()
        first = connection.execute(select(Model.path).where(Model.id == cycle.champion_id))
        first_file = Path(folder) / first.scalar_one()
    assert cycle.stage == "done" and cycle.candidate_id is not None
    # the first champion is the shipped network (the seed's 52 inputs), widened: the same function
    shipped = load_network(shipped_network(TIGERS), TIGERS)
    assert np.array_equal(load_network(first_file, TIGERS), shipped)
    assert read_network(first_file).inputs == 58
    assert set(sources) == {"selfplay", "expert", "random"}
    assert unlabelled == 0
    assert tournament.decision == "promote", tournament.report["reason"]
    assert [entry.model_id for entry in log] == [cycle.champion_id, cycle.candidate_id]
    assert relabel_units >= 1
    assert labels == sum(sources.values()) + 30  # every position once, 30 again after promotion

    status = samuel("pipeline", "status", folder, *db, "--plot", str(tmp_path / "anchor.png"))
    assert status.returncode == 0, status.stderr
    assert "selfplay" in status.stdout and f"active model: {cycle.candidate_id}" in status.stdout
    # the promoted champion's score against the anchor, as its gate measured it
    expected = (
        f"the champion against {tournament.anchor}: {100 * tournament.anchor_score:.1f}% "
        f"(95% range {100 * tournament.anchor_low:.1f}-{100 * tournament.anchor_high:.1f}), "
        f"as of cycle {cycle.number}"
    )
    assert expected in status.stdout
    assert (tmp_path / "anchor.png").read_bytes()[:4] == b"\x89PNG"
    models = samuel("pipeline", "models", folder, *db)
    assert models.returncode == 0 and "retired" in models.stdout and "active" in models.stdout
    check = samuel("pipeline", "check", folder, *db)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "validation MSE" in run.stdout and "constant" in run.stdout

    # What the random source is worth: two candidates, one trained without it, and their match.
    ablate = samuel("pipeline", "ablate", folder, *db, "--without", "random", "--games", "2",
                    "--no-progress")  # fmt: skip
    assert ablate.returncode == 0, ablate.stderr
    assert "all sources vs without random" in ablate.stdout
    assert "'random'" not in ablate.stdout.splitlines()[1]  # the second trained without it

    # A second cycle with a gate no candidate passes: rejected, no relabelling, champion kept.
    run = samuel("pipeline", "run", folder, *db, "--game", "tigers", "--cycles", "1",
                 *TINY, *STRICT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    with store.read() as connection:
        second = connection.execute(select(Cycle.__table__).where(Cycle.number == 2)).one()
        decision = connection.execute(
            select(Tournament.decision).where(Tournament.id == second.tournament_id)
        ).scalar_one()
        status_of = dict(connection.execute(select(Model.id, Model.status)).all())
    assert second.champion_id == cycle.candidate_id
    assert decision == "reject" and status_of[second.candidate_id] == "rejected"
    assert status_of[cycle.candidate_id] == "active"

    # The rejected candidate gated again (with the stored, strict gate): rejected again, logged.
    regate = samuel("pipeline", "gate", folder, *db, str(second.candidate_id), "--no-progress")
    assert regate.returncode == 0, regate.stderr
    assert f"model {second.candidate_id} rejected" in regate.stdout
    with store.read() as connection:
        tournaments = connection.execute(select(func.count()).select_from(Tournament)).scalar_one()
    assert tournaments == 3

    # Tampering: a model file changed, then two active models.
    path = tmp_path / "pipe" / "models" / f"tigers-{cycle.candidate_id:06d}.bin"
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    check = samuel("pipeline", "check", folder, *db)
    assert check.returncode == 2 and "hash" in check.stdout
    path.write_bytes(bytes(data[:100]) + bytes([data[100] ^ 0xFF]) + bytes(data[101:]))
    assert samuel("pipeline", "check", folder, *db).returncode == 0
    with store.write() as connection:
        connection.execute(
            update(Model).where(Model.id == second.candidate_id).values(status="active")
        )
    check = samuel("pipeline", "check", folder, *db)
    assert check.returncode == 2 and "2 active models" in check.stdout
    store.close()


def _stage_done(database_url: str, stage: str) -> tuple[int, int, int]:
    """(the stage's units done, its units in all, labels its units wrote)."""
    store = Store.open(database_url)
    try:
        with store.read() as connection:
            states = (
                connection.execute(select(WorkUnit.state).where(WorkUnit.stage == stage))
                .scalars()
                .all()
            )
            labels = connection.execute(
                select(func.count())
                .select_from(Label)
                .join(WorkUnit, Label.unit_id == WorkUnit.id)
                .where(WorkUnit.stage == stage)
            ).scalar_one()
    finally:
        store.close()
    return sum(s == "done" for s in states), len(states), labels


@pytest.mark.slow
def test_a_run_killed_mid_stage_loses_nothing_committed_and_a_restart_finishes(
    database_url, tmp_path
):
    folder = str(tmp_path / "pipe")
    args = ["pipeline", "run", folder, "--db", database_url, "--game", "tigers", "--cycles", "1",
            *TINY, "--rollouts", "48", "--label-chunk", "10", "--selfplay-games", "8",
            "--random-positions", "200", *STRICT]  # fmt: skip
    # 48 rollouts in units of 10 positions keep the label stage going for seconds (about 5 s on
    # a warm idle machine, longer loaded): a window of many polls in which to kill it.
    killed_mid_stage_and_restarted(database_url, folder, args)


def killed_mid_stage_and_restarted(
    database_url: str, folder: str, args: list[str], stage: str = "label"
) -> None:
    """Run ``samuel ARGS`` (one cycle into ``folder``), kill it with SIGKILL once a few units of
    ``stage`` (``label`` or ``relabel``) are done, and check that nothing committed was lost,
    nothing is labelled twice, and a restart finishes the cycle with every unit's positions
    labelled once."""
    process = subprocess.Popen([sys.executable, "-m", "samuel.cli", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 300
    done = total = 0
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        try:
            done, total, _ = _stage_done(database_url, stage)
        except Exception:  # noqa: BLE001 - the store may not exist yet
            continue
        if total and 2 <= done < total - 2:
            break
    assert process.poll() is None, f"the run ended before it could be killed mid-{stage}"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    done, total, labels_before = _stage_done(database_url, stage)
    assert 2 <= done < total

    store = Store.open(database_url)
    with store.read() as connection:
        committed = (
            connection.execute(
                select(WorkUnit.result).where(WorkUnit.stage == stage, WorkUnit.state == "done")
            )
            .scalars()
            .all()
        )
        # The unit the run held when it died (none if it was killed between two units).
        in_flight = (
            connection.execute(
                select(WorkUnit.id).where(
                    WorkUnit.state == "pending", WorkUnit.owner_id.is_not(None)
                )
            )
            .scalars()
            .all()
        )
    # Every unit marked done has its labels; no unit's labels are there without it.
    assert labels_before == sum(result["positions"] for result in committed)

    restart = samuel(*args)
    assert restart.returncode == 0, restart.stderr
    with store.read() as connection:
        cycle = connection.execute(select(Cycle.__table__)).one()
        per_position = connection.execute(
            select(Label.position_id, WorkUnit.stage, func.count())
            .join(WorkUnit, Label.unit_id == WorkUnit.id)
            .group_by(Label.position_id, WorkUnit.stage)
        ).all()
        positions = connection.execute(select(func.count()).select_from(Position)).scalar_one()
        results = connection.execute(
            select(WorkUnit.stage, WorkUnit.result).where(WorkUnit.state == "done")
        ).all()
        attempts = dict(connection.execute(select(WorkUnit.id, WorkUnit.attempts)).all())
    store.close()
    assert cycle.stage == "done"
    labelled = {position for position, kind, _ in per_position if kind == "label"}
    assert len(labelled) == positions  # every position labelled ...
    assert {count for _, _, count in per_position} == {1}  # ... once a stage: none twice
    for kind in ("label", "relabel"):  # and each unit's positions have its labels, no more
        wrote = sum(count for _, k, count in per_position if k == kind)
        assert wrote == sum(result["positions"] for k, result in results if k == kind)
    assert len(in_flight) <= 1
    assert {unit for unit, count in attempts.items() if count > 1} == set(in_flight)
    assert set(attempts.values()) <= {1, 2}  # the unit in flight, if any, was claimed again
    assert samuel("pipeline", "check", folder, "--db", database_url).returncode == 0


@pytest.mark.slow
def test_bad_input_gets_a_clear_error(tmp_path):
    run = samuel("pipeline", "status", str(tmp_path / "nowhere"))
    assert run.returncode == 2 and "no pipeline folder" in run.stderr
    run = samuel("pipeline", "run", str(tmp_path), "--db", "mysql://x/y", "--cycles", "1")
    assert run.returncode == 2 and "SQLite or PostgreSQL" in run.stderr
    run = samuel("pipeline", "run", str(tmp_path), "--rollouts", "3", "--cycles", "1")
    assert run.returncode == 2 and "even" in run.stderr
    run = samuel("pipeline", "run", str(tmp_path), "--anchor", "nobody", "--cycles", "1")
    assert run.returncode == 2 and "unknown player" in run.stderr
    run = samuel("pipeline", "run", str(tmp_path), "--tablebase", str(tmp_path / "no"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert not (tmp_path / "pipeline.sqlite").exists()  # refused before anything was written
    run = samuel("pipeline", "promote", str(tmp_path), "7", "--why", "x")
    assert run.returncode == 2 and "no store" in run.stderr  # only `run` starts a store
    assert "Traceback" not in run.stderr


@pytest.mark.slow
@pytest.mark.parametrize("game", ["draughts"])
def test_draughts_runs_a_cycle_from_a_random_network(game, tmp_path):
    folder = str(tmp_path / "pipe")
    run = samuel("pipeline", "run", folder, "--game", game, "--cycles", "1", *TINY, *STRICT)
    assert run.returncode == 0, run.stderr
    check = samuel("pipeline", "check", folder)
    assert check.returncode == 0, check.stdout
    status = samuel("pipeline", "status", folder, "--game", game)
    assert "cycle 1: done" in status.stdout


def test_the_anchor_floor_is_the_champions_own_score_where_that_is_lower(tmp_path):
    from samuel.evaluation.networks import random_network, save_network
    from samuel.pipeline.config import PipelineConfig
    from samuel.pipeline.gating import gate

    paths = []
    for seed in (1, 2):
        paths.append(tmp_path / f"net{seed}.bin")
        save_network(random_network(TIGERS, seed), paths[-1], TIGERS)
    # An SPRT any candidate passes, and a floor no candidate reaches against `classic`.
    config = PipelineConfig(gate_games=16, gate_depth=1, anchor_games=4, workers=1,
                            elo0=-900, elo1=-800, anchor_floor=0.99)  # fmt: skip
    common = dict(champion_anchor_known=True)
    floor_only = gate("tigers", paths[0], paths[1], config, 3, **common)
    assert floor_only.vs_champion.sprt.decision == "H1"
    assert floor_only.vs_anchor.statistics.score < 0.99
    assert not floor_only.promote and "the floor is 99.0%" in floor_only.reason
    # Where the champion scored less than the floor, the candidate must not score significantly
    # less than the champion: its 95% range must reach the champion's score.
    high = floor_only.vs_anchor.statistics.score_high
    relative = gate("tigers", paths[0], paths[1], config, 3, **common, champion_anchor=high)
    assert relative.promote, relative.reason
    above = gate("tigers", paths[0], paths[1], config, 3, **common, champion_anchor=high + 0.01)
    assert not above.promote and "95% range up to" in above.reason


@pytest.mark.slow
def test_a_candidate_whose_champion_was_replaced_by_hand_is_rejected_in_its_tournament(tmp_path):
    from types import SimpleNamespace

    from samuel.pipeline import registry
    from samuel.pipeline.stages import Context, _gate
    from samuel.pipeline.work import ClaimedUnit

    folder = tmp_path / "pipe"
    run = samuel("pipeline", "run", str(folder), "--game", "tigers", "--cycles", "1",
                 *TINY, *LENIENT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    store = Store.open(f"sqlite:///{folder / 'pipeline.sqlite'}")
    try:
        with store.read() as connection:
            cycle = connection.execute(select(Cycle.__table__)).one()
            assert registry.active_model(connection, "tigers").id == cycle.candidate_id
        # A third model, gated against the first champion while the second is active: as if
        # someone promoted the second by hand while this gate was being played.
        with store.read() as connection:
            second = registry.load_model(folder, registry.get_model(connection, cycle.candidate_id))
        with store.write() as connection:  # a copy of the second, which passed this gate
            third = registry.register_model(
                connection, folder, "tigers", second.copy(), parent_id=1,
                status="candidate", training={}, run_id=store.run_id,
            )  # fmt: skip
        ctx = Context(store=store, folder=folder, game="tigers")
        stale = SimpleNamespace(**{**cycle._asdict(), "champion_id": 1, "candidate_id": third})
        unit = ClaimedUnit(id=0, cycle_id=cycle.id, stage="gate", part=0, task={"seed": 5},
                           attempts=1)  # fmt: skip
        store_output = _gate(ctx, stale, unit)
        with store.write() as connection:
            result = store_output(connection)
        assert result["decision"] == "reject" and "promoted meanwhile" in result["reason"]
        with store.read() as connection:
            tournament = connection.execute(
                select(Tournament.__table__).where(Tournament.id == result["tournament"])
            ).one()
            statuses = dict(connection.execute(select(Model.id, Model.status)).all())
        assert tournament.decision == "reject"
        assert "promoted meanwhile" in tournament.report["reason"]
        assert statuses[third] == "rejected" and statuses[cycle.candidate_id] == "active"
    finally:
        store.close()
