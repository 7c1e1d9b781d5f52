"""The rules of Tigers & Sheep (docs/rules-tigers.md) against the slow reference in
``tests/reference/tigers_rules.py``: perft, legal moves, make-move, game ends, symmetries,
notation, input errors, and every way a game can end under :class:`Game`."""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from functools import cache

import pytest

from samuel.games import get_game
from samuel.games.base import IllegalMoveError, NotationError, Outcome
from samuel.games.base import Termination as GameTermination
from samuel.games.game import Game
from samuel.games.tigers import kernels
from samuel.games.tigers.board import INVERSE_SYMMETRY
from samuel.games.tigers.rules import Move, Position, Termination, parse_point, point_name
from tests.reference import tigers_rules as ref

RULES = get_game("tigers")

PERFT_FROM_START = {1: 21, 2: 252, 3: 5052, 4: 68204}  # docs/rules-tigers.md
PERFT_5_FROM_START = 1304788  # ours: kernels.perft and the reference agree on it

REFERENCE_ENDS = {
    "five captured": Termination.FIVE_CAPTURED,
    "tigers blocked": Termination.TIGERS_BLOCKED,
    "sheep blocked": Termination.SHEEP_BLOCKED,
}


def to_reference(position: Position) -> ref.ReferencePosition:
    """The engine's position as the reference's, read point by point (i = x + 5*y)."""
    board = {}
    for y in range(5):
        for x in range(5):
            i = x + 5 * y
            if (position.tigers >> i) & 1:
                board[(x, y)] = ref.TIGER
            elif (position.sheep >> i) & 1:
                board[(x, y)] = ref.SHEEP
    return ref.ReferencePosition(board, position.sheep_in_hand, position.tiger_to_move)


def engine_perft(position: Position, depth: int) -> int:
    return kernels.perft(
        position.tigers, position.sheep, position.sheep_in_hand, int(position.tiger_to_move), depth
    )


def from_points(tigers: list[int], sheep: list[int], hand: int, tiger_to_move: bool) -> Position:
    return Position(sum(1 << p for p in tigers), sum(1 << p for p in sheep), hand, tiger_to_move)


def choose(rng: random.Random, position: Position, style: int) -> Move:
    """A random move. Style 0 is uniform; in style 1 the tigers jump whenever they can; in style
    2 the tigers never jump if they can help it and the sheep avoid moves that allow a jump, so
    that the sheep get to hem the tigers in."""
    moves = position.legal_moves()
    if position.tiger_to_move and style == 1:
        moves = [m for m in moves if m.is_jump] or moves
    elif position.tiger_to_move and style == 2:
        moves = [m for m in moves if not m.is_jump] or moves
    elif style == 2:
        safe = [
            m
            for m in moves
            if not any(reply.is_jump for reply in position.play_unchecked(m).legal_moves())
        ]
        moves = safe or moves
    return rng.choice(moves)


def random_game(rng: random.Random, start: Position, style: int, plies: int) -> list[Position]:
    positions = [start]
    while len(positions) <= plies and positions[-1].legal_moves():
        positions.append(positions[-1].play_unchecked(choose(rng, positions[-1], style)))
    return positions


def crowded_start(rng: random.Random) -> Position:
    """A random movement-phase position: 4 tigers, 16 to 20 sheep, none in hand."""
    points = rng.sample(range(25), 4 + rng.randint(16, 20))
    return from_points(points[:4], points[4:], 0, rng.random() < 0.5)


