"""The one place numba's settings live.

Every compiled function in Samuel is decorated with :func:`kernel`, so changing how kernels are
compiled (caching, fast-math, nogil) is a one-line change. ``cache=True`` writes the machine code
next to the sources (``__pycache__``), so only the first run after a change pays the compile cost.
Warm the cache in the parent before starting worker processes: parallel cache writes can crash
(numba issue #4807).
"""

from __future__ import annotations

import numba

# numba's own work-queue threads, not OpenMP: the parallel kernels (self-play, gradients) start
# many short parallel regions, and on a busy machine OpenMP's spinning threads made a training
# epoch up to 40 times slower (measured: 3.4 s against 0.08 s for the same epoch, with another
# process on one of the two cores). Results do not depend on the layer. It suits Samuel's use:
# one Python thread launches parallel kernels at a time (the web server's searches are serial).
numba.config.THREADING_LAYER = "workqueue"

__all__ = ["kernel", "parallel_kernel"]


def kernel(function=None, **options):
    """``numba.njit`` with the project's settings: cached, GIL released."""
    settings = {"cache": True, "nogil": True, **options}
    if function is None:
        return numba.njit(**settings)
    return numba.njit(**settings)(function)


def parallel_kernel(function=None, **options):
    """A kernel with ``parallel=True`` (``numba.prange`` loops)."""
    return kernel(function, parallel=True, **options)
