"""Long nardy twice over: the compiled game (``samuel.games.nardy``) against the plain reference
written apart from it from the same rules (``tests/reference/nardy_rules.py``).

A position goes from one to the other through its plain fields only: each side's 24 counts in its
own numbering, the checkers each has borne off, the side on roll. Neither side's notation parser
is trusted to carry it; the notations are compared on their own (the same string, and each reads
the other's).

Which rolls: each position of a game gets one roll drawn from a seeded generator, and a few get
all 21 (each side's first turn, every tenth position in the slow test, and the last ones of each
game, where bearing off makes the larger-die and highest-point rules matter). A game's positions
follow one another closely, and the reference's cost is per position and roll, so one roll each
over many games reaches more kinds of position for the time than 21 rolls over a few games; the
positions with all 21 rolls cover what depends on the roll itself (the first-turn doubles, the
bear-off dice). The games are the reference's, half of them played to build blocks
(``random_game(seed, blocks=True)``), and six-point runs are also built on purpose, since games
seldom meet the six-block rule.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from unittest import mock

import pytest

from samuel.games.nardy import kernels
from samuel.games.nardy.rules import RULES, WHITE, Position, Roll
from tests.reference import nardy_rules as ref

CHECKERS = 15
LAST_ROLLED = 8  # each game's last positions given all 21 rolls: mostly bearing off


# -- from one representation to the other, through the plain fields ------------------------------


def compiled(position: ref.Position, roll: tuple[int, int] | None = None) -> Position:
    """The compiled game's position of the reference's, with ``roll`` (either order) rolled."""
    for counts, off in ((position.white, position.white_off), (position.black, position.black_off)):
        assert sum(counts) + off == CHECKERS, ref.format(position)
    dice = None if roll is None else Roll(max(roll), min(roll))
    return Position(position.white, position.black, position.to_move == "w", dice)


def reference(position: Position) -> ref.Position:
    """The reference's position of the compiled game's (its dice dropped)."""
    to_move = "w" if position.white_to_move else "b"
    return ref.Position(position.white, position.black, position.off(0), position.off(1), to_move)


def compiled_plays(position: ref.Position, roll: tuple[int, int]) -> set[ref.Position]:
    """The positions the compiled generator's plays of ``roll`` leave (a pass: the turn passed)."""
    children = list(RULES.plays(compiled(position, roll)).values())
    if len(children) != len(set(children)):
        raise AssertionError(f"{ref.format(position)} {roll}: two plays leave the same position")
    return {reference(child) for child in children}


def reference_plays(position: ref.Position, roll: tuple[int, int]) -> set[ref.Position]:
    return ref.plays(position, *roll) or {ref.pass_turn(position)}


def disagreement(
    position: ref.Position, roll: tuple[int, int], theirs: set[ref.Position] | None = None
) -> str | None:
    """What the two make differently of ``roll`` at ``position``, or None (``theirs``: the
    reference's plays, if already found)."""
    ours = compiled_plays(position, roll)
    theirs = reference_plays(position, roll) if theirs is None else theirs
    if ours == theirs:
        return None
    only_ours = sorted(ref.format(p) for p in ours - theirs)
    only_theirs = sorted(ref.format(p) for p in theirs - ours)
    return (
        f"{ref.format(position)} rolled {max(roll)}-{min(roll)}: only the compiled game "
        f"{only_ours}, only the reference {only_theirs}"
    )


def compiled_result(position: ref.Position) -> int | None:
    """White's points as the reference counts them (negative when Black won), from the compiled
    game's outcome; the kernel's own result must say the same."""
    state = compiled(position).encode()
    outcome = compiled(position).decided_outcome()
    points = None
    if outcome is not None:
        points = outcome.points if outcome.winner == WHITE else -outcome.points
    kernel = kernels.result(state)
    assert (None if kernel == 127 else kernel) == points, ref.format(position)
    return points


def notation_disagreement(position: ref.Position) -> str | None:
    """How the two notations of ``position`` differ, or None: the same string, and each parser
    reads the other's text back to the position, or both refuse it."""
    ours, theirs = RULES.format_position(compiled(position)), ref.format(position)
    if ours != theirs:
        return f"compiled {ours!r}, reference {theirs!r}"
    read = [read_back(parse, ours) for parse in (RULES.parse_position, ref.parse)]
    if read not in ([position, position], [None, None]):
        return (
            f"{ours!r} is read back as {read[0]} by the compiled game, {read[1]} by the reference"
        )
    return None


def read_back(parse, text: str) -> ref.Position | None:
    """The reference's position of what ``parse`` reads from ``text``; None if it refuses it."""
    try:
        position = parse(text)
    except ValueError:
        return None
    return reference(position) if isinstance(position, Position) else position


# -- the positions and rolls compared -------------------------------------------------------------


def bearing_off(position: ref.Position) -> bool:
    mine, _ = ref.checkers_of(position, position.to_move)
    return ref.all_home(mine)


def pairs(games: list[list[ref.Position]], seed: int, every: int = 0):
    """``(position, roll)`` for each unfinished position of the games: one seeded roll each; all
    21 for the first two (each side's first turn), the last ``LAST_ROLLED``, and (``every``) one
    position in ``every``."""
    rng = random.Random(seed)
    for game in games:
        playing = [p for p in game if ref.result(p) is None]
        for k, position in enumerate(playing):
            rolled = k < 2 or k >= len(playing) - LAST_ROLLED or (every and k % every == 0)
            if rolled:
                yield from ((position, roll) for roll in ref.ROLLS)
            else:
                yield position, (rng.randint(1, 6), rng.randint(1, 6))


