"""The `samuel` command, run as a person would: real processes, real input and output."""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from samuel import cli
from samuel.files import file_error
from samuel.games.record import read_records


def samuel(*args: str, stdin: str = "", cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_perft_prints_the_count_last():
    run = samuel("perft", "4")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "68204"


def test_perft_from_a_position_with_divide():
    run = samuel("perft", "2", "--position", "T3T/5/2S2/5/T3T T 19", "--divide")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    divided = [line for line in lines if not line.startswith("perft")][:-1]
    assert sum(int(line.split()[1]) for line in divided) == int(lines[-1])


def test_analyse_prints_move_score_pv_nodes_and_speed():
    run = samuel("analyse", "start", "--depth", "4")
    assert run.returncode == 0, run.stderr
    for label in ("best move", "score", "pv", "nodes", "nodes/s", "depth"):
        assert label in run.stdout


def test_analyse_reports_a_forced_win():
    run = samuel("analyse", "T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0", "--depth", "3")
    assert run.returncode == 0, run.stderr
    assert "tigers win in 1 ply" in run.stdout


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("analyse", "T3T/5/5/5 S 20"), "5 rows"),
        (("analyse", "T3T/5/5/5/T3T S"), "three fields"),
        (("analyse", "TTT2/5/5/5/T3T S 20"), "exactly 4 tigers"),
        (("analyse", "start", "--player", "wizard"), "unknown player"),
        (("analyse", "start", "--player", "classic:depth=zero"), "depth must be"),
        (("analyse", "start", "--player", "classic:weights=/nonexistent.json"), "does not exist"),
        (("analyse", "TSSST/SSSSS/S1SSS/SSSSS/TSSST T 0"), "over"),
        (("play", "-T", "classic:colour=red"), "unknown option"),
        (("perft", "3", "--position", "T3T/5/5/5/T3X S 20"), "'X'"),
        (("play", "-T", "random", "-S", "random", "--depth", "500"), "--depth must be at most"),
        (
            ("play", "-T", "random", "-S", "random", "--tablebase", "/nope"),
            "neither 'random' nor 'random' searches, so no player would probe it",
        ),
        (("play", "-S", "random", "--tablebase", "/nope"), "no tablebase directory /nope"),
    ],
)
def test_user_mistakes_get_a_message_and_status_2_not_a_traceback(args, phrase):
    run = samuel(*args)
    assert run.returncode == 2
    assert phrase in run.stderr
    assert "Traceback" not in run.stderr


def test_bad_option_values_are_refused_by_the_parser():
    run = samuel("perft", "-3")
    assert run.returncode == 2 and "Traceback" not in run.stderr


def test_an_engine_game_is_played_to_the_end_and_its_record_saved(tmp_path):
    path = tmp_path / "game.txt"
    run = samuel("play", "-S", "classic:depth=2", "-T", "random", "--record", str(path))
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout
    [record] = read_records(path)
    assert record.players == ("random", "classic:depth=2")
    assert record.result is not None


def test_a_human_gets_help_for_bad_moves_and_the_record_is_saved(tmp_path):
    path = tmp_path / "human.txt"
    moves = "\n".join(["zz", "moves", "a1-b2", "c3", "c3", "quit"]) + "\n"
    run = samuel("play", "-S", "human", "-T", "classic:depth=2", "--record", str(path), stdin=moves)
    assert run.returncode == 0, run.stderr
    assert "'zz' is not a move" in run.stdout
    assert "legal moves: b1 c1" in run.stdout
    assert "there is no sheep on a1" in run.stdout
    assert "c3 is occupied" in run.stdout
    [record] = read_records(path)
    assert [str(m) for m in record.moves][0] == "c3" and len(record.moves) == 2
    assert record.result is None  # stopped, not finished


def test_train_prints_the_table_saves_every_generation_and_resumes(tmp_path):
    out = tmp_path / "weights"
    args = (
        "train",
        "2",
        "8",
        str(out),
        "--depth",
        "1",
        "--ply-cap",
        "60",
        "--match-every",
        "2",
        "--match-games",
        "2",
        "--workers",
        "1",
    )
    run = samuel(*args)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["gen", "trained", "tigers"]
    assert [line.split()[0] for line in lines[1:]] == ["1", "2"]
    assert lines[2].split()[9].endswith("%") and lines[2].split()[10].endswith("%")
    assert {"gen-001.bin", "gen-002.bin", "gen-002.json", "latest.bin"} <= {
        p.name for p in out.iterdir()
    }
    again = samuel(
        "train",
        "1",
        "8",
        str(out),
        "--depth",
        "1",
        "--ply-cap",
        "60",
        "--match-every",
        "5",
        "--workers",
        "1",
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().splitlines()[-1].split()[0] == "3"
    assert "gen-002.bin" in again.stderr


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("--epsilon", "2"), "argument --epsilon: '2' must be at most 1"),
        (("--match-games", "3"), "even number"),
        (("--from", "/nonexistent.bin"), "does not exist"),
    ],
)
def test_train_refuses_bad_settings(tmp_path, args, phrase):
    run = samuel("train", "1", "4", str(tmp_path / "w"), *args)
    assert run.returncode == 2 and phrase in run.stderr and "Traceback" not in run.stderr


# --- output never lost: paths checked before the game, kept elsewhere after it -----------------

QUICK_GAME = ("play", "-S", "random", "-T", "random", "--ply-cap", "6")


