"""The pipeline's thread-parallel work as a backend's units: self-play, expert games and
rollout labelling (by random plies, or over dice for a game with dice).

A stage hands its work to :func:`selfplay_positions_on`, :func:`expert_positions_on` and
:func:`rollout_labels_on` with the run's backend (:mod:`samuel.backends`, ``samuel pipeline run
--backend``). On the local backend they call :func:`.sources.selfplay_positions`,
:func:`.sources.expert_positions` and :func:`.rollouts.rollout_labels`, numba's threads doing the
work as they always did. On a cluster the games or positions are cut with
``backend.parts``; the network and the positions go to the object store once, and each unit is
a range of global game or position numbers. A game's seed comes from its number and a label's
from its position's own seed, never from the part, so the batch and the labels are the same
however the work was cut; the parts come back in order and are joined.

This module holds no compiled code (so that changing it recompiles nothing).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.train.dice_rollouts import DiceRolloutConfig, DiceRolloutLabels, dice_rollout_labels
from samuel.train.rollouts import RolloutConfig, RolloutLabels, check_seeds, rollout_labels
from samuel.train.selfplay import play_selfplay_parts

from . import sources


def _local(backend: Backend | None) -> bool:
    return backend is None or isinstance(backend, LocalBackend)


def selfplay_positions_on(
    backend: Backend | None,
    game: int,
    evaluator: int,
    params: np.ndarray,
    games: int,
    depth: int,
    seed: int,
    random_plies: int = 4,
    epsilon: float = 0.05,
    ply_cap: int = 200,
) -> sources.PositionBatch:
    """:func:`.sources.selfplay_positions`, its games played by ``backend``: the same batch."""
    if _local(backend):
        return sources.selfplay_positions(
            game, evaluator, params, games, depth, seed, random_plies, epsilon, ply_cap
        )
    settings, seeds = sources.selfplay_settings(
        game, evaluator, params, games, depth, seed, random_plies, epsilon, ply_cap
    )
    return sources.selfplay_batch(play_selfplay_parts(backend, settings, seeds))


def _expert_unit(shared: tuple, numbers: range) -> sources.ExpertGames:
    """A backend's unit: expert games ``numbers`` of the run's, played by
    :func:`.sources.play_experts` as a whole run plays them, the experts' tables read from their
    folders rather than sent."""
    game, experts, games, seed, random_plies, ply_cap = shared
    players = sources.ExpertPlayers(
        game,
        tuple(
            sources.ExpertPlayer(
                name, evaluator, params, depth, sources._load_table(directory, game)
            )
            for name, evaluator, params, depth, directory in experts
        ),
    )
    return sources.play_experts(game, players, games, seed, random_plies, ply_cap, numbers)


def expert_positions_on(
    backend: Backend | None,
    game: int,
    players: sources.ExpertPlayers,
    games: int,
    seed: int,
    random_plies: int = 4,
    ply_cap: int = 200,
) -> sources.PositionBatch:
    """:func:`.sources.expert_positions`, its games played by ``backend``: the same batch. On a
    cluster every node reads a ``perfect`` expert's table at the same full path."""
    if _local(backend):
        return sources.expert_positions(game, players, games, seed, random_plies, ply_cap)
    if not isinstance(players, sources.ExpertPlayers):
        raise ValueError(f"the experts are an ExpertPlayers, not {type(players).__name__}")
    if int(players.game) != int(game):
        raise ValueError(f"the experts play game {players.game}, not game {game}")
    sources._check_play(1, random_plies, ply_cap, games)
    experts = tuple(
        (
            player.name,
            player.evaluator,
            player.params,
            player.depth,
            None if player.tablebase is None else str(Path(player.tablebase.directory).resolve()),
        )
        for player in players.players
    )
    shared = (int(game), experts, games, seed, random_plies, ply_cap)
    parts = backend.run(_expert_unit, backend.parts(games), shared)
    played = sources.ExpertGames(
        **{
            name: np.concatenate([getattr(part, name) for part in parts])
            for name in ("positions", "move_counts", "plies", "results", "pairs")
        }
    )
    return sources.decision_points(played, random_plies)


