"""The one place numba's settings live.

Every compiled function in Samuel is decorated with :func:`kernel`, so changing how kernels are
compiled (caching, threads, nogil) is a one-line change here. Kernels are cached on disk, so only
the first run after a change pays the compile cost. Warm the cache in the parent before starting
worker processes: parallel cache writes can crash (numba issue #4807).

**Where the cache lives, and why not next to the sources.** numba checks a cached kernel only
against its own source file: a kernel whose callee in *another* file changed keeps its old machine
code (seen here: the search kept returning 0.0 for a new evaluator until its cache was deleted).
So the cache goes in a folder named after a digest of every kernel module's source (and numba's
version): change any kernel and every kernel is compiled afresh, into a new folder. The root is
``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/samuel/numba`` (``~/.cache/samuel/numba``).
Folders of older sources are left behind; delete the root to reclaim them.

**Why one checkout's kernels serve another.** Inside that folder numba would file each module's
kernels under a hash of the module's absolute path, so a second clone (CI's, a reinstall) compiled
everything again: the suite took 5,265 s on CI's clone against 2,368 s where its kernels were
already compiled. The folder's name already stands for every
kernel's source, so Samuel files a kernel by its module's place in the package instead
(``samuel/search/alphabeta.py``: ``samuel.search``); numba still checks each module's own source
(its bytes' hash) before it loads one.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from pathlib import Path

import numba
from numba.core import caching

from samuel.plugins import extra_game_packages

# Parallel kernels (self-play, gradients, losses) use numba's default threading layer (OpenMP
# here), unless NUMBA_THREADING_LAYER says otherwise. By default OpenMP's idle threads spin,
# waiting for the next parallel region: cheap while each thread has a core, but when other
# processes share the cores a region waits for a descheduled thread, and training ran up to 40x
# slower. Passive waiting (the threads sleep) costs little on a quiet machine and holds up on a
# loaded one (benchmarks/loaded_machine.py; figures in docs/training.md, "Speed"). The OpenMP
# runtime reads the policy when it loads, at the first parallel kernel, after this line; a
# policy the user set is kept. Results never depend on it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

KERNEL_MARKERS = (b"samuel.jit", b"from .jit", b"@kernel", b"@parallel_kernel")

__all__ = ["cache_directory", "inline_kernel", "kernel", "parallel_kernel"]


def cache_directory(package: Path, root: Path, extra: tuple[Path, ...] = ()) -> Path:
    """``root`` / a digest of the package's kernel modules (those that use this module), and
    of those of the ``extra`` packages (games registered from outside Samuel, whose kernels the
    dispatch compiles into everything that calls it)."""
    digest = hashlib.sha256(numba.__version__.encode())
    for folder in (package, *extra):
        for path in sorted(folder.rglob("*.py")):
            source = path.read_bytes()
            if any(marker in source for marker in KERNEL_MARKERS):
                name = path.relative_to(folder).as_posix()
                if folder != package:  # by name, not place: any checkout shares the cache
                    name = f"{folder.name}/{name}"
                digest.update(name.encode() + b"\0" + source)
    return root / digest.hexdigest()[:16]


def _extra_game_folders() -> tuple[Path, ...]:
    """The folders of the games registered from outside Samuel (``$SAMUEL_EXTRA_GAMES``)."""
    folders = []
    for name in extra_game_packages():
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ImportError(f"$SAMUEL_EXTRA_GAMES names {name!r}, which is no package")
        folders.append(Path(next(iter(spec.submodule_search_locations))))
    return tuple(folders)


def _cache_root() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "samuel" / "numba"


def cache_subfolder(module: str, packages: tuple[Path, ...]) -> str | None:
    """The folder, inside the cache, of the kernels of the module at path ``module``: its
    package's name and its folders inside it, joined by dots; None outside ``packages``."""
    folder = Path(module).resolve().parent
    for package in packages:
        try:
            inside = folder.relative_to(package.resolve())
        except ValueError:
            continue
        return ".".join((package.name, *inside.parts))
    return None


@functools.cache
def _source_hash(path: str, mtime_ns: int, size: int) -> str:
    """The hash of a module's bytes (memoized on its time and size, as numba's own is)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# numba 0.68's names; older releases had a leading underscore.
_UserProvidedCacheLocator = getattr(caching, "UserProvidedCacheLocator", None)
_UserProvidedCacheLocator = _UserProvidedCacheLocator or caching._UserProvidedCacheLocator
_CacheImpl = getattr(caching, "CacheImpl", None) or caching._CacheImpl


class _PackageCacheLocator(_UserProvidedCacheLocator):
    """numba's locator for ``numba.config.CACHE_DIR``, filing a kernel under
    :func:`cache_subfolder` instead of a hash of its module's absolute path."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(
            numba.config.CACHE_DIR, cache_subfolder(py_file, _KERNEL_PACKAGES)
        )

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.exists(py_file) or cache_subfolder(py_file, _KERNEL_PACKAGES) is None:
            return None  # numba's own locators take it
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        # The bytes, not the time (which older numba releases used): a fresh clone's files are new.
        stat = os.stat(self._py_file)
        return _source_hash(self._py_file, stat.st_mtime_ns, stat.st_size)


_KERNEL_PACKAGES = (Path(__file__).parent, *_extra_game_folders())

# Read by numba when each kernel below is decorated, so it must be set before any of them.
numba.config.CACHE_DIR = str(
    cache_directory(_KERNEL_PACKAGES[0], _cache_root(), _KERNEL_PACKAGES[1:])
)
if _PackageCacheLocator not in _CacheImpl._locator_classes:
    _CacheImpl._locator_classes.insert(0, _PackageCacheLocator)


def kernel(function=None, **options):
    """``numba.njit`` with the project's settings: cached, GIL released."""
    settings = {"cache": True, "nogil": True, **options}
    if function is None:
        return numba.njit(**settings)
    return numba.njit(**settings)(function)


def inline_kernel(function=None, **options):
    """A kernel numba inlines into each caller (``inline="always"``): a game's interface
    functions and their dispatch, the search's hottest calls, one call deep instead of three."""
    return kernel(function, inline="always", **options)


def parallel_kernel(function=None, **options):
    """A kernel with ``parallel=True`` (``numba.prange`` loops)."""
    return kernel(function, parallel=True, **options)
