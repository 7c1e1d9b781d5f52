"""The compiled alpha-beta search against plain minimax, and on positions with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.games import kernels as game_kernels
from samuel.games.game import Game
from samuel.games.tigers import classic
from samuel.games.tigers.rules import RULES, Move, Position
from samuel.search.alphabeta import WIN, Searcher
from tests import game_numbers
from tests.reference.minimax import forced_win_within, negamax

WEIGHTS = classic.load_weights()


def search(
    position: Position,
    depth: int,
    seed: int = 0,
    history: list[Position] | None = None,
    table_bits: int = 18,
):
    history = history or []
    keys = np.array([p.key for p in history] + [position.key], dtype=np.int64)
    return Searcher(game_numbers.TIGERS, table_bits=table_bits).search(
        position.encode(), keys, 0, game_kernels.EVALUATOR_CLASSIC, WEIGHTS, depth, seed=seed
    )


def random_positions(count: int, seed: int, movement_phase: bool) -> list[Position]:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        game = Game(RULES, ply_cap=120)
        while game.outcome is None:
            if (game.position.sheep_in_hand == 0) == movement_phase and rng.random() < 0.15:
                positions.append(game.position)
                break
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
    return positions


@pytest.mark.slow
@pytest.mark.parametrize("movement_phase", [False, True])
def test_alphabeta_score_equals_plain_minimax(movement_phase):
    for position in random_positions(12, seed=7 + movement_phase, movement_phase=movement_phase):
        for depth in (1, 2, 3):
            expected = negamax(position, depth, WEIGHTS, [])
            assert search(position, depth).score == pytest.approx(expected, abs=1e-9), (
                str(position),
                depth,
            )


def test_a_tiny_transposition_table_gives_the_same_scores():
    for position in random_positions(8, seed=3, movement_phase=True):
        assert search(position, 4, table_bits=2).score == pytest.approx(
            search(position, 4).score, abs=1e-9
        )


def test_finds_the_winning_capture():
    # Four sheep captured; a1xc1 or e1xc1 takes the fifth.
    position = Position.parse("T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0")
    for seed in range(8):
        result = search(position, 4, seed=seed)
        assert str(Move.from_code(result.best_move)) in ("a1xc1", "e1xc1")
        assert result.score == WIN - 1
        assert result.forced_plies == 1


def test_finds_the_sheeps_blocking_win_by_placement():
    # Placing the last sheep on b1 leaves the tigers without a move.
    position = Position.parse("TSSST/SSSSS/S1SSS/SSSSS/T1SST S 1")
    result = search(position, 3)
    assert str(Move.from_code(result.best_move)) == "b1"
    assert result.score == WIN - 1
    blocked = position.play(Move.parse("b1"))
    assert blocked.decided_outcome().result == -1


def test_finds_the_sheeps_blocking_win_by_a_step():
    # b1-b2 blocks the tigers at once; b3-b2 also wins, but later.
    position = Position.parse("SSSSS/STTSS/SSSST/S1TSS/1SS1S S 0")
    assert forced_win_within(position, 1)
    for seed in range(16):
        result = search(position, 5, seed=seed)
        assert str(Move.from_code(result.best_move)) == "b1-b2"
        assert result.score == WIN - 1


def test_prefers_the_faster_of_two_forced_wins():
    position = Position.parse("S1SSS/SSST1/SSTSS/2SSS/S1TTS T 0")
    fast, slow = Move.parse("c1-b2"), Move.parse("c3-b2")
    # Both moves win by force (the sheep to move after each), one in 3 plies, one in 5.
    after_fast, after_slow = position.play(fast), position.play(slow)
    assert all(forced_win_within(after_fast.play(r), 2) for r in after_fast.legal_moves())
    assert all(forced_win_within(after_slow.play(r), 4) for r in after_slow.legal_moves())
    assert not all(forced_win_within(after_slow.play(r), 2) for r in after_slow.legal_moves())
    for seed in range(16):
        result = search(position, 6, seed=seed)
        assert Move.from_code(result.best_move) == fast
        assert result.score == WIN - 3


def test_the_loser_puts_off_the_loss():
    # The tigers lose by force; the sheep's threat is b1-b2. The best defence loses as late as
    # possible, which is exactly what plain minimax says.
    position = Position.parse("SSSSS/STTSS/SSSST/S1TSS/1SS1S S 0").play(Move.parse("b3-b2"))
    expected = negamax(position, 4, WEIGHTS, [])
    assert expected < -(WIN - 100)
    assert search(position, 4).score == expected


def test_a_third_occurrence_scores_as_a_draw():
    # Make the result of one step a position that has occurred twice already: that step now
    # scores 0 (a draw by repetition), and the search takes the best of that and the rest.
    # (A jump cannot repeat an earlier position: it is irreversible.)
    checked = 0
    for position in random_positions(10, seed=11, movement_phase=True):
        scores = {}
        for move in position.legal_moves():
            scores[move] = -negamax(position.play(move), 0, WEIGHTS, [], ply=1)
        steps = [m for m in scores if not m.is_jump]
        if not steps:
            continue
        repeated = max(steps, key=scores.get)
        child = position.play(repeated)
        history = [child, position, child, position]
        result = search(position, 1, history=history)
        expected = max([0.0] + [s for m, s in scores.items() if m != repeated])
        assert result.score == pytest.approx(expected, abs=1e-9)
        assert search(position, 1).score == pytest.approx(max(scores.values()), abs=1e-9)
        checked += 1
    assert checked >= 5


def test_the_seed_breaks_ties_and_the_same_seed_gives_the_same_move():
    start = Position.initial()
    chosen = {str(Move.from_code(search(start, 1, seed=seed).best_move)) for seed in range(32)}
    # c5, a3, e3 and c1 are images of each other under the board's symmetries.
    assert chosen <= {"c5", "a3", "e3", "c1"} and len(chosen) > 1
    for seed in range(4):
        assert search(start, 3, seed=seed).best_move == search(start, 3, seed=seed).best_move


def test_time_budget_returns_a_completed_iteration():
    position = Position.initial()
    searcher = Searcher(game_numbers.TIGERS)
    keys = np.array([position.key], dtype=np.int64)
    result = searcher.search(
        position.encode(), keys, 0, game_kernels.EVALUATOR_CLASSIC, WEIGHTS, 60, seconds=0.05
    )
    assert 1 <= result.depth < 60
    assert Move.from_code(result.best_move) in position.legal_moves()


def test_searching_a_finished_position_is_an_error():
    finished = Position.parse("TSSST/SSSSS/S1SSS/SSSSS/TSSST T 0")
    assert finished.decided_outcome() is not None
    with pytest.raises(ValueError, match="over"):
        search(finished, 2)
