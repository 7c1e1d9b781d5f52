"""The hybrid evaluation is classic + scale x network, in the search as in its spec."""

from __future__ import annotations

import numpy as np
import pytest

from samuel import players
from samuel.games import kernels as games
from samuel.games.game import Game
from samuel.games.tigers import classic
from samuel.games.tigers.hybrid import DEFAULT_SCALE, hybrid_parameters
from samuel.games.tigers.rules import RULES
from samuel.nn import network
from samuel.nn.weights import save_parameters
from samuel.players import PlayerSpecError, SearchPlayer, make_player
from tests.reference.tuning import random_positions


@pytest.fixture(scope="module")
def net_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("net") / "net.bin"
    save_parameters(network.random_parameters(17), path)
    return path


def test_hybrid_is_classic_plus_scale_times_network(net_file, tmp_path):
    weights = classic.load_weights()
    weights[1] = 0.125  # not the file's: the spec's weights must be the ones used
    classic.save_weights(weights, tmp_path / "w.json")
    player = make_player(f"hybrid:net={net_file},scale=1.5,weights={tmp_path / 'w.json'}", RULES)
    assert isinstance(player, SearchPlayer) and player.evaluator == games.EVALUATOR_HYBRID
    net = network.random_parameters(17)
    scratch = np.zeros(games.SCRATCH, dtype=np.float32)
    values = []
    for position in random_positions(40, seed=5):
        state = position.encode()
        hybrid = games.evaluate(
            games.TIGERS_AND_SHEEP, games.EVALUATOR_HYBRID, player.params, state, scratch
        )
        expected = classic.classic_evaluate(
            *map(int, state), weights, scratch
        ) + 1.5 * network.forward(net, *map(int, state), scratch)
        assert hybrid == pytest.approx(expected, abs=1e-5)
        values.append(network.forward(net, *map(int, state), scratch))
    assert np.std(values) > 1e-3  # the network's part really varies


def test_the_hybrid_defaults_and_plays(net_file):
    player = make_player(f"hybrid:net={net_file}:depth=2", RULES)
    assert player.params[0] == DEFAULT_SCALE and player.depth == 2
    assert np.array_equal(
        player.params[1 : 1 + classic.FEATURE_COUNT], classic.load_weights().astype(np.float32)
    )
    move = player.choose_move(Game(RULES))
    assert move in RULES.legal_moves(RULES.initial_position())


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        ("scale=abc", "scale must be a number"),
        ("scale=nan", "scale must be between"),
        ("net=missing.bin", "missing.bin: it does not exist"),
        ("weights=missing.json", "missing.json: it does not exist"),
        ("bogus=1", "unknown option(s) bogus"),
    ],
)
def test_bad_hybrid_options_are_refused(net_file, options, phrase):
    spec = f"hybrid:{options}" if options.startswith("net=") else f"hybrid:net={net_file},{options}"
    with pytest.raises(PlayerSpecError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        make_player(spec, RULES)


def test_without_a_shipped_network_the_hybrid_asks_for_one(monkeypatch, tmp_path):
    monkeypatch.setattr(players, "SHIPPED_NETWORK", tmp_path / "none.bin")
    with pytest.raises(PlayerSpecError, match="hybrid:net=FILE.bin"):
        make_player("hybrid", RULES)


def test_hybrid_parameters_check_their_parts():
    with pytest.raises(ValueError, match="classic weights"):
        hybrid_parameters(1.0, np.zeros(3), network.random_parameters(1))
    with pytest.raises(ValueError, match="network parameters"):
        hybrid_parameters(1.0, classic.load_weights(), np.zeros(3))
