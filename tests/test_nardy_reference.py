"""The slow reference of long nardy (``tests/reference/nardy_rules.py``) on its own: the
reference perft counts, the one-line notation, and each rule on a position built by hand, with
the plays worked out by hand from the rules (not read off the code)."""

from __future__ import annotations

import pytest

from tests.reference import nardy_rules as ref

PERFT_FROM_START = {1: 22, 2: 484, 3: 35387, 4: 2411418}  # the reference counts of the rules


def after(*lines: str) -> set[str]:
    return set(lines)


def play_lines(text: str, die1: int, die2: int) -> set[str]:
    """The plays of a roll, each as the position it leaves, in notation."""
    return {ref.format(p) for p in ref.plays(ref.parse(text), die1, die2)}


@pytest.mark.parametrize("depth", [1, 2])
def test_perft_from_start(depth):
    assert ref.perft(ref.START, depth) == PERFT_FROM_START[depth]


@pytest.mark.slow
def test_perft_3_from_start():
    assert ref.perft(ref.START, 3) == PERFT_FROM_START[3]


# Depth 4 takes the reference 8 minutes: `benchmarks/nardy_speed.py --reference` counts it.


def test_start_and_point_numbering():
    assert ref.format(ref.START) == "24x15/24x15 w"
    assert ref.parse("24x15/24x15 w") == ref.START
    assert [ref.other_point(p) for p in (24, 12, 1, 13, 6)] == [12, 24, 13, 1, 18]
    assert all(ref.other_point(ref.other_point(p)) == p for p in range(1, 25))


@pytest.mark.parametrize("seed, blocks", [(0, False), (1, False), (2, True), (3, True)])
def test_notation_round_trips_over_random_games(seed, blocks):
    game = ref.random_game(seed, blocks)
    assert ref.result(game[-1]) is not None  # the game was played to its end
    for position in game:
        text = ref.format(position)
        assert ref.parse(text) == position
        assert ref.format(ref.parse(text)) == text


def test_random_games_follow_their_seed():
    assert ref.random_game(7) == ref.random_game(7)
    assert ref.random_game(7) != ref.random_game(8)
    assert ref.random_game(7, blocks=True) != ref.random_game(7)


@pytest.mark.parametrize(
    "text, why",
    [
        ("24x15/24x15", "side on roll"),
        ("24x15/24x15 x", "side on roll"),
        ("24x15 24x15 w", "separated"),
        ("24x16/24x15 w", "16 checkers"),
        ("24x14/24x15 w", "14 checkers"),
        ("20x1,24x14/24x15 w", "from 24 down"),
        ("25x15/24x15 w", "not a point"),
        ("24x14,12x1/24x15 w", "holds both sides"),
        ("24x0,23x15/24x15 w", "not an item"),
        ("offx15/offx15 w", "both sides"),
        ("24x9,9x1,8x1,7x1,6x1,5x1,4x1/24x15 b", "six points"),
    ],
)
def test_bad_positions_are_refused(text, why):
    with pytest.raises(ValueError, match=why):
        ref.parse(text)


def test_distinct_plays_from_the_start():
    """One play for every roll but 3-3, which has two (both checkers from the head)."""
    counts = {roll: len(ref.plays(ref.START, *roll)) for roll in ref.ROLLS}
    assert counts == {roll: 2 if roll == (3, 3) else 1 for roll in ref.ROLLS}
    assert len(ref.ROLLS) == 21


def test_first_turn_exception():
    """3-3, 4-4, 6-6 on the first turn take two from the head; White's 12 is Black's head, so
    6-6 and 4-4 stop short of it and 3-3 splits 3+1 or 2+2 steps."""
    assert play_lines("24x15/24x15 w", 3, 3) == after(
        "24x13,21x1,15x1/24x15 b", "24x13,18x2/24x15 b"
    )
    assert play_lines("24x15/24x15 w", 4, 4) == after("24x13,16x2/24x15 b")
    assert play_lines("24x15/24x15 w", 6, 6) == after("24x13,18x2/24x15 b")
    texts = ref.play_texts(ref.START, 3, 3)
    assert sorted(texts.values()) == ["24/15 24/21", "24/18(2)"]
    # Black's first turn too: its 18 is White's 6, its 12 White's head.
    assert play_lines("24x14,20x1/24x15 b", 6, 6) == after("24x14,20x1/24x13,18x2 w")
    # 5-5 is no exception: one checker, four steps.
    assert play_lines("24x15/24x15 w", 5, 5) == after("24x14,4x1/24x15 b")


