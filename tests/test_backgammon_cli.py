"""Backgammon from the command line: a game in the terminal with the dice thrown from the seed,
a person's plays in gnubg's notation, perft, and a match in points with duplicate dice."""

from __future__ import annotations

import re

import pytest

from samuel.games.record import read_records, replay
from tests.test_cli import samuel

pytestmark = pytest.mark.slow  # each runs the command in a process of its own


def test_a_game_between_random_players_is_played_to_its_end_and_recorded(tmp_path) -> None:
    path = tmp_path / "game.txt"
    run = samuel("play", "--game", "backgammon", "-X", "random", "-O", "random",
                 "--seed", "4", "--record", str(path))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert re.search(r"1\.+ random rolled [1-6]-[1-6] and played ", run.stdout)
    assert "game over: " in run.stdout and "borne off" in run.stdout
    [record] = read_records(path)
    game = replay(record)
    assert game.outcome is not None and game.outcome.points in (1, 2, 3)
    again = samuel("play", "--game", "backgammon", "-X", "random", "-O", "random",
                   "--seed", "4", "--record", str(tmp_path / "again.txt"))  # fmt: skip
    assert again.returncode == 0, again.stderr
    [twin] = read_records(tmp_path / "again.txt")
    assert twin.moves == record.moves  # the same seed, the same dice and the same game


def test_a_game_is_written_as_a_mat_file_when_its_name_says_so(tmp_path) -> None:
    path = tmp_path / "game.mat"
    run = samuel("play", "--game", "backgammon", "-X", "random", "-O", "classic:depth=1",
                 "--seed", "2", "--record", str(path))  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = path.read_text().splitlines()
    assert lines[:4] == [" 0 point match", "", " Game 1", lines[3]]
    assert "classic depth=1 : 0" in lines[3] and lines[3].endswith("random : 0")
    assert re.search(r"Wins [123] points?$", lines[-2])


def test_a_person_sees_the_roll_and_types_plays_as_gnubg_writes_them(tmp_path) -> None:
    path = tmp_path / "human.txt"
    moves = "\n".join(["help", "24/30", "moves", "quit"]) + "\n"
    run = samuel("play", "--game", "backgammon", "-O", "random", "--seed", "1",
                 "--record", str(path), stdin=moves)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert re.search(r"x rolled [1-6]-[1-6]", run.stdout) and "X to play" in run.stdout
    assert "type a play as gnubg writes it" in run.stdout
    assert "'24/30' is not a checker's move" in run.stdout
    assert "legal moves: " in run.stdout
    [record] = read_records(path)
    assert len(record.moves) == 1 and record.result is None  # the roll, then the person quit


def test_perft_counts_the_plays_of_every_roll() -> None:
    run = samuel("perft", "2", "--game", "backgammon", "--divide")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[-1] == "202782"
    rolls = [line for line in lines if re.match(r"[1-6]-[1-6] ", line)]
    assert len(rolls) == 21 and sum(int(line.split()[1]) for line in rolls) == 202_782


def test_a_match_is_scored_in_points_with_duplicate_dice() -> None:
    run = samuel("match", "classic:depth=1", "random", "--game", "backgammon", "--games", "20",
                 "--workers", "1")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "points" in run.stdout


def test_a_match_to_n_points_is_played_with_the_cube_and_written_as_a_mat_file(tmp_path) -> None:
    path = tmp_path / "match.mat"
    run = samuel("play", "--game", "backgammon", "-X", "random", "-O", "classic:depth=1",
                 "--cube", "on", "--match-length", "3", "--seed", "5",
                 "--record", str(path))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert re.search(r"[xo] wins the match (\d+)-(\d+)", run.stdout)
    text = path.read_text()
    assert text.startswith(" 3 point match") and " Game 1" in text
    assert re.search(r"Wins \d+ points?", text)
    wrong = samuel("play", "--game", "backgammon", "--cube", "on", "--record",
                   str(tmp_path / "x.txt"))  # fmt: skip
    assert wrong.returncode != 0 and "recorded in a .mat file" in wrong.stderr
    draughts = samuel("play", "--game", "draughts", "--cube", "on")
    assert draughts.returncode != 0 and "not English draughts" in draughts.stderr
    assert len(draughts.stderr.strip().splitlines()) == 1


def test_a_match_with_the_cube_reports_what_the_cube_did(tmp_path) -> None:
    run = samuel("match", "classic:depth=1", "random", "--game", "backgammon", "--games", "10",
                 "--workers", "1", "--cube", "on", "--json", str(tmp_path / "m.json"),
                 "--records", str(tmp_path / "m.txt"))  # fmt: skip
    assert run.returncode == 0, run.stderr
    # neither player has chances to double from: the cube never turns
    assert "Cube           turned in 0 games (0.0%), 1.00 on average" in run.stdout
    assert "Wins by kind   single game" in run.stdout
    refused = samuel("match", "classic", "random", "--game", "tigers", "--cube", "on")
    assert refused.returncode != 0 and "--cube on works for Backgammon only" in refused.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("zero-train", "1", "2"),
        ("selfplay", "--games", "2"),
        ("hillclimb", "--rounds", "1"),
        ("play", "-X", "random", "-O", "zero"),
    ],
)
def test_what_backgammon_cannot_do_yet_is_refused_in_one_line(command, tmp_path) -> None:
    run = samuel(*command, "--game", "backgammon", cwd=tmp_path)
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "backgammon" in run.stderr.lower()
