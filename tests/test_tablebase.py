"""The tablebase, on the variants won by 1 and 2 captures (solved in seconds), checked against
plain minimax to the end (tests/reference/tigers_tablebase.py) and against itself."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from itertools import combinations

import numpy as np
import pytest

from samuel.games.game import Game
from samuel.games.tigers.board import FULL, POINTS
from samuel.games.tigers.kernels import transform_mask
from samuel.games.tigers.rules import Move, Position, TigersAndSheep
from samuel.games.tigers.tablebase.files import (
    HEADER_SIZE,
    TablebaseError,
    checksum_ok,
    layer_path,
    open_codes,
    read_header,
    write_layer,
)
from samuel.games.tigers.tablebase.index import decode_index, layer_size, position_index
from samuel.games.tigers.tablebase.probe import load_tablebase
from samuel.games.tigers.tablebase.values import code_of, describe, outcome_of
from samuel.players import PlayerSpecError, make_player
from samuel.tablebase.build import build
from samuel.tablebase.score import score_player, wilson_range
from samuel.tablebase.verify import verify
from tests.reference import tigers_rules as ref
from tests.reference import tigers_tablebase as reference

QUIET = {"progress": False, "log": lambda line: None}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The tablebases of the games won by 1 and by 2 captures."""
    root = tmp_path_factory.mktemp("tablebases")
    for k in (1, 2):
        build(root / f"k{k}", k, **QUIET)
    return {k: root / f"k{k}" for k in (1, 2)}


def position_at(index: int, captured: int, tiger_to_move: bool, k: int) -> Position:
    tigers, empty = decode_index(index, captured + 1)
    return Position(int(tigers), FULL & ~(int(tigers) | int(empty)), 0, tiger_to_move, k)


def state_of(position: Position) -> reference.State:
    return reference.state_of(ref.parse_position(str(position)))


def longest(directory) -> int:
    table = load_tablebase(directory)
    return max(
        max(
            read_header(layer_path(table.directory, c, side)).counts.longest_win,
            read_header(layer_path(table.directory, c, side)).counts.longest_loss,
        )
        for c in range(table.captures_to_win)
        for side in (False, True)
    )


# --- the rule as a parameter ------------------------------------------------------------------


def test_a_variant_ends_at_its_own_captures_and_the_standard_game_is_unchanged():
    text = "T3T/SSSSS/SSSSS/SSSS1/TS1ST T 0"  # 16 sheep on the board: 4 captured
    assert TigersAndSheep(4).parse_position(text).decided_outcome().result == 1
    assert Position.parse(text).decided_outcome() is None
    assert TigersAndSheep(4).parse_position(text).legal_moves() == []
    assert len(Position.parse(text).legal_moves()) > 0
    assert TigersAndSheep().number == 0 and TigersAndSheep(4).number != 0
    with pytest.raises(ValueError, match="game ends at 3"):
        TigersAndSheep(3).parse_position(text)


def test_the_search_plays_the_variant_it_is_given():
    rules = TigersAndSheep(1)
    position = rules.parse_position("TSSST/SSSSS/SSSSS/SSSSS/TS1ST T 0")  # a1 jumps b1: wins
    player = make_player("classic:depth=2", rules)
    game = Game(rules, start=position)
    move = player.choose_move(game)
    assert move.is_jump and player.last.forced_plies == 1


# --- the index --------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_index_is_a_bijection_onto_each_layer():
    for captured, samples in ((0, None), (1, 4000), (4, 4000)):
        n = layer_size(captured)
        indices = range(n) if samples is None else random.Random(captured).sample(range(n), samples)
        for index in indices:
            tigers, empty = decode_index(index, captured + 1)
            assert bin(tigers).count("1") == 4 and bin(empty).count("1") == captured + 1
            assert tigers & empty == 0
            assert position_index(tigers, empty, captured + 1) == index
    assert layer_size(0) == 12650 * 21 and layer_size(4) == 12650 * 20349


