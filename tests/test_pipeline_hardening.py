"""``samuel pipeline`` against a hostile user (issue 38, second pass): a store lost or emptied
over an existing folder, options that cannot run and replanning a cycle, a damaged store, a full
disk, ids that name nothing, a missing model file, reading commands that must not write, and
``--cycles`` when a paused run loses its lease."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.exc import OperationalError

from samuel.errors import CommandError
from samuel.evaluation.networks import random_network
from samuel.games import get_game
from samuel.games.kernels import STATE_SIZE
from samuel.pipeline import loop, registry, stages, work
from samuel.pipeline.config import PipelineConfig
from samuel.pipeline.schema import Cycle, Model, Run, WorkUnit
from samuel.pipeline.store import Provenance, Store, insert_positions
from tests.test_pipeline_loop import LENIENT, STRICT, TINY, samuel

TIGERS = get_game("tigers").number


def _one_line_error(result: subprocess.CompletedProcess, *words: str) -> None:
    """The command failed as a user's mistake: status 2, one line on stderr, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pipeline(folder: Path, url: str | None = None, models: int = 2) -> list[int]:
    """A pipeline folder whose store registers ``models`` networks, the last one active (the
    promotions logged), as a cycle leaves them; returns their ids."""
    folder.mkdir(parents=True, exist_ok=True)
    store = Store.open(url or f"sqlite:///{folder / 'pipeline.sqlite'}", command="test")
    ids = []
    try:
        for seed in range(models):
            with store.write() as connection:
                model = registry.register_model(
                    connection,
                    folder,
                    "tigers",
                    random_network(TIGERS, seed),
                    parent_id=ids[-1] if ids else None,
                    status="candidate",
                    training={"seed": seed},
                    run_id=store.run_id,
                )
                registry.promote(connection, model, who="test", why=f"model {seed}")
            ids.append(model)
    finally:
        store.close()
    return ids


def _files(folder: Path) -> dict[str, str]:
    return {path.name: _digest(path) for path in sorted((folder / "models").iterdir())}


# --- 1. a store lost or emptied over an existing folder -------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["deleted", "emptied"])
def test_run_refuses_a_folder_whose_store_was_lost(loss, tmp_path):
    folder = tmp_path / "pipe"
    _pipeline(folder)
    before = _files(folder)
    store = folder / "pipeline.sqlite"
    if loss == "deleted":
        store.unlink()
    else:
        store.write_bytes(b"")
    run = samuel("pipeline", "run", str(folder), "--cycles", "1", *TINY, *LENIENT)
    _one_line_error(run, "tigers-000001.bin", "lost or emptied", str(store))
    assert _files(folder) == before  # nothing overwritten
    assert (not store.exists()) if loss == "deleted" else store.stat().st_size == 0

    # check sees what no store owns: every model file, listed, and fails
    check = samuel("pipeline", "check", str(folder))
    _one_line_error(check, "no store owns")
    assert check.stdout.count("orphan:") == 2 and "tigers-000002.bin" in check.stdout


@pytest.mark.slow
def test_run_refuses_model_files_its_store_does_not_own(tmp_path):
    folder = tmp_path / "pipe"
    _pipeline(folder, models=1)
    foreign = folder / "models" / "tigers-000002.bin"  # another pipeline's model 2
    shutil.copy(folder / "models" / "tigers-000001.bin", foreign)
    foreign.write_bytes(foreign.read_bytes()[:-4] + b"\x00\x00\x80\x3f")
    before = _files(folder)
    run = samuel("pipeline", "run", str(folder), "--cycles", "1", *TINY, *LENIENT)
    _one_line_error(run, "no model of its store", "tigers-000002.bin")
    assert _files(folder) == before
    check = samuel("pipeline", "check", str(folder))
    assert check.returncode == 2 and "orphan: " in check.stdout and "tigers-000002" in check.stdout