def test_head_rule():
    """One checker from the head: 24/18 24/19 is no play, with or without a double."""
    assert play_lines("24x14,20x1/24x15 w", 6, 5) == after(
        "24x13,20x1,13x1/24x15 b",  # 24/13
        "24x13,18x1,15x1/24x15 b",  # 24/18 20/15
        "24x13,19x1,14x1/24x15 b",  # 24/19 20/14
        "24x14,9x1/24x15 b",  # 20/9
    )
    # Not the first turn: 6-6 takes one from the head (24/18, then 12 is Black's head), and the
    # checker on 16 plays two (16/10/4); a third six is nowhere to go.
    assert play_lines("24x14,16x1/24x15 w", 6, 6) == after("24x13,18x1,4x1/24x15 b")
    # 3-3 not on the first turn: one head checker (at most to 15), the rest on the 20.
    assert play_lines("24x14,20x1/24x15 w", 3, 3) == after(
        "24x14,8x1/24x15 b",
        "24x13,21x1,11x1/24x15 b",
        "24x13,18x1,14x1/24x15 b",
        "24x13,17x1,15x1/24x15 b",
    )


# White holds 7 and 5-1; 7/6 would make 7-1 its own and 6-1, 7-2 six in a row on Black's path
# (Black's 18-13, 19-14). 6-1: the six can only be 7/1, the one 7/6 or a step in home.
SIX_BLOCK_PLAYS = {
    "7x9,4x2,3x1,2x1,1x2",  # 7/1 5/4
    "7x9,5x1,3x2,2x1,1x2",  # 7/1 4/3
    "7x9,5x1,4x1,2x2,1x2",  # 7/1 3/2
    "7x9,5x1,4x1,3x1,1x3",  # 7/1 2/1
}


def test_six_block_with_no_opponent_checker_ahead_is_refused():
    """Black's checkers are all on its head, behind the six: 7/6 is refused."""
    lines = play_lines("7x10,5x1,4x1,3x1,2x1,1x1/24x15 w", 6, 1)
    assert lines == {f"{white}/24x15 b" for white in SIX_BLOCK_PLAYS}


def test_six_block_with_an_opponent_checker_ahead_is_allowed():
    """A Black checker on its 5 (White's 17), ahead of the six: 7/6 7/1 is a play too."""
    lines = play_lines("7x10,5x1,4x1,3x1,2x1,1x1/24x14,5x1 w", 6, 1)
    plays = SIX_BLOCK_PLAYS | {"7x8,6x1,5x1,4x1,3x1,2x1,1x2"}
    assert lines == {f"{white}/24x14,5x1 b" for white in plays}


def test_six_block_is_checked_after_each_step():
    """2-1 with no Black checker ahead: a step may not leave White on 6-2 (with 7, always held,
    six in a row). 7/5 7/6 is refused; 7/6 with 5/3, 4/2 or 3/1 is a play only because that step
    can come first."""
    assert play_lines("7x10,5x1,4x1,3x1,2x1,1x1/24x15 w", 2, 1) == {
        f"{white}/24x15 b"
        for white in (
            "7x9,5x1,4x2,3x1,2x1,1x1",  # 7/5 5/4, 7/4
            "7x9,5x2,3x2,2x1,1x1",  # 7/5 4/3
            "7x9,5x2,4x1,2x2,1x1",  # 7/5 3/2
            "7x9,5x2,4x1,3x1,1x2",  # 7/5 2/1
            "7x9,6x1,4x1,3x2,2x1,1x1",  # 5/3 then 7/6
            "7x9,6x1,5x1,3x1,2x2,1x1",  # 4/2 then 7/6
            "7x9,6x1,5x1,4x1,2x1,1x2",  # 3/1 then 7/6
            "7x10,4x1,3x1,2x2,1x1",  # 5/3 3/2, 5/4 4/2
            "7x10,3x3,2x1,1x1",  # 5/3 4/3
            "7x10,4x1,3x2,1x2",  # 5/3 2/1
            "7x10,5x1,2x3,1x1",  # 4/2 3/2
            "7x10,5x1,3x1,2x1,1x2",  # 4/2 2/1, 4/3 3/1
            "7x10,4x2,2x1,1x2",  # 3/1 5/4
            "7x10,5x1,4x1,1x3",  # 3/1 2/1
        )
    }


