"""Match and tournament reports: the text a person reads and the JSON a program reads.

The text follows what users of cutechess-cli and fishtest expect (W/D/L, score, Elo +/- error,
LOS, draw ratio, pentanomial counts, SPRT bounds), split by side since the game is asymmetric,
and ends with one line saying what the match does or does not show.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

from samuel.files import write_atomically
from samuel.games import get_game
from samuel.match.head_to_head import MatchConfig, MatchResult
from samuel.match.stats import PAIR_POINTS
from samuel.match.tournament import TournamentConfig, TournamentResult

SCHEMA_VERSION = 1  # bump when the JSON's fields change meaning


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _elo(x: float) -> str:
    if not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    text = f"{x:+.1f}"
    return "+0.0" if text == "-0.0" else text  # an even match is no loss


def _error(x: float) -> str:
    return f"{x:.1f}" if math.isfinite(x) else "inf"


def _points(x: float) -> str:
    return f"{x:g}"


def _defaults(config: MatchConfig | TournamentConfig) -> str:
    """The default depth and time that specs without their own were played with, if any."""
    text = ""
    if config.depth is not None:
        text += f", default depth {config.depth}"
    if config.seconds is not None:
        text += f", default time {config.seconds:g} s per move"
    return text


def verdict(result: MatchResult) -> str:
    """One honest sentence on what the match shows."""
    if result.sprt is not None and result.sprt.decision is None:
        return f"the SPRT did not decide in {result.games} games; {_fixed_verdict(result)}"
    return _fixed_verdict(result)


def _fixed_verdict(result: MatchResult) -> str:
    s = result.statistics
    if result.sprt is not None and result.sprt.decision is not None:
        test = result.sprt.test
        accepted, rejected = (test.elo1, test.elo0)
        if result.sprt.decision == "H0":
            accepted, rejected = rejected, accepted
        return (
            f"the SPRT accepted {result.sprt.decision}: the results favour {result.first} being "
            f"{accepted:+g} Elo against {result.second} over its being {rejected:+g} Elo "
            f"(error rates alpha={test.alpha:g}, beta={test.beta:g})"
        )
    if s.score_error == 0:  # no spread: the normal range below would be a single point
        if s.score == 0.5:
            return (
                "every pair was split evenly: this match shows no difference (the players may "
                "play alike, or the openings be too few to tell them apart)"
            )
        better = result.first if s.score > 0.5 else result.second
        return (
            f"every pair scored the same, {2 * s.score:g} points of 2: {better} did better in "
            f"every pair (LOS {_percent(s.los)}), by more than this match can measure"
        )
    if s.score_low > 0.5:
        return (
            f"the 95% range is above 50%: {result.first} is stronger than {result.second} "
            f"(by {_elo(s.elo_low).lstrip('+')} to {_elo(s.elo_high).lstrip('+')} Elo)"
        )
    if s.score_high < 0.5:
        return (
            f"the 95% range is below 50%: {result.first} is weaker than {result.second} "
            f"(by {_elo(-s.elo_high).lstrip('+')} to {_elo(-s.elo_low).lstrip('+')} Elo)"
        )
    return (
        f"the 95% range includes 50%: this match shows no difference between the "
        f"players (any true difference from {_elo(s.elo_low)} to {_elo(s.elo_high)} Elo fits it)"
    )


def format_match_report(result: MatchResult) -> str:
    """The match report as text, one item a line."""
    config = result.config
    s = result.statistics
    stopped = ""
    if result.incomplete is not None:
        stopped = f", INCOMPLETE: stopped after {result.games} of {config.games}"
    elif result.games < config.games:
        stopped = f", stopped by the SPRT after {result.games} of {config.games}"
    lines = [
        f"Match: {result.first} vs {result.second}",
        *_incomplete_lines(result),
        f"  {result.games} games{stopped}: {len(result.pairs)} openings of "
        f"{config.openings} random plies, each played twice, each player taking each side once",
        f"  seed {config.seed}, ply cap {config.ply_cap or 'none'}{_defaults(config)}, "
        f"{result.seconds:.1f} s, average game {result.average_plies:.1f} plies",
        "",
        f"Results of {result.first}:",
        f"  {'':12}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}{'points':>8}{'score':>8}",
    ]
    rows = [(f"as {side}", side_result) for side, side_result in result.by_side.items()]
    for label, r in [*rows, ("total", s)]:
        lines.append(
            f"  {label:12}{r.games:>6}{r.wins:>6}{r.draws:>6}{r.losses:>7}"
            f"{_points(r.points):>8}{_percent(r.points / r.games):>8}"
        )
    first_side_wins = sum(1 for pair in result.pairs for game in pair.games if game.result > 0)
    second_side_wins = sum(1 for pair in result.pairs for game in pair.games if game.result < 0)
    draws = result.games - first_side_wins - second_side_wins
    sides = get_game(config.game).sides
    lines += [
        f"  {sides[0]} vs {sides[1]}, whoever played them: {first_side_wins} {sides[0]} wins, "
        f"{draws} draws, {second_side_wins} {sides[1]} wins",
        "",
        f"Score          {_percent(s.score)}  95% range {_percent(s.score_low)} to "
        f"{_percent(s.score_high)}  (standard error {_percent(s.score_error)}, from the pairs)",
    ]
    if s.score_error == 0:
        lines.append(
            "               every pair scored the same: with no spread to measure, this range "
            "(and the Elo's) is empty and says nothing"
        )
    if _scores_points(config.game):
        p = result.points
        lines.append(
            f"Points a game  {p.per_game:+.3f}  95% range {p.low:+.3f} to {p.high:+.3f}  "
            f"(won less lost, {_classes(config.game)}; standard error {p.error:.3f})"
        )
        lines.append(f"Wins by kind   {_wins_by_kind(result)}")
    if config.cube:
        c = _cube(result)
        lines.append(
            f"Cube           turned in {c['turned']} games ({c['turned'] / c['games']:.1%}), "
            f"{c['mean_value']:.2f} on average at the end; doubles passed: "
            f"{c['passes_won']} of the first player's, {c['passes_lost']} of its opponent's"
        )
    lines += [
        f"Elo difference {_elo(s.elo)} +/- {_error(s.elo_error)}  95% range {_elo(s.elo_low)} "
        f"to {_elo(s.elo_high)}",
        f"LOS            {_percent(s.los)}",
        f"Draw ratio     {_percent(s.draw_ratio)}",
        f"Pentanomial    {', '.join(map(str, s.pentanomial.counts))}  (pairs scoring "
        f"{', '.join(_points(p) for p in PAIR_POINTS)} points)",
    ]
    if result.sprt is not None:
        sprt = result.sprt
        accepted = f"{sprt.decision} accepted" if sprt.decision else "no decision"
        lines.append(
            f"SPRT           {sprt.test}: LLR {sprt.llr:.2f} ({100 * sprt.progress:.1f}%), "
            f"bounds {sprt.test.lower:.2f} and {sprt.test.upper:.2f}: {accepted}"
        )
    endings = ", ".join(
        f"{termination.value} {count}" for termination, count in result.terminations.most_common()
    )
    lines += [f"Endings        {endings}", "", f"Verdict: {verdict(result)}."]
    return "\n".join(lines)


def _scores_points(game: str) -> bool:
    """Whether a win of ``game`` can be worth more than a point (a gammon): its reports then
    give the points a game, too."""
    return max(get_game(game).outcome_classes) > 1


def _classes(game: str) -> str:
    """What the wins worth more than a point are called: "gammon 2"."""
    classes = get_game(game).outcome_classes
    return ", ".join(f"{name} {points}" for points, name in sorted(classes.items()) if points > 1)


def _kinds(result: MatchResult) -> dict[str, tuple[int, int]]:
    """Each kind of win (single game, gammon ...) and how many of them the first player won and
    lost."""
    # a game played with the cube scores its kind times the cube
    scored = [game.net_points // game.cube for pair in result.pairs for game in pair.games]
    return {
        name: (scored.count(points), scored.count(-points))
        for points, name in sorted(get_game(result.config.game).outcome_classes.items())
    }


def _cube(result: MatchResult) -> dict[str, float]:
    """What the cube did in a match played with it: the games where it was turned, its mean
    value at the end, and the doubles passed, of each player."""
    games = [game for pair in result.pairs for game in pair.games]
    passes = [game.net_points for game in games if game.passed]
    return {
        "games": max(1, len(games)),
        "turned": sum(game.cube > 1 for game in games),
        "mean_value": sum(game.cube for game in games) / max(1, len(games)),
        "passes_won": sum(points > 0 for points in passes),
        "passes_lost": sum(points < 0 for points in passes),
    }


def _wins_by_kind(result: MatchResult) -> str:
    """The first player's wins and losses of each kind, with their share of the games:
    "single game 60 (30.0%) won, 55 (27.5%) lost; gammon ..."."""
    games = max(1, result.games)
    return "; ".join(
        f"{name} {won} ({won / games:.1%}) won, {lost} ({lost / games:.1%}) lost"
        for name, (won, lost) in _kinds(result).items()
    )


def _incomplete_lines(result: MatchResult) -> list[str]:
    """The warning an incomplete match's report starts with."""
    if result.incomplete is None:
        return []
    return [
        f"  INCOMPLETE MATCH: only {result.games} of {result.config.games} games were played "
        f"({result.incomplete}); every figure below is of those games"
    ]


