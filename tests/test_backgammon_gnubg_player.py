"""GNU Backgammon as a player (``gnubg[:ply=N,noise=X,level=NAME]``) and as the judge of plays
(``samuel analyse --game backgammon FILE.mat``): legal, reproducible plays that are gnubg's own
choice; errors of exactly 0 for gnubg's own plays and gnubg's own figures for bad ones."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from samuel.cli import main
from samuel.games import get_game
from samuel.games.backgammon import gnubg_bridge, judge, mat
from samuel.games.backgammon.mat import format_mat, mat_game
from samuel.games.backgammon.rules import RULES, Play
from samuel.games.game import Game
from samuel.match.play import play_game
from samuel.players import PlayerSpecError, make_player
from tests.test_backgammon_gnubg import random_positions

gnubg = pytest.importorskip("gnubg")

rules = get_game("backgammon")


def _game(x: str, o, seed: int) -> Game:
    o_player = make_player(o, rules, seed=seed + 1) if isinstance(o, str) else o
    players = {"x": make_player(x, rules, seed=seed), "o": o_player}
    return play_game(rules, players, dice=np.random.default_rng(seed))


def _gnubg_plays(game: Game) -> list[tuple[object, Play]]:
    return [
        (position, move)
        for position, move in zip(game.positions, game.moves, strict=False)
        if isinstance(move, Play) and position.x_to_move
    ]


@pytest.mark.parametrize("spec", ["gnubg:ply=0", "gnubg:level=beginner", "gnubg:ply=1"])
def test_gnubg_plays_legal_plays_and_the_same_game_for_a_seed(spec) -> None:
    for seed in (1, 2):
        game = _game(spec, "random", seed)
        assert game.outcome is not None
        for position, play in _gnubg_plays(game):
            assert play in RULES.legal_moves(position)
        assert _game(spec, "random", seed).moves == game.moves


def test_gnubg_plays_the_play_findbestmoves_ranks_first() -> None:
    player = make_player("gnubg:ply=0", rules)
    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 1, 1, 0.0)
    checked = 0
    for position in random_positions(300, seed=11):
        game = Game(rules, start=position)
        play = player.choose_move(game)
        found = gnubg.findbestmoves(
            gnubg_bridge.gnubg_board(position),
            cube,
            context,
            (position.dice.high, position.dice.low),
        )
        if not found:
            assert play == Play(())
            continue
        assert player.last[0].equity == pytest.approx(found[0]["score"], abs=1e-5)
        best = found[0]["move"]
        if len(best) % 2 == 0 and (len(found) < 2 or best_by_far(found)):
            assert gnubg_bridge.play_of_move(position, best) == play
            checked += 1
    assert checked > 100


def _filters(table) -> list[dict]:
    """A move filter table of gnubg_bridge as the bindings take it."""
    return [
        {"ply": plies, "level": level, "acceptmoves": a, "extramoves": e, "threshold": t}
        for plies in range(1, 5)
        for level, (a, e, t) in enumerate(rule or (-1, 0, 0.0) for rule in table[plies - 1])
    ]


@pytest.mark.parametrize(
    ("plies", "table", "step"),
    [(1, "NORMAL", 3), (2, "NORMAL", 10), (2, "LARGE", 10)],
)
def test_searching_plays_are_gnubgs_choice_through_its_move_filters(plies, table, step) -> None:
    """Above 0 plies the player's play is gnubg's ``findbestmove`` with the same filters (the
    bindings' ``findbestmoves`` sorts all plays by score, those a filter dropped among them)."""
    filters = getattr(gnubg_bridge, table)
    evaluator = gnubg_bridge.Evaluator(plies, 0.0, True, filters)
    cube, context = gnubg.cube_info(), gnubg.eval_context(0, plies, 1, 1, 0.0)
    checked = 0
    for position in random_positions(300, seed=21)[::step]:
        if len(RULES.legal_moves(position)) < 2:
            continue
        dice = (position.dice.high, position.dice.low)
        board = gnubg_bridge.gnubg_board(position)
        move = gnubg.findbestmove(board, cube, context, dice, _filters(filters))
        if len(move) % 2:
            continue  # cut at a move off: it does not say which play
        child = RULES.play(position, evaluator.score(position)[0].play)
        assert gnubg_bridge.after_gnubg_move(position, tuple(move)) == child, str(position)
        checked += 1
    assert checked > 20


def best_by_far(found: list[dict]) -> bool:
    """Whether gnubg's first play is ahead of its second by more than float rounding."""
    return found[0]["score"] - found[1]["score"] > 1e-5


def test_noise_changes_choices_and_is_the_same_each_time() -> None:
    positions = [p for p in random_positions(200, seed=3) if len(RULES.legal_moves(p)) > 1]
    plain = gnubg_bridge.Evaluator(0, 0.0)
    noisy = gnubg_bridge.Evaluator(0, 0.06)
    chosen = [noisy.score(p)[0].play for p in positions]
    assert chosen == [gnubg_bridge.Evaluator(0, 0.06).score(p)[0].play for p in positions]
    differ = sum(c != plain.score(p)[0].play for c, p in zip(chosen, positions, strict=True))
    assert 0 < differ < len(positions)
    # and it is gnubg's own noisy choice (its deterministic noise, keyed on the position)
    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 1, 0, 0.06)
    for play, position in zip(chosen, positions, strict=True):
        dice = (position.dice.high, position.dice.low)
        move = gnubg.findbestmove(gnubg_bridge.gnubg_board(position), cube, context, dice)
        if len(move) % 2 == 0:
            child = gnubg_bridge.after_gnubg_move(position, tuple(move))
            assert RULES.play(position, play) == child, str(position)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("gnubg:ply=9", "ply must be between 0 and 4"),
        ("gnubg:level=godlike", "level must be one of gnubg's"),
        ("gnubg:noise=-1", "noise must be between"),
        ("gnubg:depth=2", "unknown option(s) depth"),
    ],
)
def test_bad_options_are_one_line_errors(spec, words) -> None:
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, rules)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_gnubg_missing_is_said_with_how_to_install(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setitem(sys.modules, "gnubg", None)  # import gnubg now raises ImportError
    with pytest.raises(PlayerSpecError, match=r"pip install 'samuel\[gnubg\]'"):
        make_player("gnubg", rules)
    path = tmp_path / "game.mat"
    path.write_text(format_mat([mat_game(_game("random", "random", 4))]))
    assert main(["analyse", "--game", "backgammon", str(path)]) == 2
    err = capsys.readouterr().err
    assert "samuel[gnubg]" in err and len(err.strip().splitlines()) == 1


class WorstPlayer:
    """Plays gnubg's worst play (0-ply) every time: known-bad plays."""

    spec = "worst"

    def choose_move(self, game: Game) -> Play:
        return gnubg_bridge.Evaluator(0).score(game.position)[-1].play


def test_the_judge_gives_gnubgs_own_plays_no_error_and_bad_ones_gnubgs_figures() -> None:
    game = _game("gnubg:ply=0", WorstPlayer(), seed=5)
    text = format_mat([mat_game(game)], ("gnubg", "worst"))
    match = mat.read_mat(text)
    decisions = judge.decisions_of(match)
    assert [(d.position, d.play) for d in decisions] == [
        (position, move)
        for position, move in zip(game.positions, game.moves, strict=False)
        if isinstance(move, Play)
    ]
    judged = judge.judge(decisions, plies=0)
    by_player = {report.player: report for report in judge.reports(judged)}
    assert by_player["gnubg (X)"].decisions > 10 and by_player["gnubg (X)"].total == 0.0
    worst = by_player["worst (O)"]
    assert worst.decisions > 10 and worst.blunders > 0
    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 1, 1, 0.0)
    compared = 0
    for j in worst.judgements:
        position = j.decision.position
        dice = (position.dice.high, position.dice.low)
        found = gnubg.findbestmoves(gnubg_bridge.gnubg_board(position), cube, context, dice)
        made = RULES.play(position, j.decision.play)
        for move in found:
            if (
                len(move["move"]) % 2 == 0
                and gnubg_bridge.after_gnubg_move(position, move["move"]) == made
            ):
                assert j.error == pytest.approx(found[0]["score"] - move["score"], abs=1e-5)
                compared += 1
    assert compared > 10 and any(j.error > 0 for j in worst.judgements)


