"""Issue 38's second pass, the running program's part: each reproducer of the issue, made a test.

- ``samuel serve --tablebase`` with another game's table (one built for fewer captures) is
  refused at start-up, as the command line refuses it, instead of answering 500 later;
- a network file with huge finite weights (±3e38, whose forward pass overflows) is refused by
  every loader of networks, and an evaluation that is not a finite number is an error, never a
  wrong answer ("the game is over in this position");
- OpenSpiel's bots in the server stop at the server's time cap as every search there does;
- ``samuel serve`` refuses a port TCP has not, a missing weights dir and a port in use in one
  line, and says where to look only once it listens;
- a spec's ``time`` is honoured where a command gives a default depth (``samuel analyse``);
- a match whose Ray instance dies keeps the games played, marked incomplete, and says so in one
  line.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from samuel import cli
from samuel.errors import CommandError, SamuelError
from samuel.evaluation.networks import (
    random_network,
    random_zero_network,
    save_network,
    save_zero_network,
)
from samuel.games import get_game
from samuel.games import kernels as game_kernels
from samuel.games.game import Game
from samuel.games.record import read_records
from samuel.nn.phased import phase_networks
from samuel.nn.shape import PLAN
from samuel.nn.weights import (
    LARGEST_WEIGHT,
    PhasedFile,
    WeightsFileError,
    read_network,
    read_weights,
)
from samuel.players import EvaluationError, PlayerSpecError, SearchPlayer, make_player

TIGERS = get_game("tigers")
HUGE = 3e38  # finite in float32, and far past any weight a trained network has
TEST_HOST = "testserver"
SUBPROCESS_SECONDS = 300


def web_client(**options):
    """A test client of the server (FastAPI is the web extra)."""
    pytest.importorskip("fastapi")
    from samuel.web.app import create_app

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from fastapi.testclient import TestClient
    return TestClient(create_app(allowed_hosts=[TEST_HOST], **options))


def one_line_error(capsys, *phrases: str) -> str:
    """The error ``samuel`` printed: one line on standard error, holding every phrase."""
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err, err
    for phrase in phrases:
        assert phrase in err, err
    return err


@pytest.fixture
def no_serving(monkeypatch):
    """``samuel serve`` runs up to the point of serving, then returns: what it would have
    served is recorded (before the fixes it went on to serve, and a test must not hang)."""
    pytest.importorskip("uvicorn")
    import uvicorn

    served = {}

    def run(server, sockets=None):
        served.update(app=server.config.app, ports=[s.getsockname()[1] for s in sockets])
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.update(app=app, **options))
    # uvicorn's logging set-up closes the handlers already there, among them absl's (OpenSpiel
    # imports it) writing to pytest's captured standard error: it is not what is tested here.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda config: None)
    return served


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- 5. a tablebase of another game is refused when the server starts ------------------------


@pytest.fixture(scope="module")
def one_capture_table(tmp_path_factory):
    """The tablebase of the game won by one capture (seconds to build): not Tigers & Sheep's."""
    from samuel.tablebase.build import build

    folder = tmp_path_factory.mktemp("tablebase") / "k1"
    build(folder, 1, progress=False, log=lambda line: None)
    return folder


def test_a_table_of_fewer_captures_is_refused_when_the_server_starts(one_capture_table):
    pytest.importorskip("fastapi")
    from samuel.web.app import create_app

    # Before, the server started, and a movement-phase position then answered 500.
    with pytest.raises(CommandError, match="won by 1 capture; this server plays Tigers & Sheep"):
        create_app(tablebase_dir=one_capture_table)


def test_samuel_serve_with_a_table_of_fewer_captures_is_one_line(
    one_capture_table, no_serving, capsys
):
    status = cli.main(["serve", "--tablebase", str(one_capture_table), "--port", str(free_port())])
    assert status == 2 and not no_serving
    one_line_error(capsys, "won by 1 capture")
    # The command line refuses the same table for the same reason.
    assert cli.main(["analyse", "start", "--tablebase", str(one_capture_table)]) == 2
    one_line_error(capsys, "won by 1 captures")


# --- 8. networks whose weights overflow ------------------------------------------------------


def huge(params: np.ndarray) -> np.ndarray:
    """The network ``params`` with every weight ±HUGE (its plan kept): finite, and every
    evaluation overflows."""
    signs = np.where(np.arange(len(params) - PLAN) % 2 == 0, 1.0, -1.0)
    return np.concatenate([params[:PLAN], (signs * HUGE).astype(np.float32)])