def sheep_traps() -> list[Position]:
    """Every empty point with at most four neighbours, ringed by tigers, every other point a
    sheep (20 of them, none in hand): the sheep to move have no step."""
    traps = []
    for empty in range(25):
        ring = [x + 5 * y for x, y in ref.neighbours((empty % 5, empty // 5))]
        if len(ring) > 4:
            continue
        others = [p for p in range(25) if p != empty and p not in ring]
        tigers = ring + others[: 4 - len(ring)]
        sheep = [p for p in others if p not in tigers]
        traps.append(from_points(tigers, sheep, 0, False))
    return traps


@cache
def sample_positions() -> tuple[Position, ...]:
    """A few thousand positions, the same every run: random games from the start in three
    styles, random games from crowded movement-phase positions, and the sheep traps."""
    rng = random.Random(20240611)
    positions: list[Position] = []
    for game in range(60):
        positions += random_game(rng, Position.initial(), game % 3, plies=150)
    for game in range(40):
        positions += random_game(rng, crowded_start(rng), game % 3, plies=30)
    positions += sheep_traps()
    return tuple(positions)


def every_nth(positions: tuple[Position, ...], n: int) -> list[Position]:
    return list(positions[::n])


# -- perft ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("depth", sorted(PERFT_FROM_START))
def test_perft_from_the_start_is_the_rules_figure(depth: int) -> None:
    assert engine_perft(Position.initial(), depth) == PERFT_FROM_START[depth]
    assert ref.perft(ref.initial(), depth) == PERFT_FROM_START[depth]


@pytest.mark.slow
def test_perft_5_from_the_start() -> None:
    assert engine_perft(Position.initial(), 5) == PERFT_5_FROM_START
    assert ref.perft(ref.initial(), 5) == PERFT_5_FROM_START


def test_perft_of_depth_0_is_one_and_a_finished_game_has_no_moves() -> None:
    five_captured = Position.parse("T3T/SSSSS/SSSSS/SSSSS/T3T S 0")
    assert five_captured.captured == 5
    assert engine_perft(five_captured, 0) == 1
    assert engine_perft(five_captured, 1) == engine_perft(five_captured, 3) == 0
    assert ref.perft(to_reference(five_captured), 1) == 0


# -- the engine against the reference on many positions -------------------------------------


def test_the_sample_covers_every_phase_and_every_end() -> None:
    seen: Counter[str] = Counter()
    for position in sample_positions():
        seen["placement" if position.sheep_in_hand else "movement"] += 1
        seen["tigers to move" if position.tiger_to_move else "sheep to move"] += 1
        if any(move.is_jump for move in position.legal_moves()):
            seen["a jump"] += 1
        if 0 < position.captured < 5:
            seen["some captured"] += 1
        outcome = position.decided_outcome()
        seen[outcome.termination.name if outcome else "open"] += 1
    assert len(sample_positions()) > 3000
    for kind in (
        "placement",
        "movement",
        "tigers to move",
        "sheep to move",
        "a jump",
        "some captured",
        "open",
    ):
        assert seen[kind] >= 300, (kind, seen)
    for end in Termination.FIVE_CAPTURED, Termination.TIGERS_BLOCKED, Termination.SHEEP_BLOCKED:
        assert seen[end.name] >= 5, (end, seen)


@pytest.mark.slow
def test_legal_moves_and_ends_agree_with_the_reference() -> None:
    for position in sample_positions():
        reference = to_reference(position)
        assert ref.format_position(reference) == str(position)
        moves = [str(move) for move in position.legal_moves()]
        assert len(moves) == len(set(moves)), str(position)
        assert sorted(moves) == ref.legal_moves(reference), str(position)
        assert kernels.count_moves(
            position.tigers, position.sheep, position.sheep_in_hand, int(position.tiger_to_move)
        ) == len(moves)
        expected = ref.outcome(reference)
        outcome = position.decided_outcome()
        if expected is None:
            assert outcome is None, str(position)
        else:
            assert outcome == Outcome.from_result(REFERENCE_ENDS[expected[0]], expected[1]), str(
                position
            )


@pytest.mark.slow
def test_every_move_makes_the_reference_position() -> None:
    for position in every_nth(sample_positions(), 3):
        reference = to_reference(position)
        for move in position.legal_moves():
            child = position.play(move)
            assert to_reference(child) == ref.play(reference, str(move)), (str(position), move)
            assert child.captured == position.captured + move.is_jump


@pytest.mark.slow
def test_perft_from_sampled_positions_agrees_with_the_reference() -> None:
    for depth, n in ((2, 20), (3, 60)):
        for position in every_nth(sample_positions(), n):
            assert engine_perft(position, depth) == ref.perft(to_reference(position), depth), (
                str(position),
                depth,
            )


# -- symmetries -----------------------------------------------------------------------------


def test_perft_is_the_same_from_all_eight_images() -> None:
    for position in every_nth(sample_positions(), 50):
        counts = {engine_perft(position.transformed(s), 3) for s in range(8)}
        assert len(counts) == 1, str(position)


def test_the_eight_images_are_the_squares_symmetries() -> None:
    for position in every_nth(sample_positions(), 10):
        images = {str(position.transformed(s)) for s in range(8)}
        expected = {ref.format_position(image) for image in ref.images(to_reference(position))}
        assert images == expected, str(position)
        for s in range(8):
            assert position.transformed(s).transformed(int(INVERSE_SYMMETRY[s])) == position


def test_the_eight_symmetries_are_distinct() -> None:
    lopsided = Position.parse("TT3/S4/5/5/T3T S 19")  # only the identity maps it onto itself
    assert len({lopsided.transformed(s) for s in range(8)}) == 8
    assert lopsided.transformed(0) == lopsided


def test_moves_map_onto_the_images_legal_moves() -> None:
    for position in every_nth(sample_positions(), 10):
        moves = position.legal_moves()
        for s in range(8):
            image = position.transformed(s)
            assert sorted(str(m.transformed(s)) for m in moves) == sorted(
                str(m) for m in image.legal_moves()
            ), (str(position), s)
            for move in moves[:3]:
                assert position.play(move).transformed(s) == image.play(move.transformed(s))


# -- notation -------------------------------------------------------------------------------


def test_every_point_name() -> None:
    names = [point_name(p) for p in range(25)]
    assert names[0] == "a1" and names[4] == "e1" and names[12] == "c3" and names[24] == "e5"
    for x, y in ref.all_points():
        assert point_name(x + 5 * y) == ref.point_name((x, y))
        assert parse_point(ref.point_name((x, y))) == x + 5 * y


def test_move_text_of_every_pair_of_points() -> None:
    """``p-q`` reads exactly when a line joins p and q; ``pxq`` exactly when a straight line runs
    from p over one point to q, which becomes the captured point."""
    for p in ref.all_points():
        for q in ref.all_points():
            step, jump = (
                f"{ref.point_name(p)}-{ref.point_name(q)}",
                f"{ref.point_name(p)}x{ref.point_name(q)}",
            )
            if ref.joined(p, q):
                assert Move.parse(step) == Move(
                    target=parse_point(step[3:]), origin=parse_point(step[:2])
                )
            else:
                with pytest.raises(NotationError, match="not joined by a line"):
                    Move.parse(step)
            over = [
                (p[0] + dx, p[1] + dy)
                for dx, dy in ref.line_directions(p)
                if (p[0] + 2 * dx, p[1] + 2 * dy) == q
            ]
            if over:
                move = Move.parse(jump)
                assert move.is_jump and str(move) == jump
                assert move.captured == over[0][0] + 5 * over[0][1]
            else:
                with pytest.raises(NotationError, match="straight along a line over one point"):
                    Move.parse(jump)


def test_moves_and_positions_round_trip() -> None:
    for position in sample_positions():
        assert Position.parse(str(position)) == position
        for move in position.legal_moves():
            assert Move.parse(str(move)) == move
            assert Move.from_code(move.code) == move


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("", "expected three fields"),
        ("T3T/5/5/5/T3T S", "expected three fields"),
        ("T3T/5/5/5/T3T S 20 0", "expected three fields"),
        ("T3T/5/5/T3T S 20", "needs 5 rows separated by '/', not 4"),
        ("T3T/5/5/5/5/T3T S 20", "needs 5 rows separated by '/', not 6"),
        ("T2T/5/5/5/T3T S 20", "covers 4 points, not 5"),
        ("T3/5/5/5/T3T S 20", "covers 4 points, not 5"),
        ("T3T/5/5/33/T3T S 20", "covers 6 points, not 5"),
        ("T3T/5/5/5/T3X S 20", "rows use T, S and digits 1-5"),
        ("T3T/5/5/05/T3T S 20", "rows use T, S and digits 1-5"),
        ("T3T/5/5/6/T3T S 20", "rows use T, S and digits 1-5"),
        ("T3T/5/5/5/T3t S 20", "rows use T, S and digits 1-5"),
        ("T3T/5/5/5/T3T X 20", "the side to move is S or T"),
        ("T3T/5/5/5/T3T s 20", "the side to move is S or T"),
        ("T3T/5/5/5/T3T S 21", "sheep in hand must be a number from 0 to 20"),
        ("T3T/5/5/5/T3T S -1", "sheep in hand must be a number from 0 to 20"),
        ("T3T/5/5/5/T3T S x", "sheep in hand must be a number from 0 to 20"),
        ("T4/5/5/5/T3T S 20", "exactly 4 tigers, not 3"),
        ("T1T1T/5/5/5/T3T S 20", "exactly 4 tigers, not 5"),
        ("T3T/SSSSS/SSSSS/SSSSS/T3T S 6", "more than 20 sheep"),
        ("T3T/5/5/5/T3T T 14", "6 sheep captured, but the game ends at 5"),
        ("T3T/5/5/5/T3T T 20", "the sheep move first"),
    ],
)
def test_malformed_positions_say_what_is_wrong(text: str, phrase: str) -> None:
    with pytest.raises(NotationError, match=phrase):
        Position.parse(text)


@pytest.mark.parametrize("text", ["T3TS/5/5/5/T3T S 19", "T4T/5/5/5/T3T S 20"])
def test_a_piece_past_the_end_of_a_row_is_an_error(text: str) -> None:
    with pytest.raises(NotationError, match="covers 6 points"):
        Position.parse(text)


def test_a_superscript_hand_is_a_notation_error() -> None:
    with pytest.raises(NotationError, match="sheep in hand"):
        Position.parse("T3T/5/5/5/T3T S ²")


def test_five_captured_is_a_valid_position() -> None:
    assert Position.parse("T3T/5/5/5/T3T S 15").captured == 5


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("", "is not a move"),
        ("hello", "is not a move"),
        ("c3-", "is not a move"),
        ("C3", "is not a move"),
        ("c3 d4", "is not a move"),
        ("a1+b2", "is not a move"),
        ("f1", "is not a point"),
        ("a6", "is not a point"),
        ("a0", "is not a point"),
        ("a1-a6", "is not a point"),
        ("a1-c1", "a1 and c1 are not joined by a line"),
        ("b1-c2", "b1 and c2 are not joined by a line"),
        ("a1-a1", "a1 and a1 are not joined by a line"),
        ("a1xb3", "a jump goes straight along a line over one point"),
        ("a1xa2", "a jump goes straight along a line over one point"),
        ("a1xe1", "a jump goes straight along a line over one point"),
        ("b1xd3", "a jump goes straight along a line over one point"),
        ("c3xc3", "a jump goes straight along a line over one point"),
    ],
)
def test_malformed_moves_say_what_is_wrong(text: str, phrase: str) -> None:
    with pytest.raises(NotationError, match=phrase):
        Move.parse(text)