def _finite(x: float) -> float | None:
    """JSON has no infinity: an infinite value is written as null."""
    return x if math.isfinite(x) else None


def match_json(result: MatchResult) -> dict[str, Any]:
    """The match as JSON-ready data: settings, statistics, by side, SPRT and every pair."""
    config = result.config
    s = result.statistics
    sprt = None
    if result.sprt is not None:
        test = result.sprt.test
        sprt = {
            "elo0": test.elo0,
            "elo1": test.elo1,
            "alpha": test.alpha,
            "beta": test.beta,
            "llr": result.sprt.llr,
            "lower_bound": test.lower,
            "upper_bound": test.upper,
            "decision": result.sprt.decision,
        }
    return {
        "schema": SCHEMA_VERSION,
        "first": result.first,
        "second": result.second,
        "settings": {
            "games": config.games,
            "seed": config.seed,
            "opening_plies": [config.openings.min_plies, config.openings.max_plies],
            "ply_cap": config.ply_cap,
            "depth": config.depth,
            "seconds": config.seconds,
            "game": config.game,
            "cube": config.cube,
        },
        "games": result.games,
        **({} if result.incomplete is None else {"incomplete": result.incomplete}),
        "seconds": result.seconds,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "points": s.points,
        "score": s.score,
        "score_error": s.score_error,
        "score_range": [s.score_low, s.score_high],
        "elo": _finite(s.elo),
        "elo_error": _finite(s.elo_error),
        "elo_range": [_finite(s.elo_low), _finite(s.elo_high)],
        "los": s.los,
        "draw_ratio": s.draw_ratio,
        "pentanomial": list(s.pentanomial.counts),
        **(_points_json(result) if _scores_points(config.game) else {}),
        **({"cube": _cube(result)} if config.cube else {}),
        "by_side": {
            side: {"wins": r.wins, "draws": r.draws, "losses": r.losses, "score": r.score}
            for side, r in result.by_side.items()
        },
        "terminations": {t.value: n for t, n in result.terminations.most_common()},
        "sprt": sprt,
        "pairs": [
            {
                "pair": pair.pair,
                "opening": list(pair.opening),
                "points": [game.first_points for game in pair.games],
                "first_sides": [game.first_side for game in pair.games],
                "plies": [len(game.moves) for game in pair.games],
            }
            for pair in result.pairs
        ],
    }


