"""The Ray backend: Samuel's units of work as Ray tasks. The one module that imports Ray.

A run puts its shared input (a network, a batch of positions) in Ray's object store once and
passes the reference to every task, so it travels to each node once, not once per unit. Each
unit is a task that Ray retries when its worker process or node dies (``max_retries``); since a
unit carries its own seeds, a retried unit gives the same result, and the results are handed
back in unit order, so a match or a generation is bit-identical to the local backend's. A node
that dies during a run is reported (on standard error, and in :attr:`RayBackend.lost_nodes`),
not silently ignored.

Without an address, Samuel starts a private Ray instance on this machine that listens on the
loopback interface only (Ray otherwise binds the machine's network address); with one (``auto``
or ``HOST:PORT``), it joins the cluster started there by ``ray start`` (docs/cluster.md).
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from samuel.errors import SamuelError

RETRIES = 3  # how many times Ray runs a unit again after its worker or node died
NODE_CHECK_SECONDS = 1.0  # how often a run looks for lost nodes while it waits
# The logger of Ray's message that it enabled token authentication (silenced for a private one).
TOKEN_AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"

try:
    import ray  # noqa: E402  (after the setting below, when this module starts a private instance)
except ImportError:  # pragma: no cover - the extra is installed wherever the tests run
    ray = None


class ClusterError(SamuelError, RuntimeError):
    """The cluster cannot do the work: Ray is missing, the address answers nothing, or a unit
    failed on every retry. The message says which."""


@dataclass(frozen=True)
class Node:
    """One machine of the cluster, as Ray sees it."""

    id: str
    address: str
    cpus: float
    alive: bool


def _writeable(value):
    """``value`` with every read-only NumPy array in it (in tuples, lists and dicts) copied.

    Arrays that come out of Ray's object store are read-only views of it, and numba compiles a
    kernel again for a read-only argument type (tens of seconds on each node, and once more in
    its cache): a copy of a unit's inputs costs far less than its work."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return value if value.flags.writeable else value.copy()
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_writeable(item) for item in value)
    if isinstance(value, list):
        return [_writeable(item) for item in value]
    if isinstance(value, dict):
        return {key: _writeable(item) for key, item in value.items()}
    return value


def _run_unit(function, shared, unit):
    """One unit on a Ray worker: numba's threads limited to the CPUs Ray gave the task (the
    other CPUs of the node run other units), then ``function(shared, unit)`` and where it ran."""
    import numba

    context = ray.get_runtime_context()
    cpus = int(context.get_assigned_resources().get("CPU", 1)) or 1
    numba.set_num_threads(max(1, min(cpus, numba.config.NUMBA_NUM_THREADS)))
    return function(_writeable(shared), _writeable(unit)), context.get_node_id()


def _report(line: str) -> None:
    print(f"samuel: {line}", file=sys.stderr, flush=True)