def compare_games(seeds: range, seed: int, every: int = 0) -> tuple[int, int]:
    """Both generators, results and notations over the reference's random games of ``seeds``,
    half uniform and half building blocks; the positions and the position-rolls compared."""
    games = [ref.random_game(s, blocks) for s in seeds for blocks in (False, True)]
    wrong: list[str] = []
    compared = bear_off = 0
    finished: set[ref.Position] = {game[-1] for game in games}
    for position, roll in pairs(games, seed, every):
        compared += 1
        bear_off += bearing_off(position)
        theirs = reference_plays(position, roll)
        found = disagreement(position, roll, theirs)
        if found:
            wrong.append(found)
        finished |= {p for p in theirs if ref.result(p) is not None}
    assert not wrong, f"{len(wrong)} of {compared} disagree:\n" + "\n".join(wrong[:10])
    # The comparison reaches the positions it means to: bearing off, and games to their end.
    assert bear_off >= compared // 10
    assert all(ref.result(game[-1]) is not None for game in games)
    for position in sorted(finished):
        assert compiled_result(position) == ref.result(position), ref.format(position)
    wrong = [
        f"{ref.format(p)}: {why}"
        for p in {p for game in games for p in game}
        if (why := notation_disagreement(p))
    ]
    assert not wrong, "the notations differ:\n" + "\n".join(wrong[:10])
    return len({p for game in games for p in game if ref.result(p) is None}), compared


def test_both_give_the_same_plays_results_and_notation_over_random_games() -> None:
    compare_games(range(6), seed=41)


@pytest.mark.slow
def test_both_give_the_same_plays_over_thousands_of_positions() -> None:
    positions, compared = compare_games(range(100, 116), seed=4141, every=20)
    assert positions >= 2_900 and compared >= 11_000  # 2,974 and 11,933


# -- six-point runs built on purpose --------------------------------------------------------------


def block_positions(count: int, seed: int) -> Iterator[ref.Position]:
    """Positions both parsers accept with the side on roll holding a run of four to six points
    along the opponent's path (anywhere, across the opponent's start too), more of its checkers
    just behind the run, and the opponent sometimes with a checker past the run (mostly right
    past it), sometimes not."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        mine, theirs = [0] * 24, [0] * 24
        first, length = rng.randrange(1, 25), rng.choice((4, 5, 5, 6))
        run = [(first + k - 1) % 24 + 1 for k in range(length)]  # the opponent's points
        for q in run:
            mine[ref.other_point(q) - 1] += 1
        while sum(mine) < CHECKERS:  # the rest up to six points behind the run, or anywhere
            behind = ref.other_point(run[-1]) + rng.randrange(1, 7)
            point = behind if behind <= 24 and rng.random() < 0.7 else rng.randrange(1, 25)
            mine[point - 1] += 1
        ahead = rng.random() < 0.5  # one opponent checker past the run, if there is room
        while sum(theirs) < CHECKERS:
            if ahead and 1 < run[0] < run[-1]:
                q = max(1, run[0] - rng.choice((1, 1, 2, 6)))  # mostly just past the run
                ahead = False
            else:
                q = rng.randrange(run[-1], 25) if rng.random() < 0.8 else rng.randrange(1, 25)
            if not mine[ref.other_point(q) - 1]:
                theirs[q - 1] += 1
        position = ref.Position(tuple(mine), tuple(theirs), 0, 0, "w")
        if rng.random() < 0.5:  # Black on roll with the run
            position = ref.Position(tuple(theirs), tuple(mine), 0, 0, "b")
        text = ref.format(position)
        try:
            ref.parse(text)
        except ValueError:
            refused = True
        else:
            refused = False
        try:
            RULES.parse_position(text)
        except ValueError:
            assert refused, f"only the compiled game refuses {text}"
            continue
        assert not refused, f"only the reference refuses {text}"
        made += 1
        yield position


def compare_blocks(count: int, seed: int) -> int:
    """Both generators on every roll of ``count`` built positions; how many of those rolls the
    six-block rule changed the plays of (the reference's, with the rule left out)."""
    wrong: list[str] = []
    changed = 0
    for position in block_positions(count, seed):
        blocked = {roll: reference_plays(position, roll) for roll in ref.ROLLS}
        wrong += filter(None, (disagreement(position, roll, blocked[roll]) for roll in ref.ROLLS))
        with mock.patch.object(ref, "breaks_six_block", lambda mine, theirs: False):
            changed += sum(reference_plays(position, roll) != blocked[roll] for roll in ref.ROLLS)
    assert not wrong, f"{len(wrong)} disagree:\n" + "\n".join(wrong[:10])
    return changed


def test_both_give_the_same_plays_around_six_point_runs() -> None:
    changed = compare_blocks(12, seed=6)
    assert changed >= 12  # about one roll in ten


@pytest.mark.slow
def test_both_give_the_same_plays_around_many_six_point_runs() -> None:
    changed = compare_blocks(40, seed=66)
    assert changed >= 8  # 12 of the 840 rolls when measured
