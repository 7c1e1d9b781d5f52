"""Real Ray instances for the tests, on this machine's loopback interface only.

:class:`RayInstances` holds one Ray instance at a time (a process can be connected to one only):
the private instance :func:`samuel.ray_backend.connect` starts, or a cluster of several nodes
simulated on this machine (Ray's ``cluster_utils.Cluster``). :class:`UnitWatcher` looks, from a
thread, at the Ray worker processes of this test process while they run units (their process
title is ``ray::_run_unit``) and can strike one of them (kill its process, remove its node) the
moment a unit runs there. It only ever touches processes that descend from this test process.

Importing this module sets ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` before Ray is imported:
otherwise Ray binds the machine's network address, and a driver cannot reach a loopback cluster.
"""

from __future__ import annotations

import os

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # before Ray is imported: loopback only

import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import ray  # noqa: E402
from ray._private import ray_constants  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from samuel import ray_backend  # noqa: E402
from samuel.ray_backend import RayBackend  # noqa: E402

LOOPBACK = "127.0.0.1"
UNIT_TITLE = "ray::_run_unit"  # a Ray worker's process title while it runs one of Samuel's units
NODE_MEMORY = 80 * 2**20  # each simulated node's object store: small, the machine is shared
WAIT_SECONDS = 120  # the longest a watcher waits for a unit to run


def loopback_only() -> None:
    """Keep Ray on the loopback interface even if it was imported before this module: the
    setting is read from the environment by Ray's processes and from this constant here."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False


def disconnect() -> None:
    """Leave the Ray instance this process is connected to (Samuel's backend with it)."""
    ray.shutdown()
    ray_backend._connected = None


class RayInstances:
    """One Ray instance at a time, started when a test first asks for it and kept for the
    next: :meth:`private` or :meth:`cluster`; asking for the other kind stops this one."""

    def __init__(self) -> None:
        self.kind: str | None = None
        self.simulated: Cluster | None = None
        self.backend: RayBackend | None = None

    def private(self, cpus: int = 2) -> RayBackend:
        """Samuel's backend on the private instance ``connect()`` starts, with ``cpus`` CPUs."""
        if self.kind != "private":
            self.close()
            loopback_only()
            self.backend = ray_backend.connect(cpus=cpus)
            self.kind = "private"
        return self.backend

    def cluster(self, nodes: int = 3) -> tuple[Cluster, RayBackend]:
        """A cluster simulated on this machine, ``nodes`` nodes of one CPU each (a head and
        ``nodes - 1`` workers; nodes that a test removed are replaced), and Samuel's backend
        connected to it."""
        if self.kind != "cluster":
            self.close()
            loopback_only()
            settings = {
                "num_cpus": 1,
                "object_store_memory": NODE_MEMORY,
                "node_ip_address": LOOPBACK,
            }
            self.simulated = Cluster(
                initialize_head=True, head_node_args={**settings, "include_dashboard": False}
            )
            self.kind = "cluster"
            try:
                ray.init(address=self.simulated.address, logging_level="WARNING")
                self.backend = ray_backend.connect()
            except BaseException:
                self.close()
                raise
        missing = nodes - 1 - len(self.simulated.worker_nodes)
        for _ in range(missing):
            self.simulated.add_node(
                num_cpus=1, object_store_memory=NODE_MEMORY, node_ip_address=LOOPBACK
            )
        if missing > 0:
            self.simulated.wait_for_nodes()
        return self.simulated, self.backend

    def close(self) -> None:
        if self.kind is None:
            return
        disconnect()
        if self.simulated is not None:
            self.simulated.shutdown()
        self.kind, self.simulated, self.backend = None, None, None


def raylet_pid(node) -> int:
    """The raylet process of a node (``ray._private.node.Node``): its workers' parent."""
    return node.all_processes[ray_constants.PROCESS_TYPE_RAYLET][0].process.pid


def _read(pid: int, name: str) -> bytes | None:
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes()
    except OSError:  # gone, or not ours to read
        return None


def _parent(pid: int) -> int:
    stat = _read(pid, "stat")
    if stat is None:
        return 0
    return int(stat.rsplit(b")", 1)[1].split()[1])  # the field after the state


def running_units(ancestors: set[int]) -> list[tuple[int, int]]:
    """The processes now running a unit that descend from one of ``ancestors``:
    (pid, the ancestor)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        command = _read(int(entry.name), "cmdline")
        if command is None or not command.startswith(UNIT_TITLE.encode()):
            continue
        pid = above = int(entry.name)
        while above > 1 and above not in ancestors:
            above = _parent(above)
        if above in ancestors:
            found.append((pid, above))
    return found


class UnitWatcher(threading.Thread):
    """Watches, from a thread, the units run by worker processes below ``ancestors`` (process
    ids: this test process, or a node's raylet): :attr:`seen` maps every process seen running a
    unit to its ancestor. With ``strike``, the first time a unit runs below one of ``targets``
    (some of the ancestors; all of them if None), ``strike(pid, ancestor)`` is called once and
    :attr:`struck` records (pid, ancestor); the watcher then stops."""

    def __init__(
        self,
        ancestors: set[int],
        strike: Callable[[int, int], None] | None = None,
        targets: set[int] | None = None,
    ):
        super().__init__(daemon=True)
        self.ancestors = set(ancestors)
        self.strike = strike
        self.targets = self.ancestors if targets is None else set(targets)
        self.seen: dict[int, int] = {}
        self.struck: tuple[int, int] | None = None
        self.error: BaseException | None = None
        self._stop_event = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        try:
            while not self._stop_event.is_set() and time.monotonic() < deadline:
                for pid, ancestor in running_units(self.ancestors):
                    self.seen[pid] = ancestor
                    if self.strike is not None and ancestor in self.targets:
                        self.strike(pid, ancestor)
                        self.struck = (pid, ancestor)
                        return
                time.sleep(0.005)
        except BaseException as error:  # handed to the test, which fails with it
            self.error = error

    def __enter__(self) -> UnitWatcher:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop_event.set()
        self.join(timeout=WAIT_SECONDS)
        if self.error is not None and exc_info[0] is None:
            raise self.error