def test_a_six_on_the_way_refuses_a_play_that_ends_without_one():
    """9/5 with 3-1 ends with no six, but 9/6 first makes 7-2 White's (nothing of Black's ahead:
    its checkers are on its 20 and 24, White's 8 and 12) and 9/8 first lands on Black: no play.
    A step that makes the six is fine once another step has broken the run (5/4 then 9/6)."""
    assert play_lines("9x1,7x10,5x1,4x1,3x1,2x1/24x14,20x1 w", 3, 1) == {
        f"{white}/24x14,20x1 b"
        for white in (
            "7x10,6x1,4x2,3x1,2x1",  # 5/4 then 9/6
            "7x10,6x1,5x1,3x2,2x1",  # 4/3 then 9/6
            "7x10,6x1,5x1,4x1,2x2",  # 3/2 then 9/6
            "7x10,6x1,5x1,4x1,3x1,1x1",  # 2/1 then 9/6
            "9x1,7x9,4x3,3x1,2x1",  # 7/4 5/4
            "9x1,7x9,5x1,4x1,3x2,2x1",  # 7/4 4/3, 7/3
            "9x1,7x9,5x1,4x2,2x2",  # 7/4 3/2
            "9x1,7x9,5x1,4x2,3x1,1x1",  # 7/4 2/1
            "9x1,7x9,6x1,4x1,3x1,2x2",  # 5/2 then 7/6
            "9x1,7x10,3x2,2x2",  # 5/2 4/3
            "9x1,7x10,4x1,2x3",  # 5/2 3/2
            "9x1,7x10,4x1,3x1,2x1,1x1",  # 5/2 2/1, 5/4 4/1
            "9x1,7x9,6x1,5x1,3x1,2x1,1x1",  # 4/1 then 7/6
            "9x1,7x10,5x1,2x2,1x1",  # 4/1 3/2
            "9x1,7x10,5x1,3x1,1x2",  # 4/1 2/1
        )
    }
    ends_without_six = ref.parse("7x10,5x2,4x1,3x1,2x1/24x14,20x1 b")  # where 9/5 would go
    assert not ref.breaks_six_block(ends_without_six.white, ends_without_six.black)


def test_a_run_across_the_opponents_start_is_no_six_block():
    """White's 15-10 are Black's 3, 2, 1 and 24, 23, 22: Black's path does not go on from its 1
    to its 24, so 13/12 making them all White's is no six in a row, with no Black checker
    ahead of anything (all on Black's 21, White's 9)."""
    lines = play_lines("24x9,15x1,14x1,13x2,11x1,10x1/21x15 w", 1, 1)
    assert "24x8,21x1,15x1,14x1,13x1,12x1,11x1,10x1/21x15 b" in lines  # 13/12 24/21


def test_no_landing_on_an_opponent_checker():
    """One Black checker on White's 18 (Black's 6) keeps 24/18 out, even on the way."""
    assert play_lines("24x14,19x1/24x14,6x1 w", 6, 5) == after(
        "24x13,19x1,13x1/24x14,6x1 b",  # 24/19 19/13 or 19/13 24/19
        "24x14,8x1/24x14,6x1 b",  # 19/8
    )


def test_most_dice():
    """24/18 plays the larger die but leaves the five nowhere to go (18/13 and 8/3 land on Black);
    24/19 8/2 plays both, so it is the only play."""
    assert play_lines("24x14,8x1/24x13,15x1,1x1 w", 6, 5) == after(
        "24x13,19x1,2x1/24x13,15x1,1x1 b"
    )


def test_larger_die():
    """All 15 on the head, 13 held by Black: 24/18 or 24/19 but never both dice; the six wins."""
    assert play_lines("24x15/24x14,1x1 w", 6, 5) == after("24x14,18x1/24x14,1x1 b")
    # With 18 held by Black the six cannot be played: the five is.
    assert play_lines("24x15/24x13,6x1,1x1 w", 6, 5) == after("24x14,19x1/24x13,6x1,1x1 b")


