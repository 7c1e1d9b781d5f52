"""The compiled search on English draughts, reached through samuel.games.kernels' draughts
branch: plain minimax agrees, forced wins are found, captures are compulsory, repetition and the
40-move rule are draws."""

from __future__ import annotations

import random

import numpy as np
import pytest

from samuel.games import kernels as game_kernels
from samuel.games.draughts import classic
from samuel.games.draughts.rules import RULES, Move, Position
from samuel.games.game import Game
from samuel.search.alphabeta import WIN, WIN_BOUND, Searcher
from tests import game_numbers
from tests.reference.minimax import rules_forced_win_within, rules_negamax

WEIGHTS = classic.load_weights()


def classic_score(position: Position) -> float:
    """The classic evaluation, Black's view, as a plain dot product."""
    features = np.zeros(classic.FEATURE_COUNT)
    classic.classic_features(*position.encode()[:4], features)
    return float(sum(float(w) * float(f) for w, f in zip(WEIGHTS, features, strict=True)))


def search(position: Position, depth: int, seed: int = 0, history: list[Position] = ()):
    keys = np.array([p.key for p in history] + [position.key], dtype=np.int64)
    return Searcher(game_numbers.DRAUGHTS).search(
        position.encode(), keys, 0, game_kernels.EVALUATOR_CLASSIC, WEIGHTS, depth, seed=seed
    )


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions met in seeded random games, openings to endings with kings."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = Game(RULES, ply_cap=150)
        while game.outcome is None:
            if game.ply > 10 and rng.random() < 0.08:
                positions.append(game.position)
                break
            game.play(rng.choice(game.legal_moves()))
    return positions


def test_alphabeta_score_equals_plain_minimax() -> None:
    for position in random_positions(10, seed=3):
        for depth in (1, 2, 3):
            expected = rules_negamax(RULES, position, depth, classic_score, [])
            assert search(position, depth).score == pytest.approx(expected, abs=1e-9), (
                str(position),
                depth,
            )


@pytest.mark.parametrize(
    ("position", "winning_move", "plies"),
    [
        ("B:W7,22:BK4,11,14,K30", "14-18", 3),  # Black, the first player, wins
        ("W:WK9,K11,K18,K31:BK2,5", "18-14", 5),  # White, the second player, wins
    ],
)
def test_finds_the_one_forced_win(position: str, winning_move: str, plies: int) -> None:
    start = Position.parse(position)
    assert rules_forced_win_within(RULES, start, plies)
    assert not rules_forced_win_within(RULES, start, plies - 2)
    assert len(start.legal_moves()) > 5
    for seed in range(8):
        result = search(start, plies + 1, seed=seed)
        assert str(Move.from_code(result.best_move)) == winning_move
        assert result.score == WIN - plies
        assert result.forced_plies == plies


def test_the_move_it_plays_is_legal_and_a_capture_when_there_is_one() -> None:
    captures_seen = 0
    for position in random_positions(40, seed=5):
        moves = position.legal_moves()
        result = search(position, 4)
        best = Move.from_code(result.best_move)
        assert best in moves
        if any(m.is_capture for m in moves):
            assert best.is_capture
            captures_seen += 1
    assert captures_seen >= 5


def test_a_third_occurrence_scores_as_a_draw() -> None:
    # Black's best move, 6-10 (into the centre), would make a position seen twice already: it
    # now scores 0 (a draw by repetition), and the search takes the best of that and the rest.
    position = Position.parse("B:WK29,K32:BK6,K1")
    child = position.play(Move.parse("6-10"))
    history = [child, position, child, position]
    scores = {
        str(m): -rules_negamax(RULES, position.play(m), 0, classic_score, [], ply=1)
        for m in position.legal_moves()
    }
    assert max(scores, key=scores.get) == "6-10" and scores["6-10"] > 0
    expected = max([0.0] + [s for m, s in scores.items() if m != "6-10"])
    assert expected < scores["6-10"]
    assert search(position, 1, history=history).score == pytest.approx(expected, abs=1e-9)
    assert search(position, 1).score == pytest.approx(scores["6-10"], abs=1e-9)
    # Deeper, repetitions on the search's own path count too, as in plain minimax.
    keys = [p.key for p in history]
    for depth in (2, 3, 4):
        expected = rules_negamax(RULES, position, depth, classic_score, list(keys))
        assert search(position, depth, history=history).score == pytest.approx(expected, abs=1e-9)


def test_the_40_move_rule_is_a_draw_in_the_search() -> None:
    # Two kings against one: well ahead, but every king move on the 80th quiet ply draws.
    ahead = Position.parse("B:WK29:BK4,K8")
    assert search(ahead, 3).score > 1.0  # a king ahead: 1.75 men
    assert search(Position.parse("B:WK29:BK4,K8:Q79"), 3).score == 0.0
    # A move of a man starts the count again, so with a man to move Black stays ahead.
    assert search(Position.parse("B:WK29:B5,K8:Q79"), 3).score > 0.5


def test_a_search_of_a_finished_position_or_a_wrong_width_is_an_error() -> None:
    with pytest.raises(ValueError, match="over"):
        search(Position.parse("B:W29:BK4:Q80"), 2)  # the 40-move rule ended it
    with pytest.raises(ValueError, match="5 words"):
        Searcher(game_numbers.DRAUGHTS).search(
            Position.initial().encode()[:4],
            np.array([Position.initial().key]),
            0,
            game_kernels.EVALUATOR_CLASSIC,
            WEIGHTS,
            2,
        )


def test_classic_scores_stay_inside_what_the_search_reads_as_evaluations() -> None:
    assert classic.SCORE_LIMIT == WIN_BOUND
    reach = sum(abs(w) * m for w, m in zip(WEIGHTS, classic.FEATURE_LIMITS, strict=True))
    assert reach < WIN_BOUND
    for position in random_positions(30, seed=9):
        assert abs(classic_score(position)) <= reach
