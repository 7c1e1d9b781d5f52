"""The action space (samuel.games.actions) against plain references, on positions of random games
played with the compiled move generator: every legal move has an action in range, distinct but
for draughts captures that share their origin and first direction; draughts' actions are in the
side to move's frame; the symmetries map actions as they map positions."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.games import actions as A
from samuel.games import get_game
from samuel.games import kernels as K
from samuel.games.draughts import board as DB
from samuel.games.draughts import kernels as DK
from samuel.games.tigers import kernels as TK
from tests import game_numbers

GAMES = {"tigers": game_numbers.TIGERS, "draughts": game_numbers.DRAUGHTS}


def random_states(name: str, games: int, seed: int) -> list[np.ndarray]:
    """Every position of ``games`` random games (the compiled generator's moves), to the end or
    200 plies."""
    game = GAMES[name]
    rules = get_game(name)
    rng = np.random.default_rng(seed)
    moves = np.empty(K.move_room(game), dtype=np.int64)
    found = []
    for _ in range(games):
        state = np.asarray(rules.encode(rules.initial_position()), dtype=np.int64)
        for _ in range(200):
            count = K.generate(game, state, moves)
            if K.result(game, state, count) != K.NOT_OVER:
                break
            found.append(state)
            child = np.empty_like(state)
            K.play(game, state, moves[rng.integers(count)], child)
            state = child
    return found


def plain_action(name: str, state: np.ndarray, move: int) -> int:
    """The action of a move, from its fields and the boards' tables, by the module's docstring."""
    if name == "tigers":
        origin, target = move & 31, (move >> 5) & 31
        return 625 + target if origin == TK.NO_POINT else origin * 25 + target
    origin, target, jumps = DK.move_origin(move), DK.move_target(move), DK.move_jumps(move)
    if jumps:
        direction = (move >> DK.PATH_SHIFT) & 3
    else:
        (direction,) = [d for d in range(4) if DB.STEP[origin, d] == target]
    if not state[3]:  # White: the board turned half round
        origin, direction = 31 - origin, DB.OPPOSITE[direction]
    return origin * 4 + direction


def test_action_counts():
    assert A.action_count(game_numbers.TIGERS) == 650
    assert A.action_count(game_numbers.tigers_and_sheep(4)) == 650
    assert A.action_count(game_numbers.DRAUGHTS) == 128
    with pytest.raises(ValueError, match="no game has number 9"):
        A.action_count(9)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_every_legal_move_has_its_action(name):
    game = GAMES[name]
    states = random_states(name, 20, seed=18)
    assert len(states) > 500
    shared = 0
    for state in states:
        moves, actions = A.legal_actions(game, state)
        assert len(moves) > 0
        assert np.all((actions >= 0) & (actions < A.action_count(game)))
        assert [plain_action(name, state, m) for m in moves] == actions.tolist()
        for i in range(len(moves)):
            for j in range(i):
                if actions[i] != actions[j]:
                    continue
                # only draughts captures that leave the same square in the same direction
                assert name == "draughts"
                a, b = int(moves[i]), int(moves[j])
                assert DK.move_jumps(a) > 0 and DK.move_jumps(b) > 0
                assert DK.move_origin(a) == DK.move_origin(b)
                assert (a >> DK.PATH_SHIFT) & 3 == (b >> DK.PATH_SHIFT) & 3
                shared += 1
        distinct = np.empty(len(moves), dtype=np.int64)
        slot = np.empty(len(moves), dtype=np.int64)
        found = A.distinct_actions(actions, len(moves), distinct, slot)
        assert found == len(set(actions.tolist()))
        assert np.array_equal(distinct[slot], actions)
        assert len(set(distinct[:found].tolist())) == found
    if name == "draughts":
        assert shared > 0  # the seeded games do reach captures that part after their first jump


def test_draughts_actions_are_in_the_side_to_moves_frame():
    """A position and its colour-swapped half-turn have the same inputs and the same actions,
    move for move; and a man's moves always go 'down' (Black's forward) in the frame."""
    states = random_states("draughts", 10, seed=7)
    assert {int(s[3]) for s in states} == {0, 1}
    image = np.empty(DB.STATE_WORDS, dtype=np.int64)
    for state in states:
        moves, actions = A.legal_actions(game_numbers.DRAUGHTS, state)
        K.transform(game_numbers.DRAUGHTS, state, 1, image)
        image_moves, image_actions = A.legal_actions(game_numbers.DRAUGHTS, image)
        by_move = dict(zip(image_moves.tolist(), image_actions.tolist(), strict=True))
        assert [by_move[DK.half_turn_move(int(m))] for m in moves] == actions.tolist()
        for move, action in zip(moves, actions, strict=True):
            if not (state[2] >> DK.move_origin(int(move))) & 1:  # a man
                assert action % 4 in (DB.DOWN_LEFT, DB.DOWN_RIGHT)
            assert A.action_symmetry(game_numbers.DRAUGHTS, 1, action) == action


def test_tigers_symmetries_map_actions_as_they_map_positions():
    image = np.empty(4, dtype=np.int64)
    states = random_states("tigers", 4, seed=3)
    for state in states[::5]:
        _, actions = A.legal_actions(game_numbers.TIGERS, state)
        for symmetry in range(K.compiled_game(game_numbers.TIGERS).symmetries):
            K.transform(game_numbers.TIGERS, state, symmetry, image)
            _, image_actions = A.legal_actions(game_numbers.TIGERS, image)
            mapped = [A.action_symmetry(game_numbers.TIGERS, symmetry, a) for a in actions]
            assert sorted(mapped) == sorted(image_actions.tolist())


def test_kernels_refuse_arrays_too_short_and_codes_of_no_action():
    state = np.asarray(get_game("tigers").encode(get_game("tigers").initial_position()))
    moves = np.empty(K.move_room(game_numbers.TIGERS), dtype=np.int64)
    count = K.generate(game_numbers.TIGERS, state, moves)
    with pytest.raises(ValueError, match="count beyond"):
        A.move_actions(game_numbers.TIGERS, state, moves, count, np.empty(count - 1, np.int64))
    with pytest.raises(ValueError, match="no action"):
        A.move_action(game_numbers.TIGERS, state, 31 | 31 << 5)
    draughts = np.asarray(get_game("draughts").encode(get_game("draughts").initial_position()))
    with pytest.raises(ValueError, match="no action"):
        A.move_action(game_numbers.DRAUGHTS, draughts, 0 | 31 << 5)  # a step from square 1 to 32
    with pytest.raises(ValueError, match="count beyond"):
        A.distinct_actions(np.zeros(3, np.int64), 4, np.empty(4, np.int64), np.empty(4, np.int64))
    with pytest.raises(ValueError, match="out of range"):
        A.action_symmetry(game_numbers.TIGERS, 8, 0)
    with pytest.raises(ValueError, match="is 4 int64 words"):
        A.legal_actions(game_numbers.TIGERS, state[:3])