def test_bearing_off_with_a_larger_die():
    """6-4 on 5, 3, 2: the six bears off the 5 (the highest); the four bears off the 3 once the
    5 has gone, else it must move the 5 inside (5/1), the 3 may not go off past the 5."""
    assert play_lines("5x1,3x1,2x1,offx12/24x15 w", 6, 4) == after(
        "2x1,offx14/24x15 b",  # 5/off 3/off
        "2x1,1x1,offx13/24x15 b",  # 5/1 3/off
    )
    texts = ref.play_texts(ref.parse("5x1,3x1,2x1,offx12/24x15 w"), 6, 4)
    assert sorted(texts.values()) == ["5/1 3/off", "5/off 3/off"]


def test_bearing_off_refused_while_a_checker_is_outside_home():
    """The checker on 9 cannot get home with 2-1, so 2/off and 1/off never come."""
    assert play_lines("9x1,3x1,2x1,offx12/24x15 w", 2, 1) == after(
        "6x1,3x1,2x1,offx12/24x15 b",  # 9/6
        "7x1,2x2,offx12/24x15 b",  # 9/7 3/2
        "7x1,3x1,1x1,offx12/24x15 b",  # 9/7 2/1
        "8x1,2x1,1x1,offx12/24x15 b",  # 9/8 3/1
        "9x1,1x2,offx12/24x15 b",  # 3/1 2/1
    )
    # Once the checker on 7 is home with the six, the five bears off the highest, the 3.
    assert play_lines("7x1,3x1,2x1,offx12/24x15 w", 6, 5) == after(
        "2x1,1x1,offx13/24x15 b",  # 7/1 3/off
        "2x2,offx13/24x15 b",  # 7/2 3/off
    )


def test_a_roll_with_no_play_passes():
    """Black on White's 21: 3-3 cannot leave the head (24/21), so the turn passes, and perft
    counts it as one; 1-2 plays only the two (23/21 and 22/21 are Black's); every other roll one
    play (4-4 and 6-6 two checkers to 16 and 18, stopped by Black's head on 12)."""
    position = ref.parse("24x15/24x14,9x1 w")
    assert ref.plays(position, 3, 3) == set()
    assert play_lines("24x15/24x14,9x1 w", 1, 2) == after("24x14,22x1/24x14,9x1 b")
    assert {roll: len(ref.plays(position, *roll)) for roll in ref.ROLLS} == {
        roll: 0 if roll == (3, 3) else 1 for roll in ref.ROLLS
    }
    assert ref.perft(position, 1) == 21
    assert ref.perft(position, 2) == sum(
        ref.perft(child, 1) for roll in ref.ROLLS for child in ref.plays(position, *roll)
    ) + ref.perft(ref.pass_turn(position), 1)


def test_win_mars_and_koks():
    assert ref.result(ref.START) is None
    assert ref.result(ref.parse("offx15/3x10,offx5 b")) == 1  # win: Black bore off some
    assert ref.result(ref.parse("offx15/18x5,6x10 b")) == 2  # mars: none off, none in 19-24
    assert ref.result(ref.parse("offx15/19x5,6x10 b")) == 3  # koks: none off, one in 19-24
    assert ref.result(ref.parse("24x1,13x14/offx15 w")) == -3  # Black's koks
    assert ref.result(ref.parse("1x1,offx14/offx15 w")) == -1
    # The last checker off ends the game; a finished game has no plays.
    (last,) = ref.plays(ref.parse("1x1,offx14/20x15 w"), 3, 2)
    assert ref.format(last) == "offx15/20x15 b"
    assert ref.result(last) == 3
    assert ref.plays(last, 6, 6) == set()
    # Black's nine points running were legal while White had a checker past them; White's last
    # checker off ends the game with them still there, and the finished position reads back.
    (end,) = ref.plays(ref.parse("1x1,offx14/9x1,8x1,7x2,6x1,5x1,4x1,3x1,2x2,1x5 w"), 2, 1)
    assert ref.format(end) == "offx15/9x1,8x1,7x2,6x1,5x1,4x1,3x1,2x2,1x5 b"
    assert ref.parse(ref.format(end)) == end and ref.result(end) == 2
