"""Backgammon's rules: perft from the start, the rules a roll's plays follow (the bar first, as
many dice as can be played, the larger die, bearing off), the points of a finished game, and the
notation's errors. tests/test_backgammon_gnubg.py holds the plays against GNU Backgammon's."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from samuel.games.backgammon import kernels, notation
from samuel.games.backgammon import rules as backgammon_rules
from samuel.games.backgammon.rules import RULES, Play, Position, Roll
from samuel.games.base import IllegalMoveError, NotationError


def side(points: dict[int, int]) -> tuple[int, ...]:
    """A side's 25 counts from {point: checkers} (point 25 the bar)."""
    counts = [0] * 25
    for point, count in points.items():
        counts[point - 1] = count
    return tuple(counts)


def plays_text(position: Position) -> list[str]:
    return sorted(str(play) for play in RULES.legal_moves(position))


def test_the_doctests_hold() -> None:
    assert doctest.testmod(backgammon_rules).failed == 0


def test_perft_from_the_start() -> None:
    start = RULES.initial_position()
    assert [RULES.perft(start, depth) for depth in (0, 1, 2)] == [1, 447, 202_782]


# Distinct plays from the start for each roll (gnubg's move generator counts the same).
START_PLAYS = {
    "1-1": 42, "2-1": 15, "3-1": 16, "4-1": 14, "5-1": 8, "6-1": 10, "2-2": 75,
    "3-2": 17, "4-2": 18, "5-2": 8, "6-2": 14, "3-3": 73, "4-3": 17, "5-3": 9,
    "6-3": 14, "4-4": 52, "5-4": 9, "6-4": 14, "5-5": 4, "6-5": 7, "6-6": 11,
}  # fmt: skip


def test_the_plays_of_each_roll_from_the_start() -> None:
    start = RULES.initial_position()
    counts = {str(roll): len(RULES.legal_moves(RULES.play(start, roll))) for roll in Roll.all()}
    assert counts == START_PLAYS


def test_a_checker_on_the_bar_enters_before_any_other_moves() -> None:
    # X has one on the bar; O holds its 1-, 2-, 3- and 4-points (X enters on 24-21 with 1-4).
    x = side({25: 1, 13: 6, 8: 3, 6: 5})
    o = side({1: 2, 2: 2, 3: 2, 4: 2, 6: 3, 13: 4})
    position = Position(x, o, True, Roll(5, 4))
    assert plays_text(position) == sorted(["bar/20/16", "bar/20 13/9", "bar/20 8/4", "bar/20 6/2"])
    blocked = Position(x, o, True, Roll(4, 3))  # 22 and 21 are O's: nothing enters, a pass
    assert RULES.legal_moves(blocked) == [Play(())]
    assert RULES.play(blocked, Play(())) == Position(x, o, False, None)


def test_as_many_dice_as_can_be_played_and_the_larger_die() -> None:
    # X's last checker on 13; O holds X's 2-point: 13/7 or 13/8, but then 7/2 and 8/2 are blocked
    # (14 borne off, so no bearing off from outside). Either die alone: the larger must be played.
    x = side({13: 1})
    o = side({23: 2, 6: 13})
    assert plays_text(Position(x, o, True, Roll(6, 5))) == ["13/7"]
    # Both dice can be played, by one checker: they must be, and either way is one play.
    rolled = Position(x, o, True, Roll(4, 1))
    assert len(RULES.legal_moves(rolled)) == 1
    assert RULES.play(rolled, RULES.legal_moves(rolled)[0]).x == side({8: 1})


def test_bearing_off_takes_the_exact_point_or_the_highest() -> None:
    x = side({5: 1, 3: 2})  # 12 borne off
    o = side({19: 15})
    # a 6 bears off from the highest point (5); a 4 cannot bear off from 3 while 5 is held
    assert plays_text(Position(x, o, True, Roll(6, 4))) == sorted(["5/1 3/off", "5/off 3/off"])
    # not before every checker is home: the one on 7 comes in first (7/1/off and 7/6/off leave
    # the same position: one play); with it on 6, a 6 cannot bear off from 3
    outside = side({7: 1, 3: 2})
    assert plays_text(Position(outside, o, True, Roll(6, 1))) == sorted(["7/1 3/2", "7/1/off"])


def test_a_finished_game_scores_single_gammon_and_backgammon() -> None:
    x_done = side({})  # all fifteen off
    cases = [
        (side({19: 14}), 1),  # O bore one off: a single game
        (side({6: 15}), 2),  # O bore none off and has none in X's home: a gammon
        (side({6: 14, 25: 1}), 3),  # one on the bar: a backgammon
        (side({6: 14, 20: 1}), 3),  # one on its 20-point, in X's home board: a backgammon
    ]
    for o, points in cases:
        position = Position(x_done, o, False, None)
        outcome = position.decided_outcome()
        assert (outcome.winner, outcome.points) == (0, points)
        assert kernels.result(position.encode()) == points
        swapped = position.transformed(1)
        assert kernels.result(swapped.encode()) == -points
        assert RULES.chance_outcomes(position) == [] and RULES.legal_moves(position) == []


