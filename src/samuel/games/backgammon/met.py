"""A match equity table that Samuel computes itself: each side's chance of winning a match from
any score, for matches up to 25 points, before and after the Crawford game.

The model is Janowski's cube-life interpolation (R. Janowski, "Take-points in money games",
1993; gnubg's 0-ply cube evaluation) carried over to match play, the way a match equity
calculator (Zadeh's 1977 paper, Claes Thornberg's ``mec`` behind gnubg's own tables) builds a
table from a gammon rate and a model of the cube:

- Every game starts even (a chance of winning of 1/2); a game won ends a gammon with the chance
  ``GAMMON_RATE`` (for both sides; backgammons are left out).
- **Post-Crawford**, the trailer doubles at once (the leader's cube is dead), so a game is worth
  two points to it, four with a gammon (no free drop).
- **The Crawford game** has no cube: a win is worth one point, a gammon two.
- **Before the Crawford game** a game with the cube at ``c`` is valued as a function of its
  winning chance ``p``: ``x`` times its *live-cube* value (the chance moves continuously, as in
  Keeler and Spencer's model, so a side doubles exactly at the other's take point and cashes
  there; the value is linear in ``p`` between the two sides' doubling points) plus ``1 - x``
  times its *dead-cube* value (linear from losing the game to winning it at the cube's value).
  The take points come from the same valuation one cube higher, down to a cube that wins the
  match for either side, where the cube is dead. The table's entry is that value at ``p = 1/2``
  with the cube centred. ``x`` is the cube life, gnubg's default 0.68.

The gammon rate, 0.30, is the one of nine tried (0.20 to 0.36 in steps of 0.02, the cube life
fixed at gnubg's 0.68) whose tables lay closest, in their largest difference, to gnubg's default,
Kazaross-XG2 (a table from rollouts). Against it, over every score of a 25-point match, this
table differs by at most 0.013 in a chance of winning the match, 0.004 on average, before the
Crawford game (the Crawford game's own entries among them), and by at most 0.015, 0.002 on
average, after it (``tests/test_backgammon_cube.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

MAX_AWAY = 25  # the longest match the table covers
GAMMON_RATE = 0.30  # the share of games won that are gammons (either side's)
CUBE_LIFE = 0.68  # Janowski's x: 0 a dead cube, 1 a fully live one


def match_equity(away_me: int, away_opponent: int, crawford: bool = False) -> float:
    """The chance that the side ``away_me`` points from winning the match wins it, against a side
    ``away_opponent`` points away, at the start of a game. ``crawford``: when one side is one
    point away, whether the Crawford game is still to be played (True) or has been (False: the
    game is post-Crawford); with neither side one away it changes nothing."""
    for away in (away_me, away_opponent):
        if isinstance(away, bool) or not isinstance(away, int) or not 1 <= away <= MAX_AWAY:
            raise ValueError(f"a side is 1 to {MAX_AWAY} points away, not {away!r}")
    if away_me == 1 and away_opponent == 1:
        return 0.5
    if away_me == 1:
        return _crawford(away_opponent) if crawford else 1.0 - _post_crawford(away_opponent)
    if away_opponent == 1:
        return 1.0 - (_crawford(away_me) if crawford else 1.0 - _post_crawford(away_me))
    return _pre_crawford(away_me, away_opponent)


def after_game(
    away_me: int,
    away_opponent: int,
    before_crawford: bool,
    table: Callable[[int, int, bool], float] | None = None,
) -> float:
    """The chance of winning the match, at the start of the next game, of a side ``away_me``
    away (0 or less: it has won) against one ``away_opponent`` away, once a game has ended:
    ``before_crawford``, that game came before the Crawford game (so a side that has just
    reached one away plays the Crawford game next), else it was the Crawford game or after it.
    ``table`` is a :func:`match_equity` (this module's by default)."""
    if away_me <= 0:
        return 1.0
    if away_opponent <= 0:
        return 0.0
    table = match_equity if table is None else table
    return table(min(away_me, MAX_AWAY), min(away_opponent, MAX_AWAY), before_crawford)


@cache
def _post_crawford(away: int) -> float:
    """The trailer's chance, ``away`` points away, against a leader one away after the Crawford
    game: it doubles at once, so it wins two points a game it wins, four with a gammon."""
    if away <= 0:
        return 1.0
    if away == 1:
        return 0.5
    return 0.5 * (
        (1 - GAMMON_RATE) * _post_crawford(away - 2) + GAMMON_RATE * _post_crawford(away - 4)
    )


@cache
def _crawford(away: int) -> float:
    """The leader's chance (one away) in the Crawford game against a side ``away`` away: no cube;
    losing it leaves the leader one away post-Crawford."""

    def leader_after(trailer_away: int) -> float:
        return 0.0 if trailer_away <= 0 else 1.0 - _post_crawford(trailer_away)

    lost = (1 - GAMMON_RATE) * leader_after(away - 1) + GAMMON_RATE * leader_after(away - 2)
    return 0.5 + 0.5 * lost


@cache
def _pre_crawford(away_me: int, away_opponent: int) -> float:
    return _GameValue(away_me, away_opponent).value(1, None, 0.5)


class _GameValue:
    """One game's value before the Crawford game, to the side ``a`` away against the side ``b``
    away, as a function of the cube, its owner (0 this side, 1 the other, None centred) and this
    side's chance of winning the game (the module's docstring says how)."""

    def __init__(self, a: int, b: int) -> None:
        self.a, self.b = a, b
        self._lines: dict[tuple[int, int | None], tuple[float, float, float, float]] = {}

    def _end(self, me: int, opponent: int) -> float:
        return after_game(self.a - me, self.b - opponent, before_crawford=True)

    def win(self, cube: int) -> float:
        return (1 - GAMMON_RATE) * self._end(cube, 0) + GAMMON_RATE * self._end(2 * cube, 0)

    def loss(self, cube: int) -> float:
        return (1 - GAMMON_RATE) * self._end(0, cube) + GAMMON_RATE * self._end(0, 2 * cube)

    def value(self, cube: int, owner: int | None, p: float) -> float:
        low, low_value, high, high_value = self._live(cube, owner)
        if p <= low:
            live = low_value
        elif p >= high:
            live = high_value
        else:
            live = low_value + (high_value - low_value) * (p - low) / (high - low)
        dead = p * self.win(cube) + (1 - p) * self.loss(cube)
        return CUBE_LIFE * live + (1 - CUBE_LIFE) * dead

    def _live(self, cube: int, owner: int | None) -> tuple[float, float, float, float]:
        """The live cube's line: from (its low end, the value there) to (its high end, the
        value there), the ends the two sides' doubling points or the game's end."""
        key = (cube, owner)
        if key not in self._lines:
            low, low_value = 0.0, self.loss(cube)
            high, high_value = 1.0, self.win(cube)
            if owner != 0 and self.b > cube:  # the other side may double, at this side's take point
                passed = self._end(0, cube)
                point = self._crossing(2 * cube, 0, passed)
                if 0.0 < point < 1.0:
                    low, low_value = point, passed
            if owner != 1 and self.a > cube:  # this side may double, at the other's take point
                cashed = self._end(cube, 0)
                point = self._crossing(2 * cube, 1, cashed)
                if low < point < 1.0:
                    high, high_value = point, cashed
            self._lines[key] = (low, low_value, high, high_value)
        return self._lines[key]

    def _crossing(self, cube: int, owner: int, target: float) -> float:
        """The chance of winning at which the game's value (cube ``cube`` owned by ``owner``)
        reaches ``target`` (0 or 1 where it never does): the value rises with the chance."""
        if self.value(cube, owner, 0.0) >= target:
            return 0.0
        if self.value(cube, owner, 1.0) <= target:
            return 1.0
        low, high = 0.0, 1.0
        for _ in range(40):
            middle = 0.5 * (low + high)
            if self.value(cube, owner, middle) < target:
                low = middle
            else:
                high = middle
        return 0.5 * (low + high)