@pytest.mark.parametrize("text", ["f1", "a6", "a0", "A1", "c", "c33", ""])
def test_off_board_points(text: str) -> None:
    with pytest.raises(NotationError, match="is not a point: points are a1 to e5"):
        parse_point(text)


def after(*moves: str, start: str | None = None) -> Position:
    position = Position.initial() if start is None else Position.parse(start)
    for move in moves:
        position = position.play(Move.parse(move))
    return position


@pytest.mark.parametrize(
    ("position", "move", "phrase"),
    [
        (after(), "a1", "a1 is occupied"),
        (after("c3", "a1-b2"), "b2", "b2 is occupied"),
        (after("b1"), "a1-b1", "b1 is occupied"),
        (after("b2", "a5-a4", "c3"), "a1xc3", "c3 is occupied"),
        (after(), "a1-b1", "there is no sheep on a1 to move"),
        (after("c3"), "c3-c4", "there is no tiger on c3 to move"),
        (after("c3", "a1-b2"), "c3-d4", "sheep cannot move until all are placed (19 in hand)"),
        (after("c3"), "d4", "it is the tigers' turn and tigers are not placed"),
        (after(start="T3T/SSSSS/SSSSS/SSSSS/T1S1T S 0"), "b1", "no sheep are left in hand"),
        (after("c3"), "a1xa3", "there is no sheep on a2 to jump"),
        (after(start="T3T/SSSSS/SSSSS/SSSSS/T3T T 0"), "a5-b5", "the game is over"),
    ],
)
def test_illegal_moves_say_why(position: Position, move: str, phrase: str) -> None:
    with pytest.raises(IllegalMoveError, match=re.escape(phrase)):
        position.play(Move.parse(move))


