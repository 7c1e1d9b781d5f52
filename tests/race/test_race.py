"""Race, the tests' dice game (``tests/race/__init__.py``), against Samuel's compiled side: the
dispatch agrees with the plain-Python rules, and the search's expectimax values are exact.

These run only in a process where Race is registered (``SAMUEL_EXTRA_GAMES=tests.race``, set
before Samuel's kernels load): ``tests/test_race_game.py`` starts one.
"""

from __future__ import annotations

import doctest
import random
from fractions import Fraction

import numpy as np
import pytest

from samuel.games import descriptors

if "race" not in descriptors():
    pytest.skip(
        "runs in its own process with the race game registered: tests/test_race_game.py",
        allow_module_level=True,
    )

from samuel.evaluation import evaluators  # noqa: E402
from samuel.evaluation import kernels as evaluation  # noqa: E402
from samuel.evaluation.networks import random_network, random_zero_network  # noqa: E402
from samuel.games import actions as game_actions  # noqa: E402
from samuel.games import get_game  # noqa: E402
from samuel.games import kernels as game_kernels  # noqa: E402
from samuel.games.base import IllegalMoveError, NotationError  # noqa: E402
from samuel.games.game import Game  # noqa: E402
from samuel.search import puct  # noqa: E402
from samuel.search.alphabeta import Searcher  # noqa: E402
from samuel.search.puct import PuctSearch, PuctSettings  # noqa: E402
from tests.race import rules as race  # noqa: E402
from tests.race.rules import RULES, Move, Position, Roll  # noqa: E402

GAME = 200
WEIGHTS = (Fraction(1, 8), Fraction(1, 4))  # the classic weights, exactly


