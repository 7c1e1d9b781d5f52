"""OpenSpiel's bots as Samuel players (samuel.spiel.bots): specs and their errors, determinism
from seeds, matches through the API and the command line, spiel-ab against Samuel's own search,
draughts captures of several jumps, and the server's limits."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

if os.environ.get("CI"):  # CI installs the test extra: a missing OpenSpiel is a failure there
    import pyspiel  # noqa: F401
else:
    pyspiel = pytest.importorskip("pyspiel")

from samuel.games import get_game  # noqa: E402
from samuel.games.game import Game  # noqa: E402
from samuel.match.head_to_head import play_match  # noqa: E402
from samuel.match.play import play_game  # noqa: E402
from samuel.players import PlayerSpecError, make_player  # noqa: E402
from samuel.search.alphabeta import WIN, WIN_BOUND  # noqa: E402
from samuel.spiel import bots  # noqa: E402
from samuel.spiel.bots import AlphaBetaPlayer, MCTSPlayer  # noqa: E402

TIGERS = get_game("tigers")
DRAUGHTS = get_game("draughts")
GAMES = (TIGERS, DRAUGHTS)


# ---------------------------------------------------------------- specs


def test_specs_name_the_bots_with_their_options_and_defaults():
    player = make_player("spiel-mcts:sims=50,uct_c=1.5,rollouts=3,seed=7", TIGERS)
    assert isinstance(player, MCTSPlayer)
    assert (player.simulations, player.uct_c, player.rollouts, player.seed) == (50, 1.5, 3, 7)
    default = make_player("spiel-mcts", TIGERS, seed=11)
    assert (default.simulations, default.uct_c, default.rollouts, default.seed) == (
        1000,
        2.0,
        1,
        11,
    )
    assert default.spec == "spiel-mcts"
    ab = make_player("spiel-ab:depth=3", DRAUGHTS)
    assert isinstance(ab, AlphaBetaPlayer) and ab.depth == 3
    assert make_player("spiel-ab", TIGERS, depth=2).depth == 2  # make_player's default depth
    assert make_player("spiel-ab", TIGERS).depth == 4


@pytest.mark.parametrize(
    ("spec", "phrase"),
    [
        ("spiel-mcts:sims=0", "sims must be between 1 and 100000"),
        ("spiel-mcts:sims=100001", "sims must be between 1 and 100000"),
        ("spiel-mcts:sims=many", "sims must be a whole number"),
        ("spiel-mcts:rollouts=0", "rollouts must be between 1 and 100"),
        ("spiel-mcts:rollouts=101", "rollouts must be between 1 and 100"),
        ("spiel-mcts:uct_c=-1", "uct_c must be between 0.0 and 1000.0"),
        ("spiel-mcts:uct_c=nan", "uct_c must be between"),
        ("spiel-mcts:uct_c=inf", "uct_c must be between"),
        ("spiel-mcts:depth=3", "unknown option(s) depth"),
        ("spiel-mcts:time=1", "unknown option(s) time"),
        ("spiel-mcts:seed=-1", "seed must be between"),
        ("spiel-ab:depth=0", "depth must be between 1 and 6"),
        ("spiel-ab:depth=7", "depth must be between 1 and 6"),
        ("spiel-ab:sims=10", "unknown option(s) sims"),
        ("spiel-ab:weights=missing.json", "missing.json"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, phrase):
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, TIGERS)
    assert phrase in str(error.value)


def test_a_default_depth_beyond_the_bound_is_refused():
    with pytest.raises(PlayerSpecError, match="depth 6 at most, not 9"):
        make_player("spiel-ab", TIGERS, depth=9)
    assert make_player("spiel-ab:depth=2", TIGERS, depth=9).depth == 2  # the spec's own wins


@pytest.mark.parametrize("missing", ["samuel.spiel.game", "samuel.spiel.bots"])
def test_a_missing_open_spiel_is_a_spec_error(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # its import fails, as without OpenSpiel
    with pytest.raises(PlayerSpecError, match="needs OpenSpiel.*samuel\\[openspiel\\]"):
        make_player("spiel-mcts", TIGERS)


def test_the_bots_play_only_the_registered_games():
    from samuel.games.tigers.rules import TigersAndSheep

    variant = TigersAndSheep(captures_to_win=3)
    with pytest.raises(PlayerSpecError, match="registered games only"):
        make_player("spiel-mcts", variant)


# ---------------------------------------------------------------- determinism


def moves_against_random(rules, spec: str, seed: int, plies: int = 10) -> list[str]:
    """The moves of a short game: the bot on the first side, random on the second."""
    players = {
        rules.sides[0]: make_player(spec, rules, seed=seed),
        rules.sides[1]: make_player("random", rules, seed=1),
    }
    game = play_game(rules, players, ply_cap=plies)
    return [rules.format_move(move) for move in game.moves]


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.name)
def test_spiel_mcts_is_deterministic_for_a_seed(rules):
    spec = "spiel-mcts:sims=20"
    first = moves_against_random(rules, spec, seed=3)
    assert moves_against_random(rules, spec, seed=3) == first
    assert moves_against_random(rules, spec, seed=4) != first
    assert moves_against_random(rules, spec + ",seed=4", seed=3) == moves_against_random(
        rules, spec, seed=4
    )  # the spec's own seed overrides the one make_player is given


def test_a_move_depends_on_the_seed_and_the_ply_not_on_the_games_before():
    """A player reused for another game (as the server's pool does) plays as a new one."""
    player = make_player("spiel-mcts:sims=20", TIGERS, seed=5)
    game = Game(TIGERS)
    before = player.choose_move(game)
    for _ in range(3):
        player.choose_move(game)
    assert player.choose_move(game) == before


def test_a_game_without_a_ply_cap_is_capped_ahead_of_its_ply(monkeypatch):
    monkeypatch.setattr(bots, "DEFAULT_PLY_CAP", 2)
    game = Game(TIGERS)  # no ply cap
    for text in ("c3", "a1-b2", "a3"):
        game.play_text(text)
    for spec in ("spiel-mcts:sims=10", "spiel-ab:depth=2"):
        game.play(make_player(spec, TIGERS).choose_move(game))  # legal, though past ply 2
        game.undo()


# ---------------------------------------------------------------- matches


@pytest.mark.slow
def test_a_short_match_against_random_finishes_with_legal_games():
    result = play_match("spiel-mcts:sims=20", "random", games=2, ply_cap=40, seed=2)
    assert result.games == 2
    for pair in result.pairs:
        for played in pair.games:
            game = Game(TIGERS)
            for text in played.moves:
                game.play_text(text)  # raises if a move is illegal
            assert game.outcome is not None or len(played.moves) == 40


def test_a_draughts_match_against_spiel_ab_finishes():
    result = play_match(
        "spiel-ab:depth=2", "spiel-mcts:sims=10", games=2, ply_cap=30, game="draughts"
    )
    assert result.games == 2


@pytest.mark.slow
def test_samuel_match_runs_the_bots_from_the_command_line():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "samuel.cli",
            "match",
            "spiel-mcts:sims=20",
            "random",
            "--games",
            "2",
            "--ply-cap",
            "40",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "spiel-mcts:sims=20" in run.stdout


@pytest.mark.slow
def test_samuel_match_refuses_a_bad_spiel_spec_at_once():
    run = subprocess.run(
        [sys.executable, "-m", "samuel.cli", "match", "spiel-mcts:sims=0", "random"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0
    assert "sims must be between 1 and 100000" in run.stderr + run.stdout


# ---------------------------------------------------------------- spiel-ab vs Samuel's search


def random_positions(rules, count: int, seed: int) -> list[Game]:
    """Games of random moves, stopped at random plies before they end."""
    rng = np.random.default_rng(seed)
    games = []
    while len(games) < count:
        game = Game(rules)
        for _ in range(int(rng.integers(0, 50))):
            if game.outcome is not None:
                break
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
        if game.outcome is None:
            games.append(game)
    return games


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_spiel_ab_scores_tigers_positions_as_samuels_search_does(depth):
    """Both are plain minimax to the same depth with the same leaves: the values agree exactly
    (OpenSpiel's in (-1, 1) times WIN), except that Samuel scores a forced result by its
    distance (WIN - plies) where OpenSpiel says ±1. And the move spiel-ab picks is worth that
    score by Samuel's search too."""
    for game in random_positions(TIGERS, 6, seed=depth):
        samuel = make_player(f"classic:depth={depth}", TIGERS).search(game)
        ab = make_player(f"spiel-ab:depth={depth}", TIGERS)
        move = ab.choose_move(game)
        if abs(samuel.score) < WIN_BOUND:
            assert ab.last_value * WIN == pytest.approx(samuel.score, abs=1e-9)
        else:
            assert ab.last_value == np.sign(samuel.score)
            continue
        game.play(move)
        if game.outcome is not None:
            assert game.outcome.result != 0
            continue
        if depth > 1:
            reply = make_player(f"classic:depth={depth - 1}", TIGERS).search(game)
            assert -reply.score == pytest.approx(samuel.score, abs=1e-9)


# ---------------------------------------------------------------- draughts captures


@pytest.mark.parametrize("spec", ["spiel-mcts:sims=20", "spiel-ab:depth=2"])
def test_a_draughts_capture_of_several_jumps_is_returned_whole(spec):
    forced = Game(DRAUGHTS, start=DRAUGHTS.parse_position("B:W14,22:B9"))
    assert DRAUGHTS.format_move(make_player(spec, DRAUGHTS).choose_move(forced)) == "9x18x25"
    choice = Game(DRAUGHTS, start=DRAUGHTS.parse_position("B:W14,16,22:B9,12"))
    move = make_player(spec, DRAUGHTS).choose_move(choice)
    assert DRAUGHTS.format_move(move) in ("9x18x25", "12x19")


@pytest.mark.parametrize("depth", [1, 2])
def test_spiel_ab_takes_the_capture_that_wins_material(depth):
    """Two jumps beat one, even at depth 1 (one action, the first jump): a leaf in the middle of
    a capture is valued by the mover's best way to finish it."""
    choice = Game(DRAUGHTS, start=DRAUGHTS.parse_position("B:W14,16,22:B9,12"))
    move = make_player(f"spiel-ab:depth={depth}", DRAUGHTS).choose_move(choice)
    assert DRAUGHTS.format_move(move) == "9x18x25"


# ---------------------------------------------------------------- the server


def test_the_server_offers_spiel_mcts_and_caps_the_bots_work():
    pytest.importorskip("fastapi")  # the web extra
    from samuel.web.levels import offered_players
    from samuel.web.specs import player_for

    for rules in GAMES:
        offered = offered_players(None, rules)
        spiel = [level for level in offered.players if level.group == "OpenSpiel"]
        assert [level.spec for level in spiel] == [spec for spec, _ in bots_levels()]
        assert all(level.engine is None for level in spiel)
    assert player_for("spiel-mcts:sims=500,rollouts=2", None).simulations == 500
    with pytest.raises(PlayerSpecError, match="1000 random games a move at most"):
        player_for("spiel-mcts:sims=2000", None)
    with pytest.raises(PlayerSpecError, match="depth 4 at most"):
        player_for("spiel-ab:depth=5", None)
    assert player_for("spiel-ab:depth=4", None, rules=DRAUGHTS).depth == 4


def bots_levels():
    from samuel.web.levels import SPIEL_LEVELS

    return SPIEL_LEVELS


def test_the_spec_help_names_the_bots():
    from samuel.players import SPEC_HELP

    assert "spiel-mcts[:sims=N" in SPEC_HELP and "spiel-ab" in SPEC_HELP
    assert bots.NAMES == ("spiel-mcts", "spiel-ab")


def test_the_server_plays_the_bots_as_engines():
    pytest.importorskip("fastapi")  # the web extra
    with warnings.catch_warnings():  # newer Starlette prefers httpx2; httpx still works
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from fastapi.testclient import TestClient

    from samuel.web.app import create_app

    with TestClient(create_app(allowed_hosts=["testserver"])) as client:
        players = {"tigers": "spiel-mcts:sims=20", "sheep": "spiel-ab:depth=2"}
        game = client.post("/api/games", json={"players": players})
        assert game.status_code == 201, game.text
        url = f"/api/games/{game.json()['id']}/engine-move"
        for _ in range(2):
            answer = client.post(url)
            assert answer.status_code == 200, answer.text
        moves = [played["move"] for played in answer.json()["moves"]]
        assert len(moves) == 2 and all(
            played["search"] is None for played in answer.json()["moves"]
        )
        refused = client.post("/api/games", json={"players": {"tigers": "spiel-mcts:sims=5000"}})
        assert refused.status_code == 400 and "at most" in refused.text
