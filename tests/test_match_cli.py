"""`samuel match` and `samuel tournament` run as a person would: real processes and files."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from samuel.cli import main
from samuel.files import file_error
from samuel.games.record import read_records
from tests.cli_process import samuel


@pytest.mark.slow
def test_match_prints_the_full_report_and_writes_json_and_records(tmp_path):
    report, records = tmp_path / "m.json", tmp_path / "m.txt"
    run = samuel(
        "match",
        "classic:depth=2",
        "classic:depth=1",
        "--games",
        "8",
        "--workers",
        "2",
        "--opening-plies",
        "2-6",
        "--sprt",
        "elo0=0,elo1=10",
        "--json",
        str(report),
        "--records",
        str(records),
    )
    assert run.returncode == 0, run.stderr
    for label in (
        "as tigers",
        "as sheep",
        "total",
        "Score",
        "95% range",
        "Elo difference",
        "+/-",
        "LOS",
        "Draw ratio",
        "Pentanomial",
        "SPRT",
        "LLR",
        "bounds -2.94 and 2.94",
        "Endings",
        "Verdict:",
        f"report written to {report}",
    ):
        assert label in run.stdout, label
    data = json.loads(report.read_text())
    assert data["first"] == "classic:depth=2" and data["settings"]["opening_plies"] == [2, 6]
    assert data["wins"] + data["draws"] + data["losses"] == data["games"] == 8
    assert sum(data["pentanomial"]) == 4 and len(data["pairs"]) == 4
    assert data["sprt"]["upper_bound"] == pytest.approx(2.944, abs=1e-3)
    assert len(read_records(records)) == 8
    assert "Traceback" not in run.stderr and run.stderr == ""  # no bar when not a terminal


@pytest.mark.slow
def test_match_writes_under_matches_by_default(tmp_path):
    run = samuel("match", "random", "random", "--games", "2", "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    written = sorted(p.name for p in (tmp_path / "matches").iterdir())
    assert len(written) == 2 and written[0].endswith("-match.games.txt")
    assert written[1].endswith("-match.json")
    assert f"matches/{written[1]}" in run.stdout
    (tmp_path / "draughts").mkdir()
    run = samuel(
        "match",
        "random",
        "random",
        "--game",
        "draughts",
        "--games",
        "2",
        "--workers",
        "1",
        "--ply-cap",
        "6",
        cwd=tmp_path / "draughts",
    )
    assert run.returncode == 0, run.stderr
    written = sorted(p.name for p in (tmp_path / "draughts" / "matches").iterdir())
    assert written[0].endswith("-match.games.pdn")  # PDN, as other draughts programs look for


@pytest.mark.slow
def test_tournament_prints_a_table_like_ordos(tmp_path):
    run = samuel(
        "tournament",
        "random",
        "classic:depth=1",
        "classic:depth=2",
        "--games",
        "4",
        "--workers",
        "1",
        "--anchor",
        "random",
        "--anchor-rating",
        "1000",
        "--json",
        str(tmp_path / "t.json"),
        "--records",
        str(tmp_path / "t.txt"),
    )
    assert run.returncode == 0, run.stderr
    header = next(line for line in run.stdout.splitlines() if "PLAYER" in line)
    assert header.split() == [
        "#",
        "PLAYER",
        ":",
        "RATING",
        "ERROR",
        "POINTS",
        "PLAYED",
        "(%)",
        "W",
        "D",
        "L",
    ]
    rows = [line for line in run.stdout.splitlines() if line.strip()[:1].isdigit() and ":" in line]
    assert len(rows) == 3
    random_row = next(row for row in rows if " random " in row)
    assert "1000.0" in random_row and "----" in random_row
    data = json.loads((tmp_path / "t.json").read_text())
    assert [row["played"] for row in data["standings"]] == [8, 8, 8]
    assert len(data["matches"]) == 3
    assert len(read_records(tmp_path / "t.txt")) == 12


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("match", "random", "random", "--games", "7"), "odd: a match is pairs of games"),
        (("match", "random", "random", "--sprt", "elo0=5,elo1=1"), "elo0 < elo1"),
        (("match", "random", "random", "--sprt", "margin=3"), "the settings are elo0=E0"),
        (("match", "random", "random", "--opening-plies", "6-2"), "0 <= low <= high"),
        (("match", "random", "random", "--workers", "0"), "must be at least 1"),
        (("match", "wizard", "random", "--games", "2"), "unknown player 'wizard'; players are:"),
        (("match", "human", "random", "--games", "2"), "human cannot play in a match"),
        (
            ("match", "random", "random", "--games", "2", "--json", "/proc/x.json"),
            "cannot write the report /proc/x.json: no file can be created in /proc",
        ),
        (
            ("match", "random", "random", "--games", "2", "--records", "/proc/version"),
            "cannot write the game records /proc/version: no file can be created in /proc",
        ),
        (
            ("tournament", "random", "classic:depth=1", "--games", "2", "--json", "."),
            "cannot write the report .: it is a folder",
        ),
        (
            ("match", "random", "random", "--games", "2", "--json", "x", "--records", "./x"),
            "--json and --records both name x: give two files",
        ),
        (("tournament", "random", "--games", "2"), "at least two players"),
        (
            ("tournament", "random", "classic:depth=1", "--anchor", "nobody", "--games", "2"),
            "the anchor 'nobody' is not one of the players",
        ),
    ],
)
def test_mistakes_get_a_message_and_status_2_not_a_traceback(args, phrase, tmp_path):
    run = samuel(*args, cwd=tmp_path)
    assert run.returncode == 2
    assert phrase in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == "" and list(tmp_path.iterdir()) == []  # before any game; no junk


def test_outputs_that_cannot_be_written_after_the_match_are_kept_elsewhere(
    tmp_path, monkeypatch, capsys
):
    """A late failure (the disk filled during the match) loses neither output: the one that
    can be written is, the other is kept in the temporary folder, and the error says where."""
    from samuel.games import record

    real = record.write_atomically
    target = tmp_path / "m.txt"

    def full_disk(path, data):
        if str(path) == str(target):
            raise file_error("write", path, OSError(errno.ENOSPC, "No space left on device"))
        real(path, data)

    monkeypatch.setattr(record, "write_atomically", full_disk)
    args = ["match", "random", "random", "--games", "4", "--workers", "1", "--no-progress"]
    assert main([*args, "--json", str(tmp_path / "m.json"), "--records", str(target)]) == 2
    out, error = capsys.readouterr()
    assert f"report written to {tmp_path / 'm.json'}" in out
    assert json.loads((tmp_path / "m.json").read_text())["games"] == 4
    assert f"cannot write {target}: no space is left on the device" in error
    kept = error.split("; game records kept in ")[1].strip()
    assert len(read_records(kept)) == 4 and not target.exists()
    shutil.rmtree(Path(kept).parent)


@pytest.mark.slow
def test_a_draughts_match_between_random_players_reports_by_colour(tmp_path):
    report, records = tmp_path / "m.json", tmp_path / "m.txt"
    run = samuel(
        "match", "random", "random:seed=1", "--game", "draughts", "--games", "4",
        "--workers", "1", "--json", str(report), "--records", str(records),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "as black" in run.stdout and "as white" in run.stdout
    assert records.read_text().count('[GameType "21"]') == 4


@pytest.mark.slow
def test_a_draughts_tournament_runs(tmp_path):
    run = samuel(
        "tournament", "random", "random:seed=1", "random:seed=2", "--game", "draughts",
        "--games", "2", "--workers", "1", "--json", str(tmp_path / "t.json"),
        "--records", str(tmp_path / "t.txt"),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "RATING" in run.stdout


# Needs the compiled dispatch to search draughts (issue 11, item 1); fails on a branch without it.
@pytest.mark.slow
def test_a_draughts_match_with_classic_runs(tmp_path):
    run = samuel(
        "match", "classic:depth=2", "random", "--game", "draughts", "--games", "4",
        "--workers", "1", "--json", str(tmp_path / "m.json"), "--records", str(tmp_path / "m.txt"),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "as black" in run.stdout
