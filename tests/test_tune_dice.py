"""Tuning long nardy, a game with dice whose wins score points: its data sets hold the games'
points and play again from their seed, its positions are checked as its rules check them, its
targets and matches count points (a mars 2, a koks 3) with duplicate dice, its weights file
round-trips through the tuner, and selfplay -> tune -> hillclimb runs from the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from samuel.games import get_game
from samuel.games.nardy import kernels as nardy_kernels
from samuel.games.nardy import states as nardy_states
from samuel.games.nardy import tuning as nardy_tuning
from samuel.games.nardy.board import DICE_SHIFT
from samuel.games.nardy.rules import FEATURES, Position, six_block_breach
from samuel.match.head_to_head import MatchConfig, summarize
from samuel.match.runner import GamePlayed, PairResult
from samuel.match.sprt import parse_sprt
from samuel.players import make_player
from samuel.tune import gradient as G
from samuel.tune.config import HillClimbConfig, SelfPlayDataConfig, TuneConfig, for_game
from samuel.tune.dataset import DatasetError, load_positions, make_positions, save_positions
from samuel.tune.games import tuning_game
from samuel.tune.hillclimb import hill_climb, mutate
from samuel.tune.scores import match_score
from tests.cli_process import samuel

RULES = get_game("nardy")


@pytest.fixture(scope="module")
def data():
    return make_positions(for_game(SelfPlayDataConfig, "nardy", games=12, seed=7))


# --- the data set -----------------------------------------------------------------------------


def test_the_games_are_played_again_from_their_seed_and_score_points(data):
    again = make_positions(for_game(SelfPlayDataConfig, "nardy", games=12, seed=7))
    for name in ("states", "results", "games", "plies", "random_moves", "scores"):
        assert np.array_equal(getattr(again, name), getattr(data, name)), name
    other = make_positions(for_game(SelfPlayDataConfig, "nardy", games=12, seed=8))
    assert not np.array_equal(other.results, data.results) or len(other) != len(data)
    first = np.r_[True, np.diff(data.games) != 0]
    results = data.results[first]
    assert len(results) == 12 and 0 not in results  # every game ends, no draw at this cap
    assert set(np.abs(results).tolist()) <= {1, 2, 3} and np.abs(results).max() >= 2  # a mars
    for g in range(12):  # each game opens at the start, its first roll thrown
        start = Position.decode(data.states[data.games == g][0])
        assert (start.white, start.black) == (
            RULES.initial_position().white,
            RULES.initial_position().black,
        )
        assert start.dice is not None


def test_each_game_s_result_is_white_s_points_from_how_it_ended(data):
    for g in range(12):
        rows = data.games == g
        # The last position is the winner's, which bore its last checkers off from it; the
        # loser's checkers then stay as they are there.
        last = Position.decode(data.states[rows][-1])
        loser = last.black if last.white_to_move else last.white
        if sum(loser) < 15:
            points = 1
        else:  # none borne off: a mars, a koks with one still in its first quarter (19-24)
            points = 3 if any(loser[18:]) else 2
        assert data.results[rows][0] == (points if last.white_to_move else -points), g


def test_the_defaults_are_long_nardy_s_own():
    config = for_game(SelfPlayDataConfig, "nardy")
    assert config.ply_cap > 200 and config.random_plies == 0 and config.epsilon == 0.0
    assert for_game(SelfPlayDataConfig, "nardy", ply_cap=300).ply_cap == 300
    climb = for_game(HillClimbConfig, "nardy")
    assert climb.opening_plies == climb.final_opening_plies == 0  # the dice keep them apart
    assert climb.features == nardy_tuning.TUNABLE and "turn" not in climb.features
    assert for_game(TuneConfig, "nardy").fixed == ("pips",)
    assert for_game(SelfPlayDataConfig, "tigers") == SelfPlayDataConfig()  # no change there


def test_a_saved_file_reads_back_and_is_refused_as_another_game(tmp_path, data):
    path = tmp_path / "d.npz"
    save_positions(data, path)
    loaded = load_positions(path, "nardy")
    assert np.array_equal(loaded.states, data.states)
    assert np.array_equal(loaded.results, data.results)
    with pytest.raises(DatasetError, match="positions of Long nardy, not Tigers & Sheep"):
        load_positions(path, "tigers")


def test_a_result_beyond_a_koks_is_refused(tmp_path, data):
    bad = data.subset(np.ones(len(data), dtype=bool))
    bad.results[bad.games == 0] = 4
    path = tmp_path / "bad.npz"
    save_positions(bad, path)
    with pytest.raises(DatasetError, match="results row 0 .*-3 to 3 points"):
        load_positions(path)


# --- the check of positions -------------------------------------------------------------------


def _state(white, black, white_to_move=True) -> np.ndarray:
    return Position(tuple(white), tuple(black), white_to_move).encode()


def _counts(spread: dict[int, int]) -> list[int]:
    counts = [0] * 24
    for point, count in spread.items():
        counts[point - 1] = count
    return counts


def test_the_played_positions_pass_and_bad_rows_are_named(data):
    assert nardy_states.state_problem(data.states) is None
    start = RULES.encode(RULES.initial_position())
    both = start.copy()  # a White checker from its head to its point 12, Black's head
    both[0] += 1 << (4 * 11)
    both[1] -= 1 << (4 * 7)
    sixteen = start.copy()
    sixteen[1] += 1 << (4 * 8)  # one more borne off
    dice = start.copy()
    dice[1] |= 77 << DICE_SHIFT  # a 7-7
    spare = start.copy()
    spare[3] |= 1 << 40
    outside = _state(_counts({1: 13, 24: 1}), _counts({24: 15}))  # one off, one on its head
    cases = [
        (both, "both sides"),
        (sixteen, "White's checkers"),
        (dice, "dice"),
        (spare, "bits"),
        (outside, "borne off with checkers outside"),
    ]
    for row, phrase in cases:
        states = np.stack([data.states[0], data.states[1], row])
        problem = nardy_states.state_problem(states)
        assert problem is not None and problem.startswith("states row 2"), phrase
        assert phrase in problem, problem


def test_the_six_block_check_agrees_with_the_rules():
    rng = np.random.default_rng(3)
    rows, expected = [], []
    for _ in range(400):
        # White: a run of 4 to 8 points from a random point, the rest on its head; Black: the
        # same on points White leaves free, so that runs and checkers past them both vary.
        white = [0] * 24
        length, low = int(rng.integers(4, 9)), int(rng.integers(1, 16))
        for point in range(low, low + length):
            white[point - 1] = 1
        white[23] += 15 - sum(white)
        black = [0] * 24
        free = [p for p in range(1, 24) if not white[(p + 11) % 24]]
        for point in rng.choice(free, size=int(rng.integers(0, 4)), replace=False):
            black[point - 1] = 1
        if not white[11]:  # Black's head is White's point 12
            black[23] = 15 - sum(black)
        else:
            black[free[-1] - 1] += 15 - sum(black)
        position = Position(tuple(white), tuple(black), True)
        rows.append(position.encode())
        expected.append(six_block_breach(position) is not None)
    assert any(expected) and not all(expected)
    found = [nardy_states.state_problem(np.array([row])) is not None for row in rows]
    assert found == expected


# --- targets, weights and matches -------------------------------------------------------------


def test_points_are_targets_from_a_koks_lost_to_a_koks_won():
    targets = G.result_targets(np.array([-3, -2, -1, 0, 1, 2, 3]), 3)
    assert targets[0] == 0.0 and targets[3] == 0.5 and targets[-1] == 1.0
    assert np.all(np.diff(targets) > 0) and np.allclose(targets + targets[::-1], 1.0)
    assert np.array_equal(G.result_targets(np.array([-1, 0, 1])), [0.0, 0.5, 1.0])
    assert tuning_game("nardy").max_points == 3 and tuning_game("draughts").max_points == 1


def test_the_weights_file_round_trips_through_the_tuner(tmp_path):
    game = tuning_game("nardy")
    start = game.load_weights()
    assert np.array_equal(start, RULES.classic_weights()) and game.weights == FEATURES
    changed = start + np.arange(len(start)) / 1000
    path = tmp_path / "w.json"
    game.save_weights(changed, path, note="a test", extra={"tuning": {"method": "test"}})
    assert np.array_equal(RULES.classic_weights(path), changed)
    assert json.loads(path.read_text())["tuning"] == {"method": "test"}
    player = make_player(f"classic:weights={path}:depth=1", RULES)
    assert np.allclose(player.params, changed)


def test_the_tuned_sum_is_what_the_classic_evaluation_squashes(data):
    weights = np.random.default_rng(5).normal(0.0, 0.05, len(FEATURES))
    sparse = G.sparse_features(data.states, "nardy")
    scratch = np.zeros(nardy_kernels.FEATURES)
    evaluated = [nardy_kernels.classic_value(state, weights, scratch) for state in data.states]
    assert np.allclose(np.tanh(G.evaluations(sparse, weights)), evaluated)


def test_a_mutation_changes_one_tunable_weight_never_the_unit():
    weights = tuning_game("nardy").load_weights()
    seen = set()
    for number in range(1, 40):
        feature, changed = mutate(weights, nardy_tuning.TUNABLE, 0.3, 2, number, "nardy")
        differs = np.flatnonzero(changed != weights)
        assert [FEATURES[i] for i in differs] == [feature] and feature != "pips"
        assert abs(changed - weights).max() >= 0.5 * nardy_tuning.STEP_FLOOR[feature] - 1e-4
        seen.add(feature)
    assert seen == set(nardy_tuning.TUNABLE)


def _game(first_side: str, first_score: int) -> GamePlayed:
    return GamePlayed(
        first_side=first_side,
        result=1 if (first_score > 0) == (first_side == "white") else -1,
        first_points=1.0 if first_score > 0 else 0.0,
        termination=None,
        moves=(),
        first_score=first_score,
    )


def test_a_match_scores_the_share_of_the_points_not_of_the_games():
    # Each pair: a plain game won, a mars lost. Half the games, a third of the points.
    pairs = [PairResult(p, (), (_game("white", 1), _game("black", -2))) for p in range(3)] + [
        PairResult(3, (), (_game("white", 2), _game("black", -1)))
    ]
    result = summarize("a", "b", MatchConfig(games=8, game="nardy"), pairs, 0.0)
    assert result.score == 0.5
    score = match_score(result, 3)
    assert score.share == pytest.approx(5 / 12)  # won 1+1+1+2, lost 2+2+2+1
    assert score.points == pytest.approx(result.points.per_game) and score.points < 0
    assert score.low <= score.share <= score.high
    assert match_score(result, 1).share == 0.5  # a game of one point a win: the score


# --- the options ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "changes", "phrase"),
    [
        (TuneConfig, {"label": "search"}, "score points"),
        (TuneConfig, {"label": "rollout"}, "score points"),
        (TuneConfig, {"fixed": ("turn",)}, "pips is the unit"),
        (HillClimbConfig, {"features": ("pips",)}, "pips is the unit"),
        (HillClimbConfig, {"sprt": parse_sprt("elo0=0,elo1=10")}, "scores points"),
        (HillClimbConfig, {"features": ("blots",)}, "unknown feature"),
    ],
)
def test_bad_long_nardy_settings_are_refused(kind, changes, phrase):
    with pytest.raises(ValueError, match=phrase):
        for_game(kind, "nardy", **changes)


# --- hill climbing and the command line -------------------------------------------------------


def test_a_seeded_hill_climb_is_the_same_twice(tmp_path):
    runs = []
    for name in ("a", "b"):
        config = for_game(
            HillClimbConfig,
            "nardy",
            rounds=2,
            games=2,
            final_games=2,
            accept=0.5,
            out_dir=str(tmp_path / name),
            workers=1,
            seed=3,
        )
        run = hill_climb(config, log=lambda line: None)
        del run["config"]["out_dir"]
        runs.append(run)
    assert runs[0] == runs[1]
    final = runs[0]["final"]
    assert final["games"] == 2 and "points" in final
    assert final["points_low"] <= final["points"] <= final["points_high"]
    learned = tuning_game("nardy").load_weights(tmp_path / "a" / "learned.json")
    assert learned.tolist() == list(runs[0]["learned"].values())


@pytest.mark.slow  # whole samuel processes
def test_selfplay_tune_and_hillclimb_from_the_command_line(tmp_path):
    data, tuned = tmp_path / "d.npz", tmp_path / "tuned.json"
    run = samuel(
        "selfplay", "--game", "nardy", "--games", "16", "--out", str(data), "--workers", "1",
        "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "16 games" in run.stdout and "white won" in run.stdout and "black won" in run.stdout
    assert load_positions(data).config["player"] == "classic:depth=1"

    run = samuel(
        "tune", "--game", "nardy", str(data), "--out", str(tuned), "--iterations", "40",
        "--match-games", "2", "--workers", "1",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "per pip" in run.stdout and "points a game" in run.stdout
    weights = RULES.classic_weights(tuned)  # long nardy's own loader reads the tuner's file
    start = RULES.classic_weights()
    assert weights[0] == start[0] and not np.array_equal(weights, start)  # pips, the unit
    document = json.loads(tuned.read_text())
    assert document["tuning"]["config"]["game"] == "nardy"
    assert "points" in document["tuning"]["match"]

    out = tmp_path / "hc"
    run = samuel(
        "hillclimb", "--game", "nardy", "--start", str(tuned), "--rounds", "1", "--games", "2",
        "--final-games", "2", "--out-dir", str(out), "--workers", "1", "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "round   1:" in run.stdout and "points a game" in run.stdout
    assert np.array_equal(RULES.classic_weights(out / "original.json"), weights)
    RULES.classic_weights(out / "learned.json")

    run = samuel(
        "match", "--game", "nardy", f"classic:weights={out / 'learned.json'}", "classic",
        "--games", "2", "--depth", "1", "--workers", "1", "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr

    for args, phrase in [
        (("tune", "--game", "nardy", str(data), "--label", "search"), "score points"),
        (("hillclimb", "--game", "nardy", "--sprt", "elo0=0,elo1=10"), "scores points"),
        (("tune", str(data), "--out", str(tmp_path / "x.json")), "--game nardy"),
    ]:
        run = samuel(*args, cwd=tmp_path)
        assert run.returncode == 2 and phrase in run.stderr, run.stderr
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
