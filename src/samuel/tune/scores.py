"""What the tuner's matches score: the first player's share of the points, where a game's wins
score more than a point (long nardy: a mars 2, a koks 3) counted as the points are.

A match's own score (:attr:`samuel.match.head_to_head.MatchResult.score`) counts a game won as 1
whatever its kind, a draw as half. Where a win can be worth more, that would take a player who
wins more games but loses more mars for the better one, and matches of such a game are judged in
points a game (``samuel match``'s "Points a game", from duplicate dice: a pair's two games share
their rolls). The share of the points, ``won / (won + lost)``, is that figure on the scale of a
score, so hill climbing's ``--accept`` means the same in every game: with one point a win and no
draws it is the score itself.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MatchScore:
    """The first player's share of the points and its 95% range, and, in a game whose wins
    score more than a point, its points a game won less lost with their 95% range."""

    share: float
    low: float
    high: float
    points: float | None = None  # points a game (None: a game of one point a win)
    points_low: float | None = None
    points_high: float | None = None

    def text(self) -> str:
        """``54.0% (95% range 51.0-57.0%)``, and the points a game where they count."""
        text = f"{100 * self.share:.1f}% (95% range {100 * self.low:.1f}-{100 * self.high:.1f}%)"
        if self.points is None:
            return text
        return (
            f"{text} of the points, {self.points:+.3f} points a game (95% range "
            f"{self.points_low:+.3f} to {self.points_high:+.3f})"
        )


def match_score(result, max_points: int) -> MatchScore:
    """The first player's score in the match ``result`` of a game whose wins score up to
    ``max_points``: the match's own score where that is 1, else the share of the points.

    The share's range is the points' range (from the pairs' spread: duplicate dice) over the
    points a game scored by both players: ``share = 1/2 + points / (2 * total)``, the total taken
    as measured."""
    stats = result.statistics
    if max_points == 1:
        return MatchScore(stats.score, stats.score_low, stats.score_high)
    scored = [game.net_points for pair in result.pairs for game in pair.games]
    won = sum(points for points in scored if points > 0)
    lost = -sum(points for points in scored if points < 0)
    points = result.points
    total = (won + lost) / len(scored)  # points a game, by either player
    if total == 0:  # every game a draw (the ply cap)
        return MatchScore(0.5, 0.5, 0.5, points.per_game, points.low, points.high)

    def share(per_game: float) -> float:
        return min(1.0, max(0.0, 0.5 + per_game / (2 * total)))

    return MatchScore(
        won / (won + lost),
        share(points.low),
        share(points.high),
        points.per_game,
        points.low,
        points.high,
    )