def _points_json(result: MatchResult) -> dict[str, Any]:
    """A points-scoring game's points a game, and each pair's net points."""
    p = result.points
    return {
        "points_per_game": p.per_game,
        "points_error": p.error,
        "points_range": [p.low, p.high],
        "pair_net_points": [pair.net_points for pair in result.pairs],
        "wins_by_kind": {
            name: {"won": won, "lost": lost} for name, (won, lost) in _kinds(result).items()
        },
    }


def write_json(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically (a temporary file renamed over it)."""
    write_atomically(path, json.dumps(data, indent=1, allow_nan=False) + "\n")


def format_tournament_report(result: TournamentResult) -> str:
    """The tournament as text: a table like Ordo's (rating, error, points, played, %, W D L),
    then every pairing's score."""
    config = result.config
    ratings = result.ratings
    if ratings.anchor is None:
        anchored = f"the pool's average is {ratings.anchor_rating:g}"
    else:
        anchored = f"{ratings.anchor} is fixed at {ratings.anchor_rating:g}"
    lines = [
        f"Tournament: {len(result.players)} players, every pairing {config.games} games "
        f"({config.games // 2} openings of {config.openings} random plies, each played twice)",
        f"  seed {config.seed}, ply cap {config.ply_cap or 'none'}{_defaults(config)}, "
        f"{result.seconds:.1f} s",
        f"  ratings in Elo, fitted all at once (Bradley-Terry, maximum likelihood); {anchored}; "
        f"errors are 95% ranges",
    ]
    if ratings.virtual_draws:
        lines.append(
            f"  a player won or lost every point: {ratings.virtual_draws:g} virtual draw(s) per "
            f"pairing keep the ratings finite"
        )
    width = max(len("PLAYER"), *(len(p) for p in result.players))
    lines += [
        "",
        f"{'#':>4} {'PLAYER':<{width}} : {'RATING':>7} {'ERROR':>6} {'POINTS':>7} {'PLAYED':>6}"
        f" {'(%)':>6} {'W':>5} {'D':>5} {'L':>5}",
    ]
    for rank, row in enumerate(result.standings, start=1):
        error = "----" if row.error is None else f"{row.error:.1f}"
        lines.append(
            f"{rank:>4} {row.player:<{width}} : {row.rating:>7.1f} {error:>6} "
            f"{_points(row.points):>7} {row.played:>6} {100 * row.score:>6.1f} "
            f"{row.wins:>5} {row.draws:>5} {row.losses:>5}"
        )
    lines += ["", "Pairings (first player's view):"]
    for match in result.matches:
        s = match.statistics
        lines.append(
            f"  {match.first} vs {match.second}: {_points(s.points)}-"
            f"{_points(match.games - s.points)}, score {_percent(s.score)} "
            f"({_percent(s.score_low)} to {_percent(s.score_high)}), "
            f"Elo {_elo(s.elo)} +/- {_error(s.elo_error)}"
        )
    return "\n".join(lines)


def tournament_json(result: TournamentResult) -> dict[str, Any]:
    """The tournament as JSON-ready data: settings, the table, and every pairing's match."""
    config = result.config
    return {
        "schema": SCHEMA_VERSION,
        "players": list(result.players),
        "settings": {
            "games_per_pairing": config.games,
            "seed": config.seed,
            "opening_plies": [config.openings.min_plies, config.openings.max_plies],
            "ply_cap": config.ply_cap,
            "depth": config.depth,
            "seconds": config.seconds,
            "anchor": config.anchor,
            "anchor_rating": config.anchor_rating,
            "game": config.game,
        },
        "seconds": result.seconds,
        "virtual_draws": result.ratings.virtual_draws,
        "standings": [
            {
                "player": row.player,
                "rating": row.rating,
                "error": row.error,
                "points": row.points,
                "played": row.played,
                "score": row.score,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
            }
            for row in result.standings
        ],
        "matches": [match_json(match) for match in result.matches],
    }
