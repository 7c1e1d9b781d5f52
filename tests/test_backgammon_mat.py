"""Backgammon games as .mat text: its layout (the cube's lines among it), and GNU Backgammon (the
Debian program, where it is installed: .ci/run installs it) importing what Samuel writes, a
match with doubles, takes and drops among it, and writing back the same."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from samuel.games.backgammon.cube_game import play_match
from samuel.games.backgammon.mat import CubeTurn, MatGame, Turn, format_mat, mat_game
from samuel.games.backgammon.match_file import match_games
from samuel.games.backgammon.rules import RULES, Play, Roll
from samuel.games.game import Game
from samuel.players import RandomPlayer

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


def test_the_cube_s_layout_is_gnubgs() -> None:
    """A double and a drop on either side, as gnubg writes them (its own export of a match)."""
    o_drops = (
        Turn(0, Roll(2, 1), RULES.parse_move("13/11 6/5")),
        Turn(1, Roll(5, 4), RULES.parse_move("24/20 13/8")),
        CubeTurn(0, "double", 2),
        CubeTurn(1, "pass", 2),
    )
    x_drops = (
        Turn(0, Roll(2, 1), RULES.parse_move("13/11 6/5")),
        CubeTurn(1, "double", 2),
        CubeTurn(0, "take", 2),
        Turn(1, Roll(5, 4), RULES.parse_move("24/20 13/8")),
        CubeTurn(0, "double", 4),
        CubeTurn(1, "take", 4),
        Turn(0, Roll(3, 1), RULES.parse_move("8/5 6/5")),
        CubeTurn(1, "double", 8),
        CubeTurn(0, "pass", 8),
    )
    games = [MatGame(o_drops, winner=0, points=1), MatGame(x_drops, 1, 4, score=(1, 0))]
    assert format_mat(games, ("Sam", "Uel"), 7).splitlines()[3:] == [
        " Uel : 0                        Sam : 0",
        "  1)                             21: 13/11 6/5",
        "  2) 54: 24/20 13/8               Doubles => 2",
        "  3)  Drops                       Wins 1 point",
        "",
        " Game 2",
        " Uel : 0                        Sam : 1",
        "  1)                             21: 13/11 6/5",
        "  2)  Doubles => 2                Takes",
        "  3) 54: 24/20 13/8               Doubles => 4",
        "  4)  Takes                      31: 8/5 6/5",
        "  5)  Doubles => 8                Drops",
        "      Wins 4 points",
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
    assert _body(back) == _body(ours)


def _body(path: Path) -> list[str]:
    """A .mat file's lines less the comments and blank lines, each without trailing spaces."""
    lines = [line.rstrip() for line in path.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith(";")]


@dataclass
class RandomCube(RandomPlayer):
    """A random player that doubles one turn in eight and takes three doubles in four."""

    def _chance(self, game: Game, salt: int) -> float:
        return float(np.random.default_rng([self.seed, game.ply, salt]).random())

    def offers_double(self, game: Game, cube) -> bool:
        return self._chance(game, 1) < 0.125

    def takes(self, game: Game, cube) -> bool:
        return self._chance(game, 2) < 0.75


@pytest.mark.slow
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (Debian's gnubg) is not installed")
def test_gnubg_imports_a_match_with_the_cube_and_writes_it_back(tmp_path: Path) -> None:
    players = [RandomCube(seed=1), RandomCube(seed=2)]
    match = play_match(players, 9, np.random.default_rng(2026))
    actions = [a for _, result in match.games for a in result.cube]
    kinds = {(a.side, a.action) for a in actions}
    assert {(0, "double"), (1, "double"), (0, "take"), (1, "take")} <= kinds, kinds
    assert {a.action for a in actions} >= {"pass"} and len(match.games) > 2
    ours = tmp_path / "ours.mat"
    ours.write_text(format_mat(match_games(match), ("samuel", "random"), 9))
    back = tmp_path / "back.mat"
    commands = f"import mat {ours}\nexport match mat {back}\n"
    run = subprocess.run(
        [GNUBG, "-t", "-q"], input=commands, capture_output=True, text=True, timeout=600
    )
    assert back.exists(), run.stdout[-2000:] + run.stderr[-2000:]
    assert _body(back) == _body(ours)
