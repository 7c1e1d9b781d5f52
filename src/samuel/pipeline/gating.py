"""Stage 4: the gate. A candidate plays the champion (paired openings, an SPRT on the pairs) and
the fixed anchor; it is promoted only if the SPRT accepts it as better and it scores at least
``anchor_floor`` against the anchor, or, where the champion itself scored less there, not
significantly less than the champion (the candidate's 95% range reaches the champion's score):
the seed's guard against a line of models that beat each other and drift away from good play,
which a strong anchor such as gnubg, beating every model, would otherwise turn into a wall.
Both matches are :func:`samuel.match.play_match`, so the
statistics are those of every other match (docs/matches.md).

In a game with dice the pairs are duplicate dice (a pair's two games roll the same dice, the
players' seats swapped) and no opening plies are played at random: the dice vary the games. The
SPRT then tests points a game (``points0`` against ``points1``:
:class:`samuel.match.sprt.PointsSprt`), and every match's points per game (a gammon 2, a
backgammon 3) are kept with its statistics. Backgammon may gate with the cube on
(``gate_cube``: the test counts a pair beyond 12 points a game as 12) and in matches to N points
(``gate_match``: each "game" a match, won or lost whole, the Elo SPRT on the matches won)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection

from samuel.backends import Backend, LocalBackend
from samuel.match.head_to_head import MatchResult, play_match
from samuel.match.sprt import CUBE_MOST_POINTS, MOST_POINTS, PointsSprt, Sprt
from samuel.players import PlayerSpec
from samuel.seeds import derive_seed

from .config import PipelineConfig
from .dice import has_dice
from .schema import Tournament, utc_now

CHAMPION_STREAM, ANCHOR_STREAM, CHAMPION_ANCHOR_STREAM = 0x6A7E1, 0x6A7E2, 0x6A7E3


def network_spec(path: Path, depth: int) -> str:
    """The player spec of a network file searching at ``depth`` (quoted as a spec needs)."""
    return str(PlayerSpec(str(path), (("depth", str(depth)),)))


@dataclass(frozen=True)
class GateResult:
    vs_champion: MatchResult
    vs_anchor: MatchResult
    champion_vs_anchor: MatchResult | None  # the champion's own anchor score, when unknown
    promote: bool
    reason: str


def summary(result: MatchResult, points: bool = False) -> dict:
    """A match's figures, as the store keeps them (``points``: its points per game too)."""
    s = result.statistics
    summary = {
        "first": result.first,
        "second": result.second,
        "games": result.games,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "score": s.score,
        "score_low": s.score_low,
        "score_high": s.score_high,
        "elo": s.elo,
        "elo_error": s.elo_error,
        "pentanomial": list(s.pentanomial.counts),
        "seconds": result.seconds,
    }
    if result.sprt is not None:
        summary["llr"] = result.sprt.llr
        summary["sprt"] = result.sprt.decision or "undecided"
    if points and result.pairs:
        p = result.points
        summary["points_per_game"] = p.per_game
        summary["points_low"] = p.low
        summary["points_high"] = p.high
    # JSON has no infinity (an Elo error of a match all won or all lost): PostgreSQL refuses it
    return {
        key: None if isinstance(value, float) and not math.isfinite(value) else value
        for key, value in summary.items()
    }


def _sprt(config: PipelineConfig, dice: bool) -> Sprt | PointsSprt:
    """The gate's test: points a game for a game with dice played in single games (the cube's
    points capped in the test), the Elo test on wins otherwise (matches to N points too)."""
    if dice and not config.gate_match:
        most = CUBE_MOST_POINTS if config.gate_cube else MOST_POINTS
        return PointsSprt(config.points0, config.points1, most=most)
    return Sprt(elo0=config.elo0, elo1=config.elo1)


