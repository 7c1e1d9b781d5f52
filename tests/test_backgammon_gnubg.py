"""Samuel's backgammon against GNU Backgammon's own code (the PyPI package ``gnubg``, which the
tests install): the plays of a roll, as the positions they leave, for ten thousand positions of
seeded random games (entering from the bar, bearing off and doubles among them); Position IDs
both ways; and each side reading the other's notation of every play."""

from __future__ import annotations

import random

import numpy as np
import pytest

from samuel.games.backgammon import board, kernels
from samuel.games.backgammon.gnubg_bridge import after_gnubg_move, gnubg_board, gnubg_steps
from samuel.games.backgammon.notation import board_of_position_id, position_id
from samuel.games.backgammon.rules import RULES, Play, Position, Roll

gnubg = pytest.importorskip("gnubg")
pytestmark = pytest.mark.slow  # ten thousand positions: about 40 s

POSITIONS = 10_000


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions with dice rolled, from seeded random games played to their end."""
    rng = random.Random(seed)
    found: list[Position] = []
    state = np.empty(board.STATE_WORDS, dtype=np.int64)
    moves = np.empty(board.MAX_PLAYS, dtype=np.int64)
    while len(found) < count:
        position = RULES.initial_position()
        while position.winner() is None and len(found) < count:
            high, low = sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)
            position = Position(position.x, position.o, position.x_to_move, Roll(high, low))
            found.append(position)
            n = kernels.generate_plays(position.encode(), moves)
            kernels.play_move(position.encode(), int(moves[rng.randrange(n)]), state)
            position = Position.decode(state)
    return found


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    return random_positions(POSITIONS, seed=2026)


def test_the_positions_cover_the_bar_the_bear_off_and_doubles(positions) -> None:
    on_bar = sum(1 for p in positions if p.mover[24])
    bearing_off = sum(1 for p in positions if not any(p.mover[6:]))
    doubles = sum(1 for p in positions if p.dice.is_double)
    passes = sum(1 for p in positions if RULES.legal_moves(p) == [Play(())])
    assert min(on_bar, bearing_off, doubles, passes) > 100, (on_bar, bearing_off, doubles, passes)


def test_the_plays_of_every_roll_are_gnubgs(positions) -> None:
    """Every position's plays are gnubg's, as the positions they leave: one for one where gnubg's
    tuple tells the whole play; where it stops at a move off (in the bear-off), the play it
    stands for is one of Samuel's that has those steps."""
    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 0, 1, 0.0)
    cut = 0
    for position in positions:
        plays = RULES.plays(position)
        found = gnubg.findbestmoves(
            gnubg_board(position), cube, context, (position.dice.high, position.dice.low)
        )
        if not found:  # gnubg lists no move when none can be played: Samuel's pass
            assert list(plays) == [Play(())], str(position)
            continue
        assert len(found) == len(plays), str(position)
        whole = [m["move"] for m in found if len(m["move"]) % 2 == 0]
        cut_short = [m["move"] for m in found if len(m["move"]) % 2 == 1]
        ours = {str(child) for child in plays.values()}
        theirs = {str(after_gnubg_move(position, move)) for move in whole}
        assert theirs <= ours and len(theirs) == len(whole), str(position)
        for move in cut_short:  # a play of Samuel's with these steps, which gnubg did not tell
            steps = gnubg_steps(move)
            assert any(
                str(child) not in theirs and _has_steps(play, steps)
                for play, child in plays.items()
            ), (str(position), move)
            cut += 1
    assert cut > 0  # the bear-off's moves off were met


def _has_steps(play: Play, steps: list[tuple[int, int]]) -> bool:
    """Whether ``play`` makes each of ``steps`` (as many times as they are listed)."""
    left = [(start, to) for start, to, _ in play.steps]
    for step in steps:
        if step not in left:
            return False
        left.remove(step)
    return True


def test_position_ids_are_gnubgs_both_ways(positions) -> None:
    for position in positions[::4]:
        ours = position_id(position.mover, position.opponent)
        assert ours == gnubg.positionid(gnubg_board(position))
        theirs = gnubg.positionfromid(ours)
        assert board_of_position_id(ours) == (tuple(theirs[1]), tuple(theirs[0]))
        assert RULES.parse_position(str(position)) == position


def test_each_side_reads_the_others_notation(positions) -> None:
    cube, context = gnubg.cube_info(), gnubg.eval_context(0, 0, 0, 1, 0.0)
    for position in positions[::10]:
        plays = RULES.plays(position)
        for play, child in plays.items():
            if play.steps:  # gnubg reads Samuel's text as the same checker moves
                assert after_gnubg_move(position, _pairs(gnubg.parsemove(str(play)))) == child
        dice = (position.dice.high, position.dice.low)
        for found in gnubg.findbestmoves(gnubg_board(position), cube, context, dice):
            if len(found["move"]) % 2:
                continue  # cut at a move off: see gnubg_steps
            text = gnubg.movetupletostring(found["move"], gnubg_board(position))
            assert RULES.play(position, RULES.parse_move(text)) == after_gnubg_move(
                position, found["move"]
            ), text


def _pairs(parsed: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    return tuple(point for pair in parsed for point in pair)


def test_match_ids_are_gnubgs_both_ways() -> None:
    from samuel.games.backgammon.notation import MatchState, match_id, parse_match_id

    # (the bindings put the higher die first; a Match ID may hold them in either order)
    rng = random.Random(7)
    for _ in range(2000):
        length = rng.choice([0, 0, 1, 3, 5, 7, 11, 25])
        score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
        dice = (
            tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True))
            if rng.random() < 0.5
            else (0, 0)
        )
        state = MatchState(
            cube=1 << rng.randrange(7),
            cube_owner=rng.choice([None, 0, 1]),
            on_roll=rng.randrange(2),
            crawford=bool(length) and rng.random() < 0.2,
            game_state=rng.randrange(5),
            turn=rng.randrange(2),
            doubled=rng.random() < 0.2,
            resigned=rng.randrange(4),
            dice=dice,
            match_length=length,
            score=score,
            jacoby=not length and rng.random() < 0.7,
        )
        owner = -1 if state.cube_owner is None else 1 - state.cube_owner
        cube = gnubg.cube_info(
            state.cube, owner, 1 - state.on_roll, length, score[::-1], int(state.crawford), 0
        )
        cube["jacoby"] = int(state.jacoby)
        position = gnubg.posinfo(
            1 - state.turn, state.resigned, int(state.doubled), state.game_state, dice
        )
        assert match_id(state) == gnubg.matchid(cube, position), state
        assert parse_match_id(match_id(state)) == state