def test_play_without_a_record_creates_the_games_folder(tmp_path):
    run = samuel(*QUICK_GAME, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [path] = (tmp_path / "games").iterdir()
    assert f"game record saved to games/{path.name}" in run.stdout
    assert len(read_records(path)) == 1


def test_play_creates_the_missing_folders_of_its_record(tmp_path):
    run = samuel(*QUICK_GAME, "--record", "missing/deeper/x.txt", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(read_records(tmp_path / "missing" / "deeper" / "x.txt")) == 1


@pytest.mark.parametrize(
    ("record", "phrase"),
    [
        (".", "cannot write the game record .: it is a folder"),
        ("file/x.txt", "its folder, file, is not a folder"),
        ("/proc/x.txt", "no file can be created in /proc"),
        ("/dev/null", "it is a device"),
    ],
)
def test_a_record_path_that_cannot_be_written_is_refused_before_the_game(tmp_path, record, phrase):
    (tmp_path / "file").write_text("")
    run = samuel(*QUICK_GAME, "--record", record, cwd=tmp_path)
    assert run.returncode == 2 and phrase in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""  # not even the board: no game was played
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # and nothing left behind


def fail_writing(monkeypatch, module, target) -> None:
    """Make ``module``'s atomic writer fail on ``target`` only, as a full disk would."""
    real = module.write_atomically

    def write(path, data):
        if str(path) == str(target):
            raise file_error("write", path, OSError(errno.ENOSPC, "No space left on device"))
        real(path, data)

    monkeypatch.setattr(module, "write_atomically", write)


def test_a_record_that_cannot_be_written_after_the_game_is_kept_elsewhere(
    tmp_path, monkeypatch, capsys
):
    from samuel.games import record

    target = tmp_path / "game.txt"
    fail_writing(monkeypatch, record, target)
    assert cli.main([*QUICK_GAME, "--record", str(target)]) == 2
    error = capsys.readouterr().err
    assert f"cannot write {target}: no space is left on the device" in error
    kept = error.split("; game record kept in ")[1].strip()
    assert kept.endswith("game.txt") and len(read_records(kept)) == 1
    assert not target.exists() and list(tmp_path.iterdir()) == []
    shutil.rmtree(Path(kept).parent)


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("selfplay", "--games", "1", "--out", "."), "cannot write the data set .: it is a folder"),
        (("selfplay", "--games", "1", "--out", "/proc/x.npz"), "no file can be created in /proc"),
        (("tune", "data.npz", "--out", "."), "cannot write the tuned weights .: it is a folder"),
        (("hillclimb", "--out-dir", "file"), "cannot write the run folder file: it is not a"),
        (("train", "1", "1", "file"), "cannot write the run folder file: it is not a folder"),
        (("tablebase", "build", "--out", "file"), "cannot write the tablebase folder file"),
        (("tablebase", "build", "--out", "file/k1"), "a part of its path, file, is not a"),
    ],
)
def test_every_command_that_writes_checks_its_output_first(tmp_path, args, phrase):
    (tmp_path / "file").write_text("")
    run = samuel(*args, cwd=tmp_path)
    assert run.returncode == 2 and phrase in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "Errno" not in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_data_set_that_cannot_be_written_after_self_play_is_kept_elsewhere(
    tmp_path, monkeypatch, capsys
):
    from samuel.tune import dataset

    target = tmp_path / "d.npz"
    fail_writing(monkeypatch, dataset, target)
    args = ["selfplay", "--games", "2", "--player", "classic:depth=1", "--no-progress"]
    assert cli.main([*args, "--out", str(target)]) == 2
    error = capsys.readouterr().err
    kept = error.split("; data set kept in ")[1].strip()
    assert len(dataset.load_positions(kept)) > 0 and list(tmp_path.iterdir()) == []
    shutil.rmtree(Path(kept).parent)


def test_checking_an_output_creates_nothing_and_keeping_it_says_when_it_failed_too(tmp_path):
    from samuel.errors import FileError
    from samuel.files import check_output_folder, check_output_path, save_or_keep

    assert check_output_path(tmp_path / "a" / "b" / "x.txt", "record").name == "x.txt"
    assert check_output_folder(tmp_path / "run", "run folder").name == "run"
    assert list(tmp_path.iterdir()) == []

    def no_space(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(FileError) as caught:
        save_or_keep(tmp_path / "x.txt", "game record", no_space)
    assert str(caught.value) == (
        f"cannot write {tmp_path / 'x.txt'}: no space is left on the device; keeping the game "
        "record elsewhere failed too (no space is left on the device)"
    )


# --- which errors are the user's ----------------------------------------------------------


def test_an_os_error_is_said_in_words():
    error = IsADirectoryError(errno.EISDIR, "Is a directory", "games")
    assert cli.describe_error(error) == "games: it is a folder"
    assert cli.describe_error(FileExistsError(errno.EEXIST, "File exists")) == "it already exists"


def test_an_internal_error_is_a_bug_with_a_traceback_not_a_user_mistake(monkeypatch):
    def broken(args):
        raise ValueError("an internal bug")

    monkeypatch.setattr(cli, "command_analyse", broken)
    with pytest.raises(ValueError, match="an internal bug"):
        cli.main(["analyse", "start"])


def test_train_stops_when_a_generation_diverges_and_keeps_the_last_good_one(tmp_path):
    out = tmp_path / "w"
    settings = ("--depth", "1", "--ply-cap", "40", "--workers", "1")
    assert samuel("train", "1", "4", str(out), *settings).returncode == 0
    good = (out / "gen-001.bin").read_bytes()
    run = samuel("train", "2", "4", str(out), *settings, "--learning-rate", "1e30")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "generation 2 diverged" in run.stderr
    assert "latest.bin is still generation 1" in run.stderr
    assert (out / "latest.bin").read_bytes() == good and not (out / "gen-002.bin").exists()
    again = samuel("train", "1", "4", str(out), *settings)  # and the next run goes on from it
    assert again.returncode == 0 and "gen-001.bin" in again.stderr
