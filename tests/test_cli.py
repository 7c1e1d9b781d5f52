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
from samuel.games import get_game
from samuel.games.record import read_records, replay


def samuel(*args: str, stdin: str = "", cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


@pytest.mark.slow
def test_perft_prints_the_count_last():
    run = samuel("perft", "4")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "68204"


@pytest.mark.slow
def test_perft_from_a_position_with_divide():
    run = samuel("perft", "2", "--position", "T3T/5/2S2/5/T3T T 19", "--divide")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    divided = [line for line in lines if not line.startswith("perft")][:-1]
    assert sum(int(line.split()[1]) for line in divided) == int(lines[-1])


@pytest.mark.slow
def test_analyse_prints_move_score_pv_nodes_and_speed():
    run = samuel("analyse", "start", "--depth", "4")
    assert run.returncode == 0, run.stderr
    for label in ("best move", "score", "pv", "nodes", "nodes/s", "depth"):
        assert label in run.stdout


@pytest.mark.slow
def test_analyse_reports_a_forced_win():
    run = samuel("analyse", "T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0", "--depth", "3")
    assert run.returncode == 0, run.stderr
    assert "tigers win in 1 ply" in run.stdout


@pytest.mark.slow
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


@pytest.mark.slow
def test_an_engine_game_is_played_to_the_end_and_its_record_saved(tmp_path):
    path = tmp_path / "game.txt"
    run = samuel("play", "-S", "classic:depth=2", "-T", "random", "--record", str(path))
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout
    [record] = read_records(path)
    assert record.players == ("random", "classic:depth=2")
    assert record.result is not None


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("--epsilon", "2"), "argument --epsilon: '2' must be at most 1"),
        (("--match-games", "3"), "even number"),
        (("--from", "/nonexistent.bin"), "does not exist"),
        (("--hidden", "64,0"), "one to three hidden layers of 1 to 4096 units"),
        (("--hidden", "wide"), "is not hidden layers' widths"),
    ],
)
def test_train_refuses_bad_settings(tmp_path, args, phrase):
    run = samuel("train", "1", "4", str(tmp_path / "w"), *args)
    assert run.returncode == 2 and phrase in run.stderr and "Traceback" not in run.stderr


# --- output never lost: paths checked before the game, kept elsewhere after it -----------------

QUICK_GAME = ("play", "-S", "random", "-T", "random", "--ply-cap", "6")