def test_gnubg_notation_is_read_and_matched_to_a_legal_play() -> None:
    rolled = RULES.play(RULES.initial_position(), Roll(6, 5))
    child = RULES.play(rolled, RULES.parse_move("24/13"))  # gnubg leaves out the 18
    assert RULES.resolve(rolled, RULES.parse_move("24/13")) in RULES.legal_moves(rolled)
    assert child == RULES.play(rolled, RULES.parse_move("24/18/13"))
    assert RULES.parse_move("bar/22*") == Play(((25, 22, True),))
    assert RULES.parse_move("8/5(2) 6/5(2)") == Play(((8, 5, False),) * 2 + ((6, 5, False),) * 2)
    assert RULES.parse_move("3-1") == Roll(3, 1) and Roll.parse("13") == Roll(3, 1)
    with pytest.raises(IllegalMoveError, match="with 6-5 the plays are"):
        RULES.play(rolled, RULES.parse_move("13/7 13/8 8/3"))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7/9", "from a higher point to a lower one"),
        ("13/off/3", "borne off moves no further"),
        ("26/20", "is not a checker's move"),
        ("24-18", "is not a checker's move"),
        ("6/5(3) 8/7(2)", "a roll plays at most four dice"),
        ("x" * 200, "too long"),
    ],
)
def test_a_malformed_play_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(NotationError, match=why):
        RULES.parse_move(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("4HPwATDgc/ABMA", "is not a backgammon position"),
        ("4HPwATDgc/AB!A X -", "is not a Position ID"),
        ("////////////// X -", "describes too many checkers|has .* checkers"),
        ("4HPwATDgc/ABMA X 7-1", "is not a roll"),
    ],
)
def test_a_malformed_position_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(NotationError, match=why):
        RULES.parse_position(text)


def test_position_ids_read_back_and_name_the_start() -> None:
    start = RULES.initial_position()
    assert notation.position_id(start.x, start.o) == "4HPwATDgc/ABMA"
    assert notation.board_of_position_id("4HPwATDgc/ABMA") == (start.x, start.o)
    assert RULES.parse_position("start") == start


def test_codes_read_back_and_refuse_what_no_play_has() -> None:
    rolled = RULES.play(RULES.initial_position(), Roll(2, 2))
    for play in RULES.legal_moves(rolled):
        assert RULES.move_from_code(play.code) == play
        assert Play.parse(str(play)) == play
    for bad in (-1, 1 << 47, (1 << 44) | 3, (5 << 44)):
        with pytest.raises(ValueError, match="code of no play"):
            RULES.move_from_code(bad)


def test_the_network_sees_each_side_from_the_side_to_move() -> None:
    position = RULES.play(RULES.initial_position(), Roll(3, 1))
    active = np.zeros(32, dtype=np.int64)
    values = np.zeros(32, dtype=np.float32)
    n = kernels.set_inputs(position.encode(), active, values)
    # 4 points of 2, 5, 3, 5 checkers a side: 2 + 4 + 3 + 4 inputs each
    assert n == 26 and sorted(active[:n] // kernels.SIDE_INPUTS) == [0] * 13 + [1] * 13
    assert values[:n].sum() == pytest.approx(2 * (2 + 4 + 3 + 4))  # (5 - 3) / 2 is 1


def test_match_ids_read_back_and_say_what_is_wrong() -> None:
    money = notation.MatchState()
    assert notation.match_id(money) == "cAkAAAAAAAAA"  # X on roll, cube centred, Jacoby
    match = notation.MatchState(cube=4, cube_owner=1, match_length=7, score=(3, 5), jacoby=False)
    assert notation.parse_match_id(notation.match_id(match)) == match
    for text, why in [("cAkAAAAAAAA", "is not a Match ID"), ("cAkAAAAAAAA/", "past the last")]:
        with pytest.raises(NotationError, match=why):
            notation.parse_match_id(text)
    with pytest.raises(ValueError, match="cube 1, 2, 4"):
        notation.MatchState(cube=3)


def test_passes_that_bring_a_position_back_are_no_repetition() -> None:
    from samuel.games.game import Game

    # each side with a checker on the bar against the other's closed board: both pass
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 2, 25: 1}
    start = Position(side(closed), side(closed), True, None)
    game = Game(RULES, start, ply_cap=40)
    while game.outcome is None:
        game.play(Roll(6, 5))
        assert game.legal_moves() == [Play(())]
        game.play(Play(()))
    assert game.outcome.termination.value == "ply cap reached"  # never "threefold repetition"
    assert game.positions.count(start) > 3  # it came back again and again


def test_eight_or_more_checkers_on_a_word_s_top_slot_encode_as_the_kernels_do() -> None:
    # Point 16 is the 16th four-bit slot of a side's first word: 8 checkers set its sign bit.
    for x_to_move in (True, False):
        stacked = Position(side({16: 9, 6: 6}), side({16: 8, 1: 7}), x_to_move, None)
        state = stacked.encode()
        assert state.dtype == np.int64 and (state[0] < 0 and state[2] < 0)
        assert Position.decode(state) == stacked
        assert stacked.key == kernels.position_key(state)
        rolled = RULES.play(stacked, Roll(6, 5))
        children = {RULES.play(rolled, play) for play in RULES.legal_moves(rolled)}
        assert children and all(Position.decode(c.encode()) == c for c in children)
