"""The doubling cube's decisions from a position's six outcome chances, as GNU Backgammon makes
them at 0-ply: Janowski's cube-life interpolation (R. Janowski, "Take-points in money games",
1993). A position's cubeful value is ``x`` times its value with a fully live cube plus ``1 - x``
times its value with a dead one (its cubeless value), ``x`` the cube life: gnubg's 0.68 with
contact, 0.6 to 0.7 in a race (:func:`position_cube_life`).

The six chances are the side on roll's (before it rolls): of winning, of winning a gammon or
more, of a backgammon, then the same of losing (the network's outputs, ``docs/backgammon.md``).

- **Money play** (``score`` None) uses Janowski's live-cube points: with ``W`` and ``L`` the
  average points of a game won and lost, a side's take point is ``(L - 1/2) / (W + L + 1/2)``
  and its cash point ``(L + 1) / (W + L + 1/2)``; the live value is linear in the winning chance
  between them, and from them to the game's end. With the Jacoby rule a gammon counts single
  while the cube is centred; beavers are off.
- **Match play** (``score``, the points each side is away) values every outcome in chances of
  winning the match from the match equity table (``met.py``, or another one given), and builds
  the same lines from the take and cash points at the score: the dead cube's, plus a recube vig
  of a quarter of the doubled cube's swing in match equity (half a doubled cube in money play,
  where it is Janowski's) for a side whose redouble would not be dead. That is simpler than
  gnubg's own match method; against it, ``tests/test_backgammon_cube.py`` measures the
  agreement (93% of match decisions, all the money ones).
  A side whose cube is dead (the cube already wins it the match) cannot double; nor can either
  side in the Crawford game.

The decision, gnubg's: with ND the value of not doubling, DT of doubling and being taken, DP of
being passed (all the doubler's): the other side passes when DT >= DP, and then the doubler
doubles unless ND > DP (too good, pass); it takes otherwise, and the doubler doubles when
DT > ND, unless ND > DP (too good, take).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .met import after_game, match_equity

CUBE_LIFE = 0.68  # gnubg's default cube efficiency for its 0-ply cube decisions


class Decision(enum.Enum):
    """The side on roll's cube action, and the other side's answer."""

    NO_DOUBLE = "no double, take"
    DOUBLE_TAKE = "double, take"
    DOUBLE_PASS = "double, pass"
    TOO_GOOD_TAKE = "too good to double, take"
    TOO_GOOD_PASS = "too good to double, pass"

    @property
    def doubles(self) -> bool:
        return self in (Decision.DOUBLE_TAKE, Decision.DOUBLE_PASS)

    @property
    def takes(self) -> bool:
        """Whether the other side should take a double here."""
        return self in (Decision.NO_DOUBLE, Decision.DOUBLE_TAKE, Decision.TOO_GOOD_TAKE)


@dataclass(frozen=True)
class MatchScore:
    """A match's score as the cube needs it: the points each side still needs (the side on
    roll's first) and whether this is the Crawford game."""

    away_me: int
    away_opponent: int
    crawford: bool = False

    def __post_init__(self) -> None:
        if self.away_me < 1 or self.away_opponent < 1:
            raise ValueError(f"each side is at least one point away, not {self!r}")
        if self.crawford and 1 not in (self.away_me, self.away_opponent):
            raise ValueError("the Crawford game is played when a side is one point away")


@dataclass(frozen=True)
class CubeAnalysis:
    """The doubler's values of not doubling, of doubling and being taken and of being passed
    (points a game per cube unit in money play, match-winning chances in a match), and what to
    do. ``available``: whether the side on roll may double at all."""

    no_double: float
    double_take: float
    double_pass: float
    decision: Decision
    available: bool = True