@pytest.mark.slow
def test_play_without_a_record_creates_the_games_folder(tmp_path):
    run = samuel(*QUICK_GAME, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [path] = (tmp_path / "games").iterdir()
    assert f"game record saved to games/{path.name}" in run.stdout
    assert len(read_records(path)) == 1


@pytest.mark.slow
def test_a_draughts_record_is_saved_as_pdn_by_default(tmp_path):
    run = samuel(
        "play",
        "--game",
        "draughts",
        "-B",
        "random",
        "-W",
        "random",
        "--ply-cap",
        "6",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    [path] = (tmp_path / "games").iterdir()
    assert path.suffix == ".pdn"
    assert len(read_records(path)) == 1


@pytest.mark.slow
def test_play_creates_the_missing_folders_of_its_record(tmp_path):
    run = samuel(*QUICK_GAME, "--record", "missing/deeper/x.txt", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(read_records(tmp_path / "missing" / "deeper" / "x.txt")) == 1


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("selfplay", "--games", "1", "--out", "."), "cannot write the data set .: it is a folder"),
        (("selfplay", "--games", "1", "--out", "/proc/x.npz"), "no file can be created in /proc"),
        (("tune", "data.npz", "--out", "."), "cannot write the tuned weights .: it is a folder"),
        (("hillclimb", "--out-dir", "file"), "cannot write the run folder file: it is not a"),
        (("train", "1", "1", "file"), "cannot write the run folder file: it is not a folder"),
        (("zero-train", "1", "1", "file"), "cannot write the run folder file: it is not a"),
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


@pytest.mark.slow
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


# --- Many games: --game on every command, players by the game's side letters ------------------

GAME_COMMANDS = [
    ("play",),
    ("analyse", "start"),
    ("perft", "1"),
    ("train", "1", "2"),
    ("zero-train", "1", "2"),
    ("selfplay",),
    ("tune", "data.npz"),
    ("hillclimb",),
    ("match", "random", "random"),
    ("tournament", "random", "random"),
    ("serve",),
]


@pytest.mark.parametrize("command", GAME_COMMANDS, ids=lambda command: command[0])
def test_every_command_refuses_an_unknown_game_listing_the_games(command, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main([*command, "--game", "chess"])
    assert exit.value.code == 2
    [line] = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert "unknown game 'chess'; the games are: tigers (Tigers & Sheep), draughts" in line


# The counts of docs/rules-draughts.md
DRAUGHTS_PERFT = [7, 49, 302, 1469, 7361, 36768, 179740, 845931]


@pytest.mark.slow
def test_perft_counts_draughts_as_published():
    run = samuel("perft", str(len(DRAUGHTS_PERFT)), "--game", "draughts")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    counts = [int(line.split()[2].replace(",", "")) for line in lines if line.startswith("perft")]
    assert counts == DRAUGHTS_PERFT
    assert lines[-1] == str(DRAUGHTS_PERFT[-1])


@pytest.mark.slow
def test_perft_divides_a_draughts_position_and_caps_the_depth_per_game():
    run = samuel("perft", "3", "--game", "draughts", "--position", "W:WK2,30:B1,K23", "--divide")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    divided = [line for line in lines if not line.startswith("perft")][:-1]
    assert divided and sum(int(line.split()[1]) for line in divided) == int(lines[-1])
    run = samuel("perft", "21", "--game", "draughts")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "perft counts up to 20 plies in English draughts" in run.stderr


@pytest.mark.parametrize(
    ("game", "given", "players"),
    [
        ("tigers", [], {"tigers": "classic", "sheep": "human"}),
        (
            "tigers",
            [("-S", "sheep", "random"), ("--tigers", "tigers", "classic:depth=2")],
            {"tigers": "classic:depth=2", "sheep": "random"},
        ),
        (
            "tigers",
            [("--first", "first", "a"), ("--second", "second", "b")],
            {"tigers": "a", "sheep": "b"},
        ),
        ("draughts", [], {"black": "human", "white": "classic"}),
        (
            "draughts",
            [("-B", "black", "random"), ("-W", "white", "net")],
            {"black": "random", "white": "net"},
        ),
        (
            "draughts",
            [("--first", "first", "a"), ("--second", "second", "b")],
            {"black": "a", "white": "b"},
        ),
        ("draughts", [("--second", "second", "b")], {"black": "human", "white": "b"}),
    ],
)
def test_players_are_given_by_the_game_s_sides_or_first_and_second(game, given, players):
    assert cli.side_players(get_game(game), given) == players


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (
            ("play", "-B", "random"),
            "-B is a draughts and nardy side; the sides of Tigers & Sheep are -T (tigers) and "
            "-S (sheep), or --first and --second",
        ),
        (
            ("play", "--game", "draughts", "--sheep", "random"),
            "--sheep is a tigers side; the sides of English draughts are -B (black) and -W "
            "(white), or --first and --second",
        ),
        (("play", "--first", "random", "-T", "random"), "--first and -T both name a player"),
        (("play", "--game", "draughts", "-W", "a", "--second", "b"), "-W and --second both"),
    ],
)
def test_a_side_of_another_game_is_a_clear_error(args, phrase, capsys):
    assert cli.main(list(args)) == 2
    assert phrase in capsys.readouterr().err


@pytest.mark.slow
def test_a_game_of_draughts_between_random_players_is_played_and_recorded(tmp_path):
    path = tmp_path / "draughts.txt"
    run = samuel(
        "play", "--game", "draughts", "--first", "random", "-W", "random", "--record", str(path)
    )
    assert run.returncode == 0, run.stderr
    assert "Black to move" in run.stdout and "1. random played" in run.stdout
    assert "game over: " in run.stdout
    text = path.read_text()  # PDN, as other draughts programs read it
    for tag in ('[GameType "21"]', '[Black "random"]', '[White "random"]', "[Result "):
        assert tag in text
    assert "1. " in text and '[Result "*"]' not in text  # played to the end
    [record] = read_records(path)
    assert replay(record).outcome is not None


@pytest.mark.slow
def test_a_human_plays_draughts_in_its_notation(tmp_path):
    path = tmp_path / "human.txt"
    moves = "\n".join(["help", "c3", "22-18", "11-15", "quit"]) + "\n"
    run = samuel("play", "--game", "draughts", "-W", "random", "--record", str(path), stdin=moves)
    assert run.returncode == 0, run.stderr
    assert "black to move" in run.stdout
    assert "a capture with every landing square, as 22x15" in run.stdout  # the game's help
    assert "'c3' is not a move" in run.stdout
    assert "22-18 is not legal: Black has no piece on 22" in run.stdout
    [record] = read_records(path)
    assert [str(m) for m in record.moves][0] == "11-15" and record.result is None


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (("serve", "--tablebase", "tb"), "--tablebase works for Tigers & Sheep"),
        (("analyse", "start", "--player", "perfect"), "'perfect' plays from the Tigers & Sheep"),
        (("match", "weights/x.bin", "random"), "cannot read the weights file weights/x.bin"),
        (("play", "-B", "random", "--tablebase", "tb"), "--tablebase works for Tigers & Sheep"),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else None,
)
def test_what_cannot_do_draughts_yet_says_so_in_one_line(args, phrase, tmp_path, capsys):
    assert cli.main([*args, "--game", "draughts"]) == 2
    err = capsys.readouterr().err
    assert phrase in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "weights").exists()


