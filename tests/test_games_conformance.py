"""What every registered game promises through :class:`samuel.games.base.GameRules`, checked on
random games. Only the interface is used here, so a new game gets these tests by registering."""

from __future__ import annotations

import random

import numpy as np
import pytest

from samuel.evaluation import evaluators
from samuel.evaluation import kernels as evaluation
from samuel.games import kernels as game_kernels
from samuel.games import registry
from samuel.games.base import GameRules, Termination, terminations
from samuel.games.game import Game
from samuel.games.record import format_record, parse_records, record_from_game, replay
from samuel.search import alphabeta
from samuel.search.alphabeta import Searcher

GAMES = sorted(registry())


@pytest.fixture(params=GAMES)
def rules(request: pytest.FixtureRequest) -> GameRules:
    return registry()[request.param]


def pick(rules: GameRules, position, rng: random.Random):
    """A random legal move, or at a chance node an outcome drawn with its probability."""
    outcomes = rules.chance_outcomes(position)
    if outcomes:
        return rng.choices([o for o, _ in outcomes], weights=[p for _, p in outcomes])[0]
    return rng.choice(rules.legal_moves(position))


def random_walk(rules: GameRules, seed: int, games: int = 6, plies: int = 120) -> list:
    """``(position, move)`` pairs along seeded random games, each game up to its end or
    ``plies`` moves (a chance node's outcome counts as one); a finished position comes with
    move None."""
    rng = random.Random(seed)
    walk = []
    for _ in range(games):
        position = rules.initial_position()
        for _ in range(plies):
            if rules.decided_outcome(position) is not None:
                walk.append((position, None))
                break
            move = pick(rules, position, rng)
            walk.append((position, move))
            position = rules.play(position, move)
    return walk


def test_the_start_is_open_and_has_moves(rules: GameRules) -> None:
    start = rules.initial_position()
    assert rules.decided_outcome(start) is None
    assert len(rules.legal_moves(start)) > 0 or len(rules.chance_outcomes(start)) > 0
    assert rules.initial_position() == start and hash(rules.initial_position()) == hash(start)
    assert rules.side_to_move(start) in (0, 1)
    assert isinstance(rules.draw_board(start), str) and rules.draw_board(start)


def test_the_descriptor_says_what_the_rules_do(rules: GameRules) -> None:
    """The command line builds its options from the light descriptor alone: it must name the
    game, its sides and the side that moves first as the rules do."""
    from samuel.games import descriptors

    game = descriptors()[rules.name]
    assert game.rules() is rules
    assert (game.title, game.sides, game.side_letters) == (
        rules.title,
        rules.sides,
        rules.side_letters,
    )
    assert game.first_to_move == rules.side_to_move(rules.initial_position())
    first = rules.sides[game.first_to_move]
    assert game.default_players() == {
        side: "human" if side == first else "classic" for side in rules.sides
    }


def test_the_rules_have_every_member_the_interface_declares(rules: GameRules) -> None:
    """Everything generic code uses of a game's rules is declared in ``GameRules``; a game's
    rules offer all of it."""
    declared = set(GameRules.__annotations__) | {
        name for name, value in vars(GameRules).items() if callable(value) and name[0] != "_"
    }
    assert {"number", "outcome_classes", "chance_outcomes", "perft", "side_letters"} <= declared
    missing = sorted(name for name in declared if not hasattr(rules, name))
    assert not missing, f"{rules.title}'s rules lack {missing}"
    assert rules.perft(rules.initial_position(), 1) >= 0


def test_play_returns_a_new_position_and_leaves_the_old_one(rules: GameRules) -> None:
    for position, move in random_walk(rules, seed=1):
        if move is None:
            assert rules.legal_moves(position) == []
            continue
        text, key, encoding = (
            rules.format_position(position),
            rules.key(position),
            rules.encode(position).copy(),
        )
        child = rules.play(position, move)
        assert child is not position and child != position
        assert rules.format_position(position) == text
        assert rules.key(position) == key
        assert np.array_equal(rules.encode(position), encoding)
        assert rules.play(position, move) == child  # the same move, the same position


def test_positions_and_moves_read_back_what_they_write(rules: GameRules) -> None:
    for position, _ in random_walk(rules, seed=2):
        text = rules.format_position(position)
        assert rules.parse_position(text) == position
        assert rules.format_position(rules.parse_position(text)) == text
        outcomes = [outcome for outcome, _ in rules.chance_outcomes(position)]
        for move in rules.legal_moves(position) + outcomes:
            move_text = rules.format_move(move)
            assert rules.parse_move(move_text) == move
            assert rules.move_from_code(rules.move_code(move)) == move


