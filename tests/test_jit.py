"""The numba cache folder follows the kernels' sources, so a stale kernel is never loaded."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from samuel.jit import cache_directory


def test_the_cache_folder_changes_with_any_kernel_module_and_only_with_them(tmp_path):
    package = tmp_path / "package"
    (package / "sub").mkdir(parents=True)
    kernel_module = package / "sub" / "kernels.py"
    kernel_module.write_text("from samuel.jit import kernel\n\n@kernel\ndef f(x):\n    return x\n")
    other = package / "cli.py"
    other.write_text("print('hello')\n")
    root = Path("/cache")
    first = cache_directory(package, root)
    assert first.parent == root
    other.write_text("print('hello again')\n")
    assert cache_directory(package, root) == first  # not a kernel module
    kernel_module.write_text(kernel_module.read_text().replace("return x", "return x + 1"))
    assert cache_directory(package, root) != first


RUN_A_PARALLEL_KERNEL = """
import numpy as np, numba
from samuel.jit import parallel_kernel

@parallel_kernel(cache=False)
def total(values):
    sum = 0.0
    for i in numba.prange(values.shape[0]):
        sum += values[i]
    return sum

total(np.ones(1000))
print(numba.threading_layer())
"""


def _openmp_spin_count(user_policy: str | None) -> tuple[str, int]:
    """The threading layer, and how long GNU OpenMP's idle threads spin before they sleep, as
    it reports at start-up (OMP_DISPLAY_ENV), in a fresh process whose user set
    ``user_policy`` (None: no policy; libgomp then spins 300,000 rounds)."""
    environment = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    environment.update(OMP_DISPLAY_ENV="VERBOSE", NUMBA_THREADING_LAYER="omp")
    if user_policy is not None:
        environment["OMP_WAIT_POLICY"] = user_policy
    run = subprocess.run(
        [sys.executable, "-c", RUN_A_PARALLEL_KERNEL],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    spin_count = re.search(r"GOMP_SPINCOUNT = '(\d+)'", run.stderr + run.stdout)
    return run.stdout.split()[-1], int(spin_count.group(1)) if spin_count else -1


@pytest.mark.slow
def test_openmp_threads_sleep_while_waiting_unless_the_user_says_otherwise():
    assert _openmp_spin_count(None) == ("omp", 0)
    layer, spin_count = _openmp_spin_count("ACTIVE")
    assert layer == "omp" and spin_count > 10**9


COMPILE_A_KERNEL = """
import samuel.jit
from kernels_here.twice import twice

twice(21)
print(sum(twice.stats.cache_hits.values()), sum(twice.stats.cache_misses.values()))
"""


@pytest.mark.slow
def test_a_second_checkout_loads_the_kernels_the_first_compiled(tmp_path):
    """The cache files a kernel under its place in the package, not under where the package
    lies on disk: CI's fresh clone loads what an earlier checkout of the same sources compiled."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    environment["SAMUEL_EXTRA_GAMES"] = "kernels_here"  # its folder joins the cache's digest

    def run_in(checkout: Path) -> tuple[int, int]:
        package = checkout / "kernels_here"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "twice.py").write_text(
            "from samuel.jit import kernel\n\n\n@kernel\ndef twice(x):\n    return 2 * x\n"
        )
        run = subprocess.run(
            [sys.executable, "-c", COMPILE_A_KERNEL],
            env=dict(environment, PYTHONPATH=str(checkout)),
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        hits, misses = run.stdout.split()
        return int(hits), int(misses)

    assert run_in(tmp_path / "first") == (0, 1)  # compiled, and saved
    assert run_in(tmp_path / "second") == (1, 0)  # loaded
    cached = {p.name for p in (tmp_path / "cache").glob("*/*") if p.is_dir()}
    assert cached == {"kernels_here"}
