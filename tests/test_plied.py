"""The plied search (gnubg's n-ply) against the exact search and against the definition written
again in Python."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.errors import CommandError
from samuel.evaluation.networks import random_network, save_network
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.backgammon.rules import RULES, Position, Roll
from samuel.games.game import Game
from samuel.players import PlayerSpecError, make_player
from samuel.search.alphabeta import Searcher
from samuel.search.plied import PliedSearcher

NETWORK = games.EVALUATOR_NETWORK
PARAMS = random_network(RULES.number, seed=11)


def rolled_positions(count: int, seed: int) -> list[Game]:
    """Games of random plays, each stopped at a different ply with its dice rolled."""
    rng = np.random.default_rng(seed)
    found = []
    for trial in range(count):
        game = Game(RULES)
        for _ in range(5 * trial):
            if game.outcome is not None:
                break
            if game.chance_outcomes():
                game.roll(rng)
            else:
                moves = game.legal_moves()
                game.play(moves[rng.integers(len(moves))])
        if game.outcome is None:
            if game.chance_outcomes():
                game.roll(rng)
            found.append(game)
    return found


def test_zero_and_one_ply_are_the_exact_search_at_depths_one_and_two() -> None:
    plied, exact = PliedSearcher(RULES.number), Searcher(RULES.number)
    for game in rolled_positions(8, seed=5):
        root = RULES.encode(game.position)
        for plies in (0, 1):
            mine = plied.search(root, NETWORK, PARAMS, plies, candidates=10_000, threshold=1e9)
            theirs = exact.search(
                root, game.history_keys(), game.window_start, NETWORK, PARAMS, plies + 1
            )
            assert mine.score == pytest.approx(theirs.score, abs=1e-9)


def _side(points: dict[int, int]) -> tuple[int, ...]:
    counts = [0] * 25
    for point, count in points.items():
        counts[point - 1] = count
    return tuple(counts)


def _static(state: np.ndarray) -> float:
    """The side to move's 0-ply value, through the friendly API and the evaluation."""
    from samuel.evaluation import kernels as evaluation

    position = Position.decode(state)
    game = Game(RULES, start=position)
    if game.outcome is not None:
        score = game.outcome.score  # the first side's (X's) points
        return float(score if position.x_to_move else -score)
    scratch = np.zeros(int(evaluation.scratch_size(RULES.number, NETWORK, PARAMS)), np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    value = evaluation.evaluate(RULES.number, NETWORK, PARAMS, state, scratch, active)
    return value if position.x_to_move else -value


def _value(position: Position, plies: int) -> float:
    """n-ply as the module defines it, written out with the friendly API."""
    state = position.encode()
    if plies == 0 or Game(RULES, start=position).outcome is not None:
        return _static(state)
    total = 0.0
    for high in range(1, 7):
        for low in range(1, high + 1):
            rolled = RULES.play(position, Roll(high, low))
            children = [RULES.play(rolled, play) for play in RULES.legal_moves(rolled)]
            chosen = max(children, key=lambda child: -_static(child.encode()))
            total += (1 if high == low else 2) / 36 * -_value(chosen, plies - 1)
    return total


def test_two_ply_is_its_definition_in_a_bear_off() -> None:
    # Few checkers, few plays: the definition can be followed in Python.
    x = _side({1: 2, 2: 1, 4: 2, 6: 1})
    o = _side({1: 1, 3: 2, 5: 2, 20: 1})
    position = RULES.play(Position(x, o, True, None), Roll(4, 2))
    children = [RULES.play(position, play) for play in RULES.legal_moves(position)]
    expected = max(-_value(child, 2) for child in children)
    found = PliedSearcher(RULES.number).search(
        position.encode(), NETWORK, PARAMS, 2, candidates=100, threshold=1e9
    )
    assert found.score == pytest.approx(expected, abs=1e-6)
    assert -_value(RULES.play(position, RULES.move_from_code(found.best_move)), 2) == (
        pytest.approx(expected, abs=1e-6)
    )


def test_one_candidate_plays_the_best_static_play() -> None:
    plied = PliedSearcher(RULES.number)
    for game in rolled_positions(6, seed=9):
        root = RULES.encode(game.position)
        static = plied.search(root, NETWORK, PARAMS, 0, seed=3)
        narrowed = plied.search(root, NETWORK, PARAMS, 2, candidates=1, seed=3)
        assert narrowed.best_move == static.best_move
        assert narrowed.nodes > static.nodes


def test_the_same_seed_plays_the_same_game(tmp_path) -> None:
    weights = tmp_path / "random.bin"
    save_network(PARAMS, weights, RULES.number)

    def moves(seed: int) -> list:
        player = make_player(f"{weights}:ply=1,candidates=4,seed={seed}", RULES)
        game, rng = Game(RULES, ply_cap=60), np.random.default_rng(seed)
        while game.outcome is None:
            if game.chance_outcomes():
                game.roll(rng)
            else:
                game.play(player.choose_move(game))
        return game.moves

    assert moves(4) == moves(4)


def test_bad_settings_say_what_is_wrong() -> None:
    plied = PliedSearcher(RULES.number)
    root = RULES.encode(RULES.play(RULES.initial_position(), Roll(3, 1)))
    with pytest.raises(CommandError, match="plies must be between 0 and 3"):
        plied.search(root, NETWORK, PARAMS, 4)
    with pytest.raises(CommandError, match="candidates must be at least 1"):
        plied.search(root, NETWORK, PARAMS, 1, candidates=0)
    with pytest.raises(ValueError, match="dice are still to roll"):
        plied.search(RULES.encode(RULES.initial_position()), NETWORK, PARAMS, 1)
    with pytest.raises(CommandError, match="has no dice"):
        PliedSearcher(get_game("tigers").number)
    with pytest.raises(PlayerSpecError, match="'ply' searches a game with dice"):
        make_player("classic:ply=1", get_game("draughts"))
    with pytest.raises(PlayerSpecError, match="ply=N or depth/time, not both"):
        make_player("classic:ply=1,depth=2", RULES)
    with pytest.raises(PlayerSpecError, match="go with ply=N"):
        make_player("classic:candidates=3", RULES)


def test_the_shipped_network_plays_backgammon_as_net() -> None:
    player = make_player("net:ply=1,candidates=3", RULES)
    game = rolled_positions(3, seed=2)[-1]
    assert player.choose_move(game) in game.legal_moves()
    assert player.last is not None and player.last.depth == 1 and player.last.nodes > 21


def test_one_searcher_serves_one_network_after_another() -> None:
    other = random_network(RULES.number, seed=12)
    root = RULES.encode(RULES.play(RULES.initial_position(), Roll(3, 1)))
    shared = PliedSearcher(RULES.number)
    first = shared.search(root, NETWORK, PARAMS, 1, candidates=3)
    second = shared.search(root, NETWORK, other, 1, candidates=3)
    assert first.score == PliedSearcher(RULES.number).search(root, NETWORK, PARAMS, 1, 3).score
    assert second.score == PliedSearcher(RULES.number).search(root, NETWORK, other, 1, 3).score
