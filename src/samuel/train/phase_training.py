"""Training a network per phase (``samuel train --phases``) with the loop that trains one
network: each phase's network is a view of the packed array (:mod:`samuel.nn.phased`), has its
own optimiser, and learns from the positions of its own phase alone. A run of one network is the
case of one phase: the same calls, in the same order, with the same draws from the generator, so
its networks are bit for bit what they were before phases existed.

Self-play and the TD(lambda) targets need nothing of this: the search values every position by
its own phase's network (:func:`samuel.evaluation.kernels.phased_value`), so a game's scores, and
the outcome chances its targets are built from, switch networks where the game changes phase.
"""

from __future__ import annotations

import numpy as np

from samuel.evaluation.phases import by_phase
from samuel.nn.phased import is_phased, phase_networks

from .buffer import Samples
from .trainer import Adam, mean_loss, train_epoch


def networks_of(params: np.ndarray) -> list[np.ndarray]:
    """The networks ``params`` trains: each phase's (views of the packed array), or itself."""
    return phase_networks(params) if is_phased(params) else [params]


def optimisers(params: np.ndarray) -> list[Adam]:
    """An Adam optimiser for each of the networks ``params`` trains."""
    return [Adam(len(network)) for network in networks_of(params)]


def split(game: int, params: np.ndarray, samples: Samples) -> list[Samples]:
    """The samples each of ``params``'s networks learns from: those of its phase (all of them,
    for one network)."""
    if not is_phased(params):
        return [samples]
    return [samples.take(chosen) for chosen in by_phase(game, samples.states)]


def train_epoch_phases(
    game: int,
    params: np.ndarray,
    adams: list[Adam],
    samples: Samples,
    batch_size: int,
    learning_rate: float,
    rng: np.random.Generator,
    moves_left_weight: float,
    heads_only: bool,
) -> None:
    """One epoch of each network on its own samples, phase 0's first (:func:`train_epoch`)."""
    for network, adam, own in zip(
        networks_of(params), adams, split(game, params, samples), strict=True
    ):
        train_epoch(
            game,
            network,
            adam,
            own,
            batch_size,
            learning_rate,
            rng,
            moves_left_weight,
            heads_only,
        )


def mean_loss_phases(game: int, params: np.ndarray, samples: Samples) -> float:
    """The mean loss over the samples, each valued by its phase's network (NaN if none)."""
    if not is_phased(params):
        return mean_loss(game, params, samples)
    if len(samples) == 0:
        return float("nan")
    total = 0.0
    for network, own in zip(networks_of(params), split(game, params, samples), strict=True):
        if len(own):
            total += mean_loss(game, network, own) * len(own)
    return total / len(samples)