def test_registering_never_overwrites_and_a_registration_rolled_back_leaves_no_file(
    database_url, tmp_path, monkeypatch
):
    folder = tmp_path / "pipe"
    (folder / "models").mkdir(parents=True)
    foreign = folder / "models" / "tigers-000001.bin"
    foreign.write_bytes(b"another pipeline's model")
    store = Store.open(database_url, command="test")
    params = random_network(TIGERS, 1)

    def register(connection):
        return registry.register_model(
            connection,
            folder,
            "tigers",
            params,
            parent_id=None,
            status="candidate",
            training={},
            run_id=store.run_id,
        )

    with pytest.raises(registry.RegistryError, match="no model of the store owns it"):
        with store.write() as connection:
            register(connection)
    assert foreign.read_bytes() == b"another pipeline's model"
    foreign.unlink()

    # A transaction that fails after registering a model (a lost lease, a full disk): no file.
    with pytest.raises(RuntimeError, match="after the registration"):
        with store.write() as connection:
            register(connection)
            raise RuntimeError("after the registration")
    assert list((folder / "models").iterdir()) == []

    # Killed after the commit, before the file was moved to its place: a note for check, and
    # the next load puts it in place.
    monkeypatch.setattr(registry, "_put_in_place", lambda pending, final, model_id: None)
    with store.write() as connection:
        model_id = register(connection)
    monkeypatch.undo()
    with store.read() as connection:
        model = registry.get_model(connection, model_id)
        problems = registry.check(connection, folder)
    assert [(p.what, p.serious) for p in problems] == [("pending", False)]
    assert not (folder / model.path).exists()
    assert np.array_equal(registry.load_model(folder, model), params)
    assert (folder / model.path).exists()
    assert [p.name for p in (folder / "models").iterdir()] == [Path(model.path).name]
    with store.read() as connection:
        assert registry.check(connection, folder) == []
    store.close()


# --- 2. options that cannot run; replanning a cycle -----------------------------------------


