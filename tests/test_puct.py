"""The compiled PUCT search against a plain reference, on positions with known answers, and the
zero player that uses it."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from samuel.evaluation.networks import (
    random_network,
    random_zero_network,
    save_network,
    save_zero_network,
)
from samuel.games import get_game
from samuel.games import kernels as game_kernels
from samuel.games.game import Game
from samuel.games.tigers.rules import RULES, Move, Position
from samuel.match.play import play_game
from samuel.players import PlayerSpecError, ZeroPlayer, make_player
from samuel.search.puct import (
    CHILD_COUNT,
    FIRST_CHILD,
    FIXED_PLIES,
    FIXED_VALUE,
    INNER,
    KIND,
    MOVE,
    NODE_ARRAYS,
    PARENT,
    TERMINAL,
    TIMED_STEP,
    VISITS,
    PuctSearch,
    PuctSettings,
    smallest_tree,
    with_temperature,
)
from tests import game_numbers
from tests.reference import puct as reference

TIGERS = game_numbers.TIGERS
DRAUGHTS = game_numbers.DRAUGHTS
WIN_IN_ONE = "T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0"  # four captured; a1xc1 or e1xc1 takes the fifth


def kernel_shape(tree, node: int = 0) -> tuple:
    """The compiled tree below ``node`` as :func:`tests.reference.puct.shape` writes it."""
    children = ()
    if tree[CHILD_COUNT][node] > 0:  # an inner node, or one proven by the solver
        first = int(tree[FIRST_CHILD][node])
        children = range(first, first + int(tree[CHILD_COUNT][node]))
    return (
        int(tree[MOVE][node]),
        int(tree[VISITS][node]),
        tuple(kernel_shape(tree, c) for c in children if tree[VISITS][c] > 0),
    )


def branches(shape: tuple) -> int:
    """How many nodes of a tree's shape have two visited children or more."""
    return (len(shape[2]) > 1) + sum(branches(child) for child in shape[2])


def random_game(rules, seed: int, plies: int) -> Game:
    """A game of ``plies`` random moves (fewer if it ends first: then one ply back)."""
    rng = np.random.default_rng(seed)
    game = Game(rules)
    while game.ply < plies and game.outcome is None:
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    if game.outcome is not None:
        game.undo()
    return game


def tigers_movement_game() -> Game:
    """A Tigers & Sheep game in its movement phase (steps can repeat positions)."""
    for seed in range(100):
        game = random_game(RULES, seed, 46)
        if game.position.sheep_in_hand == 0 and game.ply == 46:
            return game
    raise AssertionError("no random game reached the movement phase")


def shuffled_game() -> Game:
    """A movement-phase game whose last four plies were two steps and their reverses: its
    position occurs for the second time, and the positions in between are in its history."""
    start = tigers_movement_game()

    def reverse(move: Move) -> Move:
        return Move.parse("-".join(reversed(str(move).split("-"))))

    for step in [m for m in start.legal_moves() if not m.is_jump]:
        after = start.rules.play(start.position, step)
        for reply in [m for m in start.rules.legal_moves(after) if not m.is_jump]:
            game = Game(RULES)
            for move in [*start.moves, step, reply, reverse(step), reverse(reply)]:
                if game.outcome is not None or move not in game.legal_moves():
                    break
                game.play(move)
            else:
                if game.outcome is None:
                    return game
    raise AssertionError("no two steps to take back")


