"""The pipeline's store at size (samuel.pipeline): bulk insert rates and the 10-million-position
scale test, on SQLite and on PostgreSQL. Prints figures; nothing passes or fails. The machine's
load average is printed beside each figure (other work on the machine slows every figure).

1. **Bulk insert** (``--part insert``): ``store.insert_positions`` in batches of ``--batch`` rows
   (each its own transaction, as the loop's units are) into a store that grows to ``--preload``
   positions; the rate (positions per second) by the store's size before the batch, then a
   batch that is all duplicates (skipped). Synthetic Tigers & Sheep-shaped states (random words).
2. **Scale** (``--part scale``): ``--positions`` synthetic labelled positions are imported
   (``bulk.import_labelled``, ``--chunk`` rows a transaction), then sampled for training
   (``dataset.sample_labelled``, ``--sample`` positions), given relabelling priorities
   (``relabel.prioritise`` with a cheap numpy quick value standing in for the network: this
   measures the store, not the evaluator) and walked best first (``dataset.by_priority``,
   ``--top`` positions). Each step runs in a fresh process, so its peak memory (``ru_maxrss``)
   is its own; ``base`` is such a process's size after its imports, before the step.

PostgreSQL: a throwaway server (tests/postgres.py: initdb in a temporary folder, fsync off).
SQLite: a file in ``--folder`` (default: a temporary folder), deleted at the end.

    PYTHONPATH=src .venv/bin/python benchmarks/pipeline.py --db both --part insert \\
        [--preload 2000000] [--batch 50000]
    PYTHONPATH=src .venv/bin/python benchmarks/pipeline.py --db sqlite --part scale \\
        [--positions 10000000] [--chunk 500000] [--sample 200000] [--top 100000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.postgres
GAME = "tigers"


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def synthetic_states(count: int, first: int, seed: int) -> np.ndarray:
    """Distinct Tigers & Sheep-shaped states: random 25-bit words, the last numbering them."""
    from samuel.games.kernels import STATE_SIZE

    rng = np.random.default_rng(seed)
    states = rng.integers(0, 2**25, (count, STATE_SIZE), dtype=np.int64)
    states[:, -1] = np.arange(first, first + count)
    return states


@contextlib.contextmanager
def databases(which: str, folder: Path):
    """Yield (name, url) for each database asked for, each a fresh, empty store."""
    if which in ("sqlite", "both"):
        path = folder / "store.sqlite"
        yield_sqlite = [("sqlite", f"sqlite:///{path}")]
    else:
        yield_sqlite = []
    if which in ("postgresql", "both"):
        from tests.postgres import new_database, postgres_server

        with postgres_server() as server:
            yield yield_sqlite + [("postgresql", new_database(server, "bench"))]
    else:
        yield yield_sqlite


def store_size(url: str) -> str:
    from sqlalchemy import text

    from samuel.pipeline.store import open_engine

    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    else:
        engine = open_engine(url)
        with engine.connect() as connection:
            size = connection.execute(text("SELECT pg_database_size(current_database())")).scalar()
        engine.dispose()
    return f"{size / 2**30:.2f} GiB"


# ---------------------------------------------------------------------------- bulk insert


def bench_insert(name: str, url: str, args) -> None:
    from samuel.pipeline.store import Provenance, Store, insert_positions

    store = Store.open(url, command="benchmarks/pipeline.py")
    provenance = Provenance("selfplay", 1, 7, store.run_id, 3)
    print(f"\n{name}: insert_positions, batches of {args.batch:,} (one transaction each)")
    print(f"  {'store size':>12}  {'batches':>7}  {'positions/s':>12}")
    held, batch_number, report_every = 0, 0, max(1, args.preload // args.batch // args.reports)
    window_rows, window_time = 0, 0.0
    while held < args.preload:
        states = synthetic_states(args.batch, held, seed=batch_number)
        origins = np.arange(held, held + args.batch) // 60
        plies = np.arange(args.batch) % 60
        started = time.perf_counter()
        with store.write() as connection:
            new = insert_positions(connection, GAME, states, provenance, origins, plies)
        window_time += time.perf_counter() - started
        window_rows += new
        held += new
        batch_number += 1
        if batch_number % report_every == 0:
            print(
                f"  {held - window_rows:>12,}  {report_every:>7}  "
                f"{window_rows / window_time:>12,.0f}   {load()}",
                flush=True,
            )
            window_rows, window_time = 0, 0.0
    states = synthetic_states(args.batch, held - args.batch, seed=batch_number - 1)
    started = time.perf_counter()
    with store.write() as connection:
        new = insert_positions(connection, GAME, states, provenance)
    elapsed = time.perf_counter() - started
    print(
        f"  a batch of {args.batch:,} already stored: {new} new, "
        f"{args.batch / elapsed:,.0f} positions/s checked   {load()}"
    )
    print(f"  store: {held:,} positions, {store_size(url)} on disk")
    store.close()


# ---------------------------------------------------------------------------- scale steps


def quick_values(states: np.ndarray) -> np.ndarray:
    """A cheap stand-in for the champion's static value: deterministic, in -1..1."""
    return np.tanh(((states[:, 0] & 0xFFFF) - 32768) / 16384.0)


