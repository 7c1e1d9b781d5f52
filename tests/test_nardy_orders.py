"""The compiled generator's way of finding plays against the plainest one, on positions built to
bring the six-block rule into play (games seldom do: in the seeded games tried, one position in
several thousand).

The generator tries a double's steps in one order, from points at or below the last step's, and
in every order only when the six-block rule refused a step; it skips the block check where a
step lands on a point already held, and keeps one play per position. Here every step of the dice
is tried in every order from every point, each step checked against every rule as it is made,
which shows those shortcuts lose no play and add none. The step check below is written from the
rules page, not from the kernels; the plays of random games are held against an implementation
written apart from Samuel's (tests/reference/).
"""

from __future__ import annotations

import random

import pytest

from samuel.games.nardy.rules import RULES, Position, Roll


def across(point: int) -> int:
    """The other side's number of a side's point: half a board on."""
    return (point + 11) % 24 + 1


def after_step(mine: tuple, theirs: tuple, start: int, die: int, blocks: bool) -> tuple | None:
    """The mover's 24 counts after one checker's step of ``die`` from ``start``, or None if the
    step is illegal (the head rule is the caller's; ``blocks``: with the six-block rule)."""
    if mine[start - 1] == 0:
        return None
    to = start - die
    after = list(mine)
    after[start - 1] -= 1
    if to < 1:  # bearing off: all home; a larger die only from the highest point
        if any(mine[6:]) or (to < 0 and any(mine[start:6])):
            return None
        return tuple(after)
    if theirs[across(to) - 1]:
        return None
    after[to - 1] += 1
    if not blocks:
        return tuple(after)
    held = [after[across(q) - 1] > 0 for q in range(1, 25)]  # along the other side's path
    lowest = min((q for q in range(1, 25) if theirs[q - 1]), default=25)
    for low in range(1, 20):  # six running from the other side's point low, none past them
        if all(held[low - 1 : low + 5]) and lowest >= low:
            return None
    return tuple(after)


def every_order_plays(position: Position, blocks: bool = True) -> set[tuple]:
    """The mover's counts after each legal play, by trying every order of every step
    (``blocks``: with the six-block rule)."""
    mine, theirs, dice = position.mover, position.opponent, position.dice
    heads_allowed = 2 if dice.is_double and mine[23] == 15 and dice.high in (3, 4, 6) else 1
    ends: dict[tuple, tuple[int, int]] = {}  # position -> (dice played, the die of one)

    def walk(counts: tuple, rest: tuple, heads: int, played: int, first: int) -> None:
        moved = False
        for die in set(rest):
            left = list(rest)
            left.remove(die)
            for start in range(24, 0, -1):
                if start == 24 and heads == heads_allowed:
                    continue
                after = after_step(counts, theirs, start, die, blocks)
                if after is not None:
                    moved = True
                    walk(after, tuple(left), heads + (start == 24), played + 1, first or die)
        if not moved and played:
            ends[counts] = max(ends.get(counts, (0, 0)), (played, first if played == 1 else 0))

    walk(mine, (dice.high,) * 4 if dice.is_double else (dice.high, dice.low), 0, 0, 0)
    if not ends:
        return {mine}  # a pass
    most = max(played for played, _ in ends.values())
    kept = {c: die for c, (played, die) in ends.items() if played == most}
    if most == 1 and not dice.is_double and dice.high in kept.values():
        kept = {c: die for c, die in kept.items() if die == dice.high}
    return set(kept)


def block_positions(count: int, seed: int):
    """Legal positions with a rolled roll: White with a run of four to six points somewhere,
    the rest scattered; Black in clusters, often none past White's run."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        white, black = [0] * 24, [0] * 24
        low = rng.randrange(1, 20)
        for point in range(low, min(low + rng.choice((4, 5, 5, 6)), 25)):
            white[point - 1] += 1
        while sum(white) < 15:
            white[rng.randrange(rng.choice((1, 7, 13)), 25) - 1] += 1
        for _ in range(15):
            point = rng.randrange(rng.choice((1, 13, 19)), 25)
            if not white[across(point) - 1]:
                black[point - 1] += 1
        dice = sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)
        text = RULES.format_position(
            Position(tuple(white), tuple(black), rng.random() < 0.5, Roll(*dice))
        )
        try:
            position = RULES.parse_position(text)  # refuses the breaches of the rules
        except ValueError:
            continue
        if position.winner() is None:
            made += 1
            yield position


@pytest.mark.slow
def test_the_generator_finds_the_plays_of_every_order_of_steps() -> None:
    changed = 0
    for position in block_positions(400, seed=11):
        plays = {
            child.white if position.white_to_move else child.black
            for child in RULES.plays(position).values()
        }
        assert plays == every_order_plays(position), RULES.format_position(position)
        changed += plays != every_order_plays(position, blocks=False)
    assert changed >= 20  # the six-block rule changed the plays of that many (about one in ten)