def walk(seed: int, games: int = 8) -> list[Position]:
    """Every position of seeded random games played to their end: rolls drawn with their
    probabilities, moves uniformly."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        position = RULES.initial_position()
        while True:
            positions.append(position)
            if RULES.decided_outcome(position) is not None:
                break
            rolls = RULES.chance_outcomes(position)
            if rolls:
                roll = rng.choices([r for r, _ in rolls], weights=[p for _, p in rolls])[0]
                position = RULES.play(position, roll)
            else:
                position = RULES.play(position, rng.choice(RULES.legal_moves(position)))
    return positions


def test_the_rules_doctests_hold() -> None:
    assert doctest.testmod(race).failed == 0


def test_race_is_registered_through_its_descriptor() -> None:
    assert get_game("race") is RULES
    assert descriptors()["race"].number == RULES.number == GAME
    assert GAME in game_kernels.GAMES
    assert game_kernels.chance_outcomes(GAME) == 6
    assert game_kernels.classic_feature_count(GAME) == 2
    assert game_kernels.network_input_count(GAME) == game_kernels.GAMES[GAME].network_inputs
    assert game_kernels.MAX_MOVES >= 6


def test_the_compiled_dispatch_agrees_with_the_rules_on_random_games() -> None:
    sizes = game_kernels.compiled_game(GAME)
    buffer = np.empty(game_kernels.MAX_MOVES, dtype=np.int64)
    weights = np.empty(game_kernels.MAX_MOVES, dtype=np.float64)
    child = np.empty(sizes.state_words, dtype=np.int64)
    image = np.empty(sizes.state_words, dtype=np.int64)
    features = np.empty(2, dtype=np.float64)
    classic = RULES.classic_weights()
    classic_scratch = evaluators.scratch_size(GAME, game_kernels.EVALUATOR_CLASSIC, classic)
    scratch = np.zeros(classic_scratch, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)
    seen_points = set()
    chance_nodes = decisions = 0
    for position in walk(seed=1, games=40):
        state = RULES.encode(position)
        assert state.shape == (sizes.state_words,) and state.dtype == np.int64
        assert game_kernels.key(GAME, state) == RULES.key(position)
        assert game_kernels.sign(GAME, state) == (1 if RULES.side_to_move(position) == 0 else -1)
        n = game_kernels.generate(GAME, state, buffer)
        moves = RULES.legal_moves(position)
        assert sorted(buffer[:n].tolist()) == sorted(RULES.move_code(m) for m in moves)
        assert n <= sizes.max_moves
        outcomes = game_kernels.chance(GAME, state, buffer, weights)
        rolls = RULES.chance_outcomes(position)
        assert outcomes <= sizes.chance_outcomes
        by_code = {int(buffer[i]): float(weights[i]) for i in range(outcomes)}
        assert by_code == {RULES.move_code(r): p for r, p in rolls}
        decided = RULES.decided_outcome(position)
        if decided is not None:
            assert n == 0 and outcomes == 0 and not moves and not rolls
            assert game_kernels.result(GAME, state, n) == decided.score
            seen_points.add(decided.points)
            continue
        assert game_kernels.result(GAME, state, n) == game_kernels.NOT_OVER
        assert (outcomes > 0) != (n > 0)  # a chance node or a decision, never both
        if outcomes:
            chance_nodes += 1
            assert sum(weights[:outcomes]) == pytest.approx(1.0, abs=1e-15)
            assert sum(p for _, p in rolls) == pytest.approx(1.0, abs=1e-15)
        else:
            decisions += 1
        game_kernels.classic_features(GAME, state, features)
        assert features.tolist() == race.classic_features(position)
        value = evaluation.evaluate(
            GAME, game_kernels.EVALUATOR_CLASSIC, classic, state, scratch, active
        )
        assert value == pytest.approx(float(classic_value(position)), abs=1e-12)
        count = game_kernels.network_inputs(GAME, state, active, values)
        assert count == (5 if outcomes else 6)
        assert len(set(active[:count].tolist())) == count
        for symmetry in range(RULES.symmetry_count):
            game_kernels.transform(GAME, state, symmetry, image)
            assert np.array_equal(image, RULES.encode(RULES.transform_position(position, symmetry)))
        for play in [r for r, _ in rolls] + moves:
            code = RULES.move_code(play)
            assert RULES.move_from_code(code) == play
            game_kernels.play(GAME, state, code, child)
            assert np.array_equal(child, RULES.encode(RULES.play(position, play)))
            assert game_kernels.is_irreversible(GAME, state, code)
            assert not game_kernels.is_capture(GAME, code)
            assert 0 <= game_kernels.history_slot(GAME, code) < 1024
    assert seen_points == {1, 2}  # single games and gammons both
    assert chance_nodes > 100 and decisions > 100


def compiled_perft(state: np.ndarray, depth: int) -> tuple[int, float]:
    """Sequences of ``depth`` plies (a roll is a ply) through the dispatch alone, and the
    probability that the dice allow each one, summed: 1 while no game ends on the way."""
    if depth == 0:
        return 1, 1.0
    plays = np.empty(game_kernels.MAX_MOVES, dtype=np.int64)
    weights = np.empty(game_kernels.MAX_MOVES, dtype=np.float64)
    child = np.empty_like(state)
    count, mass = 0, 0.0
    outcomes = game_kernels.chance(GAME, state, plays, weights)
    for i in range(outcomes):
        game_kernels.play(GAME, state, plays[i], child)
        c, m = compiled_perft(child.copy(), depth - 1)
        count, mass = count + c, mass + weights[i] * m
    n = game_kernels.generate(GAME, state, plays)
    for i in range(n):
        game_kernels.play(GAME, state, plays[i], child)
        c, m = compiled_perft(child.copy(), depth - 1)
        count, mass = count + c, mass + m / n
    return count, mass


def test_perft_counts() -> None:
    """From the start: 6 rolls; each leaves 2 moves from two counters on one point (a roll h-l
    moves one counter h + l or the two h and l; l and h is the same, a double d-d the same: 2d
    or d and d): 12; green's 6 rolls: 72; green's 2 moves each: 144."""
    start = RULES.initial_position()
    assert [RULES.perft(start, d) for d in range(5)] == [1, 6, 12, 72, 144]
    state = RULES.encode(start)
    for depth in range(7):
        count, mass = compiled_perft(state, depth)
        assert count == RULES.perft(start, depth)
        assert mass == pytest.approx(1.0, abs=1e-12)
    middle = RULES.parse_position("13/02 R -")
    for depth in range(6):
        assert compiled_perft(RULES.encode(middle), depth)[0] == RULES.perft(middle, depth)


def test_notation_codes_and_illegal_plays() -> None:
    for roll in Roll.all():
        assert RULES.move_from_code(RULES.move_code(roll)) == roll
        assert RULES.parse_move(str(roll)) == roll
        assert isinstance(RULES.move_from_code(RULES.move_code(roll)), Roll)
    assert RULES.parse_move("1-2") == Roll(2, 1)
    for text in ("a3b1", "a4", "b4", "a6", "a1b1"):
        move = RULES.parse_move(text)
        assert isinstance(move, Move) and RULES.format_move(move) == text
        assert RULES.move_from_code(RULES.move_code(move)) == move
    assert RULES.move_code(Move(3, 1)) < 64 <= 100 < RULES.move_code(Roll(1, 1))
    for bad in ("", "c1", "a0", "a7", "4-1", "1-", "b1a3", "a1-b1"):
        with pytest.raises(NotationError):
            RULES.parse_move(bad)
    for bad_code in (0, 64, 100, 110, 134, -1):
        with pytest.raises(ValueError):
            RULES.move_from_code(bad_code)
    for bad in ("00/00 R", "07/00 R -", "66/66 G -", "66/00 R -", "66/00 G 2-1", "00/00 X -"):
        with pytest.raises(NotationError):
            RULES.parse_position(bad)
    start = RULES.initial_position()
    rolled = RULES.play(start, Roll(2, 1))
    with pytest.raises(IllegalMoveError):
        RULES.play(start, Move(3, 0))  # the dice are to roll first
    with pytest.raises(IllegalMoveError):
        RULES.play(rolled, Roll(1, 1))  # they are rolled
    with pytest.raises(IllegalMoveError):
        RULES.play(rolled, Move(1, 2))  # the same position as a2b1, which is the move's name
    over = RULES.parse_position("66/00 G -")
    assert RULES.legal_moves(over) == [] and RULES.chance_outcomes(over) == []
    with pytest.raises(IllegalMoveError):
        RULES.play(over, Roll(1, 1))


def test_points_of_a_finished_game() -> None:
    """A gammon (the loser bore off no counter) is worth 2, a single game 1, either way."""
    cases = {"66/05 G -": 2, "66/16 G -": 1, "05/66 R -": -2, "46/66 R -": -1}
    for text, points in cases.items():
        position = RULES.parse_position(text)
        state = RULES.encode(position)
        outcome = RULES.decided_outcome(position)
        assert outcome.score == points
        kind = "gammon" if abs(points) == 2 else "single game"
        assert RULES.outcome_classes[outcome.points] == kind
        buffer = np.empty(game_kernels.MAX_MOVES, dtype=np.int64)
        weights = np.empty(game_kernels.MAX_MOVES, dtype=np.float64)
        assert game_kernels.chance(GAME, state, buffer, weights) == 0
        assert game_kernels.generate(GAME, state, buffer) == 0
        assert game_kernels.result(GAME, state, 0) == points


def test_a_game_plays_rolls_and_moves_to_its_end() -> None:
    rng = random.Random(7)
    game = Game(RULES)
    while game.outcome is None:
        rolls = RULES.chance_outcomes(game.position)
        if rolls:
            assert game.legal_moves() == []
            game.play(rng.choice([r for r, _ in rolls]))
        else:
            game.play(rng.choice(game.legal_moves()))
    assert game.outcome.points in (1, 2)
    assert game.ply % 2 == 0  # every turn is a roll and a move


# -- expectimax -----------------------------------------------------------------------------------


def classic_value(position: Position) -> Fraction:
    """The classic evaluation, first player's view, exactly."""
    return sum(w * f for w, f in zip(WEIGHTS, race.classic_features(position), strict=True))


