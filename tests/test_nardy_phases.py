"""Long nardy's phases and a network per phase: the phase of a position (against the rule
written out here, pair by pair of checkers), the version 6 weights file and its errors, the
evaluator that values each position by its own phase's network, and ``samuel train --phases``."""

from __future__ import annotations

import numpy as np
import pytest

from samuel.errors import CommandError
from samuel.evaluation.evaluators import check_params
from samuel.evaluation.networks import (
    check_phased,
    load_network,
    load_network_or_phases,
    random_network,
    random_phased_network,
    save_network,
    save_phased_network,
)
from samuel.evaluation.outcomes import outcome_predictions
from samuel.evaluation.phases import position_phases
from samuel.games import get_game
from samuel.games import kernels as games
from samuel.games.nardy.board import PHASES
from samuel.games.nardy.rules import RULES, Position
from samuel.nn.phased import OFFSETS, pack_phases, phase_networks
from samuel.nn.weights import WeightsFileError, read_weights, save_phased_array
from samuel.train.config import TrainConfig
from samuel.train.loop import train
from samuel.train.rollouts import check_states, evaluate_positions
from tests.reference import nardy_rules as ref

NARDY = RULES.number


def side(points: dict[int, int]) -> tuple[int, ...]:
    counts = [0] * 24
    for point, count in points.items():
        counts[point - 1] = count
    return tuple(counts)


def phase_by_rule(white: tuple[int, ...], black: tuple[int, ...]) -> str:
    """The phase as the rule says it, checker by checker: the start while a side has a checker on
    its head (point 24); the race once no checker of either side has one of the other's still to
    pass on its way home; the middle between. A white checker on White's point p passes White's
    points below p; a black checker on Black's point q stands on White's point (q + 11) % 24 + 1."""
    if white[23] or black[23]:
        return "start"
    whites = [p for p in range(1, 25) if white[p - 1]]
    blacks = [q for q in range(1, 25) if black[q - 1]]
    for p in whites:
        for q in blacks:
            if (q + 11) % 24 + 1 < p or (p + 11) % 24 + 1 < q:  # one is on the other's way
                return "middle"
    return "race"


def phase_of(position: Position) -> str:
    states = RULES.encode(position)[None, :]
    return PHASES[int(position_phases(NARDY, states)[0])]


def game_positions(seeds: range) -> list[Position]:
    """The positions of seeded random games, finished ones left out."""
    positions = []
    for seed in seeds:
        for p in ref.random_game(seed, blocks=seed % 2 == 1):
            if ref.result(p) is None:
                positions.append(Position(p.white, p.black, p.to_move == "w"))
    return positions


def test_phases_of_built_positions() -> None:
    start = RULES.initial_position()
    assert phase_of(start) == "start"
    # no head left, and White's checkers on 13 have Black's (on White's 1) ahead of them
    assert phase_of(Position(side({13: 15}), side({13: 15}), True)) == "middle"
    # each side at home: no checker of either will meet one of the other's
    assert phase_of(Position(side({3: 15}), side({5: 15}), False)) == "race"
    # White on its 10 and Black on its 10 (White's 22): Black's way home is White's 21 to 13,
    # White's is 9 to 1, so they have passed each other, though neither is home
    assert phase_of(Position(side({10: 15}), side({10: 15}), True)) == "race"
    # one black checker still on White's way (Black's 14 is White's 2) keeps the contact
    assert phase_of(Position(side({10: 15}), side({10: 14, 14: 1}), True)) == "middle"
    # a single checker left on a head is still the start
    assert phase_of(Position(side({1: 14, 24: 1}), side({1: 15}), True)) == "start"


def test_phases_of_game_positions_follow_the_rule() -> None:
    positions = game_positions(range(12))
    states = np.array([RULES.encode(p) for p in positions])
    found = [PHASES[int(p)] for p in position_phases(NARDY, states)]
    expected = [phase_by_rule(p.white, p.black) for p in positions]
    assert found == expected
    assert set(found) == set(PHASES)  # every phase was met


def test_a_network_per_phase_round_trips_through_its_file(tmp_path) -> None:
    phased = random_phased_network(NARDY, 3)
    path = tmp_path / "phases.bin"
    save_phased_network(phased, path, NARDY)
    loaded = load_network_or_phases(path, NARDY)
    assert np.array_equal(loaded, phased)
    assert len(check_phased(loaded, NARDY)) == len(PHASES)
    nets = phase_networks(loaded)
    assert not np.array_equal(nets[0], nets[1])  # each phase drew its own weights
    with pytest.raises(WeightsFileError, match="one network per phase"):
        load_network(path, NARDY)
    single = tmp_path / "one.bin"
    save_network(random_network(NARDY, 3), single, NARDY)
    assert load_network_or_phases(single, NARDY).shape == random_network(NARDY, 3).shape


def test_broken_phase_files_are_refused_with_the_reason(tmp_path) -> None:
    path = tmp_path / "phases.bin"
    save_phased_network(random_phased_network(NARDY, 5), path, NARDY)
    data = path.read_bytes()
    cut = tmp_path / "cut.bin"
    cut.write_bytes(data[:-40])
    with pytest.raises(WeightsFileError, match="ends inside phase 2|take"):
        read_weights(cut)
    longer = tmp_path / "longer.bin"
    longer.write_bytes(data + b"\0" * 8)
    with pytest.raises(WeightsFileError, match="3 phase networks take"):
        read_weights(longer)
    many = tmp_path / "many.bin"
    many.write_bytes(data[:12] + (99).to_bytes(4, "little") + data[16:])
    with pytest.raises(WeightsFileError, match="99 phases"):
        read_weights(many)
    two = tmp_path / "two.bin"  # a file of two phases for a game of three
    nets = phase_networks(random_phased_network(NARDY, 5))
    save_phased_array(pack_phases(nets[:2]), two, NARDY)
    with pytest.raises(WeightsFileError, match="3 phases, not 2"):
        load_network_or_phases(two, NARDY)


