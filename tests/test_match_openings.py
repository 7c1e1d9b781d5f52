"""Match openings: their settings, and openings that depend only on (seed, pair)."""

from __future__ import annotations

import pytest

from samuel.games.game import Game
from samuel.games.tigers.rules import RULES
from samuel.match.openings import (
    OpeningConfig,
    as_opening_config,
    opening_moves,
    parse_opening_plies,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4", OpeningConfig(4, 4)),
        ("2-6", OpeningConfig(2, 6)),
        (" 0 ", OpeningConfig(0, 0)),
    ],
)
def test_opening_plies_are_a_number_or_a_range(text, expected):
    assert parse_opening_plies(text) == expected
    assert str(parse_opening_plies(str(expected))) == str(expected)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("four", "a number or a range such as 2-6, not 'four'"),
        ("6-2", "0 <= low <= high <= 40, not 6-2"),
        ("-1", "a number or a range"),
        ("2-99", "not 2-99"),
    ],
)
def test_bad_opening_plies_say_what_is_valid(text, phrase):
    with pytest.raises(ValueError) as error:
        parse_opening_plies(text)
    assert phrase in str(error.value)


def test_opening_settings_come_in_several_forms():
    assert as_opening_config(4, "tigers") == OpeningConfig(4, 4)
    assert as_opening_config((2, 6), "tigers") == OpeningConfig(2, 6)
    assert as_opening_config("3-5", "tigers") == OpeningConfig(3, 5)
    assert as_opening_config(OpeningConfig(1, 2), "tigers") == OpeningConfig(1, 2)
    # none given: the game's own (a game with dice needs no random plies)
    assert as_opening_config(None, "draughts") == OpeningConfig(4, 4)
    assert as_opening_config(None, "backgammon") == OpeningConfig(0, 0)


def test_openings_are_legal_of_the_drawn_length_and_depend_only_on_seed_and_pair():
    config = OpeningConfig(2, 6)
    openings = [opening_moves(RULES, config, seed=5, pair=pair) for pair in range(40)]
    assert {len(moves) for moves in openings} == {2, 3, 4, 5, 6}
    for moves in openings:
        game = Game(RULES)
        for move in moves:
            game.play(move)  # raises if a move is illegal
        assert game.outcome is None
    assert openings == [opening_moves(RULES, config, seed=5, pair=pair) for pair in range(40)]
    assert len(set(openings)) >= 38  # pairs get different openings (a repeat is rare)
    assert opening_moves(RULES, config, seed=6, pair=0) != openings[0]
    assert opening_moves(RULES, OpeningConfig(0, 0), seed=5, pair=0) == ()