# -- how games end --------------------------------------------------------------------------


def game_from(start: str, ply_cap: int | None = None) -> Game:
    return Game(RULES, start=Position.parse(start), ply_cap=ply_cap)


def test_five_captured_wins_for_the_tigers() -> None:
    game = game_from("T3T/SSSSS/SSSSS/SSSSS/TS2T T 0")
    assert game.position.captured == 4 and game.outcome is None
    game.play_text("a1xc1")
    assert game.outcome == Outcome.from_result(Termination.FIVE_CAPTURED, 1)
    assert game.legal_moves() == []


def test_blocked_tigers_lose() -> None:
    # Tigers on a1 b1 a2 b2; the sheep fill every point they could step or jump to but d4.
    game = game_from("5/SS3/SSS2/TTSS1/TTSS1 S 11")
    assert game.outcome is None
    elsewhere = game.position.play(Move.parse("e5"))
    assert "b2xd4" in {str(m) for m in elsewhere.legal_moves()}
    game.play_text("d4")
    assert game.position.legal_moves() == []
    assert game.outcome == Outcome.from_result(Termination.TIGERS_BLOCKED, -1)


def test_blocked_sheep_lose() -> None:
    # Twenty sheep and one empty point b1; the tiger from a1 steps there and leaves a1 empty
    # with only tigers (b1 a2 b2) around it.
    game = game_from("SSSST/SSSSS/SSSSS/TTSSS/T1SSS T 0")
    assert game.outcome is None
    game.play_text("a1-b1")
    assert str(game.position) == "SSSST/SSSSS/SSSSS/TTSSS/1TSSS S 0"
    assert game.outcome == Outcome.from_result(Termination.SHEEP_BLOCKED, 1)