CASES = {
    # name: (game number, game, settings, ply cap)
    "tigers start": (TIGERS, lambda: Game(RULES), {}, None),
    "tigers movement, repetitions": (TIGERS, shuffled_game, {"c_puct": 3.0}, None),
    "tigers movement, ply cap": (TIGERS, tigers_movement_game, {}, 3),
    "tigers win in one": (TIGERS, lambda: Game(RULES, start=Position.parse(WIN_IN_ONE)), {}, None),
    "tigers movement, ply cap, solver": (TIGERS, tigers_movement_game, {"solver": True}, 3),
    "tigers movement, repetitions, solver": (
        TIGERS,
        shuffled_game,
        {"c_puct": 3.0, "solver": True},
        None,
    ),
    "tigers win in one, solver": (
        TIGERS,
        lambda: Game(RULES, start=Position.parse(WIN_IN_ONE)),
        {"solver": True},
        None,
    ),
    "tigers movement, repetitions, minimax": (
        TIGERS,
        shuffled_game,
        {"c_puct": 3.0, "minimax": 0.5},
        None,
    ),
    "tigers movement, ply cap, solver, minimax": (
        TIGERS,
        tigers_movement_game,
        {"solver": True, "minimax": 0.3},
        3,
    ),
    "tigers start, minimax": (TIGERS, lambda: Game(RULES), {"minimax": 1.0}, None),
    "draughts middle game": (DRAUGHTS, lambda: random_game(get_game("draughts"), 2, 30), {}, None),
    "draughts middle game, minimax": (
        DRAUGHTS,
        lambda: random_game(get_game("draughts"), 2, 30),
        {"minimax": 0.5},
        None,
    ),
    "draughts, moves left": (
        DRAUGHTS,
        lambda: random_game(get_game("draughts"), 5, 20),
        {"moves_left_factor": 0.3, "moves_left_threshold": 0.0, "fpu_reduction": 0.0},
        None,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_visit_counts_equal_the_plain_reference_simulation_for_simulation(case):
    number, make_game, options, cap = CASES[case]
    game = make_game()
    params = random_zero_network(number, seed=3)
    root = game.rules.encode(game.position)
    keys, window = game.history_keys(), game.window_start
    search = PuctSearch(number, max_nodes=20_000)
    for simulations in (*range(1, 25), 150):
        settings = PuctSettings(simulations=simulations, **options)
        result = search.search(params, root, keys, window, settings, plies_to_cap=cap)
        expected = reference.puct(
            number, params, root, keys, window, settings, -1 if cap is None else cap
        )
        assert result.simulations == simulations and not result.full
        assert kernel_shape(search.tree) == reference.shape(expected), simulations
        want = [child.visits for child in expected.children]
        assert result.visits.tolist() == want
        assert result.value == pytest.approx(expected.value_sum / expected.visits * expected.side)
    assert branches(kernel_shape(search.tree)) > 1  # the search did spread its visits


def forced_win(game: int, state: np.ndarray, winner: int, plies: int) -> bool:
    """Whether ``winner`` (1: the first player, -1: the second) can force the rules' win within
    ``plies`` plies of ``state``: a plain minimax over the compiled rules."""
    moves = np.zeros(game_kernels.move_room(game), dtype=np.int64)
    n = game_kernels.generate(game, state, moves)
    outcome = game_kernels.result(game, state, n)
    if outcome != game_kernels.NOT_OVER:
        return outcome == winner
    if plies == 0:
        return False
    wins = []
    for move in moves[:n]:
        child = np.zeros_like(state)
        game_kernels.play(game, state, int(move), child)
        wins.append(forced_win(game, child, winner, plies - 1))
    return any(wins) if game_kernels.sign(game, state) == winner else all(wins)


@pytest.mark.parametrize(
    "case", ["tigers win in one, solver", "tigers movement, repetitions, solver"]
)
def test_the_solver_proves_only_what_a_plain_minimax_confirms(case):
    number, make_game, options, cap = CASES[case]
    game = make_game()
    params = random_zero_network(number, seed=3)
    search = PuctSearch(number, max_nodes=1 << 16)
    root = game.rules.encode(game.position)
    settings = PuctSettings(simulations=2_000, **options)
    result = search.search(params, root, game.history_keys(), game.window_start, settings)
    tree = search.tree
    proven = 0
    for node in range(1, result.nodes):
        value, plies = tree[FIXED_VALUE][node], int(tree[FIXED_PLIES][node])
        if tree[KIND][node] != TERMINAL or tree[CHILD_COUNT][node] == 0 or abs(value) != 1:
            continue  # not a node proven won or lost
        line = []
        while node > 0:
            line.append(int(tree[MOVE][node]))
            node = int(tree[PARENT][node])
        state = root.copy()
        for move in reversed(line):
            game_kernels.play(number, state.copy(), move, state)
        if plies <= 3:
            assert forced_win(number, state, int(value), plies), (line, value, plies)
            proven += 1
    assert proven > 0


def raw_network_value(game: int, params: np.ndarray, state: np.ndarray) -> float:
    """The network's value of a position in the network's own view, unturned."""
    from samuel.nn import network
    from samuel.nn.shape import network_of

    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)
    count = game_kernels.zero_network_inputs(game, state, active, values)
    scratch = np.zeros(network_of(params).forward_scratch, dtype=np.float32)
    return float(network.forward(params, active, values, count, scratch))


@pytest.mark.parametrize(
    ("name", "plies"), [("tigers", 6), ("tigers", 7), ("draughts", 10), ("draughts", 11)]
)
def test_leaf_values_are_the_networks_in_each_games_view(name, plies):
    # Tigers & Sheep's network values a position for the tigers whoever is to move; draughts'
    # for the side to move. A leaf visited once is worth its network value to its parent.
    rules = get_game(name)
    game = random_game(rules, 8, plies)
    params = random_zero_network(rules.number, seed=11)
    root = rules.encode(game.position)
    search = PuctSearch(rules.number)
    # A negative reduction makes every unvisited move urgent: each is visited once.
    settings = PuctSettings(simulations=len(game.legal_moves()), fpu_reduction=-10.0)
    result = search.search(params, root, game.history_keys(), 0, settings)
    tigers_to_move = name == "tigers" and rules.side_to_move(game.position) == 0
    checked = 0
    first = int(search.tree[FIRST_CHILD][0])
    for index, move in enumerate(result.moves):
        node = first + index
        if result.visits[index] != 1 or search.tree[KIND][node] != INNER:
            continue
        child = np.zeros_like(root)
        game_kernels.play(rules.number, root, move, child)
        value = raw_network_value(rules.number, params, child)
        if name == "tigers":
            expected = value if tigers_to_move else -value
        else:
            expected = -value  # the child's side to move is the root's opponent
        assert result.values[index] == pytest.approx(expected, abs=1e-6)
        checked += 1
    assert checked >= 1


def test_a_changed_setting_changes_the_tree():
    # The comparison above can fail: the reference with another c_puct gives another tree.
    game = Game(RULES)
    params = random_zero_network(TIGERS, seed=3)
    root, keys = game.rules.encode(game.position), game.history_keys()
    search = PuctSearch(TIGERS, max_nodes=20_000)
    search.search(params, root, keys, 0, PuctSettings(simulations=150))
    other = reference.puct(TIGERS, params, root, keys, 0, PuctSettings(simulations=150, c_puct=4))
    assert kernel_shape(search.tree) != reference.shape(other)
    # ... and so does the implicit minimax values' weight, in the kernel and the reference.
    for weight in (0.5, 1.0):
        mixed = reference.puct(TIGERS, params, root, keys, 0, PuctSettings(150, minimax=weight))
        assert kernel_shape(search.tree) != reference.shape(mixed)


def test_finds_the_winning_capture_and_values_it_exactly():
    position = Position.parse(WIN_IN_ONE)
    params = random_zero_network(TIGERS, seed=1)
    winning = {Move.parse("a1xc1").code, Move.parse("e1xc1").code}
    for seed in range(4):
        result = PuctSearch(TIGERS).search(
            params, position.encode(), np.array([position.key]), 0, PuctSettings(200), seed
        )
        assert result.best_move in winning
        for move, visits, value in zip(result.moves, result.visits, result.values, strict=True):
            if move in winning and visits:
                assert value == 1.0  # a terminal win, exactly, every visit
        assert result.visits[result.chosen] == max(result.visits)
        assert result.value > 0.9


def test_finds_the_sheeps_blocking_win_by_placement():
    position = Position.parse("TSSST/SSSSS/S1SSS/SSSSS/T1SST S 1")
    params = random_zero_network(TIGERS, seed=2)
    result = PuctSearch(TIGERS).search(
        params, position.encode(), np.array([position.key]), 0, PuctSettings(100)
    )
    assert result.best_move == Move.parse("b1").code
    assert result.values[result.chosen] == 1.0  # the sheep's view: they win


def test_repetitions_and_the_ply_cap_are_exact_draws():
    game = tigers_movement_game()
    params = random_zero_network(TIGERS, seed=4)
    root = game.rules.encode(game.position)
    steps = [
        m
        for m in game.legal_moves()
        if not m.is_jump and game.rules.play(game.position, m).decided_outcome() is None
    ]
    assert steps
    repeated = game.rules.play(game.position, steps[0])
    keys = np.array([repeated.key, *game.history_keys()], dtype=np.int64)  # seen before
    search = PuctSearch(TIGERS)
    result = search.search(params, root, keys, 0, PuctSettings(300))
    index = result.moves.index(steps[0].code)
    assert result.visits[index] > 0 and result.values[index] == 0.0
    # Past an irreversible move (the window) the old position cannot recur: no longer a draw.
    later = search.search(params, root, keys, 1, PuctSettings(300))
    assert later.values[index] != 0.0
    # One ply from the cap every move that does not decide the game is a draw.
    capped = search.search(params, root, keys, 1, PuctSettings(300), plies_to_cap=1)
    for move, visits, value in zip(capped.moves, capped.visits, capped.values, strict=True):
        decided = game.rules.play(game.position, Move.from_code(move)).decided_outcome()
        if visits and decided is None:
            assert value == 0.0


@pytest.fixture(scope="module")
def one_capture_table(tmp_path_factory):
    """The tablebase of the game won by one capture (built in seconds)."""
    from samuel.games.tigers.tablebase.probe import load_tablebase
    from samuel.tablebase.build import build

    directory = tmp_path_factory.mktemp("tablebase") / "k1"
    build(directory, 1, progress=False, log=lambda line: None)
    return load_tablebase(directory)


@pytest.mark.slow
@pytest.mark.parametrize("sheep_move", [None, "b2-c3"])
def test_tablebase_positions_are_exact_and_searched_as_the_reference(one_capture_table, sheep_move):
    from samuel.games.tigers.rules import TigersAndSheep

    table = one_capture_table
    rules = TigersAndSheep(1)
    position = rules.parse_position("TSSST/SSSSS/SS1SS/SSSSS/TSSST S 0")  # the hand is empty
    if sheep_move is not None:  # then the tigers are to move
        position = position.play(Move.parse(sheep_move))
    params = random_zero_network(rules.number, seed=10)
    root, keys = position.encode(), np.array([position.key])
    search = PuctSearch(rules.number)
    settings = PuctSettings(simulations=60)
    result = search.search(params, root, keys, 0, settings, tablebase=table.layers)
    expected = reference.puct(rules.number, params, root, keys, 0, settings, -1, table.layers)
    assert kernel_shape(search.tree) == reference.shape(expected)
    best = max(-table.value(position.play(Move.from_code(m)))[0] for m in result.moves)
    outcomes = []
    for move, visits, value in zip(result.moves, result.visits, result.values, strict=True):
        outcome, _ = table.value(position.play(Move.from_code(move)))
        assert visits > 0 and value == -outcome  # exact: the table's, every visit
        outcomes.append(outcome)
    assert any(outcomes)  # not all draws: the view of the values is tested
    chosen = position.play(Move.from_code(result.best_move))
    assert -table.value(chosen)[0] == best
    without = search.search(params, root, keys, 0, settings)
    assert not set(without.values.tolist()) <= {-1.0, 0.0, 1.0}  # the network's values instead
    with pytest.raises(ValueError, match="layers"):
        search.search(params, root, keys, 0, settings, tablebase=table.layers[:1])
    with pytest.raises(ValueError, match="no tablebase"):
        PuctSearch(DRAUGHTS).search(
            random_zero_network(DRAUGHTS, 0),
            get_game("draughts").encode(get_game("draughts").initial_position()),
            np.array([0]),
            0,
            settings,
            tablebase=table.layers,
        )


@pytest.mark.slow
def test_the_zero_player_keeps_the_tables_value_from_a_position_it_holds(tmp_path):
    # From positions the table holds, met in random games: won, the quickest win; lost, the
    # slowest loss; drawn, a move that keeps the draw. The search alone sees every win as 1.
    from samuel.games.tigers.rules import TigersAndSheep
    from samuel.games.tigers.tablebase.probe import load_tablebase
    from samuel.tablebase.build import build

    build(tmp_path / "k2", 2, progress=False, log=lambda line: None)
    table, rules = load_tablebase(tmp_path / "k2"), TigersAndSheep(2)
    player = ZeroPlayer(
        rules, random_zero_network(rules.number, seed=3), PuctSettings(30), tablebase=table
    )
    rng = np.random.default_rng(4)
    start = rules.parse_position("TSSST/SSSSS/SS1SS/SSSSS/TSSST S 0")  # the hand empty
    seen, overruled = set(), 0
    for _ in range(12):
        game = Game(rules, start)
        while game.outcome is None and game.ply < 60:
            values = table.move_values(game.position)
            best = max(outcome for _, outcome, _ in values)
            plies = [p for _, outcome, p in values if outcome == best]
            move = player.choose_move(game)
            played = next((o, p) for m, o, p in values if m == move)
            target = min(plies) if best > 0 else max(plies)
            assert played[0] == best and (best == 0 or played[1] == target)
            searched = rules.move_from_code(player.last.best_move)
            overruled += searched != move
            seen.add(best if best == 0 or len(set(plies)) == 1 else 2 * best)
            game.play(game.legal_moves()[int(rng.integers(len(game.legal_moves())))])
    assert {0, 2} <= seen  # drawn positions, and won ones with wins of different lengths
    assert overruled  # the table changed some of the search's moves


def test_the_same_seed_gives_the_same_search_with_noise_and_temperature():
    game = Game(RULES)
    params = random_zero_network(TIGERS, seed=5)
    root, keys = game.rules.encode(game.position), game.history_keys()
    settings = PuctSettings(simulations=300, noise_fraction=0.25, temperature=1.0)
    search = PuctSearch(TIGERS)

    def run(seed):
        result = search.search(params, root, keys, 0, settings, seed=seed)
        return result.visits.tolist(), result.priors.tolist(), result.best_move

    first = run(11)
    assert run(11) == first
    others = [run(seed) for seed in (12, 13, 14)]
    assert all(other[1] != first[1] for other in others)  # the noise changed the priors
    assert len({other[2] for other in others} | {first[2]}) > 1  # and the moves drawn
    plain = search.search(params, root, keys, 0, PuctSettings(simulations=300), seed=11)
    assert plain.priors.sum() == pytest.approx(1.0)
    assert not np.allclose(plain.priors, first[1])


def test_temperature_zero_plays_the_most_visited_move_whatever_the_seed():
    game = random_game(RULES, 1, 10)
    params = random_zero_network(TIGERS, seed=6)
    root, keys = game.rules.encode(game.position), game.history_keys()
    search = PuctSearch(TIGERS)
    chosen = {
        search.search(params, root, keys, 0, PuctSettings(100), seed=seed).best_move
        for seed in range(5)
    }
    result = search.search(params, root, keys, 0, PuctSettings(100))
    assert chosen == {result.best_move}
    assert result.visits[result.chosen] == max(result.visits)


def test_a_tree_that_fills_stops_cleanly():
    game = Game(RULES)
    params = random_zero_network(TIGERS, seed=7)
    search = PuctSearch(TIGERS, max_nodes=smallest_tree(TIGERS))
    result = search.search(
        params, game.rules.encode(game.position), game.history_keys(), 0, PuctSettings(10_000)
    )
    assert result.full and 0 < result.simulations < 10_000
    assert result.nodes <= smallest_tree(TIGERS)
    assert result.visits.sum() == result.simulations  # every simulation counted, none lost
    assert result.best_move in result.moves
    # the tree is reused: a search that fits runs in full after one that did not
    again = search.search(
        params, game.rules.encode(game.position), game.history_keys(), 0, PuctSettings(5)
    )
    assert not again.full and again.visits.sum() == 5


def test_a_tree_and_its_buffers_have_the_game_s_room():
    """The smallest tree holds the root and all its children in its own game, and the
    expansion's move buffers are the game's room, not the largest game's."""
    for game in (TIGERS, DRAUGHTS):
        room = game_kernels.move_room(game)
        assert smallest_tree(game) == room + 1
        search = PuctSearch(game, max_nodes=smallest_tree(game))
        assert [len(buffer) for buffer in search.work[:7]] == [room] * 7
        with pytest.raises(ValueError, match="nodes"):
            PuctSearch(game, max_nodes=room)


def test_a_timed_search_in_steps_builds_the_tree_of_one_search():
    game = random_game(RULES, 3, 12)
    params = random_zero_network(TIGERS, seed=9)
    root, keys = game.rules.encode(game.position), game.history_keys()
    sims = 2 * TIMED_STEP + 77  # three steps, the last one short
    settings = PuctSettings(sims, noise_fraction=0.25)
    whole = PuctSearch(TIGERS, max_nodes=1 << 15)
    stepped = PuctSearch(TIGERS, max_nodes=1 << 15)
    one = whole.search(params, root, keys, 0, settings, seed=4)
    steps = stepped.search(params, root, keys, 0, settings, seed=4, seconds=1e6)
    assert steps.simulations == one.simulations == sims and not steps.full
    assert kernel_shape(stepped.tree) == kernel_shape(whole.tree)
    assert steps.visits.tolist() == one.visits.tolist()
    assert steps.priors.tolist() == one.priors.tolist()  # the root's noise drawn once
    assert (steps.best_move, steps.nodes) == (one.best_move, one.nodes)


def test_a_timed_search_stops_at_its_time_or_a_full_tree():
    game = Game(RULES)
    params = random_zero_network(TIGERS, seed=10)
    root, keys = game.rules.encode(game.position), game.history_keys()
    search = PuctSearch(TIGERS, max_nodes=1 << 20)
    timed = search.search(params, root, keys, 0, PuctSettings(10**6), seconds=0.05)
    assert timed.seconds >= 0.05 and 0 < timed.simulations < 10**6 and not timed.full
    assert timed.visits.sum() == timed.simulations
    # the clock is read within a step, so a short time is not rounded up to a whole step
    short = search.search(params, root, keys, 0, PuctSettings(10**6), seconds=1e-5)
    assert 0 < short.simulations < TIMED_STEP and not short.full
    small = PuctSearch(TIGERS, max_nodes=smallest_tree(TIGERS) + 100)
    full = small.search(params, root, keys, 0, PuctSettings(10**6), seconds=1e6)
    assert full.full and full.visits.sum() == full.simulations < 10**6
    with pytest.raises(ValueError, match="seconds must be a positive number"):
        search.search(params, root, keys, 0, PuctSettings(10), seconds=0)


def subtree(tree, node: int, path: tuple = ()) -> list:
    """Every node below ``node`` (itself included) as (moves from ``node``, then each node
    array's entry but the links: parent, first child and the move from the parent), depth first
    in the generator's order."""
    links = {PARENT, FIRST_CHILD, MOVE}
    entry = tuple(float(tree[a][node]) for a in range(NODE_ARRAYS) if a not in links)
    rows = [(path, entry)]
    if tree[KIND][node] == INNER:
        first = int(tree[FIRST_CHILD][node])
        for c in range(first, first + int(tree[CHILD_COUNT][node])):
            assert tree[PARENT][c] == node
            rows += subtree(tree, c, (*path, int(tree[MOVE][c])))
    return rows


def most_visited_line(tree, plies: int) -> list[int]:
    """The nodes of the most visited line from the root, ``plies`` deep."""
    node, line = 0, []
    for _ in range(plies):
        first = int(tree[FIRST_CHILD][node])
        children = range(first, first + int(tree[CHILD_COUNT][node]))
        node = max(children, key=lambda c: tree[VISITS][c])
        line.append(node)
    return line


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_tree_reuse_keeps_the_subtree_of_the_position_the_game_reached(name):
    rules = get_game(name)
    game = random_game(rules, 4, 10)
    params = random_zero_network(rules.number, seed=12)
    search = PuctSearch(rules.number, max_nodes=1 << 16)
    settings = PuctSettings(600)
    first = search.search(
        params, rules.encode(game.position), game.history_keys(), game.window_start, settings
    )
    line = most_visited_line(search.tree, 2)
    kept = subtree(search.tree, line[-1])
    count, _, *rest = kept[0][1]
    kept[0] = ((), (count, 1.0, *rest))  # a root's prior is 1
    for node in line:
        game.play(rules.move_from_code(int(search.tree[MOVE][node])))
    root, keys = rules.encode(game.position), game.history_keys()
    nodes = search._kept(params, root, keys, -1, None)
    assert 0 < nodes < first.nodes and search.tree[PARENT][0] == -1
    assert subtree(search.tree, 0) == kept  # the same nodes, visits, values and priors
    assert len(kept) == nodes  # and nothing else
    # a search with reuse adds its simulations to that tree
    search = PuctSearch(rules.number, max_nodes=1 << 16)
    game.undo()
    game.undo()
    search.search(params, rules.encode(game.position), game.history_keys(), 0, settings)
    for node in line:
        game.play(rules.move_from_code(int(search.tree[MOVE][node])))
    again = search.search(params, root, keys, game.window_start, PuctSettings(50), reuse=True)
    assert again.reused == rest[0] - 1 > 0  # the kept root's simulations
    assert again.visits.sum() == again.reused + 50 and again.simulations == 50


def test_tree_reuse_only_follows_the_same_game_with_the_same_network():
    game = random_game(RULES, 6, 8)
    params = random_zero_network(TIGERS, seed=13)
    other = random_zero_network(TIGERS, seed=14)
    settings = PuctSettings(300)

    def reused_after(moves: int, **changes) -> int:
        """Search the game's position, play ``moves`` of the most visited line, search
        again with reuse (``changes``: what differs the second time) and say what was kept."""
        search = PuctSearch(TIGERS, max_nodes=1 << 15)
        start = Game(RULES)
        for move in game.moves:
            start.play(move)
        search.search(params, RULES.encode(start.position), start.history_keys(), 0, settings)
        for node in most_visited_line(search.tree, moves):
            start.play(RULES.move_from_code(int(search.tree[MOVE][node])))
        keys = changes.pop("keys", start.history_keys())
        return search.search(
            changes.pop("params", params),
            RULES.encode(start.position),
            keys,
            start.window_start,
            changes.pop("settings", settings),
            reuse=changes.pop("reuse", True),
            **changes,
        ).reused

    assert reused_after(1) > 0 and reused_after(2) > 0 and reused_after(3) > 0
    assert reused_after(0) == 0  # the same position again: no move since, a new search
    assert reused_after(2, reuse=False) == 0
    assert reused_after(2, params=other) == 0
    assert reused_after(2, settings=PuctSettings(300, noise_fraction=0.25)) == 0
    assert reused_after(2, plies_to_cap=50) == 0  # the last search had no cap
    # the same position, reached in another game: its history differs
    assert reused_after(2, keys=np.array([123, 456], dtype=np.int64)) == 0


def test_the_zero_player_reuses_its_tree_and_still_plays_the_same_games(zero_files):
    _, files = zero_files
    kept = []

    def play(reuse: str) -> Game:
        zero = make_player(f"zero:net={files['tigers']},sims=60,seed=3,reuse={reuse}", RULES)
        searched = zero.search

        def search(game):
            result = searched(game)
            kept.append((reuse, result.reused))
            assert result.simulations == 60 and result.visits.sum() == result.reused + 60
            return result

        zero.search = search
        players = {"tigers": zero, "sheep": make_player("random", RULES, seed=4)}
        return play_game(RULES, players, ply_cap=60)

    game = play("on")
    assert play("on").moves == game.moves  # the same seeds, the same game
    assert any(reused > 0 for reuse, reused in kept if reuse == "on")
    play("off")
    assert all(reused == 0 for reuse, reused in kept if reuse == "off")
    zero = make_player(f"zero:net={files['tigers']},sims=60", RULES)
    start = Game(RULES)
    zero.search(start)
    start.play(start.legal_moves()[0])
    zero.forget()
    assert zero.search(start).reused == 0


@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_the_principal_variation_is_the_chosen_move_then_the_most_visited_line(name):
    rules = get_game(name)
    game = random_game(rules, 7, 6)
    params = random_zero_network(rules.number, seed=15)
    search = PuctSearch(rules.number, max_nodes=1 << 16)
    result = search.search(
        params, rules.encode(game.position), game.history_keys(), 0, PuctSettings(800)
    )
    line = result.principal_variation
    assert line[0] == result.best_move and len(line) > 2
    node = int(search.tree[FIRST_CHILD][0]) + result.chosen
    for move in line[1:]:
        first = int(search.tree[FIRST_CHILD][node])
        children = range(first, first + int(search.tree[CHILD_COUNT][node]))
        node = max(children, key=lambda c: search.tree[VISITS][c])  # the first of the most
        assert int(search.tree[MOVE][node]) == move
    for move in line:  # and it is a line of legal moves
        game.play(rules.move_from_code(move))
    assert result.forced_plies is None  # nothing is proven here


def test_inputs_are_checked_before_the_kernel_sees_them():
    game = Game(RULES)
    params = random_zero_network(TIGERS, seed=8)
    root, keys = game.rules.encode(game.position), game.history_keys()
    search = PuctSearch(TIGERS)
    settings = PuctSettings(10)
    with pytest.raises(ValueError, match="not a Zero network for Tigers & Sheep: .* length"):
        search.search(params[:-1], root, keys, 0, settings)
    with pytest.raises(ValueError, match="Zero network has"):
        search.search(random_zero_network(DRAUGHTS, 0), root, keys, 0, settings)
    with pytest.raises(ValueError, match="int64 words"):
        search.search(params, root[:-1], keys, 0, settings)
    with pytest.raises(ValueError, match="int64 words"):
        search.search(params, root.astype(np.int32), keys, 0, settings)
    with pytest.raises(ValueError, match="history_keys"):
        search.search(params, root, keys[:0], 0, settings)
    with pytest.raises(ValueError, match="ply cap"):
        search.search(params, root, keys, 0, settings, plies_to_cap=0)
    over = Position.parse(WIN_IN_ONE).play(Move.parse("a1xc1"))
    with pytest.raises(ValueError, match="game is over"):
        search.search(params, over.encode(), np.array([over.key]), 0, settings)
    with pytest.raises(ValueError, match="nodes"):
        PuctSearch(TIGERS, max_nodes=smallest_tree(TIGERS) - 1)
    with pytest.raises(ValueError, match="between"):
        PuctSettings(simulations=0)
    with pytest.raises(ValueError, match="c_puct"):
        PuctSettings(c_puct=-1.0)


def test_the_settings_reach_the_kernel_as_one_bundle_of_fixed_types():
    settings = PuctSettings(7, c_puct=2, temperature=1, solver=True, minimax=0.5)
    knobs = settings.knobs()
    assert knobs._fields == tuple(f.name for f in dataclasses.fields(PuctSettings))
    assert knobs == tuple(getattr(settings, name) for name in knobs._fields)
    # One numba specialisation whatever the caller wrote: 2 and 2.0 are the same knob.
    assert [type(x) for x in knobs] == [int] + [float] * 8 + [bool, float]
    assert with_temperature(knobs, 0.0) == knobs._replace(temperature=0.0)


def test_no_kernel_of_the_search_or_zero_self_play_takes_more_than_14_arguments():
    from samuel.search import puct
    from samuel.train import zero_selfplay

    counted = 0
    for module in (puct, zero_selfplay):
        tree = ast.parse(Path(module.__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                "kernel" in ast.unparse(d) for d in node.decorator_list
            ):
                counted += 1
                assert len(node.args.posonlyargs) + len(node.args.args) <= 14, node.name
    assert counted > 10


@pytest.fixture(scope="module")
def zero_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zero")
    files = {}
    for name in ("tigers", "draughts"):
        number = get_game(name).number
        files[name] = folder / f"{name}-zero.bin"
        save_zero_network(random_zero_network(number, seed=9), files[name], number)
    save_network(random_network(TIGERS, seed=9, moves_left=True), folder / "value.bin", TIGERS)
    return folder, files


@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_a_side_net_plays_that_side_and_the_net_the_other(zero_files, tmp_path, name):
    from samuel.games import registry
    from samuel.players import SIDE_NET_OPTIONS

    _, files = zero_files
    rules = get_game(name)
    number = rules.number
    other = tmp_path / "other.bin"
    save_zero_network(random_zero_network(number, seed=21), other, number)
    options = "sims=30,seed=3,reuse=off"
    first, second = rules.sides
    mixed = make_player(f"zero:net={files[name]},{second}_net={other},{options}", rules)
    plain = make_player(f"zero:net={files[name]},{options}", rules)
    alone = make_player(f"zero:net={other},{options}", rules)
    assert mixed.side_params.keys() == {1}
    game, differ = Game(rules), 0
    while game.outcome is None and game.ply < 30:
        move = mixed.choose_move(game)
        reference = alone if rules.side_to_move(game.position) == 1 else plain
        assert move == reference.choose_move(game)
        differ += plain.choose_move(game) != alone.choose_move(game)
        game.play(move)
    assert differ  # the two networks choose differently: the test can fail
    with pytest.raises(PlayerSpecError, match="unknown option"):
        make_player(f"zero:net={files[name]},nobody_net={other}", rules)
    wrong = files["draughts" if name == "tigers" else "tigers"]  # the other game's
    with pytest.raises(PlayerSpecError, match=f"not {rules.title}"):
        make_player(f"zero:net={files[name]},{first}_net={wrong}", rules)
    # Every side of every game has its option, which a server confines as a network file.
    assert {
        f"{side}_net" for game_rules in registry().values() for side in game_rules.sides
    } == set(SIDE_NET_OPTIONS)


@pytest.mark.parametrize("name", ["tigers", "draughts"])
def test_the_zero_player_plays_whole_games_against_random(zero_files, name):
    _, files = zero_files
    rules = get_game(name)
    for zero_side in (0, 1):
        zero = make_player(f"zero:net={files[name]},sims=40,seed=3", rules)
        assert isinstance(zero, ZeroPlayer) and zero.simulations == 40
        players = {
            rules.sides[zero_side]: zero,
            rules.sides[1 - zero_side]: make_player("random", rules, seed=4),
        }
        game = play_game(rules, players, ply_cap=150)
        assert game.outcome is not None
        again = play_game(
            rules,
            {
                rules.sides[zero_side]: make_player(
                    f"zero:net={files[name]},sims=40,seed=3", rules
                ),
                rules.sides[1 - zero_side]: make_player("random", rules, seed=4),
            },
            ply_cap=150,
        )
        assert again.moves == game.moves  # the same seeds, the same game


def test_zero_options_reach_the_search(zero_files):
    _, files = zero_files
    player = make_player(
        f"zero:net={files['tigers']},sims=7,cpuct=2,fpu=0.1,noise=0.25,alpha=0.5,temp=1,"
        "temp_plies=4,moves_left=on,ml_scale=20,minimax=0.25",
        RULES,
    )
    settings = player.settings
    assert settings.minimax == 0.25
    assert (settings.simulations, settings.c_puct, settings.fpu_reduction) == (7, 2.0, 0.1)
    assert (settings.noise_fraction, settings.noise_alpha, settings.temperature) == (0.25, 0.5, 1)
    assert (settings.moves_left_factor, settings.moves_left_scale) == (0.05, 20.0)
    assert player.temperature_plies == 4
    game = Game(RULES)
    player.choose_move(game)
    assert player.last.visits.sum() == 7
    for _ in range(4):
        game.play(game.legal_moves()[0])
    player.search(game)  # past temp_plies: the most visited move
    assert player.last.visits[player.last.chosen] == max(player.last.visits)


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        ("net=NOWHERE.bin", "NOWHERE.bin"),
        ("net=VALUE", "is a value network without a policy, not a Zero network"),
        ("net=TIGERS,sims=0", "sims must be between 1 and"),
        ("net=TIGERS,sims=many", "sims must be a whole number"),
        ("net=TIGERS,noise=2", "noise must be between 0.0 and 1.0"),
        ("net=TIGERS,cpuct=-1", "cpuct must be between"),
        ("net=TIGERS,minimax=1.5", "minimax must be between"),
        ("net=TIGERS,ml_factor=0.1", "ml_factor only apply with moves_left=on"),
        ("net=TIGERS,moves_left=maybe", "moves_left must be on or off"),
        ("net=TIGERS,reuse=yes", "reuse must be on or off"),
        ("net=TIGERS,solver=1", "solver must be on or off"),
        ("net=TIGERS,temp_plies=3", "temp_plies only applies with temp=T"),
        ("net=TIGERS,depth=3", "unknown option(s) depth"),
        ("net=DRAUGHTS", "network for English draughts, not Tigers & Sheep"),
    ],
)
def test_bad_zero_specs_say_what_is_wrong_in_one_line(zero_files, options, phrase):
    folder, files = zero_files
    options = (
        options.replace("TIGERS", str(files["tigers"]))
        .replace("DRAUGHTS", str(files["draughts"]))
        .replace("VALUE", str(folder / "value.bin"))
    )
    spec = f"zero:{options}" if options else "zero"
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, RULES)
    assert phrase in str(error.value) and "\n" not in str(error.value)