def expectimax(position: Position, depth: int, leaf=classic_value) -> Fraction:
    """The search's value of ``position`` to ``depth`` moves, side to move's view, computed
    plainly: a finished game scores its points; a chance node its outcomes' values weighted by
    their probabilities (a roll costs no depth), or its static value once the depth is spent; a
    decision the best of its moves, each costing one unit of depth."""
    side = 1 if position.red_to_move else -1
    decided = RULES.decided_outcome(position)
    if decided is not None:
        return side * decided.score
    rolls = RULES.chance_outcomes(position)
    if rolls:
        if depth <= 0:
            return side * leaf(position)
        return sum(
            roll.probability * expectimax(RULES.play(position, roll), depth, leaf)
            for roll, _ in rolls
        )
    return max(
        -expectimax(RULES.play(position, move), depth - 1, leaf)
        for move in RULES.legal_moves(position)
    )


def searched(position: Position, depth: int, evaluator=None, params=None):
    evaluator = game_kernels.EVALUATOR_CLASSIC if evaluator is None else evaluator
    params = RULES.classic_weights() if params is None else params
    history = np.array([RULES.key(position)], dtype=np.int64)
    result = Searcher(GAME).search(RULES.encode(position), history, 0, evaluator, params, depth)
    assert result.depth == depth
    return result