@pytest.fixture(scope="module")
def huge_files(tmp_path_factory):
    """A value network, one with the moves-left head, and a Zero network, each with huge
    weights, in one folder (a server's weights dir)."""
    folder = tmp_path_factory.mktemp("huge")
    game = TIGERS.number
    files = {
        "value": folder / "huge.bin",
        "moves_left": folder / "huge-moves-left.bin",
        "zero": folder / "huge-zero.bin",
    }
    save_network(huge(random_network(game, 1)), files["value"], game)
    save_network(huge(random_network(game, 1, moves_left=True)), files["moves_left"], game)
    save_zero_network(huge(random_zero_network(game, 1)), files["zero"], game)
    return files


@pytest.mark.parametrize("kind", ["value", "moves_left", "zero"])
def test_a_file_of_huge_weights_is_refused_with_the_reason(huge_files, kind):
    with pytest.raises(WeightsFileError, match=r"magnitude 3e\+38, past the largest"):
        read_network(huge_files[kind])


@pytest.mark.parametrize(
    "spec",
    [
        "{value}",
        "{value}:depth=2",
        "hybrid:net={value}",
        "{moves_left}:moves_left=on",
        "zero:net={zero}",
        "zero:sheep_net={zero}",
    ],
)
def test_every_player_that_loads_a_network_refuses_huge_weights(huge_files, spec):
    spec = spec.format(**{kind: str(path) for kind, path in huge_files.items()})
    with pytest.raises(PlayerSpecError, match="past the largest a network may have"):
        make_player(spec, TIGERS)


def test_the_shipped_networks_are_within_the_bound():
    folder = Path(__import__("samuel.nn", fromlist=["x"]).__file__).parent
    shipped = sorted(folder.glob("*.bin"))
    assert len(shipped) >= 4
    for path in shipped:
        loaded = read_weights(path)
        phased = isinstance(loaded, PhasedFile)
        networks = phase_networks(loaded.array) if phased else [loaded.array]
        for network in networks:
            assert np.max(np.abs(network[PLAN:])) < LARGEST_WEIGHT / 100, path


def test_analyse_with_huge_weights_is_one_line(huge_files, capsys):
    # Before: "the game is over in this position", a ValueError's traceback.
    assert cli.main(["analyse", "start", "--player", str(huge_files["value"])]) == 2
    one_line_error(capsys, "weights file", "past the largest")


def test_the_server_refuses_huge_weights_with_a_400(huge_files):
    with web_client(weights_dir=huge_files["value"].parent) as client:
        for spec in (str(huge_files["value"]), f"zero:net={huge_files['zero']},sims=50"):
            answer = client.post("/api/analyse", json={"player": spec, "depth": 2})
            assert answer.status_code == 400, answer.text  # before: 500
            assert "past the largest" in answer.json()["detail"]
        game = client.post("/api/games", json={"players": {"sheep": "human"}}).json()
        answer = client.post(
            f"/api/games/{game['id']}/engine-move", json={"player": str(huge_files["value"])}
        )
        assert answer.status_code == 400 and "past the largest" in answer.json()["detail"]


def test_an_evaluation_that_is_not_a_number_is_an_error_not_a_move():
    """Parameters made in memory (no file to check) whose evaluation overflows: the search says
    so rather than that the game is over, or a move chosen from NaN scores."""
    network = SearchPlayer(
        TIGERS,
        game_kernels.EVALUATOR_NETWORK,
        huge(random_network(TIGERS.number, 2)),
        depth=3,
        spec="overflowing",
    )
    with pytest.raises(EvaluationError, match="no finite score"):
        network.choose_move(Game(TIGERS))
    assert network.last is None
    classic = make_player("classic:depth=3", TIGERS)
    classic.params = np.full_like(classic.params, HUGE)
    with pytest.raises(EvaluationError, match="no finite score"):
        classic.search(Game(TIGERS))


def test_a_zero_network_whose_evaluation_overflows_is_an_error():
    player = make_player("zero:sims=20", TIGERS)
    player.params = huge(player.params)
    with pytest.raises(EvaluationError, match="no finite score"):
        player.choose_move(Game(TIGERS))