def test_each_symmetry_has_an_inverse_and_maps_moves(rules: GameRules) -> None:
    walk = random_walk(rules, seed=3, games=3)
    positions = [position for position, _ in walk]
    count = rules.symmetry_count
    assert count >= 1
    identities = [
        s for s in range(count) if all(rules.transform_position(p, s) == p for p in positions)
    ]
    assert identities, "no symmetry leaves every position as it is"
    for s in range(count):
        inverses = [
            t
            for t in range(count)
            if all(
                rules.transform_position(rules.transform_position(p, s), t) == p for p in positions
            )
        ]
        assert inverses, f"symmetry {s} has no inverse"
    for position, _ in walk[::5]:
        moves = rules.legal_moves(position)
        for s in range(count):
            image = rules.transform_position(position, s)
            assert sorted(rules.format_move(rules.transform_move(m, s)) for m in moves) == sorted(
                rules.format_move(m) for m in rules.legal_moves(image)
            )
            assert (rules.decided_outcome(image) is None) == (
                rules.decided_outcome(position) is None
            )


def test_keys_and_encodings_tell_positions_apart(rules: GameRules) -> None:
    """A position's encoding is the position; its key stands for the first ``key_words`` words of
    the encoding (what repetition compares), and the words after it (counters such as draughts'
    40-move count) are left out: equal keys <=> equal key words."""
    width = len(rules.encode(rules.initial_position()))
    assert 1 <= rules.key_words <= width
    by_key: dict[int, bytes] = {}
    key_of: dict[bytes, int] = {}
    by_encoding: dict[bytes, object] = {}
    for position, _ in random_walk(rules, seed=4, games=12):
        twin = rules.parse_position(rules.format_position(position))
        assert twin == position and hash(twin) == hash(position)
        assert rules.key(twin) == rules.key(position)
        assert np.array_equal(rules.encode(twin), rules.encode(position))
        key = rules.key(position)
        encoding = rules.encode(position)
        assert encoding.shape == (width,) and encoding.dtype == np.int64
        covered = encoding[: rules.key_words].tobytes()
        assert by_key.setdefault(key, covered) == covered  # one key, one set of key words
        assert key_of.setdefault(covered, key) == key  # the other words do not change the key
        assert by_encoding.setdefault(encoding.tobytes(), position) == position
    assert len(by_key) > 100


def test_a_random_game_under_a_ply_cap_ends(rules: GameRules) -> None:
    cap = 60
    for seed in range(8):
        rng = random.Random(seed)
        game = Game(rules, ply_cap=cap)
        assert game.outcome is None
        while game.outcome is None:
            assert game.legal_moves() or game.chance_outcomes()
            game.play(pick(rules, game.position, rng))
        assert game.ply <= cap
        assert game.outcome.termination in terminations(rules)
        assert game.outcome.result in (-1, 0, 1)
        assert game.outcome.points in rules.outcome_classes
        assert game.outcome.score == game.outcome.result * game.outcome.points
        assert game.legal_moves() == []
        if game.outcome.termination is Termination.PLY_CAP:
            assert game.ply == cap and game.outcome.result == 0


def test_a_copied_game_goes_on_alone_as_the_replayed_game_does(rules: GameRules) -> None:
    rng = random.Random(5)
    game = Game(rules, ply_cap=40)
    while game.outcome is None and game.ply < 25:
        game.play(pick(rules, game.position, rng))
    played = game.ply
    copy = game.copy()
    replayed = Game(rules, start=game.start, ply_cap=game.ply_cap)
    for move in game.moves:
        replayed.play(move)
    for other in (copy, replayed):
        while other.outcome is None:  # the same moves, then on to the end in both
            other.play(pick(rules, other.position, random.Random(other.ply)))
    assert game.ply == played  # the original is unchanged
    assert copy.moves == replayed.moves and copy.outcome == replayed.outcome
    assert [rules.key(p) for p in copy.positions] == [rules.key(p) for p in replayed.positions]
    assert (copy.history_keys() == replayed.history_keys()).all()
    assert copy.window_start == replayed.window_start


# -- the compiled side: samuel.games.kernels' dispatch agrees with the friendly API ---------------


