"""Distribution-matched random positions for a game with dice (backgammon, long nardy): the
random source of the production loop, as :mod:`.sources` has it for the games without dice.

**What is matched**, measured on real game positions (the cycle's self-play and expert ones):

- the joint counts of each side's checkers borne off and off the points (backgammon's bar),
  with the side to move: a drawn position takes one such tuple, as often as the real ones had
  it;
- where each side's checkers stand: for each side, how often a checker of its stood on each of
  its 24 points, measured apart for positions where it has borne off and where it has not (so a
  side bearing off has its checkers at home, as real ones do).

**A position is drawn** by taking a tuple, then placing each side's checkers on its points one
by one, each on a point chosen by those weights among the points the other side does not hold
(the first side's first). What the rules forbid that this does not see (long nardy's six-point
block with none of the other side past it) is refused by the game's own check of its states and
drawn again. Each position comes from the seed and its number alone: the same distribution and
seed give the same positions in any batch.

A game's ``pipeline`` part says what differs: ``SIDE_COUNTS`` (the counts its ``Position`` takes
for a side: the 24 points, then backgammon's bar), ``across`` (a side's point index as the other
side numbers it) and ``TURN_BIT`` (word 1's bit set while the first side is to move); its
``states`` part reads a state's slots (``side_slots``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from samuel.games import descriptors, get_game
from samuel.games import kernels as games
from samuel.seeds import derive_seed

from .sources import PositionBatch, _batch

POINTS = 24
CHECKERS = 15
MOST_TUPLES = 4096  # the most distinct count tuples a distribution keeps (the commonest)
TRIES = 50  # draws a position may take before the source gives up on the distribution


@dataclass(frozen=True)
class DiceDistribution:
    """What the random source matches (the module docstring)."""

    game: str
    # (off, extras..., off, extras..., side to move) of the first side then the second, and how
    # many real positions had each
    tuples: tuple[tuple[int, ...], ...]
    counts: tuple[int, ...]
    # weights[side][bearing off][point]: how often a checker of the side stood on the point
    weights: tuple[tuple[tuple[float, ...], ...], ...]

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "tuples": [list(t) for t in self.tuples],
            "counts": list(self.counts),
            "weights": [[list(w) for w in side] for side in self.weights],
        }

    @staticmethod
    def from_json(data: dict) -> DiceDistribution:
        return DiceDistribution(
            str(data["game"]),
            tuple(tuple(int(v) for v in t) for t in data["tuples"]),
            tuple(int(c) for c in data["counts"]),
            tuple(tuple(tuple(float(v) for v in w) for w in side) for side in data["weights"]),
        )


def _parts(game: str):
    descriptor = descriptors()[game]
    return descriptor.part("pipeline"), descriptor.part("states")


def measure_dice_distribution(game: str, states: np.ndarray) -> DiceDistribution:
    """The distribution of real positions ``states`` (kernel rows, the game's words first);
    ValueError for rows that are no positions, or none."""
    part, states_part = _parts(game)
    words = games.compiled_game(get_game(game).number).state_words
    rows = np.ascontiguousarray(np.asarray(states, dtype=np.int64)[:, :words])
    if len(rows) == 0:
        raise ValueError("a distribution is measured on at least one position")
    problem = states_part.state_problem(rows)
    if problem is not None:
        raise ValueError(problem)
    sides = [states_part.side_slots(rows, side) for side in (0, 1)]
    turn = (rows[:, 1] >> part.TURN_BIT) & 1  # 1 while the first side is to move
    extras = part.SIDE_COUNTS - POINTS
    tally: Counter = Counter()
    columns = [sides[s][:, [-1, *range(POINTS, POINTS + extras)]] for s in (0, 1)]
    for row in np.concatenate([columns[0], columns[1], turn[:, None]], axis=1).tolist():
        tally[tuple(row)] += 1
    common = tally.most_common(MOST_TUPLES)
    weights = []
    for side in sides:
        off = side[:, -1] > 0
        weights.append(
            tuple(tuple(float(v) for v in side[mask, :POINTS].sum(axis=0)) for mask in (~off, off))
        )
    return DiceDistribution(
        game, tuple(t for t, _ in common), tuple(c for _, c in common), tuple(weights)
    )


def _draw(game: str, distribution: DiceDistribution, rng: np.random.Generator, part):
    """One drawn position (the game's ``Position``), or None where the draw failed a rule."""
    extras = part.SIDE_COUNTS - POINTS
    p = np.asarray(distribution.counts, dtype=np.float64)
    chosen = distribution.tuples[int(rng.choice(len(p), p=p / p.sum()))]
    width = 1 + extras
    sides: list[list[int]] = []
    held_across = np.zeros(POINTS, dtype=bool)  # points the other side holds, in this side's
    for side in (0, 1):
        off, *outside = chosen[side * width : (side + 1) * width]
        left = CHECKERS - off - sum(outside)
        weights = np.asarray(distribution.weights[side][int(off > 0)], dtype=np.float64)
        weights = np.where(held_across, 0.0, weights)
        counts = np.zeros(POINTS, dtype=np.int64)
        if left:
            if not weights.sum() > 0:
                return None
            counts = np.bincount(
                rng.choice(POINTS, size=left, p=weights / weights.sum()), minlength=POINTS
            )
        sides.append([*counts.tolist(), *outside])
        held_across = np.zeros(POINTS, dtype=bool)
        for point in np.flatnonzero(counts):
            held_across[part.across(int(point))] = True
    first_to_move = bool(chosen[-1])
    try:
        return type(get_game(game).initial_position())(
            tuple(sides[0]), tuple(sides[1]), first_to_move, None
        )
    except ValueError:
        return None


def dice_random_positions(
    game: str, distribution: DiceDistribution, count: int, seed: int
) -> PositionBatch:
    """``count`` positions drawn from ``distribution`` (the module docstring), position ``i``
    from ``derive_seed(seed, i)``; each kept once. ValueError where the distribution keeps
    giving positions the rules refuse."""
    if not isinstance(distribution, DiceDistribution) or distribution.game != game:
        raise ValueError(f"the distribution is not one of {game}'s positions")
    part, states_part = _parts(game)
    rules = get_game(game)
    rows = []
    for i in range(count):
        rng = np.random.default_rng(derive_seed(seed, i))
        for _ in range(TRIES):
            position = _draw(game, distribution, rng, part)
            if position is None or rules.decided_outcome(position) is not None:
                continue
            row = rules.encode(position)
            if states_part.state_problem(row[None, :]) is None:
                rows.append(row)
                break
        else:
            raise ValueError(
                f"{TRIES} draws in a row gave no {rules.title} position: the distribution "
                "cannot be matched"
            )
    words = games.compiled_game(rules.number).state_words
    states = np.array(rows, dtype=np.int64).reshape(-1, words)
    return _batch(states, np.full(len(states), -1, np.int64), np.zeros(len(states), np.int32))