def test_classic_weights_that_overflow_are_one_line(tmp_path, capsys):
    from samuel.games.tigers.classic import FEATURES

    weights = tmp_path / "huge.json"
    weights.write_text(json.dumps({"weights": dict.fromkeys(FEATURES, HUGE)}))
    status = cli.main(["analyse", "start", "--player", f"classic:weights={weights}"])
    assert status == 2
    one_line_error(capsys, "no finite score")


# --- 10. OpenSpiel's bots stop at the server's time cap --------------------------------------


def spiel():
    if os.environ.get("CI"):
        import pyspiel  # noqa: F401  (CI installs OpenSpiel: missing is a failure there)
    else:
        pytest.importorskip("pyspiel")


def test_the_server_gives_openspiel_bots_its_time_cap():
    spiel()
    pytest.importorskip("fastapi")
    from samuel.web.schemas import MAX_SEARCH_SECONDS
    from samuel.web.specs import player_for

    for spec in ("spiel-mcts:sims=1000", "spiel-ab:depth=4"):
        assert player_for(spec, None).seconds == MAX_SEARCH_SECONDS
        assert make_player(spec, TIGERS).seconds is None  # elsewhere: bounded by work alone


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_a_timed_mcts_bot_stops_at_its_time(game):
    spiel()
    rules = get_game(game)
    player = make_player("spiel-mcts:sims=3000", rules)  # untimed, 10 s a move or more
    player.seconds = 0.2
    player.choose_move(Game(rules))  # imports OpenSpiel's MCTS, loads the game
    started = time.perf_counter()
    move = player.choose_move(Game(rules))
    assert time.perf_counter() - started < 5
    assert move in Game(rules).legal_moves()
    assert 2 <= player.last_simulations < 3000


def test_a_timed_alpha_beta_keeps_its_deepest_finished_search():
    spiel()
    player = make_player("spiel-ab:depth=6", TIGERS)  # depth 6: 4 to 6 s in the placement phase
    player.seconds = 0.2
    started = time.perf_counter()
    move = player.choose_move(Game(TIGERS))
    assert time.perf_counter() - started < 4
    assert 1 <= player.last_depth < 6
    shallower = make_player(f"spiel-ab:depth={player.last_depth}", TIGERS)
    assert move == shallower.choose_move(Game(TIGERS))  # the same search, to the depth reached


@pytest.mark.slow
@pytest.mark.anyio
async def test_four_mcts_moves_at_once_each_end_near_the_cap(monkeypatch):
    """Four sims=1000 engine moves at once took 35 s each (the bots share the GIL), past the
    10 s cap; with the cap at 0.5 s here, each ends soon after it."""
    spiel()
    pytest.importorskip("fastapi")
    import httpx

    from samuel.web import specs
    from samuel.web.app import create_app

    monkeypatch.setattr(specs, "MAX_SEARCH_SECONDS", 0.5)
    app = create_app(allowed_hosts=[TEST_HOST])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{TEST_HOST}") as client:
        players = {"tigers": "human", "sheep": "spiel-mcts:sims=1000"}
        games = [
            (await client.post("/api/games", json={"players": players, "seed": seed})).json()
            for seed in range(4)
        ]

        async def engine_move(game) -> float:
            started = time.perf_counter()
            answer = await client.post(f"/api/games/{game['id']}/engine-move")
            assert answer.status_code == 200, answer.text
            return time.perf_counter() - started

        seconds = await asyncio.gather(*(engine_move(game) for game in games))
    assert max(seconds) < 8, seconds


# --- 11. samuel serve's port, weights dir, and a port in use ---------------------------------


def test_a_port_tcp_has_not_is_refused(no_serving, capsys):
    # Before: it printed http://127.0.0.1:99999/ and listened on 99999 - 65536 = 34463.
    assert cli.main(["serve", "--port", "99999"]) == 2 and not no_serving
    one_line_error(capsys, "--port must be between 1 and 65535, not 99999")
    with pytest.raises(SystemExit) as exit_status:  # 0, "any free port", is not offered
        cli.main(["serve", "--port", "0"])
    assert exit_status.value.code == 2


def test_a_missing_weights_dir_is_one_line(no_serving, capsys, tmp_path):
    # Before: a ValueError's traceback.
    assert cli.main(["serve", "--weights-dir", "/nonexistent"]) == 2 and not no_serving
    one_line_error(capsys, "--weights-dir /nonexistent does not exist")
    (tmp_path / "file").write_text("")
    assert cli.main(["serve", "--weights-dir", str(tmp_path / "file")]) == 2
    one_line_error(capsys, "is not a folder")