def test_forged_offsets_never_reach_the_kernels() -> None:
    phased = random_phased_network(NARDY, 7)
    forged = phased.copy()
    forged[OFFSETS + 1] += 16  # phase 1's network is not there
    with pytest.raises(ValueError, match="not where the header says"):
        check_params(NARDY, games.EVALUATOR_PHASED, forged)
    with pytest.raises(ValueError, match="no network per phase evaluator"):
        check_params(get_game("backgammon").number, games.EVALUATOR_PHASED, phased)


def test_each_position_is_valued_by_its_own_phases_network() -> None:
    phased = random_phased_network(NARDY, 11)
    nets = phase_networks(phased)
    positions = game_positions(range(6))
    states = np.array([RULES.encode(p) for p in positions])
    phases = position_phases(NARDY, states)
    values = evaluate_positions(NARDY, games.EVALUATOR_PHASED, phased, states)
    for p, net in enumerate(nets):
        chosen = phases == p
        assert chosen.any()
        chances = outcome_predictions(NARDY, net, states[chosen])
        points = chances[:, :3].sum(axis=1) - chances[:, 3:].sum(axis=1)  # nested outputs
        assert np.allclose(values[chosen], np.clip(points, -1, 1), atol=1e-5)
        others = [other for other in range(len(nets)) if other != p]
        wrong = outcome_predictions(NARDY, nets[others[0]], states[chosen])
        wrong_points = wrong[:, :3].sum(axis=1) - wrong[:, 3:].sum(axis=1)
        assert not np.allclose(values[chosen], np.clip(wrong_points, -1, 1), atol=1e-5)
    # the outcome chances of a network per phase are read the same way, position by position
    routed = outcome_predictions(NARDY, phased, states)
    for p, net in enumerate(nets):
        assert np.allclose(
            routed[phases == p], outcome_predictions(NARDY, net, states[phases == p])
        )


def test_states_from_outside_are_checked_before_a_kernel_reads_them() -> None:
    good = RULES.encode(RULES.initial_position())
    assert check_states(NARDY, good[None, :]).shape == (1, 4)
    sixteen = good.copy()
    sixteen[0] |= 1  # a sixteenth white checker on point 1
    with pytest.raises(
        ValueError, match="row 1 .*White's checkers, borne off ones too, are not fifteen"
    ):
        check_states(NARDY, np.array([good, sixteen]))
    clash = RULES.encode(Position(side({13: 15}), side({13: 14}), True))
    clash[3] -= 1 << 32  # Black's fifteenth, borne off (slot 24) ...
    clash[2] |= 1  # ... is on its point 1 instead, White's point 13, where White's checkers stand
    with pytest.raises(ValueError, match="a point holds checkers of both sides"):
        check_states(NARDY, clash[None, :])
    rolled = good.copy()
    rolled[1] |= 77 << 37  # dice 7-7
    with pytest.raises(ValueError, match="nor a roll"):
        check_states(NARDY, rolled[None, :])


def _train(out_dir, **options) -> np.ndarray:
    config = TrainConfig(
        game="nardy",
        generations=options.pop("generations", 1),
        games=4,
        out_dir=str(out_dir),
        depth=1,
        random_plies=0,
        epsilon=0.0,
        ply_cap=1000,
        workers=1,
        **options,
    )
    return train(config, report=lambda row: None, log=lambda line: None)


def test_train_with_phases_learns_a_network_per_phase_the_same_twice(tmp_path) -> None:
    first = _train(tmp_path / "a", phases=True)
    again = _train(tmp_path / "b", phases=True)
    assert np.array_equal(first, again)
    saved = (tmp_path / "a" / "gen-001.bin").read_bytes()
    assert saved == (tmp_path / "b" / "gen-001.bin").read_bytes()
    assert saved[4:8] == (6).to_bytes(4, "little")  # version 6: a network per phase
    start = load_network_or_phases(tmp_path / "a" / "start.bin", NARDY)
    trained = load_network_or_phases(tmp_path / "a" / "gen-001.bin", NARDY)
    assert np.array_equal(trained, first)
    for before, after in zip(phase_networks(start), phase_networks(trained), strict=True):
        assert not np.array_equal(before, after)  # every phase's network learned
    resumed = _train(tmp_path / "a", phases=True)  # generation 2 from gen-001.bin
    assert (tmp_path / "a" / "gen-002.bin").exists() and not np.array_equal(resumed, first)
    with pytest.raises(CommandError, match="holds a network per phase: train it with --phases"):
        _train(tmp_path / "a")


def test_phases_start_from_one_network_and_refuse_what_they_cannot_train(tmp_path) -> None:
    one = tmp_path / "one.bin"
    network = random_network(NARDY, 2)
    save_network(network, one, NARDY)
    _train(tmp_path / "run", phases=True, epochs=0, start_from=str(one))  # no training step
    started = load_network_or_phases(tmp_path / "run" / "start.bin", NARDY)
    assert all(np.array_equal(net, network) for net in phase_networks(started))
    with pytest.raises(CommandError, match="tigers is played in one phase"):
        TrainConfig(game="tigers", phases=True)
    with pytest.raises(CommandError, match="leave out --moves-left"):
        TrainConfig(game="nardy", phases=True, moves_left=True)
