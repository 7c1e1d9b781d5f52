"""Long nardy's rules: perft from the start, each rule a roll's plays follow on a position built
for it (the head rule and its first-turn exception, no landing on an opponent's checker, the
six-block rule with and without an opponent's checker past the block, bearing off, as many dice
as can be played and the larger die, passing), the points of a finished game, and the
notation's errors. The counts asserted here are the reference counts the rules page states, or
worked out by hand in the comments."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from samuel.games.base import IllegalMoveError, NotationError
from samuel.games.nardy import kernels
from samuel.games.nardy import rules as nardy_rules
from samuel.games.nardy.rules import RULES, Play, Position, Roll

FIFTEEN_ON_BLACK_HEAD = {24: 15}


def side(points: dict[int, int]) -> tuple[int, ...]:
    """A side's 24 counts from {point: checkers}, in its own numbering."""
    counts = [0] * 24
    for point, count in points.items():
        counts[point - 1] = count
    return tuple(counts)


def children(position: Position) -> set[tuple[int, ...]]:
    """The mover's checkers after each legal play."""
    white = position.white_to_move
    return {(c.white if white else c.black) for c in RULES.plays(position).values()}


def holds_six_running_unopposed(mine: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
    """Whether ``mine`` holds six points running on the other side's path with none of the
    other side's checkers past them (written here from the rule, not from the rules module)."""
    held = [mine[(q + 11) % 24] > 0 for q in range(24)]  # the other's point q + 1, 0-based
    lowest = min((q for q in range(24) if theirs[q]), default=24)
    return any(all(held[low : low + 6]) and lowest >= low for low in range(19))


def test_the_doctests_hold() -> None:
    assert doctest.testmod(nardy_rules).failed == 0


def test_perft_from_the_start_gives_the_reference_counts() -> None:
    start = RULES.initial_position()
    assert [RULES.perft(start, depth) for depth in (0, 1, 2, 3)] == [1, 22, 484, 35_387]


@pytest.mark.slow
def test_perft_4_from_the_start_gives_the_reference_count() -> None:
    assert RULES.perft(RULES.initial_position(), 4) == 2_411_418  # about 2 s


def test_each_roll_from_the_start_has_one_play_but_three_three() -> None:
    start = RULES.initial_position()
    counts = {str(roll): len(RULES.legal_moves(RULES.play(start, roll))) for roll in Roll.all()}
    assert counts == {str(roll): 2 if str(roll) == "3-3" else 1 for roll in Roll.all()}


def test_the_first_turn_may_take_two_from_the_head_with_3_3_4_4_and_6_6() -> None:
    start = RULES.initial_position()
    plays = {str(r): {str(p) for p in RULES.legal_moves(RULES.play(start, r))} for r in Roll.all()}
    # 6-6: two to 18 (18/12 would land on Black's head); 4-4: two to 16 (16/12 the same)
    assert plays["6-6"] == {"24/18(2)"}
    assert plays["4-4"] == {"24/20/16(2)"}
    assert plays["3-3"] == {"24/21/18(2)", "24/21/18/15 24/21"}
    # 5-5 and 2-2: one checker, all four steps
    assert plays["5-5"] == {"24/19/14/9/4"} and plays["2-2"] == {"24/22/20/18/16"}
    # the exception is the first turn's only: with one checker gone, one leaves the head
    # (here 24/18 once, and 18/12 would land on Black's head: one die played)
    later = Position(side({24: 14, 18: 1}), side(FIFTEEN_ON_BLACK_HEAD), True, Roll(6, 6))
    assert {c[23] for c in children(later)} == {13}


def test_one_checker_leaves_the_head_in_a_turn() -> None:
    # White: 14 on the head, one on 10; Black all on its head (White's 12). With 5-2 the plays
    # by hand: 24/19/17 (or 24/22/17), 24/19 10/8, 24/22 10/5, 10/5/3 (or 10/8/3).
    position = Position(side({24: 14, 10: 1}), side(FIFTEEN_ON_BLACK_HEAD), True, Roll(5, 2))
    assert children(position) == {
        side({24: 13, 17: 1, 10: 1}),
        side({24: 13, 19: 1, 8: 1}),
        side({24: 13, 22: 1, 5: 1}),
        side({24: 14, 3: 1}),
    }
    with pytest.raises(IllegalMoveError, match="only one checker may leave the head"):
        RULES.play(position, RULES.parse_move("24/19 24/22"))


def test_no_checker_lands_on_a_point_the_opponent_holds() -> None:
    # Black's head is White's 12: with 6-6 from the start 18/12 is never a step
    rolled = RULES.play(RULES.initial_position(), Roll(6, 6))
    with pytest.raises(IllegalMoveError, match="your point 12 is held by Black"):
        RULES.play(rolled, RULES.parse_move("24/18/12 24/18"))
    # one checker is enough to hold a point: Black's one on its 23 (White's 11) blocks 13/11
    position = Position(side({13: 1, 1: 14}), side({24: 14, 23: 1}), True, Roll(2, 1))
    assert RULES.legal_moves(position) == [Play(())]  # 13/12 and 13/11 blocked, none bears off
    assert RULES.play(position, Play(())) == Position(position.white, position.black, False)


# White holds its 17-20 (two each) and one checker on 16 and on 22, five on the head. Its points
# 16-21 are Black's 4-9: making 21 while 16 is held makes six running on Black's path.
BLOCKER = side({24: 5, 22: 1, 20: 2, 19: 2, 18: 2, 17: 2, 16: 1})


def test_the_six_block_rule_needs_an_opponent_checker_past_the_block() -> None:
    # 6-1: 22/21 24/18 holds White's 16-21. Black all on its head (its 24): none past the six,
    # so no play leaves the six held; with one Black checker on its 2 (White's 14), past them,
    # the same play is legal.
    made = side({24: 4, 21: 1, 20: 2, 19: 2, 18: 3, 17: 2, 16: 1})
    alone = Position(BLOCKER, side(FIFTEEN_ON_BLACK_HEAD), True, Roll(6, 1))
    assert made not in children(alone)
    assert not any(holds_six_running_unopposed(c, alone.black) for c in children(alone))
    ahead = Position(BLOCKER, side({24: 14, 2: 1}), True, Roll(6, 1))
    assert made in children(ahead)


def test_a_play_is_legal_when_some_order_of_its_steps_keeps_the_six_block_rule() -> None:
    # 1-1: 16/15/14/13 then 22/21 never holds six running (16 is empty before 21 is made); in
    # the other order 22/21 first would hold White's 16-21. The play is legal.
    position = Position(BLOCKER, side(FIFTEEN_ON_BLACK_HEAD), True, Roll(1, 1))
    after = side({24: 5, 21: 1, 20: 2, 19: 2, 18: 2, 17: 2, 13: 1})
    assert after in children(position)
    assert not any(holds_six_running_unopposed(c, position.black) for c in children(position))


def test_bearing_off_takes_the_exact_point_or_the_highest() -> None:
    white = side({5: 1, 3: 2})  # 12 borne off
    black = side({6: 15})  # Black's 6 is White's 18
    # a 6 bears off from the highest point (5); a 4 cannot bear off from 3 while 5 is held
    rolled = Position(white, black, True, Roll(6, 4))
    assert sorted(map(str, RULES.legal_moves(rolled))) == ["5/1 3/off", "5/off 3/off"]
    # not before every checker is home: the one on 7 comes home first (7/1/off and 7/6/off
    # leave the same position: one play)
    outside = Position(side({7: 1, 3: 2}), black, True, Roll(6, 1))
    assert children(outside) == {side({3: 2}), side({3: 1, 2: 1, 1: 1})}


def test_as_many_dice_as_can_be_played_and_the_larger_die() -> None:
    # White: one checker on 13, fourteen on 1 (not all home, so none bears off); Black holds
    # its 14 (White's 2) and its head (White's 12). 6-5: 13/7 or 13/8, then 7/2 and 8/2 are
    # blocked: either die alone, so the larger.
    black = side({24: 14, 14: 1})
    white = side({13: 1, 1: 14})
    assert [str(p) for p in RULES.legal_moves(Position(white, black, True, Roll(6, 5)))] == ["13/7"]
    # 4-1: 13/12 is Black's head, but 13/9/8 plays both dice, so it must
    assert [str(p) for p in RULES.legal_moves(Position(white, black, True, Roll(4, 1)))] == [
        "13/9/8"
    ]


@pytest.mark.parametrize(
    ("black", "points"),
    [
        ({6: 14}, 1),  # Black bore one off: a win
        ({6: 15}, 2),  # none off, none in its first quarter: a mars
        ({6: 14, 20: 1}, 3),  # none off, one still on its 20 (its points 19-24): a koks
        ({24: 15}, 3),  # all still on its head
    ],
)
def test_a_finished_game_scores_win_mars_and_koks(black: dict[int, int], points: int) -> None:
    white_done = side({})
    position = Position(white_done, side(black), False, None)
    outcome = position.decided_outcome()
    assert (outcome.winner, outcome.points) == (0, points)
    assert RULES.outcome_classes[points] == {1: "win", 2: "mars", 3: "koks"}[points]
    assert kernels.result(position.encode()) == points
    assert kernels.result(position.transformed(1).encode()) == -points
    assert RULES.chance_outcomes(position) == [] and RULES.legal_moves(position) == []


def test_a_game_ended_beside_a_long_run_reads_back() -> None:
    # Black's nine points running on White's path were legal while White's last checker stood
    # past them; bearing it off ends the game (a mars) with the run still there
    before = RULES.parse_position("1x1,offx14/9x1,8x1,7x2,6x1,5x1,4x1,3x1,2x2,1x5 w 2-1")
    [play] = RULES.legal_moves(before)
    end = RULES.play(before, play)
    assert str(end) == "offx15/9x1,8x1,7x2,6x1,5x1,4x1,3x1,2x2,1x5 b"
    assert RULES.parse_position(str(end)) == end
    assert end.decided_outcome().points == 2
    with pytest.raises(NotationError, match="no White checker past them"):  # none past: refused
        RULES.parse_position("24x15/9x1,8x1,7x2,6x1,5x1,4x1,3x1,2x2,1x5 w")


def test_positions_read_back_and_name_the_start() -> None:
    start = RULES.initial_position()
    assert str(start) == "24x15/24x15 w" and RULES.parse_position("24x15/24x15 w") == start
    assert RULES.parse_position("start") == start
    text = "3x2,1x1,offx12/24x2,14x12,2x1 b 6-4"
    assert str(RULES.parse_position(text)) == text
    assert RULES.parse_position(text).off(0) == 12


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("24x15 w", "is not a long nardy position"),
        ("24x15/24x15 x", "is not a long nardy position"),
        ("24x15/24x15", "is not a long nardy position"),
        ("24x15/24-15 w", "is not POINTxCOUNT"),
        ("25x15/24x15 w", "point 25; the points are 1-24"),
        ("24x10,18x6/24x15 w", "White has 16 checkers"),
        ("24x14/24x15 w", "White has 14 checkers"),
        ("24x14,24x1/24x15 w", "name point 24 twice"),
        ("24x14,12x1/24x15 w", "White's point 12 is Black's point 24: both sides"),
        # White's 13-18 are Black's 1-6: no Black checker can be past them
        ("24x9,18x1,17x1,16x1,15x1,14x1,13x1/24x15 w", "six-block rule"),
        ("7x1,offx14/24x15 w", "borne off checkers but has some outside its home"),
        ("offx15/6x15 w 3-1", "the game is over"),
        ("24x15/24x15 w 7-1", "is not a roll"),
        ("x" * 400, "too long"),
    ],
)
def test_a_bad_position_is_refused_with_its_reason(text: str, why: str) -> None:
    with pytest.raises(NotationError, match=why):
        RULES.parse_position(text)