def step_import(url: str, args) -> dict:
    from samuel.pipeline.bulk import import_labelled
    from samuel.pipeline.store import Provenance, Store

    store = Store.open(url, command="benchmarks/pipeline.py import")
    provenance = Provenance("random", None, 1, store.run_id)
    positions = labels = 0
    for first in range(0, args.positions, args.chunk):
        count = min(args.chunk, args.positions - first)
        states = synthetic_states(count, first, seed=first)
        rng = np.random.default_rng(first + 1)
        with store.write() as connection:
            done = import_labelled(
                connection,
                GAME,
                states,
                rng.uniform(-1, 1, count),
                rng.uniform(0, 0.3, count),
                provenance,
                rollouts=16,
                truncated=rng.random(count) < 0.5,
                origin_games=np.arange(first, first + count) // 60,
                plies=np.arange(first, first + count) % 60,
            )
        positions += done.positions
        labels += done.labels
        if args.verbose:
            print(f"    imported {first + count:,}   {load()}", file=sys.stderr, flush=True)
    store.close()
    return {"positions": positions, "labels": labels}


def step_sample(url: str, args) -> dict:
    from samuel.pipeline.dataset import sample_labelled
    from samuel.pipeline.store import Store

    store = Store.open(url, command="benchmarks/pipeline.py sample")
    sample, total = sample_labelled(store, GAME, args.sample, seed=3)
    store.close()
    return {
        "sampled": len(sample),
        "of": total,
        "mean value": round(float(sample.values.mean()), 4),
    }


def step_prioritise(url: str, args) -> dict:
    from samuel.pipeline.relabel import prioritise
    from samuel.pipeline.store import Store

    store = Store.open(url, command="benchmarks/pipeline.py prioritise")
    seen = [0]

    def progress(count: int) -> None:
        seen[0] += count
        if args.verbose and seen[0] % 1_000_000 < count:
            print(f"    prioritised {seen[0]:,}   {load()}", file=sys.stderr, flush=True)

    done = prioritise(store, GAME, quick_values, progress)
    store.close()
    return {"prioritised": done}


def step_by_priority(url: str, args) -> dict:
    from samuel.pipeline.dataset import by_priority
    from samuel.pipeline.store import Store

    store = Store.open(url, command="benchmarks/pipeline.py by_priority")
    with store.read() as connection:
        ids = by_priority(connection, GAME, args.top)
    store.close()
    return {"walked": len(ids), "first ids": ids[:3]}


STEPS = {
    "import": step_import,
    "sample": step_sample,
    "prioritise": step_prioritise,
    "by_priority": step_by_priority,
}