def test_supremo_plays_have_no_error_at_two_plies() -> None:
    game = _game("gnubg:level=supremo", "random", seed=6)  # 2 plies, the judge's filter
    decisions = [judge.Decision(p, m, "gnubg") for p, m in _gnubg_plays(game)]
    (report,) = judge.reports(judge.judge(decisions[:20], plies=2))
    assert report.decisions > 5 and report.total == 0.0


def test_analyse_reports_each_player(tmp_path, capsys) -> None:
    path = tmp_path / "match.mat"
    games = [mat_game(_game("gnubg:ply=0", "random", seed)) for seed in (7, 8)]
    path.write_text(format_mat(games, ("gnubg", "random")))
    assert main(["analyse", "--game", "backgammon", str(path), "--ply", "0"]) == 0
    out = capsys.readouterr().out
    assert "gnubg (X): " in out and "0.0 millipoints per decision" in out
    assert "random (O): " in out


@pytest.mark.parametrize(
    "text",
    [
        "junk\n",
        " 0 point match\n\n Game 1\n O : 0   X : 0\n  1)        31: 8/5* 6/5 13/1\n",
        " 0 point match\n\n Game 1\n O : 0   X : 0\n  1)        31: 8/5* 6/7\n",
        " 0 point match\n\n  1)        31: 8/5* 6/5\n",
        " 0 point match\n",
    ],
)
def test_a_corrupt_mat_file_is_a_one_line_error(tmp_path, capsys, text) -> None:
    path = tmp_path / "bad.mat"
    path.write_text(text)
    assert main(["analyse", "--game", "backgammon", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("samuel analyse: error: ") and len(err.splitlines()) == 1, err


DEBIAN_GNUBG = Path("/usr/games/gnubg")


@pytest.mark.slow
@pytest.mark.skipif(not DEBIAN_GNUBG.exists(), reason="needs GNU Backgammon's program")
def test_the_judge_agrees_with_gnubgs_own_analysis_of_the_file(tmp_path) -> None:
    """gnubg's program imports the .mat file and analyses it at 2 plies, cubeless (about 10 s):
    the same unforced moves and the same total error per player, to its rounding and the small
    differences between its version and the bindings'."""
    path = tmp_path / "match.mat"
    game = _game("gnubg:ply=0", "classic:depth=1", seed=9)
    path.write_text(format_mat([mat_game(game)], ("gn", "classic")))
    commands = "\n".join(
        [
            "set analysis chequerplay evaluation plies 2",
            "set analysis chequerplay evaluation cubeful off",
            "set analysis cube off",
            "set analysis luck off",
            f"import mat {path}",
            "analyse match",
            "show statistics match",
            "",  # gnubg runs a command at its end of line
        ]
    )
    run = subprocess.run(
        [str(DEBIAN_GNUBG), "-t", "-q"], input=commands, capture_output=True, text=True, timeout=300
    )
    lines = run.stdout.splitlines()
    assert any(line.startswith("Player") for line in lines), run.stdout[-2000:] + run.stderr
    names = next(line for line in lines if line.startswith("Player")).split()[1:]
    unforced = [int(w) for w in next(x for x in lines if x.startswith("Unforced")).split()[2:]]
    total = next(line for line in lines if line.startswith("Error total EMG"))
    errors = [float(w) for w in re.findall(r"[-+]?\d+\.\d+", total)][::2]
    ours = {r.player.split()[0]: r for r in judge.reports(judge.judge_file(path, plies=2))}
    for name, count, error in zip(names, unforced, errors, strict=True):
        assert ours[name].decisions == count
        assert ours[name].total / 1000 == pytest.approx(-error, rel=0.02, abs=0.01)


def test_a_mat_file_with_cube_actions_reads_its_plays() -> None:
    """The judge is cubeless: a double, a take and a drop (the win beside it) are passed over."""
    text = (
        " 0 point match\n\n Game 1\n"
        " o player : 0                   x player : 0\n"
        "  1)                             31: 8/5* 6/5\n"
        "  2) 52: 13/11 13/8              Doubles => 2\n"
        "  3)  Takes                      64: 24/18 13/9\n"
        "  4) 33: 8/5(2) 6/3(2)           Doubles => 4\n"
        "  5)  Drops                      Wins 2 points\n"
    )
    match = mat.read_mat(text)
    (game,) = match.games
    assert match.names == ("x player", "o player") and match.match_length == 0
    assert [(t.side, str(t.roll), str(t.play)) for t in game.turns] == [
        (0, "3-1", "8/5* 6/5"),
        (1, "5-2", "13/11 13/8"),
        (0, "6-4", "24/18 13/9"),
        (1, "3-3", "8/5(2) 6/3(2)"),
    ]
    assert (game.winner, game.points) == (0, 2)
    assert len(judge.decisions_of(match)) == 4
