"""Player specs, their errors, reproducible players and the classic weights file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from samuel.evaluation.networks import load_network, random_network, save_network
from samuel.games import get_game
from samuel.games import kernels as game_kernels
from samuel.games.game import Game
from samuel.games.tigers import classic
from samuel.games.tigers.rules import RULES
from samuel.match.play import play_game
from samuel.players import (
    HumanPlayer,
    PlayerSpec,
    PlayerSpecError,
    RandomPlayer,
    SearchPlayer,
    SpecFile,
    make_player,
)
from tests import game_numbers


def test_specs_name_players_with_options():
    player = make_player("classic:depth=5,time=0.5,epsilon=0.1,seed=9", RULES)
    assert isinstance(player, SearchPlayer)
    assert (player.depth, player.seconds, player.epsilon, player.seed) == (5, 0.5, 0.1, 9)
    assert make_player("classic:depth=2:seed=3", RULES).depth == 2
    assert isinstance(make_player("random", RULES), RandomPlayer)
    assert isinstance(make_player("human", RULES), HumanPlayer)


def test_defaults_apply_unless_the_spec_overrides_them():
    assert make_player("classic", RULES, depth=6).depth == 6
    assert make_player("classic:depth=2", RULES, depth=6).depth == 2
    timed = make_player("classic", RULES, seconds=1.0)
    assert timed.seconds == 1.0 and timed.depth > 50  # time decides, the depth only caps


@pytest.mark.parametrize(
    ("spec", "phrase"),
    [
        ("wizard", "unknown player 'wizard'; players are: human | random | classic"),
        ("classic:depth", "is not KEY=VALUE"),
        ("classic:depth=0", "depth must be between 1"),
        ("classic:depth=four", "depth must be a whole number"),
        ("classic:depth=٣", "depth must be a whole number"),
        ("classic:time=soon", "time must be a number"),
        ("classic:depth=1,depth=2", "the option depth is given twice"),
        ("classic:depth=1:depth=2", "the option depth is given twice"),
        ('classic:weights="a.json', "a double quote is not closed"),
        (":depth=2", "names no player"),
        ("classic:time=-1", "time must be between"),
        ("classic:epsilon=2", "epsilon must be between 0.0 and 1.0"),
        ("classic:colour=red", "unknown option(s) colour"),
        ("random:depth=3", "unknown option(s) depth"),
    ],
)
def test_bad_specs_say_what_is_valid(spec, phrase):
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, RULES)
    assert phrase in str(error.value)


def test_a_huge_bad_spec_is_not_repeated_whole():
    spec = "classic:depth=" + "9" * 100_000
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, RULES)
    assert len(str(error.value)) < 300 and "100014 characters" in str(error.value)


@pytest.mark.parametrize(
    ("text", "name", "options"),
    [
        ("classic", "classic", ()),
        ("classic:depth=2:seed=3", "classic", (("depth", "2"), ("seed", "3"))),
        (" classic : depth = 2 , ", "classic", (("depth", "2"),)),
        ('classic:weights="my:file,1.json"', "classic", (("weights", "my:file,1.json"),)),
        ('classic:weights="say ""hi"".json"', "classic", (("weights", 'say "hi".json'),)),
        ('"runs/a:b/gen-1.bin":depth=2', "runs/a:b/gen-1.bin", (("depth", "2"),)),
        ('hybrid:net=a" b".bin', "hybrid", (("net", "a b.bin"),)),
    ],
)
def test_a_spec_is_parsed_once_into_its_name_and_options(text, name, options):
    spec = PlayerSpec.parse(text)
    assert (spec.name, spec.options) == (name, options)
    assert PlayerSpec.parse(str(spec)) == spec  # it writes itself back in the same words


def test_a_spec_says_which_files_it_names():
    spec = PlayerSpec.parse("runs/gen-2.bin:depth=2")
    assert spec.files() == (SpecFile(None, "runs/gen-2.bin", "network file"),)
    hybrid = PlayerSpec.parse("hybrid:net=n.bin,weights=w.json,tablebase=tb,scale=2")
    assert [(f.option, f.path, f.kind) for f in hybrid.files()] == [
        ("net", "n.bin", "network file"),
        ("weights", "w.json", "classic weights file"),
        ("tablebase", "tb", "tablebase"),
    ]
    assert PlayerSpec.parse("classic:depth=3").files() == ()
    assert PlayerSpec.parse("net").files() == ()  # the shipped network comes with the program


def test_a_path_with_separators_is_named_in_quotes(tmp_path):
    folder = tmp_path / "odd:name,here"
    folder.mkdir()
    path = folder / "tuned.json"
    classic.save_weights(classic.load_weights(), path, note="test")
    player = make_player(f'classic:weights="{path}",depth=2', RULES)
    assert player.depth == 2 and np.array_equal(player.params, classic.load_weights())
    assert make_player(PlayerSpec.parse(f'classic:weights="{path}"'), RULES).depth == 4


def play(sheep: str, tigers: str, seed: int) -> list[str]:
    players = {
        "sheep": make_player(sheep, RULES, seed=seed),
        "tigers": make_player(tigers, RULES, seed=seed + 1),
    }
    return [str(m) for m in play_game(RULES, players, ply_cap=120).moves]


def test_the_same_seeds_give_the_same_game_and_other_seeds_another():
    first = play("classic:depth=2,epsilon=0.2", "classic:depth=2", seed=5)
    assert play("classic:depth=2,epsilon=0.2", "classic:depth=2", seed=5) == first
    others = [play("classic:depth=2,epsilon=0.2", "classic:depth=2", seed=s) for s in (6, 7)]
    assert all(other != first for other in others)


def test_the_random_player_plays_legal_moves_reproducibly():
    game = Game(RULES)
    player = RandomPlayer(seed=4)
    move = player.choose_move(game)
    assert move in game.legal_moves()
    assert RandomPlayer(seed=4).choose_move(game) == move


def test_weights_round_trip_and_load_into_a_player(tmp_path):
    weights = classic.load_weights()
    changed = weights.copy()
    changed[1] = 0.123
    path = tmp_path / "tuned.json"
    classic.save_weights(changed, path, note="test")
    assert np.array_equal(classic.load_weights(path), changed)
    assert [p.name for p in tmp_path.iterdir()] == ["tuned.json"]  # no temporary file left
    player = make_player(f"classic:weights={path}", RULES)
    assert np.array_equal(player.params, changed)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        ("not json", "is not valid JSON"),
        ("[1, 2]", 'has no "weights" object'),
        (json.dumps({"weights": {"captured": 1.0}}), "missing ['tiger_mobility'"),
        (
            json.dumps({"weights": {**dict.fromkeys(classic.FEATURES, 1.0), "magic": 2}}),
            "unknown ['magic']",
        ),
        (
            json.dumps({"weights": {**dict.fromkeys(classic.FEATURES, 1.0), "captured": "one"}}),
            "captured is not a finite number",
        ),
    ],
)
def test_bad_weights_files_are_rejected_with_the_reason(tmp_path, content, phrase):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(classic.WeightsError) as error:
        classic.load_weights(path)
    assert phrase in str(error.value)
    with pytest.raises(PlayerSpecError):
        make_player(f"classic:weights={path}", RULES)


def test_net_is_the_shipped_network():
    from samuel.players import SHIPPED_NETWORK

    player = make_player("net:depth=2", RULES)
    assert isinstance(player, SearchPlayer) and player.depth == 2
    assert np.array_equal(player.params, load_network(SHIPPED_NETWORK, RULES.number))
    assert player.choose_move(Game(RULES)) in Game(RULES).legal_moves()


def test_players_play_draughts_and_refuse_evaluators_it_lacks(tmp_path):
    draughts = get_game("draughts")
    classic_player = make_player("classic:depth=4", draughts, seed=1)
    assert isinstance(classic_player, SearchPlayer)
    assert classic_player.evaluator == game_kernels.EVALUATOR_CLASSIC
    players = {"black": classic_player, "white": make_player("random", draughts, seed=2)}
    game = play_game(draughts, players, ply_cap=200)
    assert game.outcome is not None and game.ply > 0
    again = play_game(
        draughts,
        {"black": make_player("classic:depth=4", draughts, seed=1), "white": players["white"]},
        ply_cap=200,
    )
    assert again.moves == game.moves  # the same seeds, the same game
    # Draughts' shipped network plays as 'net' and in the hybrid, and is a draughts network.
    from samuel.evaluation.networks import shipped_network

    shipped = load_network(shipped_network(game_numbers.DRAUGHTS), game_numbers.DRAUGHTS)
    net_player = make_player("net:depth=2", draughts)
    assert np.array_equal(net_player.params, shipped)
    assert net_player.evaluator == game_kernels.EVALUATOR_NETWORK
    assert make_player("hybrid:depth=2", draughts).evaluator == game_kernels.EVALUATOR_HYBRID
    assert net_player.choose_move(Game(draughts)) in Game(draughts).legal_moves()
    with pytest.raises(PlayerSpecError, match="some.bin: it does not exist"):
        make_player(f"{tmp_path / 'some.bin'}:depth=2", draughts)
    # A draughts network file plays draughts, alone or in the hybrid; Tigers & Sheep refuses it.
    net = tmp_path / "draughts.bin"
    save_network(random_network(game_numbers.DRAUGHTS, 4), net, game_numbers.DRAUGHTS)
    for spec in (f"{net}:depth=2", f"hybrid:net={net},depth=2"):
        player = make_player(spec, draughts, seed=3)
        assert isinstance(player, SearchPlayer)
        players = {"black": player, "white": make_player("random", draughts, seed=2)}
        assert play_game(draughts, players, ply_cap=40).ply > 0
    with pytest.raises(PlayerSpecError, match="draughts.bin is a network for English draughts"):
        make_player(str(net), RULES)
    # A bad draughts weights file is a spec error too (its own WeightsError).
    bad = tmp_path / "bad.json"
    bad.write_text('{"weights": {"men": 1}}')
    with pytest.raises(PlayerSpecError, match="missing"):
        make_player(f"classic:weights={bad}", draughts)