class RayBackend:
    """Units as Ray tasks, on every node of the cluster this process is connected to."""

    name = "ray"

    def __init__(self, report: Callable[[str], None] = _report):
        self.report = report
        self.lost_nodes: list[Node] = []  # nodes that died during this backend's runs
        self.unit_nodes: list[str] = []  # the node id each unit of the last run finished on
        # SPREAD: Ray would otherwise favour the node that holds the shared input, and a run's
        # units could all queue on the head while the other nodes idle.
        self._task = ray.remote(
            max_retries=RETRIES, retry_exceptions=False, scheduling_strategy="SPREAD"
        )(_run_unit)

    def nodes(self) -> list[Node]:
        """Every node Ray knows of, alive or dead."""
        return [
            Node(
                id=entry["NodeID"],
                address=entry["NodeManagerAddress"],
                cpus=float(entry.get("Resources", {}).get("CPU", 0.0)),
                alive=bool(entry["Alive"]),
            )
            for entry in ray.nodes()
        ]

    def cpus(self) -> int:
        """The CPUs of the live nodes: how many units run at once."""
        return max(1, int(sum(node.cpus for node in self.nodes() if node.alive)))

    def parts(self, count: int) -> list[range]:
        from samuel.backends import split, unit_count

        return split(count, unit_count(count, self.cpus()))

    def _check_nodes(self, alive: dict[str, Node]) -> None:
        now = {node.id for node in self.nodes() if node.alive}
        for node_id in list(alive):
            if node_id not in now:
                node = alive.pop(node_id)
                self.lost_nodes.append(node)
                self.report(
                    f"Ray node {node.address} ({node.id[:12]}) was lost during the run; "
                    f"its units are run again on the other nodes (up to {RETRIES} times)"
                )

    def run(self, function, units, shared=None, after=None) -> list:
        if not units:
            return []
        alive = {node.id: node for node in self.nodes() if node.alive}
        # Once: every task gets the reference, not a copy. Nothing (a match's pairs) is not put:
        # an object in the store is one more thing for the driver to lose should Ray's own
        # processes die (the driver's attempt to recover it ends the process outright).
        shared_ref = None if shared is None else ray.put(shared)
        refs = [self._task.remote(function, shared_ref, unit) for unit in units]
        index = {ref: position for position, ref in enumerate(refs)}
        nodes: list[str | None] = [None] * len(units)
        waiting: dict[int, object] = {}
        done: list = []
        pending = list(refs)
        stopped = False
        last_check = time.monotonic()
        failed = False  # Ray failed after ``after`` had stopped the run: no more asking it

        def hand_on() -> bool:
            """Hand the results now in unit order to ``after``; True once it says stop."""
            while len(done) in waiting:
                done.append(waiting.pop(len(done)))
                if after is not None and after(done):
                    return True
            return False

        try:
            while pending and not stopped:
                try:
                    ready, pending = ray.wait(pending, num_returns=1, timeout=NODE_CHECK_SECONDS)
                    if ready and pending:  # and every other unit finished by now: one look
                        more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
                        ready += more
                    for ref in ready:
                        try:
                            result, node = ray.get(ref)
                        except (
                            ray.exceptions.WorkerCrashedError,
                            ray.exceptions.NodeDiedError,
                        ) as error:
                            raise ClusterError(
                                f"unit {index[ref]} failed on every one of its {RETRIES + 1} "
                                f"tries: {type(error).__name__}"
                            ) from error
                        waiting[index[ref]] = result
                        nodes[index[ref]] = node
                    stopped = hand_on()
                    if time.monotonic() - last_check >= NODE_CHECK_SECONDS or not ready:
                        self._check_nodes(alive)
                        last_check = time.monotonic()
                except (ClusterError, ray.exceptions.RayError, ConnectionError) as error:
                    if isinstance(error, ray.exceptions.RayTaskError):
                        raise  # the unit's own code raised: a bug, shown as one
                    # Ray itself failed (its raylet or agent died, say): the units finished so
                    # far are kept, in unit order, for the caller to keep what it can.
                    if stopped or hand_on():
                        failed = True  # ``after`` stopped the run with what had finished
                        break
                    pending = []  # nothing left to cancel: Ray is being left
                    interrupted = self._interrupted(error, done, len(units))
                    _leave()  # its log lines would come after the caller's last word
                    raise interrupted from error
        finally:
            for ref in pending:
                try:
                    ray.cancel(ref)
                except (ray.exceptions.RayError, ConnectionError):  # Ray is gone already
                    pass
        if not failed:
            self._check_nodes(alive)  # a node lost since the last look, its units already rerun
        self.unit_nodes = [node for node in nodes[: len(done)]]
        return done

    @staticmethod
    def _interrupted(error: Exception, done: list, total: int):
        """The :class:`~samuel.backends.RunInterrupted` that says, in one line, how Ray failed
        and how many units had finished."""
        from samuel.backends import RunInterrupted

        if isinstance(error, ClusterError):
            what = str(error)
        else:
            first_line = " ".join(str(error).split("\n", 1)[0].split())[:200]
            what = f"{type(error).__name__}" + (f" ({first_line})" if first_line else "")
        return RunInterrupted(
            f"Ray failed during the run: {what}; {len(done)} of {total} units had finished",
            done,
            total,
        )

    def run_on_each_node(self, function, unit) -> list[tuple[Node, object, float]]:
        """``function(None, unit)`` once on every live node, pinned there: (node, result,
        seconds the task took, start to finish as seen from here)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        answers = []
        for node in [node for node in self.nodes() if node.alive]:
            started = time.perf_counter()
            pinned = self._task.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node.id, soft=False)
            )
            result, ran_on = ray.get(pinned.remote(function, None, unit))
            if ran_on != node.id:
                raise ClusterError(f"a task pinned to node {node.id[:12]} ran on {ran_on[:12]}")
            answers.append((node, result, time.perf_counter() - started))
        return answers


_connected: RayBackend | None = None


def _leave() -> None:
    """Disconnect from a Ray instance that failed (stopping it, if it is this process's private
    one), so that a failed run ends quietly; a later :func:`connect` starts afresh."""
    global _connected
    _connected = None
    try:
        ray.shutdown()
    except Exception:  # noqa: BLE001 - Ray is broken already; leaving must not raise
        pass


PROBE_SECONDS = 5.0  # how long the head's port may take to answer before Samuel gives up


def _probe(address: str) -> None:
    """Refuse at once a ``HOST:PORT`` where nothing listens: Ray itself keeps retrying for
    minutes. ``auto`` is the cluster ``ray start`` last began on this machine, as Ray records it
    (read with Ray's own function, which is not public API: where it is missing, no probe)."""
    if address == "auto":
        find = getattr(ray._private.services, "canonicalize_bootstrap_address_or_die", None)
        if find is None:
            return
        try:
            address = find("auto")
        except ConnectionError:
            raise ClusterError(
                "--ray-address auto: no Ray cluster was started on this machine (ray start --head)"
            ) from None
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"--ray-address {address!r} is not HOST:PORT (e.g. 10.0.0.1:6379)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ClusterError(
            f"nothing answers at {address} ({reason}): is `ray start --head` running there?"
        ) from None