BAD_OPTIONS = [
    (["--learning-rate", "nan"], "--learning-rate"),
    (["--learning-rate", "inf"], "--learning-rate"),
    (["--learning-rate", "1e30"], "--learning-rate"),
    (["--rollouts", "1000000000000"], "--rollouts"),
    (["--elo1", "inf"], "--elo1"),
    (["--moves-left-weight", "nan"], "--moves-left-weight"),
    (["--gate-depth", "500"], "--gate-depth"),
    (["--workers", "100000000"], "--workers"),
    (["--games-per-unit", "10000000"], "--games-per-unit"),
    (["--selfplay-games", "1000000000", "--games-per-unit", "1"], "units of work"),
    (["--train-positions", "10000000000"], "memory"),
    (["--rollouts", "500000"], "--rollouts"),
    (["--rollouts", "10000", "--label-chunk", "1000000"], "memory"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("options", "said"), BAD_OPTIONS)
def test_options_that_cannot_run_are_refused_before_anything_runs(options, said, tmp_path):
    folder = tmp_path / "pipe"
    run = samuel("pipeline", "run", str(folder), "--cycles", "1", *TINY, *options)
    _one_line_error(run, said)
    assert not (folder / "pipeline.sqlite").exists() and not (folder / "models").exists()


def test_memory_is_estimated_against_the_machine():
    from samuel.pipeline.config import check_memory

    gib = 1 << 30
    check_memory(PipelineConfig(), memory=2 * gib)  # the defaults fit a small machine
    with pytest.raises(CommandError, match=r"training on up to 100,000,000 positions .* 8.0 GiB"):
        check_memory(PipelineConfig(train_positions=10**8), memory=8 * gib)
    with pytest.raises(CommandError, match="labelling 10,000 positions .* by 10,000 rollouts"):
        check_memory(PipelineConfig(rollouts=10_000, label_chunk=10_000), memory=2 * gib)
    check_memory(PipelineConfig(rollouts=10_000, label_chunk=10_000), memory=64 * gib)
    with pytest.raises(CommandError, match="--learning-rate must be a number"):
        PipelineConfig.from_json({**PipelineConfig().to_json(), "learning_rate": "0.1"})
    with pytest.raises(CommandError, match="--epochs must be a whole number"):
        PipelineConfig(epochs=2.5)


def _stuck_cycle(folder: Path, url: str, **bad) -> None:
    """A cycle begun and planned, then given ``bad`` settings, as an older samuel stored
    them (it took any number)."""
    options = dict(zip(TINY[0:-1:2], TINY[1::2], strict=False))  # the tiny cycle's settings
    config = PipelineConfig(
        **{
            key.removeprefix("--").replace("-", "_"): int(value)
            for key, value in options.items()
            if key != "--no-progress"
        },
        elo0=400.0,
        elo1=500.0,
    )
    store = Store.open(url, command="test")
    ctx = stages.Context(store=store, folder=folder, game="tigers")
    cycle_id = loop.begin_cycle(store, ctx, config)
    with store.write() as connection:
        stored = connection.execute(select(Cycle.config).where(Cycle.id == cycle_id)).scalar_one()
        connection.execute(
            update(Cycle).where(Cycle.id == cycle_id).values(config={**stored, **bad})
        )
    store.close()


@pytest.mark.slow
def test_a_cycle_planned_with_bad_settings_is_replanned_until_it_trains(tmp_path):
    folder = tmp_path / "pipe"
    folder.mkdir()
    db = folder / "pipeline.sqlite"
    _stuck_cycle(folder, f"sqlite:///{db}", learning_rate=1e30)

    # Running again, with good options or none, says what is wrong and how to replan.
    run = samuel("pipeline", "run", str(folder), "--cycles", "1", "--learning-rate", "0.001")
    _one_line_error(run, "cycle 1 under way", "--learning-rate", "samuel pipeline replan")
    replan = samuel("pipeline", "replan", str(folder), "--learning-rate", "0.001")
    assert replan.returncode == 0, replan.stderr
    assert "cycle 1 replanned (--learning-rate 0.001)" in replan.stdout
    run = samuel("pipeline", "run", str(folder), "--cycles", "1", "--epochs", "3")
    assert run.returncode == 0, run.stderr
    assert "note: tigers cycle 1 under way keeps the configuration" in run.stdout
    store = Store.open(f"sqlite:///{db}", read_only=True)
    with store.read() as connection:
        cycle = connection.execute(select(Cycle.__table__)).one()
        trained = registry.get_model(connection, cycle.candidate_id).training
    store.close()
    assert cycle.stage == "done" and cycle.config["learning_rate"] == 0.001
    assert trained["pipeline_config"]["learning_rate"] == 0.001
    assert cycle.config["rollouts"] == 2  # the rest of the plan is the cycle's own
    assert cycle.config["epochs"] == 2  # run's options are the next cycle's

    # Nothing under way: replan says so; a cycle that has trained cannot be replanned.
    _one_line_error(samuel("pipeline", "replan", str(folder), "--epochs", "3"), "no tigers cycle")
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE cycles SET stage = 'gate'")
    _one_line_error(
        samuel("pipeline", "replan", str(folder), "--epochs", "3"),
        "has trained its candidate",
    )
    _one_line_error(samuel("pipeline", "replan", str(folder)), "needs the options")


@pytest.mark.slow
def test_replan_plans_the_stage_under_way_again_keeping_what_is_done(database_url, tmp_path):
    config = PipelineConfig(selfplay_games=4, games_per_unit=2, expert_games=0, workers=1)
    store = Store.open(database_url, command="first")
    other = Store.open(database_url, command="second")
    ctx = stages.Context(store=store, folder=tmp_path, game="tigers")
    cycle_id = loop.begin_cycle(store, ctx, config)
    first = work.claim(store, cycle_id, "generate")
    with store.write() as connection:
        work.finish(connection, store, first, {"new": 0})
    held = work.claim(other, cycle_id, "generate")  # in flight in another run

    # A change that leaves the stage's tasks as they were: the done unit is kept, the others
    # are planned again, and the run holding one can no longer finish it.
    done = loop.replan(store, ctx, dataclasses.replace(config, learning_rate=0.01))
    assert (done.number, done.stage, done.units, done.kept) == (1, "generate", 1, 1)
    with pytest.raises(work.LeaseLost):
        with other.write() as connection:
            work.finish(connection, other, held, {"new": 0})
    with store.read() as connection:
        assert work.stage_progress(connection, cycle_id, "generate") == (1, 2)
        stored = connection.execute(select(Cycle.config).where(Cycle.id == cycle_id)).scalar()
    assert stored["learning_rate"] == 0.01

    # More self-play games: the done unit's task is one of the new plan's, which is not redone.
    done = loop.replan(store, ctx, dataclasses.replace(config, selfplay_games=8))
    assert (done.units, done.kept) == (3, 1)
    with store.read() as connection:
        units = connection.execute(
            select(WorkUnit.part, WorkUnit.state, WorkUnit.task).where(
                WorkUnit.cycle_id == cycle_id
            )
        ).all()
    assert sorted(u.part for u in units) == [0, 1, 2, 3]
    assert sum(u.task["games"] for u in units) == 8
    assert len({u.task["seed"] for u in units}) == 4
    store.close()
    other.close()


# --- 4. a damaged store ------------------------------------------------------------------------


def _filled_store(folder: Path) -> Path:
    """A pipeline with models and a few thousand positions; the store's file, closed."""
    _pipeline(folder)
    path = folder / "pipeline.sqlite"
    store = Store.open(f"sqlite:///{path}", command="test")
    states = np.random.default_rng(4).integers(0, 1 << 40, size=(3000, STATE_SIZE))
    with store.write() as connection:
        insert_positions(connection, "tigers", states, Provenance("random", None, 1, None))
    store.close()
    assert not path.with_name(path.name + "-wal").exists()  # all in the file
    return path


def _overwrite_pages(path: Path, pages: list[int], seed: int = 9) -> None:
    size = 4096
    rng = np.random.default_rng(seed)
    with open(path, "r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(rng.integers(0, 256, size, dtype=np.uint8).tobytes())


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["pages", "header"])
def test_a_damaged_store_is_one_line_for_status_and_check(damage, tmp_path):
    folder = tmp_path / "pipe"
    path = _filled_store(folder)
    with sqlite3.connect(path) as connection:
        data = [  # every page but those of the schema, its version and the runs (opening's)
            page
            for (page,) in connection.execute(
                "SELECT pageno FROM dbstat WHERE name NOT IN ('sqlite_schema', 'runs', "
                "'alembic_version', 'sqlite_autoindex_alembic_version_1')"
            )
        ]
    if damage == "pages":  # the store opens, and what reads it fails
        _overwrite_pages(path, data)
        said = "is damaged (database disk image is malformed)"
    else:
        _overwrite_pages(path, [1])
        said = "is damaged (file is not a database)"
    for command in ("status", "models"):
        _one_line_error(samuel("pipeline", command, str(folder)), said)
    _one_line_error(samuel("pipeline", "check", str(folder)), "is damaged")


@pytest.mark.slow
def test_check_finds_damage_that_no_query_reads(tmp_path):
    folder = tmp_path / "pipe"
    path = _filled_store(folder)
    with sqlite3.connect(path) as connection:
        root = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_positions_1'"
        ).fetchone()[0]
    _overwrite_pages(path, [root])
    assert samuel("pipeline", "status", str(folder)).returncode == 0  # status reads around it
    _one_line_error(samuel("pipeline", "check", str(folder)), "the store is damaged", "quick_check")