def _label_unit(shared: tuple, part: range) -> RolloutLabels:
    """A backend's unit: the labels of positions ``part`` of the shared batch, the table read
    from its folder (mapped once per worker process) rather than sent."""
    game, evaluator, params, states, seeds, config, directory = shared
    table = None
    if directory is not None:
        table = sources._load_table(directory, game)
    return rollout_labels(
        game,
        evaluator,
        params,
        np.ascontiguousarray(states[part.start : part.stop]),
        np.ascontiguousarray(seeds[part.start : part.stop]),
        config,
        table,
    )


def join_labels(parts: list[RolloutLabels]) -> RolloutLabels:
    """The labels of consecutive batches, as one batch's."""
    if len(parts) == 1:
        return parts[0]
    arrays = ("values", "stderr", "rollouts", "truncated", "exact", "tabled", "plies_left")
    return RolloutLabels(
        **{name: np.concatenate([getattr(part, name) for part in parts]) for name in arrays},
        plies=sum(part.plies for part in parts),
        games=sum(part.games for part in parts),
    )


def rollout_labels_on(
    backend: Backend | None,
    game: int,
    evaluator: int,
    params: np.ndarray,
    states: np.ndarray,
    seeds: np.ndarray,
    config: RolloutConfig,
    table=None,
) -> RolloutLabels:
    """:func:`.rollouts.rollout_labels`, its positions labelled by ``backend``: the same labels,
    since each position's come from its own seed. On a cluster every node reads ``table`` at
    the same full path."""
    if _local(backend):
        return rollout_labels(game, evaluator, params, states, seeds, config, table)
    if not isinstance(config, RolloutConfig):
        raise ValueError(f"config must be a RolloutConfig, not {type(config)}")
    directory = None if table is None else str(Path(table.directory).resolve())
    count = len(states)
    check_seeds(seeds, count)  # each unit checks its part; the whole must match, too
    if count == 0:  # nothing to cut: checked and labelled as the local backend would
        return rollout_labels(game, evaluator, params, states, seeds, config, table)
    shared = (int(game), int(evaluator), params, states, seeds, config, directory)
    return join_labels(backend.run(_label_unit, backend.parts(count), shared))


def _dice_label_unit(shared: tuple, part: range) -> DiceRolloutLabels:
    """A backend's unit: the dice labels of positions ``part`` of the shared batch."""
    game, evaluator, params, states, seeds, config = shared
    return dice_rollout_labels(
        game,
        evaluator,
        params,
        np.ascontiguousarray(states[part.start : part.stop]),
        np.ascontiguousarray(seeds[part.start : part.stop]),
        config,
    )


def join_dice_labels(parts: list[DiceRolloutLabels]) -> DiceRolloutLabels:
    """The dice labels of consecutive batches, as one batch's."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    arrays = ("outcomes", "equity", "stderr", "rollouts", "truncated", "capped", "rolls")
    return DiceRolloutLabels(
        **{name: np.concatenate([getattr(part, name) for part in parts]) for name in arrays},
        ply=first.ply,
        truncate_plies=first.truncate_plies,
        variance_reduction=first.variance_reduction,
        games=sum(part.games for part in parts),
        plies=sum(part.plies for part in parts),
    )


def dice_rollout_labels_on(
    backend: Backend | None,
    game: int,
    evaluator: int,
    params: np.ndarray,
    states: np.ndarray,
    seeds: np.ndarray,
    config: DiceRolloutConfig,
) -> DiceRolloutLabels:
    """:func:`samuel.train.dice_rollouts.dice_rollout_labels`, its positions labelled by
    ``backend``: the same labels, since each position's dice come from its own seed."""
    if _local(backend) or len(states) == 0:
        return dice_rollout_labels(game, evaluator, params, states, seeds, config)
    check_seeds(seeds, len(states))
    shared = (int(game), int(evaluator), params, states, seeds, config)
    return join_dice_labels(backend.run(_dice_label_unit, backend.parts(len(states)), shared))