def test_a_port_in_use_is_one_line_and_nothing_is_announced(no_serving, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--port", str(port)]) == 2 and not no_serving
    err = capsys.readouterr()
    assert f"port {port} on 127.0.0.1 is in use" in err.err and "Traceback" not in err.err
    assert "open http" not in err.out


@pytest.mark.slow
def test_samuel_serve_on_a_port_in_use_says_so_in_one_line():
    """The real command: before, uvicorn's own '[Errno 98] error while attempting to bind',
    after 'open http://...' had been printed."""
    pytest.importorskip("uvicorn")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "-m", "samuel.cli", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=SUBPROCESS_SECONDS,
        )
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip() == (
        f"samuel serve: error: port {port} on 127.0.0.1 is in use (another server listens "
        "there; try --port)"
    )
    assert "open http" not in run.stdout


def test_samuel_serve_announces_the_port_it_listens_on(no_serving, capsys):
    port = free_port()
    assert cli.main(["serve", "--port", str(port)]) in (0, None)
    assert no_serving["ports"] == [port]
    assert f"open http://127.0.0.1:{port}/" in capsys.readouterr().out


# --- 14. a spec's time where a command gives a default depth ---------------------------------


def test_a_specs_time_replaces_the_default_depth():
    player = make_player("classic:time=0.25", TIGERS, depth=6)
    assert player.seconds == 0.25 and player.depth > 6  # before: depth 6 stopped it first
    both = make_player("classic:time=0.25,depth=5", TIGERS, depth=6)
    assert (both.seconds, both.depth) == (0.25, 5)  # the spec's own depth still caps it
    default = make_player("classic", TIGERS, depth=6, seconds=2)
    assert (default.seconds, default.depth) == (2, 6)


@pytest.mark.slow
def test_analyse_honours_the_specs_time(capsys):
    cli.warm_up(TIGERS)
    assert cli.main(["analyse", "start", "--player", "classic:time=0.5"]) in (0, None)
    out = capsys.readouterr().out
    depth = int(next(line for line in out.splitlines() if line.startswith("depth")).split()[1])
    assert depth > 6, out  # before: 6, the default depth, after some 0.06 s