# Decision nodes (dice rolled): the start's, the hand-worked ones below, and random ones.
HAND_VALUES = {
    # Red (rear 3, front 5) to play 1-1; green has one counter off and the other on 3, and
    # wins with any roll but 1-1 (8/9). Red's moves: a2 -> red 55, a1b1 -> 46, b2 -> 36 (the
    # front counter off). Evaluation: 1/8 (green's pips - red's) + 1/4 (red to roll) - 1/4
    # (green to roll); green's pips after any red move: 3.
    #
    # Depth 1, the static values: 55: 1/8 (3 - 2) - 1/4 = -1/8; 46: the same; 36:
    # 1/8 (3 - 3) - 1/4 = -1/4. Best -1/8.
    #
    # Depth 2: green's 8/9 rolls win, a gammon (-2) against 55, a single game (-1) against 46
    # and 36; green's 1-1 (1/9) leaves green 56 with red to roll, static: 55 and 46:
    # 1/8 (1 - 2) + 1/4 = 1/8; 36: 1/8 (1 - 3) + 1/4 = 0. So 55: -16/9 + 1/72 = -127/72;
    # 46: -8/9 + 1/72 = -7/8; 36: -8/9. Best -7/8 (a1b1: save the gammon, keep 2 pips to go).
    #
    # Depth 3: after green's 1-1, red rolls with one move left: from 46 any roll bears the
    # counter on 4 off (+1, a single game: green has one off); from 55 any roll bears both
    # off (+1); from 36, 8/9 of the rolls win (+1) and 1-1 leaves red 56 against green 56
    # with green to roll: static 1/8 (1 - 1) - 1/4 = -1/4, so 8/9 - 1/36 = 31/36. So
    # 55: -16/9 + 1/9 = -5/3; 46: -8/9 + 1/9 = -7/9; 36: -8/9 + 31/324 = -257/324. Best -7/9.
    #
    # Depth 4 and more: 46 is solved at depth 3 (every line ends the game), and 36 only gets
    # worse (-8/9 + 1/9 (8/9 - 1/9) = -65/81), so -7/9, the position's exact value.
    "35/36 R 1-1": {1: Fraction(-1, 8), 2: Fraction(-7, 8), 3: Fraction(-7, 9), 4: Fraction(-7, 9)},
    # Red bears both counters off with a2b1 (a3 would leave one on 5); green has none off: a
    # gammon, 2 points, at every depth.
    "55/00 R 2-1": {1: Fraction(2), 2: Fraction(2), 3: Fraction(2)},
    # The same with the colours swapped, green to move: green's view.
    "00/55 G 2-1": {1: Fraction(2), 2: Fraction(2), 3: Fraction(2)},
}


def test_the_hand_worked_values_are_the_plain_expectimax() -> None:
    for text, values in HAND_VALUES.items():
        position = RULES.parse_position(text)
        for depth, value in values.items():
            assert expectimax(position, depth) == value, (text, depth)


