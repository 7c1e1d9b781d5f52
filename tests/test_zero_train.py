"""The Zero trainer (``samuel zero-train``, docs/zero.md "The trainer"): PUCT self-play and its
targets, training, the loop's files and resume, determinism on 1 and 2 threads, bad options."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numba
import numpy as np
import pytest

from samuel.errors import CommandError, SamuelError
from samuel.evaluation.networks import (
    load_zero_network,
    random_network,
    random_zero_network,
    save_network,
)
from samuel.games import actions as game_actions
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.nn.network import NO_PLIES
from samuel.train.trainer import Adam
from samuel.train.zero_config import ZeroConfig
from samuel.train.zero_loop import (
    ZeroGames,
    encode_zero,
    game_table_searches,
    lambda_returns,
    play_zero_selfplay,
    train_zero,
    train_zero_epoch,
    zero_game_seed,
    zero_losses,
    zero_samples,
    zero_self_play,
)
from samuel.train.zero_selfplay import IN_TABLE_ALL, IN_TABLE_NONE, zero_batch_loss
from tests import game_numbers

QUIET = {"report": lambda row: None, "log": lambda line: None}


def tiny(out_dir, **changes) -> ZeroConfig:
    settings = dict(
        generations=2, games=6, out_dir=str(out_dir), simulations=12, ply_cap=60, batch_size=64
    )
    return ZeroConfig(**{**settings, **changes})


def with_threads(count: int, function):
    before = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        return function()
    finally:
        numba.set_num_threads(before)


def random_zero(game: str) -> np.ndarray:
    from samuel.evaluation.networks import random_zero_network

    return random_zero_network(get_game(game).number, 3)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_the_same_seed_gives_the_same_games_targets_and_weights_on_1_and_2_threads(tmp_path, game):
    config = tiny(tmp_path, game=game)
    params = random_zero(game)
    one = with_threads(1, lambda: zero_samples(zero_self_play(params, config, 1)))
    two = with_threads(2, lambda: zero_samples(zero_self_play(params, config, 1)))
    for field in ("states", "legal", "legal_counts", "policy", "results", "plies"):
        assert np.array_equal(getattr(one, field), getattr(two, field)), field
    # A game depends on its seed alone, not on the games played beside it.
    other = zero_self_play(params, tiny(tmp_path, game=game, seed=1), 1)
    assert not np.array_equal(zero_samples(other).plies, one.plies)  # another run seed
    assert zero_game_seed(0, 1, 3) != zero_game_seed(0, 2, 3) != zero_game_seed(1, 1, 3)

    a = train_zero(tiny(tmp_path / "one", game=game, workers=1), **QUIET)
    b = train_zero(tiny(tmp_path / "two", game=game, workers=2), **QUIET)
    assert a.tobytes() == b.tobytes()
    number = get_game(game).number
    assert np.array_equal(load_zero_network(tmp_path / "one" / "latest.bin", number), a)
    assert not np.array_equal(a, random_zero(game))


@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_policy_targets_are_visit_shares_over_the_distinct_legal_actions(tmp_path, game):
    number = get_game(game).number
    samples = zero_samples(zero_self_play(random_zero(game), tiny(tmp_path, game=game), 1))
    assert len(samples) > 20
    for i in range(len(samples)):
        k = int(samples.legal_counts[i])
        _, actions = game_actions.legal_actions(number, samples.states[i])
        assert list(samples.legal[i, :k]) == list(dict.fromkeys(actions.tolist()))
        assert samples.policy[i, :k].sum() == pytest.approx(1.0, abs=1e-5)
        assert (samples.policy[i, :k] >= 0).all() and not samples.policy[i, k:].any()
        # 12 simulations: every share is a whole number of visits out of 12.
        assert np.allclose(samples.policy[i, :k] * 12, np.round(samples.policy[i, :k] * 12))


@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_value_targets_are_the_result_and_plies_left_count_down_to_the_end(tmp_path, game):
    number = get_game(game).number
    config = tiny(tmp_path, game=game, games=8, ply_cap=150)
    parts = zero_self_play(random_zero(game), config, 1)
    samples = zero_samples(parts)
    part = parts[0]
    decisive = [g for g in range(len(part.plies)) if part.results[g] != 0]
    assert decisive, "no game ended decisively"
    start = 0
    for g in range(len(part.plies)):
        n = int(part.plies[g])
        chosen = slice(start, start + n)
        assert (samples.results[chosen] == part.results[g]).all()
        assert list(samples.plies[chosen]) == list(range(n, 0, -1))
        start += n
    # The network's view: Tigers & Sheep's value is the tigers', draughts' the side to move's.
    encoded = encode_zero(number, samples)
    for i in range(len(samples)):
        view = games.network_sign(number, samples.states[i])
        assert encoded.targets[i] == samples.results[i] * view
    if game == "draughts":  # the half-turn with colours swapped: the same inputs and targets
        turned = encode_zero(number, samples, np.ones(len(samples), dtype=np.int64))
        assert np.array_equal(turned.targets, encoded.targets)
        assert np.array_equal(turned.legal, encoded.legal)
    else:  # a symmetry maps the legal actions onto the image's legal actions
        image = np.empty_like(samples.states[0])
        for symmetry in range(8):
            symmetries = np.full(len(samples), symmetry, dtype=np.int64)
            turned = encode_zero(number, samples, symmetries)
            assert np.array_equal(turned.targets, encoded.targets)
            for i in range(0, len(samples), 7):
                games.transform(number, samples.states[i], symmetry, image)
                _, actions = game_actions.legal_actions(number, image)
                k = int(samples.legal_counts[i])
                assert sorted(turned.legal[i, :k]) == sorted(set(actions.tolist()))


def test_a_value_discount_makes_quick_results_worth_more(tmp_path):
    """``value_discount`` scales each position's result by discount ** (plies left - 1): the
    last position keeps the whole result, earlier ones less; the plies and policy stay."""
    config = tiny(tmp_path, games=8, ply_cap=150)
    parts = zero_self_play(random_zero("tigers"), config, 1)
    plain = zero_samples(parts)
    discounted = zero_samples(parts, 0.9)
    assert np.array_equal(discounted.plies, plain.plies)
    assert np.array_equal(discounted.policy, plain.policy)
    expected = plain.results * 0.9 ** (plain.plies.astype(np.float64) - 1.0)
    assert np.allclose(discounted.results, expected, rtol=1e-6, atol=0)
    last = plain.plies == 1
    assert np.array_equal(discounted.results[last], plain.results[last])
    assert (np.abs(discounted.results[~last]) < 1).all()
    assert (np.sign(discounted.results) == np.sign(plain.results)).all()


def test_root_values_are_the_searchs_and_q_weight_mixes_them_in(tmp_path):
    """Each recorded root value is the self-play search's value of the position (checked at
    each game's start against a PUCT search with the game's seed, noise and simulations), and
    ``q_weight`` mixes it into the value target."""
    from samuel.search.alphabeta import _mix
    from samuel.search.puct import PuctSearch

    config = tiny(tmp_path, games=6, ply_cap=150)
    params = random_zero("tigers")
    parts = zero_self_play(params, config, 1)
    rules = get_game("tigers")
    root = rules.encode(rules.initial_position())
    key = games.key(rules.number, root)
    search = PuctSearch(rules.number)
    settings = config.settings()
    side = games.sign(rules.number, root)
    starts = []
    for g in range(config.games):
        seed = zero_game_seed(config.seed, 1, g)
        result = search.search(
            params, root, np.array([key]), 0, settings, _mix(seed), config.ply_cap
        )
        assert parts[0].root_values[g, 0] == pytest.approx(result.value * side, abs=1e-6)
        starts.append(result.value)
    assert len(set(starts)) > 1  # each game's noise made its own search
    plain = zero_samples(parts, 0.9)
    mixed = zero_samples(parts, 0.9, 0.5)
    values = np.concatenate([parts[0].root_values[g, :n] for g, n in enumerate(parts[0].plies)])
    assert np.all(np.abs(values) <= 1) and np.any(values != 0)
    assert np.allclose(mixed.results, 0.5 * plain.results + 0.5 * values, atol=1e-6)
    assert np.array_equal(zero_samples(parts, 0.9, 0.0).results, plain.results)
    with pytest.raises(CommandError, match="q weight must be between 0 and 1"):
        tiny(tmp_path, q_weight=1.5)


def test_value_lambda_gives_the_lambda_return_of_the_later_search_values(tmp_path):
    """With ``value_lambda`` below 1 each position's result part is TD(lambda)'s return,
    checked against its sum written out: (1 - lam) * sum_k lam ** (k - 1) * v[t + k] plus
    lam ** (n - 1 - t) * result, game by game; 1 leaves the results as they were."""
    config = tiny(tmp_path, games=6, ply_cap=150)
    parts = zero_self_play(random_zero("tigers"), config, 1)
    lam = 0.7
    plain = zero_samples(parts, 0.95)
    returned = zero_samples(parts, 0.95, value_lambda=lam)
    expected = []
    start = 0
    for g, n in enumerate(parts[0].plies):
        n = int(n)
        v = parts[0].root_values[g, :n].astype(np.float64)
        results = plain.results[start : start + n].astype(np.float64)
        for t in range(n):
            later = sum((1 - lam) * lam ** (k - 1) * v[t + k] for k in range(1, n - t))
            expected.append(later + lam ** (n - 1 - t) * results[t])
        start += n
    assert np.allclose(returned.results, expected, atol=1e-5)
    assert not np.allclose(returned.results, plain.results, atol=1e-3)
    assert np.array_equal(zero_samples(parts, 0.95, value_lambda=1.0).results, plain.results)
    assert np.array_equal(returned.policy, plain.policy)
    assert list(lambda_returns(np.array([1.0, -1.0]), np.array([0.5, 0.25]), 0.0)) == [0.25, -1.0]
    with pytest.raises(CommandError, match="value lambda must be between 0 and 1"):
        tiny(tmp_path, value_lambda=1.5)


def test_epsilon_plays_random_moves_after_the_temperature_and_cuts_the_results(tmp_path):
    """With ``epsilon`` self-play plays a random move at some plies after the temperature's,
    marked in ``explored``; the games before the first one are those without it, move for
    move; the same games on 1 and 2 threads; each position up to an exploring move takes the
    search's value where it was played as its result, the others keep the game's."""
    config = tiny(tmp_path, games=8, ply_cap=120, temperature_plies=6, epsilon=0.2)
    params = random_zero("tigers")
    plain = zero_self_play(params, dataclasses.replace(config, epsilon=0.0), 1)[0]
    one = with_threads(1, lambda: zero_self_play(params, config, 1)[0])
    two = with_threads(2, lambda: zero_self_play(params, config, 1)[0])
    for field in dataclasses.fields(one):
        a, b = getattr(one, field.name), getattr(two, field.name)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), field.name
    assert not plain.explored.any()
    plies = [np.flatnonzero(one.explored[g]) for g in range(config.games)]
    assert sum(len(p) for p in plies) > 5
    assert all(len(p) == 0 or p[0] >= config.temperature_plies for p in plies)
    for g, explored in enumerate(plies):
        if len(explored):  # the same game up to the first exploring move's position
            first = explored[0]
            assert np.array_equal(one.positions[g, : first + 1], plain.positions[g, : first + 1])
    samples = zero_samples([one], q_weight=0.0)
    start = 0
    for g in range(config.games):
        n = int(one.plies[g])
        results = samples.results[start : start + n]
        following = None
        for t in range(n - 1, -1, -1):
            if one.explored[g, t]:
                following = t
            expected = one.results[g] if following is None else one.root_values[g, following]
            assert results[t] == pytest.approx(expected, abs=1e-6), (g, t)
        start += n
    with pytest.raises(CommandError, match="epsilon must be"):
        tiny(tmp_path, epsilon=1.0)
    with pytest.raises(CommandError, match="do not go together"):
        tiny(tmp_path, epsilon=0.1, value_lambda=0.5)


def test_self_play_searches_with_the_configs_implicit_minimax_weight(tmp_path):
    """``minimax`` reaches every self-play search: each game's first search is the player's
    search with that weight (the game's seed and noise), and differs from plain PUCT's."""
    from samuel.search.alphabeta import _mix
    from samuel.search.puct import PuctSearch

    config = tiny(tmp_path, games=3, simulations=40, minimax=0.5)
    params = random_zero("tigers")
    part = zero_self_play(params, config, 1)[0]
    plain = zero_self_play(params, dataclasses.replace(config, minimax=0.0), 1)[0]
    rules = get_game("tigers")
    root = rules.encode(rules.initial_position())
    key = np.array([games.key(rules.number, root)])
    search = PuctSearch(rules.number)
    for g in range(config.games):
        seed = _mix(zero_game_seed(config.seed, 1, g))
        result = search.search(params, root, key, 0, config.settings(), seed, config.ply_cap)
        k = int(part.legal_counts[g, 0])
        shares = part.policy[g, 0, :k]
        assert sorted(shares * 40) == pytest.approx(sorted(result.visits), abs=1e-4)
    assert not np.array_equal(part.policy[:, 0], plain.policy[:, 0])
    with pytest.raises(CommandError, match="minimax must be between"):
        tiny(tmp_path, minimax=2.0)


def test_decisive_games_end_in_a_position_the_rules_decide(tmp_path):
    number = get_game("tigers").number
    parts = zero_self_play(random_zero("tigers"), tiny(tmp_path, games=8, ply_cap=150), 1)
    part = parts[0]
    moves = np.empty(games.move_room(number), dtype=np.int64)
    for g in range(len(part.plies)):
        if part.results[g] == 0:
            continue
        last = part.positions[g, int(part.plies[g]) - 1]
        # Some move of the last recorded position ends the game with the recorded result.
        n = games.generate(number, last, moves)
        ends = set()
        child = np.empty_like(last)
        for move in moves[:n]:
            games.play(number, last, move, child)
            m = games.generate(number, child, np.empty_like(moves))
            ends.add(int(games.result(number, child, m)))
        assert int(part.results[g]) in ends


def policy_loss(game: int, params: np.ndarray, samples, symmetry: int) -> float:
    """The mean policy cross-entropy of the samples seen under ``symmetry``."""
    encoded = encode_zero(game, samples, np.full(len(samples), symmetry, dtype=np.int64))
    total, _, _ = zero_batch_loss(
        params,
        encoded.active,
        encoded.values,
        encoded.counts,
        encoded.legal,
        encoded.legal_counts,
        encoded.policy,
        encoded.targets,
        encoded.plies,
    )
    return total / len(samples)


def test_training_on_a_fixed_set_of_positions_lowers_the_policy_loss(tmp_path):
    """32 positions of self-play, 40 epochs: the policy's cross-entropy falls in every one of
    the 8 orientations (a symmetry that scrambled the targets would not learn), and the value's
    error falls too."""
    number = get_game("tigers").number
    config = tiny(tmp_path, games=6, simulations=32, learning_rate=1e-2, batch_size=16)
    params = random_zero("tigers")
    every = zero_samples(zero_self_play(params, config, 1))
    samples = every.select(slice(0, 32))
    before = zero_losses(number, params, samples)
    first = [policy_loss(number, params, samples, s) for s in range(8)]
    adam = Adam(len(params))
    rng = np.random.default_rng(5)
    for _ in range(40):
        train_zero_epoch(number, params, adam, samples, config, rng)
    after = zero_losses(number, params, samples)
    last = [policy_loss(number, params, samples, s) for s in range(8)]
    assert after[0] < before[0] - 0.25, (before, after)
    for symmetry in range(8):
        assert last[symmetry] < first[symmetry] - 0.15, (symmetry, first, last)
    assert after[1] < 0.5 * before[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", "zero-train", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tigers", "draughts"])
def test_a_tiny_run_from_the_command_line_writes_its_files_and_table_and_resumes(tmp_path, game):
    options = ["--sims", "8", "--ply-cap", "60", "--match-every", "2", "--match-games", "2"]
    options += ["--workers", "1", "--no-progress", "--game", game]
    run = run_cli("2", "4", str(tmp_path), *options)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    first, second = get_game(game).sides
    assert lines[0].split()[:7] == ["gen", "trained", first, second, "draws", "plies", "pol"]
    assert [line.split()[0] for line in lines[1:]] == ["1", "2"]
    assert lines[1].split()[12:14] == ["-", "-"]  # no matches in generation 1
    assert lines[2].split()[12].endswith("%") and lines[2].split()[13].endswith("%")
    assert "random weights" in run.stderr
    names = {p.name for p in tmp_path.iterdir()}
    assert {"gen-001.bin", "gen-001.json", "gen-002.bin", "gen-002.json", "latest.bin"} <= names
    assert (tmp_path / "latest.bin").read_bytes() == (tmp_path / "gen-002.bin").read_bytes()
    import json

    record = json.loads((tmp_path / "gen-002.json").read_text())
    assert record["config"]["simulations"] == 8 and record["report"]["generation"] == 2

    again = run_cli("1", "4", str(tmp_path), *options)
    assert again.returncode == 0, again.stderr
    assert "gen-002.bin" in again.stderr
    assert again.stdout.strip().splitlines()[1].split()[0] == "3"
    assert (tmp_path / "gen-003.bin").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sims", "0"], "--sims: '0' must be at least 1"),
        (["--noise", "2"], "--noise: '2' must be at most 1"),
        (["--match-games", "3"], "--match-games"),
        (["--policy-weight", "-1"], "--policy-weight: '-1' must be at least 0"),
        (["--game", "chess"], "--game"),
        (["--fpu", "nan"], "--fpu: 'nan' is not a finite number"),
        (["--learning-rate", "5"], "learning rate must be more than 0 and at most 1"),
    ],
)
def test_bad_options_are_refused_in_one_line(args, message):
    run = run_cli("1", "2", "/nonexistent/never", *args)
    assert run.returncode == 2
    last = run.stderr.strip().splitlines()[-1]  # after argparse's usage: the one-line error
    assert last.startswith("samuel zero-train: error:") and message in last


def test_the_help_lists_the_experiments_after_the_options_a_run_needs(capsys):
    """The stages tried and not shipped (docs/zero-journal.md) keep their options, in a group of
    their own after the main list; every option is in one of the two."""
    from samuel import cli
    from samuel.train.zero_command import EXPERIMENTS, EXPERIMENTS_TITLE

    with pytest.raises(SystemExit):
        cli.main(["zero-train", "--help"])
    text = capsys.readouterr().out
    main, experiments = text.split("\n\noptions:\n", 1)[1].split(f"\n{EXPERIMENTS_TITLE}:\n")
    flags = {
        field.name: field.metadata["option"]["flag"] or "--" + field.name.replace("_", "-")
        for field in dataclasses.fields(ZeroConfig)
        if "option" in field.metadata and not field.metadata["option"]["positional"]
    }
    listed = {line.split()[0] for line in main.splitlines() if line.startswith("  -")}
    tried = {line.split()[0] for line in experiments.splitlines() if line.startswith("  -")}
    assert tried == {flags[name] for name in EXPERIMENTS}
    assert listed >= {flag for name, flag in flags.items() if name not in EXPERIMENTS}
    assert {"--tablebase", "--value-discount", "--q-weight", "--no-matches"} <= listed
    assert not listed & tried


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"simulations": 0}, "simulations must be between 1 and 100000"),
        ({"match_games": 3}, "match games must be an even number"),
        ({"policy_weight": 0.0, "value_weight": 0.0, "plies_weight": 0.0}, "one must be more"),
        ({"noise_fraction": 1.5}, "noise_fraction must be between"),
        ({"value_discount": 0.0}, "value discount must be more than 0"),
        ({"value_discount": 1.5}, "value discount must be more than 0"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"seeing_targets": True}, "need --tablebase"),
        ({"tablebase": "tb", "table_search": "alternate", "swap_share": 0.5}, "--swap-share"),
        ({"tablebase": "tb", "seeing_targets": True}, "--seeing-targets needs a one-sided"),
    ],
)
def test_bad_settings_raise_one_clear_error(tmp_path, changes, message):
    with pytest.raises(CommandError, match=message):
        tiny(tmp_path, **changes)


@pytest.mark.slow
def test_a_value_network_is_refused_as_a_starting_point(tmp_path):
    number = get_game("tigers").number
    save_network(random_network(number, 1), tmp_path / "gen-001.bin", number)
    with pytest.raises(SamuelError) as error:
        train_zero(tiny(tmp_path), **QUIET)
    assert "\n" not in str(error.value)
    run = run_cli("1", "2", str(tmp_path), "--sims", "4", "--no-matches", "--no-progress")
    assert run.returncode != 0 and "Traceback" not in run.stderr


def test_self_play_on_a_cluster_backend_gives_the_same_games(tmp_path):
    from tests.test_backend_local import ScrambledBackend

    config = tiny(tmp_path, games=7)
    params = random_zero("tigers")
    local = zero_samples(zero_self_play(params, config, 2))
    backend = ScrambledBackend(3)
    done = []
    parts = zero_self_play(params, config, 2, done.append, backend)
    assert len(parts) > 1 and backend.functions == ["_selfplay_unit"] and done[-1] == 7
    remote = zero_samples(parts)
    for field in ("states", "legal", "legal_counts", "policy", "results", "plies"):
        assert np.array_equal(getattr(local, field), getattr(remote, field)), field


# --- self-play with a tablebase (--tablebase): exact positions and rescored games ------------


@pytest.fixture(scope="module")
def two_capture_table(tmp_path_factory):
    """The tablebase of the game won by two captures (built in seconds)."""
    from samuel.games.tigers.tablebase.probe import load_tablebase
    from samuel.tablebase.build import build

    directory = tmp_path_factory.mktemp("tablebase") / "k2"
    build(directory, 2, progress=False, log=lambda line: None)
    return load_tablebase(directory)


# Three sheep in hand, the tigers hemmed in: the hand empties in a few plies, and the table holds
# both wins and losses of the tigers from there.
NEAR_THE_TABLE = "T3T/SSSSS/SSSSS/SSSSS/TSS1T S 3"


# The hand empty: the game starts inside the table (a sheep captured; the tigers can still move).
IN_THE_TABLE = "TSS1T/SSSSS/SSSSS/SSSSS/TSS1T T 0"


def games_near_the_table(
    table,
    ply_cap: int,
    with_table: bool = True,
    count: int = 32,
    start: str = NEAR_THE_TABLE,
    in_table: int | np.ndarray = IN_TABLE_ALL,
    table_teaches: bool = False,
):
    """``count`` self-play games of the two-capture game (its rules and its table agree) from
    ``start``, 24 simulations a move, the temperature on throughout, ``in_table`` the searches
    that see the table inside it (in every game, or game by game): the per-game arrays of
    :class:`ZeroGames`, in order."""
    from samuel.games.tigers.rules import TigersAndSheep
    from samuel.search.puct import PuctSettings
    from samuel.train.zero_loop import tree_nodes
    from samuel.train.zero_selfplay import play_zero_games

    game = game_numbers.tigers_and_sheep(2)
    root = TigersAndSheep(2).parse_position(start).encode()
    out = ZeroGames.empty(count, ply_cap, len(root), games.compiled_game(game).max_moves)
    arrays = [
        getattr(out, f.name)
        for f in dataclasses.fields(out)
        if f.name not in ("in_tables", "explored")
    ]
    play_zero_games(
        game,
        random_zero_network(game, 5),
        root,
        PuctSettings(24, 1.25, 0.44, 0.3, 0.25).knobs(),
        ply_cap,
        ply_cap,
        tree_nodes(game, 24),
        np.arange(count, dtype=np.int64) + 7,
        (*arrays, out.explored),
        table.layers if with_table else None,
        np.broadcast_to(np.asarray(in_table, dtype=np.int64), count).copy(),
        table_teaches,
    )
    return arrays


def table_entries(table, positions, plies) -> list[tuple[int, int]]:
    """For each game that reached a position the table holds: the ply of the first one and its
    perfect-play value for the first player."""
    game = game_numbers.tigers_and_sheep(2)
    entries = []
    for g in range(len(plies)):
        for ply in range(int(plies[g])):
            found, outcome, _ = games.tablebase_result(game, positions[g, ply], table.layers)
            if found:
                entries.append((g, ply, int(outcome * games.sign(game, positions[g, ply]))))
                break
    return entries


def table_result(table, positions, plies, g) -> tuple[int, list[int]]:
    """What rescoring makes of game ``g``: the table's value of the last position it held
    (first player's view; 0 if none), for a game stopped by a repetition or the cap, and the
    results the rules give after any move from its last recorded position (one of them, if the
    rules ended it)."""
    game = game_numbers.tigers_and_sheep(2)
    moves = np.zeros(games.move_room(game), dtype=np.int64)
    last = positions[g, int(plies[g]) - 1]
    played = np.empty_like(last)
    over = []  # the rules' result after the last recorded move, if they end the game there
    for m in range(games.generate(game, last, moves)):
        games.play(game, last, moves[m], played)
        result = games.result(game, played, games.generate(game, played, np.empty_like(moves)))
        if result != games.NOT_OVER:
            over.append(result)
    value = 0
    for ply in range(int(plies[g])):
        found, outcome, _ = games.tablebase_result(game, positions[g, ply], table.layers)
        if found:
            value = int(outcome * games.sign(game, positions[g, ply]))
    return value, over


@pytest.mark.slow
@pytest.mark.parametrize("ply_cap", [8, 100])
def test_a_game_that_enters_the_tablebase_is_scored_by_the_table(two_capture_table, ply_cap):
    positions, *_, plies, results = games_near_the_table(two_capture_table, ply_cap)
    entries = table_entries(two_capture_table, positions, plies)
    assert len(entries) == len(plies)  # the hand empties in every game
    assert {value for _, _, value in entries} == {-1, 1}  # won and lost positions both
    for g, _, _ in entries:
        # With a cap of 8 plies, the games would be drawn at the cap: the table scores them.
        last, over = table_result(two_capture_table, positions, plies, g)
        assert results[g] == last or results[g] in over
    assert np.count_nonzero(results) > len(results) // 2


def search_again(arrays, g: int, ply: int, ply_cap: int, table) -> np.ndarray:
    """The visit shares of the search that :func:`games_near_the_table` ran at ``ply`` of game
    ``g``, run again with ``table`` (or None): the same position, history, cap and seed."""
    from samuel.nn.zero import forward_scratch
    from samuel.search import puct
    from samuel.search.alphabeta import HISTORY_CAPACITY
    from samuel.search.puct import PuctSettings
    from samuel.train.zero_loop import tree_nodes
    from samuel.train.zero_selfplay import _new_tree, _new_work, _search

    game = game_numbers.tigers_and_sheep(2)
    positions = arrays[0][g]
    moves = np.zeros(games.move_room(game), dtype=np.int64)
    after = np.empty_like(positions[0])
    window = 0
    for q in range(ply):  # the last irreversible move before the ply starts the history
        for m in range(games.generate(game, positions[q], moves)):
            games.play(game, positions[q], moves[m], after)
            if np.array_equal(after, positions[q + 1]):
                window = q + 1 if games.is_irreversible(game, positions[q], moves[m]) else window
    keys = np.array([games.key(game, p) for p in positions[: ply + 1]], dtype=np.int64)
    history = keys[max(window, ply + 1 - HISTORY_CAPACITY) :]
    tree = _new_tree(tree_nodes(game, 24), games.STATE_SIZE)
    params = random_zero_network(game, 5)
    knobs = PuctSettings(24, 1.25, 0.44, 0.3, 0.25, temperature=1.0).knobs()
    _search(
        game, params, positions[ply].copy(), history, ply_cap - ply, knobs, g + 7 + ply, tree,
        _new_work(game, forward_scratch(params)), None if table is None else table.layers,
    )  # fmt: skip
    first, count = tree[puct.FIRST_CHILD][0], tree[puct.CHILD_COUNT][0]
    visits = tree[puct.VISITS][first : first + count]
    return visits / visits.sum()


def test_naming_one_side_lets_only_its_searches_see_the_table_inside_it(two_capture_table):
    table = two_capture_table
    sheep = -1  # kernels.sign of the second player, the sheep
    arrays = games_near_the_table(table, 40, count=4, start=IN_THE_TABLE, in_table=sheep)
    policy, counts, plies = arrays[3], arrays[2], arrays[6]
    differs = {1: 0, -1: 0}  # plies where the other choice would have searched otherwise
    checked = 0
    for g in range(len(plies)):
        for ply in range(int(plies[g])):
            side = games.sign(game_numbers.tigers_and_sheep(2), arrays[0][g, ply])
            seeing = search_again(arrays, g, ply, 40, table)
            alone = search_again(arrays, g, ply, 40, None)
            shares = policy[g, ply, : counts[g, ply]]
            expected = seeing if side == sheep else alone
            assert np.allclose(shares, expected, atol=1e-6), (g, ply)
            differs[side] += not np.allclose(seeing, alone)
            checked += 1
    assert checked > 20 and differs[1] and differs[-1]


def test_the_table_teaches_the_side_that_plays_without_it(two_capture_table):
    table = two_capture_table
    plays = games_near_the_table(table, 40, count=4, start=IN_THE_TABLE, in_table=-1)
    taught = games_near_the_table(
        table, 40, count=4, start=IN_THE_TABLE, in_table=-1, table_teaches=True
    )
    # The same games, move for move and result for result: the tigers' own searches chose...
    for field in (0, 2, 6, 7):  # positions, counts, plies, results
        assert np.array_equal(plays[field], taught[field]), field
    # ... but every tiger's targets are those of a search that sees the table.
    tigers = 0
    for g in range(len(taught[6])):
        for ply in range(int(taught[6][g])):
            if games.sign(game_numbers.tigers_and_sheep(2), taught[0][g, ply]) == 1:
                shares = taught[3][g, ply, : taught[2][g, ply]]
                assert np.allclose(shares, search_again(taught, g, ply, 40, table), atol=1e-6)
                tigers += 1
    assert tigers > 10 and not np.array_equal(plays[3], taught[3])


@pytest.mark.slow
def test_self_play_searches_see_the_tablebase_and_are_the_same_on_1_and_2_threads(
    two_capture_table,
):
    one = with_threads(1, lambda: games_near_the_table(two_capture_table, 60))
    two = with_threads(2, lambda: games_near_the_table(two_capture_table, 60))
    for mine, theirs in zip(one, two, strict=True):
        assert np.array_equal(mine, theirs, equal_nan=True)
    plain = games_near_the_table(two_capture_table, 60, with_table=False)
    assert not np.array_equal(one[3], plain[3])  # the table changed the searches' visits


def test_the_trainer_hands_its_tablebase_to_self_play(monkeypatch, tmp_path, two_capture_table):
    from samuel.train import zero_loop

    asked, handed = [], []
    real = zero_loop.play_zero_games

    def table(c):
        asked.append(c.tablebase)
        return two_capture_table.layers

    def play(*arguments):  # the last four: the table, its searches, teaches, epsilon
        handed.append(arguments[-4:-2])
        return real(*arguments[:-4], None, *arguments[-3:])

    monkeypatch.setattr(zero_loop, "selfplay_tablebase", table)
    monkeypatch.setattr(zero_loop, "play_zero_games", play)
    zero_self_play(random_zero("tigers"), tiny(tmp_path, tablebase="tb"), 1)
    assert set(asked) == {"tb"} and handed
    assert all(
        table is two_capture_table.layers and (inside == IN_TABLE_ALL).all()
        for table, inside in handed
    )
    handed.clear()
    zero_self_play(
        random_zero("tigers"), tiny(tmp_path, tablebase="tb", table_search="before-entry"), 1
    )
    assert handed and all(
        table is two_capture_table.layers and (inside == IN_TABLE_NONE).all()
        for table, inside in handed
    )
    for side, sign in (("tigers", 1), ("sheep", -1)):  # kernels.sign of that side to move
        handed.clear()
        zero_self_play(random_zero("tigers"), tiny(tmp_path, tablebase="tb", table_search=side), 1)
        assert handed and all((inside == sign).all() for _, inside in handed)
    # With --always-share, every game of the generation gets its own, in order.
    handed.clear()
    config = tiny(tmp_path, tablebase="tb", table_search="sheep", always_share=0.5)
    zero_self_play(random_zero("tigers"), config, 1)
    every = np.concatenate([inside for _, inside in handed])
    assert every.tolist() == [-1, IN_TABLE_ALL] * 3


@pytest.mark.parametrize(
    "search, share, expected",
    [
        ("sheep", 0.0, [-1] * 8),
        ("sheep", 1.0, [IN_TABLE_ALL] * 8),
        ("sheep", 0.25, [-1, -1, -1, 2, -1, -1, -1, 2]),
        ("tigers", 0.5, [1, 2] * 4),
        ("alternate", 0.0, [1, -1] * 4),
        ("alternate", 0.5, [1, 2, -1, 2] * 2),
        ("before-entry", 0.25, [0, 0, 0, 2] * 2),
        ("sheep", (0.0, 0.25), [-1, -1, -1, 1, -1, -1, -1, 1]),
        ("tigers", (0.0, 0.5), [1, -1] * 4),
        ("sheep", (0.5, 0.5), [-1, 2, 1, 2] * 2),
    ],
)
def test_each_game_of_a_generation_has_the_table_searches_its_settings_say(
    tmp_path, search, share, expected
):
    always, swap = share if isinstance(share, tuple) else (share, 0.0)
    config = tiny(
        tmp_path,
        games=8,
        tablebase="tb",
        table_search=search,
        always_share=always,
        swap_share=swap,
    )
    assert game_table_searches(config).tolist() == expected


def test_each_game_searches_the_table_as_its_own_in_table_says(two_capture_table):
    table, count = two_capture_table, 8
    mixed = np.array([-1, IN_TABLE_ALL] * (count // 2), dtype=np.int64)
    both = games_near_the_table(table, 40, count=count, start=IN_THE_TABLE, in_table=mixed)
    alone = games_near_the_table(table, 40, count=count, start=IN_THE_TABLE, in_table=-1)
    every = games_near_the_table(table, 40, count=count, start=IN_THE_TABLE)
    for field in range(len(both)):  # each game is the game of its own setting, field by field
        for g in range(count):
            reference = every if mixed[g] == IN_TABLE_ALL else alone
            assert np.array_equal(both[field][g], reference[field][g], equal_nan=True)
    assert not np.array_equal(alone[3][1::2], every[3][1::2])  # the settings' games differ


def test_every_position_the_table_holds_gets_its_table_value(two_capture_table):
    game = game_numbers.tigers_and_sheep(2)
    positions, *_, table_values, plies, _ = games_near_the_table(two_capture_table, 60)
    inside = 0
    for g in range(len(plies)):
        for ply in range(int(plies[g])):
            found, outcome, _ = games.tablebase_result(
                game, positions[g, ply], two_capture_table.layers
            )
            if found:
                inside += 1
                assert table_values[g, ply] == outcome * games.sign(game, positions[g, ply])
            else:
                assert np.isnan(table_values[g, ply])
    assert inside > 100
    # Without a table nothing is filled in.
    plain = games_near_the_table(two_capture_table, 60, with_table=False)
    assert np.isnan(plain[5]).all()


def test_inside_the_table_before_entry_searches_alone_and_still_scores_by_the_table(
    two_capture_table,
):
    table = two_capture_table
    alone = games_near_the_table(table, 40, start=IN_THE_TABLE, in_table=IN_TABLE_NONE)
    plain = games_near_the_table(table, 40, with_table=False, start=IN_THE_TABLE)
    seeing = games_near_the_table(table, 40, start=IN_THE_TABLE)
    # The game starts in the table: no search probes it, so the games are those of no table...
    for field in (0, 1, 2, 3, 4, 6):  # positions, legal, counts, policy, root values, plies
        assert np.array_equal(alone[field], plain[field]), field
    assert not np.array_equal(alone[3], seeing[3])  # (the searches that see it differ)
    # ... but the table still scores them (the rules' result, or the table's value where a
    # repetition or the cap stopped the game) and gives every position its value.
    entries = table_entries(table, alone[0], alone[6])
    assert len(entries) == len(alone[6]) and all(ply == 0 for _, ply, _ in entries)
    changed = 0
    for g, _, entry in entries:
        last, over = table_result(table, alone[0], alone[6], g)
        assert alone[7][g] == last or alone[7][g] in over
        changed += alone[7][g] != entry
    assert changed  # moves inside the table gave the entry's value away
    assert not np.isnan(alone[5][:, 0]).any()
    # From before the table, the searches before the entry see it: the games differ from plain.
    before = games_near_the_table(table, 60, in_table=IN_TABLE_NONE)
    assert not np.array_equal(before[3], games_near_the_table(table, 60, with_table=False)[3])


def test_table_targets_replace_the_value_target_of_the_positions_the_table_holds(
    two_capture_table,
):
    arrays = games_near_the_table(two_capture_table, 60, in_table=IN_TABLE_NONE)
    part = ZeroGames(*arrays)
    plain = zero_samples([part], 1.0, 0.5)
    exact = zero_samples([part], 1.0, 0.5, table_targets=True)
    values = np.concatenate([part.table_values[g, : part.plies[g]] for g in range(len(part.plies))])
    inside = ~np.isnan(values)
    assert inside.any() and not inside.all()
    assert np.array_equal(exact.results[inside], values[inside])
    assert np.array_equal(exact.results[~inside], plain.results[~inside])
    assert not np.array_equal(exact.results, plain.results)
    for field in ("states", "legal", "legal_counts", "policy", "plies"):
        assert np.array_equal(getattr(exact, field), getattr(plain, field)), field


def test_entry_targets_give_the_positions_before_the_table_its_value_at_the_entry(
    two_capture_table,
):
    # The sheep see the table and the tigers do not: the tigers' mistakes inside it make some
    # games end otherwise than the table's value where they entered it.
    table = two_capture_table
    arrays = games_near_the_table(table, 60, in_table=-1, table_teaches=True)
    part = ZeroGames(*arrays)
    plain = zero_samples([part])
    entry = zero_samples([part], entry_targets=True)
    entries = {
        g: (ply, value) for g, ply, value in table_entries(table, part.positions, part.plies)
    }
    assert len(entries) == len(part.plies)
    start, differ = 0, 0
    for g in range(len(part.plies)):
        n, (ply, value) = int(part.plies[g]), entries[g]
        assert ply > 0  # the games start before the table
        assert (entry.results[start : start + ply] == value).all()
        assert (entry.results[start + ply : start + n] == part.results[g]).all()
        assert (plain.results[start : start + n] == part.results[g]).all()
        differ += value != part.results[g]
        start += n
    assert differ  # so the two targets differ, and the test can fail
    # With the search's value mixed in, the result part is the entry's value.
    mixed = zero_samples([part], 1.0, 0.5, entry_targets=True)
    roots = np.concatenate([part.root_values[g, : part.plies[g]] for g in range(len(part.plies))])
    assert np.allclose(mixed.results, 0.5 * entry.results + 0.5 * roots, atol=1e-6)
    for field in ("states", "legal", "legal_counts", "policy", "plies"):
        assert np.array_equal(getattr(entry, field), getattr(plain, field)), field


def test_seeing_targets_give_the_seeing_side_the_table_value_inside_it(two_capture_table):
    # Game by game, one side's searches see the table (sheep, tigers, then both); the tigers'
    # own mistakes inside it make the results differ from the table's values.
    count = 24
    in_tables = np.resize(np.array([-1, 1, IN_TABLE_ALL], dtype=np.int64), count)
    arrays = games_near_the_table(two_capture_table, 60, count=count, in_table=in_tables)
    part = ZeroGames(*arrays, in_tables=in_tables)
    plain = zero_samples([part], 1.0, 0.5)
    seeing = zero_samples([part], 1.0, 0.5, seeing_targets=True)
    start, replaced = 0, 0
    for g in range(count):
        n = int(part.plies[g])
        exact = part.table_values[g, :n]
        movers = np.where(part.positions[g, :n, 3] != 0, 1, -1)  # +1: the first player to move
        for ply in range(n):
            i = start + ply
            if (
                in_tables[g] != IN_TABLE_ALL
                and movers[ply] == in_tables[g]
                and exact[ply] == exact[ply]
            ):
                assert seeing.results[i] == exact[ply]
                replaced += seeing.results[i] != plain.results[i]
            else:
                assert seeing.results[i] == plain.results[i]
        start += n
    assert replaced  # so the two targets differ, and the test can fail
    for field in ("states", "legal", "legal_counts", "policy", "plies"):
        assert np.array_equal(getattr(seeing, field), getattr(plain, field)), field


def test_self_play_keeps_each_games_in_table(tmp_path):
    config = tiny(tmp_path, games=4)
    in_tables = np.array([1, -1, IN_TABLE_ALL, IN_TABLE_NONE], dtype=np.int64)
    seeds = np.arange(4, dtype=np.int64)
    game = get_game("tigers").number
    part = play_zero_selfplay(game, random_zero("tigers"), config, seeds, in_tables)
    assert np.array_equal(part.in_tables, in_tables)
    with pytest.raises(ValueError, match="in_tables"):
        play_zero_selfplay(game, random_zero("tigers"), config, seeds, np.full(4, 5))


@pytest.mark.slow
@pytest.mark.parametrize("mistakes_only", [True, False])
def test_table_children_are_every_move_or_those_that_give_the_value_away(
    two_capture_table, mistakes_only
):
    from samuel.games.tigers.rules import Position
    from samuel.train.zero_selfplay import table_children

    table, game = two_capture_table, game_numbers.tigers_and_sheep(2)
    arrays = games_near_the_table(table, 60, count=6)
    part = ZeroGames(*arrays)
    checked = 0
    for g in range(len(part.plies)):
        n = int(part.plies[g])
        room = games.move_room(game)
        children = np.zeros((n * room, part.positions.shape[2]), dtype=np.int64)
        values = np.zeros(n * room, dtype=np.float32)
        k = table_children(
            game, part.positions[g], n, table.layers, mistakes_only, children, values
        )
        # The plain reference: the table's value of every move, for the side that plays it.
        expected = []
        for ply in range(n):
            position = Position.decode(part.positions[g, ply], 2)
            if position.sheep_in_hand or position.captured >= 2 or not position.legal_moves():
                continue
            own, _ = table.value(position)
            side = 1 if position.tiger_to_move else -1
            for move, value, _ in table.move_values(position):
                if value < own or not mistakes_only:
                    child = position.play_unchecked(move)
                    expected.append((tuple(child.encode()), value * side))
        found = [(tuple(children[i]), int(values[i])) for i in range(k)]
        assert sorted(found) == sorted(expected)
        checked += k
    assert checked > 20
    samples = zero_samples(
        [part], children_table=table.layers, game=game, mistakes_only=mistakes_only
    )
    plain = zero_samples([part])
    assert len(samples) == len(plain) + checked
    extra = samples.legal_counts == 0
    assert extra.sum() == checked and (samples.plies[extra] == NO_PLIES).all()
    with pytest.raises(ValueError, match="count \\* move_room"):
        table_children(game, part.positions[0], 5, table.layers, True, children[:10], values)


def test_the_table_options_need_a_table_and_a_known_search(tmp_path):
    with pytest.raises(CommandError, match="need --tablebase"):
        tiny(tmp_path, table_targets=True)
    with pytest.raises(CommandError, match="need --tablebase"):
        tiny(tmp_path, table_search="before-entry")
    with pytest.raises(CommandError, match="need --tablebase"):
        tiny(tmp_path, entry_targets=True)
    with pytest.raises(CommandError, match="table search is one of always, before-entry"):
        tiny(tmp_path, tablebase="tb", table_search="never")
    with pytest.raises(CommandError, match="--table-teaches needs a --table-search that leaves"):
        tiny(tmp_path, tablebase="tb", table_teaches=True)
    with pytest.raises(CommandError, match="--always-share needs a --table-search that leaves"):
        tiny(tmp_path, tablebase="tb", always_share=0.5)
    run = run_cli("1", "2", str(tmp_path / "c"), "--table-targets", "--no-progress")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert "need --tablebase" in run.stderr and not (tmp_path / "c").exists()


@pytest.mark.slow
def test_a_bad_tablebase_is_refused_before_the_run_writes_anything(tmp_path, two_capture_table):
    with pytest.raises(CommandError, match="--tablebase works for Tigers & Sheep only"):
        tiny(tmp_path, game="draughts", tablebase="tb")
    missing = tiny(tmp_path / "a", tablebase=str(tmp_path / "none"))
    with pytest.raises(CommandError, match="no tablebase directory"):
        train_zero(missing, **QUIET)
    other_rule = tiny(tmp_path / "b", tablebase=str(two_capture_table.directory))
    with pytest.raises(CommandError, match="won by 2 captures"):
        train_zero(other_rule, **QUIET)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    run = run_cli(
        "1", "2", str(tmp_path / "c"), "--tablebase", str(tmp_path / "no"), "--no-progress"
    )
    assert run.returncode != 0 and "Traceback" not in run.stderr and "no tablebase" in run.stderr