def connect(address: str | None = None, cpus: int | None = None) -> RayBackend:
    """The Ray backend of this process, connecting on first use: to the cluster at ``address``
    (``auto``: the one ``ray start`` began on this machine), or to a private instance on this
    machine, loopback only, with ``cpus`` CPUs (every core if None). A process that already
    called ``ray.init`` (a test's cluster) keeps its connection."""
    global _connected
    if ray is None:
        raise ClusterError("the Ray backend needs Ray: pip install 'samuel[ray]'")
    if _connected is not None and ray.is_initialized():
        return _connected
    if not ray.is_initialized():
        settings = {"include_dashboard": False, "logging_level": "WARNING"}
        if address is not None:
            _probe(address)
        try:
            if address is None:
                # A private instance serves this process only: nothing outside the machine may
                # reach it. Ray binds the loopback interface only where it thinks clusters
                # cannot run, which this setting (read when Ray starts its processes) says.
                os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
                ray._private.ray_constants.ENABLE_RAY_CLUSTER = False
                # Ray announces on every start that it enabled token authentication; for a
                # private instance the news is noise (it stays enabled: only the message goes).
                logging.getLogger(TOKEN_AUTH_LOGGER).setLevel(logging.ERROR)
                # "local": a new instance even where ``ray start`` runs one on this machine
                # (ray.init() without an address would join that cluster instead).
                ray.init(address="local", num_cpus=cpus or os.cpu_count() or 1, **settings)
            else:
                ray.init(address=address, **settings)
        except (ConnectionError, RuntimeError, ValueError) as error:
            where = address or "a private instance on this machine"
            raise ClusterError(f"cannot connect to Ray at {where}: {error}") from error
    _connected = RayBackend()
    return _connected