def decision_nodes() -> list[Position]:
    positions = [RULES.parse_position(text) for text in HAND_VALUES]
    positions += [RULES.play(RULES.initial_position(), roll) for roll in (Roll(2, 1), Roll(3, 3))]
    # mid-game positions whose values change with the depth
    positions += [RULES.parse_position(t) for t in ("23/13 R 2-1", "34/24 G 3-1", "14/35 R 1-1")]
    positions += [RULES.parse_position("45/35 G 2-2")]
    rng = random.Random(11)
    chosen = [p for p in walk(seed=3, games=10) if RULES.legal_moves(p)]
    positions += rng.sample(chosen, 8)
    return positions


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_search_value_is_the_exact_expectimax(depth: int) -> None:
    for position in decision_nodes():
        text = RULES.format_position(position)
        exact = expectimax(position, depth)
        result = searched(position, depth)
        assert result.score == pytest.approx(float(exact), abs=1e-9), (text, depth)
        best = RULES.move_from_code(result.best_move)
        assert best in RULES.legal_moves(position)
        # the move it chose is worth the value it gave
        assert -expectimax(RULES.play(position, best), depth - 1) == exact, (text, depth)
        if text in HAND_VALUES:
            assert result.score == pytest.approx(float(HAND_VALUES[text][depth]), abs=1e-9)


def test_the_hand_worked_position_at_depth_4_is_solved() -> None:
    position = RULES.parse_position("35/36 R 1-1")
    result = searched(position, 4)
    assert result.score == pytest.approx(-7 / 9, abs=1e-9)
    assert RULES.move_from_code(result.best_move) == Move(1, 1)  # a1b1


def test_the_search_with_a_network_is_the_expectimax_of_its_values() -> None:
    """The generic network evaluator on Race's encoding: the same expectimax, its leaves the
    network's values (first player's view, as the game says)."""
    params = random_network(GAME, 3)
    size = evaluators.scratch_size(GAME, game_kernels.EVALUATOR_NETWORK, params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)

    def network(position: Position) -> Fraction:
        state = RULES.encode(position)
        return Fraction(float(evaluation.network_value(GAME, params, state, scratch, active)))

    for position in decision_nodes()[:6]:
        for depth in (1, 2):
            exact = expectimax(position, depth, leaf=network)
            result = searched(position, depth, game_kernels.EVALUATOR_NETWORK, params)
            assert result.score == pytest.approx(float(exact), abs=1e-6)


# -- Samuel Zero: actions and the PUCT search through chance nodes ------------------------------


def test_a_moves_action_is_its_code() -> None:
    assert game_actions.action_count(GAME) == 64
    for position in walk(seed=2, games=4):
        state = RULES.encode(position)
        moves, actions = game_actions.legal_actions(GAME, state)
        assert actions.tolist() == moves.tolist()
        assert [game_actions.action_symmetry(GAME, 1, int(a)) for a in actions] == actions.tolist()
    with pytest.raises(ValueError, match="no action"):
        game_actions.move_action(GAME, state, 100 + 11)  # a roll is no move


def zero_search(
    text: str, simulations: int, seed: int = 0, reuse: bool = False, search=None, **settings
):
    """A PUCT search of the position ``text`` (a decision) with a random Zero network of
    ``seed``, its only history."""
    position = RULES.parse_position(text)
    search = search or PuctSearch(GAME, max_nodes=1 << 20)
    result = search.search(
        random_zero_network(GAME, seed),
        RULES.encode(position),
        np.array([RULES.key(position)], dtype=np.int64),
        0,
        PuctSettings(simulations, **settings),
        seed=seed,
        reuse=reuse,
    )
    return position, search, result


def exact_values(position: Position) -> dict[Move, Fraction]:
    """Each legal move's exact value for the side to move: the expectimax to the game's end."""
    return {
        move: -expectimax(RULES.play(position, move), 30) for move in RULES.legal_moves(position)
    }


# Decision nodes near the end, whose trees PUCT covers: the hand-worked one first (a1b1, -7/9),
# a gammon to take (a2b1), and positions where a move keeps or saves a gammon.
NEAR_THE_END = (
    "35/36 R 1-1",
    "55/00 R 2-1",
    "00/55 G 2-1",
    "23/13 R 2-1",
    "34/24 G 3-1",
    "14/35 R 1-1",
    "45/35 G 2-2",
    "16/23 R 2-2",
)