# --- 6. a full disk ------------------------------------------------------------------------------


@contextlib.contextmanager
def _tmpfs(where: Path, size: str):
    """A tmpfs of ``size`` mounted at ``where`` (root only; skipped where mount is refused)."""
    where.mkdir(parents=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"mount is not permitted here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.mark.slow
def test_a_full_disk_during_run_is_one_line_and_the_store_stays_whole(tmp_path):
    with _tmpfs(tmp_path / "disk", "2500k") as disk:
        folder = disk / "pipe"
        args = ["pipeline", "run", str(folder), "--cycles", "1", *TINY, *STRICT]
        args += ["--selfplay-games", "40", "--random-positions", "2000"]
        run = samuel(*args)
        _one_line_error(run)
        assert "space" in run.stderr, run.stderr
        # What was committed is whole: check agrees, and with room again the run finishes.
        check = samuel("pipeline", "check", str(folder))
        assert check.returncode == 0, check.stdout + check.stderr
        subprocess.run(["mount", "-o", "remount,size=20m", str(disk)], check=True)
        again = samuel(*args)
        assert again.returncode == 0, again.stderr
        assert samuel("pipeline", "check", str(folder)).returncode == 0


def test_the_database_out_of_space_is_one_line(tmp_path, monkeypatch, capsys):
    """The same, everywhere: SQLite's "database or disk is full" from a unit's transaction."""
    from samuel.cli import main

    def full(*_args, **_kwargs):
        raise OperationalError(
            "INSERT INTO positions ...", {}, sqlite3.OperationalError("database or disk is full")
        )

    monkeypatch.setattr(stages, "insert_positions", full)
    folder = tmp_path / "pipe"
    status = main(["pipeline", "run", str(folder), "--cycles", "1", *TINY, *STRICT])
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(error) == 1, error
    assert "out of space (database or disk is full)" in error[0]
    assert "what was stored before is intact" in error[0]
    store = Store.open(f"sqlite:///{folder / 'pipeline.sqlite'}", read_only=True)
    with store.read() as connection:
        assert registry.check(connection, folder) == []
    store.close()


# --- 7, 11. ids that name nothing; a missing model file ----------------------------------------


@pytest.mark.slow
def test_ids_and_tournaments_that_name_nothing_are_one_line(database_url, tmp_path):
    folder = tmp_path / "pipe"
    first, second = _pipeline(folder, database_url)
    db = ["--db", database_url]
    huge = "12345678901234567890123"
    for args in (
        ["promote", str(folder), huge, "--why", "x"],
        ["reject", str(folder), str(first), huge],
        ["gate", str(folder), huge, "--no-progress"],
    ):
        _one_line_error(samuel("pipeline", *args, *db), f"no model {huge}")
    for tournament in ("99", huge):
        promote = samuel(
            "pipeline", "promote", str(folder), str(first), "--why", "x", "--tournament",
            tournament, *db,
        )  # fmt: skip
        _one_line_error(promote, f"no tournament {tournament}")
    store = Store.open(database_url, read_only=True)
    with store.read() as connection:
        statuses = dict(connection.execute(select(Model.id, Model.status)).all())
    store.close()
    assert statuses == {first: "retired", second: "active"}  # nothing changed


@pytest.mark.slow
def test_check_says_which_model_file_is_missing_and_what_it_means(tmp_path):
    folder = tmp_path / "pipe"
    first, second = _pipeline(folder)
    (folder / "models" / f"tigers-{second:06d}.bin").unlink()
    check = samuel("pipeline", "check", str(folder))
    assert check.returncode == 2
    assert (
        f"model {second} (tigers, active): its file models/tigers-{second:06d}.bin is missing"
        in check.stdout
    )
    assert "the loop cannot run or gate against it until it is restored" in check.stdout
    assert "No such file" not in check.stdout


# --- 12. reading never writes --------------------------------------------------------------


@pytest.mark.slow
def test_reading_commands_never_create_a_store(tmp_path):
    folder = tmp_path / "pipe"
    _pipeline(folder)
    elsewhere = tmp_path / "x.sqlite"
    for command in ("status", "check", "models", "replan"):
        extra = ["--epochs", "3"] if command == "replan" else []
        result = samuel("pipeline", command, str(folder), "--db", str(elsewhere), *extra)
        _one_line_error(result, f"no store {elsewhere}")
        assert not elsewhere.exists()
    result = samuel("pipeline", "promote", str(folder), "1", "--why", "x", "--db", str(elsewhere))
    _one_line_error(result, "no store")
    assert not elsewhere.exists()


@contextlib.contextmanager
def _read_only(folder: Path):
    """``folder`` made read-only: remounted read-only where root may mount, else by mode."""
    if os.geteuid() == 0:
        try:
            with _tmpfs(folder.with_name("ro"), "20m") as disk:
                copy = disk / folder.name
                shutil.copytree(folder, copy)
                subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
                yield copy
                return
        except pytest.skip.Exception:
            pass
    modes = {path: path.stat().st_mode for path in [folder, *folder.rglob("*")]}
    for path in modes:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield folder
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


@pytest.mark.slow
def test_reading_commands_never_write(tmp_path):
    folder = tmp_path / "pipe"
    _pipeline(folder)
    store = folder / "pipeline.sqlite"
    before = _digest(store)
    for command in ("status", "check", "models"):
        result = samuel("pipeline", command, str(folder))
        assert result.returncode == 0, result.stderr
    assert _digest(store) == before  # not even a run recorded
    with _read_only(folder) as read_only:
        for command in ("status", "check", "models"):
            result = samuel("pipeline", command, str(read_only))
            assert result.returncode == 0, result.stderr
        _one_line_error(samuel("pipeline", "promote", str(read_only), "1", "--why", "x"))


@pytest.mark.slow
def test_an_older_store_is_read_after_migrate_and_never_migrated_by_reading(tmp_path):
    from alembic import command

    from samuel.pipeline.store import _alembic_config, open_engine

    folder = tmp_path / "pipe"
    folder.mkdir()
    url = f"sqlite:///{folder / 'pipeline.sqlite'}"
    engine = open_engine(url)
    with engine.begin() as connection:
        command.upgrade(_alembic_config(connection), "0002")
    engine.dispose()
    before = _digest(folder / "pipeline.sqlite")
    _one_line_error(samuel("pipeline", "status", str(folder)), "older schema", "migrate")
    assert _digest(folder / "pipeline.sqlite") == before
    assert samuel("pipeline", "migrate", str(folder)).returncode == 0
    assert samuel("pipeline", "status", str(folder)).returncode == 0


# --- 13. --cycles when a paused run loses its lease --------------------------------------------


class _NoHeartbeat:
    """A run whose heartbeat never beats: paused, its lease runs out as a stopped process's."""

    def __init__(self, *_args) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *_exc) -> None:
        pass