@pytest.mark.slow
def test_the_servers_analysis_honours_the_specs_time():
    with web_client() as client:
        answer = client.post("/api/analyse", json={"player": "classic:time=0.5"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["depth"] > 6


# --- 15. a match whose Ray instance dies -----------------------------------------------------


class FailingBackend:
    """Plays ``fail_after`` units here, then fails as Ray does when its raylet dies."""

    name = "ray"

    def __init__(self, fail_after: int) -> None:
        self.fail_after = fail_after

    def parts(self, count):
        return [range(count)]

    def run(self, function, units, shared=None, after=None):
        from samuel.backends import RunInterrupted

        done = []
        for unit in units[: self.fail_after]:
            done.append(function(shared, unit))
            if after is not None:
                after(done)
        raise RunInterrupted(
            "Ray failed during the run: LocalRayletDiedError (The task's local raylet died.); "
            f"{len(done)} of {len(units)} units had finished",
            done,
            len(units),
        )


def test_a_match_whose_backend_fails_keeps_the_games_played(monkeypatch, tmp_path, capsys):
    from samuel.match import commands

    monkeypatch.setattr(commands, "backend_of", lambda args, workers: FailingBackend(3))
    report, records = tmp_path / "report.json", tmp_path / "games.txt"
    status = cli.main(
        [
            "match", "classic:depth=2", "classic:depth=1", "--games", "20", "--no-progress",
            "--json", str(report), "--records", str(records),
        ]
    )  # fmt: skip
    assert status == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "the match stopped after 6 of 20 games (Ray failed during the run" in err
    assert "marked incomplete" in err and str(report) in err
    assert "INCOMPLETE MATCH: only 6 of 20 games were played" in out
    written = json.loads(report.read_text())
    assert written["games"] == 6 and "LocalRayletDiedError" in written["incomplete"]
    games = read_records(records)
    assert len(games) == 6
    assert all(("Match", "incomplete: 6 of 20 games played") in g.extra_tags for g in games)


def test_a_tournament_whose_backend_fails_is_one_line(monkeypatch, tmp_path, capsys):
    from samuel.match import commands

    monkeypatch.setattr(commands, "backend_of", lambda args, workers: FailingBackend(1))
    status = cli.main(
        [
            "tournament", "classic:depth=1", "classic:depth=2", "random", "--games", "2",
            "--no-progress", "--json", str(tmp_path / "t.json"),
            "--records", str(tmp_path / "t.txt"),
        ]
    )  # fmt: skip
    assert status == 2
    one_line_error(capsys, "the tournament stopped", "nothing was written")


def test_a_match_checkpoints_its_games_as_it_goes(tmp_path):
    """What a process that Ray ends outright leaves: the games played by the last checkpoint."""
    from samuel.match.head_to_head import play_match

    seen = []
    result = play_match("classic:depth=2", "classic:depth=1", 8, seed=3, checkpoint=seen.append)
    assert seen and seen[0].games == 2 and seen[0].pairs == result.pairs[:1]
    assert all(partial.incomplete.startswith("written during the match") for partial in seen)
    assert result.incomplete is None


def _descendants(root: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below ``root``."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(b")", 1)[1].split()[1])
        commands[int(entry.name)] = command.replace(b"\0", b" ").decode(errors="replace")
    found = []
    for pid in parents:
        above = parents.get(pid, 0)
        while above > 1 and above != root:
            above = parents.get(above, 0)
        if above == root:
            found.append((pid, commands[pid]))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds Ray's processes in /proc")
@pytest.mark.ray
def test_killing_rays_own_agent_mid_match_keeps_the_games_played(tmp_path):
    """A real private Ray instance: its dashboard agent is killed (the raylet, which shares its
    fate, dies with it) once the match has finished a pair. Before, the match ended with a
    LocalRayletDiedError traceback and wrote nothing. Now the games played are on disk, marked
    incomplete, whichever way Ray ends it: an exception the match answers in one line (status
    2), or Ray ending the process itself (then the last checkpoint is what is kept)."""
    if os.environ.get("CI"):
        import ray  # noqa: F401
    else:
        pytest.importorskip("ray")
    report, records = tmp_path / "report.json", tmp_path / "games.txt"
    command = [
        sys.executable, "-m", "samuel.cli", "match", "classic:depth=5", "classic:depth=4",
        "--games", "400", "--backend", "ray", "--workers", "2", "--no-progress",
        "--json", str(report), "--records", str(records),
    ]  # fmt: skip
    match = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + SUBPROCESS_SECONDS
        while not report.exists() and match.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert report.exists(), "the match wrote no checkpoint"
        agents = [pid for pid, line in _descendants(match.pid) if "DashboardAgent" in line]
        assert agents, _descendants(match.pid)
        for pid in agents:
            os.kill(pid, signal.SIGKILL)
        out, err = match.communicate(timeout=SUBPROCESS_SECONDS)
    finally:
        if match.poll() is None:
            match.kill()
            match.communicate()
    assert match.returncode != 0, out
    written = json.loads(report.read_text())
    assert 2 <= written["games"] < 400 and written["incomplete"]
    games = read_records(records)
    assert len(games) == written["games"]
    assert all(dict(g.extra_tags)["Match"].startswith("incomplete") for g in games)
    if match.returncode == 2:  # the match saw Ray fail: one line says what became of it
        said = [line for line in err.splitlines() if line.startswith("samuel match: error:")]
        assert len(said) == 1 and "Traceback" not in err, err
        stopped = f"samuel match: error: the match stopped after {written['games']} of 400"
        assert said[0].startswith(stopped)
        assert "marked incomplete" in said[0]
    else:  # Ray ended the process itself, as it may: no traceback of the match's
        assert "Traceback" not in err, err


def test_ray_errors_become_an_interrupted_run_with_the_units_done(monkeypatch):
    """The Ray backend's part, without Ray: its failure while units run keeps the results of
    the units finished, in unit order."""
    pytest.importorskip("ray")
    from samuel.backends import RunInterrupted
    from samuel.ray_backend import RayBackend

    assert issubclass(RunInterrupted, SamuelError)
    interrupted = RayBackend._interrupted(RuntimeError("line one\nline two"), [1, 2], 5)
    assert isinstance(interrupted, RunInterrupted)
    assert str(interrupted) == (
        "Ray failed during the run: RuntimeError (line one); 2 of 5 units had finished"
    )
    assert interrupted.done == [1, 2] and interrupted.total == 5
