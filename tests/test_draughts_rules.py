"""The rules of English draughts (docs/rules-draughts.md) against the slow reference in
``tests/reference/draughts_rules.py``: perft, legal moves, make-move, game ends, the 40-move rule,
the half-turn symmetry, PDN notation and its errors, the classic evaluation and the network
inputs, and the compiled kernels against the friendly API."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import numpy as np
import pytest

import tests.test_games_conformance as conformance
from samuel.games import get_game
from samuel.games.base import IllegalMoveError, NotationError, Outcome
from samuel.games.base import Termination as GameTermination
from samuel.games.draughts import classic, kernels
from samuel.games.draughts.board import MAX_MOVES, START_BLACK, START_WHITE
from samuel.games.draughts.rules import (
    RULES,
    Move,
    Position,
    Termination,
    draw_board,
    format_position,
)
from samuel.games.game import Game
from tests import game_numbers
from tests.reference import draughts_rules as ref

PERFT_FROM_START = {  # docs/rules-draughts.md
    1: 7,
    2: 49,
    3: 302,
    4: 1469,
    5: 7361,
    6: 36768,
    7: 179740,
    8: 845931,
    9: 3963680,
    10: 18391564,
}
DIAMOND = "W:WK2,22,23,25,26,27,28,29,30,31,32:B1,4,5,6,7,8,12,13,14,15"  # docs/rules-draughts.md


def to_reference(position: Position) -> ref.ReferencePosition:
    """The engine's position as the reference's, read square by square (bit s - 1 is square s)."""
    board = {}
    for s in range(1, 33):
        bit = 1 << (s - 1)
        king = bool(position.kings & bit)
        if position.black & bit:
            board[ref.square_of(s)] = "B" if king else "b"
        elif position.white & bit:
            board[ref.square_of(s)] = "W" if king else "w"
    return ref.ReferencePosition(board, position.black_to_move)


def engine_perft(position: Position, depth: int) -> int:
    return kernels.perft(
        position.black, position.white, position.kings, int(position.black_to_move), depth
    )


def random_game(rng: random.Random, plies: int) -> list[Position]:
    """A random game from the start; captures are compulsory, so games soon thin out and crown."""
    positions = [Position.initial()]
    while len(positions) <= plies:
        moves = positions[-1].legal_moves()
        if not moves:
            break
        positions.append(positions[-1].play_unchecked(rng.choice(moves)))
    return positions


@cache
def sample_positions() -> tuple[Position, ...]:
    """Positions from seeded random games, the same every run."""
    rng = random.Random(20261130)
    positions: list[Position] = []
    for _ in range(40):
        positions += random_game(rng, plies=200)
    return tuple(positions)


# -- perft ----------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft_from_the_start_is_the_rules_figure(depth: int) -> None:
    assert engine_perft(Position.initial(), depth) == PERFT_FROM_START[depth]


def test_perft_10_from_the_start() -> None:
    assert Position.initial().perft(10) == PERFT_FROM_START[10]


def test_the_reference_perft_from_the_start() -> None:
    assert [ref.perft(ref.initial(), depth) for depth in range(1, 5)] == [7, 49, 302, 1469]


def test_perft_of_depth_0_is_one() -> None:
    assert Position.initial().perft(0) == 1
    with pytest.raises(ValueError, match="perft depth"):
        Position.initial().perft(-1)


def test_a_king_can_take_a_diamond_either_way_round() -> None:
    position = Position.parse(DIAMOND)
    assert sorted(str(m) for m in position.legal_moves()) == ["2x11x18x9x2", "2x9x18x11x2"]
    assert [position.perft(d) for d in range(1, 5)] == [2, 10, 58, 290]
    assert [ref.perft(to_reference(position), d) for d in range(1, 4)] == [2, 10, 58]
    one, other = position.legal_moves()
    assert one.captured != other.captured and set(one.captured) == set(other.captured)
    assert position.play(one) == position.play(other)


def test_a_man_crowned_by_a_capture_stops_but_a_king_goes_on() -> None:
    man = Position.parse("B:W25,26:B23")
    assert [str(m) for m in man.legal_moves()] == ["23x30"]
    crowned = man.play(Move.parse("23x30"))
    assert str(crowned) == "W:W25:BK30"
    king = Position.parse("B:W25,26:BK23")
    assert [str(m) for m in king.legal_moves()] == ["23x30x21"]
    assert str(king.play(Move.parse("23x30x21"))) == "W:W:BK21"
    for position in (man, king):
        assert sorted(str(m) for m in position.legal_moves()) == sorted(
            ref.legal_moves(to_reference(position))
        )


def test_captures_are_compulsory_and_any_sequence_may_be_chosen() -> None:
    # Black's man on 12 can take 16 (and stop); the man on 9 can take 14 and then 22.
    position = Position.parse("B:W14,16,22:B9,12")
    moves = sorted(str(m) for m in position.legal_moves())
    assert moves == sorted(ref.legal_moves(to_reference(position))) == ["12x19", "9x18x25"]
    with pytest.raises(IllegalMoveError, match="captures are compulsory"):
        position.play(Move.parse("12-16"))


# -- the engine against the reference on many positions -------------------------------------


def test_the_sample_covers_kings_captures_and_ends() -> None:
    seen: Counter[str] = Counter()
    for position in sample_positions():
        moves = position.legal_moves()
        if position.kings & position.black:
            seen["black king"] += 1
        if position.kings & position.white:
            seen["white king"] += 1
        if any(m.is_capture for m in moves):
            seen["capture"] += 1
        if any(m.jumps > 1 for m in moves):
            seen["multi-jump"] += 1
        if any(m.jumps > 1 and (position.kings >> (m.origin - 1)) & 1 for m in moves):
            seen["king multi-jump"] += 1
        outcome = position.decided_outcome()
        seen[outcome.termination.name if outcome else "open"] += 1
    assert len(sample_positions()) > 2000
    for kind in ("black king", "white king", "capture", "open"):
        assert seen[kind] >= 100, (kind, seen)
    assert seen["multi-jump"] >= 50 and seen["king multi-jump"] >= 5, seen
    assert seen[Termination.NO_LEGAL_MOVE.name] >= 10, seen


@pytest.mark.slow
def test_legal_moves_agree_with_the_reference() -> None:
    for position in sample_positions():
        reference = to_reference(position)
        assert ref.format_position(reference) == str(position).split(":Q")[0]
        moves = [str(move) for move in position.legal_moves()]
        assert len(moves) == len(set(moves)), str(position)
        assert sorted(moves) == sorted(ref.legal_moves(reference)), str(position)
        args = (position.black, position.white, position.kings, int(position.black_to_move))
        assert kernels.count_moves(*args) == len(moves) <= MAX_MOVES
        outcome = position.decided_outcome()
        if not moves:
            assert outcome == Outcome.from_result(
                Termination.NO_LEGAL_MOVE, -1 if position.black_to_move else 1
            )


def test_every_move_makes_the_reference_position() -> None:
    for position in sample_positions()[::4]:
        reference = to_reference(position)
        for move in position.legal_moves():
            child = position.play(move)
            assert to_reference(child) == ref.apply(reference, str(move)), (str(position), move)
            assert bin(child.black | child.white).count("1") == bin(
                position.black | position.white
            ).count("1") - len(move.captured)


@pytest.mark.slow
def test_perft_3_agrees_with_the_reference_on_positions_from_play() -> None:
    positions = sample_positions()
    chosen = [p for p in positions[::25]] + [p for p in positions if p.kings][::40]
    assert sum(1 for p in chosen if p.kings) >= 40
    for position in chosen:
        assert engine_perft(position, 3) == ref.perft(to_reference(position), 3), str(position)


# -- the kernels against the friendly API over random games ---------------------------------


def test_the_kernels_agree_with_the_friendly_api() -> None:
    rng = random.Random(7)
    for _ in range(20):
        game = Game(RULES)
        while game.outcome is None and game.ply < 300:
            position = game.position
            state = RULES.encode(position)
            assert Position.decode(state) == position
            assert RULES.key(position) == kernels.position_key(*state[:4])
            buffer = np.empty(MAX_MOVES, dtype=np.int64)
            n = kernels.generate_moves(*state[:4], buffer)
            assert [Move(int(c)) for c in buffer[:n]] == position.legal_moves()
            move = rng.choice(game.legal_moves())
            assert Move.from_code(RULES.move_code(move)) == move
            child = Position.decode(np.array(kernels.play_move(*state, move.code)))
            assert child == position.play(move)
            irreversible = RULES.is_irreversible(position, move)
            assert irreversible == (
                move.is_capture or not (position.kings >> (move.origin - 1)) & 1
            )
            assert child.quiet_plies == (0 if irreversible else position.quiet_plies + 1)
            result = kernels.decided_result(*kernels.play_move(*state, move.code))
            decided = child.decided_outcome()
            assert (result == kernels.NOT_OVER) == (decided is None)
            if decided is not None:
                assert decided.result == result
            game.play(move)


# -- the end of the game --------------------------------------------------------------------


def test_no_pieces_or_no_move_loses() -> None:
    assert Position.parse("B:W5:B").decided_outcome() == Outcome.from_result(
        Termination.NO_LEGAL_MOVE, -1
    )
    assert Position.parse("W:W:B5").decided_outcome() == Outcome.from_result(
        Termination.NO_LEGAL_MOVE, 1
    )
    blocked = Position.parse("W:W29:B25,K22")  # White's man on 29 is hemmed in
    assert blocked.legal_moves() == []
    assert blocked.decided_outcome() == Outcome.from_result(Termination.NO_LEGAL_MOVE, 1)
    with pytest.raises(IllegalMoveError, match="no legal move"):
        blocked.play(Move.parse("29-25"))


def test_the_40_move_rule() -> None:
    position = Position.parse("B:WK29:BK4")
    shuffle = ["4-8", "29-25", "8-4", "25-29"]
    for ply in range(80):
        assert position.decided_outcome() is None
        assert position.quiet_plies == ply
        position = position.play(Move.parse(shuffle[ply % 4]))
    assert position.quiet_plies == 80
    assert position.decided_outcome() == Outcome.from_result(Termination.FORTY_MOVE_RULE, 0)
    assert str(position) == "B:WK29:BK4:Q80"
    assert Position.parse(str(position)) == position
    # A man's move or a capture starts the count again.
    assert Position.parse("B:WK29:BK4,5:Q50").play(Move.parse("5-9")).quiet_plies == 0
    taken = Position.parse("B:WK29,K8:BK4:Q50").play(Move.parse("4x11"))
    assert taken.quiet_plies == 0
    # No move at all is a loss even on the 80th quiet ply.
    assert Position.parse("W:W29:B25,K22:Q80").decided_outcome().result == 1


def test_threefold_repetition_in_a_game() -> None:
    game = Game(RULES, start=Position.parse("B:WK29,32:BK4,1"))
    for _ in range(2):
        for text in ("4-8", "29-25", "8-4", "25-29"):
            game.play_text(text)
    assert game.outcome == Outcome.from_result(GameTermination.REPETITION, 0)


# -- the half-turn symmetry -----------------------------------------------------------------


@pytest.mark.slow
def test_the_half_turn_keeps_perft_moves_and_inputs_and_negates_the_evaluation() -> None:
    weights = classic.load_weights()
    scratch = np.empty(classic.FEATURE_COUNT)
    for position in sample_positions()[::30]:
        image = position.transformed(1)
        assert image.transformed(1) == position and position.transformed(0) == position
        assert str(to_reference(image) and ref.format_position(to_reference(image))) == (
            ref.format_position(ref.half_turn(to_reference(position)))
        )
        assert engine_perft(image, 3) == engine_perft(position, 3)
        assert sorted(str(m.transformed(1)) for m in position.legal_moves()) == sorted(
            str(m) for m in image.legal_moves()
        )
        assert np.array_equal(image.network_inputs(), position.network_inputs())
        value = classic.classic_evaluate(*position.encode()[:4], weights, scratch)
        image_value = classic.classic_evaluate(*image.encode()[:4], weights, scratch)
        assert image_value == -value
    with pytest.raises(ValueError, match="symmetries 0 and 1"):
        Position.initial().transformed(2)


# -- notation -------------------------------------------------------------------------------


def test_positions_and_moves_read_back_what_they_write() -> None:
    for position in sample_positions()[::10]:
        text = format_position(position)
        assert Position.parse(text) == position and str(Position.parse(text)) == text
        for move in position.legal_moves():
            assert Move.parse(str(move)) == move
            assert position.parse_move(str(move)) == move
            assert Move.from_code(move.code) == move


def test_fen_accepts_ranges_any_field_order_and_empty_sides() -> None:
    start = Position.initial()
    assert Position.parse("B:W21-32:B1-12") == start
    assert Position.parse("B:B1,2,3,4,5,6,7,8,9,10,11,12:W21-32") == start
    assert Position.parse(" B:W21-32:B1-12. ") == start
    assert Position.parse("W:WK1-3:B") == Position(0, 0b111, 0b111, False)
    assert Position(START_BLACK, START_WHITE, 0, True) == start


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("B:W21-32", "expected the side to move and each colour"),
        ("X:W21:B1", "side to move is B or W"),
        ("B:W21:W1", "one field of White's squares"),
        ("B:W21:B1,a", "'a' is not a square"),
        ("B:W21:B0", "square 0 is not on the board"),
        ("B:W21:B33", "square 33 is not on the board"),
        ("B:W21:B21", "square 21 is used twice"),
        ("B:W21:B1,1", "square 1 is used twice"),
        ("B:W21:B1-13", "Black has 13 pieces"),
        ("B:W1-12,K13:B20", "White has 13 pieces"),
        ("B:W21:B30", "black man on 30"),
        ("B:W3:B10", "white man on 3"),
        ("B:W21:B5-2", "runs backwards"),
        ("B:W21:B1:X5", "the fourth field is the 40-move count"),
    ],
)
def test_fen_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Position.parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is not a move"),
        ("11", "is not a move"),
        ("11_15", "is not a move"),
        ("11-20", "not diagonal neighbours"),
        ("0-4", "square 0 is not on the board"),
        ("29-33", "square 33 is not on the board"),
        ("15x20", "is not one jump"),
        ("1x10x1x10x1x10x1x10x1x10x1x10x1x10", "at most 12"),
    ],
)
def test_move_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Move.parse(text)


def test_short_captures_are_read_against_the_position() -> None:
    position = Position.parse("B:W14,16,22:B9,12")
    assert str(position.parse_move("9x25")) == "9x18x25"
    assert position.parse_move("12x19") == Move.parse("12x19")
    with pytest.raises(IllegalMoveError, match="the captures from 9 are 9x18x25"):
        position.parse_move("9x18")
    with pytest.raises(IllegalMoveError, match="no piece on 10"):
        position.parse_move("10x19")
    with pytest.raises(NotationError, match="ambiguous.*full path"):
        Position.parse(DIAMOND).parse_move("2x2")
    with pytest.raises(IllegalMoveError, match="no capture goes from 9 to 27.*9x18x25, 12x19"):
        position.parse_move("9x27")
    with pytest.raises(NotationError, match="is not a move"):
        position.parse_move("nine")
    with pytest.raises(NotationError, match="square 40"):
        position.parse_move("9x40")
    with pytest.raises(IllegalMoveError, match="captures are compulsory"):
        position.parse_move("12-16")


@pytest.mark.parametrize(
    ("position", "move", "message"),
    [
        ("B:W21-32:B1-12", "21-17", "Black has no piece on 21"),
        ("B:W30:B14", "14-9", "forward only"),
        ("B:W21-32:B1-12", "8-11", "11 is occupied"),
        ("B:W14,16,22:B9,12", "9x18", "the captures from 9 are 9x18x25"),
        ("B:W14,16,22:B9,12", "12x19x26", "the captures from 12 are 12x19"),
    ],
)
def test_illegal_moves_say_why(position: str, move: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        Position.parse(position).play(Move.parse(move))


def test_codes_and_masks_are_checked_before_they_reach_a_kernel() -> None:
    for bad in (-1, 1 << 60, 0 | (9 << 5), 0 | (9 << 5) | (1 << 10) | (2 << 14)):
        with pytest.raises(ValueError, match="is not a move code"):
            Move.from_code(bad)
    for args, message in [
        ((1 << 32, 0, 0, True), "32-bit mask"),
        ((1, 1, 0, True), "both a black and a white"),
        ((1, 2, 4, True), "belong to neither side"),
        ((1 << 30, 0, 0, True), "black man stands on 31"),
        ((1, 1 << 8, 0, True, -1), "quiet plies"),
    ]:
        with pytest.raises(ValueError, match=message):
            Position(*args)


def test_the_board_drawing_shows_every_piece() -> None:
    drawing = draw_board(Position.parse("W:WK14,30:B1,K23:Q3"))
    rows = drawing.splitlines()
    assert rows[0].split()[:2] == ["8", "b"] and rows[3].split()[:3] == ["5", ".", "W"]
    assert rows[5].split()[:4] == ["3", ".", ".", "B"] and rows[7].split()[:3] == ["1", ".", "w"]
    assert "White to move" in drawing and "3 plies" in drawing


# -- the classic evaluation and the network inputs ------------------------------------------


def test_the_classic_evaluation_is_the_courses() -> None:
    weights = classic.load_weights()
    # The course's weights (man 100, king 175, 3, 6, 4), with one man as the unit.
    assert dict(zip(classic.FEATURES, 100 * weights, strict=True)) == pytest.approx(
        {"men": 100, "kings": 175, "advance": 3, "back_row": 6, "centre": 4}
    )
    scratch = np.empty(classic.FEATURE_COUNT)
    start = Position.initial()
    assert classic.classic_evaluate(*start.encode()[:4], weights, scratch) == 0.0
    # Black: a man on 1 (back row, no advance), a man on 15 (row 3: 3 rows, centre), a king on
    # 18 (centre). White: a man on 30 (back row), a king on 5.
    position = Position.parse("B:W30,K5:B1,15,K18")
    features = np.empty(classic.FEATURE_COUNT)
    classic.classic_features(*position.encode()[:4], features)
    assert features.tolist() == [2 - 1, 1 - 1, 3 - 0, 1 - 1, 2 - 0]
    value = classic.classic_evaluate(*position.encode()[:4], weights, scratch)
    assert 100 * value == pytest.approx(100 + 9 + 8)


def test_classic_weights_files_are_checked(tmp_path) -> None:
    path = tmp_path / "weights.json"
    classic.save_weights(np.arange(5.0), path, note="test")
    assert classic.load_weights(path).tolist() == [0, 1, 2, 3, 4]
    path.write_text('{"weights": {"men": 1}}')
    with pytest.raises(classic.WeightsError, match="missing"):
        classic.load_weights(path)
    with pytest.raises(classic.WeightsError, match="does not exist"):
        classic.load_weights(tmp_path / "none.json")
    classic.save_weights(np.array([100.0, 175.0, 3.0, 6.0, 4.0]), path)  # scores up to 3,572
    with pytest.raises(classic.WeightsError, match="could score 3572, beyond the 500"):
        classic.load_weights(path)


def plain_inputs(position: Position) -> list[int]:
    """The 128 inputs written out plainly: my men, my kings, their men, their kings, with White
    seeing square s as 33 - s."""
    x = [0] * kernels.NETWORK_INPUTS
    me = position.black if position.black_to_move else position.white
    for s in range(1, 33):
        bit = 1 << (s - 1)
        view = s if position.black_to_move else 33 - s
        if not (position.black | position.white) & bit:
            continue
        group = (0 if me & bit else 2) + (1 if position.kings & bit else 0)
        x[32 * group + view - 1] = 1
    return x


def test_network_inputs_list_the_set_inputs() -> None:
    start = Position.initial()
    assert start.network_inputs().tolist() == list(range(12)) + list(range(84, 96))
    for position in sample_positions()[::7]:
        listed = position.network_inputs().tolist()
        assert listed == sorted(listed)
        assert listed == [i for i, v in enumerate(plain_inputs(position)) if v]


# -- the GameRules interface ----------------------------------------------------------------


def test_draughts_is_registered_so_the_conformance_checks_run_on_it() -> None:
    # tests/test_games_conformance.py runs every check over every registered game.
    assert get_game("draughts") is RULES and "draughts" in conformance.GAMES
    assert RULES.number == game_numbers.DRAUGHTS


def test_the_examples_in_the_docstrings_run() -> None:
    import doctest

    from samuel.games.draughts import rules

    for module in (rules, ref):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__


def test_keys_are_the_pieces_and_the_side_to_move() -> None:
    position = Position.parse("B:WK29:BK4")
    assert position.key == Position.parse("B:WK29:BK4:Q30").key  # the 40-move count is not in it
    assert position.key != Position.parse("W:WK29:BK4").key
    assert position.key != Position.parse("B:W29:BK4").key
    keys = {p.key for p in sample_positions()}
    assert len(keys) == len(
        {(p.black, p.white, p.kings, p.black_to_move) for p in sample_positions()}
    )


def test_a_game_ends_by_the_40_move_rule_or_repetition_whichever_comes_first() -> None:
    game = Game(RULES, start=Position.parse("B:WK29:BK4:Q76"))
    for text in ("4-8", "29-25", "8-11", "25-22"):  # four new positions, no capture, no man
        assert game.outcome is None
        game.play_text(text)
    assert game.position.quiet_plies == 80
    assert game.outcome == Outcome(termination=Termination.FORTY_MOVE_RULE, winner=None)
    # Keys leave the count out, so positions met again with a higher count still repeat.
    game = Game(RULES, start=Position.parse("B:WK29:BK4:Q70"))
    for text in ("4-8", "29-25", "8-4", "25-29") * 2:
        game.play_text(text)
    assert game.position.quiet_plies == 78
    assert game.outcome == Outcome(termination=GameTermination.REPETITION, winner=None)