@pytest.mark.slow
def test_cycles_counts_cycles_when_a_paused_run_loses_its_lease(
    database_url, tmp_path, monkeypatch
):
    """Two runs of ``--cycles 2`` at once; one pauses with a unit past its lease and the other
    takes the unit over and finishes both cycles. Two cycles in all, as the docs say."""
    monkeypatch.setattr(work, "LEASE", datetime.timedelta(seconds=1))
    monkeypatch.setattr(work, "Heartbeat", _NoHeartbeat)
    monkeypatch.setattr(loop, "POLL_SECONDS", 0.05)
    paused, resume = threading.Event(), threading.Event()
    stores = [Store.open(database_url, command=name) for name in ("a", "b")]
    said: list[str] = []
    a, b = (
        stages.Context(store=store, folder=tmp_path, game="tigers", say=said.append)
        for store in stores
    )

    def fake_work(ctx, cycle, unit):  # every stage's unit at once, the first of `a` paused
        if ctx is a and not paused.is_set():
            paused.set()
            assert resume.wait(60)
        result = {"validation_mse": 0.0, "baselines": {}} if unit.stage == "train" else {}
        return lambda connection: result

    monkeypatch.setattr(stages, "work", fake_work)
    config = PipelineConfig(selfplay_games=4, games_per_unit=2, expert_games=0, workers=1)
    reports = {}
    thread = threading.Thread(target=lambda: reports.update(a=loop.run(a.store, a, config, 2)))
    thread.start()
    assert paused.wait(60)
    reports["b"] = loop.run(b.store, b, config, cycles=2)
    resume.set()
    thread.join(60)
    assert not thread.is_alive()
    with b.store.read() as connection:
        cycles = connection.execute(select(Cycle.number, Cycle.stage)).all()
        runs = connection.execute(select(func.count()).select_from(Run)).scalar_one()
    for store in stores:
        store.close()
    assert sorted(cycles) == [(1, "done"), (2, "done")]
    assert reports["a"].cycles == reports["b"].cycles == [1, 2]
    assert reports["a"].units == 0 and runs == 2
    assert any("was taken over by another run" in line for line in said)