def test_the_compiled_dispatch_agrees_with_the_rules(rules: GameRules) -> None:
    game = rules.number
    sizes = game_kernels.compiled_game(game)
    assert sizes.state_words <= game_kernels.STATE_SIZE
    assert sizes.max_moves <= game_kernels.MAX_MOVES
    room = game_kernels.move_room(game)  # the game's own buffers hold its moves and outcomes
    moves = np.empty(room, dtype=np.int64)
    child = np.empty(sizes.state_words, dtype=np.int64)
    weights = rules.classic_weights()
    size = evaluators.scratch_size(game, game_kernels.EVALUATOR_CLASSIC, weights)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    outcomes = np.empty(room, dtype=np.int64)
    probabilities = np.empty(room, dtype=np.float64)
    for position, _ in random_walk(rules, seed=5):
        state = rules.encode(position)
        assert state.shape == (sizes.state_words,)
        chance = rules.chance_outcomes(position)
        count = game_kernels.chance(game, state, outcomes, probabilities)
        assert count == len(chance) <= sizes.chance_outcomes
        assert {
            int(o): float(p) for o, p in zip(outcomes[:count], probabilities[:count], strict=True)
        } == {rules.move_code(outcome): pytest.approx(p, abs=1e-12) for outcome, p in chance}
        if chance:
            assert sum(p for _, p in chance) == pytest.approx(1.0, abs=1e-12)
            assert all(p > 0 for _, p in chance) and rules.legal_moves(position) == []
            assert rules.decided_outcome(position) is None
            side = game_kernels.sign(game, state)
            for outcome, _ in chance:
                game_kernels.play(game, state, rules.move_code(outcome), child)
                assert np.array_equal(child, rules.encode(rules.play(position, outcome)))
                assert game_kernels.sign(game, child) == side  # a roll keeps the side to move
            continue
        n = game_kernels.generate(game, state, moves)
        legal = rules.legal_moves(position)
        assert sorted(moves[:n].tolist()) == sorted(rules.move_code(m) for m in legal)
        assert n <= sizes.max_moves
        assert game_kernels.key(game, state) == rules.key(position)
        first_to_move = rules.side_to_move(position) == 0
        assert game_kernels.sign(game, state) == (1 if first_to_move else -1)
        decided = rules.decided_outcome(position)
        result = game_kernels.result(game, state, n)
        assert result == (game_kernels.NOT_OVER if decided is None else decided.score)
        if decided is not None:
            continue
        value = evaluation.evaluate(
            game, game_kernels.EVALUATOR_CLASSIC, weights, state, scratch, active
        )
        assert np.isfinite(value)
        for move in legal:
            code = rules.move_code(move)
            game_kernels.play(game, state, code, child)
            assert np.array_equal(child, rules.encode(rules.play(position, move)))
            irreversible = game_kernels.is_irreversible(game, state, code)
            assert irreversible == rules.is_irreversible(position, move)
            if game_kernels.is_capture(game, code):
                assert irreversible  # a capture can never be undone
            assert 0 <= game_kernels.history_slot(game, code) < 1024


def test_move_buffers_are_sized_by_the_game_they_serve(rules: GameRules) -> None:
    """A game's move room is its own bound, not every game's: a search of one game does not
    carry the tables another game's thousands of dice plays would need."""
    game = rules.number
    sizes = game_kernels.compiled_game(game)
    room = game_kernels.move_room(game)
    assert room == max(sizes.max_moves, sizes.chance_outcomes) <= game_kernels.MAX_MOVES
    assert game_kernels.move_room_kernel(game) == room  # what compiled code sizes buffers by
    assert game_kernels.MAX_MOVES == max(game_kernels.move_room(g) for g in game_kernels.GAMES)
    tables = Searcher(game, table_bits=4).tables
    # moves at each ply, their ordering scores, chance outcomes' probabilities (new_tables)
    for table in (tables[7], tables[8], tables[alphabeta.CHANCE_WEIGHTS]):
        assert table.shape == (alphabeta.MAX_PLY, room)


def test_move_room_names_a_game() -> None:
    tigers = registry()["tigers"].number
    assert game_kernels.move_room(tigers) == game_kernels.compiled_game(tigers).max_moves
    by_three = tigers | (3 << game_kernels.VARIANT_SHIFT)  # won by 3 captures
    assert game_kernels.move_room(by_three) == game_kernels.move_room(tigers)
    unknown = max(game_kernels.GAMES) + 1
    with pytest.raises(ValueError, match="no game has number"):
        game_kernels.move_room(unknown)
    with pytest.raises(ValueError, match="unknown game"):
        game_kernels.move_room_kernel(unknown)


