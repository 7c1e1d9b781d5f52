"""A champion per phase: which of a trained network per phase's phases replace the champion's.

A candidate trained as a network per phase (long nardy) is not taken or left whole. For each
phase whose network training changed, a *hybrid* plays the champion: the champion with that one
phase's network replaced by the candidate's. Where the hybrid and the champion differ only in
that phase, so do their games, and the match (duplicate dice, the gate's SPRT on points a game)
measures that phase's network alone. The candidate the gate then plays is the champion with
every phase that passed replaced (each phase keeps its best network: one champion per phase),
and the model registry records, for each phase, the model its network came from. Where no phase
passes alone, the gate plays the candidate whole, as for a single network.

Matches are :func:`samuel.match.head_to_head.play_match` with the gate's settings, each seeded
from the cycle's training seed and the phase's number; the hybrids' files are written to the
pipeline folder's ``gating`` folder for the matches' workers and removed after.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samuel.backends import Backend, LocalBackend
from samuel.evaluation.networks import save_phased_network
from samuel.match.head_to_head import play_match
from samuel.match.sprt import PointsSprt
from samuel.nn.phased import pack_phases, phase_networks
from samuel.seeds import derive_seed

from .config import PipelineConfig
from .gating import network_spec, summary

PHASE_STREAM = 0x9A5E  # a phase's match seed


@dataclass(frozen=True)
class PhaseSelection:
    """The network per phase the gate plays, and what each phase's match said."""

    params: np.ndarray  # the champion with every accepted phase's network the candidate's
    taken: tuple[str, ...]  # the phases that passed (none: the candidate is played whole)
    matches: dict[str, dict]  # per phase trained: its match's summary (gating.summary)

    def report(self) -> dict:
        return {"taken": list(self.taken), "matches": self.matches}


def select_phases(
    game: str,
    champion: np.ndarray,
    champion_path: Path,
    candidate: np.ndarray,
    names: tuple[str, ...],
    folder: Path,
    tag: str,
    config: PipelineConfig,
    seed: int,
    backend: Backend | None = None,
    progress: bool = False,
) -> PhaseSelection:
    """Play each changed phase's hybrid against the champion (``champion``, whose file is
    ``champion_path``: the module docstring) and return the selection; ``tag`` names the
    hybrids' files."""
    from samuel.games import get_game

    ours, theirs = phase_networks(champion), phase_networks(candidate)
    if len(ours) != len(theirs) or len(ours) != len(names):
        raise ValueError(f"the champion and the candidate have {len(names)} phases each")
    number = get_game(game).number
    gating = folder / "gating"
    gating.mkdir(exist_ok=True)
    paths: dict[str, Path] = {}
    workers = config.workers or os.cpu_count() or 1
    taken, matches = [], {}
    try:
        for phase, name in enumerate(names):
            if np.array_equal(ours[phase], theirs[phase]):
                continue  # no position of the phase to learn from: nothing to test
            hybrid = pack_phases([theirs[p] if p == phase else ours[p] for p in range(len(ours))])
            paths[name] = gating / f"{tag}-{name}.bin"
            save_phased_network(hybrid, paths[name], number)
            first, second = paths[name], Path(champion_path)
            if backend is not None and not isinstance(backend, LocalBackend):
                first, second = first.resolve(), second.resolve()
            match = play_match(
                network_spec(first, config.gate_depth),
                network_spec(second, config.gate_depth),
                config.gate_games,
                seed=derive_seed(seed, PHASE_STREAM, phase),
                openings=0,
                depth=config.gate_depth,
                workers=workers,
                game=game,
                progress=progress,
                backend=backend,
                sprt=PointsSprt(config.points0, config.points1),
            )
            matches[name] = summary(match, points=True)
            if match.sprt is not None and match.sprt.decision == "H1":
                taken.append(name)
    finally:
        for path in paths.values():
            path.unlink(missing_ok=True)
        if not any(gating.iterdir()):
            gating.rmdir()
    if not taken:  # no phase alone beat the champion's: the gate tests the candidate whole
        return PhaseSelection(candidate, (), matches)
    chosen = [theirs[p] if names[p] in taken else ours[p] for p in range(len(ours))]
    return PhaseSelection(pack_phases(chosen), tuple(taken), matches)
