"""`samuel selfplay`, `samuel tune` and `samuel hillclimb` run as a person would."""

from __future__ import annotations

import pytest

from samuel.games.tigers import classic
from tests.cli_process import samuel


@pytest.mark.slow
def test_selfplay_then_tune_writes_weights_a_classic_player_plays(tmp_path):
    data, out = tmp_path / "d.npz", tmp_path / "tuned.json"
    run = samuel(
        "selfplay",
        "--games",
        "8",
        "--out",
        str(data),
        "--player",
        "classic:depth=1",
        "--workers",
        "1",
    )
    assert run.returncode == 0, run.stderr
    assert "8 games" in run.stdout and str(data) in run.stdout
    run = samuel("tune", str(data), "--out", str(out), "--iterations", "20", "--validation", "0.25")
    assert run.returncode == 0, run.stderr
    for label in ("sigmoid scale K", "baseline errors", "start weights", "tuned weights"):
        assert label in run.stdout, label
    assert classic.load_weights(out)[0] == 1.0
    run = samuel("analyse", "start", "--depth", "2", "--player", f"classic:weights={out}")
    assert run.returncode == 0, run.stderr


@pytest.mark.slow
def test_bad_options_end_with_a_one_line_message(tmp_path):
    run = samuel("tune", str(tmp_path / "missing.npz"))
    assert run.returncode == 2 and "does not exist" in run.stderr
    assert "Traceback" not in run.stderr
    run = samuel("tune", "x.npz", "--fixed", "captured,bogus")
    assert run.returncode == 2 and "unknown feature(s) bogus" in run.stderr
    run = samuel("hillclimb", "--games", "5")
    assert run.returncode == 2 and "is odd" in run.stderr
    run = samuel("hillclimb", "--final-opening-plies", "4", "--out-dir", str(tmp_path / "h"))
    assert run.returncode == 2 and "must differ in length" in run.stderr
    run = samuel("selfplay", "--player", "random", "--out", str(tmp_path / "d.npz"))
    assert run.returncode == 2 and "does not search" in run.stderr