# --- Draughts with a searching player: these need the compiled dispatch to search draughts
# (issue 11, item 1, games/kernels.py); they fail on a branch without it.


@pytest.mark.slow
def test_analyse_searches_a_draughts_position():
    run = samuel("analyse", "start", "--game", "draughts", "--depth", "4")
    assert run.returncode == 0, run.stderr
    assert "Black's view" in run.stdout or "wins in" in run.stdout
    assert "best move" in run.stdout


@pytest.mark.slow
def test_a_draughts_game_against_classic_is_played_to_the_end(tmp_path):
    path = tmp_path / "classic.txt"
    run = samuel(
        "play", "--game", "draughts", "-B", "classic:depth=2", "-W", "random", "--record", str(path)
    )
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout and "Black's view" in run.stdout
    [record] = read_records(path)
    assert record.players == ("classic:depth=2", "random") and record.result is not None


def test_every_game_offers_what_the_command_line_asks_of_it():
    from samuel.games import registry

    # each letter is one option of `samuel play`: games may share a side (draughts' and long
    # nardy's white), but a letter names the same side in every game
    named = {}
    for rules in registry().values():
        for letter, side in zip(rules.side_letters, rules.sides, strict=True):
            assert named.setdefault(letter, side) == side
    for rules in registry().values():
        assert len(rules.side_letters) == len(rules.sides) == len(rules.win_phrases) == 2
        # perft reaches the published counts' depths: backgammon's, with its dice, 4 (~10^10)
        assert rules.move_help and rules.view_phrase and rules.max_perft_depth >= 4
        start = rules.initial_position()
        rolls = [rules.play(start, roll) for roll, _ in rules.chance_outcomes(start)]
        # a game with dice starts with a roll, which perft does not count as a ply
        moves = (
            sum(len(rules.legal_moves(p)) for p in rolls)
            if rolls
            else len(rules.legal_moves(start))
        )
        assert rules.perft(start, 1) == moves


def test_a_score_that_rounds_to_zero_is_shown_without_a_minus_sign():
    from types import SimpleNamespace

    rules = get_game("tigers")
    start = rules.initial_position()  # the sheep to move: a score of theirs is turned
    shown = cli._describe_score(rules, SimpleNamespace(forced_plies=None, score=0.0002), start)
    assert shown.startswith("+0.000 (")  # the sheep's -0.0002 for the tigers: not "-0.000"
    half = cli._describe_score(rules, SimpleNamespace(forced_plies=None, score=0.5), start)
    assert half.startswith("-0.500 (")


@pytest.mark.slow
def test_help_and_a_command_load_only_what_they_use():
    """``samuel --help`` imports neither NumPy nor numba, and a command builds only its own
    options: the modules of the others (training, the pipeline, the server) stay unloaded."""
    check = (
        "import sys\n"
        "from samuel import cli\n"
        "try:\n"
        "    cli.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('numpy', 'numba', 'samuel.train.command') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "cli.main(['perft', '1'])\n"
        "others = ('samuel.train.command', 'samuel.pipeline.commands', 'samuel.web')\n"
        "loaded = [m for m in others if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "21"  # perft(1) from the start


def test_pipeline_run_help_shows_each_options_default(capsys):
    from samuel.pipeline.config import PipelineConfig

    with pytest.raises(SystemExit):
        cli.main(["pipeline", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
    defaults = PipelineConfig()
    for option, value in (("selfplay-games", "200"), ("rollouts", "16"), ("anchor", "classic")):
        assert f"--{option}" in text and f"({value})" in text
    assert f"({defaults.train_positions:,})" in text  # large numbers with separators