def gate(
    game: str,
    candidate: Path,
    champion: Path,
    config: PipelineConfig,
    seed: int,
    champion_anchor_known: bool,
    progress: bool = False,
    backend: Backend | None = None,
    champion_anchor: float | None = None,
) -> GateResult:
    """Play the gate's matches and decide. Their pairs are played by ``backend``
    (:mod:`samuel.backends`; by default this machine's ``config.workers`` processes): the same
    matches on any. ``champion_anchor``: the champion's own score against the anchor, where an
    earlier gate measured it (unknown, ``champion_anchor_known`` False, it is played here)."""
    workers = config.workers or os.cpu_count() or 1
    if backend is not None and not isinstance(backend, LocalBackend):
        # A cluster's workers may run in another folder: they read the networks by full path.
        candidate, champion = Path(candidate).resolve(), Path(champion).resolve()
    candidate_spec = network_spec(candidate, config.gate_depth)
    champion_spec = network_spec(champion, config.gate_depth)
    dice = has_dice(game)
    common = dict(
        cube=config.gate_cube or bool(config.gate_match),
        match_length=config.gate_match,
        openings=0 if dice else config.opening_plies,
        depth=config.gate_depth,
        workers=workers,
        game=game,
        progress=progress,
        backend=backend,
    )
    vs_champion = play_match(
        candidate_spec,
        champion_spec,
        config.gate_games,
        seed=derive_seed(seed, CHAMPION_STREAM),
        sprt=_sprt(config, dice),
        **common,
    )
    vs_anchor = play_match(
        candidate_spec,
        config.anchor,
        config.anchor_games,
        seed=derive_seed(seed, ANCHOR_STREAM),
        **common,
    )
    champion_vs_anchor = None
    if not champion_anchor_known:
        champion_vs_anchor = play_match(
            champion_spec,
            config.anchor,
            config.anchor_games,
            seed=derive_seed(seed, CHAMPION_ANCHOR_STREAM),
            **common,
        )
    decision = vs_champion.sprt.decision if vs_champion.sprt else None
    anchor_score = vs_anchor.statistics.score
    if champion_vs_anchor is not None:
        champion_anchor = champion_vs_anchor.statistics.score
    # The floor; or, where the champion itself scored less, no significant loss against what it
    # scored (the candidate's 95% range reaches it): a strong anchor that every model loses to
    # still stops a line of models that drift away from good play, without its noise (about 4
    # points in 100 games) undoing the gate's verdict.
    floor = config.anchor_floor
    if champion_anchor is not None and champion_anchor < floor:
        floor = champion_anchor
        anchor_score = vs_anchor.statistics.score_high
    played = "matches" if config.gate_match else "games"
    if config.gate_match:
        against = f"{100 * vs_champion.score:.1f}% of {config.gate_match}-point matches"
    elif dice:
        against = f"{vs_champion.points.per_game:+.3f} points a game"
    else:
        against = f"score {100 * vs_champion.score:.1f}%"
    if decision != "H1":
        reason = (
            f"the SPRT {'rejected' if decision == 'H0' else 'did not accept'} it against the "
            f"champion ({against} in {vs_champion.games} {played}, LLR {vs_champion.sprt.llr:.2f})"
        )
        promote = False
    elif anchor_score < floor:
        reason = (
            f"it beat the champion, but scored {100 * vs_anchor.statistics.score:.1f}% against "
            f"the anchor {config.anchor} (95% range up to "
            f"{100 * vs_anchor.statistics.score_high:.1f}%; the floor is {100 * floor:.1f}%: "
            "--anchor-floor, or the champion's own score if lower, which the range must reach)"
        )
        promote = False
    else:
        reason = (
            f"the SPRT accepted it against the champion ({against} in {vs_champion.games} "
            f"{played}, LLR {vs_champion.sprt.llr:.2f}) and it scored "
            f"{100 * vs_anchor.statistics.score:.1f}% against {config.anchor}"
        )
        promote = True
    return GateResult(vs_champion, vs_anchor, champion_vs_anchor, promote, reason)


def record_tournament(
    connection: Connection,
    game: str,
    candidate_id: int,
    champion_id: int,
    config: PipelineConfig,
    result: GateResult,
    run_id: int | None,
    **extra,
) -> int:
    """Store a gate's tournament whole (``extra``: more entries for its report); its id."""
    vs = result.vs_champion
    anchor = result.vs_anchor.statistics
    dice = has_dice(game)
    report = {
        "vs_champion": summary(vs, dice),
        "vs_anchor": summary(result.vs_anchor, dice),
        "reason": result.reason,
        **extra,
    }
    if result.champion_vs_anchor is not None:
        report["champion_vs_anchor"] = summary(result.champion_vs_anchor, dice)
    return connection.execute(
        Tournament.__table__.insert().returning(Tournament.id),
        {
            "game": game,
            "candidate_id": candidate_id,
            "champion_id": champion_id,
            "games": vs.games,
            "score": vs.score,
            "pentanomial": {"counts": list(vs.statistics.pentanomial.counts)},
            "llr": vs.sprt.llr,
            "lower": vs.sprt.test.lower,
            "upper": vs.sprt.test.upper,
            "elo0": config.elo0,
            "elo1": config.elo1,
            "points0": config.points0 if dice and not config.gate_match else None,
            "points1": config.points1 if dice and not config.gate_match else None,
            "sprt": vs.sprt.decision or "undecided",
            "anchor": config.anchor,
            "anchor_games": result.vs_anchor.games,
            "anchor_score": anchor.score,
            "anchor_low": anchor.score_low,
            "anchor_high": anchor.score_high,
            "decision": "promote" if result.promote else "reject",
            "report": report,
            "run_id": run_id,
            "created_at": utc_now(),
        },
    ).scalar_one()
