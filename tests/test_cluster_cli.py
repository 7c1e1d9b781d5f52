"""`samuel cluster check` as a person runs it: a real process that starts its own private Ray
instance (loopback only), and clear errors for an address where no cluster answers."""

from __future__ import annotations

import os
import socket

import pytest

from tests.cli_process import samuel

pytestmark = pytest.mark.ray

if not os.environ.get("CI"):
    pytest.importorskip("ray")  # on CI, Ray is installed with the test extra: a missing one fails


@pytest.mark.slow
def test_check_lists_the_loopback_node_and_plays_the_same_games_on_it(tmp_path):
    run = samuel("cluster", "check", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "a private Ray instance on this machine (loopback only)" in out
    assert "1 live node(s)" in out
    node_lines = [line for line in out.splitlines() if line.startswith("  127.0.0.1")]
    assert len(node_lines) == 2  # listed, then its pair of games
    assert "same games as here" in node_lines[1]  # the pair and the self-play games
    assert out.rstrip().endswith("ready")
    # Ray's notice that it enabled token authentication is noise for a private instance
    assert "Token authentication" not in run.stderr


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # free once closed: nothing listens there


@pytest.mark.slow
@pytest.mark.parametrize(
    ("address", "message"),
    [
        (f"127.0.0.1:{_closed_port()}", "nothing answers at 127.0.0.1:"),
        ("no-port-here", "is not HOST:PORT"),
        ("127.0.0.1:99999", "is not HOST:PORT"),
    ],
)
def test_a_bad_address_is_one_clear_line_at_once(address, message, tmp_path):
    run = samuel("cluster", "check", "--ray-address", address, cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_an_address_without_the_ray_backend_is_refused(tmp_path):
    run = samuel("match", "random", "random", "--games", "2", "--ray-address", "auto", cwd=tmp_path)
    assert run.returncode == 2
    assert "--ray-address needs --backend ray" in run.stderr