def test_a_cycle_under_way_counts_as_the_first(tmp_path, monkeypatch):
    monkeypatch.setattr(
        stages,
        "work",
        lambda ctx, cycle, unit: (
            lambda connection: (
                {"validation_mse": 0.0, "baselines": {}} if unit.stage == "train" else {}
            )
        ),
    )
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite'}", command="test")
    ctx = stages.Context(store=store, folder=tmp_path, game="tigers", say=lambda line: None)
    config = PipelineConfig(selfplay_games=2, games_per_unit=2, expert_games=0, workers=1)
    loop.begin_cycle(store, ctx, config)  # cycle 1 under way
    assert loop.run(store, ctx, config, cycles=2).cycles == [1, 2]
    assert loop.run(store, ctx, config, cycles=1).cycles == [3]
    with store.read() as connection:
        assert connection.execute(select(func.max(Cycle.number))).scalar() == 3
        assert connection.execute(text("SELECT count(*) FROM cycles")).scalar() == 3
    store.close()


@pytest.mark.slow  # whole samuel processes
def test_without_game_a_command_takes_the_stores_one_game_and_asks_when_it_holds_two(tmp_path):
    from samuel.evaluation.networks import random_network

    folder = tmp_path / "pipe"
    folder.mkdir()
    store = Store.open(f"sqlite:///{folder / 'pipeline.sqlite'}")
    for game in ("draughts", "tigers"):
        with store.write() as connection:
            registry.register_model(
                connection, folder, game, random_network(get_game(game).number, 1),
                parent_id=None, status="active", training={}, run_id=None,
            )  # fmt: skip
        status = samuel("pipeline", "status", str(folder))
        if game == "draughts":  # the one game the store holds
            assert status.returncode == 0 and "game: draughts" in status.stdout, status.stderr
    store.close()
    _one_line_error(status, "the store holds draughts, tigers", "--game")
    assert "game: tigers" in samuel("pipeline", "status", str(folder), "--game", "tigers").stdout