SHUFFLE = ["c1-d1", "a5-b5", "d1-c1", "b5-a5"]


def test_threefold_repetition_is_a_draw() -> None:
    game = game_from("T3T/SSSSS/SSSSS/SSSSS/T1S1T S 0")
    for ply, move in enumerate(SHUFFLE * 2, start=1):
        assert game.outcome is None, ply
        game.play_text(move)
    assert game.position == game.start  # the start's third occurrence
    assert game.outcome == Outcome.from_result(GameTermination.REPETITION, 0)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play_text("c1-d1")
    assert game.ply == 8


def test_repetition_needs_the_same_side_to_move() -> None:
    # A sheep walks the triangle b2 c2 c3 while a tiger steps a5-b5 and back: after 5 plies the
    # board is the start's with the tigers to move. Then 4-ply shuffles bring that back at plies
    # 9 and 13. The board is seen a third time at ply 9, the position only at ply 13.
    game = game_from("T1SST/SSSSS/SS1SS/SS1SS/TSSST S 0")
    triangle = ["b2-c2", "a5-b5", "c2-c3", "b5-a5", "c3-b2"]
    shuffle = ["a5-b5", "b2-c2", "b5-a5", "c2-b2"]
    for ply, move in enumerate(triangle + shuffle * 2, start=1):
        assert game.outcome is None, ply
        game.play_text(move)
    boards = Counter((p.tigers, p.sheep) for p in game.positions)
    assert boards[(game.start.tigers, game.start.sheep)] == 4
    assert game.ply == 13 and game.outcome == Outcome.from_result(GameTermination.REPETITION, 0)


def test_the_ply_cap_is_a_draw() -> None:
    game = Game(RULES, ply_cap=4)
    for move in ["c3", "a1-b2", "d4", "b2-a1"]:
        assert game.outcome is None
        game.play_text(move)
    assert game.outcome == Outcome.from_result(GameTermination.PLY_CAP, 0)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play_text("b4")


def test_undo_restores_the_position_and_the_outcome() -> None:
    game = game_from("T3T/SSSSS/SSSSS/SSSSS/T1S1T S 0")
    for move in SHUFFLE * 2:
        game.play_text(move)
    assert game.outcome == Outcome.from_result(GameTermination.REPETITION, 0)
    before_last = game.positions[-2]
    game.undo()
    assert game.outcome is None and game.position == before_last and game.ply == 7
    game.play_text(SHUFFLE[-1])
    assert game.outcome == Outcome.from_result(GameTermination.REPETITION, 0)

    # A move taken back no longer counts towards repetition.
    fresh = game_from("T3T/SSSSS/SSSSS/SSSSS/T1S1T S 0")
    for _ in range(3):
        fresh.play_text("c1-d1")
        assert fresh.outcome is None and fresh.ply == 1
        fresh.undo()
    assert fresh.position == fresh.start and len(fresh.history_keys()) == 1

    won = game_from("T3T/SSSSS/SSSSS/SSSSS/TS2T T 0")
    won.play_text("a1xc1")
    won.undo()
    assert won.outcome is None and won.position == won.start and won.moves == []
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        won.undo()


def test_a_game_can_start_finished() -> None:
    game = game_from("5/SS1S1/SSS2/TTSS1/TTSS1 T 10")
    assert game.outcome == Outcome.from_result(Termination.TIGERS_BLOCKED, -1)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play_text("a1-b1")


# -- Position as a value --------------------------------------------------------------------


def test_positions_are_hashable_values() -> None:
    one = after("c3", "a1-b2", "d4")
    other = after("d4", "a1-b2", "c3")
    assert one is not other and one == other and hash(one) == hash(other)
    assert one == Position.parse(str(one)) and hash(one) == hash(Position.parse(str(one)))
    assert len({one, other, Position.parse(str(one))}) == 1
    assert {one: "seen"}[other] == "seen"
    assert one != after("c3", "a1-b2", "d5")
    assert hash(Move.parse("a1xc3")) == hash(Move(target=12, origin=0, captured=6))


def test_positions_and_moves_are_immutable() -> None:
    position = Position.initial()
    with pytest.raises(dataclasses.FrozenInstanceError):
        position.sheep_in_hand = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Move.parse("c3").target = 0  # type: ignore[misc]
    text = str(position)
    child = position.play(Move.parse("c3"))
    assert child is not position and str(position) == text == "T3T/5/5/5/T3T S 20"