def test_a_zero_player_searches_for_a_time_per_move(zero_files):
    _, files = zero_files
    player = make_player(f"zero:net={files['tigers']},time=0.02", RULES)
    assert player.seconds == 0.02
    player.choose_move(Game(RULES))
    assert player.last.seconds >= 0.02 and player.last.simulations > 0
    capped = make_player(f"zero:net={files['tigers']},time=100,sims=50", RULES)
    capped.choose_move(Game(RULES))
    assert capped.last.simulations == 50  # sims caps a timed search
    default = make_player(f"zero:net={files['tigers']}", RULES, seconds=0.5)
    assert default.seconds == 0.5  # a match's --time reaches the zero player too
    with pytest.raises(PlayerSpecError, match="time must be between"):
        make_player(f"zero:net={files['tigers']},time=0", RULES)


def test_the_zero_player_plays_the_shipped_zero_network_by_default():
    from samuel.evaluation.networks import SHIPPED_ZERO, load_zero_network

    player = make_player("zero:sims=20", RULES)
    shipped = load_zero_network(SHIPPED_ZERO[TIGERS], TIGERS)
    assert np.array_equal(player.params, shipped)
    player.choose_move(Game(RULES))
    with pytest.raises(PlayerSpecError) as error:
        make_player("zero", get_game("draughts"))
    message = str(error.value)
    assert "no Samuel Zero network is shipped for English draughts" in message
    assert "zero:net=FILE.bin" in message and "\n" not in message