def test_the_anchor_history_follows_the_champion_that_was_active_not_each_gates_decision(
    tmp_path,
):
    # Cycle 1 promotes model 2; cycle 2's gate said "promote" for model 3 but lost to a
    # promotion of model 4 by `pipeline gate` meanwhile (the cycle after begins with 4); cycle
    # 3 rejects. The champion's scores are 2's, then 4's (as its own gate measured it).
    from samuel.evaluation.networks import random_network
    from samuel.pipeline.schema import Cycle, Tournament
    from samuel.pipeline.status import anchor_history

    store = Store.open(f"sqlite:///{tmp_path / 'pipeline.sqlite'}")
    game = "tigers"
    with store.write() as connection:
        for model in (1, 2, 3, 4):
            registry.register_model(
                connection, tmp_path, game, random_network(get_game(game).number, model),
                parent_id=None, status="active" if model == 4 else "retired", training={},
                run_id=None,
            )  # fmt: skip
        # (candidate, champion, anchor score, decision, the champion's own score if measured)
        for candidate, champion, anchor, decision, own in (
            (2, 1, 0.40, "promote", 0.30), (3, 2, 0.45, "promote", None),
            (4, 2, 0.50, "promote", None), (3, 4, 0.20, "reject", None),
        ):  # fmt: skip
            report = {"champion_vs_anchor": {"score": own, "score_low": own - 0.1,
                                             "score_high": own + 0.1}} if own else {}  # fmt: skip
            connection.execute(
                Tournament.__table__.insert(),
                dict(game=game, candidate_id=candidate, champion_id=champion, games=2, score=0.5,
                     pentanomial={}, llr=0.0, lower=-1.0, upper=1.0, elo0=0.0, elo1=1.0,
                     sprt="H1", anchor="classic", anchor_games=2, anchor_score=anchor,
                     anchor_low=anchor - 0.1, anchor_high=anchor + 0.1, decision=decision,
                     report=report),
            )  # fmt: skip
        for number, champion, tournament in ((1, 1, 1), (2, 2, 2), (3, 4, 4)):
            connection.execute(
                Cycle.__table__.insert(),
                dict(game=game, number=number, stage="done", config={}, champion_id=champion,
                     candidate_id=None, tournament_id=tournament),
            )  # fmt: skip
    with store.read() as connection:
        history = anchor_history(connection, game)
    store.close()
    scores = [(cycle, round(score, 2), promoted) for cycle, score, _, _, promoted in history]
    assert scores == [(0, 0.3, False), (1, 0.4, True), (2, 0.5, True), (3, 0.5, False)]