@pytest.mark.parametrize("text", NEAR_THE_END)
def test_puct_through_the_rolls_finds_the_exact_expectimax_move(text: str) -> None:
    """PUCT draws each roll with its probability and searches on; with simulations enough to
    cover the game's end, its most visited move is the one the exact expectimax calls best, and
    its value is near the exact one (a mean over the tree, not the minimax: within a few
    hundredths)."""
    for seed in (0, 1):
        position, _, result = zero_search(text, 20_000, seed, c_puct=3.0)
        exact = exact_values(position)
        chosen = RULES.move_from_code(result.best_move)
        assert exact[chosen] == max(exact.values()), (text, seed, str(chosen))
        assert result.value == pytest.approx(float(max(exact.values())), abs=0.06)
        if text == "35/36 R 1-1":
            assert chosen == Move(1, 1) and exact[chosen] == Fraction(-7, 9)


def chance_nodes(search: PuctSearch, used: int) -> list[int]:
    return [n for n in range(used) if search.tree[puct.KIND][n] == puct.CHANCE]


def test_a_chance_node_draws_its_rolls_with_their_probabilities() -> None:
    """Every position whose dice are to roll is a chance node: a child per roll, whose prior is
    the roll's probability, the same side to move, and visits that add up to the node's (each
    simulation through it draws one roll); the rolls are drawn about as often as they come up."""
    _, search, result = zero_search("23/13 R 2-1", 5000)
    tree = search.tree
    nodes = chance_nodes(search, result.nodes)
    assert len(nodes) > 10
    rolls = {roll.code: float(roll.probability) for roll in Roll.all()}
    for node in nodes:
        first, count = tree[puct.FIRST_CHILD][node], tree[puct.CHILD_COUNT][node]
        children = range(first, first + count)
        assert {int(tree[puct.MOVE][c]): tree[puct.PRIOR][c] for c in children} == rolls
        assert all(
            tree[puct.SIDE][c] == tree[puct.SIDE][node] for c in children if tree[puct.VISITS][c]
        )
        assert tree[puct.VISITS][node] == sum(tree[puct.VISITS][c] for c in children)
        assert tree[puct.PARENT][node] >= 0  # never the root
    busiest = max(nodes, key=lambda n: tree[puct.VISITS][n])
    first = tree[puct.FIRST_CHILD][busiest]
    visits = tree[puct.VISITS][busiest]
    assert visits > 1000
    for c in range(first, first + 6):
        assert tree[puct.VISITS][c] / visits == pytest.approx(tree[puct.PRIOR][c], abs=0.03)


def test_the_same_seed_gives_the_same_search_through_the_rolls() -> None:
    def fingerprint(seed: int):
        _, search, result = zero_search("14/35 R 1-1", 3000, seed, noise_fraction=0.25)
        return result.visits.tolist(), result.values.tolist(), result.nodes

    assert fingerprint(3) == fingerprint(3)
    assert fingerprint(3) != fingerprint(4)


def test_a_search_starts_at_a_decision_not_at_dice_to_roll() -> None:
    position = RULES.parse_position("23/13 R -")
    with pytest.raises(ValueError, match="the dice are still to roll"):
        PuctSearch(GAME).search(
            random_zero_network(GAME, 0),
            RULES.encode(position),
            np.array([RULES.key(position)], dtype=np.int64),
            0,
            PuctSettings(10),
        )


def test_the_solver_and_minimax_backups_through_the_rolls() -> None:
    """The solver proves no chance node (an average) and no position by one winning move (a
    gammon may be open); a move that ends the game is still exact. Implicit minimax backups
    average a chance node's rolls by their probabilities."""
    _, search, result = zero_search("55/00 R 2-1", 2000, solver=True)
    assert RULES.move_from_code(result.best_move) == Move(2, 1) and result.forced_plies == 1
    assert result.value == pytest.approx(2.0, abs=0.02)
    position, search, result = zero_search("35/36 R 1-1", 20_000, solver=True, c_puct=3.0)
    assert RULES.move_from_code(result.best_move) == Move(1, 1)
    tree = search.tree
    rolls = [
        n
        for n in range(result.nodes)
        if tree[puct.CHILD_COUNT][n] and tree[puct.MOVE][tree[puct.FIRST_CHILD][n]] >= 100
    ]  # the nodes whose children are rolls: dice to roll, still chance nodes
    assert rolls and all(tree[puct.KIND][n] == puct.CHANCE for n in rolls)
    position, search, result = zero_search("34/24 G 3-1", 20_000, minimax=0.5, c_puct=3.0)
    exact = exact_values(position)
    assert exact[RULES.move_from_code(result.best_move)] == max(exact.values())