def test_the_compiled_interface_is_complete_and_raises_nothing_inline(rules: GameRules) -> None:
    """The game's compiled module has every function of the interface, with its parameters.
    They are inlined into their callers (prange loops among them), where a ``raise`` would keep
    numba from running the loop in parallel: they raise through a call instead
    (``compiled_game.unknown_game``, ``move_buffer_full``)."""
    import ast
    import importlib
    import inspect

    from samuel.games import descriptors, dispatch

    module = importlib.import_module(descriptors()[rules.name].compiled_module)
    tree = ast.parse(inspect.getsource(module))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for name, (parameters, _) in dispatch.INTERFACE.items():
        assert name in functions, f"{module.__name__} has no {name}"
        wanted = ["game", *parameters.split(", ")]
        assert [a.arg for a in functions[name].args.args] == wanted, name
        raises = [n.lineno for n in ast.walk(functions[name]) if isinstance(n, ast.Raise)]
        assert not raises, f"{module.__name__}.{name} raises inline at lines {raises}"


def test_an_unknown_game_or_evaluator_is_an_error_not_a_zero(rules: GameRules) -> None:
    state = rules.encode(rules.initial_position())
    moves = np.empty(game_kernels.move_room(rules.number), dtype=np.int64)
    unknown = max(game_kernels.GAMES) + 1
    with pytest.raises(ValueError, match="unknown game"):
        game_kernels.generate(unknown, state, moves)
    with pytest.raises(ValueError, match="unknown game"):
        game_kernels.key(unknown, state)
    with pytest.raises(ValueError, match="no game has number"):
        Searcher(unknown)
    missing = [
        e
        for e in (
            game_kernels.EVALUATOR_CLASSIC,
            game_kernels.EVALUATOR_NETWORK,
            game_kernels.EVALUATOR_HYBRID,
            7,
        )
        if e not in game_kernels.compiled_game(rules.number).evaluators
    ]
    # room for the classic evaluator: no missing evaluator gets as far as reading it
    weights = rules.classic_weights()
    size = evaluators.scratch_size(rules.number, game_kernels.EVALUATOR_CLASSIC, weights)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    params = np.zeros(1000, dtype=np.float32)
    for evaluator in missing:
        with pytest.raises(ValueError, match="no such evaluator"):
            evaluation.evaluate(rules.number, evaluator, params, state, scratch, active)
        with pytest.raises(ValueError, match="has no"):
            Searcher(rules.number).search(
                state, np.array([rules.key(rules.initial_position())]), 0, evaluator, params, 2
            )


# -- notation, records and symmetries ----------------------------------------------------------


def api_perft(rules: GameRules, position, depth: int) -> int:
    """Move sequences of ``depth`` plies through the interface alone (a finished position has no
    moves)."""
    if depth == 0:
        return 1
    outcomes = [outcome for outcome, _ in rules.chance_outcomes(position)]
    return sum(
        api_perft(rules, rules.play(position, move), depth - 1)
        for move in rules.legal_moves(position) + outcomes
    )


@pytest.mark.slow
def test_symmetric_positions_have_the_same_perft(rules: GameRules) -> None:
    walk = random_walk(rules, seed=5, games=8)
    positions = [position for position, _ in walk][::9]
    assert len(positions) >= 10
    for i, position in enumerate(positions):
        depth = 3 if i < 3 else 2
        count = api_perft(rules, position, depth)
        for s in range(rules.symmetry_count):
            image = rules.transform_position(position, s)
            assert rules.parse_position(rules.format_position(image)) == image
            assert api_perft(rules, image, depth) == count, (rules.format_position(position), s)


def test_moves_of_symmetric_positions_read_back_what_they_write(rules: GameRules) -> None:
    for position, _ in random_walk(rules, seed=6, games=6)[::3]:
        for move in rules.legal_moves(position):
            for s in range(rules.symmetry_count):
                image = rules.transform_move(move, s)
                assert rules.parse_move(rules.format_move(image)) == image
                assert rules.move_from_code(rules.move_code(image)) == image


def random_game(rules: GameRules, seed: int) -> Game:
    """A seeded random game: every other one from a position reached by random play, every
    third under a ply cap of 12 (most reach it), every fourth stopped before its end."""
    rng = random.Random(seed)
    start = rules.initial_position()
    if seed % 2:
        walk = Game(rules)
        for _ in range(rng.randrange(1, 30)):
            if walk.outcome is not None:
                break
            walk.play(pick(rules, walk.position, rng))
        if walk.outcome is None:
            start = walk.position
    game = Game(rules, start, ply_cap=12 if seed % 3 == 0 else 300)
    stop = rng.randrange(40) if seed % 4 == 0 else 300
    while game.outcome is None and game.ply < stop:
        game.play(pick(rules, game.position, rng))
    return game


