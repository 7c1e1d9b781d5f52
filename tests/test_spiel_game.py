"""Samuel's games in OpenSpiel (samuel.spiel.game): OpenSpiel's own checks, and the same game as
Samuel's rules and Game play it."""

from __future__ import annotations

import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

# OpenSpiel is an optional extra: skipped where it is missing, but on CI it must be there.
if os.environ.get("CI"):
    import pyspiel
else:
    pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

from samuel.games import get_game  # noqa: E402
from samuel.games import kernels as game_kernels  # noqa: E402
from samuel.games.base import IllegalMoveError, Termination  # noqa: E402
from samuel.games.game import Game  # noqa: E402
from samuel.nn.network import dense_inputs  # noqa: E402
from samuel.spiel import SpielError, load, move_actions, move_of_actions, state_at  # noqa: E402

GAMES = ("tigers", "draughts")
DOCS = Path(__file__).resolve().parent.parent / "docs" / "openspiel.md"


def complete_paths(state) -> dict[tuple[int, ...], object]:
    """Every sequence of actions that makes one whole move from ``state``, with the state after
    it, found by trying every legal action until the move is played."""
    found = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.path:  # a capture goes on: the same player acts again
            assert child.current_player() == state.current_player()
            for rest, after in complete_paths(child).items():
                found[(action, *rest)] = after
        else:
            found[(action,)] = child
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("name", "sims"), [("tigers", 50), ("draughts", 50)])
def test_openspiel_random_sim_test_passes_with_serialisation(name: str, sims: int) -> None:
    pyspiel.random_sim_test(load(name), num_sims=sims, serialize=True, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_the_game_is_registered_with_its_type_and_info(name: str) -> None:
    assert f"samuel_{name}" in pyspiel.registered_names()
    game = pyspiel.load_game(f"samuel_{name}(ply_cap=30)")
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_players() == 2
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.num_distinct_actions() == {"tigers": 650, "draughts": 128}[name]
    # draughts: a move is at most 12 jumps, each an action
    assert game.max_game_length() == 30 * {"tigers": 1, "draughts": 12}[name]
    assert game.get_parameters() == {"ply_cap": 30}
    assert str(game) == f"samuel_{name}(ply_cap=30)"
    assert load(name).get_parameters() == {"ply_cap": 200}
    assert game.observation_tensor_shape() == [{"tigers": 58, "draughts": 128}[name]]


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_states_have_samuels_legal_moves_and_outcome_over_random_games(name: str) -> None:
    """Side by side with Samuel's Game: the same legal moves (for draughts, the Samuel moves are
    exactly the complete action paths), the same position and the same outcome."""
    rules = get_game(name)
    ply_cap = 60
    spiel_game = load(name, ply_cap=ply_cap)
    rng = np.random.default_rng(17)
    captures = terminations = 0
    for _ in range(25):
        game = Game(rules, ply_cap=ply_cap)
        state = spiel_game.new_initial_state()
        while True:
            assert str(state) == rules.format_position(game.position)
            assert state.position == game.position
            assert state.is_terminal() == (game.outcome is not None)
            if game.outcome is not None:
                assert state.returns() == [game.outcome.result, -game.outcome.result]
                assert state.outcome == game.outcome
                terminations += 1
                break
            assert state.current_player() == rules.side_to_move(game.position)
            assert state.returns() == [0.0, 0.0]
            paths = complete_paths(state)
            moves = game.legal_moves()
            made = {rules.move_code(move_of_actions(rules, game.position, p)) for p in paths}
            assert made == {rules.move_code(m) for m in moves} and len(paths) == len(moves)
            assert {tuple(move_actions(rules, game.position, m)) for m in moves} == set(paths)
            move = moves[int(rng.integers(len(moves)))]
            actions = move_actions(rules, game.position, move)
            assert move_of_actions(rules, game.position, actions) == move
            captures += len(actions) > 1
            for action in actions:
                state.apply_action(action)
            game.play(move)
            assert str(paths[tuple(actions)]) == str(state)
    assert terminations == 25
    if name == "draughts":
        assert captures > 0  # multi-jump captures were made action by action


def test_a_draughts_capture_is_one_action_a_jump_by_the_same_player() -> None:
    rules = get_game("draughts")
    position = rules.parse_position("B:W19,27:B15")
    state = state_at(load("draughts"), position)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["15x24"]
    (jump,) = state.legal_actions()
    assert jump == 14 * 4 + 3  # square 15 (index 14), down-right
    state.apply_action(jump)
    assert state.current_player() == 0 and not state.is_terminal()
    assert state.position == position  # the move is not played until its last jump
    assert str(state) == "B:W19,27:B15 after 15x24"
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["24x31"]
    state.apply_action(state.legal_actions()[0])
    assert str(state) == "W:W:BK31"  # crowned, and White has no piece: Black wins
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert move_actions(rules, position, rules.parse_move("15x24x31")) == [59, 94]


def test_action_strings_are_samuels_notation() -> None:
    tigers = load("tigers").new_initial_state()
    assert tigers.action_to_string(625 + 12) == "c3"
    assert tigers.action_to_string(0 * 25 + 6) == "a1-b2"
    assert tigers.action_to_string(0 * 25 + 12) == "a1xc3"
    draughts = load("draughts").new_initial_state()
    strings = {draughts.action_to_string(a) for a in draughts.legal_actions()}
    assert strings == {str(m) for m in get_game("draughts").initial_position().legal_moves()}
    assert "11-15" in strings


def test_serialisation_round_trips_mid_capture_and_from_a_set_position() -> None:
    rules = get_game("draughts")
    spiel_game = load("draughts", ply_cap=50)
    state = state_at(spiel_game, rules.parse_position("B:W19,27:B15"), plies=7)
    state.apply_action(state.legal_actions()[0])
    text = pyspiel.serialize_game_and_state(spiel_game, state)
    game_again, again = pyspiel.deserialize_game_and_state(text)
    assert str(game_again) == str(spiel_game)
    assert str(again) == str(state) and again.path == state.path and again.plies == 7
    assert again.legal_actions() == state.legal_actions() == [94]
    assert str(pickle.loads(pickle.dumps(state))) == str(state)
    clone = state.clone()
    clone.apply_action(94)
    assert clone.is_terminal() and not state.is_terminal()  # a clone is its own state
    again.apply_action(94)
    assert str(again) == str(clone)
    assert again.returns() == clone.returns() == [1.0, -1.0]


def test_threefold_repetition_and_the_ply_cap_draw_as_in_samuels_game() -> None:
    rules = get_game("draughts")
    start = rules.parse_position("B:WK29:BK4")
    shuffle = [rules.parse_move(m) for m in ("4-8", "29-25", "8-4", "25-29")]
    game = Game(rules, start=start)
    state = state_at(load("draughts"), start)
    for move in shuffle * 2:
        assert not state.is_terminal()
        for action in move_actions(rules, game.position, move):
            state.apply_action(action)
        game.play(move)
    assert game.outcome.termination == Termination.REPETITION
    assert state.outcome == game.outcome and state.returns() == [0.0, 0.0]

    # A state made mid-game counts the positions before it, and the plies toward the cap.
    game = Game(rules, start=start)
    for move in shuffle:
        game.play(move)
    state = state_at(load("draughts"), game.position, plies=4, history=game.positions[:-1])
    again = state_at(load("draughts"), game.position, plies=4, history=game.history_keys()[:-1])
    for move in shuffle:
        for action in move_actions(rules, state.position, move):
            state.apply_action(action)
            again.apply_action(action)
    assert state.outcome.termination == again.outcome.termination == Termination.REPETITION
    capped = state_at(load("draughts", ply_cap=6), game.position, plies=4)
    for move in shuffle[:2]:
        capped.apply_action(move_actions(rules, capped.position, move)[0])
    assert capped.outcome.termination == Termination.PLY_CAP and capped.returns() == [0.0, 0.0]

    tigers = load("tigers", ply_cap=3).new_initial_state()
    for _ in range(3):
        tigers.apply_action(tigers.legal_actions()[0])
    assert tigers.is_terminal() and tigers.outcome.termination == Termination.PLY_CAP


@pytest.mark.parametrize("name", GAMES)
def test_the_observation_is_the_networks_input_encoding(name: str) -> None:
    rules = get_game(name)
    spiel_game = load(name)
    state = spiel_game.new_initial_state()
    rng = np.random.default_rng(3)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)
    inputs = game_kernels.GAMES[rules.number].network_inputs
    for _ in range(30):
        if state.is_terminal():
            break
        n = game_kernels.network_inputs(rules.number, rules.encode(state.position), active, values)
        expected = dense_inputs(inputs, active, values, n)
        for player in (0, 1):
            assert np.array_equal(np.array(state.observation_tensor(player)), expected)
        assert state.observation_string(0) == str(state)
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("name", GAMES)
def test_openspiels_mcts_bot_plays_complete_games(name: str) -> None:
    spiel_game = load(name, ply_cap=20)
    rng = np.random.RandomState(5)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(spiel_game, 2.0, 6, evaluator, random_state=rng) for _ in range(2)]
    for _ in range(2):
        returns = evaluate_bots.evaluate_bots(spiel_game.new_initial_state(), bots, rng)
        assert list(returns) in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    state = spiel_game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert state.plies <= 20


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(SpielError, match="no Samuel game 'chess'"):
        load("chess")
    for bad in (0, -3, 2.5, True, "10", 10**6 + 1, 2**40):
        with pytest.raises(SpielError, match="ply_cap"):
            load("tigers", ply_cap=bad)
    for text in ("samuel_tigers(ply_cap=0)", "samuel_draughts(ply_cap=1000001)"):
        with pytest.raises(SpielError, match="ply_cap"):
            pyspiel.load_game(text)
    assert load("draughts", ply_cap=10**6).max_game_length() == 12 * 10**6
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("samuel_tigers(colour=1)")

    rules = get_game("tigers")
    state = load("tigers").new_initial_state()
    with pytest.raises(IllegalMoveError, match="not legal"):
        state.apply_action(0)  # a1 to a1
    with pytest.raises(IllegalMoveError):
        state.apply_action(649)  # e5 is a tiger's
    for action in (650, 10**6):
        assert "no action" in state.action_to_string(action)
        with pytest.raises(IllegalMoveError, match="no action"):
            state.apply_action(action)
    with pytest.raises(pyspiel.SpielError):
        state.apply_action(-1)  # OpenSpiel's invalid action, refused before it reaches the game
    assert state.history() == [] and str(state) == "T3T/5/5/5/T3T S 20"
    with pytest.raises(IllegalMoveError):
        move_actions(rules, rules.initial_position(), rules.parse_move("a1-b2"))
    with pytest.raises(IllegalMoveError, match="not one legal move"):
        move_of_actions(rules, rules.initial_position(), [625, 626])
    with pytest.raises(IllegalMoveError):
        move_of_actions(rules, rules.initial_position(), [])
    with pytest.raises(SpielError):
        state_at(load("tigers"), get_game("draughts").initial_position())
    with pytest.raises(SpielError):
        state_at(load("tigers"), rules.initial_position(), plies=-1)
    with pytest.raises(SpielError):
        state_at(pyspiel.load_game("tic_tac_toe"), rules.initial_position())
    with pytest.raises(SpielError):
        state_at(load("tigers"), rules.initial_position(), history=["T3T"])

    over = load("tigers", ply_cap=1).new_initial_state()
    over.apply_action(over.legal_actions()[0])
    assert over.is_terminal() and over.legal_actions() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        over.apply_action(626)


def docs_example() -> str:
    """The Python example of docs/openspiel.md's section on loading Samuel's games."""
    text = DOCS.read_text()
    section = text.split("## Loading Samuel's games in OpenSpiel", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert blocks, "docs/openspiel.md shows how to load Samuel's games"
    return blocks[0]


@pytest.mark.slow
def test_the_docs_example_runs() -> None:
    namespace: dict = {}
    exec(compile(docs_example(), str(DOCS), "exec"), namespace)
