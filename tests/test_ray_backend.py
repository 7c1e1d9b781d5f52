"""The Ray backend on a real Ray instance, started and stopped here, loopback only: a match and
two training generations give bit-identical results on Ray and on this machine; a unit whose
worker process is killed runs again and the match is unchanged; a cluster of three nodes
(simulated on this machine) spreads a match over all of them, and a node lost mid-match is
reported while the match still ends as it would have."""

from __future__ import annotations

import operator
import os
import signal
from functools import cache

import numpy as np
import pytest

pytestmark = pytest.mark.ray

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # before Ray is imported: loopback only
if os.environ.get("CI"):
    import ray  # CI installs Ray with the test extra: a missing one fails, it is not skipped
else:
    ray = pytest.importorskip("ray")

from samuel.backends import LocalBackend  # noqa: E402
from samuel.evaluation.networks import random_network  # noqa: E402
from samuel.games import get_game  # noqa: E402
from samuel.games.kernels import EVALUATOR_NETWORK  # noqa: E402
from samuel.match.head_to_head import MatchResult, play_match  # noqa: E402
from samuel.ray_backend import RayBackend, connect  # noqa: E402
from samuel.train.config import TrainConfig  # noqa: E402
from samuel.train.loop import train  # noqa: E402
from samuel.train.matches import training_match  # noqa: E402
from samuel.train.selfplay import (  # noqa: E402
    SelfPlaySettings,
    play_selfplay,
    play_selfplay_parts,
)
from tests.ray_cluster import LOOPBACK, RayInstances, UnitWatcher, raylet_pid  # noqa: E402

# Pairs of a few tenths of a second each: long enough that a worker can be caught running one.
FIRST, SECOND = "classic:depth=6", "classic:depth=5"
GAMES = 12
SEED = 11


@pytest.fixture(scope="module")
def instances():
    held = RayInstances()
    try:
        yield held
    finally:
        held.close()


@cache
def local_match() -> MatchResult:
    """The match played in this process (which compiles and caches every kernel the Ray
    workers then load)."""
    return play_match(FIRST, SECOND, GAMES, seed=SEED)


def ray_match(backend: RayBackend) -> MatchResult:
    return play_match(FIRST, SECOND, GAMES, seed=SEED, backend=backend)


def assert_same_match(result: MatchResult, expected: MatchResult) -> None:
    assert result.pairs == expected.pairs  # every game's moves, result and termination
    assert result.statistics == expected.statistics
    assert result.score == expected.score


# --- the private instance -------------------------------------------------------------------


@pytest.mark.slow
def test_connect_starts_a_private_instance_on_the_loopback_interface(instances, monkeypatch):
    instances.close()
    # A private instance, even where another cluster runs on this machine (ray.init() would
    # join the one RAY_ADDRESS or `ray start` names).
    monkeypatch.setenv("RAY_ADDRESS", f"{LOOPBACK}:1")
    backend = instances.private(cpus=2)
    assert connect() is backend
    nodes = backend.nodes()
    assert len(nodes) == 1 and nodes[0].alive
    assert [node.address for node in nodes] == [LOOPBACK]
    assert ray.get_runtime_context().gcs_address.startswith(f"{LOOPBACK}:")
    assert backend.cpus() == 2
    assert len(backend.parts(10)) == 8  # four units a CPU
    assert backend.parts(3) == [range(0, 1), range(1, 2), range(2, 3)]


@pytest.mark.slow
def test_a_match_on_ray_is_the_match_played_here(instances):
    expected = local_match()
    backend = instances.private()
    with UnitWatcher({os.getpid()}) as watcher:
        result = ray_match(backend)
    assert_same_match(result, expected)
    assert len(backend.unit_nodes) == GAMES // 2  # every pair ran as a unit on Ray
    assert set(backend.unit_nodes) == {backend.nodes()[0].id}
    assert len(watcher.seen) >= 2, "the two CPUs' units ran in one worker process"
    assert backend.lost_nodes == []


def test_an_early_stop_on_ray_stops_after_the_same_unit_as_here(instances):
    backend = instances.private()
    units = list(range(12))

    def stop_at_five(told):
        def after(done):
            told.append(list(done))
            return len(done) == 5

        return after

    # operator.mul(shared, unit): a function every worker imports by name
    here, on_ray = [], []
    expected = LocalBackend(2).run(operator.mul, units, 3, stop_at_five(here))
    assert expected == [0, 3, 6, 9, 12]
    assert backend.run(operator.mul, units, 3, stop_at_five(on_ray)) == expected
    assert on_ray == here == [[3 * unit for unit in range(k)] for k in range(1, 6)]
    assert len(backend.unit_nodes) == 5
    assert backend.run(operator.mul, units, shared=2) == [2 * unit for unit in units]
    assert backend.run(operator.mul, [], shared=3) == []


@pytest.mark.slow
def test_a_unit_whose_worker_is_killed_runs_again_and_the_match_is_unchanged(instances):
    expected = local_match()
    backend = instances.private()
    with UnitWatcher({os.getpid()}, strike=lambda pid, _: os.kill(pid, signal.SIGKILL)) as killer:
        result = ray_match(backend)
    assert killer.struck is not None, "no worker was seen running a unit, so none was killed"
    assert_same_match(result, expected)
    assert len(backend.unit_nodes) == GAMES // 2


