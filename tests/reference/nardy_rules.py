"""A plain, slow, obviously correct long nardy, written from the rules text alone.

Nothing here comes from :mod:`samuel.games.nardy`. A position is two tuples of 24 counts, each
side's in its own numbering (index ``p - 1`` holds its point ``p``; index 23 is its head, point
24), the checkers each has borne off, and the side on roll. A play is found by trying every die on
every checker, one step at a time, each step checked against every rule; the plays of a roll are
the distinct positions its longest legal step sequences leave. The tests check the compiled game
against it; speed is no concern here, clarity is.

Readings of the rules this module makes (each a choice the rules text leaves to the reader):

* **Six-block.** The opponent's path runs from its point 24 down to its point 1 and then off the
  board; it does not go on from 1 to 24. So six consecutive points on that path are the
  opponent's points ``low .. low + 5`` for ``low`` 1 to 19, and an opponent checker is *ahead* of
  them when it stands on one of the opponent's points below ``low``. A run that wraps from the
  opponent's 1 to its 24 blocks nothing and is no six-block. (Read as a ring going on past 1,
  every opponent checker on the board would stand ahead of such a run, so that reading allows
  it too; only "ahead means below the lowest number of the six" would refuse it.) The rule is
  checked after every checker step: a play is legal when its steps can be made in some order
  with every step legal, so a play that ends with no six is still refused when every order of
  its steps makes one on the way.
* **First turn.** "A side's first turn" is read from the position alone: all 15 of its checkers
  on its head. (A side whose first turn passed with all 15 still there would get the exception
  again; the position's notation has no turn number, so this is the only reading it supports.)
* **Bearing off.** A die may always move a checker inside home instead of bearing one off.
* **Finished games.** Once a side has borne off all 15 there are no plays.
* **Position notation.** NARDY.md gives ``24x15/24x15 w`` but no separator between a side's
  items; this module writes them with commas: ``24x13,19x1,16x1/24x14,12x1 b``.

>>> len(plays(START, 3, 3)), len(plays(START, 6, 5))
(2, 1)
>>> sorted(play_texts(START, 3, 3).values())
['24/15 24/21', '24/18(2)']
>>> [perft(START, depth) for depth in range(3)]
[1, 22, 484]
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

POINTS = 24
CHECKERS = 15
HEAD = 24
HOME = range(1, 7)  # a side's points 1-6
FIRST_QUARTER = range(19, 25)  # a side's points 19-24: koks if the loser still has one there
BLOCK = 6
DOUBLES_TAKING_TWO = (3, 4, 6)  # the first-turn doubles that may take two from the head
ROLLS = [(low, high) for low in range(1, 7) for high in range(low, 7)]  # the 21 distinct rolls


@dataclass(frozen=True, order=True)
class Position:
    """Each side's checkers in its own numbering (``white[p - 1]`` on White's point ``p``), the
    checkers each has borne off, and the side on roll, ``"w"`` or ``"b"``."""

    white: tuple[int, ...]
    black: tuple[int, ...]
    white_off: int = 0
    black_off: int = 0
    to_move: str = "w"


START = Position((0,) * 23 + (CHECKERS,), (0,) * 23 + (CHECKERS,), 0, 0, "w")


def other_point(p: int) -> int:
    """The other side's number for a side's point ``p`` (White's 24 is Black's 12)."""
    return ((p + 11) % POINTS) + 1


def other_side(side: str) -> str:
    return "b" if side == "w" else "w"


def checkers_of(position: Position, side: str) -> tuple[tuple[int, ...], int]:
    """The side's 24 counts (its own numbering) and its borne-off checkers."""
    if side == "w":
        return position.white, position.white_off
    return position.black, position.black_off


def with_side(position: Position, side: str, counts: tuple[int, ...], off: int) -> Position:
    """The position with the side's checkers replaced and the other side to move."""
    if side == "w":
        return replace(position, white=counts, white_off=off, to_move="b")
    return replace(position, black=counts, black_off=off, to_move="w")


def pass_turn(position: Position) -> Position:
    """The same checkers, the other side on roll: a turn with no legal play."""
    return replace(position, to_move=other_side(position.to_move))


# --- the rules of a checker step ---


def opponent_on(theirs: tuple[int, ...], p: int) -> bool:
    """Whether an opponent checker stands on the mover's point ``p``."""
    return theirs[other_point(p) - 1] > 0