def test_whole_records_read_back_what_they_write(rules: GameRules) -> None:
    ends = set()
    for seed in range(60):
        game = random_game(rules, seed)
        players = {rules.sides[0]: f"random {seed}", rules.sides[1]: "random"}
        record = record_from_game(game, players, date="2025.01.31", extra_tags={"Round": "1"})
        text = format_record(record)
        assert f'[{rules.record_format.game_tag} "{rules.record_format.game_value}"]' in text
        [parsed] = parse_records(text)
        assert parsed == record and format_record(parsed) == text
        replayed = replay(parsed)
        assert replayed.positions == game.positions and replayed.outcome == game.outcome
        if game.outcome is not None:
            assert game.outcome.termination in terminations(rules)
            ends.add(game.outcome.termination)
    assert len(ends) >= 2, ends  # a decisive end of the game's own and the ply cap at least


def test_the_network_encoding_of_a_position_and_its_images_agree(rules: GameRules) -> None:
    """Every symmetry maps a position's set inputs as the game says: the compiled transform is the
    friendly one, and the network's value (first player's view) changes by the symmetry's sign."""
    from samuel.evaluation.networks import random_network

    game = rules.number
    sizes = game_kernels.compiled_game(game)
    assert sizes.symmetries == rules.symmetry_count
    params = random_network(game, 5)
    size = evaluators.scratch_size(game, game_kernels.EVALUATOR_NETWORK, params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
    values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)
    image = np.zeros(sizes.state_words, dtype=np.int64)
    for position, move in random_walk(rules, seed=9, games=2, plies=60):
        if move is None:
            continue
        state = rules.encode(position)
        n = game_kernels.network_inputs(game, state, active, values)
        assert 0 < n <= sizes.most_set_inputs
        assert all(0 <= i < sizes.network_inputs for i in active[:n])
        value = evaluation.network_value(game, params, state, scratch, active)
        for symmetry in range(sizes.symmetries):
            game_kernels.transform(game, state, symmetry, image)
            friendly = rules.encode(rules.transform_position(position, symmetry))
            assert np.array_equal(image, friendly)
            image_active = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.int64)
            image_values = np.zeros(game_kernels.MAX_SET_INPUTS, dtype=np.float32)
            m = game_kernels.network_inputs(game, image, image_active, image_values)
            assert m == n and sorted(image_values[:m]) == sorted(values[:n])  # inputs moved
            sign = game_kernels.symmetry_sign(game, symmetry)
            if sizes.network_view == game_kernels.VIEW_SIDE_TO_MOVE and sign < 0:
                # the side to move's view: the image is the same position for the network
                assert evaluation.network_value(
                    game, params, image, scratch, active
                ) == pytest.approx(sign * value, abs=1e-6)


def test_the_action_space_names_every_legal_move_and_maps_under_symmetries(
    rules: GameRules,
) -> None:
    """A game with an action space (``CompiledGame.actions``: Samuel Zero's policy) gives every
    legal move an action in range, and each symmetry maps the actions of a position's moves onto
    those of its image's (as sets: moves may share an action). A game without one is refused in
    a line."""
    from samuel.games import actions as game_actions

    game = rules.number
    sizes = game_kernels.compiled_game(game)
    if not sizes.actions:
        with pytest.raises(ValueError, match="has no action space"):
            game_actions.action_count(game)
        return
    assert game_actions.action_count(game) == sizes.actions
    image = np.zeros(sizes.state_words, dtype=np.int64)
    checked = 0
    for position, move in random_walk(rules, seed=13, games=3, plies=60)[::3]:
        if move is None or not rules.legal_moves(position):
            continue  # finished, or dice to roll
        state = rules.encode(position)
        moves, actions = game_actions.legal_actions(game, state)
        codes = sorted(rules.move_code(m) for m in rules.legal_moves(position))
        assert sorted(moves.tolist()) == codes
        assert ((actions >= 0) & (actions < sizes.actions)).all()
        for symmetry in range(sizes.symmetries):
            game_kernels.transform(game, state, symmetry, image)
            _, image_actions = game_actions.legal_actions(game, image)
            mapped = {game_actions.action_symmetry(game, symmetry, int(a)) for a in actions}
            assert mapped == set(image_actions.tolist()), symmetry
        checked += 1
    assert checked >= 5