def run_step(step: str, url: str, args) -> None:
    """In the child process: one step, then a JSON line of its figures."""
    import sqlalchemy  # noqa: F401  (the imports every step makes, before the baseline)

    import samuel.pipeline.dataset  # noqa: F401

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start()
    started = time.perf_counter()
    result = STEPS[step](url, args)
    elapsed = time.perf_counter() - started
    figures = {
        "step": step,
        "seconds": round(elapsed, 1),
        "base MiB": round(base / 1024),
        "peak MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        **result,
    }
    if args.tracemalloc:
        figures["python peak MiB"] = round(tracemalloc.get_traced_memory()[1] / 2**20)
    print("STEP " + json.dumps(figures), flush=True)


def bench_scale(name: str, url: str, args) -> None:
    print(
        f"\n{name}: scale, {args.positions:,} labelled positions (import chunks of "
        f"{args.chunk:,}), sample {args.sample:,}, walk {args.top:,}"
    )
    for step in args.steps.split(","):
        before = load()
        command = [sys.executable, __file__, "--step", step, "--url", url]
        command += [
            f"--{key}={getattr(args, key)}" for key in ("positions", "chunk", "sample", "top")
        ]
        command += ["--tracemalloc"] * args.tracemalloc + ["--verbose"] * args.verbose
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
        lines = [line for line in done.stdout.splitlines() if line.startswith("STEP ")]
        if done.returncode != 0 or not lines:
            print(f"  {step}: failed\n{done.stdout}")
            return
        figures = json.loads(lines[-1][5:])
        rate = ""
        count = figures.get("positions") or figures.get("of") or figures.get("prioritised")
        if count:
            rate = f" ({args.positions / max(figures['seconds'], 1e-9):,.0f} positions/s)"
        print(f"  {step:>11}: {figures.pop('seconds'):8.1f} s{rate}", end="")
        figures.pop("step")
        print("  " + ", ".join(f"{k} {v}" for k, v in figures.items()), end="")
        print(f"   [before: {before}; after: {load()}]", flush=True)
    print(f"  store: {store_size(url)} on disk")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--part", default="insert,scale", help="insert, scale or both")
    parser.add_argument("--folder", help="for the SQLite file (default: a temporary folder)")
    parser.add_argument("--preload", type=int, default=2_000_000, help="insert: store grows to")
    parser.add_argument("--batch", type=int, default=50_000, help="insert: rows per call")
    parser.add_argument("--reports", type=int, default=8, help="insert: lines per database")
    parser.add_argument("--positions", type=int, default=10_000_000, help="scale: store size")
    parser.add_argument("--chunk", type=int, default=500_000, help="scale: rows per import call")
    parser.add_argument("--sample", type=int, default=200_000, help="scale: training sample")
    parser.add_argument("--top", type=int, default=100_000, help="scale: walked by priority")
    parser.add_argument("--steps", default=",".join(STEPS), help="scale: the steps to run")
    parser.add_argument("--tracemalloc", action="store_true", help="also Python's own peak")
    parser.add_argument("--verbose", action="store_true", help="progress on stderr")
    parser.add_argument("--keep", action="store_true", help="keep the SQLite file")
    parser.add_argument("--step", choices=tuple(STEPS), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        run_step(args.step, args.url, args)
        return
    import sqlite3

    import psycopg

    print(
        f"samuel pipeline store benchmark, {os.cpu_count()} CPUs, SQLite {sqlite3.sqlite_version}"
        f", psycopg {psycopg.__version__}, {load()}"
    )
    parts = args.part.split(",")
    for part in parts:
        folder = (
            Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="samuel-bench-"))
        )
        folder.mkdir(parents=True, exist_ok=True)
        try:
            with databases(args.db, folder) as urls:
                for name, url in urls:
                    if part == "insert":
                        bench_insert(name, url, args)
                    elif part == "scale":
                        bench_scale(name, url, args)
                    else:
                        raise SystemExit(f"unknown part {part!r}")
        finally:
            if not args.keep:
                if args.folder:
                    for path in folder.glob("store.sqlite*"):
                        path.unlink()
                else:
                    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
