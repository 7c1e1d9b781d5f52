"""Training on a shared machine: one default generation (500 self-play games at depth 3, then
training) on 2 workers, on a quiet machine and with other CPU-bound processes running, for each
way numba's parallel kernels can wait for work.

numba's OpenMP threads spin while they wait for the next parallel region (``OMP_WAIT_POLICY``
ACTIVE); that is cheap while each thread has a core, but when other processes hold the cores a
region waits for a descheduled thread. This measures the choices side by side, each generation
in a fresh ``samuel train`` process (the policy is read when the OpenMP runtime loads):

- ``omp default``: GNU OpenMP's own default, threads spin 300,000 rounds before they sleep
  (what Samuel ran before it chose);
- ``omp active``: OpenMP, threads spin while waiting;
- ``omp passive``: OpenMP, threads sleep at once (Samuel's default, ``samuel.jit``);
- ``workqueue``: numba's own layer, no spinning, but a costly start per region;
- ``1 worker``: no parallel threads at all.

The load is ``--load`` Python processes each spinning in a loop, stopped when the benchmark ends.

    .venv/bin/python benchmarks/loaded_machine.py [--load 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import samuel.players

SHIPPED = Path(samuel.players.__file__).parent / "nn" / "shipped.bin"
CHOICES = {
    "omp default": ({"NUMBA_THREADING_LAYER": "omp", "GOMP_SPINCOUNT": "300000"}, 2),
    "omp active": ({"NUMBA_THREADING_LAYER": "omp", "OMP_WAIT_POLICY": "ACTIVE"}, 2),
    "omp passive": ({"NUMBA_THREADING_LAYER": "omp", "OMP_WAIT_POLICY": "PASSIVE"}, 2),
    "workqueue": ({"NUMBA_THREADING_LAYER": "workqueue"}, 2),
    "1 worker": ({}, 1),
}
TIMEOUT = 600  # seconds for one generation: past that the choice has collapsed


def generation(environment: dict[str, str], workers: int) -> tuple[float, float]:
    """(training seconds, whole generation seconds) of one default generation."""
    with tempfile.TemporaryDirectory() as folder:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "samuel.cli",
                "train",
                "1",
                "500",
                folder,
                "--from",
                str(SHIPPED),
                "--workers",
                str(workers),
                "--no-progress",
            ],
            env={**os.environ, **environment},
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=True,
        )
    row = [line.split() for line in run.stdout.splitlines() if line.split()[:1] == ["1"]][-1]
    return float(row[-2]), float(row[-1])


def measure(repeats: int) -> dict[str, tuple[float, float]]:
    """Each choice's median (training s, generation s) over ``repeats`` generations."""
    figures = {}
    for name, (environment, workers) in CHOICES.items():
        runs = [generation(environment, workers) for _ in range(repeats)]
        figures[name] = (
            statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs),
        )
        print(
            f"  {name:12} training {figures[name][0]:7.2f} s   generation "
            f"{figures[name][1]:7.2f} s",
            flush=True,
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes to add (2)")
    parser.add_argument("--repeats", type=int, default=3, help="generations per figure (3)")
    args = parser.parse_args()
    generation({}, 2)  # compile (or load) the kernels once, outside the figures
    print(f"quiet machine ({os.cpu_count()} cores)", flush=True)
    quiet = measure(args.repeats)
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        print(f"loaded: {args.load} CPU-bound processes running", flush=True)
        loaded = measure(args.repeats)
    finally:
        for process in load:
            process.kill()
            process.wait()
    print()
    print(
        f"{'choice':12} {'quiet train':>12} {'quiet gen':>10} {'loaded train':>13} "
        f"{'loaded gen':>11}"
    )
    for name in CHOICES:
        print(
            f"{name:12} {quiet[name][0]:11.2f}s {quiet[name][1]:9.2f}s "
            f"{loaded[name][0]:12.2f}s {loaded[name][1]:10.2f}s"
        )


if __name__ == "__main__":
    main()