def test_a_six_block_with_an_opponent_checker_past_it_is_a_position() -> None:
    # White's 16-21 are Black's 4-9; Black's checker on its 2 is past them
    text = "24x5,21x1,20x2,19x2,18x2,17x2,16x1/24x14,2x1 w"
    assert str(RULES.parse_position(text)) == text
    with pytest.raises(NotationError, match="six-block rule"):
        RULES.parse_position("24x5,21x1,20x2,19x2,18x2,17x2,16x1/24x15 w")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7/9", "from a higher point to a lower one"),
        ("13/off/3", "borne off moves no further"),
        ("25/20", "is not a checker's move"),
        ("bar/22", "is not a checker's move"),
        ("24-18", "is not a checker's move"),
        ("6/5(3) 8/7(2)", "a roll plays at most four dice"),
        ("x" * 200, "too long"),
    ],
)
def test_a_malformed_play_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(NotationError, match=why):
        RULES.parse_move(text)


def test_plays_are_read_as_written_and_matched_to_a_legal_play() -> None:
    assert RULES.parse_move("24/18 24/21") == Play(((24, 21), (24, 18)))
    assert RULES.parse_move("13/7(2)") == Play(((13, 7), (13, 7)))
    assert RULES.parse_move("3/off") == Play(((3, 0),))
    assert RULES.parse_move("pass") == Play(())
    assert RULES.parse_move("3-1") == Roll(3, 1)
    rolled = RULES.play(RULES.initial_position(), Roll(6, 5))
    # one checker with both dice, written as one segment: matched by the position it leaves
    assert RULES.play(rolled, RULES.parse_move("24/13")) == RULES.play(
        rolled, RULES.parse_move("24/18/13")
    )
    assert RULES.resolve(rolled, RULES.parse_move("24/13")) in RULES.legal_moves(rolled)
    with pytest.raises(IllegalMoveError, match="with 6-5 the plays are"):
        RULES.play(rolled, RULES.parse_move("24/18"))
    with pytest.raises(IllegalMoveError, match="no checker on your point 20"):
        RULES.play(rolled, RULES.parse_move("20/14"))