@pytest.mark.slow
def test_ray_failing_mid_run_keeps_the_units_finished_and_leaves_ray(instances, monkeypatch):
    """Ray itself failing while units run (its raylet died: LocalRayletDiedError, as when its
    dashboard agent is killed) is a RunInterrupted holding the units finished, in unit order,
    each of them handed to ``after`` first; the broken instance is left. (Before: Ray's
    exception, and every finished unit lost.)"""
    from samuel import ray_backend
    from samuel.backends import RunInterrupted

    backend = instances.private()
    real_get = ray.get
    got = []

    def failing_get(ref, *args, **kwargs):
        if len(got) == 3:
            raise ray.exceptions.LocalRayletDiedError()
        got.append(ref)
        return real_get(ref, *args, **kwargs)

    told = []
    monkeypatch.setattr(ray_backend.ray, "get", failing_get)
    try:
        with pytest.raises(RunInterrupted, match="LocalRayletDiedError") as caught:
            backend.run(operator.mul, list(range(12)), 3, lambda done: told.append(list(done)))
    finally:
        monkeypatch.undo()
        still_connected = ray.is_initialized()
        instances.close()
    done = caught.value.done
    assert len(done) <= 3 and done == [3 * unit for unit in range(len(done))]
    assert told == [done[:k] for k in range(1, len(done) + 1)]
    assert caught.value.total == 12
    assert f"{len(done)} of 12 units had finished" in str(caught.value)
    assert not still_connected and ray_backend._connected is None


@pytest.mark.slow
def test_two_training_generations_on_ray_are_those_trained_here(instances, tmp_path):
    def run(folder, backend):
        config = TrainConfig(
            generations=2,
            games=16,
            out_dir=str(tmp_path / folder),
            depth=2,
            ply_cap=60,
            match_every=1,
            match_games=4,
            workers=1,
        )
        rows = []
        params = train(
            config,
            rows.append,
            play_match=training_match(config, backend),
            log=lambda line: None,
            backend=backend,
        )
        return params, rows

    here, here_rows = run("here", None)  # first: compiles the kernels the workers load
    backend = instances.private()
    on_ray, ray_rows = run("ray", backend)
    assert backend.unit_nodes  # the last match's pairs ran on Ray
    assert on_ray.tobytes() == here.tobytes()
    for generation in ("gen-001.bin", "gen-002.bin", "latest.bin"):
        assert (tmp_path / "ray" / generation).read_bytes() == (
            tmp_path / "here" / generation
        ).read_bytes()
    untimed = ("train_seconds", "seconds")
    for row, expected in zip(ray_rows, here_rows, strict=True):
        assert row.vs_previous is not None and row.vs_classic is not None  # matches were played
        for key, value in vars(expected).items():
            if key not in untimed:  # a loss is NaN on a pool with no sample: NaN == NaN here
                np.testing.assert_equal(getattr(row, key), value, err_msg=key)


def test_self_play_parts_share_one_copy_of_the_network_and_give_the_games_played_here(
    instances, monkeypatch
):
    rules = get_game("tigers")
    params = random_network(rules.number, 5)
    root = rules.encode(rules.initial_position())
    seeds = np.arange(100, 120, dtype=np.int64)
    settings = SelfPlaySettings(rules.number, EVALUATOR_NETWORK, params, root, 1, 4, 0.1, 80)
    here = play_selfplay(settings, seeds)
    backend = instances.private()
    puts = []
    real_put = ray.put
    monkeypatch.setattr(ray, "put", lambda value, **kw: puts.append(value) or real_put(value, **kw))
    parts = play_selfplay_parts(backend, settings, seeds)
    assert len(parts) == len(backend.parts(len(seeds))) > 1
    assert len(puts) == 1  # the network (and settings) once a run, not once a unit
    assert puts[0].params is params
    for name in ("positions", "scores", "random_moves", "plies", "results"):
        joined = np.concatenate([getattr(part, name) for part in parts])
        np.testing.assert_array_equal(joined, getattr(here, name), err_msg=name)


# --- a cluster of three nodes, simulated on this machine ------------------------------------


@pytest.mark.slow
def test_a_three_node_cluster_spreads_a_match_over_every_node(instances):
    expected = local_match()
    cluster, backend = instances.cluster(nodes=3)
    nodes = backend.nodes()
    assert len(nodes) == 3 and all(node.alive for node in nodes)
    assert {node.address for node in nodes} == {LOOPBACK}
    assert backend.cpus() == 3
    result = ray_match(backend)
    assert_same_match(result, expected)
    assert len(backend.unit_nodes) == GAMES // 2
    assert set(backend.unit_nodes) == {node.id for node in nodes}  # three distinct nodes
    assert backend.lost_nodes == []


@pytest.mark.slow
def test_a_node_lost_mid_match_is_reported_and_the_match_is_unchanged(instances):
    expected = local_match()
    cluster, backend = instances.cluster(nodes=3)
    lines = []
    reporting = RayBackend(report=lines.append)
    workers = {raylet_pid(node): node for node in cluster.worker_nodes}

    def remove(pid, raylet):
        cluster.remove_node(workers[raylet])

    with UnitWatcher(set(workers), strike=remove) as watcher:
        result = ray_match(reporting)
    assert watcher.struck is not None, "no unit was seen running on a worker node"
    lost = workers[watcher.struck[1]]
    assert_same_match(result, expected)
    assert [node.id for node in reporting.lost_nodes] == [lost.node_id]
    assert len(lines) == 1 and lost.node_id[:12] in lines[0] and "lost" in lines[0]
    assert lost.node_id not in {node.id for node in reporting.nodes() if node.alive}
