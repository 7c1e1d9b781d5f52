"""How games end, as data every game shares: a winner side and a reason, the shared reasons in
:mod:`samuel.games.base` and each game's own in the game."""

from __future__ import annotations

import pytest

from samuel.games.base import Outcome, Termination, terminations
from samuel.games.draughts.rules import RULES as DRAUGHTS
from samuel.games.draughts.rules import Position as DraughtsPosition
from samuel.games.draughts.rules import Termination as DraughtsTermination
from samuel.games.game import Game
from samuel.games.tigers.rules import RULES as TIGERS
from samuel.games.tigers.rules import Position as TigersPosition
from samuel.games.tigers.rules import Termination as TigersTermination


def test_an_outcome_is_a_winner_side_and_a_reason() -> None:
    first = Outcome(termination=TigersTermination.FIVE_CAPTURED, winner=0)
    second = Outcome(termination=DraughtsTermination.NO_LEGAL_MOVE, winner=1)
    draw = Outcome(termination=Termination.REPETITION, winner=None)
    assert (first.result, second.result, draw.result) == (1, -1, 0)
    assert (first.is_draw, second.is_draw, draw.is_draw) == (False, False, True)
    for outcome in (first, second, draw):
        assert Outcome.from_result(outcome.termination, outcome.result) == outcome


def test_an_outcome_refuses_what_is_no_outcome() -> None:
    with pytest.raises(TypeError):
        Outcome(Termination.PLY_CAP, 0)  # type: ignore[misc]  # keywords only: no mix-ups
    for winner in (-1, 2, True, 0.0):
        with pytest.raises(ValueError, match="the winner is side 0, side 1 or None"):
            Outcome(termination=Termination.PLY_CAP, winner=winner)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="enum member"):
        Outcome(termination="ply cap reached", winner=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a result is"):
        Outcome.from_result(Termination.PLY_CAP, 0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a result is"):
        Outcome.from_result(Termination.PLY_CAP, True)
    with pytest.raises(ValueError, match="whole number of points"):
        Outcome(termination=Termination.PLY_CAP, winner=0, points=0)
    gammon = Outcome.from_result(Termination.PLY_CAP, -2)
    assert (gammon.winner, gammon.points, gammon.result, gammon.score) == (1, 2, -1, -2)


def test_each_game_has_its_own_reasons_and_the_shared_ones() -> None:
    assert terminations(TIGERS) == (*TigersTermination, *Termination)
    assert terminations(DRAUGHTS) == (*DraughtsTermination, *Termination)
    for rules in (TIGERS, DRAUGHTS):
        texts = [t.value for t in terminations(rules)]
        assert len(texts) == len(set(texts)), "a record's Termination tag names one reason"


def test_the_tigers_reasons_keep_their_record_texts() -> None:
    """Old records name these texts in their Termination tags."""
    assert {t.name: t.value for t in terminations(TIGERS)} == {
        "FIVE_CAPTURED": "enough sheep captured",
        "TIGERS_BLOCKED": "the tigers have no legal move",
        "SHEEP_BLOCKED": "the sheep have no legal move",
        "REPETITION": "threefold repetition",
        "PLY_CAP": "ply cap reached",
    }


def test_tigers_games_end_as_before() -> None:
    captured = TigersPosition.parse("T3T/5/5/5/T3T S 15")
    assert captured.decided_outcome() == Outcome(
        termination=TigersTermination.FIVE_CAPTURED, winner=0
    )
    game = Game(TIGERS, ply_cap=1)
    game.play_text("c3")
    assert game.outcome == Outcome(termination=Termination.PLY_CAP, winner=None)


def test_a_draughts_game_ends_when_the_side_to_move_has_no_move() -> None:
    game = Game(DRAUGHTS, DraughtsPosition.parse("B:W29:B25,K18"))
    assert game.outcome is None
    game.play_text("18-22")  # White's man on 29 is hemmed in: Black wins
    assert game.outcome == Outcome(termination=DraughtsTermination.NO_LEGAL_MOVE, winner=0)
    assert game.outcome.result == 1
    game = Game(DRAUGHTS, DraughtsPosition.parse("W:W22:B18"))
    game.play_text("22x15")  # Black has no piece left: White wins
    assert game.outcome == Outcome(termination=DraughtsTermination.NO_LEGAL_MOVE, winner=1)
    assert game.outcome.result == -1


def test_a_draughts_game_ends_by_the_40_move_rule() -> None:
    game = Game(DRAUGHTS, DraughtsPosition.parse("B:WK29:BK4:Q78"))
    game.play_text("4-8")
    assert game.outcome is None
    game.play_text("29-25")  # the 80th ply without a capture or a man's move
    assert game.outcome == Outcome(termination=DraughtsTermination.FORTY_MOVE_RULE, winner=None)
    assert game.outcome.is_draw and game.outcome.result == 0
