"""The hybrid evaluation is classic + scale x network, in the search as in its spec, for both
games: for draughts the network's value (the side to move's) is turned into Black's first."""

from __future__ import annotations

import random

import numpy as np
import pytest

from samuel.evaluation import evaluators, networks
from samuel.evaluation import kernels as evaluation
from samuel.evaluation.hybrid import default_scale, hybrid_parameters
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.game import Game
from samuel.games.tigers import classic
from samuel.games.tigers.hybrid import DEFAULT_SCALE
from samuel.games.tigers.rules import RULES
from samuel.players import PlayerSpecError, SearchPlayer, make_player
from tests import game_numbers
from tests.reference import dense_network as dense
from tests.reference import network_inputs as plain


@pytest.fixture(scope="module", params=["tigers", "draughts"])
def game(request):
    return get_game(request.param)


@pytest.fixture(scope="module")
def net_file(tmp_path_factory, game):
    path = tmp_path_factory.mktemp("net") / "net.bin"
    networks.save_network(networks.random_network(game.number, 17), path, game.number)
    return path


def positions(rules, count: int, seed: int) -> list:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = rules.initial_position()
        for _ in range(rng.randrange(1, 60)):
            position = rules.play(position, rng.choice(rules.legal_moves(position)))
            if rules.decided_outcome(position) is not None:
                break
        if rules.decided_outcome(position) is None:
            found.append(position)
    return found


def plain_value(rules, net: np.ndarray, position) -> float:
    """The network's value, first player's view, by the plain references."""
    if rules.name == "tigers":
        p = position
        x = plain.tigers_inputs(p.tigers, p.sheep, p.sheep_in_hand, p.tiger_to_move)
        return dense.value(net, x)
    p = position
    x = plain.draughts_inputs(p.black, p.white, p.kings, p.black_to_move)
    return dense.value(net, x) * (1 if p.black_to_move else -1)  # the side to move's, turned


def test_hybrid_is_classic_plus_scale_times_network(game, net_file, tmp_path):
    weights = game.classic_weights() * 1.0
    weights[1] = 0.125  # not the file's: the spec's weights must be the ones used
    path = tmp_path / "w.json"
    (classic if game.name == "tigers" else _draughts_classic()).save_weights(weights, path)
    player = make_player(f"hybrid:net={net_file},scale=1.5,weights={path}", game)
    assert isinstance(player, SearchPlayer) and player.evaluator == games.EVALUATOR_HYBRID
    net = networks.random_network(game.number, 17)
    # the hybrid's room holds the classic evaluator's too
    size = evaluators.scratch_size(game.number, games.EVALUATOR_HYBRID, player.params)
    scratch = np.zeros(size, dtype=np.float32)
    active = np.zeros(games.MAX_SET_INPUTS, dtype=np.int64)
    values = []
    for position in positions(game, 40, seed=5):
        state = game.encode(position)
        hybrid = evaluation.evaluate(
            game.number, games.EVALUATOR_HYBRID, player.params, state, scratch, active
        )
        rule = evaluation.evaluate(
            game.number, games.EVALUATOR_CLASSIC, weights, state, scratch, active
        )
        value = plain_value(game, net, position)
        assert hybrid == pytest.approx(rule + 1.5 * value, abs=1e-5)
        values.append(value)
    assert np.std(values) > 1e-3  # the network's part really varies


def _draughts_classic():
    from samuel.games.draughts import classic as draughts_classic

    return draughts_classic


def test_the_hybrid_defaults_and_plays(game, net_file):
    player = make_player(f"hybrid:net={net_file}:depth=2", game)
    assert player.params[0] == default_scale(game.number) and player.depth == 2
    features = games.compiled_game(game.number).classic_features
    assert np.array_equal(
        player.params[1 : 1 + features], game.classic_weights().astype(np.float32)
    )
    move = player.choose_move(Game(game))
    assert move in game.legal_moves(game.initial_position())
    assert default_scale(game_numbers.TIGERS) == DEFAULT_SCALE == 2.0
    assert default_scale(game_numbers.DRAUGHTS) == 12.0  # tuned; the course's 300 (a man 100) is 3


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        ("scale=abc", "scale must be a number"),
        ("scale=nan", "scale must be between"),
        ("net=missing.bin", "missing.bin.*does not exist"),
        ("weights=missing.json", "missing.json.*does not exist"),
        ("bogus=1", "unknown option(s) bogus"),
    ],
)
def test_bad_hybrid_options_are_refused(game, net_file, options, phrase):
    spec = f"hybrid:{options}" if options.startswith("net=") else f"hybrid:net={net_file},{options}"
    with pytest.raises(PlayerSpecError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        make_player(spec, game)


def test_a_hybrid_of_another_games_network_is_refused(tmp_path):
    path = tmp_path / "draughts.bin"
    networks.save_network(
        networks.random_network(game_numbers.DRAUGHTS, 1), path, game_numbers.DRAUGHTS
    )
    with pytest.raises(PlayerSpecError, match="a network for English draughts, not Tigers"):
        make_player(f"hybrid:net={path}", RULES)


def test_without_a_shipped_network_the_hybrid_asks_for_one(monkeypatch, tmp_path):
    monkeypatch.setitem(networks.SHIPPED, game_numbers.TIGERS, tmp_path / "none.bin")
    monkeypatch.setitem(networks.SHIPPED, game_numbers.DRAUGHTS, tmp_path / "none.bin")
    with pytest.raises(PlayerSpecError, match="hybrid:net=FILE.bin"):
        make_player("hybrid", RULES)
    with pytest.raises(PlayerSpecError, match="no English draughts network is shipped"):
        make_player("hybrid", get_game("draughts"))


def test_hybrid_parameters_check_their_parts():
    net = networks.random_network(game_numbers.TIGERS, 1)
    with pytest.raises(ValueError, match="classic weights"):
        hybrid_parameters(game_numbers.TIGERS, 1.0, np.zeros(3), net)
    with pytest.raises(ValueError, match="not a network for Tigers"):
        hybrid_parameters(game_numbers.TIGERS, 1.0, classic.load_weights(), np.zeros(3))
    with pytest.raises(ValueError, match="has 128 inputs.*not 58-64-32"):  # Tigers' for draughts
        hybrid_parameters(game_numbers.DRAUGHTS, 1.0, get_game("draughts").classic_weights(), net)