def test_tree_reuse_follows_a_move_and_a_roll() -> None:
    """The game goes on by the chosen move and a roll; the next search keeps the subtree under
    that roll."""
    position, search, result = zero_search("23/13 R 2-1", 3000)
    moved = RULES.play(position, RULES.move_from_code(result.best_move))
    rolled = RULES.play(moved, Roll(2, 1))
    keys = np.array([RULES.key(p) for p in (position, moved, rolled)], dtype=np.int64)
    again = search.search(
        random_zero_network(GAME, 0), RULES.encode(rolled), keys, 2, PuctSettings(500), reuse=True
    )
    assert again.reused > 0
    assert RULES.move_from_code(again.best_move) in RULES.legal_moves(rolled)


def test_the_compiled_game_loops_roll_the_dice_and_score_in_points() -> None:
    """Self-play, rollouts and the pipeline's expert games share one compiled step
    (samuel.train.game_loop): they roll the dice, play every game to its end and score it in
    points; every recorded position is a decision, not dice to roll; the same seed gives the
    same games, and another seed other dice."""
    from samuel.pipeline.sources import play_expert_games
    from samuel.train.rollouts import RolloutConfig, rollout_labels
    from samuel.train.selfplay import SelfPlaySettings, play_selfplay

    root = RULES.encode(RULES.initial_position())
    classic = game_kernels.EVALUATOR_CLASSIC
    weights = RULES.classic_weights()
    seeds = np.arange(40, dtype=np.int64)
    settings = SelfPlaySettings(GAME, classic, weights, root, 2, 0, 0.0, 200)
    played = play_selfplay(settings, seeds)
    again = play_selfplay(settings, seeds)
    assert np.array_equal(played.positions, again.positions)
    results = played.results.tolist()
    assert set(results) <= {-2, -1, 1, 2} and {-1, 1} <= set(results)  # no draws in a race
    assert len({tuple(p[1].tolist()) for p in played.positions}) > 1  # the dice differ
    buffer = np.empty(game_kernels.MAX_MOVES, dtype=np.int64)
    chances = np.empty(game_kernels.MAX_MOVES, dtype=np.float64)
    for g in range(len(seeds)):
        for ply in range(int(played.plies[g])):
            state = played.positions[g, ply]
            assert game_kernels.chance(GAME, state, buffer, chances) == 0
            n = game_kernels.generate(GAME, state, buffer)
            assert n > 0 and game_kernels.result(GAME, state, n) == game_kernels.NOT_OVER
    # rollouts from the start: outcomes in points, the same for the same seeds
    starts = np.stack([root, root])
    config = RolloutConfig(rollouts=8, depth=1, epsilon=0.1)
    labels = rollout_labels(GAME, classic, weights, starts, np.array([5, 6]), config)
    assert np.array_equal(
        labels.values,
        rollout_labels(GAME, classic, weights, starts, np.array([5, 6]), config).values,
    )
    assert np.all(np.abs(labels.values) <= 2.0) and labels.values[0] != 0.0
    # expert games (the pipeline's compiled loop): a search against a deeper one, to the end
    record = (
        np.zeros((6, 200, len(root)), dtype=np.int64),
        np.zeros((6, 200), dtype=np.int64),
        np.zeros(6, dtype=np.int64),
        np.zeros(6, dtype=np.int64),
    )
    first, second = (classic, weights, None, 1), (classic, weights, None, 2)
    seeds = np.arange(6, dtype=np.int64)
    play_expert_games(GAME, *first, *second, root, 0, 200, seeds, 10, *record)
    plies, results = record[2], record[3]
    assert set(results.tolist()) <= {-2, -1, 1, 2} and (plies > 0).all()