def check_chances(chances: Sequence[float]) -> np.ndarray:
    """The six chances as an array, checked (each 0-1, winning and losing summing to one) and
    made consistent as gnubg's sanity check makes a network's: gammons no likelier than wins,
    backgammons than gammons (a network's sigmoids are separate and need not be)."""
    c = np.asarray(chances, dtype=np.float64)
    if c.shape != (6,) or not np.all((c >= -1e-6) & (c <= 1 + 1e-6)):
        raise ValueError(f"the outcome chances are six numbers 0-1, not {chances!r}")
    if abs(c[0] + c[3] - 1) > 1e-3:
        raise ValueError(f"the chances of winning and losing add to {c[0] + c[3]:.4f}, not 1")
    c = np.clip(c, 0.0, 1.0)
    for start in (0, 3):
        c[start + 1] = min(c[start + 1], c[start])
        c[start + 2] = min(c[start + 2], c[start + 1])
    return c


class _Payoffs:
    """What each outcome is worth to the side on roll: in points (money) or in chances of
    winning the match (``score``, read from ``table``)."""

    def __init__(self, score: MatchScore | None, table: Callable[[int, int, bool], float]):
        self.score, self.table = score, table

    def won(self, points: int) -> float:
        if self.score is None:
            return float(points)
        s = self.score
        return after_game(s.away_me - points, s.away_opponent, not s.crawford, self.table)

    def lost(self, points: int) -> float:
        if self.score is None:
            return -float(points)
        s = self.score
        return after_game(s.away_me, s.away_opponent - points, not s.crawford, self.table)


def _cubeful(
    c: np.ndarray,
    cube: int,
    owner: int | None,
    pay: _Payoffs,
    jacoby: bool,
    cube_life: float,
) -> float:
    """The side on roll's cubeful value with the cube at ``cube`` owned by ``owner`` (0 the side
    on roll, 1 the other, None centred)."""
    win, gammons, backgammons = c[0], c[1], c[2]
    loss, lost_gammons, lost_backgammons = c[3], c[4], c[5]
    single = pay.score is None and jacoby and owner is None  # Jacoby: no gammons yet

    won = np.array([win - gammons, gammons - backgammons, backgammons])
    lost = np.array([loss - lost_gammons, lost_gammons - lost_backgammons, lost_backgammons])
    won_values = np.array([pay.won(cube if single else k * cube) for k in (1, 2, 3)])
    lost_values = np.array([pay.lost(cube if single else k * cube) for k in (1, 2, 3)])
    dead = float(won @ won_values + lost @ lost_values)
    # the average value of a game won and lost at this cube, and at the doubled cube
    mean_won = float(won @ won_values / win) if win > 1e-7 else won_values[0]
    mean_lost = float(lost @ lost_values / loss) if loss > 1e-7 else lost_values[0]
    won2 = np.array([pay.won(k * 2 * cube) for k in (1, 2, 3)])
    lost2 = np.array([pay.lost(k * 2 * cube) for k in (1, 2, 3)])
    mean_won2 = float(won @ won2 / win) if win > 1e-7 else won2[0]
    mean_lost2 = float(lost @ lost2 / loss) if loss > 1e-7 else lost2[0]
    # Janowski's recube vig: owning the doubled cube is worth a quarter of its swing (half the
    # doubled cube in money play), to a side whose cube would not be dead
    quarter = (pay.won(2 * cube) - pay.lost(2 * cube)) / 4
    my_vig = quarter if _may_double(pay.score, 2 * cube, mine=True) else 0.0
    their_vig = quarter if _may_double(pay.score, 2 * cube, mine=False) else 0.0
    points, values = [0.0], [mean_lost]
    if owner != 0 and _may_double(pay.score, cube, mine=False):
        passed = pay.lost(cube)
        span = mean_won2 - mean_lost2 + my_vig
        take_point = (passed - mean_lost2) / span if span > 0 else 0.0
        if 0.0 < take_point < 1.0:
            points.append(take_point)
            values.append(passed)
    if owner != 1 and _may_double(pay.score, cube, mine=True):
        cashed = pay.won(cube)
        span = mean_won2 - mean_lost2 + their_vig
        cash_point = (cashed - mean_lost2 + their_vig) / span if span > 0 else 1.0
        if points[-1] < cash_point < 1.0:
            points.append(cash_point)
            values.append(cashed)
    points.append(1.0)
    values.append(mean_won)
    live = float(np.interp(win, points, values))
    return cube_life * live + (1 - cube_life) * dead


