"""The moves-left head in the search (``samuel.evaluation.moves_left``): the compiled evaluator
against the formula in plain float64 algebra on both games' positions; an adjusted value that keeps
the order of values and the search's forced-win distances; with the head off, the search exactly
as the value-only network's; the player spec's options and their errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from samuel.evaluation import kernels as evaluation
from samuel.evaluation.evaluators import scratch_size
from samuel.evaluation.moves_left import (
    DEFAULT_MAX_EFFECT,
    DEFAULT_SLOPE,
    DEFAULT_THRESHOLD,
    NETWORK,
    adjusted_value,
    check_settings,
    moves_left_parameters,
    plies_left_estimate,
)
from samuel.evaluation.networks import (
    SHIPPED_MOVES_LEFT,
    has_moves_left,
    load_network,
    network_shape,
    random_network,
    save_network,
    shipped_moves_left_network,
    shipped_network,
)
from samuel.games import get_game
from samuel.games import kernels as K
from samuel.games.game import Game
from samuel.match.play import play_game
from samuel.nn.shape import PLAN, PLIES, without_head
from samuel.players import SHIPPED_NETWORK, PlayerSpecError, SearchPlayer, make_player
from samuel.search.alphabeta import SCRATCH, WIN, WIN_BOUND, Searcher
from tests import game_numbers
from tests.reference import dense_network as dense
from tests.test_nn import GAMES, plain_inputs, positions

# Settings that adjust most values of a random network (its values rarely pass 0.8).
LOW = (0.2, 0.5, 0.05)
# The head's parameters: its own layer (64 x 32 weights, 32 biases), its output's (32 and 1).
MOVES_LEFT_PARAMS = 64 * 32 + 32 + 32 + 1


def value_only(net: np.ndarray) -> np.ndarray:
    return without_head(net, PLIES)


def head_network(name: str, seed: int) -> np.ndarray:
    """A network with the head whose biases are not zero, so that its values spread towards
    -1..1 and its plies left vary from position to position."""
    rng = np.random.default_rng(seed)
    game = get_game(name).number
    spans = dense.spans(network_shape(game, moves_left=True))
    params = random_network(game, seed, moves_left=True)
    for bias in ("b1", "b2"):
        start, end = spans[bias]
        params[start:end] = rng.normal(0, 0.3, end - start)
    params[slice(*spans["w3"])] *= 2.0  # steeper: more values beyond the threshold
    params[spans["b5"][0]] = 1.0
    return params


def evaluate(
    name: str, evaluator: int, params: np.ndarray, position, reference: float = 0.0
) -> float:
    """The evaluator's score of ``position``; ``reference`` is the moves-left evaluator's root
    plies, which a search would have written into the scratch space."""
    rules = get_game(name)
    scratch = np.zeros(scratch_size(rules.number, evaluator, params), dtype=np.float32)
    scratch[-1] = reference  # the moves-left evaluator's reference: the scratch's last entry
    active = np.zeros(K.MAX_SET_INPUTS, dtype=np.int64)
    return evaluation.evaluate(
        rules.number, evaluator, params, rules.encode(position), scratch, active
    )


def first_player_value(name: str, params: np.ndarray, position) -> float:
    """The plain network's value in the first player's view (draughts' is the side to move's)."""
    value = dense.value(params, plain_inputs(name, position))
    rules = get_game(name)
    if name == "draughts" and rules.side_to_move(position) != 0:
        return -value
    return value


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("settings", [LOW, (DEFAULT_THRESHOLD, DEFAULT_MAX_EFFECT, 0.02)])
def test_the_evaluator_equals_the_plain_formula(name, settings):
    game = get_game(name).number
    net = head_network(name, 11)
    params = moves_left_parameters(game, net, *settings)
    threshold = float(np.float32(settings[0]))
    raised = lowered = 0
    for position in positions(name, 120, seed=5):
        x = plain_inputs(name, position)
        value, plies = first_player_value(name, net, position), dense.plies(net, x)
        plain = evaluate(name, K.EVALUATOR_NETWORK, value_only(net), position)
        # the plain network's value is the same as before, whatever the head
        assert evaluate(name, K.EVALUATOR_NETWORK, net, position) == plain
        for reference in (0.0, float(np.float32(plies)), 25.0, 300.0):
            expected = adjusted_value(
                value, plies, reference, *(float(np.float32(s)) for s in settings)
            )
            got = evaluate(name, K.EVALUATOR_MOVES_LEFT, params, position, reference)
            assert got == pytest.approx(expected, abs=5e-6), str(position)  # float32 sums
            if abs(plain) <= threshold:
                assert got == plain  # inside the threshold: the network's own value
                continue
            assert np.sign(got) == np.sign(plain) and abs(got) > threshold
            assert abs(got - plain) <= settings[1] + 1e-6
            if reference == float(np.float32(plies)):
                assert got == pytest.approx(plain, abs=2e-6)  # as far from the end as the root
            raised += abs(got) > abs(plain) + 1e-4  # nearer the end than the root
            lowered += abs(got) < abs(plain) - 1e-4
        assert plies_left_estimate(game, net, get_game(name).encode(position)) == pytest.approx(
            plies, rel=1e-5
        )
    assert raised >= 10 and lowered >= 10  # the test saw the adjustment at work both ways


@pytest.mark.parametrize("settings", [LOW, (DEFAULT_THRESHOLD, DEFAULT_MAX_EFFECT, DEFAULT_SLOPE)])
def test_the_adjusted_value_keeps_the_order_of_values(settings):
    threshold, max_effect, slope = settings
    values = np.linspace(-1.0, 1.0, 801)
    for reference in (0.0, 20.0, 150.0):
        for plies in (0.0, 1.0, 5.0, 20.0, 60.0, 200.0, 1000.0):
            compiled = [
                evaluation.moves_left_adjusted(v, plies, reference, *settings) for v in values
            ]
            plain = [adjusted_value(v, plies, reference, *settings) for v in values]
            assert compiled == pytest.approx(plain, abs=1e-12)
            assert all(b > a for a, b in zip(compiled, compiled[1:], strict=False))  # increasing
            for v, w in zip(values, compiled, strict=True):
                assert abs(w - v) <= max_effect + 1e-12
                if abs(v) > threshold:
                    assert abs(w) > threshold and np.sign(w) == np.sign(v)  # still decided
                else:
                    assert w == v
    # winning, fewer plies left than the root score higher; losing, more
    step = 0.3 * max_effect / slope  # inside the clip on either side of the reference
    for v in (threshold + 0.01, 0.99, -0.99, -threshold - 0.01):
        plies = [20.0 + k * step for k in (-2, -1, 0, 1, 2)]
        scores = [evaluation.moves_left_adjusted(v, m, 20.0 + 2 * step, *settings) for m in plies]
        pairs = list(zip(scores, scores[1:], strict=False))
        assert all((a > b) if v > 0 else (a < b) for a, b in pairs)
    # as many plies as the root: no change
    assert evaluation.moves_left_adjusted(0.95, 20.0, 20.0, *settings) == 0.95


def test_values_clearly_apart_keep_their_order_whatever_the_plies():
    t, e, s = DEFAULT_THRESHOLD, DEFAULT_MAX_EFFECT, DEFAULT_SLOPE
    rng = np.random.default_rng(3)
    for _ in range(2000):
        low = rng.uniform(-1.0, 1.0 - 2 * e)
        high = rng.uniform(low + 2 * e, 1.0)
        m_low, m_high, reference = rng.uniform(0.0, 500.0, 3)
        assert evaluation.moves_left_adjusted(
            high, m_high, reference, t, e, s
        ) > evaluation.moves_left_adjusted(low, m_low, reference, t, e, s)


def save(tmp_path, name: str, params: np.ndarray, file: str) -> str:
    path = tmp_path / file
    save_network(params, path, get_game(name).number)
    return f'"{path}"'


def search_positions(name: str, count: int, seed: int) -> list:
    rules = get_game(name)
    return [p for p in positions(name, 3 * count, seed) if rules.decided_outcome(p) is None][:count]


@pytest.mark.parametrize("name", GAMES)
def test_with_the_head_off_the_search_is_exactly_the_value_networks(tmp_path, name):
    rules = get_game(name)
    net = head_network(name, 21)
    with_head = save(tmp_path, name, net, "head.bin")
    without = save(tmp_path, name, value_only(net), "value.bin")
    assert has_moves_left(load_network(with_head.strip('"'), rules.number), rules.number)
    for depth in (1, 2, 3):
        for specs in ((with_head, without), (f"{with_head}:moves_left=off", without)):
            head_player, value_player = (
                make_player(f"{spec}:depth={depth}", rules, seed=7) for spec in specs
            )
            assert head_player.evaluator == value_player.evaluator == K.EVALUATOR_NETWORK
            for position in search_positions(name, 12, seed=depth):
                game = Game(rules, start=position)
                a, b = head_player.search(game), value_player.search(game)
                assert (a.best_move, a.score, a.depth, a.nodes, a.principal_variation) == (
                    b.best_move,
                    b.score,
                    b.depth,
                    b.nodes,
                    b.principal_variation,
                ), (str(position), depth)


@pytest.mark.parametrize(
    ("name", "position", "winning_move", "plies"),
    [
        ("tigers", "S1SSS/SSST1/SSTSS/2SSS/S1TTS T 0", "c1-b2", 3),  # the faster of two wins
        ("tigers", "SSSSS/STTSS/SSSST/S1TSS/1SS1S S 0", "b1-b2", 1),
        ("draughts", "B:W7,22:BK4,11,14,K30", "14-18", 3),  # Black, the first player, wins
        ("draughts", "W:WK9,K11,K18,K31:BK2,5", "18-14", 5),  # White, the second player, wins
    ],
)
def test_forced_wins_keep_their_exact_distance(name, position, winning_move, plies):
    rules = get_game(name)
    start = rules.parse_position(position)
    params = moves_left_parameters(rules.number, head_network(name, 4), *LOW)
    keys = np.array([rules.key(start)], dtype=np.int64)
    for seed in range(4):
        result = Searcher(rules.number).search(
            rules.encode(start), keys, 0, K.EVALUATOR_MOVES_LEFT, params, plies + 3, seed=seed
        )
        assert rules.format_move(rules.move_from_code(result.best_move)) == winning_move
        assert result.score == WIN - plies and result.forced_plies == plies
    # and an evaluation never looks like a forced result
    for p in search_positions(name, 40, seed=9):
        for reference in (0.0, 1000.0):
            value = evaluate(name, K.EVALUATOR_MOVES_LEFT, params, p, reference)
            assert abs(value) < 1.0 + LOW[1] < WIN_BOUND


@pytest.mark.parametrize("name", GAMES)
def test_the_search_compares_its_leaves_with_its_root(name):
    """The search writes the head's plies left at its root where the evaluator reads its
    reference; searching another root replaces it."""
    rules = get_game(name)
    net = head_network(name, 6)
    params = moves_left_parameters(rules.number, net, *LOW)
    searcher = Searcher(rules.number)
    roots = search_positions(name, 8, seed=4)
    for position in roots:
        keys = np.array([rules.key(position)], dtype=np.int64)
        searcher.search(rules.encode(position), keys, 0, K.EVALUATOR_MOVES_LEFT, params, 2)
        written = searcher.tables[SCRATCH][-1]  # the scratch's last entry
        expected = plies_left_estimate(rules.number, net, rules.encode(position))
        assert written == pytest.approx(expected, rel=1e-5)
    assert (
        len({round(plies_left_estimate(rules.number, net, rules.encode(p)), 3) for p in roots}) > 1
    )  # the roots differ, so each search wrote its own


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_plays_the_same_game(tmp_path, name):
    rules = get_game(name)
    path = save(tmp_path, name, head_network(name, 8), "head.bin")
    spec = f"{path}:depth=2,moves_left=on,ml_threshold=0.3,ml_max=0.4,ml_slope=0.05"

    def play(seed: int) -> tuple:
        players = {
            side: make_player(spec if n == 0 else f"{path}:depth=2", rules, seed=seed + n)
            for n, side in enumerate(rules.sides)
        }
        return tuple(play_game(rules, players, ply_cap=60).moves)

    assert play(3) == play(3)
    player = make_player(spec, rules)
    game = Game(rules)
    first = player.search(game)
    again = make_player(spec, rules).search(game)
    assert (first.best_move, first.score, first.nodes) == (
        again.best_move,
        again.score,
        again.nodes,
    )


def test_the_spec_options_build_the_evaluator(tmp_path):
    rules = get_game("tigers")
    net = head_network("tigers", 2)
    path = save(tmp_path, "tigers", net, "head.bin")
    player = make_player(f"{path}:moves_left=on,ml_threshold=0.7,ml_max=0.2,ml_slope=0.01", rules)
    assert isinstance(player, SearchPlayer) and player.evaluator == K.EVALUATOR_MOVES_LEFT
    assert player.params.dtype == np.float32
    np.testing.assert_array_equal(player.params[:NETWORK], np.float32([0.7, 0.2, 0.01]))
    np.testing.assert_array_equal(player.params[NETWORK:], net)
    defaults = make_player(f"{path}:moves_left=on", rules).params[:NETWORK]
    np.testing.assert_array_equal(
        defaults, np.float32([DEFAULT_THRESHOLD, DEFAULT_MAX_EFFECT, DEFAULT_SLOPE])
    )
    plain = make_player(f"{path}:moves_left=off", rules)
    assert plain.evaluator == K.EVALUATOR_NETWORK
    draughts = get_game("draughts")
    draughts_path = save(tmp_path, "draughts", head_network("draughts", 2), "d.bin")
    draughts_player = make_player(f"{draughts_path}:moves_left=on,depth=2", draughts)
    assert draughts_player.evaluator == K.EVALUATOR_MOVES_LEFT
    assert draughts_player.choose_move(Game(draughts)) in Game(draughts).legal_moves()


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        ("moves_left=on", "has no moves-left head"),  # the value-only file
        ("moves_left=yes", "moves_left must be on or off"),
        ("ml_threshold=0.5", "ml_threshold only apply with moves_left=on"),
        ("moves_left=off,ml_slope=0.1", "ml_slope only apply with moves_left=on"),
    ],
)
def test_spec_errors_about_the_head_say_what_is_wrong(tmp_path, options, phrase):
    rules = get_game("tigers")
    path = save(tmp_path, "tigers", random_network(rules.number, 1), "value.bin")
    with pytest.raises(PlayerSpecError, match=phrase):
        make_player(f"{path}:{options}", rules)


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        ("ml_threshold=1.5", "ml_threshold must be between 0.0 and 1.0, not 1.5"),
        ("ml_threshold=1", "ml_threshold must be above 0 and below 1, not 1.0"),
        ("ml_threshold=0", "ml_threshold must be above 0 and below 1"),
        ("ml_max=0.6", r"ml_max must be above 0 and below 1 - threshold \(0.5\)"),
        ("ml_threshold=0.5,ml_max=0", "ml_max must be above 0"),
        ("ml_slope=0", "ml_slope must be positive"),
        ("ml_slope=fast", "ml_slope must be a number"),
        ("ml_max=nan", "ml_max must be between 0.0 and 1.0, not nan"),
        ("ml_slope=-1", "ml_slope must be between 0.0 and"),
    ],
)
def test_bad_moves_left_settings_are_refused(tmp_path, options, phrase):
    rules = get_game("tigers")
    path = save(tmp_path, "tigers", head_network("tigers", 1), "head.bin")
    with pytest.raises(PlayerSpecError, match=phrase):
        make_player(f"{path}:moves_left=on,{options}", rules)


@pytest.mark.parametrize("spec", ["classic:moves_left=on", "random:ml_slope=0.1"])
def test_only_network_players_take_the_head_options(spec):
    with pytest.raises(PlayerSpecError, match="unknown option"):
        make_player(spec, get_game("tigers"))


def test_net_with_moves_left_plays_the_shipped_head_on_the_shipped_value():
    rules = get_game("tigers")
    shipped = load_network(SHIPPED_NETWORK, rules.number)
    with_head = load_network(SHIPPED_MOVES_LEFT[rules.number], rules.number)
    assert has_moves_left(with_head, rules.number)
    assert np.array_equal(value_only(with_head), shipped)  # bit-for-bit the shipped value
    plain = make_player("net", rules)
    assert plain.evaluator == K.EVALUATOR_NETWORK and np.array_equal(plain.params, shipped)
    nudged = make_player("net:moves_left=on,ml_slope=0.03", rules)
    assert nudged.evaluator == K.EVALUATOR_MOVES_LEFT
    assert np.array_equal(nudged.params[NETWORK:], with_head)
    assert nudged.params[2] == np.float32(0.03)


def test_a_shipped_network_without_a_head_refuses_moves_left():
    rules = get_game("draughts")
    shipped = shipped_network(rules.number)
    if shipped is None or has_moves_left(load_network(shipped, rules.number), rules.number):
        pytest.skip("no draughts network without a head is shipped")
    assert shipped_moves_left_network(rules.number) is None
    with pytest.raises(PlayerSpecError, match="has no moves-left head"):
        make_player("net:moves_left=on", rules)


def test_the_parameters_are_checked():
    game = game_numbers.TIGERS
    net = random_network(game, 1, moves_left=True)
    with pytest.raises(ValueError, match="no moves-left head"):
        moves_left_parameters(game, random_network(game, 1))
    with pytest.raises(ValueError, match="plan or length is not its shape's"):
        moves_left_parameters(game, net[:-1])
    with pytest.raises(ValueError, match="network has"):
        moves_left_parameters(game_numbers.DRAUGHTS, net)  # the other game's network
    broken = net.copy()
    broken[PLAN + 5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        moves_left_parameters(game, broken)
    broken = net.copy()
    broken[5] = np.nan  # in the plan
    with pytest.raises(ValueError, match="not a network for Tigers & Sheep"):
        moves_left_parameters(game, broken)
    for settings, phrase in [
        ((1.0, 0.1, 0.01), "threshold must be above 0 and below 1"),
        ((0.8, 0.2, 0.01), "max effect must be above 0 and below 1 - threshold"),
        ((0.8, 0.1, -1.0), "slope must be positive"),
        ((math.inf, 0.1, 0.01), "threshold must be a finite number"),
        (("0.8", 0.1, 0.01), "threshold must be a number"),
    ]:
        with pytest.raises(ValueError, match=phrase):
            moves_left_parameters(game, net, *settings)
        with pytest.raises(ValueError, match=phrase):
            check_settings(*settings)
    params = moves_left_parameters(game, net)
    assert len(params) == NETWORK + len(net) and params.dtype == np.float32


def test_analyse_prints_the_networks_plies_left_estimate(tmp_path, capsys):
    from samuel import cli

    rules = get_game("tigers")
    net = head_network("tigers", 6)
    path = tmp_path / "head.bin"
    save_network(net, path, rules.number)
    expected = plies_left_estimate(rules.number, net, rules.encode(rules.initial_position()))
    for spec in (str(path), f"{path}:moves_left=on"):
        cli.main(["analyse", "start", "--depth", "2", "--player", spec])
        assert f"plies left {expected:.1f} (the network's estimate)" in capsys.readouterr().out
    save_network(value_only(net), path, rules.number)
    cli.main(["analyse", "start", "--depth", "2", "--player", str(path)])
    assert "plies left" not in capsys.readouterr().out


def test_every_evaluators_parameters_are_checked_in_one_place():
    from samuel.evaluation.evaluators import check_params

    game = game_numbers.TIGERS
    headed = random_network(game, 3, moves_left=True)
    packed = moves_left_parameters(game, headed, 0.8, 0.1, 0.005)
    assert np.array_equal(check_params(game, K.EVALUATOR_MOVES_LEFT, packed), packed)
    assert check_params(game, K.EVALUATOR_NETWORK, headed).dtype == np.float32
    assert (
        len(check_params(game, K.EVALUATOR_NETWORK, value_only(headed)))
        == len(headed) - MOVES_LEFT_PARAMS
    )
    for evaluator, params, phrase in (
        (K.EVALUATOR_MOVES_LEFT, packed[:-1], "moves-left parameters: .*plan or length"),
        (K.EVALUATOR_MOVES_LEFT, value_only(headed), "moves-left parameters: not a network"),
        (
            K.EVALUATOR_MOVES_LEFT,
            np.concatenate([packed[:NETWORK], value_only(headed)]),
            "moves-left parameters hold a network without the moves-left head",
        ),
        (K.EVALUATOR_NETWORK, headed[:-1], "network parameters: .*plan or length"),
        (K.EVALUATOR_NETWORK, np.full(len(headed), np.inf), "NaN or an infinity"),
        (K.EVALUATOR_NETWORK, ["a"] * len(headed), "array of numbers"),
        (9, headed, "has no number 9 evaluator"),
    ):
        with pytest.raises(ValueError, match=phrase):
            check_params(game, evaluator, params)