def breaks_six_block(mine: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
    """Whether the mover (``mine``) holds six consecutive points of the opponent's path with no
    opponent checker ahead of them. ``theirs`` is in the opponent's own numbering."""
    for low in range(1, POINTS - BLOCK + 2):  # the opponent's points low .. low + 5
        six = range(low, low + BLOCK)
        if all(mine[other_point(q) - 1] > 0 for q in six):
            if not any(theirs[q - 1] > 0 for q in range(1, low)):
                return True
    return False


def all_home(mine: tuple[int, ...]) -> bool:
    return all(mine[p - 1] == 0 for p in range(HOME.stop, POINTS + 1))


def steps(mine, off, left_head, head_limit, theirs, die):
    """Every legal single step of ``die``: ``(from, to, mine, off, left_head)`` after it, ``to``
    0 for a checker borne off. ``left_head`` counts the checkers that left the head this turn."""
    found = []
    for start in range(1, POINTS + 1):
        if mine[start - 1] == 0:
            continue
        if start == HEAD and left_head >= head_limit:
            continue  # head rule
        to = start - die
        if to >= 1:
            if opponent_on(theirs, to):
                continue  # never onto a point with an opponent checker
        else:
            if not all_home(mine):
                continue  # bearing off only with every checker on the board at home
            if to < 0 and any(mine[p - 1] > 0 for p in range(start + 1, HOME.stop)):
                continue  # a larger die bears off only from the highest occupied point
            to = 0
        after = list(mine)
        after[start - 1] -= 1
        if to:
            after[to - 1] += 1
        after = tuple(after)
        if breaks_six_block(after, theirs):
            continue
        found.append((start, to, after, off + (to == 0), left_head + (start == HEAD)))
    return found


def head_limit(mine: tuple[int, ...], die1: int, die2: int) -> int:
    """How many checkers may leave the head this turn: two with 3-3, 4-4 or 6-6 while all 15 are
    still there (the side's first turn), else one."""
    if mine[HEAD - 1] == CHECKERS and die1 == die2 and die1 in DOUBLES_TAKING_TWO:
        return 2
    return 1


def dice_orders(die1: int, die2: int) -> list[tuple[int, ...]]:
    """The orders the dice may be played in: a double four times, two dice either way round."""
    if die1 == die2:
        return [(die1,) * 4]
    return [(die1, die2), (die2, die1)]


def sequences(position: Position, die1: int, die2: int):
    """Every legal sequence of steps, of every length, for the roll: a list of
    ``(dice played in order, steps as (from, to) pairs, mine, off)``."""
    side = position.to_move
    mine, off = checkers_of(position, side)
    theirs, _ = checkers_of(position, other_side(side))
    limit = head_limit(mine, die1, die2)
    found = []

    def extend(order, used, moves, mine, off, left_head):
        found.append((order[:used], moves, mine, off))
        if used == len(order):
            return
        for start, to, after, after_off, after_left in steps(
            mine, off, left_head, limit, theirs, order[used]
        ):
            extend(order, used + 1, moves + ((start, to),), after, after_off, after_left)

    for order in dice_orders(die1, die2):
        extend(order, 0, (), mine, off, 0)
    return found


def legal_sequences(position: Position, die1: int, die2: int):
    """The sequences the most-dice and larger-die rules allow: as many dice as can be played; of
    two different dice only one playable, the larger if it can be."""
    if result(position) is not None:
        return []
    found = sequences(position, die1, die2)
    most = max(len(dice) for dice, _, _, _ in found)
    if most == 0:
        return []
    longest = [s for s in found if len(s[0]) == most]
    if die1 != die2 and most == 1:
        larger = [s for s in longest if s[0][0] == max(die1, die2)]
        if larger:
            return larger
    return longest


def plays(position: Position, die1: int, die2: int) -> set[Position]:
    """Every distinct position a legal play of the roll leaves, the other side to move; empty
    when the turn passes (see :func:`pass_turn`) or the game is over."""
    side = position.to_move
    return {
        with_side(position, side, mine, off)
        for _, _, mine, off in legal_sequences(position, die1, die2)
    }


# --- move notation ---


def play_text(moves: tuple[tuple[int, int], ...]) -> str:
    """``24/15 24/21``, ``13/7(2)``, ``3/off``: each checker's steps chained (a step from where
    another ended continues it), equal chains counted; by start from 24 down, and from one start
    the longest first."""
    chains: list[list[int]] = []
    for start, to in sorted(moves, reverse=True):
        for chain in chains:
            if chain[1] == start:
                chain[1] = to
                break
        else:
            chains.append([start, to])
    chains.sort(key=lambda chain: (-chain[0], chain[1]))
    words: list[str] = []
    counted: list[tuple[str, int]] = []
    for start, to in chains:
        word = f"{start}/{to if to else 'off'}"
        if counted and counted[-1][0] == word:
            counted[-1] = (word, counted[-1][1] + 1)
        else:
            counted.append((word, 1))
    for word, count in counted:
        words.append(word if count == 1 else f"{word}({count})")
    return " ".join(words)


def play_texts(position: Position, die1: int, die2: int) -> dict[Position, str]:
    """Each play's position with one text for it: the first in sorted order of the texts of
    the step sequences that make it."""
    side = position.to_move
    texts: dict[Position, str] = {}
    for _, moves, mine, off in legal_sequences(position, die1, die2):
        after = with_side(position, side, mine, off)
        text = play_text(moves)
        if after not in texts or text < texts[after]:
            texts[after] = text
    return texts


# --- results ---


def result(position: Position) -> int | None:
    """None while both sides have checkers to bear off; else the points, positive when White
    won and negative when Black did: 1 a win (the loser has borne off at least one), 2 mars
    (none), 3 koks (none, and a checker still in the loser's first quarter, its points 19-24)."""
    for winner, sign in (("w", 1), ("b", -1)):
        _, winner_off = checkers_of(position, winner)
        if winner_off < CHECKERS:
            continue
        loser, loser_off = checkers_of(position, other_side(winner))
        if loser_off > 0:
            return sign * 1
        if any(loser[p - 1] > 0 for p in FIRST_QUARTER):
            return sign * 3
        return sign * 2
    return None


# --- perft ---


def perft(position: Position, depth: int) -> int:
    """perft(0) = 1; perft(n) sums, over the 21 distinct rolls (each once, unweighted), over
    each distinct play, perft(n - 1) after it; a roll with no play is one pass (a play); a
    finished game counts 1."""
    if depth == 0 or result(position) is not None:
        return 1
    total = 0
    for die1, die2 in ROLLS:
        after = plays(position, die1, die2) or {pass_turn(position)}
        if depth == 1:
            total += len(after)
        else:
            total += sum(perft(child, depth - 1) for child in after)
    return total


# --- position notation ---


def format_side(counts: tuple[int, ...], off: int) -> str:
    items = [f"{p}x{counts[p - 1]}" for p in range(POINTS, 0, -1) if counts[p - 1]]
    if off:
        items.append(f"offx{off}")
    return ",".join(items)


def format(position: Position) -> str:
    """``24x15/24x15 w``: White's items, then Black's, each in its own numbering from 24 down
    (``offxN`` last), then the side on roll."""
    white = format_side(position.white, position.white_off)
    black = format_side(position.black, position.black_off)
    return f"{white}/{black} {position.to_move}"


def parse_side(text: str, name: str) -> tuple[tuple[int, ...], int]:
    counts = [0] * POINTS
    off = 0
    last = POINTS + 1
    for item in text.split(","):
        where, x, count = item.partition("x")
        if not x or not count.isdigit() or int(count) < 1:
            raise ValueError(f"{name}: not an item POINTxCOUNT or offxN: {item!r}")
        if where == "off":
            if last == 0:
                raise ValueError(f"{name}: offxN given twice")
            off, last = int(count), 0
            continue
        if not where.isdigit() or not 1 <= int(where) <= POINTS:
            raise ValueError(f"{name}: not a point 1-24: {where!r}")
        if int(where) >= last:
            raise ValueError(f"{name}: points must run from 24 down, each once: {item!r}")
        last = int(where)
        counts[last - 1] = int(count)
    if sum(counts) + off != CHECKERS:
        raise ValueError(f"{name} has {sum(counts) + off} checkers, not {CHECKERS}")
    return tuple(counts), off


def parse(text: str) -> Position:
    """The position of a line such as ``24x15/24x15 w``; a ValueError saying what is wrong."""
    board, space, side = text.strip().rpartition(" ")
    if not space or side not in ("w", "b"):
        raise ValueError(f"a position ends with the side on roll, w or b: {text!r}")
    white_text, slash, black_text = board.partition("/")
    if not slash:
        raise ValueError(f"White's checkers and Black's are separated by '/': {text!r}")
    white, white_off = parse_side(white_text, "White")
    black, black_off = parse_side(black_text, "Black")
    for p in range(1, POINTS + 1):
        if white[p - 1] and black[other_point(p) - 1]:
            raise ValueError(f"White's point {p} (Black's {other_point(p)}) holds both sides")
    if white_off == CHECKERS and black_off == CHECKERS:
        raise ValueError("both sides have borne off all 15")
    # the rule limits moves: once a side has borne off every checker the game is over, and a
    # six the other side made while checkers of it stood ahead stays on the board
    if any(black) and breaks_six_block(white, black):
        raise ValueError("White holds six points in a row with no Black checker ahead")
    if any(white) and breaks_six_block(black, white):
        raise ValueError("Black holds six points in a row with no White checker ahead")
    return Position(white, black, white_off, black_off, side)


# --- games for the conformance test ---


def longest_run(position: Position, side: str) -> int:
    """The most consecutive points of the other side's path that ``side`` holds."""
    mine, _ = checkers_of(position, side)
    longest = run = 0
    for q in range(1, POINTS + 1):  # the other side's points, its path read from 1 up
        run = run + 1 if mine[other_point(q) - 1] else 0
        longest = max(longest, run)
    return longest


def random_game(seed: int, blocks: bool = False, max_turns: int = 1000) -> list[Position]:
    """The positions of a game of random plays from the start, the start first and the finished
    position last: dice and choices from ``random.Random(seed)`` (a roll's plays in sorted
    notation order), a pass where a roll has no play. With ``blocks``, four choices in five are
    among the plays that hold the longest run of points: uniform play almost never meets the
    six-block rule, play that builds blocks does."""
    rng = random.Random(seed)
    position = START
    game = [position]
    for _ in range(max_turns):
        if result(position) is not None:
            break
        die1, die2 = rng.randint(1, 6), rng.randint(1, 6)
        after = sorted(plays(position, die1, die2), key=format)
        if after and blocks and rng.random() < 0.8:
            longest = max(longest_run(p, position.to_move) for p in after)
            after = [p for p in after if longest_run(p, position.to_move) == longest]
        position = rng.choice(after) if after else pass_turn(position)
        game.append(position)
    return game