def test_codes_read_back_and_refuse_what_no_play_has() -> None:
    rolled = RULES.play(RULES.initial_position(), Roll(3, 3))
    for play in RULES.legal_moves(rolled):
        assert RULES.move_from_code(play.code) == play
        assert Play.parse(str(play)) == play
    for bad in (-1, 1 << 47, (1 << 40) | 3, (5 << 40)):
        with pytest.raises(ValueError, match="code of no play"):
            RULES.move_from_code(bad)


def test_the_network_sees_both_sides_in_the_mover_s_numbering() -> None:
    position = RULES.play(RULES.initial_position(), Roll(3, 1))
    active = np.zeros(32, dtype=np.int64)
    values = np.zeros(32, dtype=np.float32)
    n = kernels.set_inputs(position.encode(), active, values)
    # fifteen on each head: four inputs a side, 1, 1, 1 and (15 - 3) / 2
    assert n == 8 and values[:n].sum() == pytest.approx(2 * (3 + 6))
    # the mover's head is its point 24; the other side's, half a board on, the mover's 12
    assert sorted(active[:n].tolist()) == [92, 93, 94, 95] + [
        kernels.SIDE_INPUTS + 4 * 11 + k for k in range(4)
    ]


def test_stacks_of_eight_or_more_on_a_word_s_top_slot_encode_as_the_kernels_do() -> None:
    # Point 16 is the 16th four-bit slot of a side's first word: 8 checkers set its sign bit.
    for white_to_move in (True, False):
        stacked = Position(side({16: 9, 24: 6}), side({16: 8, 24: 7}), white_to_move, None)
        state = stacked.encode()
        assert state[0] < 0 and state[2] < 0
        assert Position.decode(state) == stacked
        assert stacked.key == kernels.position_key(state)
        rolled = RULES.play(stacked, Roll(6, 5))
        plays = RULES.plays(rolled)
        assert plays and all(Position.decode(c.encode()) == c for c in plays.values())


def test_the_board_shows_each_side_s_checkers_and_whose_turn() -> None:
    board = RULES.draw_board(RULES.play(RULES.initial_position(), Roll(3, 1)))
    assert "15W" in board and "15B" in board and board.endswith("White to play 3-1")