def _may_double(score: MatchScore | None, cube: int, mine: bool) -> bool:
    """Whether a side (the side on roll: ``mine``) may turn the cube from ``cube``: never in the
    Crawford game, nor where the cube already wins it the match (gnubg's rule)."""
    if score is None:
        return True
    if score.crawford:
        return False
    return cube < (score.away_me if mine else score.away_opponent)


def analyse(
    chances: Sequence[float],
    cube: int = 1,
    owner: int | None = None,
    score: MatchScore | None = None,
    jacoby: bool = True,
    cube_life: float = CUBE_LIFE,
    table: Callable[[int, int, bool], float] = match_equity,
) -> CubeAnalysis:
    """The cube decision of the side on roll, before it rolls, from its six outcome chances, with
    the cube at ``cube`` owned by ``owner`` (0 the side on roll, 1 the other, None centred), in
    money play (``score`` None; ``jacoby``: the Jacoby rule) or in a match at ``score``."""
    c = check_chances(chances)
    if cube < 1 or cube & (cube - 1):
        raise ValueError(f"the cube is 1, 2, 4, 8 ..., not {cube!r}")
    if owner not in (None, 0, 1):
        raise ValueError(f"the cube's owner is 0, 1 or None (centred), not {owner!r}")
    if not 0.0 <= cube_life <= 1.0:
        raise ValueError(f"the cube life is 0 to 1, not {cube_life!r}")
    pay = _Payoffs(score, table)
    no_double = _cubeful(c, cube, owner, pay, jacoby, cube_life)
    double_take = _cubeful(c, 2 * cube, 1, pay, jacoby, cube_life)
    double_pass = pay.won(cube)
    if score is None:  # in units of the cube before the double, as gnubg shows them
        no_double, double_take, double_pass = no_double / cube, double_take / cube, 1.0
    available = owner != 1 and _may_double(score, cube, mine=True)
    if double_take >= double_pass:  # a pass
        decision = Decision.TOO_GOOD_PASS if no_double > double_pass else Decision.DOUBLE_PASS
    elif no_double >= double_take:
        decision = Decision.TOO_GOOD_TAKE if no_double > double_pass else Decision.NO_DOUBLE
    else:
        decision = Decision.DOUBLE_TAKE
    if not available:
        decision = Decision.NO_DOUBLE
    return CubeAnalysis(no_double, double_take, double_pass, decision, available)


def position_cube_life(mover: Sequence[int], opponent: Sequence[int]) -> float:
    """gnubg's cube life for a position (its ``EvalEfficiency``), from each side's 25 counts
    (points 1-24, then the bar) in its own numbering, the side on roll's first: 0.6 once both
    sides are all in their home boards (its bear-off databases), in a race (no contact)
    0.55 + 0.00125 a pip of the side on roll, kept within 0.6-0.7, and 0.68 with contact."""
    if not any(mover[6:]) and not any(opponent[6:]):
        return 0.6
    # contact: a checker of the side on roll behind (on a higher point than) the opponent's
    # farthest-back checker, seen from the side on roll (its point p is the other's 25 - p)
    mine = max((p + 1 for p, n in enumerate(mover) if n), default=0)
    theirs = max((p + 1 for p, n in enumerate(opponent) if n), default=0)
    if mine + theirs > 25:
        return CUBE_LIFE
    pips = sum(n * (p + 1) for p, n in enumerate(mover))
    return min(max(0.55 + 0.00125 * pips, 0.6), 0.7)