def test_the_server_caps_the_zero_players_simulations(zero_files):
    from samuel.web.specs import MAX_ZERO_SIMULATIONS, player_for

    folder, files = zero_files
    path = files["tigers"]
    assert player_for(f"zero:net={path},sims={MAX_ZERO_SIMULATIONS}", folder).simulations == (
        MAX_ZERO_SIMULATIONS
    )
    with pytest.raises(PlayerSpecError, match=f"{MAX_ZERO_SIMULATIONS} simulations a move"):
        player_for(f"zero:net={path},sims={MAX_ZERO_SIMULATIONS + 1}", folder)
    with pytest.raises(PlayerSpecError, match="weights dir"):
        player_for(f"zero:net={path}", folder / "elsewhere")
    timed = player_for(f"zero:net={path},time=0.5", folder)
    assert (timed.seconds, timed.simulations) == (0.5, MAX_ZERO_SIMULATIONS)
    with pytest.raises(PlayerSpecError, match="s a move at most"):
        player_for(f"zero:net={path},time=1000", folder)


@pytest.mark.slow
def test_analyse_describes_a_puct_search(zero_files):
    import subprocess
    import sys

    _, files = zero_files
    spec = f"zero:net={files['tigers']},sims=200"
    run = subprocess.run(
        [sys.executable, "-m", "samuel.cli", "analyse", WIN_IN_ONE, "--player", spec],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert any(line.split()[-1] in ("a1xc1", "e1xc1") for line in lines if "best move" in line)
    for label in ("value", "visits", "prior", "sims", "nodes", "sims/s"):
        assert label in run.stdout
    assert f"value      {RULES.win_phrases[0]} in 1 ply" in lines  # the tigers, to move
    pv = next(line for line in lines if line.startswith("pv "))
    assert pv.split()[1] in ("a1xc1", "e1xc1")


def test_analyse_gives_a_puct_search_in_the_first_players_view(capsys):
    """With the sheep to move, ``samuel analyse --player zero`` turns the search's value (the
    sheep's) and each move's into the tigers' view, as every other score is shown."""
    from samuel import cli

    position = "T3T/SSSSS/SSSSS/SSSS1/TS1ST S 0"
    spec = "zero:sims=60"
    assert cli.main(["analyse", position, "--player", spec]) == 0
    lines = capsys.readouterr().out.splitlines()
    player = make_player(spec, RULES)
    result = player.search(Game(RULES, start=RULES.parse_position(position)))
    [value] = [line for line in lines if line.startswith("value ")]
    assert value.split()[1] == f"{-result.value:+.3f}" and "tigers' view" in value
    best = max(range(len(result.moves)), key=lambda i: result.visits[i])
    move = RULES.format_move(RULES.move_from_code(result.moves[best]))
    [row] = [line for line in lines if line.split()[0] == move and "visits" in line]
    assert row.split()[-1] == f"{-result.values[best]:+.3f}"