def test_codes_say_win_or_loss_by_their_parity():
    assert [describe(c) for c in (0, 1, 2, 3)] == [
        "draw",
        "loss in 0 plies",
        "win in 1 ply",
        "loss in 2 plies",
    ]
    for outcome, plies in ((1, 7), (-1, 0), (-1, 12), (0, 0)):
        assert outcome_of(code_of(outcome, plies)) == (outcome, plies)
    with pytest.raises(ValueError):
        code_of(1, 4)  # a win is always an odd number of plies away


# --- the reference itself ---------------------------------------------------------------------


def test_the_reference_moves_are_the_plain_rules_moves():
    rng = random.Random(7)
    points = [(x, y) for y in range(5) for x in range(5)]
    for _ in range(200):
        captured = rng.randrange(4)
        chosen = rng.sample(points, 4 + 20 - captured)
        board = {p: ref.TIGER if i < 4 else ref.SHEEP for i, p in enumerate(chosen)}
        position = ref.ReferencePosition(board, 0, rng.random() < 0.5)
        expected = {reference.state_of(ref.apply(position, m)) for m in ref.legal_moves(position)}
        assert set(reference.children(reference.state_of(position), 5)) == expected


# --- the table against the reference ----------------------------------------------------------


@pytest.mark.slow
def test_one_capture_every_position_equals_minimax_to_the_end(tables):
    """Every position of the game won by one capture (its only layer), both sides to move."""
    horizon = longest(tables[1]) + 2  # beyond every forced result: what stays open is a draw
    solver = reference.Solver(1)
    points = [(p % 5, p // 5) for p in range(POINTS)]
    for side in (False, True):
        codes = open_codes(layer_path(tables[1], 0, side))
        for index in range(layer_size(0)):
            tigers, empty = decode_index(index, 1)
            state = (
                frozenset(points[p] for p in range(POINTS) if tigers >> p & 1),
                frozenset(points[p] for p in range(POINTS) if empty >> p & 1),
                0,
                side,
            )
            assert (solver.solve(state, horizon) or (0, 0)) == outcome_of(int(codes[index])), str(
                position_at(index, 0, side, 1)
            )


@pytest.mark.slow
@pytest.mark.parametrize("captured", [0, 1])
def test_two_captures_a_random_sample_equals_minimax(tables, captured):
    """Both layers of the game won by two captures, on a random sample, both sides to move:
    every result within the horizon exactly, and nothing else decided within it."""
    horizon = 9
    table = load_tablebase(tables[2])
    solver = reference.Solver(2)
    rng = random.Random(captured)
    seen = set()
    for _ in range(60):
        position = position_at(rng.randrange(layer_size(captured)), captured, rng.random() < 0.5, 2)
        outcome, plies = table.value(position)
        expected = (outcome, plies) if outcome and plies <= horizon else None
        assert solver.solve(state_of(position), horizon) == expected, str(position)
        seen.add(outcome)
    assert seen == {-1, 0, 1}


def test_symmetric_positions_have_the_same_code(tables):
    table = load_tablebase(tables[2])
    rng = random.Random(3)
    for _ in range(300):
        position = position_at(rng.randrange(layer_size(1)), 1, rng.random() < 0.5, 2)
        codes = {table.code(position.transformed(s)) for s in range(8)}
        assert len(codes) == 1


@pytest.mark.slow
def test_counts_up_to_symmetry_are_the_orbits(tables):
    """Layer 0 by brute force: the distinct sets of 8 images, against the header's count."""
    orbits = set()
    for tigers in combinations(range(POINTS), 4):
        t = sum(1 << p for p in tigers)
        for hole in range(POINTS):
            if t >> hole & 1:
                continue
            orbits.add(min((transform_mask(t, s), transform_mask(1 << hole, s)) for s in range(8)))
    header = read_header(layer_path(tables[1], 0, True))
    assert header.counts.sym_positions == len(orbits)
    assert header.counts.wins + header.counts.draws + header.counts.losses == layer_size(0)


# --- verify, resume, files --------------------------------------------------------------------


@pytest.mark.slow
def test_verify_passes_and_catches_a_flipped_entry(tables, tmp_path):
    assert verify(tables[2], log=lambda line: None).ok
    # A copy with one entry changed and a checksum that matches: only the consistency pass can
    # tell.
    for c in (0, 1):
        for side in (False, True):
            src = layer_path(tables[2], c, side)
            (tmp_path / src.name).write_bytes(src.read_bytes())
    path = layer_path(tmp_path, 1, True)
    header = read_header(path)
    codes = np.array(open_codes(path))
    index = int(np.flatnonzero(codes == 2)[0])  # a win in 1 ply ...
    codes[index] = 4  # ... said to be a win in 3
    write_layer(tmp_path, 2, 1, True, codes, header.counts)
    report = verify(tmp_path, log=lambda line: None)
    assert not report.ok and report.wrong_positions >= 1
    assert (1, True, index, 4, 2) in {
        (e.captured, e.tiger_to_move, e.index, e.stored, e.expected) for e in report.examples
    }
    # One flipped bit in the file: the checksum.
    data = bytearray(path.read_bytes())
    data[HEADER_SIZE + index * codes.itemsize] ^= 1
    path.write_bytes(bytes(data))
    assert not checksum_ok(path)
    assert path.name in verify(tmp_path, log=lambda line: None).bad_checksums


def test_an_interrupted_build_resumes_at_its_layer(tables, tmp_path):
    for side in (False, True):  # layer 1 finished; layer 0 never written
        src = layer_path(tables[2], 1, side)
        (tmp_path / src.name).write_bytes(src.read_bytes())
    lines = []
    results = build(tmp_path, 2, progress=False, log=lines.append)
    assert lines[0] == "layer 1 captured: already built" and "solved" in lines[1]
    for side in (False, True):
        assert (
            layer_path(tmp_path, 0, side).read_bytes()
            == layer_path(tables[2], 0, side).read_bytes()
        )
    assert [(r.captured, r.tiger_to_move) for r in results] == [
        (0, False),
        (0, True),
        (1, False),
        (1, True),
    ]
    with pytest.raises(ValueError, match="won by 2 captures"):
        build(tmp_path, 3, **QUIET)


@pytest.mark.slow
def test_a_build_refuses_to_resume_on_a_damaged_layer(tables, tmp_path):
    for side in (False, True):  # layer 1 finished, then damaged; layer 0 never written
        src = layer_path(tables[2], 1, side)
        (tmp_path / src.name).write_bytes(src.read_bytes())
    path = layer_path(tmp_path, 1, False)  # the file layer 0 is built on
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(TablebaseError) as caught:
        build(tmp_path, 2, **QUIET)
    message = str(caught.value)
    assert str(path) in message and "checksum does not match" in message
    assert "delete it and run `samuel tablebase build` again to rebuild layer 1" in message
    assert not layer_path(tmp_path, 0, False).exists()  # nothing was built on it
    run = samuel("tablebase", "build", "--captures", "2", "--out", str(tmp_path), "--no-progress")
    assert run.returncode == 2 and "checksum does not match" in run.stderr
    assert "Traceback" not in run.stderr
    path.unlink()  # as the message says: the layer is solved again, and the build goes on
    build(tmp_path, 2, **QUIET)
    for c in (0, 1):
        for side in (False, True):
            assert (
                layer_path(tmp_path, c, side).read_bytes()
                == layer_path(tables[2], c, side).read_bytes()
            )


# --- probing: people, the search, players -----------------------------------------------------


def samuel(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "samuel.cli", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_probe_output_round_trips(tables):
    table = load_tablebase(tables[2])
    text = "SSSSS/SS1SS/TSSSS/STSSS/1TSST T 0"
    run = samuel("tablebase", "probe", text, "--dir", str(tables[2]))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    position = table.rules.parse_position(lines[0].split(maxsplit=1)[1])
    assert str(position) == text
    assert lines[1].split(maxsplit=1)[1] == describe(table.code(position))
    for line in lines[2:]:  # each move's value is its child's, seen from the mover's side
        move_text, value = line.split(maxsplit=1)
        outcome, plies = table.value(position.play(Move.parse(move_text)))
        assert value == describe(0 if outcome == 0 else plies + 2)
    assert len(lines) - 2 == len(position.legal_moves())
    document = json.loads(
        samuel("tablebase", "probe", text, "--dir", str(tables[2]), "--json").stdout
    )
    assert [(m["move"], m["outcome"], m["plies"]) for m in document["moves"]] == [
        (str(m), o, p) for m, o, p in table.move_values(position)
    ]


def test_probe_takes_start_and_says_why_the_table_does_not_hold_it(tables):
    run = samuel("tablebase", "probe", "start", "--dir", str(tables[2]))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "T3T/5/5/5/T3T S 20: the tablebase holds positions with the hand empty" in run.stderr


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 2])
def test_the_search_with_the_table_scores_exactly_and_plays_perfectly(tables, k):
    table = load_tablebase(tables[k])
    rules = table.rules
    player = make_player(f"classic:depth=2,tablebase={tables[k]}", rules)
    perfect = make_player(f"perfect:tablebase={tables[k]}", rules, seed=5)
    rng = random.Random(k)
    for _ in range(40):
        captured = rng.randrange(k)
        position = position_at(rng.randrange(layer_size(captured)), captured, rng.random() < 0.5, k)
        if position.decided_outcome() is not None:
            continue
        outcome, plies = table.value(position)
        best = max(table.move_values(position), key=lambda m: (m[1], -m[2] if m[1] > 0 else m[2]))
        for searcher in (player, perfect):
            move = searcher.choose_move(Game(rules, start=position))
            result = searcher.last
            assert result.score == pytest.approx(0.0 if outcome == 0 else outcome * (1000 - plies))
            chosen = next(m for m in table.move_values(position) if m[0] == move)
            assert chosen[1:] == best[1:]  # the value kept, the fastest win, the longest loss


def test_a_table_for_other_rules_is_refused(tables):
    with pytest.raises(PlayerSpecError, match="won by 2 captures"):
        make_player(f"classic:tablebase={tables[2]}", TigersAndSheep())
    with pytest.raises(PlayerSpecError, match="no tablebase directory"):
        make_player("perfect:tablebase=/nonexistent", TigersAndSheep())


# --- scoring players --------------------------------------------------------------------------


def test_the_perfect_player_never_blunders_and_a_shallow_one_sometimes_does(tables):
    table = load_tablebase(tables[2])
    # Two sheep left to place, none captured: the movement phase is near.
    start = table.rules.parse_position("TSSST/SSSSS/SSSSS/SSS2/TS1ST S 2")
    perfect = score_player(
        f"perfect:tablebase={tables[2]},depth=2",
        table,
        positions=12,
        start=start,
        opening_plies=(0, 2),
    )
    assert len(perfect.moves) == 12 and perfect.blunders == 0
    assert all(m.position.sheep_in_hand == 0 for m in perfect.moves)
    random_player = score_player("random", table, positions=40, start=start)
    assert random_player.blunders > 0
    low, high = random_player.blunder_range
    assert low < random_player.blunder_rate < high
    again = score_player("random", table, positions=40, start=start)
    assert again.moves == random_player.moves  # seeded


def test_wilson_range():
    low, high = wilson_range(0, 400)
    assert low == pytest.approx(0.0, abs=1e-12) and 0.009 < high < 0.0096
    low, high = wilson_range(200, 400)
    assert low == pytest.approx(1 - high)


def test_the_build_bar_counts_plies_and_estimates_no_time(tmp_path, monkeypatch):
    """Each pass of the solver is a ply of distance and costs about the same, but their number
    is known only at the end: the bar has no total (so no remaining-time estimate that jumps) and
    shows the share of positions decided beside the plies counted."""
    from samuel import progress
    from samuel.tablebase import build as building

    bars = []

    class Recorder(progress.NoProgressBar):
        def __init__(self, total):
            super().__init__(total)
            self.postfixes = []
            bars.append(self)

        def set_postfix_str(self, text, refresh=True):
            self.postfixes.append(text)

    monkeypatch.setattr(building, "progress_bar", lambda total, *a, **k: Recorder(total))
    building.build(tmp_path / "k1", 1, progress=True, log=lambda line: None)
    [bar] = bars  # one layer: none captured
    assert bar.total is None and bar.n == len(bar.postfixes) > 1
    shares = [float(text.split("%")[0]) for text in bar.postfixes]
    assert shares == sorted(shares) and shares[-1] < 100  # the draws are never decided
