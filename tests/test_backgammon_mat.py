"""Backgammon games as .mat text: its layout, and GNU Backgammon (the Debian program, where it
is installed: .ci/run installs it) importing what Samuel writes and writing back the same."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from samuel.games.backgammon.mat import MatGame, Turn, format_mat, mat_game
from samuel.games.backgammon.rules import RULES, Play, Roll
from samuel.games.game import Game

GNUBG = shutil.which("gnubg", path=os.environ.get("PATH", "") + os.pathsep + "/usr/games")


def random_game(seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(RULES)
    while game.outcome is None:
        rolls = RULES.chance_outcomes(game.position)
        if rolls:
            game.play(rng.choices([r for r, _ in rolls], [p for _, p in rolls])[0])
        else:
            game.play(rng.choice(game.legal_moves()))
    return game


def test_the_layout_is_gnubgs() -> None:
    turns = (
        Turn(0, Roll(3, 1), RULES.parse_move("8/5 6/5")),
        Turn(1, Roll(6, 4), RULES.parse_move("24/18 13/9")),
        Turn(0, Roll(6, 6), Play(())),  # nothing to play (for the layout's sake)
    )
    text = format_mat([MatGame(turns, winner=1, points=1, score=(2, 0))], ("Sam", "Uel"), 5)
    assert text.splitlines() == [
        " 5 point match",
        "",
        " Game 1",
        " Uel : 0                        Sam : 2",
        "  1)                             31: 8/5 6/5",
        "  2) 64: 24/18 13/9              66:",
        "      Wins 1 point",
        "",
    ]


def test_a_game_s_turns_come_from_its_rolls_and_plays() -> None:
    game = random_game(1)
    written = mat_game(game)
    assert len(written.turns) == sum(1 for m in game.moves if isinstance(m, Play))
    assert written.winner == game.outcome.winner and written.points == game.outcome.points
    assert [t.side for t in written.turns][:2] == [0, 1]  # X rolls first from the start


@pytest.mark.slow
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (Debian's gnubg) is not installed")
def test_gnubg_imports_what_samuel_writes_and_writes_it_back(tmp_path: Path) -> None:
    games, score = [], [0, 0]
    for seed in range(6):  # a 15-point match of six random games: both win, gammons, passes
        game = random_game(seed)
        games.append(mat_game(game, (score[0], score[1])))
        score[game.outcome.winner] += game.outcome.points
    assert {g.winner for g in games} == {0, 1}
    ours = tmp_path / "ours.mat"
    ours.write_text(format_mat(games, ("samuel", "random"), 15))
    back = tmp_path / "back.mat"
    commands = f"import mat {ours}\nexport match mat {back}\n"
    run = subprocess.run(
        [GNUBG, "-t", "-q"], input=commands, capture_output=True, text=True, timeout=600
    )
    assert back.exists(), run.stdout[-2000:] + run.stderr[-2000:]

    def body(path: Path) -> list[str]:
        lines = [line.rstrip() for line in path.read_text().splitlines()]
        return [line for line in lines if line and not line.startswith(";")]

    assert body(back) == body(ours)
